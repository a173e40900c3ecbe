//! Text output fits `COLUMNS`: tables, listings, game answers and diagnostics alike.

use std::process::{Command, Stdio};

/// Runs omen with `COLUMNS` set; stdout and stderr, whatever the exit code.
fn at_width(args: &[&str], columns: usize) -> (String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_omen"))
        .args(args)
        .env("COLUMNS", columns.to_string())
        .env_remove("OMEN_DIALECT")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("the omen binary runs");
    assert!(output.status.code().is_some(), "omen {args:?} was killed");
    (
        String::from_utf8(output.stdout).expect("UTF-8"),
        String::from_utf8(output.stderr).expect("UTF-8"),
    )
}

/// Fails unless every line of `text` (what `what` printed) is at most `columns` characters.
fn assert_fits(what: &str, text: &str, columns: usize) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= columns,
            "{what} at COLUMNS={columns}: a {}-column line:\n{line}",
            line.chars().count()
        );
    }
}

fn rook() -> String {
    // The example sheet of seed 003, as `omen rules hprpg --example` prints it.
    let run = crate::omen_ok(&["rules", "hprpg", "--example"]);
    run.stdout
}

#[test]
fn text_output_fits_the_columns_given() {
    let rook = rook();
    let exhaustion = crate::example("001_exhaustion.omen");
    let long_sum = "1d20 + ".repeat(14) + "+";
    let commands: Vec<Vec<&str>> = vec![
        vec!["prob", "3d6"],
        vec!["prob", "3d6!"],
        vec!["prob", "10d10!!kh5", "--explode-depth", "4"],
        vec!["prob", "1d6 * 1d6 * 1d6 * 1d6 * 1d6 * 1d6 * 1d6 * 1d6"],
        vec!["prob", "d5000"],
        vec!["prob", "3d6", "2d10", "4d6kh3"],
        vec!["prob", "30d6!", "2d6"],
        vec!["prob", "3d6", "2d10", "4d6kh3", "--transpose"],
        vec!["prob", "-f", &exhaustion, "--param", "level=1..5"],
        vec!["roll", "20d6!", "--seed", "1"],
        vec!["prob", "2d6 +"],
        vec!["prob", "(((((("],
        vec!["prob", "3d6>=10"],
        vec!["prob", "2d6 − 1"],
        vec!["prob", &long_sum],
        vec!["rules"],
        vec!["--help"],
        vec!["ritual", "essence-table"],
        vec!["ritual", "lore-table"],
        vec!["hprpg", "table", "--dv", "10"],
        vec!["prob", "--help"],
        vec!["db", "migrate", "--help"],
        // (Not a subcommand's help: clap never wraps its one-line usage, which can pass 60.)
        vec!["rules", "hprpg", "--detail"],
        vec![
            "ritual",
            "lore",
            "--lore",
            "2",
            "--difficulty",
            "4",
            "--seed",
            "1",
        ],
        vec!["spelldice", "exhaust", "--level", "1"],
        vec!["spelldice", "courtney"],
        vec!["luck", "stationary", "--modifier", "0"],
        vec![
            "t13",
            "test",
            "--boon",
            "6",
            "--descendant",
            "8",
            "--proficiency",
            "2",
            "--difficulty",
            "10",
            "--seed",
            "1",
        ],
        vec![
            "t13",
            "test",
            "--boon",
            "6",
            "--descendant",
            "8",
            "--difficulty",
            "10",
            "--odds",
            "--sheet",
            "{}",
        ],
        vec![
            "hprpg",
            "check",
            "--sheet",
            &rook,
            "--aspect",
            "FITNESS",
            "--ability",
            "BRAWL",
            "--dv",
            "8",
            "--seed",
            "1",
        ],
        vec![
            "hprpg",
            "check",
            "--sheet",
            &rook,
            "--aspect",
            "FITNESS",
            "--ability",
            "BRAWL",
            "--dv",
            "8",
            "--odds",
        ],
        vec![
            "spelldice",
            "cast",
            "--sheet",
            r#"{"level":3}"#,
            "--spell-dice",
            "3",
            "--spell-level",
            "2",
            "--seed",
            "1",
        ],
        vec![
            "hprpg",
            "contest",
            "--pool",
            "5",
            "--resistor-pool",
            "4",
            "--dv",
            "8",
            "--dice",
            "8,9,1,10,2,8,9,12,3",
        ],
    ];
    for columns in [60, 100] {
        for args in &commands {
            let (stdout, stderr) = at_width(args, columns);
            for (stream, text) in [("stdout", &stdout), ("stderr", &stderr)] {
                assert_fits(&format!("omen {args:?} on {stream}"), text, columns);
            }
            assert!(!stdout.is_empty() || !stderr.is_empty(), "{args:?}");
        }
    }
}

/// `text` without its SGR colour escapes (`ESC [ … m`), as the terminal shows it.
fn visible(text: &str) -> String {
    let mut shown = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            shown.push(c);
        }
    }
    shown
}

#[test]
fn coloured_diagnostics_wrap_their_message_and_hint_too() {
    let args = ["--color", "always", "prob", "2d6 − 1 + 3d6kh3dq"];
    for columns in [50, 60, 100] {
        let (_, stderr) = at_width(&args, columns);
        assert!(stderr.contains('\u{1b}'), "coloured: {stderr:?}");
        let shown = visible(&stderr);
        assert!(shown.contains("hyphen-minus"), "{shown}");
        assert_fits(&format!("omen {args:?} on stderr"), &shown, columns);
    }
}
