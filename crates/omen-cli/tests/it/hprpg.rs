//! `omen hprpg table`: seed 003's Appendix 10 for any DV and catastrophe range.

use crate::omen;

#[test]
fn the_table_has_the_zero_pool_row_and_exact_json() {
    let r = omen(&["hprpg", "table", "--dv", "12", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let t: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let rows = t["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 15);
    // Zero pool at DV 12, range 1: success needs both dice at 12 (1/144), a catastrophe either die
    // at 1 (23/144) (003-M6).
    assert_eq!(rows[0]["dice"], 0);
    assert_eq!(rows[0]["1"], "1/144");
    assert_eq!(rows[0]["catastrophe"], "23/144");
    // One die: 1/12 success, 1/12 catastrophe.
    assert_eq!(rows[1]["1"], "1/12");
    assert_eq!(rows[1]["catastrophe"], "1/12");
}

#[test]
fn markdown_rounds_as_the_seed_does() {
    let r = omen(&["hprpg", "table", "--dv", "8", "--catastrophe-range", "1"]);
    assert_eq!(r.code, 0);
    // One d12 at DV 8: 1/12 catastrophe (8.3), 6/12 failure (50), 5/12 one success (42).
    assert!(r.stdout.contains("| 1 | 8.3 | 50 | 42 |"), "{}", r.stdout);
}

#[test]
fn an_impossible_range_is_exit_2() {
    let r = omen(&["hprpg", "table", "--dv", "8", "--catastrophe-range", "20"]);
    assert_eq!(r.code, 2);
    assert!(r.stdout.is_empty());
    assert!(r.stderr.contains("catastrophe range"), "{}", r.stderr);
}
