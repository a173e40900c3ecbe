//! Avrae's dice terms as its d20 library reads them: `NdX` then operations (`k`, `p`, `rr`, `ro`,
//! `ra`, `e`, `mi`, `ma`), each with a selector (`3`, `h3`, `l3`, `>3`, `<3`), applied in the order
//! written, consecutive operations of one kind (but `mi`, `ma`) joined into one with every selector.
//!
//! Omen's notation writes such a term `avrae("4d6kh3e6ro1")`; the Avrae dialect reads a term this
//! way when its operations cannot be put in Omen's fixed order without changing what they mean
//! (see [`needs_in_turn`]).

use omen_core::in_turn::{Selector, Step, Word};

/// A d20 dice term: how many dice, their sides (`None` for `d%`, the faces 0, 10, …, 90), and the
/// operations, joined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct D20Term {
    pub count: i64,
    pub sides: Option<i64>,
    pub steps: Vec<Step>,
}

/// The operation words, longest first so that `rr` is not read as `r`.
const WORDS: [(&str, Word); 8] = [
    ("rr", Word::Reroll),
    ("ro", Word::RerollOnce),
    ("ra", Word::RerollAndAdd),
    ("mi", Word::Minimum),
    ("ma", Word::Maximum),
    ("k", Word::Keep),
    ("p", Word::Drop),
    ("e", Word::Explode),
];

fn word_text(word: Word) -> &'static str {
    WORDS
        .iter()
        .find(|(_, w)| *w == word)
        .map_or("?", |(text, _)| text)
}

/// The digits at `at` as a number, `at` moved past them; `None` without digits or for one too large.
pub(crate) fn number(text: &[u8], at: &mut usize) -> Option<i64> {
    let start = *at;
    while text.get(*at).is_some_and(u8::is_ascii_digit) {
        *at += 1;
    }
    std::str::from_utf8(&text[start..*at]).ok()?.parse().ok()
}

/// Reads a whole d20 dice term (letters in either case), or says why it is not one.
///
/// # Errors
/// What is missing or not a d20 term, as a phrase.
pub fn read(text: &str) -> Result<D20Term, String> {
    let (term, len) = read_start(text)?;
    match &text[len..] {
        "" => Ok(term),
        rest => Err(format!("an operation with its selector at `{rest}`")),
    }
}

/// The d20 dice term at the start of `text` and its length: a count, `d`, the sides or `%`, then
/// operations with their selectors for as long as they follow; `None` when the text does not start
/// with one, or a letter or digit runs on after it (`4d6kh3x`).
pub fn term_at(text: &str) -> Option<(D20Term, usize)> {
    let (term, len) = read_start(text).ok()?;
    (!runs_on(&text[len..])).then_some((term, len))
}

/// Whether a letter or digit follows, so that what was read is part of a longer word.
pub fn runs_on(rest: &str) -> bool {
    rest.as_bytes()
        .first()
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'%' | b'_'))
}

/// The term at the start of `text` and how far it reaches, operations joined as d20 joins them.
fn read_start(text: &str) -> Result<(D20Term, usize), String> {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut at = 0;
    let count = if b.first().is_some_and(u8::is_ascii_digit) {
        number(b, &mut at).ok_or("a count that is too large")?
    } else {
        1
    };
    if b.get(at) != Some(&b'd') {
        return Err("a `d` after the count".into());
    }
    at += 1;
    let sides = if b.get(at) == Some(&b'%') {
        at += 1;
        None
    } else {
        Some(number(b, &mut at).ok_or("the number of sides after `d`")?)
    };
    let (steps, len) = operations(&text[at..]);
    let term = D20Term {
        count,
        sides,
        steps,
    };
    Ok((term, at + len))
}

/// The operations at the start of `text` (letters in either case) for as long as they follow, joined
/// as d20 joins them, and how far they reach.
pub fn operations(text: &str) -> (Vec<Step>, usize) {
    let lower = text.to_ascii_lowercase();
    let mut steps: Vec<Step> = Vec::new();
    let mut at = 0;
    while let Some((word, selector, next)) = operation(lower.as_bytes(), at) {
        at = next;
        match steps.last_mut() {
            Some(last) if last.word == word && !matches!(word, Word::Minimum | Word::Maximum) => {
                last.selectors.push(selector);
            }
            _ => steps.push(Step {
                word,
                selectors: vec![selector],
            }),
        }
    }
    (steps, at)
}

