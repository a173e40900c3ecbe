//! Runs the built `omen` binary the way a user would: arguments in, stdout, stderr and exit code out.

mod errors;
mod prob;
mod roll;

use std::process::Command;

/// What one run of `omen` produced.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `omen` with `args`.
pub fn omen(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_omen"))
        .args(args)
        .output()
        .expect("the omen binary runs");
    Run {
        code: output
            .status
            .code()
            .expect("omen exits rather than being killed"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs `omen` and expects success; panics with stderr otherwise.
pub fn omen_ok(args: &[&str]) -> Run {
    let run = omen(args);
    assert_eq!(run.code, 0, "omen {args:?} failed:\n{}", run.stderr);
    run
}

/// Parses stdout as JSON.
pub fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).expect("stdout is JSON")
}

pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `n/d` in lowest terms, written the way omen writes fractions (`7`, not `7/1`).
pub fn reduced(n: u64, d: u64) -> String {
    let g = gcd(n, d);
    if d / g == 1 {
        format!("{}", n / g)
    } else {
        format!("{}/{}", n / g, d / g)
    }
}
