//! Hostile inputs against the limits and the work budget: every path pays the budget before it
//! spends, checks the outcome limits before it allocates, and stops when its request is cancelled.
//!
//! Nothing here reads a clock: a bound is checked by what the budget accounts (`Budget::spent`), by
//! a refusal's kind, or by how many dice a cancelled roll drew. Speed itself is measured by
//! `examples/stages` and `bench/calibrate`, never by a test.

use std::time::Instant;

use omen_core::{
    Budget, Cancel, ChaChaDice, CoreError, Die, DieSource, Limits, SAMPLE_DIE_COST,
    SAMPLE_STEP_COST,
};
use omen_lang::{Diagnostic, Options, compile, exact_with_budget, sample_with_budget};

fn compiled(source: &str, options: &Options) -> omen_lang::Program {
    match compile(source, options) {
        Ok(c) => c.program,
        Err(errors) => panic!("`{}` does not compile: {errors:?}", short(source)),
    }
}

fn refused(source: &str) -> Vec<Diagnostic> {
    match compile(source, &Options::default()) {
        Ok(_) => panic!("`{}` compiles", short(source)),
        Err(errors) => errors,
    }
}

fn short(source: &str) -> &str {
    &source[..source.len().min(60)]
}

/// Runs the exact interpreter; the result and the work it paid.
fn exact_paid(source: &str, limits: &Limits) -> (Result<(), Diagnostic>, u64) {
    let options = Options {
        limits: limits.clone(),
        ..Options::default()
    };
    let program = compiled(source, &options);
    let mut budget = limits.budget();
    let r = exact_with_budget(&program, limits, &mut budget).map(|_| ());
    (r, budget.spent())
}

fn sample_paid(
    source: &str,
    limits: &Limits,
    dice: &mut dyn DieSource,
) -> (Result<(), Diagnostic>, u64) {
    let options = Options {
        limits: limits.clone(),
        ..Options::default()
    };
    let program = compiled(source, &options);
    let mut budget = limits.budget();
    let r = sample_with_budget(&program, limits, dice, &mut budget).map(|_| ());
    (r, budget.spent())
}

#[test]
fn a_long_run_of_d_is_linear_or_refused() {
    // 99,998 letters `d` after `d6`: each is "drop the lowest". Read quadratically this took
    // minutes; the input is the longest the parser accepts, so finishing at all is the check.
    let source = format!("d6{}", "d".repeat(99_998));
    let checked = compile(&source, &Options::default()).expect("a run of modifiers compiles");
    assert_eq!(checked.reading.matches("dl1").count(), 99_998);
    // One more letter is past the input limit: refused with a span and the limit named.
    let errors = refused(&format!("{source}d"));
    assert_eq!(errors[0].kind, "input-too-long");
}

#[test]
fn a_chain_of_rerolls_is_refused_before_its_weights_double_past_the_budget() {
    // Each `ro1` redraws the die as rerolled so far, so its exact weights double in length: 6^(2^k).
    // Twenty of them took seconds in the checker, unpaid; a thousand never finished.
    let source = format!("d6{}", "ro1".repeat(1_000));
    let errors = refused(&source);
    assert_eq!(errors[0].kind, "work-budget", "{errors:?}");
    assert_eq!(errors[0].span.start, 0, "at the dice term");
    assert!(errors[0].help.as_deref().unwrap().contains("fewer rerolls"));
    // A few are fine, and exact: d6ro1 keeps 5/6 of each face and redraws 1/6.
    assert!(compile("d6ro1ro1ro1", &Options::default()).is_ok());
}

#[test]
fn a_tuple_of_eight_d6_is_refused_before_allocating() {
    // 6^8 = 1,679,616 tuples, over the limit of 1,000,000: refused from the items' sizes alone,
    // before any product is built (it spent 131,013,666 units and 920 MB building seven of them).
    let (r, spent) = exact_paid("(d6,d6,d6,d6,d6,d6,d6,d6)", &Limits::default());
    let e = r.unwrap_err();
    assert_eq!(e.kind, "too-many-outcomes");
    assert!(e.message.contains("1679616"), "{}", e.message);
    assert!(spent < 100_000, "spent {spent} before refusing");
    // A call's arguments are a product too: 100·100·200 = 2,000,000 combinations.
    let (r, spent) = exact_paid(
        "fn g(a, b, c) = a + b + c; g(d100, d100, d200)",
        &Limits::default(),
    );
    assert_eq!(r.unwrap_err().kind, "too-many-outcomes");
    assert!(spent < 100_000, "spent {spent} before refusing");
}

