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
        run.stderr
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
