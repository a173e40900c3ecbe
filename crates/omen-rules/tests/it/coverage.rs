//! Spec coverage: every item of the seed spec (`tests/fixtures/spec_items.txt`) has a test named after
//! it somewhere in the workspace, and the rule sets claim exactly the spec's items.
//!
//! A test covers an item when its name holds the full id (`fn spec_003_m17_m18_…` covers 003-M17 and
//! M18), when
//! its doc comment names the id (`/// … 003-M17 …`), or when its name holds the short id (`m17_…`) in a
//! file that declares its seed with a header line `//! Seed 003: a test named `m17_…` covers 003-M17.`

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use omen_rules::registry;

use crate::support::read_fixture;

/// The header line by which a test file says whose short ids its test names carry.
const SEED_MARKER: &str = "//! Seed ";

/// One `#[test]` function: its name and the text of the doc comments and attributes above it.
#[derive(Debug, PartialEq)]
struct TestFunction {
    name: String,
    docs: String,
}

/// The test functions of one Rust source file, and the seed its header declares, if any.
fn test_functions(source: &str) -> (Option<String>, Vec<TestFunction>) {
    let lines: Vec<&str> = source.lines().collect();
    let seed = lines.iter().find_map(|line| {
        let rest = line.strip_prefix(SEED_MARKER)?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        (digits.len() == 3).then_some(digits)
    });
    let mut tests = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        if !line.trim_start().starts_with("#[test]") {
            continue;
        }
        let mut docs = Vec::new();
        for above in lines[..at].iter().rev() {
            let above = above.trim_start();
            if above.starts_with("///") || above.starts_with("#[") {
                docs.push(above);
            } else {
                break;
            }
        }
        let name = lines[at + 1..].iter().find_map(|below| {
            let (_, after) = below.split_once("fn ")?;
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        });
        if let Some(name) = name {
            tests.push(TestFunction {
                name,
                docs: docs.join(" "),
            });
        }
    }
    (seed, tests)
}

/// `m17` → `M17`: a short item id (letters then digits), upper-cased; anything else is not one.
fn short_id(token: &str) -> Option<String> {
    let letters = token.chars().take_while(char::is_ascii_lowercase).count();
    let digits = &token[letters..];
    (letters > 0 && !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
        .then(|| token.to_ascii_uppercase())
}

/// The spec ids written in `text` as `NNN-XN`, whole (so 003-M1 is not read inside 003-M17).
fn ids_in_text(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut ids = Vec::new();
    for start in 0..bytes.len() {
        if !text.is_char_boundary(start) || (start > 0 && bytes[start - 1].is_ascii_alphanumeric())
        {
            continue;
        }
        let rest = &text[start..];
        let Some(digits) = rest.get(..3) else { break };
        if !digits.bytes().all(|b| b.is_ascii_digit()) || rest.as_bytes().get(3) != Some(&b'-') {
            continue;
        }
        let item: String = rest[4..]
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        if short_id(&item.to_ascii_lowercase()).is_some() {
            ids.push(format!("{digits}-{item}"));
        }
    }
    ids
}

/// The items a test covers: full ids in its docs; in its name, short ids after a seed (`003_m7_m22`
/// covers 003-M7 and 003-M22) or, before any, under the file's declared seed.
fn covered_by(seed: Option<&str>, test: &TestFunction) -> Vec<String> {
    let mut ids = ids_in_text(&test.docs);
    let mut current = seed.map(str::to_string);
    for token in test.name.split('_') {
        if token.len() == 3 && token.bytes().all(|b| b.is_ascii_digit()) {
            current = Some(token.to_string());
        } else if let (Some(seed), Some(item)) = (&current, short_id(token)) {
            ids.push(format!("{seed}-{item}"));
        }
    }
    ids
}

/// The ids of `spec` that no test of `sources` covers, in the spec's order.
fn uncovered<'a>(spec: &[&'a str], sources: &[String]) -> Vec<&'a str> {
    let mut covered = BTreeSet::new();
    for source in sources {
        let (seed, tests) = test_functions(source);
        for test in &tests {
            covered.extend(covered_by(seed.as_deref(), test));
        }
    }
    spec.iter()
        .copied()
        .filter(|id| !covered.contains(*id))
        .collect()
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The sources of every workspace crate (its `src` and `tests`), all inside the repository.
fn workspace_sources() -> Vec<String> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates directory")
        .to_path_buf();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&crates)
        .expect("crates directory")
        .flatten()
    {
        for part in ["src", "tests"] {
            rust_files(&entry.path().join(part), &mut files);
        }
    }
    files.sort();
    assert!(files.len() > 20, "found only {} sources", files.len());
    files
        .iter()
        .map(|path| std::fs::read_to_string(path).expect("readable source"))
        .collect()
}