#[test]
fn a_wide_tuple_pays_for_every_value_it_copies() {
    // 6^4 = 1,296 outcomes of 4 values, then of 64 values with 60 constants: the second pays at
    // least 1,296 · 60 · 100 units more for the copies (100 per value, see exact/product.rs).
    let narrow = "(d6,d6,d6,d6)";
    let wide = format!("(d6,d6,d6,d6,{})", vec!["1"; 60].join(","));
    let (r1, narrow_spent) = exact_paid(narrow, &Limits::default());
    let (r2, wide_spent) = exact_paid(&wide, &Limits::default());
    assert!(r1.is_ok() && r2.is_ok());
    assert!(
        wide_spent >= narrow_spent + 1_296 * 60 * 100,
        "{narrow_spent} {wide_spent}"
    );
}

#[test]
fn a_doubly_recursive_function_pays_per_call() {
    let doubling = |n: u32| format!("fn f(n) = if n <= 0 then d6 else f(n - 1) + f(n - 1); f({n})");
    // Rolled, f(5) makes 2^6 - 1 = 63 calls and rolls 2^5 = 32 dice: each call evaluates at least
    // its `if`, and each die is paid.
    let (r, spent) = sample_paid(
        &doubling(5),
        &Limits::default(),
        &mut ChaChaDice::from_seed(1),
    );
    assert!(r.is_ok());
    assert!(
        spent >= 63 * SAMPLE_STEP_COST + 32 * SAMPLE_DIE_COST,
        "{spent}"
    );
    // f(20) rolls 2^20 dice. Rolled, its tree of 2^21 - 1 calls would print more than the default
    // 64 MiB, and is stopped while it grows, before the budget is spent; computed exactly, the
    // budget refuses it. Neither spends more than the budget.
    let limits = Limits::default();
    let (r, spent) = sample_paid(&doubling(20), &limits, &mut ChaChaDice::from_seed(1));
    assert_eq!(r.unwrap_err().kind, "too-much-output");
    assert!(spent < limits.work_budget);
    let (r, spent) = exact_paid(&doubling(20), &limits);
    assert_eq!(r.unwrap_err().kind, "work-budget");
    assert!(spent <= limits.work_budget);
}

/// Counts the dice drawn.
struct Counted {
    inner: ChaChaDice,
    drawn: u64,
}

impl DieSource for Counted {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        self.drawn += 1;
        self.inner.roll(die)
    }
}

#[test]
fn a_rolls_tree_stops_growing_at_the_transcripts_limit() {
    let source = "fn f(n) = if n <= 0 then d6 else f(n - 1) + f(n - 1); f(10)";
    let roll = |max_output: u64| {
        let limits = Limits {
            max_output,
            ..Limits::default()
        };
        let program = compiled(source, &Options::default());
        let mut dice = Counted {
            inner: ChaChaDice::from_seed(7),
            drawn: 0,
        };
        let rolled = sample_with_budget(&program, &limits, &mut dice, &mut limits.budget());
        (rolled, dice.drawn)
    };
    // The whole roll, 2^10 dice, and what its tree prints as JSON.
    let (whole, drawn) = roll(Limits::default().max_output);
    assert_eq!(drawn, 1024);
    let printed = serde_json::to_vec(&whole.unwrap().tree).unwrap().len() as u64;
    // A roll whose JSON fits the limit is never refused by the tree's count.
    let (exactly, _) = roll(printed);
    assert!(exactly.is_ok(), "{:?}", exactly.err());
    // Under a quarter of it, the roll stops while its tree grows, long before its last die (the
    // count is a floor of what each node prints, so it stops a little later than a quarter).
    let (stopped, drawn) = roll(printed / 4);
    let error = stopped.unwrap_err();
    assert_eq!(error.kind, "too-much-output");
    assert!(error.help.unwrap().contains("--max-output"));
    assert!(drawn < 1024 / 2, "{drawn} dice drawn");
}

/// Rolls like `inner`, and trips `cancel` as the `after`-th die is drawn.
struct TripAfter {
    inner: ChaChaDice,
    cancel: Cancel,
    after: u64,
    drawn: u64,
}

impl DieSource for TripAfter {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        self.drawn += 1;
        if self.drawn == self.after {
            self.cancel.cancel();
        }
        self.inner.roll(die)
    }
}

