//! Remembers which parts of a word split into modifier words, so that reading a long run of modifiers
//! glued into one word (`d6dddd…`, `4d6khkhkh…`) is linear in its length.
//!
//! The parser asks "is the rest of this word a run of modifier words?" before each modifier it takes
//! from the word. Answering from scratch walks the whole rest each time: a word of n letters cost n²/2
//! table look-ups (20,000 `d`s took 9 s). The walk is greedy (the longest word at each step), so the
//! walk from any point it passes through is the tail of the walk already made: one walk answers for
//! every such point, and the parser takes its modifiers exactly at those points.

use std::cell::RefCell;

use crate::span::Span;
use crate::syntax::dialect::Dialect;

/// The last greedy walk over a word: where it ends, whether it reached the end, and every point it
/// passed through (ascending).
#[derive(Debug, Default)]
pub(super) struct RunMemo {
    walk: RefCell<Walk>,
}

#[derive(Debug, Default)]
struct Walk {
    end: usize,
    splits: bool,
    points: Vec<usize>,
}

impl RunMemo {
    /// Whether `source[span]` splits into modifier words of `dialect` from start to end, taking the
    /// longest word each time: the same answer as [`Dialect::is_modifier_run`].
    pub(super) fn is_modifier_run(&self, dialect: &Dialect, source: &str, span: Span) -> bool {
        let mut walk = self.walk.borrow_mut();
        if walk.end == span.end
            && !walk.points.is_empty()
            && walk.points.binary_search(&span.start).is_ok()
        {
            return walk.splits;
        }
        walk.end = span.end;
        walk.points.clear();
        let mut at = span.start;
        loop {
            walk.points.push(at);
            if at >= span.end {
                walk.splits = true;
                return true;
            }
            match source.get(at..span.end).and_then(|rest| dialect.word(rest)) {
                Some((_, len)) => at += len,
                None => {
                    walk.splits = false;
                    return false;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::dialect::Dialect;

    #[test]
    fn answers_as_the_dialect_does_from_every_point_of_a_word() {
        let omen = Dialect::named("omen").unwrap();
        for source in ["khdlro", "dddd", "khx", "fire", "kh", "mtuo", "dlrox"] {
            let memo = RunMemo::default();
            // Forwards, as the parser asks, then from every other point.
            for start in (0..=source.len()).chain((0..=source.len()).rev()) {
                let span = Span::new(start, source.len());
                assert_eq!(
                    memo.is_modifier_run(omen, source, span),
                    omen.is_modifier_run(&source[start..]),
                    "{source} from {start}"
                );
            }
        }
    }
}