#[test]
fn every_spec_item_has_a_test_named_after_it() {
    let fixture = read_fixture("spec_items.txt");
    let spec: Vec<&str> = fixture.lines().filter(|l| !l.is_empty()).collect();
    let missing = uncovered(&spec, &workspace_sources());
    assert!(
        missing.is_empty(),
        "spec items without a test named after them: {missing:?}; name a test after each (e.g. \
         `m17_…` in a file of its seed, or `/// 003-M17` on the test)"
    );
}

#[test]
fn the_rule_sets_claim_exactly_the_spec_items() {
    let fixture = read_fixture("spec_items.txt");
    let spec: BTreeSet<&str> = fixture.lines().filter(|l| !l.is_empty()).collect();
    let mut claimed = BTreeSet::new();
    for rules in registry() {
        for item in rules.spec_items() {
            assert!(
                item.starts_with(&format!("{}-", rules.tag())),
                "{}: {item} belongs to another seed",
                rules.name()
            );
            assert!(claimed.insert(*item), "{item} claimed twice");
        }
    }
    let unclaimed: Vec<&&str> = spec.difference(&claimed).collect();
    let unknown: Vec<&&str> = claimed.difference(&spec).collect();
    assert!(unclaimed.is_empty(), "no rule set claims {unclaimed:?}");
    assert!(unknown.is_empty(), "not in the spec: {unknown:?}");
}

#[test]
fn the_coverage_checker_reports_a_synthetic_missing_item() {
    let file = "//! Tests.\n//! Seed 003: a test named `m17_…` covers 003-M17.\n\n\
                #[test]\nfn m17_reduces_targets() {}\n\n\
                /// Replays 003-M22 and 001-M2.\n#[test]\nfn worked_examples() {}\n\n\
                #[test]\nfn spec_004_a7_a2_is_named_in_full() {}\n\n\
                fn m1_is_no_test() {}\n"
        .to_string();
    let spec = [
        "003-M17", "003-M22", "001-M2", "004-A7", "004-A2", "003-M1", "003-M99",
    ];
    // M1 is only in a function that is not a test, M99 nowhere: both are reported, nothing else.
    assert_eq!(
        uncovered(&spec, std::slice::from_ref(&file)),
        ["003-M1", "003-M99"]
    );
    // Without the seed header the short id no longer counts.
    let unmarked = file.replace("//! Seed 003", "//! Notes on seed 003");
    assert_eq!(
        uncovered(&spec, &[unmarked]),
        ["003-M17", "003-M1", "003-M99"]
    );
}

#[test]
fn ids_are_read_whole() {
    assert_eq!(ids_in_text("see 003-M17, not 003-M1x"), ["003-M17"]);
    assert_eq!(ids_in_text("a003-M1 and 003-M1."), ["003-M1"]);
    assert_eq!(short_id("m17"), Some("M17".to_string()));
    assert_eq!(short_id("e003"), Some("E003".to_string()));
    assert_eq!(short_id("d"), None);
    assert_eq!(short_id("17"), None);
}
