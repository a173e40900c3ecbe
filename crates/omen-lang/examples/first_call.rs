//! The in-process side of `bench/compare`: compiles and evaluates one expression exactly, once, in a
//! fresh process, and prints how long that first call took, so that Omen's library can be set
//! against icepool's first call after import (process start-up and loading excluded on both sides).
//!
//! ```sh
//! cargo run --release -p omen-lang --example first_call -- "10d6!" 20
//! ```
//!
//! Prints one JSON line: `{"seconds": …, "outcomes": …, "total_bits": …}`.

use std::process::ExitCode;
use std::time::Instant;

use omen_core::Limits;
use omen_lang::{Options, ValueDistribution, compile, exact};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(expression) = args.next() else {
        eprintln!("usage: first_call EXPR [EXPLODE_DEPTH]");
        return ExitCode::from(2);
    };
    let mut limits = Limits::default();
    if let Some(depth) = args.next() {
        match depth.parse() {
            Ok(depth) => limits.explode_depth = depth,
            Err(_) => {
                eprintln!("the explosion depth `{depth}` is not a number");
                return ExitCode::from(2);
            }
        }
    }
    let options = Options {
        limits,
        ..Options::default()
    };
    let start = Instant::now();
    let result = compile(&expression, &options)
        .map_err(|errors| {
            errors
                .first()
                .map(|e| e.message.clone())
                .unwrap_or_default()
        })
        .and_then(|checked| exact(&checked.program, &options.limits).map_err(|e| e.message));
    let seconds = start.elapsed().as_secs_f64();
    match result {
        Ok(result) => {
            let outcomes = match &result.distribution {
                ValueDistribution::Int(d) => d.len(),
                ValueDistribution::Bool(d) => d.len(),
                ValueDistribution::Values(d) => d.len(),
            };
            println!(
                "{{\"seconds\": {seconds}, \"outcomes\": {outcomes}, \"total_bits\": {}}}",
                result.distribution.total().bits()
            );
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
