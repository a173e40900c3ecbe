//! `omen hprpg`: seed 003's Appendix 10 for any DV and catastrophe range, the zero-dot rules when a
//! command rolls a stored character, and the rating names in a shown sheet.

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

/// A campaign with Rook: PRECISION 1, COVERT 0 (PRACTICAL), HISTORY 0 (KNOWLEDGE), the other aspects
/// 1, REBEL of Gryffindor.
fn rook_campaign(test: &str) -> String {
    let db = crate::scratch_dir(test).join("omen.db");
    let db = db.to_str().unwrap().to_string();
    crate::omen_ok(&["campaign", "new", "Hogwarts", "--db", &db]);
    let sheet = serde_json::json!({ "sheet": { "personality": "REBEL", "house": "GRYFFINDOR",
        "aspects": { "FITNESS": 3, "CHARM": 1, "INTELLIGENCE": 1, "PRECISION": 1, "DECEPTION": 1,
                     "WILLPOWER": 1, "VITALITY": 1, "INSIGHT": 1, "PERCEPTION": 1 } } })
    .to_string();
    crate::omen_ok(&[
        "char", "new", "Rook", "--rules", "hprpg", "--sheet", &sheet, "--db", &db,
    ]);
    db
}

/// 003-M6 for stored characters: Rook's PRECISION 1 + COVERT 0 is 1 die at DV 8 + 2 = 10 in a
/// contest against 1 given die at DV 8. By hand, nets floored at 0: margin 1 = 3/12 × 7/12 = 7/48,
/// margin −1 = 9/12 × 5/12 = 5/16. A 9 meets DV 8 but not 10. HISTORY at 0 cannot be rolled.
#[test]
fn char_show_names_the_ratings_and_the_personalitys_asset_and_flaw() {
    let db = rook_campaign("hprpg_char_show_summary");
    let shown = crate::omen_ok(&["char", "show", "Rook", "--db", &db]);
    let text = crate::words(&shown.stdout);
    for part in [
        "FITNESS 3 (Average)",
        "PRECISION 1 (Beginner)",
        "asset DISTINCTIVENESS, flaw LACK OF RESPECT",
    ] {
        assert!(text.contains(part), "{part} not in {text}");
    }
    let json = crate::json(&crate::omen_ok(&[
        "char", "show", "Rook", "--db", &db, "--format", "json",
    ]));
    assert_eq!(json["summary"]["aspects"][0]["rating"], "Average");
    assert_eq!(json["summary"]["personality"]["flaw"], "LACK OF RESPECT");
}
