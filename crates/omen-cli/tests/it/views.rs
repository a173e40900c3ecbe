//! 002-M4: a character's Luck modifiers are hidden from the player. The luck rule set declares what
//! only the game master sees; `--view player` applies that declaration to the text, the JSON and the
//! summary of every luck action, on a one-off character, a state file and a campaign alike.

use serde_json::json;

use crate::{json, omen, omen_ok, scratch_dir};

/// A halfling (+2) with a +10 for the next roll only: combined modifier +12 on the first roll.
const SHEET: &str = r#"{"intrinsic": [{"source": "halfling", "value": 2},
    {"source": "blessing", "value": 10, "duration": "next-roll"}]}"#;

fn leaks(text: &str) -> bool {
    [
        "modifier",
        "+12",
        "+2",
        "halfling",
        "blessing",
        "karmic",
        "intrinsic",
        "history",
    ]
    .iter()
    .any(|word| text.contains(word))
}

#[test]
fn m4_a_player_sees_the_die_and_the_outcome_never_the_modifiers() {
    // d50 = 30 with +12: good from 41 − 12 = 29, so good luck.
    let gm = omen_ok(&["luck", "roll", "--sheet", SHEET, "--dice", "30"]);
    assert!(
        gm.stdout
            .starts_with("d50 = 30 with modifier +12 (karmic +0): good luck\n")
    );
    let player = omen_ok(&[
        "luck", "roll", "--sheet", SHEET, "--dice", "30", "--view", "player",
    ]);
    assert_eq!(
        player.stdout,
        "d50 = 30: good luck\ndice: [30]\nstate after: {}\n"
    );
    let report = json(&omen_ok(&[
        "luck", "roll", "--sheet", SHEET, "--dice", "30", "--view", "player", "--format", "json",
    ]));
    assert_eq!(report["result"], json!({ "die": 30, "outcome": "good" }));
    assert_eq!(report["summary"], "d50 = 30: good luck");
    assert_eq!(
        (
            report["state_before"].clone(),
            report["state_after"].clone()
        ),
        (json!({}), json!({}))
    );
    assert!(!leaks(&report["result"].to_string()));
    // The odds would give the combined modifier away: a player gets none.
    let odds = omen_ok(&[
        "luck", "roll", "--sheet", SHEET, "--odds", "--view", "player",
    ]);
    assert!(!leaks(&odds.stdout), "{}", odds.stdout);
    assert!(odds.stdout.contains("hidden from this view"));
    let odds = json(&omen_ok(&[
        "luck", "roll", "--sheet", SHEET, "--odds", "--view", "player", "--format", "json",
    ]));
    assert_eq!(odds["odds"], json!({}));
    // The game master's odds for +12: bad 1..−2 (none), good 29..50 = 22 faces = 11/25.
    let odds = json(&omen_ok(&[
        "luck", "roll", "--sheet", SHEET, "--odds", "--format", "json",
    ]));
    assert_eq!(odds["odds"]["modifier"], 12);
    let outcomes = odds["odds"]["outcomes"].as_array().unwrap();
    let good = outcomes.iter().find(|o| o["outcome"] == "good").unwrap();
    assert_eq!(good["fraction"], "11/25");
}

#[test]
fn m4_a_player_view_hides_the_modifiers_of_a_state_file_and_a_campaign() {
    let dir = scratch_dir("view_player_luck");
    let state = dir.join("ayla.json");
    let state = state.to_str().unwrap();
    let first = omen_ok(&[
        "luck", "roll", "--state", state, "--sheet", SHEET, "--dice", "30", "--view", "player",
    ]);
    assert!(!leaks(&first.stdout), "{}", first.stdout);
    // The file keeps everything: the next-roll +10 is used up, the good run has begun.
    let gm = json(&omen_ok(&[
        "luck", "roll", "--state", state, "--dice", "40", "--format", "json",
    ]));
    // +2 intrinsic, karmic −0 for a good run of 1: good from 39, so 40 is good.
    assert_eq!(gm["result"]["modifier"], 2);
    let db = dir.join("omen.db");
    let db = db.to_str().unwrap();
    omen_ok(&["campaign", "new", "Tak", "--db", db]);
    omen_ok(&[
        "char", "new", "Ayla", "--rules", "luck", "--sheet", SHEET, "--db", db,
    ]);
    let logged = omen_ok(&[
        "luck", "roll", "--char", "Ayla", "--dice", "30", "--view", "player", "--db", db,
    ]);
    assert!(
        logged.stdout.starts_with("Ayla: d50 = 30: good luck\n"),
        "{}",
        logged.stdout
    );
    let entry = json(&omen_ok(&[
        "luck",
        "add-modifier",
        "--char",
        "Ayla",
        "--source",
        "curse",
        "--value=-5",
        "--view",
        "player",
        "--format",
        "json",
        "--db",
        db,
    ]));
    assert_eq!(
        entry["summary"],
        "the game master changed a hidden Luck modifier"
    );
    assert_eq!(
        entry["inputs"]["action"],
        json!({ "action": "add-modifier" })
    );
    assert_eq!(
        (entry["result"].clone(), entry["state_after"].clone()),
        (json!({}), json!({}))
    );
    // The log itself keeps the game master's summary.
    let log = omen_ok(&["log", "--db", db]);
    assert!(
        log.stdout.contains("d50 = 30 with modifier +12"),
        "{}",
        log.stdout
    );
    let refused = omen(&["luck", "roll", "--sheet", SHEET, "--view", "audience"]);
    assert_eq!(refused.code, 2);
}
