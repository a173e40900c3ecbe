//! Campaigns from the command line: characters, stateful actions with `--char`, saved rolls, the
//! log, export and import, and real concurrent processes acting on one character.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::{json, omen, omen_at as at, omen_ok_at as ok, scratch_dir};

fn new_campaign(test: &str) -> std::path::PathBuf {
    let db = scratch_dir(test).join("omen.db");
    ok(&db, &["campaign", "new", "Tak"]);
    db
}

#[test]
fn a_campaign_is_created_listed_renamed_and_deleted_only_when_confirmed() {
    let db = new_campaign("campaign_lifecycle");
    ok(&db, &["campaign", "new", "Other"]);
    let listed = json(&ok(&db, &["campaign", "list", "--format", "json"]));
    let names: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Other", "Tak"]);
    let again = at(&db, &["campaign", "new", "Tak"]);
    assert_eq!(again.code, 2);
    assert!(again.stderr.contains("Tak"), "{}", again.stderr);
    ok(&db, &["campaign", "rename", "Other", "Ruins"]);
    // With two campaigns, a command that names none must be told which.
    let which = at(&db, &["char", "list"]);
    assert_eq!(which.code, 2);
    assert!(
        which.stderr.contains("choose one with --campaign"),
        "{}",
        which.stderr
    );
    // Without a terminal, deleting needs --yes, and nothing is deleted meanwhile.
    let refused = at(&db, &["campaign", "delete", "Ruins"]);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("add --yes"), "{}", refused.stderr);
    assert!(ok(&db, &["campaign", "list"]).stdout.contains("Ruins"));
    ok(&db, &["campaign", "delete", "Ruins", "--yes"]);
    assert_eq!(ok(&db, &["campaign", "list"]).stdout, "Tak\n");
}

#[test]
fn a_luck_character_rolls_with_its_karma_and_every_roll_is_logged() {
    let db = new_campaign("campaign_luck_rolls");
    ok(
        &db,
        &[
            "char",
            "new",
            "Ayla",
            "--rules",
            "luck",
            "--sheet",
            r#"{"intrinsic":[{"source":"halfling","value":2}]}"#,
        ],
    );
    // Odds first: a halfling's +2 at event −5 is modifier −3; nothing is logged by asking.
    let odds = json(&ok(
        &db,
        &[
            "luck",
            "roll",
            "--char",
            "Ayla",
            "--event-modifier",
            "-5",
            "--odds",
            "--format",
            "json",
        ],
    ));
    assert_eq!(odds["odds"]["modifier"], -3);
    for die in ["50", "49"] {
        ok(&db, &["luck", "roll", "--char", "Ayla", "--dice", die]);
    }
    let shown = json(&ok(&db, &["char", "show", "Ayla", "--format", "json"]));
    assert_eq!(
        shown["state"]["history"],
        serde_json::json!({"kind": "good", "length": 2})
    );
    let log = json(&ok(
        &db,
        &[
            "log", "--char", "Ayla", "--action", "roll", "--format", "json",
        ],
    ));
    let dice: Vec<i64> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["dice"][0]["face"].as_i64().unwrap())
        .collect();
    assert_eq!(dice, [50, 49]);
    // The second roll used the karma of the first: −1 after two good rolls comes next.
    assert_eq!(log[1]["result"]["karmic_modifier"], 0);
    assert!(
        ok(&db, &["log", "verify"])
            .stdout
            .contains("intact: 3 entries")
    );
    assert!(
        ok(&db, &["log", "replay"])
            .stdout
            .contains("every result and state is the same")
    );
    let stats = ok(&db, &["log", "stats"]).stdout;
    assert!(stats.contains("d50        2 rolled"), "{stats}");
}

