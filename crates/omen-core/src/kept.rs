//! Which dice a keep or drop rule keeps, when the values are known: shared by the roll
//! transcripts (spec) and the set counters (sets), so it sits below both.

use crate::pool::Keep;

/// Which of `values` a keep/drop rule keeps; ties go to the earlier value.
pub fn select_kept(values: &[i64], keep: Keep) -> Vec<bool> {
    let n = values.len();
    let mut order: Vec<usize> = (0..n).collect();
    let (from_highest, take) = match keep {
        Keep::All => return vec![true; n],
        Keep::Highest(k) => (true, k.min(n)),
        Keep::Lowest(k) => (false, k.min(n)),
        Keep::DropHighest(d) => (false, n - d.min(n)),
        Keep::DropLowest(d) => (true, n - d.min(n)),
        Keep::Middle(_) | Keep::Slice { .. } | Keep::DropBoth { .. } => {
            // A middle run: rank from the lowest, ties to the earlier value.
            let (low, take) = keep.run(n);
            order.sort_by_key(|&i| values[i]);
            let mut kept = vec![false; n];
            for &i in order.iter().skip(low).take(take) {
                kept[i] = true;
            }
            return kept;
        }
    };
    if from_highest {
        order.sort_by(|&a, &b| values[b].cmp(&values[a]));
    } else {
        order.sort_by_key(|&i| values[i]);
    }
    let mut kept = vec![false; n];
    for &i in order.iter().take(take) {
        kept[i] = true;
    }
    kept
}