/// A set's operations at the start of `text`, as [`operations`] reads them, when there are some and
/// all are keeps and drops (the only operations d20 allows on a set).
pub fn set_operations(text: &str) -> Option<(Vec<Step>, usize)> {
    let (steps, len) = operations(text);
    let keeps = |s: &Step| matches!(s.word, Word::Keep | Word::Drop);
    (!steps.is_empty() && steps.iter().all(keeps)).then_some((steps, len))
}

/// The operations written back in d20's notation, each joined operation's selectors in turn.
pub fn written_operations(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        for s in &step.selectors {
            out.push_str(word_text(step.word));
            match s {
                Selector::Is(x) => out.push_str(&x.to_string()),
                Selector::Highest(n) => out.push_str(&format!("h{n}")),
                Selector::Lowest(n) => out.push_str(&format!("l{n}")),
                Selector::Above(x) => out.push_str(&format!(">{x}")),
                Selector::Below(x) => out.push_str(&format!("<{x}")),
            }
        }
    }
    out
}

/// The operation with its selector at `at` in the lower-cased `b`, and where it ends.
fn operation(b: &[u8], at: usize) -> Option<(Word, Selector, usize)> {
    let &(text, word) = WORDS
        .iter()
        .find(|(text, _)| b[at..].starts_with(text.as_bytes()))?;
    let mut at = at + text.len();
    let category = b
        .get(at)
        .copied()
        .filter(|c| matches!(c, b'h' | b'l' | b'>' | b'<'));
    at += usize::from(category.is_some());
    let n = number(b, &mut at)?;
    let selector = match category {
        Some(b'h') => Selector::Highest(n.unsigned_abs()),
        Some(b'l') => Selector::Lowest(n.unsigned_abs()),
        Some(b'>') => Selector::Above(n),
        Some(_) => Selector::Below(n),
        None => Selector::Is(n),
    };
    Some((word, selector, at))
}

/// Whether d20 can run the term at all (see [`Step::refusal`]).
pub fn runs(term: &D20Term) -> bool {
    term.steps.iter().all(|s| s.refusal().is_none())
}

/// Whether a set's keeps and drops must run in turn: Omen's group keeps and drops by rank in one
/// step, which means what d20 does for two selectors by rank (`kh2pl1`) or keeps and drops by value,
/// but not for a drop by rank and then a keep by rank (`ph1kh1`, a middle keep) or three selectors
/// by rank (`kh1kl1ph1`).
pub fn set_needs_in_turn(steps: &[Step]) -> bool {
    let by_rank = |s: &Step| s.selectors.iter().filter(|x| !x.by_value()).count();
    let drop_then_keep = steps.iter().enumerate().any(|(i, s)| {
        s.word == Word::Drop
            && by_rank(s) > 0
            && steps[i + 1..]
                .iter()
                .any(|t| t.word == Word::Keep && by_rank(t) > 0)
    });
    drop_then_keep || steps.iter().map(by_rank).sum::<usize>() >= 3
}

/// The term written back in d20's notation.
pub fn written(term: &D20Term) -> String {
    let sides = term.sides.map_or("%".to_string(), |s| s.to_string());
    format!("{}d{sides}{}", term.count, written_operations(&term.steps))
}

/// Whether the term's operations must run in turn to keep d20's meaning. Omen's own term applies a
/// die's rerolls, clamps and explosions as one chain before any keep: it means what d20 does for one
/// operation, for one reroll, clamp or explosion by the face with one keep or drop before or after
/// it (`4d6ro1kh3`, `4d6kh3ro1`), and for keeps and drops by the face alone. Anything else runs in
/// turn: two rerolls, clamps or explosions (a reroll after a clamp rolls an unclamped die in d20, an
/// explosion's new dice meet only the later operations), one joined from several (`ro1ro2` rerolls
/// once what either picks), an explosion by rank, keeps and drops in turn with one by rank (`ph1kh1`).
pub fn needs_in_turn(term: &D20Term) -> bool {
    let keeps = |s: &Step| matches!(s.word, Word::Keep | Word::Drop);
    let by_value = |s: &Step| s.selectors.iter().all(|x| x.by_value());
    let one_step =
        |s: &Step| s.selectors.len() == 1 && (keeps(s) || s.word != Word::Explode || by_value(s));
    let plain_step = |s: &Step| {
        !keeps(s) && s.word != Word::RerollAndAdd && s.selectors.len() == 1 && by_value(s)
    };
    let own_reading = match term.steps.as_slice() {
        [] => true,
        [one] => one_step(one) || keeps(one),
        [a, b] if plain_step(a) && keeps(b) && b.selectors.len() == 1 => true,
        [a, b] if keeps(a) && a.selectors.len() == 1 && plain_step(b) => true,
        all => all.iter().all(|s| keeps(s) && by_value(s)),
    };
    !own_reading
}
