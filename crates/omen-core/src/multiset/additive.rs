//! Readings that are sums over the dice of one number per face each (how many dice show a face in a
//! range, the total): their joint distribution is the sum of independent dice's vectors, so it is
//! summed die by die in a dense table of machine-integer weights, without the walk's map of states
//! (20d6 read for its hits and its ones: 21 × 21 cells, against thousands of states).

use num_traits::ToPrimitive;

use crate::dense::sum_table;
use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;
use crate::limits::Budget;

use super::{Group, Reading};

/// A group's faces as (the numbers it adds, weight), with how many dice of it.
type Kind = (Vec<(Vec<i64>, u128)>, usize);

/// The largest table summed in (cells): 4 MiB of weights.
const MAX_CELLS: usize = 1 << 18;

/// The joint distribution of an additive `reading` of `groups`, or `None` when the reading is not
/// additive, a group is drawn without replacement, or the table or its weights would not fit.
///
/// # Errors
/// The work budget (each die's sum charged before it runs), cancellation, and overflow of a sum.
pub(super) fn read<R: Reading>(
    groups: &[&Group],
    reading: &R,
    budget: &mut Budget,
) -> Result<Option<Distribution<R::Value>>, CoreError> {
    if groups.iter().any(|g| g.drawn) {
        return Ok(None);
    }
    // Each group's faces as (vector, weight), and the box the sums lie in.
    let mut kinds: Vec<Kind> = Vec::with_capacity(groups.len());
    for g in groups {
        let mut faces = Vec::with_capacity(g.die.len());
        for (outcome, w) in g.die.entries() {
            let (Some(v), Some(w)) = (reading.sums(*outcome), w.to_u128()) else {
                return Ok(None);
            };
            faces.push((v, w));
        }
        kinds.push((faces, g.count));
    }
    let Some(width) = kinds
        .first()
        .and_then(|(f, _)| f.first())
        .map(|(v, _)| v.len())
    else {
        return Ok(None);
    };
    let mut low = vec![0i64; width];
    let mut sizes = vec![1usize; width];
    for (faces, count) in &kinds {
        let count = i64::try_from(*count).map_err(|_| CoreError::Overflow)?;
        for i in 0..width {
            let least = faces.iter().map(|(v, _)| v[i]).min().unwrap_or(0);
            let most = faces.iter().map(|(v, _)| v[i]).max().unwrap_or(0);
            let spread = most
                .checked_sub(least)
                .and_then(|s| s.checked_mul(count))
                .and_then(|s| usize::try_from(s).ok());
            let shift = least.checked_mul(count).and_then(|s| s.checked_add(low[i]));
            let (Some(spread), Some(shift)) = (spread, shift) else {
                return Ok(None);
            };
            low[i] = shift;
            sizes[i] = sizes[i].saturating_add(spread);
        }
    }
    let cells = sizes.iter().try_fold(1usize, |acc, &s| acc.checked_mul(s));
    let Some(cells) = cells.filter(|&c| c <= MAX_CELLS) else {
        return Ok(None);
    };
    let mut strides = vec![1usize; width];
    for i in (0..width.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * sizes[i + 1];
    }
    let (table, _) = sum_table(&kinds, &strides, cells, budget)?;
    let entries = table.into_iter().enumerate().filter(|(_, w)| *w != 0);
    let pairs: Vec<(R::Value, Weight)> = entries
        .map(|(cell, w)| {
            let sums: Vec<i64> = (0..width)
                .map(|i| low[i] + ((cell / strides[i]) % sizes[i]) as i64)
                .collect();
            (reading.value_of_sums(&sums), Weight::from(w))
        })
        .collect();
    Distribution::from_weights(pairs).map(Some)
}
