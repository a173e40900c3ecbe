use omen_core::Limits;
use omen_store::{Dice, Existing, LogFilter, Missing, StoreError};
use serde_json::json;

use crate::{CAMPAIGN, HERO, halfling, luck_roll, memory_store, roll_times};

#[test]
fn a_character_is_created_from_its_sheet_and_shown() {
    let mut store = memory_store();
    store
        .create_character(CAMPAIGN, "Borin", "luck", &json!({}))
        .unwrap();
    let ayla = store.character(CAMPAIGN, HERO).unwrap();
    assert_eq!(ayla.rule_set, "luck");
    assert_eq!(ayla.sheet, halfling());
    assert_eq!(
        ayla.state,
        json!({ "intrinsic": [{ "source": "halfling", "value": 2, "duration": "permanent" }], "history": null })
    );
    assert_eq!(ayla.state_version, 1);
    let names: Vec<String> = store
        .characters(CAMPAIGN)
        .unwrap()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["Ayla", "Borin"]);
}

#[test]
fn an_invalid_sheet_is_refused_with_every_problem() {
    let mut store = memory_store();
    let sheet = json!({ "intrinsic": [
        { "source": " ", "value": 1 },
        { "source": "", "value": 2 },
    ] });
    let error = store
        .create_character(CAMPAIGN, "Borin", "luck", &sheet)
        .unwrap_err();
    let StoreError::Rules(omen_rules::stateful::ActionError::Invalid(problems)) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(problems.0.len(), 2, "{problems}");
    assert!(error.to_string().starts_with("2 problems:"), "{error}");
    assert!(matches!(
        store.character(CAMPAIGN, "Borin"),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn a_sheet_of_the_wrong_shape_is_refused() {
    let mut store = memory_store();
    let error = store
        .create_character(CAMPAIGN, "Borin", "luck", &json!({ "strength": 9 }))
        .unwrap_err();
    assert!(error.to_string().starts_with("invalid sheet"), "{error}");
}

#[test]
fn a_rule_set_without_characters_is_refused() {
    let mut store = memory_store();
    let error = store
        .create_character(CAMPAIGN, "Borin", "chess", &json!({}))
        .unwrap_err();
    assert!(matches!(
        error,
        StoreError::NotFound(Missing::RuleSet { .. })
    ));
    assert!(error.to_string().contains("luck"), "{error}");
}

#[test]
fn a_taken_character_name_is_refused() {
    let mut store = memory_store();
    let error = store
        .create_character(CAMPAIGN, HERO, "luck", &json!({}))
        .unwrap_err();
    assert!(matches!(
        error,
        StoreError::AlreadyExists(Existing::Character { .. })
    ));
}

#[test]
fn a_missing_character_is_named_with_a_hint() {
    let store = memory_store();
    let error = store.character(CAMPAIGN, "Borin").unwrap_err();
    assert_eq!(
        error.to_string(),
        "no character `Borin` in campaign `Tak`; `omen char list --campaign Tak` lists them"
    );
    let error = crate::try_empty_store()
        .unwrap()
        .character("Nowhere", HERO)
        .unwrap_err();
    assert!(matches!(
        error,
        StoreError::NotFound(Missing::Campaign { .. })
    ));
}

#[test]
fn an_edit_is_checked_by_the_rule_set_and_logged() {
    let mut store = memory_store();
    let blessed = json!({ "intrinsic": [{ "source": "blessing", "value": 5 }] });
    let edited = store.set_state(CAMPAIGN, HERO, &blessed).unwrap();
    assert_eq!(edited.state["intrinsic"][0]["source"], "blessing");
    assert_eq!(store.character(CAMPAIGN, HERO).unwrap().state, edited.state);
    let entry = store.log(&LogFilter::default()).unwrap().pop().unwrap();
    assert_eq!(entry.action, "edit");
    assert_eq!(entry.state_after.as_ref(), Some(&edited.state));
    assert_eq!(
        entry.state_before.unwrap()["intrinsic"][0]["source"],
        "halfling"
    );

    let error = store
        .set_state(
            CAMPAIGN,
            HERO,
            &json!({ "intrinsic": [{ "source": "", "value": 1 }] }),
        )
        .unwrap_err();
    assert!(matches!(error, StoreError::Rules(_)), "{error}");
    assert_eq!(store.character(CAMPAIGN, HERO).unwrap().state, edited.state);
}

#[test]
fn a_renamed_character_keeps_its_log() {
    let mut store = memory_store();
    roll_times(&mut store, 2);
    store
        .rename_character(CAMPAIGN, HERO, "Ayla the Bold")
        .unwrap();
    store
        .act(
            CAMPAIGN,
            "Ayla the Bold",
            &luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap();
    let filter = LogFilter {
        character: Some("Ayla the Bold".into()),
        ..LogFilter::default()
    };
    let entries = store.log(&filter).unwrap();
    // create, two rolls, the rename and one roll under the new name.
    assert_eq!(entries.len(), 5);
    assert_eq!(entries[1].character.as_deref(), Some(HERO));
    assert_eq!(entries[3].action, "rename");
    assert!(matches!(
        store.character(CAMPAIGN, HERO),
        Err(StoreError::NotFound(_))
    ));
    assert!(store.replay(CAMPAIGN, &Limits::default()).unwrap().is_ok());
}

#[test]
fn a_deleted_character_is_gone_but_its_entries_stay() {
    let mut store = memory_store();
    roll_times(&mut store, 2);
    store.delete_character(CAMPAIGN, HERO).unwrap();
    assert!(store.characters(CAMPAIGN).unwrap().is_empty());
    let filter = LogFilter {
        character: Some(HERO.into()),
        ..LogFilter::default()
    };
    let entries = store.log(&filter).unwrap();
    assert_eq!(entries.len(), 4);
    assert_eq!(entries[3].action, "delete");
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
    assert!(store.replay(CAMPAIGN, &Limits::default()).unwrap().is_ok());
    // The name is free again.
    store
        .create_character(CAMPAIGN, HERO, "luck", &json!({}))
        .unwrap();
}
