//! Every game's character actions from the command line, replaying the seeds' worked examples with
//! fixed dice through a campaign database and through state files.

use std::path::Path;

use serde_json::{Value, json};

use crate::{json, omen, omen_ok, scratch_dir};

fn at(db: &Path, args: &[&str]) -> crate::Run {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--db", db.to_str().unwrap(), "--format", "json"]);
    omen(&all)
}

fn ok(db: &Path, args: &[&str]) -> Value {
    let run = at(db, args);
    assert_eq!(run.code, 0, "omen {args:?} failed:\n{}", run.stderr);
    json(&run)
}

fn campaign(test: &str) -> std::path::PathBuf {
    let db = scratch_dir(test).join("omen.db");
    ok(&db, &["campaign", "new", "Hogwarts"]);
    db
}

/// Jane of seed 003: WILLPOWER 4, VITALITY 6, ELEMENTAL 3, BLOCK 5, DODGE 3.
fn jane() -> String {
    let mut aspects = serde_json::Map::new();
    for aspect in [
        "FITNESS",
        "CHARM",
        "INTELLIGENCE",
        "PRECISION",
        "DECEPTION",
        "WILLPOWER",
        "VITALITY",
        "INSIGHT",
        "PERCEPTION",
    ] {
        aspects.insert(aspect.to_string(), json!(1));
    }
    aspects.insert("WILLPOWER".into(), json!(4));
    aspects.insert("VITALITY".into(), json!(6));
    json!({ "sheet": {
        "aspects": aspects,
        "custom_abilities": {
            "DODGE": { "type": "INNATE", "dots": 3 },
            "BLOCK": { "type": "INNATE", "dots": 5 }
        },
        "affinities": { "ELEMENTAL": 3 },
        "fortitude": { "current": 2, "max": 3 },
        "health": { "current": 5, "max": 5 }
    }})
    .to_string()
}

