//! The machine's registers for the fields of bound tuples of numbers: in `let r = symbols(p);
//! r.0 * 1000 + r.1`, each field of `r` is a register of its own, so the rest runs on machine words
//! instead of being evaluated as distributions once per outcome of `r` (508 of them for a pool of
//! eight Genesys dice).

use super::{Class, Kinds, Word};
use crate::program::{Node, NodeKind};
use crate::value::Value;

impl Kinds {
    /// Registers for the fields of the classes' tuples ([`Self::tuple_fields`]) and of the tuples the
    /// frame holds ([`Self::frame_fields`]), past every slot `rest` reads or binds; the frame's
    /// (register, value) to load once.
    pub(super) fn fields_for(
        &mut self,
        classes: &[Class],
        env: &[Value],
        rest: &Node,
    ) -> Vec<(usize, i64)> {
        let bound = last_slot(rest) + 1;
        self.tuple_fields(classes, bound);
        self.frame_fields(env, bound)
    }

    /// The fields of `value`, bound in `slot`, into their registers when the machine reads them.
    pub(super) fn load_fields(&self, slot: usize, value: &Value, registers: &mut [i64]) {
        if let Some(&(_, first, _)) = self.fields.iter().find(|f| f.0 == slot)
            && let Value::Tuple(items) = value
        {
            for (j, item) in items.iter().enumerate() {
                registers[first + j] = super::register_of(item);
            }
        }
    }

    /// Registers for the fields of the tuples the frame already holds (a pool bound before the
    /// chain, read as `count(p, 6)` beside the chain's own values), after every register taken so
    /// far and every slot the rest binds (below `bound`), each with its value's kind (a field that
    /// is not a number or true/false stays with the evaluator). Their values never change during
    /// the run: returned as (register, value) to load once.
    fn frame_fields(&mut self, env: &[Value], bound: usize) -> Vec<(usize, i64)> {
        let mut free = self.len().max(bound);
        let mut loads = Vec::new();
        for (slot, value) in env.iter().enumerate() {
            let Value::Tuple(items) = value else {
                continue;
            };
            if !items.iter().any(|x| super::word_of(x).is_some()) {
                continue;
            }
            self.fields.push((slot, free, items.len()));
            self.words.resize(free + items.len(), None);
            for (j, item) in items.iter().enumerate() {
                self.words[free + j] = super::word_of(item);
                loads.push((free + j, super::register_of(item)));
            }
            free += items.len();
        }
        loads
    }

    /// Registers after every slot the rest binds (below `bound`) for the fields of each class of
    /// tuples of numbers of one arity, each marked as a number.
    fn tuple_fields(&mut self, classes: &[Class], bound: usize) {
        let kinds = self;
        let mut free = kinds.len().max(bound);
        for class in classes {
            let arity = |v: &Value| match v {
                Value::Tuple(items) if items.iter().all(|x| matches!(x, Value::Int(_))) => {
                    Some(items.len())
                }
                _ => None,
            };
            let Some(n) = class.outcomes.first().and_then(arity) else {
                continue;
            };
            if class.outcomes.iter().all(|v| arity(v) == Some(n)) {
                for &slot in &class.slots {
                    kinds.fields.push((slot, free, n));
                    free += n;
                }
            }
        }
        if let Some(&(_, first, n)) = kinds.fields.last() {
            kinds.resize(first + n, None);
            for &(_, first, n) in &kinds.fields.clone() {
                kinds.words[first..first + n].fill(Some(Word::Int));
            }
        }
    }
}

/// The highest slot `node` reads or binds.
fn last_slot(node: &Node) -> usize {
    let mut last = match node.kind {
        NodeKind::Var(slot, _) | NodeKind::Let { slot, .. } => slot,
        _ => 0,
    };
    node.each_operand(&mut |n| last = last.max(last_slot(n)));
    last
}

#[cfg(test)]
mod tests {
    use crate::{Options, ValueDistribution, compile, exact};

    fn ints(script: &str) -> omen_core::Distribution<i64> {
        let options = Options::default();
        let checked = compile(script, &options).unwrap_or_else(|_| panic!("{script} compiles"));
        match exact(&checked.program, &options.limits).map(|r| r.distribution) {
            Ok(ValueDistribution::Int(d)) => d,
            _ => panic!("{script} is a whole number"),
        }
    }

    #[test]
    fn fields_of_a_bound_tuple_read_on_the_machine_as_the_evaluator_reads_them() {
        // The same rest with a die of one face added and taken away rolls a die, so it is
        // evaluated as distributions, once per outcome of `r`.
        for (pool, rest) in [
            (
                "{3 ability, 2 proficiency, 3 difficulty}",
                "r.0 * 1000000 + r.1 * 1000 + r.2 * 10 + r.3",
            ),
            (
                "{2 boost, 1 challenge}",
                "max(r.0, r.1) - min(r.2, r.3) * 7",
            ),
            ("{1 setback, 2 ability}", "if r.0 >= 1 then r.1 else -r.1"),
        ] {
            let script = format!("let r = symbols(pool {pool}); {rest}");
            let branched = format!("let r = symbols(pool {pool}); {rest} + d1 - 1");
            assert_eq!(ints(&script), ints(&branched), "{script}");
        }
    }

    #[test]
    fn fields_sum_to_the_net_symbols_counted_die_by_die() {
        // One ability die and one difficulty die, 64 rolls: net successes read from the faces.
        let ability = [0, 1, 1, 2, 0, 0, 1, 0];
        let difficulty = [0, -1, -2, 0, 0, 0, 0, -1];
        let mut expected = std::collections::BTreeMap::new();
        for a in ability {
            for d in difficulty {
                *expected.entry(a + d).or_insert(0u32) += 1;
            }
        }
        let d = ints("let r = symbols(pool {1 ability, 1 difficulty}); r.0");
        for (net, rolls) in expected {
            let p = d.probability(&net);
            assert_eq!(
                p,
                omen_core::Probability::new(rolls.into(), 64u32.into()),
                "{net}"
            );
        }
    }
}
