//! Commands under an address-space limit of 512 MiB (`ulimit -v 524288`), where the worker thread's
//! full stack reservation (`omen_lang::STACK_BYTES`, 512 MiB) cannot be made: every command still
//! runs, the deepest walks the language admits included, on the smaller stack that fits.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::{Run, scratch_dir};

/// 512 MiB, in KiB as `ulimit -v` counts.
const LIMIT_KIB: u64 = 512 * 1024;

/// `omen ARGS` under the limit, set by `prlimit` or by `sh`'s own `ulimit -v`.
fn limited_command(args: &[&str], db: &Path) -> Command {
    let omen = env!("CARGO_BIN_EXE_omen");
    let prlimit = Command::new("prlimit").arg("--version").output();
    let mut command = if prlimit.is_ok_and(|output| output.status.success()) {
        let mut command = Command::new("prlimit");
        command.arg(format!("--as={}", LIMIT_KIB * 1024)).arg(omen);
        command
    } else {
        // `$0` is omen and `$@` the arguments, so nothing is quoted by hand.
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ulimit -v {LIMIT_KIB} && exec \"$0\" \"$@\""))
            .arg(omen);
        command
    };
    command
        .args(args)
        .env("OMEN_DB", db)
        .env_remove("OMEN_KEY")
        .env_remove("OMEN_DIALECT");
    command
}

/// Runs `omen ARGS` under the limit.
fn limited(args: &[&str], db: &Path) -> Option<Run> {
    let output = limited_command(args, db).output().ok()?;
    Some(Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

/// Whether this system can run a child under the limit at all (`sh` with `ulimit -v`, or
/// `prlimit`): checked on `true`, so a missing tool skips the test instead of failing it.
fn can_limit() -> bool {
    let prlimit = Command::new("prlimit")
        .args([&format!("--as={}", LIMIT_KIB * 1024), "true"])
        .status();
    let shell = Command::new("sh")
        .args(["-c", &format!("ulimit -v {LIMIT_KIB} && true")])
        .status();
    prlimit.is_ok_and(|status| status.success()) || shell.is_ok_and(|status| status.success())
}

#[test]
fn commands_run_under_a_512_mib_address_space() {
    if !can_limit() {
        eprintln!("skipped: neither prlimit nor sh's ulimit -v can limit a child's address space");
        return;
    }
    let dir = scratch_dir("address_space");
    let db = dir.join("omen.db");
    let deepest = "fn f(n) = if n <= 0 then 0 else 1 + f(n-1); f(3000)";
    let commands: &[&[&str]] = &[
        &["roll", "2d6", "--seed", "1"],
        &["prob", "3d6"],
        &["campaign", "new", "Tak"],
        &["campaign", "list"],
        &["roll", "d20", "--campaign", "Tak"],
        &["log", "Tak"],
        &["log", "verify", "Tak"],
        &["export", "Tak"],
        // The deepest walk the language admits, on whatever stack the limit left.
        &["prob", deepest, "--max-call-depth", "10000"],
        &[
            "roll",
            deepest,
            "--seed",
            "1",
            "--format",
            "json",
            "--max-call-depth",
            "10000",
            "--max-output",
            "1000000000",
        ],
    ];
    for args in commands {
        let run = limited(args, &db).expect("the limited child runs");
        assert_eq!(
            run.code,
            0,
            "`omen {}` under a 512 MiB limit:\n{}",
            args.join(" "),
            run.stderr
        );
        assert!(!run.stderr.contains("worker thread"), "{}", run.stderr);
    }
    // Past the deepest walk, the nesting limit answers, not a stack overflow.
    let run = limited(
        &[
            "prob",
            "fn f(n) = if n <= 0 then 0 else 1 + f(n-1); f(9999)",
            "--max-call-depth",
            "10000",
        ],
        &db,
    )
    .expect("the limited child runs");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("nests more than"), "{}", run.stderr);
}

/// `omen serve` under the limit answers computations and database requests: each runs on a worker
/// thread of its own, which could not start with the full stack reservation.
#[cfg(unix)]
#[test]
fn serve_answers_under_a_512_mib_address_space() {
    if !can_limit() {
        eprintln!("skipped: neither prlimit nor sh's ulimit -v can limit a child's address space");
        return;
    }
    let dir = scratch_dir("address_space_serve");
    let mut server = limited_command(&["serve", "--bind", "127.0.0.1:0"], &dir.join("omen.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let address = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_string();
    let answers = [
        crate::serve::request(
            &address,
            "POST",
            "/api/v1/prob",
            r#"{"expressions":["2d6"]}"#,
        ),
        crate::serve::request(&address, "POST", "/api/v1/campaigns", r#"{"name":"Tak"}"#),
    ];
    let largest = largest_mapping_mib(server.id());
    let _ = server.kill();
    let _ = server.wait();
    // Regression: the thread serving the runtime reserved a computation's deep stack (512 MiB, or
    // 128 MiB under this limit) that it never used, and a computation needing tens of MiB then
    // aborted the whole server ("memory allocation failed"). It runs on a small stack now; each
    // computation still gets its deep one.
    if let Some(largest) = largest {
        assert!(
            largest < 100,
            "the idle server maps {largest} MiB in one piece"
        );
    }
    assert!(answers[0].starts_with("HTTP/1.1 200"), "{}", answers[0]);
    assert!(
        answers[0].contains(r#""probability":"1/6""#),
        "{}",
        answers[0]
    );
    assert!(answers[1].starts_with("HTTP/1.1 201"), "{}", answers[1]);
}

/// The largest mapping of process `pid`'s address space, in MiB, where `/proc` shows it.
fn largest_mapping_mib(pid: u32) -> Option<u64> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).ok()?;
    maps.lines()
        .filter_map(|line| {
            let (start, end) = line.split_whitespace().next()?.split_once('-')?;
            let bytes = u64::from_str_radix(end, 16).ok()? - u64::from_str_radix(start, 16).ok()?;
            Some(bytes >> 20)
        })
        .max()
}