#[test]
fn a_character_of_another_game_or_a_bad_sheet_is_refused_with_every_problem() {
    let db = new_campaign("campaign_refusals");
    ok(&db, &["char", "new", "Ayla", "--rules", "luck"]);
    let wrong = at(&db, &["t13", "test", "--char", "Ayla", "--difficulty", "4"]);
    assert_eq!(wrong.code, 2);
    let bad = at(
        &db,
        &[
            "char",
            "new",
            "Bob",
            "--rules",
            "luck",
            "--sheet",
            r#"{"intrinsic":[{"source":" ","value":1},{"source":"x","value":9223372036854775807}]}"#,
        ],
    );
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("2 problems"), "{}", bad.stderr);
    let unknown = at(&db, &["char", "new", "Cid", "--rules", "chess"]);
    assert_eq!(unknown.code, 2);
    // An edit is checked too and changes nothing when refused.
    let before = ok(&db, &["char", "show", "Ayla"]).stdout;
    let edit = at(
        &db,
        &[
            "char",
            "edit",
            "Ayla",
            "--state",
            r#"{"history":{"kind":"good","length":9}}"#,
        ],
    );
    assert_eq!(edit.code, 2);
    assert_eq!(ok(&db, &["char", "show", "Ayla"]).stdout, before);
    ok(
        &db,
        &[
            "char",
            "edit",
            "Ayla",
            "--state",
            r#"{"history":{"kind":"bad","length":3}}"#,
        ],
    );
    let after = json(&ok(&db, &["char", "show", "Ayla", "--format", "json"]));
    assert_eq!(after["state"]["history"]["length"], 3);
    ok(&db, &["char", "rename", "Ayla", "Aila"]);
    ok(&db, &["char", "delete", "Aila", "--yes"]);
    assert!(ok(&db, &["char", "list"]).stdout.contains("no characters"));
}

#[test]
fn saved_rolls_take_parameters_and_are_logged_when_rolled() {
    let db = new_campaign("campaign_saved_rolls");
    ok(
        &db,
        &[
            "save",
            "sneak",
            "param dv = 8; param n = 3; (n)d12>=dv",
            "--param",
            "dv=10",
        ],
    );
    let refused = at(&db, &["save", "broken", "3d6+"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains('^'),
        "a caret under the spot: {}",
        refused.stderr
    );
    // The saved DV 10 applies; --param n=4 overrides the script's default.
    let rolled = json(&ok(
        &db,
        &[
            "roll",
            "@sneak",
            "--param",
            "n=4",
            "--dice",
            "10,9,12,1",
            "--format",
            "json",
        ],
    ));
    assert_eq!(rolled["result"], 2);
    assert_eq!(rolled["log_entry"], 1);
    let odds = json(&ok(
        &db,
        &["prob", "@sneak", "--param", "n=1", "--format", "json"],
    ));
    // One d12 against the saved DV 10: P(success) = 3/12.
    assert_eq!(odds["outcomes"][1]["outcome"], 1);
    assert_eq!(odds["outcomes"][1]["probability"], "1/4");
    assert!(ok(&db, &["saved", "list"]).stdout.contains("@sneak"));
    ok(&db, &["saved", "delete", "sneak"]);
    let gone = at(&db, &["roll", "@sneak"]);
    assert_eq!(gone.code, 2);
    assert!(
        gone.stderr.contains("no saved roll `sneak`"),
        "{}",
        gone.stderr
    );
    assert!(
        ok(&db, &["log", "replay"])
            .stdout
            .contains("replayed 1 entry")
    );
}

#[test]
fn export_and_import_round_trip_a_campaign() {
    let db = new_campaign("campaign_export");
    ok(&db, &["char", "new", "Ayla", "--rules", "luck"]);
    ok(&db, &["luck", "roll", "--char", "Ayla"]);
    ok(&db, &["save", "fireball", "8d6"]);
    let file = db.with_file_name("tak.json");
    ok(&db, &["export", "Tak", "--output", file.to_str().unwrap()]);
    let other = db.with_file_name("other.db");
    ok(&other, &["import", file.to_str().unwrap()]);
    ok(
        &other,
        &[
            "export",
            "--output",
            db.with_file_name("again.json").to_str().unwrap(),
        ],
    );
    let first: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut second: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(db.with_file_name("again.json")).unwrap())
            .unwrap();
    // The same log and characters, carried on under the other database's key by an import entry.
    let import = second["log"].as_array_mut().unwrap().pop().unwrap();
    assert_eq!(import["action"], "import");
    assert_eq!(
        import["inputs"]["imported_public_key"],
        first["campaign"]["public_key"]
    );
    assert_ne!(
        second["campaign"]["public_key"],
        first["campaign"]["public_key"]
    );
    assert_eq!(first["log"], second["log"]);
    assert_eq!(first["characters"], second["characters"]);
    assert_eq!(first["saved_rolls"], second["saved_rolls"]);
    assert!(ok(&other, &["log", "verify"]).stdout.contains("intact"));
    let clash = at(&db, &["import", file.to_str().unwrap()]);
    assert_eq!(clash.code, 2);
    ok(&db, &["import", file.to_str().unwrap(), "--as", "Tak copy"]);
}

