//! One bound value read once: `let r = symbols(p); r.0 * 1000 + r.1` runs the machine once per
//! outcome of `r`, in the outcomes' order, and sorts the results, without the odometer over
//! combinations or a map of the results (a third of the work over eight Genesys dice' 508 outcomes).

use omen_core::{Budget, CoreError, Distribution, Weight};

use super::{Class, Kinds, Machine, Word};
use crate::value::Value;

impl Machine {
    /// The distribution of the rest's value over the outcomes of `class`, a class of one slot;
    /// `None` when the machine gives numbers of another kind or meets an error on some outcome (the
    /// evaluator then runs every combination, so that the error is its own).
    pub(super) fn run_each(
        &self,
        class: &Class,
        weights: &[u128],
        kinds: &Kinds,
        registers: &mut [i64],
        budget: &mut Budget,
    ) -> Option<Result<Distribution<Value>, CoreError>> {
        let [slot] = class.slots[..] else {
            return None;
        };
        if self.result != Word::Int {
            return None;
        }
        let mut out: Vec<(i64, u128)> = Vec::with_capacity(weights.len());
        for (k, &w) in weights.iter().enumerate() {
            // Paid up front; a cancelled computation still stops within a few thousand.
            if k % 4096 == 4095
                && let Err(e) = budget.check()
            {
                return Some(Err(e));
            }
            let value = &class.outcomes[class.picks(k)[0]];
            registers[slot] = super::register_of(value);
            kinds.load_fields(slot, value, registers);
            out.push((self.run(registers)?, w));
        }
        out.sort_unstable_by_key(|&(x, _)| x);
        // The weights are one class's, each at most a machine word: no sum passes 128 bits.
        let total: u128 = out.iter().map(|&(_, w)| w).sum();
        let mut merged: Vec<(Value, Weight)> = Vec::with_capacity(out.len());
        let mut pending: Option<(i64, u128)> = None;
        for (x, w) in out {
            pending = match pending {
                Some((y, acc)) if y == x => Some((y, acc + w)),
                Some((y, acc)) => {
                    merged.push((Value::Int(y), Weight::from(acc)));
                    Some((x, w))
                }
                None => Some((x, w)),
            };
        }
        merged.extend(pending.map(|(y, acc)| (Value::Int(y), Weight::from(acc))));
        Some(Distribution::from_sorted_with_total(
            merged,
            Weight::from(total),
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::{Options, ValueDistribution, compile, exact};

    fn run(script: &str) -> Result<ValueDistribution, String> {
        let options = Options::default();
        let checked = compile(script, &options).unwrap_or_else(|_| panic!("{script} compiles"));
        exact(&checked.program, &options.limits)
            .map(|r| r.distribution)
            .map_err(|d| format!("{}: {}", d.kind, d.message))
    }

    #[test]
    fn one_binding_read_once_per_outcome_counts_every_face() {
        // `x * x - 7 * x` over a d10: the faces 3 and 4 both give -12, so their weights merge.
        let mut expected = std::collections::BTreeMap::new();
        for x in 1..=10i64 {
            *expected.entry(x * x - 7 * x).or_insert(0u32) += 1;
        }
        let Ok(ValueDistribution::Int(d)) = run("let x = d10; x * x - 7 * x") else {
            panic!("a whole number");
        };
        assert_eq!(d.len(), expected.len());
        for (value, faces) in expected {
            let p = omen_core::Probability::new(faces.into(), 10u32.into());
            assert_eq!(d.probability(&value), p, "{value}");
        }
    }

    #[test]
    fn an_error_on_one_outcome_is_the_evaluators_error() {
        // The machine meets `% 0` when the die shows 3 and gives the outcome back to the evaluator.
        let machine = run("let x = d6; 10 % (x - 3)");
        let evaluator = run("let x = d6; 10 % (x - 3) + d1 - 1");
        assert!(machine.is_err(), "{machine:?}");
        assert_eq!(machine, evaluator);
    }

    #[test]
    fn a_true_or_false_rest_and_a_pool_read_in_place_agree_with_the_evaluator() {
        for (script, branched) in [
            ("let x = d6; x >= 4", "let x = d6; x + d1 - 1 >= 4"),
            (
                "let r = symbols(pool {2 ability, 1 challenge}); r.1 - r.0",
                "let p = pool {2 ability, 1 challenge}; let r = symbols(p); r.1 - r.0 + d1 - 1",
            ),
            (
                "let h = highest(pool 4d6, 3); h * 2",
                "let p = pool 4d6; highest(p, 3) * 2 + d1 - 1",
            ),
        ] {
            assert_eq!(run(script), run(branched), "{script}");
        }
    }
}
