//! Another program's SQLite database given to a command: every command that opens a database refuses
//! it, with a hint, and leaves it byte for byte as it was (its modification time included), with no
//! journal, key or other file made beside it.

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::{Run, omen, omen_at, omen_ok_at, scratch_dir};

/// A table of a hand-made SQLite file: its name, its SQL and its rows.
type Table = (
    &'static str,
    &'static str,
    &'static [&'static [Option<&'static str>]],
);

/// Another program's file that happens to have a `campaign` table (with a row) and a `character`
/// table, as (name, SQL, rows); `None` is SQL's NULL (a rowid column's value).
const FOREIGN: &[Table] = &[
    (
        "campaign",
        "CREATE TABLE campaign (id INTEGER PRIMARY KEY, name TEXT, created TEXT)",
        &[&[None, Some("Tak"), Some("2026-01-01")]],
    ),
    (
        "character",
        "CREATE TABLE character (id INTEGER PRIMARY KEY, campaign_id INTEGER, name TEXT)",
        &[],
    ),
];

const PAGE: usize = 4096;

/// SQLite's variable-length integer (big-endian groups of seven bits; values here stay far below the
/// nine-byte form).
fn varint(mut value: u64, out: &mut Vec<u8>) {
    let mut groups = vec![(value & 0x7f) as u8];
    value >>= 7;
    while value > 0 {
        groups.push(0x80 | (value & 0x7f) as u8);
        value >>= 7;
    }
    out.extend(groups.iter().rev());
}

/// A value of a record: SQL's NULL, a small integer or text.
#[derive(Clone, Copy)]
enum Value<'a> {
    Null,
    Small(u8),
    Text(&'a str),
}

/// A record of SQLite's file format: a header of serial types, then the values.
fn record(values: &[Value<'_>]) -> Vec<u8> {
    let mut types = Vec::new();
    let mut body = Vec::new();
    for value in values {
        match value {
            Value::Null => types.push(0),
            Value::Small(number) => {
                types.push(1);
                body.push(*number);
            }
            Value::Text(text) => {
                varint(2 * text.len() as u64 + 13, &mut types);
                body.extend(text.as_bytes());
            }
        }
    }
    // The header's size counts itself: one byte, as these headers are short.
    assert!(types.len() < 127);
    let mut out = vec![types.len() as u8 + 1];
    out.extend(types);
    out.extend(body);
    out
}

/// A leaf page of a table's b-tree holding `records` as rows 1, 2, …; page 1 starts after the
/// file's 100-byte header.
fn leaf_page(records: &[Vec<u8>], header_at: usize) -> Vec<u8> {
    let mut page = vec![0u8; PAGE];
    let mut end = PAGE;
    let mut pointers = Vec::new();
    for (index, record) in records.iter().enumerate() {
        let mut cell = Vec::new();
        varint(record.len() as u64, &mut cell);
        varint(index as u64 + 1, &mut cell);
        cell.extend(record);
        end -= cell.len();
        page[end..end + cell.len()].copy_from_slice(&cell);
        pointers.push(end as u16);
    }
    page[header_at] = 0x0d;
    page[header_at + 3..header_at + 5].copy_from_slice(&(records.len() as u16).to_be_bytes());
    page[header_at + 5..header_at + 7].copy_from_slice(&(end as u16).to_be_bytes());
    for (index, pointer) in pointers.iter().enumerate() {
        let at = header_at + 8 + 2 * index;
        page[at..at + 2].copy_from_slice(&pointer.to_be_bytes());
    }
    page
}

/// Another program's SQLite file, written byte by byte as SQLite's file format describes (this crate
/// does not link SQLite): page 1 holds the schema, each table its own leaf page after it.
fn foreign_sqlite_file(tables: &[Table]) -> Vec<u8> {
    let schema: Vec<Vec<u8>> = tables
        .iter()
        .enumerate()
        .map(|(index, (name, sql, _))| {
            record(&[
                Value::Text("table"),
                Value::Text(name),
                Value::Text(name),
                Value::Small(index as u8 + 2),
                Value::Text(sql),
            ])
        })
        .collect();
    let mut file = leaf_page(&schema, 100);
    let pages = 1 + tables.len() as u32;
    let mut header = [0u8; 100];
    header[..16].copy_from_slice(b"SQLite format 3\0");
    header[16..18].copy_from_slice(&(PAGE as u16).to_be_bytes());
    header[18] = 1; // rollback journal, not write-ahead log
    header[19] = 1;
    header[21] = 64;
    header[22] = 32;
    header[23] = 32;
    header[24..28].copy_from_slice(&1u32.to_be_bytes()); // change counter
    header[28..32].copy_from_slice(&pages.to_be_bytes());
    header[40..44].copy_from_slice(&1u32.to_be_bytes()); // schema cookie
    header[44..48].copy_from_slice(&4u32.to_be_bytes()); // schema format
    header[56..60].copy_from_slice(&1u32.to_be_bytes()); // UTF-8
    header[92..96].copy_from_slice(&1u32.to_be_bytes()); // the size above is current
    header[96..100].copy_from_slice(&3_045_000u32.to_be_bytes());
    file[..100].copy_from_slice(&header);
    for (_, _, rows) in tables {
        let records: Vec<Vec<u8>> = rows
            .iter()
            .map(|row| {
                let values: Vec<Value<'_>> = row
                    .iter()
                    .map(|value| value.map_or(Value::Null, Value::Text))
                    .collect();
                record(&values)
            })
            .collect();
        file.extend(leaf_page(&records, 0));
    }
    file
}

fn state(path: &Path) -> (Vec<u8>, SystemTime) {
    (
        std::fs::read(path).unwrap(),
        std::fs::metadata(path).unwrap().modified().unwrap(),
    )
}

fn refused(run: &Run, what: &str) {
    assert_ne!(run.code, 0, "{what} succeeded:\n{}", run.stdout);
    // Diagnostics wrap to the terminal's width, so a long path moves the line breaks.
    let stderr = run.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_ne!(
        run.code, 1,
        "{what} is not an internal error:\n{}",
        run.stderr
    );
    assert!(
        stderr.contains("is not an Omen database"),
        "{what}: {}",
        run.stderr
    );
    assert!(
        stderr.contains("nothing in it was changed"),
        "{what}: {}",
        run.stderr
    );
    assert!(stderr.contains("--db"), "{what}: no hint: {}", run.stderr);
}

/// `omen serve --db PATH`, which must refuse the file at start: stopped (and failed) if it is still
/// running after ten seconds.
fn serve(path: &Path) -> Run {
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_omen"))
        .args(["serve", "--bind", "127.0.0.1:0", "--db"])
        .arg(path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while server.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(10) {
            let _ = server.kill();
            let _ = server.wait();
            panic!("omen serve started on another program's database");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = server.wait_with_output().unwrap();
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn a_foreign_database_with_a_campaign_table_is_left_unchanged() {
    let dir = scratch_dir("foreign_database");
    let path = dir.join("inventory.sqlite");
    std::fs::write(&path, foreign_sqlite_file(FOREIGN)).unwrap();
    // A day back, so that a write in the same clock tick as the test still shows.
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(86_400))
        .unwrap();
    // An export of a real campaign, for `import`.
    let real = dir.join("real.db");
    omen_ok_at(&real, &["campaign", "new", "Tak"]);
    let export = dir.join("tak.json");
    omen_ok_at(&real, &["export", "Tak", "-o", export.to_str().unwrap()]);
    let export = export.to_str().unwrap();

    let before = state(&path);
    let db = path.to_str().unwrap();
    let commands: &[&[&str]] = &[
        &["campaign", "list"],
        &["campaign", "show", "Tak"],
        &["campaign", "new", "Other"],
        &["campaign", "rename", "Tak", "Tok"],
        &["campaign", "delete", "Tak"],
        &["char", "list", "--campaign", "Tak"],
        &["log", "Tak"],
        &["log", "verify", "Tak"],
        &["log", "replay", "Tak"],
        &["log", "stats", "Tak"],
        &["log", "head", "Tak"],
        &["saved", "list", "--campaign", "Tak"],
        &["save", "attack", "d20 + 5", "--campaign", "Tak"],
        &["export", "Tak"],
        &["import", export],
        &["roll", "d20", "--campaign", "Tak"],
        &["campaign", "set", "Tak", "--dialect", "roll20"],
        &["campaign", "invite", "Tak", "--role", "gm"],
        &[
            "char",
            "new",
            "Ayla",
            "--rules",
            "luck",
            "--campaign",
            "Tak",
        ],
        &["luck", "roll", "--char", "Ayla", "--campaign", "Tak"],
        &["log", "reveal", "Tak", "1"],
    ];
    for args in commands {
        refused(&omen_at(&path, args), &args.join(" "));
        assert_eq!(state(&path), before, "`omen {}` changed it", args.join(" "));
    }
    refused(&serve(&path), "serve");
    assert_eq!(state(&path), before, "`omen serve` changed it");
    let run = omen(&["db", "migrate", "--from", db, "--to", &format!("{db}.copy")]);
    refused(&run, "db migrate --from");
    let run = omen(&[
        "db",
        "migrate",
        "--from",
        real.to_str().unwrap(),
        "--to",
        db,
    ]);
    assert_ne!(run.code, 0, "db migrate --to a foreign file succeeded");
    assert_eq!(state(&path), before, "`omen db migrate` changed it");
    for suffix in ["-wal", "-shm", "-journal", ".key", ".copy"] {
        assert!(
            !dir.join(format!("inventory.sqlite{suffix}")).exists(),
            "inventory.sqlite{suffix} was made"
        );
    }
}
