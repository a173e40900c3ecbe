//! Times each stage of one computation (parse, check, render the reading, exact, one sample) of a
//! script read from a file, under the default limits: a measuring tool for hostile inputs, whose
//! cost must show up in the work budget rather than only in wall time.
//!
//! ```sh
//! cargo run --release -p omen-lang --example stages -- script.dice
//! ```

use std::process::ExitCode;
use std::time::Instant;

use omen_core::{ChaChaDice, Limits};
use omen_lang::{Options, check, exact_with_budget, sample_with_budget, syntax};

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: stages FILE");
        return ExitCode::from(2);
    };
    let source = match std::fs::read_to_string(&path) {
        Ok(source) => source,
        Err(error) => {
            eprintln!("cannot read {path}: {error}");
            return ExitCode::from(2);
        }
    };
    let options = Options::default();
    let limits: &Limits = &options.limits;
    let clock = Instant::now();
    let parsed = syntax::parse_with(&source, &options.parse, options.dialect);
    println!("parse   {:>9.3} s", clock.elapsed().as_secs_f64());
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(errors) => return report(&errors),
    };
    let clock = Instant::now();
    let checked = check::check(&source, &parsed.script, limits, &options.params);
    println!("check   {:>9.3} s", clock.elapsed().as_secs_f64());
    let checked = match checked {
        Ok(checked) => checked,
        Err(errors) => return report(&errors),
    };
    let clock = Instant::now();
    let reading = syntax::render::script(&parsed.script);
    println!(
        "render  {:>9.3} s ({} bytes)",
        clock.elapsed().as_secs_f64(),
        reading.len()
    );
    let clock = Instant::now();
    let mut budget = limits.budget();
    let result = exact_with_budget(&checked.program, limits, &mut budget);
    paid("exact", clock, budget.spent());
    if let Err(error) = &result {
        println!("  {}: {}", error.kind, error.message);
    }
    let clock = Instant::now();
    let mut budget = limits.budget();
    let roll = sample_with_budget(
        &checked.program,
        limits,
        &mut ChaChaDice::from_seed(1),
        &mut budget,
    );
    paid("sample", clock, budget.spent());
    if let Err(error) = &roll {
        println!("  {}: {}", error.kind, error.message);
    }
    ExitCode::SUCCESS
}

/// A stage's time, the work it paid and the time per unit: the budget is calibrated to about 2 ns a
/// unit, so a figure far above that is work the budget undercounts.
fn paid(stage: &str, clock: Instant, spent: u64) {
    let seconds = clock.elapsed().as_secs_f64();
    let per_unit = if spent == 0 {
        0.0
    } else {
        seconds * 1e9 / spent as f64
    };
    println!("{stage:<7} {seconds:>9.3} s, {spent} units, {per_unit:.2} ns/unit");
}

fn report(errors: &[omen_lang::Diagnostic]) -> ExitCode {
    for error in errors.iter().take(3) {
        println!("  {}: {}", error.kind, error.message);
    }
    ExitCode::from(2)
}