#[test]
fn omen_db_names_the_database_and_db_overrides_it() {
    let dir = scratch_dir("campaign_omen_db");
    let from_env = dir.join("env.db");
    let from_flag = dir.join("flag.db");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_omen"))
            .args(args)
            .env("OMEN_DB", &from_env)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    assert!(run(&["campaign", "new", "One"]).status.success());
    assert!(from_env.exists());
    assert!(
        run(&[
            "campaign",
            "new",
            "Two",
            "--db",
            from_flag.to_str().unwrap()
        ])
        .status
        .success()
    );
    let listed = run(&["campaign", "list"]);
    assert_eq!(String::from_utf8_lossy(&listed.stdout), "One\n");
}

/// Several `omen` processes add modifiers to one character at the same time: each is one transaction,
/// so none is lost.
#[test]
fn concurrent_processes_never_lose_an_update() {
    let db = new_campaign("campaign_concurrent");
    ok(&db, &["char", "new", "Ayla", "--rules", "luck"]);
    let children: Vec<_> = (0..8)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_omen"))
                .args([
                    "luck",
                    "add-modifier",
                    "--char",
                    "Ayla",
                    "--value",
                    "1",
                    "--source",
                ])
                .arg(format!("blessing {i}"))
                .arg("--db")
                .arg(&db)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let shown = json(&ok(&db, &["char", "show", "Ayla", "--format", "json"]));
    assert_eq!(shown["state"]["intrinsic"].as_array().unwrap().len(), 8);
    assert!(
        ok(&db, &["log", "verify"])
            .stdout
            .contains("intact: 9 entries")
    );
    assert!(
        ok(&db, &["log", "replay"])
            .stdout
            .contains("every result and state is the same")
    );
}

#[test]
fn a_database_that_cannot_be_opened_is_a_clear_error() {
    let dir = scratch_dir("campaign_bad_db");
    let not_db = dir.join("notes.txt");
    std::fs::write(&not_db, "these are my notes, not a database\n".repeat(100)).unwrap();
    let run = at(&not_db, &["campaign", "list"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(&not_db).unwrap(),
        "these are my notes, not a database\n".repeat(100)
    );
    // A command that only reads creates nothing: a mistyped path is named, and stays absent.
    let mistyped = dir.join("no such dir").join("fresh.db");
    for args in [
        &["campaign", "list"][..],
        &["log"],
        &["log", "verify"],
        &["char", "list"],
        &["export"],
    ] {
        let run = at(&mistyped, args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(
            run.stderr.contains("no Omen database at"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert!(!dir.join("no such dir").exists());
}

/// Splits a README command line the way a shell would for these examples: words, '…' and "…".
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                started = true;
            }
            None if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            None => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// The workspace's top directory.
const TOP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Copies the files of `from` (one level) into `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// Runs every `omen` command (or `cargo run --release -p omen-cli -- …`) of the `sh` blocks of a
/// Markdown file, in order, as written, in a fresh directory holding copies of `examples/` and
/// `docs/games/` and against a fresh database: each must succeed. Returns each command with its
/// stdout.
fn run_markdown_commands(markdown: &str, name: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(format!("{TOP}/{markdown}")).unwrap();
    let dir = scratch_dir(name);
    copy_dir(&Path::new(TOP).join("examples"), &dir.join("examples"));
    copy_dir(&Path::new(TOP).join("docs/games"), &dir.join("docs/games"));
    let db = dir.join("omen.db");
    let mut ran = Vec::new();
    for block in text.split("```sh").skip(1) {
        let block = block.split("```").next().unwrap_or_default();
        for line in block.lines() {
            let line = line.split(" # ").next().unwrap().trim();
            for command in line.split("&&").map(str::trim).filter(|c| !c.is_empty()) {
                let command = command
                    .strip_prefix("cargo run --release -p omen-cli -- ")
                    .map_or(command.to_string(), |rest| format!("omen {rest}"));
                let words = shell_words(&command);
                if words[0] != "omen" {
                    continue; // cargo test, bash .ci/run: not omen commands
                }
                let output = Command::new(env!("CARGO_BIN_EXE_omen"))
                    .args(&words[1..])
                    .current_dir(&dir)
                    .env("OMEN_DB", &db)
                    .env_remove("COLUMNS")
                    .stdin(Stdio::null())
                    .output()
                    .unwrap();
                let stdout = String::from_utf8(output.stdout).unwrap();
                assert!(
                    output.status.success(),
                    "{markdown}: `{command}` failed:\n{}",
                    String::from_utf8_lossy(&output.stderr)
                );
                ran.push((command, stdout));
            }
        }
    }
    ran
}

/// The output of the first command that starts with `prefix`.
fn output_of<'a>(ran: &'a [(String, String)], prefix: &str) -> &'a str {
    ran.iter()
        .find(|(command, _)| command.starts_with(prefix))
        .map(|(_, stdout)| stdout.as_str())
        .unwrap_or_else(|| panic!("no command `{prefix}…`"))
}

