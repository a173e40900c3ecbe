//! The in-process side of `bench/compare`: compiles and evaluates one expression exactly, once, in a
//! fresh process, and prints how long that first call took, so that Omen's library can be set
//! against icepool's first call after import (process start-up and loading excluded on both sides).
//!
//! ```sh
//! cargo run --release -p omen-lang --example first_call -- "10d6!" 20
//! ```
//!
//! Prints one JSON line: `{"seconds": …, "outcomes": …, "total_bits": …, "preloaded": …}`.
//!
//! Before the clock starts, the program's own code is loaded into memory, as `import icepool` loads
//! icepool's code before the icepool worker's clock starts: the operating system otherwise maps a
//! native program's code in page by page on first use, and on a virtual machine those first touches
//! cost more than compiling and evaluating a small expression. Nothing of Omen's runs before the
//! clock; no cache, table or allocation of Omen's is made. `--no-preload` leaves the code to be
//! mapped in during the call (`"preloaded": false`).

use std::process::ExitCode;
use std::time::Instant;

use omen_core::Limits;
use omen_lang::{Options, ValueDistribution, compile, exact};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    let preload = args.next_if(|a| a == "--no-preload").is_none();
    let Some(expression) = args.next() else {
        eprintln!("usage: first_call [--no-preload] EXPR [EXPLODE_DEPTH]");
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
    let preloaded = preload && preload_own_code();
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
                "{{\"seconds\": {seconds}, \"outcomes\": {outcomes}, \"total_bits\": {}, \"preloaded\": {preloaded}}}",
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

/// Maps this program's code and data into memory by reading them through `/proc/self/mem`, which
/// faults every page of the executable's mappings in; `false` where that is not possible.
fn preload_own_code() -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let (Ok(maps), Ok(exe), Ok(mut mem)) = (
        std::fs::read_to_string("/proc/self/maps"),
        std::fs::read_link("/proc/self/exe"),
        std::fs::File::open("/proc/self/mem"),
    ) else {
        return false;
    };
    let exe = exe.to_string_lossy().into_owned();
    let mut buffer = vec![0u8; 1 << 16];
    for line in maps.lines().filter(|l| l.ends_with(exe.as_str())) {
        let Some((start, end)) = line.split(' ').next().and_then(|r| r.split_once('-')) else {
            continue;
        };
        let (Ok(mut at), Ok(end)) = (u64::from_str_radix(start, 16), u64::from_str_radix(end, 16))
        else {
            continue;
        };
        while at < end {
            let n = usize::try_from(end - at).map_or(buffer.len(), |left| left.min(buffer.len()));
            if mem.seek(SeekFrom::Start(at)).is_err() || mem.read_exact(&mut buffer[..n]).is_err() {
                break;
            }
            at += n as u64;
        }
    }
    true
}
