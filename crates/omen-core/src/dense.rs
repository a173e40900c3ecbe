//! Sums of dice whose faces are vectors of small numbers, die by die, in a dense table of
//! machine-integer weights: the pool's box of sums laid out in one array, a vector's cell its
//! components (shifted to start at zero) read as the digits of a mixed-radix number.

use crate::error::CoreError;
use crate::limits::Budget;

/// The weights of every sum of the pool's dice, and the last cell that can hold weight. `kinds` is
/// each kind of die (its faces' vectors with their weights) with how many of it; `strides` the
/// radix of each component; `cells` the table's size, which the caller made large enough for the
/// box of every sum, with the pool's total weight checked to fit in a `u128`.
///
/// # Errors
/// `WorkBudget` when the table or a die's pass over it passes the budget (charged before).
pub(crate) fn sum_table<V: AsRef<[i64]>>(
    kinds: &[(Vec<(V, u128)>, usize)],
    strides: &[usize],
    cells: usize,
    budget: &mut Budget,
) -> Result<(Vec<u128>, usize), CoreError> {
    budget.spend_estimate(cells as u128)?;
    let mut table = vec![0u128; cells];
    let mut next = vec![0u128; cells];
    table[0] = 1;
    // Cells 0..=reach can hold weight so far: the box of the dice placed.
    let mut reach = 0usize;
    for (faces, count) in kinds {
        // Each face's cell step, its vector shifted by the die's least components.
        let least: Vec<i64> = (0..strides.len())
            .map(|i| faces.iter().map(|(v, _)| v.as_ref()[i]).min().unwrap_or(0))
            .collect();
        let steps: Vec<(usize, u128)> = faces
            .iter()
            .map(|(v, w)| {
                let step = (0..strides.len())
                    .map(|i| (v.as_ref()[i] - least[i]) as usize * strides[i])
                    .sum();
                (step, *w)
            })
            .collect();
        let widest = steps.iter().map(|&(s, _)| s).max().unwrap_or(0);
        for _ in 0..*count {
            budget.spend_estimate((reach as u128 + 1) * steps.len() as u128)?;
            next[..=reach + widest].fill(0);
            for (cell, &w) in table[..=reach].iter().enumerate() {
                if w != 0 {
                    for &(step, c) in &steps {
                        // The caller checked the pool's total fits: no weight passes it.
                        next[cell + step] += w * c;
                    }
                }
            }
            reach += widest;
            std::mem::swap(&mut table, &mut next);
        }
    }
    Ok((table, reach))
}
