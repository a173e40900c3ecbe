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

#[test]
fn contest_teamwork_and_perception_give_exact_odds_for_the_pools_of_two_characters() {
    // Ann's PRECISION + COVERT = 2 dice against Bob's 3, both at DV 8 (the analyses take the pools;
    // they no longer read stored characters). Counted over 12⁵ rolls by hand: margin 0 (status
    // quo) 19973/62208, margin 1 1765/9216, margin 2 6725/124416.
    use crate::{fraction_of, table_cell};
    let contest = json(&omen_ok(&[
        "hprpg",
        "contest",
        "--pool",
        "2",
        "--resistor-pool",
        "3",
        "--dv",
        "8",
        "--dice",
        "9,3,8,1,2",
        "--format",
        "json",
    ]));
    let of = |row: &str| {
        fraction_of(&table_cell(&contest, "P(each outcome)", row, "chance")).to_string()
    };
    assert_eq!(of("status quo"), "19973/62208");
    assert_eq!(of("success, MARGINAL"), "1765/9216");
    assert_eq!(of("success, OKAY"), "6725/124416");
    assert_eq!(
        table_cell(&contest, "The dice as rolled", "instigator", "dice"),
        "9, 3"
    );
    // Ann watches (DV 2 + 3 = 5) while Bob sneaks with 3 dice: revealed on net ≤ 0, 29/216.
    let watch = json(&omen_ok(&[
        "hprpg",
        "perception",
        "--perception",
        "2",
        "--alertness",
        "3",
        "--sneak-pool",
        "3",
        "--format",
        "json",
    ]));
    let dv = table_cell(
        &watch,
        "Passive perception",
        "the DV a sneak is scored against",
        "DV",
    );
    assert_eq!(dv, "5");
    let revealed = table_cell(&watch, "A sneak with 3d12", "revealed", "chance");
    assert_eq!(fraction_of(&revealed), "29/216");
    // Working together: Ann's 2 dice and Bob's 3 pooled; 9, 3 | 8, 1, 2 at DV 8 is 2 − 1 = 1.
    let team = json(&omen_ok(&[
        "hprpg",
        "teamwork",
        "--pool",
        "2",
        "--pool",
        "3",
        "--dv",
        "8",
        "--dice",
        "9,3,8,1,2",
        "--format",
        "json",
    ]));
    assert_eq!(
        table_cell(&team, "The dice as rolled", "pooled", "net"),
        "1"
    );
}
