//! Smaller defects found while auditing the game commands, each named after what broke.

use serde_json::json;

use crate::{json, omen, omen_ok, scratch_dir};

#[test]
fn odds_on_a_missing_state_file_write_nothing_and_a_missing_sheet_is_named() {
    let dir = scratch_dir("defect_odds_missing_state");
    let state = dir.join("jane.json");
    let state = state.to_str().unwrap();
    let check = [
        "hprpg", "check", "--aspect", "FITNESS", "--dv", "8", "--state", state,
    ];
    let mut odds = check.to_vec();
    odds.push("--odds");
    let run = omen(&odds);
    assert_eq!(run.code, 2);
    assert!(
        crate::words(&run.stderr)
            .contains("does not exist yet, so a new hprpg character needs a sheet: give --sheet"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("expected map"), "{}", run.stderr);
    // With a sheet the odds are shown and the file is still not written: odds change nothing.
    let sheet = json!({ "sheet": { "aspects": { "FITNESS": 2, "CHARM": 1, "INTELLIGENCE": 1,
        "PRECISION": 1, "DECEPTION": 1, "WILLPOWER": 1, "VITALITY": 1, "INSIGHT": 1,
        "PERCEPTION": 1 } } })
    .to_string();
    odds.extend(["--sheet", &sheet]);
    let run = omen_ok(&odds);
    assert!(run.stdout.contains("not created"), "{}", run.stdout);
    assert!(!std::path::Path::new(state).exists());
    let run = omen(&check);
    assert!(run.stderr.contains("needs a sheet"), "{}", run.stderr);
}

#[test]
fn hprpg_create_prints_its_warnings_to_stderr_and_the_sheet_alone_to_stdout() {
    let choices = json!({
        "species": "halfblood", "personality": "Rebel", "archetype": "WARRIOR",
        "aspect_ranking": ["PHYSICAL", "MENTAL", "SOCIAL"],
        "aspects": { "FITNESS": 3, "PRECISION": 2, "VITALITY": 2, "INTELLIGENCE": 2, "WILLPOWER": 1,
                     "PERCEPTION": 2, "CHARM": 1, "DECEPTION": 1, "INSIGHT": 1 },
        "ability_ranking": ["PRACTICAL", "INNATE", "KNOWLEDGE"],
        "abilities": { "BRAWL": 3, "SKIRMISH": 3, "ACROBATICS": 2, "MARKSMANSHIP": 2, "SURVIVAL": 2,
                       "BRAVERY": 2, "ALERTNESS": 2, "STRENGTH": 2, "SPEED": 2, "HISTORY": 2,
                       "ARCANE": 1 },
        "archetype_abilities": { "rage": 2, "TACTICS": 1 },
        "capability_choices": ["SKIRMISH", "HEXES", "wards", "MARKSMANSHIP"],
        "fortitude": 3, "health": 6
    })
    .to_string();
    let run = omen_ok(&["hprpg", "create", "--choices", &choices]);
    assert!(run.stderr.starts_with("warning: "), "{}", run.stderr);
    let sheet = json(&run);
    assert_eq!(sheet["abilities"]["ARCANE"], 1);
    let report = json(&omen_ok(&[
        "hprpg",
        "create",
        "--choices",
        &choices,
        "--format",
        "json",
    ]));
    assert_eq!(report["warnings"].as_array().unwrap().len(), 1);
}

/// Two hprpg characters in a campaign: Ann (PRECISION 1, COVERT 1, PERCEPTION 2, ALERTNESS 3) and Bob
/// (PRECISION 1, COVERT 2, PERCEPTION 1).
fn two_characters(test: &str) -> String {
    let db = scratch_dir(test).join("omen.db");
    let db = db.to_str().unwrap().to_string();
    omen_ok(&["campaign", "new", "Hogwarts", "--db", &db]);
    let sheet = |perception: u32, abilities: serde_json::Value| {
        json!({ "sheet": { "aspects": { "FITNESS": 1, "CHARM": 1, "INTELLIGENCE": 1,
            "PRECISION": 1, "DECEPTION": 1, "WILLPOWER": 1, "VITALITY": 1, "INSIGHT": 1,
            "PERCEPTION": perception }, "abilities": abilities } })
        .to_string()
    };
    let ann = sheet(2, json!({ "COVERT": 1, "ALERTNESS": 3 }));
    let bob = sheet(1, json!({ "COVERT": 2 }));
    omen_ok(&[
        "char", "new", "Ann", "--rules", "hprpg", "--sheet", &ann, "--db", &db,
    ]);
    omen_ok(&[
        "char", "new", "Bob", "--rules", "hprpg", "--sheet", &bob, "--db", &db,
    ]);
    db
}

#[test]
fn contest_teamwork_and_perception_take_stored_characters_with_exact_odds() {
    let db = two_characters("defect_contest_characters");
    // Ann's PRECISION + COVERT = 2 dice against Bob's 3, both at DV 8. Counted over 12⁵ rolls by
    // hand: margin 0 (status quo) 19973/62208, margin 1 1765/9216, margin 2 6725/124416.
    let contest = json(&omen_ok(&[
        "hprpg",
        "contest",
        "--char",
        "Ann",
        "--vs",
        "Bob",
        "--aspect",
        "PRECISION",
        "--ability",
        "COVERT",
        "--dv",
        "8",
        "--dice",
        "9,3,8,1,2",
        "--db",
        &db,
        "--format",
        "json",
    ]));
    let outcomes = contest["odds"]["outcome"].as_array().unwrap();
    let of = |outcome: serde_json::Value| {
        outcomes.iter().find(|o| o["outcome"] == outcome).unwrap()["fraction"].clone()
    };
    assert_eq!(of(json!("status-quo")), "19973/62208");
    assert_eq!(of(json!({ "success": "marginal" })), "1765/9216");
    assert_eq!(of(json!({ "success": "okay" })), "6725/124416");
    assert_eq!(contest["roll"]["instigator"]["dice"], json!([9, 3]));
    // Ann watches (DV 2 + 3 = 5) while Bob sneaks with 3 dice: revealed on net ≤ 0, 29/216.
    let watch = json(&omen_ok(&[
        "hprpg",
        "perception",
        "--char",
        "Ann",
        "--vs",
        "Bob",
        "--aspect",
        "PRECISION",
        "--ability",
        "COVERT",
        "--db",
        &db,
        "--format",
        "json",
    ]));
    assert_eq!(watch["difficulty"], 5);
    assert_eq!(watch["revealed"]["fraction"], "29/216");
    // Working together: Ann's 2 dice and Bob's 3 pooled; 9, 3 | 8, 1, 2 at DV 8 is 2 − 1 = 1.
    let team = json(&omen_ok(&[
        "hprpg",
        "teamwork",
        "--char",
        "Ann",
        "--char",
        "Bob",
        "--aspect",
        "PRECISION",
        "--ability",
        "COVERT",
        "--dv",
        "8",
        "--dice",
        "9,3,8,1,2",
        "--db",
        &db,
        "--format",
        "json",
    ]));
    assert_eq!(team["roll"]["net"], 1);
    let missing = omen(&[
        "hprpg", "contest", "--char", "Ann", "--vs", "Bob", "--dv", "8", "--db", &db,
    ]);
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("give --aspect and --ability"),
        "{}",
        missing.stderr
    );
}
