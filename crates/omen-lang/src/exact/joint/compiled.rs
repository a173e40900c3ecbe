//! A script's function of numbers run on the machine: a fold's `step(state, face, count)` is
//! called once per transition, hundreds of times a fold, and evaluating its body as distributions
//! costs a microsecond or more each time; on machine words it costs a few nanoseconds.

use super::{Machine, Word, register_of, word_of};
use crate::exact::Evaluator;
use crate::value::Value;

/// A function compiled for arguments of given kinds, with its frame's globals in registers.
pub(in crate::exact) struct Compiled {
    machine: Machine,
    /// The arguments' kinds it was compiled for.
    kinds: Vec<Word>,
    registers: Vec<i64>,
    globals: usize,
}

impl Evaluator<'_> {
    /// Function `f` compiled for arguments of the kinds of `args` (numbers or true/false); `None`
    /// when an argument is something else or the body is more than arithmetic on them.
    pub(in crate::exact) fn compile_call(&self, f: usize, args: &[Value]) -> Option<Compiled> {
        let function = &self.program.functions[f];
        let globals = function.globals;
        let frame = self.env.get(..globals)?;
        let kinds: Vec<Word> = args.iter().map(word_of).collect::<Option<_>>()?;
        let mut slots = super::Kinds {
            words: frame.iter().map(word_of).collect(),
            fields: Vec::new(),
        };
        slots.extend(kinds.iter().copied().map(Some));
        let machine = Machine::compile(&function.body, &mut slots)?;
        let mut registers: Vec<i64> = frame.iter().map(register_of).collect();
        registers.resize(slots.len().max(globals + args.len()), 0);
        Some(Compiled {
            machine,
            kinds,
            registers,
            globals,
        })
    }
}

impl Compiled {
    /// The function's value for `args`; `None` when an argument is not of the kind compiled for or
    /// the arithmetic meets an error (the evaluator then gives the value or the error).
    pub(in crate::exact) fn call(&mut self, args: &[Value]) -> Option<Value> {
        if args.len() != self.kinds.len() {
            return None;
        }
        for (i, (arg, kind)) in args.iter().zip(&self.kinds).enumerate() {
            if word_of(arg) != Some(*kind) {
                return None;
            }
            self.registers[self.globals + i] = register_of(arg);
        }
        let word = self.machine.run(&mut self.registers)?;
        Some(self.machine.value(word))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use omen_core::{Distribution, Probability};

    use crate::{Options, ValueDistribution, compile, exact};

    fn run(script: &str) -> Result<Distribution<i64>, String> {
        let options = Options::default();
        let checked = compile(script, &options).unwrap_or_else(|_| panic!("{script} compiles"));
        match exact(&checked.program, &options.limits) {
            Ok(r) => match r.distribution {
                ValueDistribution::Int(d) => Ok(d),
                _ => panic!("{script} is a whole number"),
            },
            Err(e) => Err(e.message),
        }
    }

    /// Every roll of `dice` d6 enumerated, read by `f` from the counts of each face.
    fn enumerated(dice: u32, f: impl Fn(&[usize; 7]) -> i64) -> BTreeMap<i64, u32> {
        let mut out = BTreeMap::new();
        for roll in 0..6u32.pow(dice) {
            let mut counts = [0usize; 7];
            let mut r = roll;
            for _ in 0..dice {
                counts[(r % 6) as usize + 1] += 1;
                r /= 6;
            }
            *out.entry(f(&counts)).or_insert(0) += 1;
        }
        out
    }

    #[test]
    fn a_step_of_numbers_on_the_machine_matches_every_roll_enumerated() {
        let d = run("fn pairs(s, x, n) = if n >= 2 then s + 1 else s; fold(pool 5d6, pairs, 0)")
            .expect("small");
        let expected = enumerated(5, |c| c.iter().filter(|&&n| n >= 2).count() as i64);
        for (pairs, rolls) in expected {
            assert_eq!(
                d.probability(&pairs),
                Probability::new(rolls.into(), 7776u32.into()),
                "{pairs}"
            );
        }
    }

    #[test]
    fn a_step_on_the_machine_matches_the_same_step_through_the_evaluator() {
        // A call inside a step is not machine arithmetic: `id(…)` sends the same step through the
        // evaluator.
        for (step, start) in [
            ("if n >= 2 then s + x * n else s - 1", "0"),
            ("max(s, x * n) + (if x % 2 = 0 then 1 else 0)", "3"),
        ] {
            let fast = format!("fn f(s, x, n) = {step}; fold(pool 6d6, f, {start})");
            let slow =
                format!("fn id(v) = v; fn f(s, x, n) = id({step}); fold(pool 6d6, f, {start})");
            assert_eq!(run(&fast), run(&slow), "{step}");
        }
        // A state of true/false, read through the script's own `if`.
        let fast = run(
            "fn f(s, x, n) = s or (n >= 3 and x > 4); if fold(pool 6d6, f, false) then 1 else 0",
        );
        let slow = run(
            "fn id(v) = v; fn f(s, x, n) = id(s or (n >= 3 and x > 4)); if fold(pool 6d6, f, false) then 1 else 0",
        );
        assert_eq!(fast, slow);
    }

    #[test]
    fn an_overflow_in_a_machine_step_is_the_evaluators_error() {
        let fast = run("fn f(s, x, n) = s * 1000000 + x; fold(pool 4d6, f, 1)");
        let slow = run("fn id(v) = v; fn f(s, x, n) = id(s * 1000000 + x); fold(pool 4d6, f, 1)");
        assert!(fast.is_err(), "{fast:?}");
        assert_eq!(fast, slow);
    }

    #[test]
    fn an_if_in_joint_bindings_matches_every_roll_enumerated() {
        let d =
            run("let a = d6; let b = d6; if a > b then a - b else 10 * (b - a)").expect("small");
        let mut expected: BTreeMap<i64, u32> = BTreeMap::new();
        for a in 1..=6i64 {
            for b in 1..=6i64 {
                let v = if a > b { a - b } else { 10 * (b - a) };
                *expected.entry(v).or_insert(0) += 1;
            }
        }
        assert_eq!(d.len(), expected.len());
        for (v, rolls) in expected {
            assert_eq!(
                d.probability(&v),
                Probability::new(rolls.into(), 36u32.into())
            );
        }
    }
}
