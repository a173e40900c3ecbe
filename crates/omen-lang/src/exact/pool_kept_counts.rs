//! `reroll(p, f)` of a pool of one kind of die, read by counting: which dice are kept depends only
//! on how many dice show each face `f` keeps, and counts of faces add up die by die, so the pool is
//! read by the core's walk of counts (summed in a dense table) instead of the walk by kind, which
//! carries the dice kept as a list in each state (a tenth of the work for Year Zero's push of 10d6).

use omen_core::multiset::{Builtin, Readings, read};
use omen_core::{Budget, CoreError, Distribution, Limits};

use super::pool_kinds::{KindPool, Native};
use crate::pool::Kept;
use crate::value::Value;

/// The builtin readings' values and the natives' values of one roll of the pool.
type Read = (Vec<i64>, Vec<Value>);

/// The joint distribution of the builtin readings' values and the natives' values (each a
/// reroll's [`Kept`]), or `None` when the pool is not one group of one kind rolled a fixed number
/// of times, or a native is not a reroll of every die chosen.
pub(super) fn kept_by_counts(
    laid: &KindPool,
    builtins: &[Builtin],
    natives: &[Native],
    limits: &Limits,
    budget: &mut Budget,
) -> Option<Result<Distribution<Read>, CoreError>> {
    let ([group], [(start, _)]) = (&laid.groups[..], &laid.starts[..]) else {
        return None;
    };
    let dice = *start.first()?;
    // Only a reroll's reading needs this; an exploding pool's groups count dice another way.
    if natives.is_empty() || group.count != dice {
        return None;
    }
    let mut kept_faces: Vec<Vec<i64>> = Vec::with_capacity(natives.len());
    for native in natives {
        let Native::Kept { choices, cap } = native else {
            return None;
        };
        if *cap != usize::MAX {
            return None;
        }
        let faces = group.die.outcomes();
        kept_faces.push(
            faces
                .filter(|x| !choices.get(x).copied().unwrap_or(false))
                .copied()
                .collect(),
        );
    }
    // Each kept face's count, where the script's own readings count it already (`count(p, 6)`
    // beside a push) taken from theirs: every reading more is a dimension more of the table.
    let mut all = builtins.to_vec();
    let at: Vec<Vec<usize>> = kept_faces
        .iter()
        .map(|faces| {
            faces
                .iter()
                .map(|&x| {
                    let count = Builtin::Count { low: x, high: x };
                    all.iter().position(|b| *b == count).unwrap_or_else(|| {
                        all.push(count);
                        all.len() - 1
                    })
                })
                .collect()
        })
        .collect();
    let d = match read(std::slice::from_ref(group), &Readings(all), limits, budget) {
        Ok(d) => d,
        Err(e) => return Some(Err(e)),
    };
    let values = d.map_into(|v| {
        let read = kept_faces
            .iter()
            .zip(&at)
            .map(|(faces, at)| {
                let shown: Vec<i64> = at.iter().map(|&i| v[i]).collect();
                kept_of(faces, &shown, dice).to_value()
            })
            .collect();
        (v[..builtins.len()].to_vec(), read)
    });
    Some(Ok(values))
}

/// The reading of a reroll that keeps every die showing one of `faces`, `shown[i]` of them showing
/// `faces[i]`, of `dice` in all: the dice kept ascending, the others rolled again.
fn kept_of(faces: &[i64], shown: &[i64], dice: usize) -> Kept {
    let mut kept = Kept::new(1);
    for (&x, &n) in faces.iter().zip(shown) {
        kept.kept.extend(std::iter::repeat_n((x, 0), n as usize));
    }
    kept.again[0] = dice - kept.kept.len();
    kept
}