#[test]
fn hprpg_jane_casts_her_fire_bolt_and_the_willow_resists_it() {
    let db = campaign("actions_hprpg_jane");
    ok(
        &db,
        &[
            "char",
            "new",
            "Jane",
            "--rules",
            "hprpg",
            "--sheet",
            &jane(),
        ],
    );
    // 003-M22: TRIA with Affinity 3 is DV 8; pool 7; net 3; 2 for RANGED, 1 OVERPOWER: POWER 4.
    let cast = ok(
        &db,
        &[
            "hprpg",
            "cast",
            "--char",
            "Jane",
            "--discipline",
            "ELEMENTAL",
            "--level",
            "3",
            "--delivery",
            "ranged",
            "--overpower",
            "1",
            "--dice",
            "1,4,5,8,8,9,11",
        ],
    );
    assert_eq!(cast["result"]["net"], 3);
    assert_eq!(cast["result"]["spell"]["power"], 4);
    // The Whomping Willow's BLOCK 5 + VITALITY 6 = 11 dice against DV 6: net 7, POWER 0.
    let resist = ok(
        &db,
        &[
            "hprpg",
            "resist",
            "--char",
            "Jane",
            "--aspect",
            "VITALITY",
            "--ability",
            "BLOCK",
            "--level",
            "3",
            "--power",
            "4",
            "--dice",
            "1,2,4,6,6,7,8,9,10,11,12",
        ],
    );
    assert_eq!(resist["result"]["difficulty"], 6);
    assert_eq!(resist["result"]["power"], 0);
    // Resources: harm, FORTITUDE, a sustained spell costs a die on the next cast (003-M16).
    ok(
        &db,
        &["hprpg", "take-harm", "--char", "Jane", "--levels", "2"],
    );
    ok(
        &db,
        &[
            "hprpg",
            "spend-fortitude",
            "--char",
            "Jane",
            "--spend",
            "extra-action",
        ],
    );
    ok(
        &db,
        &["hprpg", "sustain", "--char", "Jane", "--spell", "Shield"],
    );
    let state = ok(&db, &["char", "show", "Jane"])["state"].clone();
    assert_eq!(state["sheet"]["health"]["current"], 3);
    assert_eq!(state["sheet"]["fortitude"]["current"], 1);
    let odds = ok(
        &db,
        &[
            "hprpg",
            "cast",
            "--char",
            "Jane",
            "--discipline",
            "ELEMENTAL",
            "--level",
            "3",
            "--odds",
        ],
    );
    assert_eq!(odds["odds"]["pool"], 6, "{odds}");
    let too_much = at(
        &db,
        &[
            "hprpg",
            "spend-fortitude",
            "--char",
            "Jane",
            "--count",
            "5",
            "--spend",
            "automatic-success",
        ],
    );
    assert_eq!(too_much.code, 2);
    assert!(
        ok(&db, &["log", "verify"])["problems"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(ok(&db, &["log", "replay"])["problems"], json!([]));
}

#[test]
fn hprpg_a_one_off_check_needs_no_character() {
    // FITNESS 3 + BRAWL 2 = 5 dice against DV 8: 8, 12 and 9 succeed, the 1 cancels one.
    let sheet = crate::hprpg_sheet("FITNESS", 3, Some(("BRAWL", 2)));
    let run = omen_ok(&[
        "hprpg",
        "check",
        "--aspect",
        "FITNESS",
        "--ability",
        "BRAWL",
        "--dv",
        "8",
        "--sheet",
        &sheet,
        "--dice",
        "8,1,12,5,9",
        "--format",
        "json",
    ]);
    let result = &json(&run)["result"];
    assert_eq!(result["net"], 2, "{result}");
    let bad = omen(&[
        "hprpg", "check", "--aspect", "FITNES", "--dv", "8", "--sheet", &sheet,
    ]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("FITNESS"),
        "names the nearest: {}",
        bad.stderr
    );
}

#[test]
fn ritual_deciphering_and_the_end_of_session_keep_lore_in_a_state_file() {
    let dir = scratch_dir("actions_ritual_state");
    let state = dir.join("oda.json");
    let state = state.to_str().unwrap();
    let first = omen_ok(&[
        "ritual",
        "decipher",
        "--state",
        state,
        "--sheet",
        r#"{"lore":1}"#,
        "--ritual",
        "Binding of Nine",
        "--difficulty",
        "4",
        "--dice",
        "3",
        "--format",
        "json",
    ]);
    let first = json(&first);
    assert_eq!(first["result"]["success"], false);
    assert_eq!(first["state_after"]["unknown"], json!(["Binding of Nine"]));
    // The end of the session re-rolls the most difficult check; a failure raises Lore (000-M7).
    let end = json(&omen_ok(&[
        "ritual",
        "end-session",
        "--state",
        state,
        "--dice",
        "2",
        "--format",
        "json",
    ]));
    assert_eq!(end["result"]["lore_gained"], true);
    assert_eq!(end["state_after"]["lore"], 2);
    let perform = json(&omen_ok(&[
        "ritual",
        "perform",
        "--state",
        state,
        "--ritual",
        "Ward",
        "--leader",
        "2",
        "--threshold",
        "8",
        "--dice",
        "6,5",
        "--format",
        "json",
    ]));
    assert_eq!(perform["result"]["total"], 11);
    assert_eq!(perform["state_after"]["attempts"]["Ward"], 1);
    let slept = json(&omen_ok(&[
        "ritual", "sleep", "--state", state, "--format", "json",
    ]));
    assert_eq!(slept["state_after"]["attempts"], json!({}));
}

#[test]
fn spelldice_casts_deplete_the_pool_until_sleep() {
    let db = campaign("actions_spelldice");
    ok(
        &db,
        &[
            "char",
            "new",
            "Merrin",
            "--rules",
            "spelldice",
            "--sheet",
            r#"{"level":3}"#,
        ],
    );
    let cast = ok(
        &db,
        &[
            "spelldice",
            "cast",
            "--char",
            "Merrin",
            "--spell-dice",
            "3",
            "--spell-level",
            "2",
            "--dice",
            "2,4,5",
        ],
    );
    assert_eq!(cast["result"]["result"], "success");
    assert_eq!(cast["result"]["pool"], 4);
    let odds = ok(
        &db,
        &[
            "spelldice",
            "cast",
            "--char",
            "Merrin",
            "--spell-dice",
            "2",
            "--odds",
        ],
    );
    // Two dice against 8: 15/36 succeed.
    assert_eq!(odds["odds"]["success"]["fraction"], "5/12", "{odds}");
    let refused = at(
        &db,
        &["spelldice", "cast", "--char", "Merrin", "--spell-dice", "9"],
    );
    assert_eq!(refused.code, 2);
    ok(&db, &["spelldice", "sleep", "--char", "Merrin"]);
    assert_eq!(ok(&db, &["char", "show", "Merrin"])["state"]["pool"], 5);
}

#[test]
fn t13_bought_dice_are_paid_from_the_characters_sway() {
    let db = campaign("actions_t13");
    ok(
        &db,
        &[
            "char",
            "new",
            "Vex",
            "--rules",
            "t13",
            "--sheet",
            r#"{"sway":5}"#,
        ],
    );
    let test = ok(
        &db,
        &[
            "t13",
            "test",
            "--char",
            "Vex",
            "--boon",
            "6",
            "--buy",
            "skill:6:sway",
            "--difficulty",
            "4",
            "--dice",
            "3,5",
        ],
    );
    assert_eq!(test["result"]["total"], 8);
    assert_eq!(test["state_after"]["sway"], 1);
    let short = at(
        &db,
        &[
            "t13",
            "test",
            "--char",
            "Vex",
            "--boon",
            "6",
            "--buy",
            "skill:6:sway",
            "--difficulty",
            "4",
            "--dice",
            "3,5",
        ],
    );
    assert_eq!(short.code, 2);
    assert!(short.stderr.contains("sway"), "{}", short.stderr);
    ok(
        &db,
        &["t13", "gain", "--char", "Vex", "--sway", "10", "--chi", "2"],
    );
    ok(&db, &["t13", "spend", "--char", "Vex", "--chi", "2"]);
    let vex = ok(&db, &["char", "show", "Vex"]);
    assert_eq!(
        (vex["state"]["sway"].clone(), vex["state"]["chi"].clone()),
        (json!(11), json!(0))
    );
}

#[test]
fn hprpg_contest_teamwork_and_perception_give_exact_odds_and_a_roll() {
    // Passive Perception 3 + 2 = DV 5; a 4d12 sneak fails or botches (revealed) with 19/216, counted
    // by brute force over the 12^4 rolls.
    let seen = json(&omen_ok(&[
        "hprpg",
        "perception",
        "--perception",
        "3",
        "--alertness",
        "2",
        "--sneak-pool",
        "4",
        "--format",
        "json",
    ]));
    use crate::{fraction_of, table_cell};
    assert_eq!(
        table_cell(
            &seen,
            "Passive perception",
            "the DV a sneak is scored against",
            "DV"
        ),
        "5"
    );
    let revealed = table_cell(&seen, "A sneak with 4d12", "revealed", "chance");
    assert_eq!(fraction_of(&revealed), "19/216");
    // Working together pools 3 + 2 dice: the same as one 5-die pool; P(net 2) = 2875/10368.
    let team = json(&omen_ok(&[
        "hprpg",
        "teamwork",
        "--pool",
        "3",
        "--pool",
        "2",
        "--dv",
        "8",
        "--dice",
        "8,9,1,10,2",
        "--format",
        "json",
    ]));
    let two = table_cell(&team, "P(each degree)", "OKAY", "chance");
    assert_eq!(table_cell(&team, "P(each degree)", "OKAY", "net"), "2");
    assert_eq!(fraction_of(&two), "2875/10368");
    assert_eq!(
        table_cell(&team, "The dice as rolled", "pooled", "net"),
        "2"
    );
    // The contest: 1 die each against DV 12; the margin is 0 unless exactly one side rolls a 12.
    let contest = json(&omen_ok(&[
        "hprpg",
        "contest",
        "--pool",
        "1",
        "--resistor-pool",
        "1",
        "--dv",
        "12",
        "--dice",
        "12,5",
        "--format",
        "json",
    ]));
    assert_eq!(
        table_cell(&contest, "The dice as rolled", "margin", "net"),
        "1"
    );
    let margins: Vec<(String, String)> = ["-1", "0", "1"]
        .iter()
        .map(|m| {
            let cell = table_cell(&contest, "P(each margin)", m, "chance");
            (m.to_string(), fraction_of(&cell).to_string())
        })
        .collect();
    let expected = [("-1", "11/144"), ("0", "61/72"), ("1", "11/144")];
    assert_eq!(
        margins,
        expected.map(|(m, p)| (m.to_string(), p.to_string()))
    );
    // A DV below the scale is refused (003-M2), not clamped; so is a table the appendix lacks.
    let sheet = crate::hprpg_sheet("FITNESS", 1, None);
    for (args, message) in [
        (
            &[
                "hprpg",
                "contest",
                "--pool",
                "1",
                "--resistor-pool",
                "1",
                "--dv",
                "0",
            ][..],
            // The analysis's inputs declare the DV's range, so the flag refuses it.
            "0 is not in 2..=14",
        ),
        (
            &["hprpg", "teamwork", "--pool", "1", "--dv", "1"][..],
            "1 is not in 2..=14",
        ),
        (
            &["hprpg", "table", "--dv", "13"][..],
            "for DV 2 to 12, not 13",
        ),
        (
            &[
                "hprpg", "check", "--aspect", "FITNESS", "--dv", "0", "--sheet", &sheet,
            ][..],
            "DV 0 is below 2",
        ),
    ] {
        let run = omen(args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    }
}

fn warrior_choices() -> Value {
    json!({
        "species": "halfblood", "personality": "Rebel", "archetype": "WARRIOR",
        "aspect_ranking": ["PHYSICAL", "MENTAL", "SOCIAL"],
        "aspects": { "FITNESS": 3, "PRECISION": 2, "VITALITY": 2, "INTELLIGENCE": 2, "WILLPOWER": 1,
                     "PERCEPTION": 2, "CHARM": 1, "DECEPTION": 1, "INSIGHT": 1 },
        "ability_ranking": ["PRACTICAL", "INNATE", "KNOWLEDGE"],
        "abilities": { "BRAWL": 3, "SKIRMISH": 3, "ACROBATICS": 2, "MARKSMANSHIP": 2, "SURVIVAL": 2,
                       "BRAVERY": 2, "ALERTNESS": 2, "STRENGTH": 2, "SPEED": 2, "HISTORY": 2,
                       "ARCANE": 2 },
        "archetype_abilities": { "rage": 2, "TACTICS": 1 },
        "capability_choices": ["SKIRMISH", "HEXES", "wards", "MARKSMANSHIP"],
        "fortitude": 3, "health": 6, "galleons": 10
    })
}

#[test]
fn hprpg_creation_gives_the_sheet_or_every_violation_and_the_sheet_becomes_a_character() {
    let choices = warrior_choices().to_string();
    let created = json(&omen_ok(&[
        "hprpg",
        "create",
        "--choices",
        &choices,
        "--format",
        "json",
    ]));
    // FITNESS 1 + 3 + 2 from WARRIOR; the capability row's SKIRMISH 2 on top of 3 dots.
    assert_eq!(created["sheet"]["aspects"]["FITNESS"], 6);
    assert_eq!(created["sheet"]["abilities"]["SKIRMISH"], 5);
    assert_eq!(created["warnings"], json!([]));
    // Over budget twice and an unknown aspect: all three reported at once.
    let mut bad = warrior_choices();
    bad["aspects"]["FITNESS"] = json!(4);
    bad["abilities"]["BRAWL"] = json!(4);
    bad["aspects"]["STRENGHT"] = json!(1);
    let run = omen(&["hprpg", "create", "--choices", &bad.to_string()]);
    assert_eq!(run.code, 2);
    for part in ["FITNESS", "BRAWL", "STRENGHT"] {
        assert!(run.stderr.contains(part), "{part}: {}", run.stderr);
    }
    assert!(run.stderr.contains("problems:"), "{}", run.stderr);
    // The same choices make a stored character.
    let db = campaign("actions_hprpg_create");
    let sheet = json!({ "create": warrior_choices() }).to_string();
    ok(
        &db,
        &[
            "char", "new", "Bruce", "--rules", "hprpg", "--sheet", &sheet,
        ],
    );
    let bruce = ok(&db, &["char", "show", "Bruce"]);
    assert_eq!(bruce["state"]["sheet"]["aspects"]["FITNESS"], 6);
}

#[test]
fn sheet_errors_list_every_problem_at_once_missing_fields_included() {
    // Seed 003's sheet form: a wrong type, a rating below zero, a misspelt field and two missing.
    let mut choices = warrior_choices();
    choices["abilities"]["SURVIVAL"] = json!("two");
    choices["aspects"]["FITNESS"] = json!(-3);
    choices["specie"] = json!("halfblood");
    let object = choices.as_object_mut().unwrap();
    object.remove("fortitude");
    object.remove("health");
    let sheet = json!({ "create": choices }).to_string();
    let db = campaign("actions_sheet_errors");
    let run = at(
        &db,
        &[
            "char", "new", "Bruce", "--rules", "hprpg", "--sheet", &sheet,
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    let stderr = crate::words(&run.stderr);
    for problem in [
        "5 problems:",
        "/create: missing field `fortitude`",
        "/create: missing field `health`",
        "/create/abilities/SURVIVAL: expected an integer, found a string \"two\"",
        "/create/aspects/FITNESS: -3 is below the minimum 0",
        "/create: unknown field `specie`",
    ] {
        assert!(stderr.contains(problem), "{problem}: {stderr}");
    }
    // An action with its tag and nothing else: every field it needs.
    let run = crate::omen(&[
        "act",
        "luck",
        r#"{"action":"add-modifier"}"#,
        "--sheet",
        "{}",
    ]);
    assert_eq!(run.code, 2);
    let stderr = crate::words(&run.stderr);
    assert!(stderr.contains("missing field `source`"), "{stderr}");
    assert!(stderr.contains("missing field `value`"), "{stderr}");
}

#[test]
fn strict_turns_creation_warnings_into_errors() {
    // One PRACTICAL dot left unspent: a warning, exit 0 without --strict.
    let mut choices = warrior_choices();
    choices["abilities"]["SURVIVAL"] = json!(1);
    // The sheet form that `omen rules hprpg --example` prints is accepted as it is.
    let choices = json!({ "create": choices }).to_string();
    let relaxed = omen_ok(&["hprpg", "create", "--choices", &choices]);
    assert!(relaxed.stderr.contains("unspent"), "{}", relaxed.stderr);
    for format in ["text", "json"] {
        let strict = omen(&[
            "hprpg",
            "create",
            "--choices",
            &choices,
            "--strict",
            "--format",
            format,
        ]);
        assert_eq!(strict.code, 2, "{}", strict.stderr);
        assert!(strict.stdout.is_empty(), "{}", strict.stdout);
        assert!(strict.stderr.contains("unspent") && strict.stderr.contains("--strict"));
    }
}

#[test]
fn spelldice_a_cast_without_committed_dice_says_which_dice_count() {
    let run = omen(&[
        "spelldice",
        "cast",
        "--sheet",
        r#"{"level":3}"#,
        "--dice",
        "3",
    ]);
    // The rule set's own message (the flag is its field, `--spell-dice`): `--dice` gives the faces
    // rolled, not the dice committed.
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("commit spell dice"), "{}", run.stderr);
}

/// 003-M17 from the command line: Jane's net 3 is short of RANGED at 3 targets (6); keeping 2
/// targets (4) leaves a catch-cast of 6 dice that must net 1 or more (1252265/1492992, the
/// multinomial sum over 6 d12 at DV 8 worked out by hand); keeping 1 (2) casts at once.
#[test]
fn m17_hprpg_reduce_casting_keeps_fewer_targets() {
    let db = campaign("actions_hprpg_reduce");
    ok(
        &db,
        &[
            "char",
            "new",
            "Jane",
            "--rules",
            "hprpg",
            "--sheet",
            &jane(),
        ],
    );
    let cast = [
        "hprpg",
        "cast",
        "--char",
        "Jane",
        "--discipline",
        "ELEMENTAL",
        "--level",
        "3",
        "--delivery",
        "ranged",
        "--targets",
        "3",
        "--dice",
        "1,4,5,8,8,9,11",
    ];
    assert_eq!(ok(&db, &cast)["result"]["outcome"], "short");
    let reduce = |targets: &str, odds: bool| {
        let mut args = vec![
            "hprpg",
            "reduce-casting",
            "--char",
            "Jane",
            "--delivery",
            "ranged",
            "--targets",
            targets,
        ];
        if odds {
            args.push("--odds");
        }
        ok(&db, &args)
    };
    let odds = reduce("2", true);
    assert_eq!(
        odds["odds"]["takes_effect"]["fraction"], "1252265/1492992",
        "{odds}"
    );
    let cast = reduce("1", false);
    assert_eq!(cast["result"]["outcome"], "cast");
    assert_eq!(cast["result"]["spell"]["power"], 3);
    assert_eq!(cast["result"]["spell"]["unused"], 1);
    let run = at(
        &db,
        &[
            "hprpg",
            "reduce-casting",
            "--char",
            "Jane",
            "--delivery",
            "ranged",
        ],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no casting is waiting"),
        "{}",
        run.stderr
    );
}

/// 003-M25 from the command line: MESMERISING PRESENCE's daily use is kept in the state file and a
/// second use the same day is refused with the way back (new-day); SPEED 2 gives +2 m a round; a
/// WARRIOR feat on a SOPHISTICATE warns in the summary.
#[test]
fn m25_hprpg_use_feat_movement_and_the_archetype_warning() {
    let dir = scratch_dir("actions_hprpg_m25");
    let state = dir.join("sophia.json");
    let state = state.to_str().unwrap();
    let mut aspects = serde_json::Map::new();
    for aspect in omen_rules::hprpg::character::Aspect::ALL {
        aspects.insert(aspect.name().to_string(), json!(1));
    }
    let sheet = json!({ "sheet": {
        "archetype": "SOPHISTICATE", "aspects": aspects,
        "abilities": { "SPEED": 2 },
        "fortitude": { "current": 1, "max": 1 }, "health": { "current": 5, "max": 5 },
        "feats": ["MESMERISING PRESENCE", "DUELIST"] }})
    .to_string();
    let feat = ["--feat", "MESMERISING PRESENCE", "--state", state];
    let first = omen_ok(&[&["hprpg", "use-feat", "--sheet", &sheet][..], &feat].concat());
    assert!(
        first.stdout.contains("used 1 of 1 today"),
        "{}",
        first.stdout
    );
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap();
    assert_eq!(
        saved["state"]["sheet"]["feat_uses"]["MESMERISING PRESENCE"], 1,
        "{saved}"
    );
    let second = omen(&[&["hprpg", "use-feat"][..], &feat].concat());
    assert_eq!(second.code, 2);
    assert!(second.stderr.contains("used up today"), "{}", second.stderr);
    assert!(second.stderr.contains("new-day"), "{}", second.stderr);
    omen_ok(&["hprpg", "new-day", "--state", state]);
    omen_ok(&[&["hprpg", "use-feat"][..], &feat].concat());
    let moved = omen_ok(&["hprpg", "movement", "--state", state, "--format", "json"]);
    assert_eq!(json(&moved)["result"]["extra_metres_per_round"], 2);
    let duel = omen_ok(&[
        "hprpg", "check", "--state", state, "--aspect", "CHARM", "--dv", "8", "--feat", "DUELIST",
        "--dice", "8",
    ]);
    assert!(
        crate::words(&duel.stdout).contains("warning: DUELIST is not a SOPHISTICATE feat"),
        "{}",
        duel.stdout
    );
}

/// 000-M8 from the command line: `ritual record` copies a known ritual into the notes, and with
/// `--option recording-and-memorising=on` `ritual perform --read-from` checks where it is read
/// from: the notes hold it (only the 3 Essence dice roll, 4 + 4 + 4 = 12 ≥ 9), memory does not.
#[test]
fn ritual_000_m8_record_and_perform_from_the_notes() {
    let dir = scratch_dir("actions_ritual_notes");
    let state = dir.join("oda.json");
    let state = state.to_str().unwrap();
    let sheet = r#"{"lore":2,"essence":3,"known":["Ward"]}"#;
    let recorded = omen_ok(&[
        "ritual", "record", "--state", state, "--sheet", sheet, "--ritual", "Ward", "--format",
        "json",
    ]);
    assert_eq!(json(&recorded)["state_after"]["notes"], json!(["Ward"]));
    let perform = |from: &str| {
        omen(&[
            "ritual",
            "perform",
            "--state",
            state,
            "--ritual",
            "Ward",
            "--threshold",
            "9",
            "--option",
            "recording-and-memorising=on",
            "--read-from",
            from,
            "--dice",
            "4,4,4",
            "--format",
            "json",
        ])
    };
    let memory = perform("memory");
    assert_eq!(memory.code, 2);
    assert!(
        memory.stderr.contains("is not memorised"),
        "{}",
        memory.stderr
    );
    let notes = perform("notes");
    assert_eq!(notes.code, 0, "{}", notes.stderr);
    let notes = json(&notes);
    assert_eq!(notes["result"]["read_from"], "notes");
    assert_eq!(notes["result"]["total"], 12);
    assert_eq!(notes["result"]["performed"], true);
}