#[test]
fn a_cancelled_computation_stops() {
    let endless = "fn f(n) = if n <= 0 then d6 else f(n - 1) + f(n - 1); f(40)";
    // A budget no computation here reaches: only the handle can stop it.
    let cancel = Cancel::new();
    let limits = Limits {
        work_budget: omen_core::Ceilings::WORK_BUDGET,
        max_call_depth: 100,
        cancel: cancel.clone(),
        ..Limits::default()
    };
    // Rolled: the handle is tripped by the 1,000th die, and the next die is never drawn, because
    // each die pays the budget (which checks the handle) before it is rolled.
    let mut dice = TripAfter {
        inner: ChaChaDice::from_seed(1),
        cancel: cancel.clone(),
        after: 1_000,
        drawn: 0,
    };
    let (r, _) = sample_paid(endless, &limits, &mut dice);
    assert_eq!(r.unwrap_err().kind, "cancelled");
    assert_eq!(dice.drawn, 1_000);
    // Exactly, from another thread while the work goes on: it stops with budget left.
    let cancel = Cancel::new();
    let limits = Limits {
        cancel: cancel.clone(),
        ..limits
    };
    let program = compiled(endless, &Options::default());
    let worker = std::thread::spawn(move || {
        let mut budget = limits.budget();
        let r = exact_with_budget(&program, &limits, &mut budget).map(|_| ());
        (r, budget.spent())
    });
    std::thread::sleep(std::time::Duration::from_millis(20));
    cancel.cancel();
    let (r, spent) = worker.join().unwrap();
    assert_eq!(r.unwrap_err().kind, "cancelled");
    assert!(spent < omen_core::Ceilings::WORK_BUDGET);
    // Tripped before it starts: nothing is paid.
    let cancel = Cancel::new();
    cancel.cancel();
    let limits = Limits {
        cancel,
        ..Limits::default()
    };
    let (r, spent) = exact_paid("3d6", &limits);
    assert_eq!(r.unwrap_err().kind, "cancelled");
    assert_eq!(spent, 0);
}

#[test]
fn a_passed_deadline_stops_the_computation() {
    let limits = Limits {
        work_budget: omen_core::Ceilings::WORK_BUDGET,
        cancel: Cancel::new().with_deadline(Instant::now()),
        ..Limits::default()
    };
    let (r, spent) = exact_paid(
        "fn f(n) = if n <= 0 then d6 else f(n - 1) + f(n - 1); f(40)",
        &limits,
    );
    assert_eq!(r.unwrap_err().kind, "deadline");
    // The clock is read once about every 2^19 units: it stops within a few of those.
    assert!(spent < 1 << 24, "{spent}");
    // The handle never makes two limits unequal.
    assert_eq!(
        limits,
        Limits {
            work_budget: limits.work_budget,
            ..Limits::default()
        }
    );
}

/// The hostile families: generated inputs of each shape that has cost unpaid work, each compiled and
/// run both ways. Each must compile or be refused with a diagnostic, and each run must answer or be
/// refused with one of the limits' kinds, having paid no more than its budget.
#[test]
fn hostile_families_answer_or_refuse_within_the_budget() {
    // Deep inputs need the stack the crate documents for compiling and running any program.
    std::thread::Builder::new()
        .stack_size(omen_lang::STACK_BYTES)
        .spawn(run_hostile_families)
        .unwrap()
        .join()
        .unwrap();
}