/// Every command in the README works as written, with the output the README describes.
#[test]
fn every_readme_command_runs_with_the_output_it_describes() {
    let ran = run_markdown_commands("README.md", "readme_commands");
    assert!(ran.len() >= 20, "{} commands", ran.len());
    assert!(output_of(&ran, "omen prob \"4d6kh3\"").contains("mean"));
    assert!(
        output_of(&ran, "omen prob \"(3d6)>=10\" --format json").contains(r#""probability":"5/8""#)
    );
    assert!(output_of(&ran, "omen ritual lore --lore 2").contains("P(success) = 19/27"));
    assert!(output_of(&ran, "omen prob -f examples/001_exhaustion.omen").contains("185/1188"));
    assert!(output_of(&ran, "omen hprpg table --dv 8").contains("| 0 |"));
    assert!(output_of(&ran, "omen hprpg cast --char Jane").contains("Jane"));
    assert!(output_of(&ran, "omen log verify").contains("is intact"));
}

/// Each game's page in docs/games runs as written: its example sheet makes a character that acts.
#[test]
fn every_game_doc_example_runs() {
    for game in ["ritual", "spelldice", "luck", "hprpg", "t13"] {
        let ran = run_markdown_commands(&format!("docs/games/{game}.md"), &format!("doc_{game}"));
        assert!(ran.len() >= 4, "{game}: {} commands", ran.len());
        let example = output_of(&ran, &format!("omen rules {game} --example"));
        assert!(example.is_empty(), "{game}: -o FILE leaves stdout empty");
        assert!(
            output_of(&ran, "omen char new").contains(&format!("({game})")),
            "{game}"
        );
    }
}

/// `omen campaign set NAME --dialect D`: rolls and saved rolls in the campaign are read in D unless
/// `--dialect` says otherwise; the log and the saved roll hold Omen's notation.
#[test]
fn a_campaign_reads_its_rolls_in_its_dialect_unless_told_another() {
    let db = new_campaign("campaign_dialect");
    let roll = |extra: &[&str]| {
        let mut args = vec![
            "roll",
            "3d6>3",
            "--campaign",
            "Tak",
            "--dice",
            "3,2,4",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        json(&ok(&db, &args))["result"].clone()
    };
    // Omen's `>3` counts the 4; Roll20's counts the 3 and the 4.
    assert_eq!(roll(&[]), 1);
    ok(&db, &["campaign", "set", "Tak", "--dialect", "roll20"]);
    assert!(
        ok(&db, &["campaign", "show", "Tak"])
            .stdout
            .contains("dialect: roll20")
    );
    assert_eq!(roll(&[]), 2);
    assert_eq!(roll(&["--dialect", "omen"]), 1);
    ok(&db, &["save", "pool", "3d6>3"]);
    assert!(
        ok(&db, &["saved", "list"]).stdout.contains("3d6>=3"),
        "the saved roll holds Omen's notation"
    );
    let log = ok(&db, &["log", "list", "--format", "json"]);
    assert!(log.stdout.contains("3d6>=3"), "{}", log.stdout);
    assert!(
        ok(&db, &["log", "replay"])
            .stdout
            .contains("replayed 3 entries")
    );
    let bad = at(&db, &["campaign", "set", "Tak", "--dialect", "icepool"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

/// A PostgreSQL database of its own for one test, dropped after it, when the conformance suite's
/// server is there (`OMEN_TEST_POSTGRES_URL`; the store's tests say loudly when it is not).
pub struct ScratchPostgres {
    admin: String,
    name: String,
    pub url: String,
}

impl ScratchPostgres {
    pub fn new(test: &str) -> Option<ScratchPostgres> {
        let admin = std::env::var("OMEN_TEST_POSTGRES_URL").ok()?;
        let mut client = postgres::Client::connect(&admin, postgres::NoTls).ok()?;
        let name = format!("omen_cli_{test}_{}", std::process::id());
        client
            .batch_execute(&format!("CREATE DATABASE {name} TEMPLATE template0"))
            .unwrap();
        let (base, _) = admin.rsplit_once('/').unwrap();
        let url = format!("{base}/{name}");
        Some(ScratchPostgres { admin, name, url })
    }

    /// As [`ScratchPostgres::new`] for a test that is about PostgreSQL itself: without a server
    /// it says so loudly (past the harness's capture) and, under `CI` or `OMEN_REQUIRE_POSTGRES=1`,
    /// fails, as the store's conformance suite does.
    pub fn required(test: &str) -> Option<ScratchPostgres> {
        let scratch = ScratchPostgres::new(test);
        if scratch.is_none() {
            use std::io::Write;
            let why = match std::env::var("OMEN_TEST_POSTGRES_URL") {
                Ok(_) => "cannot connect to OMEN_TEST_POSTGRES_URL",
                Err(_) => "OMEN_TEST_POSTGRES_URL is not set",
            };
            let _ = std::io::stderr().write_all(
                format!("\nSKIPPED: {test} needs PostgreSQL ({why}); set OMEN_TEST_POSTGRES_URL or run .ci/run\n")
                    .as_bytes(),
            );
            let required = std::env::var_os("CI").is_some_and(|v| !v.is_empty())
                || std::env::var("OMEN_REQUIRE_POSTGRES").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "PostgreSQL is required here (CI or OMEN_REQUIRE_POSTGRES=1): {why}"
            );
        }
        scratch
    }
}

impl Drop for ScratchPostgres {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&self.admin, postgres::NoTls) {
            let _ = client.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// `omen db migrate` moves a whole database: SQLite to PostgreSQL (when there is one to test on)
/// and back to SQLite, the key copied along; the log verifies and exports the same at the end.
#[test]
fn a_whole_database_moves_to_another_engine_and_back() {
    let db = new_campaign("db_migrate");
    ok(&db, &["char", "new", "Ayla", "--rules", "luck"]);
    ok(&db, &["luck", "roll", "--char", "Ayla"]);
    ok(&db, &["save", "fireball", "8d6"]);
    let invited = ok(&db, &["campaign", "invite", "Tak", "--role", "gm"]);
    let token = invited
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("token: "))
        .expect("the token is printed");
    // What `/omen bind` and `/omen gm-channel` leave in the database: channel 10 bound by the game
    // master's account 30 (which links it), and channel 50 theirs.
    {
        let mut store = omen_store::Store::open(&db).unwrap();
        let gm = store
            .authenticate(token)
            .unwrap()
            .expect("the invite's member");
        store
            .bind_discord_channel(&gm, Some("1"), "10", "30")
            .unwrap();
        store.set_discord_gm_channel(&gm, Some("50")).unwrap();
    }
    let dir = db.parent().unwrap();
    let scratch = ScratchPostgres::new("db_migrate");
    let middle = match &scratch {
        Some(scratch) => scratch.url.clone(),
        None => format!("sqlite://{}", dir.join("middle.db").display()),
    };
    let middle_key = dir.join("middle.key");
    let last = dir.join("last.db");
    let moved = omen(&[
        "db",
        "migrate",
        "--from",
        &format!("sqlite://{}", db.display()),
        "--to",
        &middle,
        "--to-key",
        middle_key.to_str().unwrap(),
    ]);
    assert_eq!(moved.code, 0, "{}", moved.stderr);
    let said = crate::words(&moved.stdout);
    assert!(
        said.contains("moved 1 campaign (1 character, 1 saved roll, 3 log entries, 1 invite)")
            && said.contains(
                "and for Discord: 1 bound channel, 1 linked account, 1 game master's channel"
            ),
        "{said}"
    );
    assert!(middle_key.is_file(), "the key goes along");
    // Into a database that is not empty: refused.
    let again = omen(&[
        "db",
        "migrate",
        "--from",
        db.to_str().unwrap(),
        "--to",
        &middle,
    ]);
    assert_eq!(again.code, 2);
    assert!(
        crate::words(&again.stderr).contains("already holds campaign `Tak`"),
        "{}",
        again.stderr
    );
    let back = omen(&[
        "db",
        "migrate",
        "--from",
        &middle,
        "--from-key",
        middle_key.to_str().unwrap(),
        "--to",
        last.to_str().unwrap(),
    ]);
    assert_eq!(back.code, 0, "{}", back.stderr);
    for (database, key) in [
        (&middle, &middle_key),
        (&last.display().to_string(), &dir.join("last.db.key")),
    ] {
        let verified = omen(&[
            "log",
            "verify",
            "--db",
            database,
            "--key",
            key.to_str().unwrap(),
        ]);
        assert_eq!(
            verified.code, 0,
            "{database}: {}{}",
            verified.stdout, verified.stderr
        );
    }
    let export = |database: &str| json(&omen(&["export", "Tak", "--db", database]));
    assert_eq!(export(last.to_str().unwrap()), export(db.to_str().unwrap()));
    // The log goes on under the same key after the move.
    ok(&last, &["luck", "roll", "--char", "Ayla"]);
    let verified = ok(&last, &["log", "verify"]);
    assert!(verified.stdout.contains("4 entries"), "{}", verified.stdout);
}
