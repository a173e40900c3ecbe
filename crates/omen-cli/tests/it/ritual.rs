//! `omen ritual`: the seed's tables byte for byte, Lore and Essence checks with exact odds and replays.

use crate::omen;

fn golden(name: &str) -> String {
    let path = format!(
        "{}/../omen-rules/tests/golden/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn lore_and_essence_tables_are_the_lua_programs_output_byte_for_byte() {
    let lore = omen(&["ritual", "lore-table"]);
    assert_eq!(lore.code, 0);
    assert_eq!(lore.stdout, golden("lore_table.txt"));
    let essence = omen(&["ritual", "essence-table"]);
    assert_eq!(essence.code, 0);
    assert_eq!(essence.stdout, golden("essence_table.txt"));
}

#[test]
fn a_lore_check_replays_given_dice_with_its_exact_odds() {
    // Lore 2, deciphered before: 3 dice; P(highest of 3d6 ≥ 5) = 1 − (4/6)³ = 19/27.
    let r = omen(&[
        "ritual",
        "lore",
        "--lore",
        "2",
        "--difficulty",
        "5",
        "--deciphered-before",
        "--dice",
        "2,5,1",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["pool"], 3);
    assert_eq!(v["probability"], "19/27");
    assert_eq!(v["result"], 5);
    assert_eq!(v["success"], true);
}

#[test]
fn a_pool_below_one_keeps_the_lower_of_two_dice() {
    // Lore 0, inventing: pool −2, so the lower of 2d6 must reach 4: (3/6)² = 1/4.
    let r = omen(&[
        "ritual",
        "lore",
        "--lore",
        "0",
        "--difficulty",
        "4",
        "--inventing",
        "--dice",
        "5,3",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["probability"], "1/4");
    assert_eq!(v["result"], 3);
    assert_eq!(v["success"], false);
}

#[test]
fn an_essence_check_with_pairs_replaced_by_seven() {
    let r = omen(&[
        "ritual",
        "essence",
        "--leader",
        "12",
        "--threshold",
        "30",
        "--pairs",
        "2",
        "--dice",
        "1,2,3,4,5,6,1,2",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    // Two pairs count 14; the eight dice rolled add 24.
    assert_eq!(v["total"], 38);
    assert_eq!(v["outcome"], "threshold 30");
}

#[test]
fn bad_ritual_input_is_exit_2_with_a_message() {
    let r = omen(&["ritual", "lore", "--lore", "1", "--difficulty", "9"]);
    assert_eq!(r.code, 2);
    assert!(r.stdout.is_empty());
    assert!(r.stderr.contains("difficulty 9"), "{}", r.stderr);
    let r = omen(&["ritual", "essence", "--leader", "3"]);
    assert_eq!(r.code, 2, "a threshold is required");
}

#[test]
fn a_seeded_lore_check_is_the_same_twice() {
    let args = [
        "ritual",
        "lore",
        "--lore",
        "3",
        "--difficulty",
        "6",
        "--seed",
        "11",
    ];
    assert_eq!(omen(&args).stdout, omen(&args).stdout);
}

#[test]
fn omen_rules_lists_every_registered_game_with_its_spec_items() {
    let r = omen(&["rules", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let games: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let names: Vec<&str> = games
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, omen_rules_names());
    let ritual = &games[0];
    assert!(
        ritual["spec_items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i == "000-M5")
    );
    assert_eq!(ritual["tables"], serde_json::json!(["lore", "essence"]));
    // Everyday text names no spec items or seed files; --detail adds them for designers.
    let text = omen(&["rules"]);
    assert!(text.stdout.contains("option familiarity-bonuses: "));
    assert!(!text.stdout.contains("000-"), "{}", text.stdout);
    assert!(!text.stdout.contains(".txt"), "{}", text.stdout);
    let detail = omen(&["rules", "--detail"]);
    assert!(
        detail
            .stdout
            .contains("option familiarity-bonuses (000-A2)")
    );
    assert!(detail.stdout.contains("ritual (seed 000_"));
    // One game, its schemas and its example.
    let one = omen(&["rules", "hprpg"]);
    assert!(one.stdout.starts_with("hprpg: "), "{}", one.stdout);
    assert!(!one.stdout.contains("\nritual: "), "{}", one.stdout);
    let schema: serde_json::Value =
        serde_json::from_str(&omen(&["rules", "t13", "--schema"]).stdout).unwrap();
    assert_eq!(schema["sheet"]["title"], "T13State");
    assert!(schema["action"]["oneOf"].is_array(), "{}", schema["action"]);
    let example: serde_json::Value =
        serde_json::from_str(&omen(&["rules", "t13", "--example"]).stdout).unwrap();
    assert_eq!(example["character_type"], "mercari");
    assert_eq!(omen(&["rules", "nope"]).code, 2);
}

/// The registry as the library lists it: the CLI must show exactly these, in order.
fn omen_rules_names() -> Vec<&'static str> {
    omen_rules::registry().iter().map(|r| r.name()).collect()
}

#[test]
fn the_seed_tables_come_as_exact_json_too() {
    let r = omen(&["ritual", "lore-table", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 13);
    // Three dice at difficulty 5: the highest of 3d6 reaches 5, 1 − (4/6)³ = 19/27; one die, 1/3.
    assert_eq!(rows[3]["dice"], 3);
    assert_eq!(rows[3]["5"], "19/27");
    assert_eq!(rows[1]["5"], "1/3");
    let r = omen(&["ritual", "essence-table", "--format", "JSON"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 24);
    // P(1d6 ≥ 3) = 4/6; P(2d6 ≥ 6) = 26/36; P(3d6 ≥ 18) = 1/216.
    assert_eq!(rows[0]["at_least"]["3"], "2/3");
    assert_eq!(rows[1]["at_least"]["6"], "13/18");
    assert_eq!(rows[2]["at_least"]["18"], "1/216");
    assert_eq!(rows[23]["at_least"]["144"], format!("1/{}", 6u128.pow(24)));
}
