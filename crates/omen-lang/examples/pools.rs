//! Reads a script with pools two ways and times the exact one: its exact distribution (a few
//! outcomes and the mean where it is a number) and one seeded roll with each reading.
//!
//! ```sh
//! cargo run --release -p omen-lang --example pools -- "let p = pool {d8, d6, d10, d4}; highest(p, 2) + nth(p, 3)"
//! ```

use std::process::ExitCode;
use std::time::Instant;

use omen_core::ChaChaDice;
use omen_lang::{Options, compile, exact, sample};

fn main() -> ExitCode {
    let Some(script) = std::env::args().nth(1) else {
        eprintln!("usage: pools SCRIPT [WORK_BUDGET]");
        return ExitCode::from(2);
    };
    let mut options = Options::default();
    if let Some(budget) = std::env::args().nth(2).and_then(|b| b.parse().ok()) {
        options.limits.work_budget = budget;
    }
    let started = Instant::now();
    let compiled = match compile(&script, &options) {
        Ok(c) => c,
        Err(errors) => {
            for e in errors {
                eprintln!("error[{}]: {} ({:?})", e.kind, e.message, e.help);
            }
            return ExitCode::from(2);
        }
    };
    for w in &compiled.warnings {
        eprintln!("warning[{}]: {}", w.kind, w.message);
    }
    println!("reading: {}", compiled.reading);
    match exact(&compiled.program, &options.limits) {
        Ok(result) => {
            let seconds = started.elapsed().as_secs_f64();
            let d = result.distribution.values();
            println!("exact: {} outcomes in {seconds:.3} s", d.len());
            for (v, w) in d.entries().iter().take(12) {
                println!(
                    "  {v}: {}",
                    omen_core::Probability::new(w.clone(), d.total().clone())
                );
            }
        }
        Err(e) => println!("exact: error[{}]: {}", e.kind, e.message),
    }
    match sample(
        &compiled.program,
        &options.limits,
        &mut ChaChaDice::from_seed(7),
    ) {
        Ok(roll) => println!(
            "roll: {}\n{}",
            roll.result,
            serde_json::to_string(&roll.tree).unwrap_or_default()
        ),
        Err(e) => println!("roll: error[{}]: {}", e.kind, e.message),
    }
    ExitCode::SUCCESS
}
