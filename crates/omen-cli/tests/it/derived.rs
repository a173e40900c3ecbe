//! The game commands built from the rule sets' schemas: fields the hand-written commands had lost
//! reach the rule set from the command line.

use crate::{json, omen_ok, scratch_dir};

const JANE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../docs/games/jane.json"
));

/// Jane (WILLPOWER 4, ELEMENTAL 3) in a state file of the test's own.
fn jane(test: &str) -> String {
    let state = scratch_dir(test).join("jane.json");
    let state = state.to_str().unwrap().to_string();
    omen_ok(&[
        "hprpg",
        "new-day",
        "--state",
        &state,
        "--sheet",
        JANE.trim(),
    ]);
    state
}

#[test]
fn hprpg_cast_sets_intractability_and_ritual_successes() {
    let state = jane("derived_cast_intractability");
    let cast = |extra: &[&str]| {
        let mut args = vec![
            "hprpg",
            "cast",
            "--state",
            &state,
            "--discipline",
            "ELEMENTAL",
            "--level",
            "3",
            "--odds",
            "--format",
            "json",
        ];
        args.extend(extra);
        json(&omen_ok(&args))
    };
    let plain = cast(&[]);
    let harder = cast(&["--intractability", "2", "--ritual-successes", "1"]);
    assert_eq!(harder["action"]["intractability"], 2, "{harder}");
    assert_eq!(harder["action"]["ritual_successes"], 1, "{harder}");
    assert!(plain["action"].get("intractability").is_none(), "{plain}");
    // The rule set reads them: the odds change.
    assert_ne!(plain["odds"], harder["odds"]);
}

#[test]
fn hprpg_catch_cast_sets_the_optional_successes() {
    let state = jane("derived_catch_cast_optional");
    // Net 3 is short of RANGED at 3 targets (6 successes): the casting waits.
    let short = json(&omen_ok(&[
        "hprpg",
        "cast",
        "--state",
        &state,
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
        "--format",
        "json",
    ]));
    assert_eq!(short["result"]["outcome"], "short", "{short}");
    let odds = json(&omen_ok(&[
        "hprpg",
        "catch-cast",
        "--state",
        &state,
        "--overpower",
        "1",
        "--defy",
        "2",
        "--odds",
        "--format",
        "json",
    ]));
    assert_eq!(
        odds["action"]["optional"],
        serde_json::json!({ "overpower": 1, "defy": 2 }),
        "{odds}"
    );
    // The long name of a nested field is an alias of the short one.
    let same = json(&omen_ok(&[
        "hprpg",
        "catch-cast",
        "--state",
        &state,
        "--optional-overpower",
        "1",
        "--optional-defy",
        "2",
        "--odds",
        "--format",
        "json",
    ]));
    assert_eq!(same["action"], odds["action"]);
}
