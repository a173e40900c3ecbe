//! Runs the built `omen` binary the way a user would: arguments in, stdout, stderr and exit code out.

mod actions;
mod address_space;
mod analyses;
mod anydice;
mod anydice_readme;
mod anydice_refused;
mod anydice_roll;
mod campaign;
mod cluster;
mod compare;
mod defects;
mod derived;
mod errors;
mod foreign_database;
mod games;
mod hprpg;
mod integrity;
mod key_directory;
mod limits;
mod members;
mod options;
mod prob;
mod ritual;
mod roll;
mod rough_edges;
mod script;
mod serve;
mod serve_discord;
mod stateful;
mod test_game;
mod views;
mod width;
mod worked_examples;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The seed games' scripts, `examples/` at the top of the workspace.
pub const EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/");

/// The path of one script in `examples/`.
pub fn example(name: &str) -> String {
    format!("{EXAMPLES}{name}")
}

/// What one run of `omen` produced.
/// `text` with every run of whitespace (line breaks from wrapping to the terminal included) made
/// one space.
pub fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `omen` with `args`.
pub fn omen(args: &[&str]) -> Run {
    omen_with(args, None, None)
}

/// Runs `omen` with `args` in the directory `dir` (the test's own otherwise) and with `stdin` as its
/// standard input (none otherwise).
pub fn omen_with(args: &[&str], dir: Option<&Path>, stdin: Option<&str>) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_omen"));
    // The notation must be the one a test names, whatever the environment says.
    command
        .args(args)
        .env_remove("OMEN_DIALECT")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // The width of text output comes from COLUMNS; tests fix it where they need it.
        .env_remove("COLUMNS");
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("the omen binary runs");
    if let Some(text) = stdin {
        // Dropped at the end of the statement, so omen sees the end of its input. A failed write is
        // not checked: omen may stop reading early (at its length limit) and close the pipe.
        let _ = child
            .stdin
            .take()
            .expect("stdin is piped")
            .write_all(text.as_bytes());
    }
    let output = child.wait_with_output().expect("omen finishes");
    Run {
        code: output
            .status
            .code()
            .expect("omen exits rather than being killed"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs `omen` with one environment variable set, and expects success.
pub fn omen_ok_env(args: &[&str], key: &str, value: &str) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_omen"))
        .args(args)
        .env(key, value)
        .stdin(Stdio::null())
        .output()
        .expect("the omen binary runs");
    let run = Run {
        code: output.status.code().expect("omen exits"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    };
    assert_eq!(run.code, 0, "omen {args:?} failed:\n{}", run.stderr);
    run
}

/// Runs `omen` and expects success; panics with stderr otherwise.
pub fn omen_ok(args: &[&str]) -> Run {
    let run = omen(args);
    assert_eq!(run.code, 0, "omen {args:?} failed:\n{}", run.stderr);
    run
}

/// `omen ARGS --db DB`: a command on one campaign database.
pub fn omen_at(db: &Path, args: &[&str]) -> Run {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--db", db.to_str().unwrap()]);
    omen(&all)
}

/// [`omen_at`], expecting success.
pub fn omen_ok_at(db: &Path, args: &[&str]) -> Run {
    let run = omen_at(db, args);
    assert_eq!(run.code, 0, "omen {args:?} failed:\n{}", run.stderr);
    run
}

/// A directory of its own for the files of one test, emptied first, under Cargo's temporary directory for
/// integration tests.
pub fn scratch_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the scratch directory can be made");
    dir
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

/// A one-off seed 003 character for `--sheet`: every aspect at the baseline 1 but `aspect`, at
/// `dots`, and `ability` (if any) at its dots, as the sheet a player would write.
pub fn hprpg_sheet(aspect: &str, dots: u32, ability: Option<(&str, u32)>) -> String {
    let mut aspects = serde_json::Map::new();
    for name in [
        "FITNESS",
        "CHARM",
        "INTELLIGENCE",
        "PRECISION",
        "DECEPTION",
        "WILLPOWER",
        "VITALITY",
        "INSIGHT",
        "PERCEPTION",
    ] {
        aspects.insert(name.into(), 1.into());
    }
    aspects.insert(aspect.into(), dots.into());
    let mut sheet = serde_json::json!({ "aspects": aspects });
    if let Some((ability, dots)) = ability {
        sheet["abilities"] = serde_json::json!({ ability: dots });
    }
    serde_json::json!({ "sheet": sheet }).to_string()
}

/// A cell of an analysis's answer (`omen GAME ANALYSIS --format json`): in the table whose caption
/// starts with `caption`, the row whose first cell is `row`, under the heading `column`.
pub fn table_cell(answer: &serde_json::Value, caption: &str, row: &str, column: &str) -> String {
    let tables = answer["tables"].as_array().expect("an analysis's tables");
    let table = tables
        .iter()
        .find(|t| {
            t["caption"]
                .as_str()
                .is_some_and(|c| c.starts_with(caption))
        })
        .unwrap_or_else(|| panic!("no table `{caption}` in {answer}"));
    let index = table["columns"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c == column)
        .unwrap_or_else(|| panic!("no column `{column}` in {table}"));
    let found = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0] == row)
        .unwrap_or_else(|| panic!("no row `{row}` in {table}"));
    found[index].as_str().unwrap().to_string()
}

/// A probability cell's exact fraction: `19/216` of `19/216 (8.80%)`.
pub fn fraction_of(cell: &str) -> &str {
    cell.split(' ').next().unwrap_or(cell)
}