fn run_hostile_families() {
    let mut cases: Vec<String> = Vec::new();
    for n in [1_000, 30_000] {
        cases.push(format!("d6{}", "d".repeat(n)));
        cases.push(format!("100d6{}", "kh".repeat(n / 2)));
        cases.push(format!("d6{}", "!".repeat(n)));
        cases.push(format!("d6{}", "ro1".repeat(n / 3)));
        cases.push(format!("d6{}", "min1".repeat(n / 4)));
        cases.push(format!("{}d6", "(".repeat(n / 100) + &")".repeat(n / 100)));
        cases.push("+d6".repeat(n / 3));
        cases.push(format!(
            "match d6 {{ 1 => \"{}\", _ => \"b\" }}",
            "a".repeat(n)
        ));
    }
    for depth in [100, 127, 128, 1_000] {
        cases.push(format!("{}d6{}", "(".repeat(depth), ")".repeat(depth)));
        cases.push(format!("{}d6", "-".repeat(depth)));
        cases.push(format!("{}0", "if d2 = 1 then 1 else ".repeat(depth)));
        cases.push(format!("{}x", "let x = d6 in ".repeat(depth)));
    }
    for width in [6, 8, 20, 200] {
        cases.push(format!("({})", vec!["d6"; width].join(",")));
        cases.push(format!(
            "({},{})",
            vec!["d2"; width].join(","),
            vec!["1"; 100].join(",")
        ));
        cases.push(format!(
            "fn g(a, b) = (a, b); g(({}), d6).1",
            vec!["d6"; width].join(",")
        ));
    }
    for n in [10, 20, 30, 200] {
        cases.push(format!(
            "fn f(n) = if n <= 0 then d6 else f(n - 1) + f(n - 1); f({n})"
        ));
        cases.push(format!(
            "fn f(n) = if n <= 1 then d2 else f(n - 1) + f(n - 2); f({n})"
        ));
        cases.push(format!(
            "fn f(n) = if n <= 0 then (d6, 1) else (f(n - 1).0 + d2, 1); f({n})"
        ));
    }
    for pool in [
        "10000d6",
        "10000d1000000",
        "1000d20kh1",
        "60d60u",
        "10000d1000mt",
        "(d10000)d(d10000)",
    ] {
        cases.push(pool.to_string());
    }
    for dice in [
        "10000d6!",
        "100d6!!",
        "1000d6!p",
        "10000d6rr1!>=2",
        "d6!ro1ro1ro1",
    ] {
        cases.push(dice.to_string());
    }
    for states in [50, 200, 500, 5_000] {
        cases.push(format!(
            "fn step(s) = if s <= 0 or s >= {states} then s else s + (if d2 = 1 then -1 else 1); absorb(step, {})",
            states / 2
        ));
        cases.push(format!(
            "fn step(s) = (s + d6) % {states}; stationary(step, 0)"
        ));
        cases.push(format!(
            "fn s(x) = (x + d6) % {states}; after(s, 0, 9223372036854775807)"
        ));
    }
    for steps in ["100", "100000", "9223372036854775807"] {
        cases.push(format!("fn s(x) = x + d2; after(s, 0, {steps})"));
    }
    for number in [
        "9223372036854775807 + 1",
        "-9223372036854775808 - 1",
        "d6 ^ 62",
        "99999999999999999999d6",
        "d99999999999999999999",
        "(2^62)d6",
        "d(2^40)",
    ] {
        cases.push(number.to_string());
    }
    for dialect_input in [
        "4d6k3",
        "1d20cs>19",
        "3d6!!>5",
        "2d20kh1+5",
        "d6dddd",
        "{4d6,3d6}kh1",
    ] {
        cases.push(dialect_input.to_string());
    }
    // Budget-spending families run with a smaller budget so the test stays quick: what is checked
    // is that the budget's accounting stops them, which does not depend on its size.
    let limits = Limits {
        work_budget: 50_000_000,
        ..Limits::default()
    };
    let limit_kinds = [
        "work-budget",
        "too-many-outcomes",
        "too-many-states",
        "too-many-chain-states",
        "too-many-steps",
        "too-many-dice",
        "too-many-sides",
        "recursion-limit",
        "nested-too-deeply",
        "overflow",
        "cannot-roll",
        "unsupported-modifier",
    ];
    let options = Options {
        limits: limits.clone(),
        ..Options::default()
    };
    for source in &cases {
        let program = match compile(source, &options) {
            Ok(c) => c.program,
            Err(errors) => {
                for e in &errors {
                    assert!(
                        !e.message.is_empty() && e.span.end <= source.len(),
                        "`{}`: {e:?}",
                        short(source)
                    );
                }
                continue;
            }
        };
        let mut budget = limits.budget();
        if let Err(e) = exact_with_budget(&program, &limits, &mut budget) {
            assert!(
                limit_kinds.contains(&e.kind),
                "`{}` exact: {e:?}",
                short(source)
            );
        }
        assert!(budget.spent() <= limits.work_budget);
        let mut budget: Budget = limits.budget();
        if let Err(e) = sample_with_budget(
            &program,
            &limits,
            &mut ChaChaDice::from_seed(7),
            &mut budget,
        ) {
            assert!(
                limit_kinds.contains(&e.kind),
                "`{}` sample: {e:?}",
                short(source)
            );
        }
        assert!(budget.spent() <= limits.work_budget);
    }
}
