use std::collections::BTreeMap;

use omen_core::Limits;
use omen_store::{Dice, Existing, LogFilter, SavedRoll, StoreError, roll_expression};
use serde_json::json;

use crate::{CAMPAIGN, HERO, memory_store};

fn attack() -> SavedRoll {
    SavedRoll {
        name: "attack".into(),
        expression: "param bonus = 0;\nd20 + bonus".into(),
        params: BTreeMap::from([("bonus".to_string(), json!(5))]),
        description: Some("a sword swing".into()),
    }
}

#[test]
fn saved_rolls_are_saved_listed_shown_and_deleted() {
    let mut store = memory_store();
    store.save_roll(CAMPAIGN, &attack(), false).unwrap();
    let damage = SavedRoll {
        name: "damage".into(),
        expression: "2d6".into(),
        params: BTreeMap::new(),
        description: None,
    };
    store.save_roll(CAMPAIGN, &damage, false).unwrap();
    assert_eq!(
        store.saved_rolls(CAMPAIGN).unwrap(),
        [attack(), damage.clone()]
    );
    assert_eq!(store.saved_roll(CAMPAIGN, "attack").unwrap(), attack());
    store.delete_saved_roll(CAMPAIGN, "attack").unwrap();
    assert_eq!(store.saved_rolls(CAMPAIGN).unwrap(), [damage]);
    let error = store.delete_saved_roll(CAMPAIGN, "attack").unwrap_err();
    assert_eq!(
        error.to_string(),
        "no saved roll `attack` in campaign `Tak`; `omen saved list --campaign Tak` lists them"
    );
}

#[test]
fn a_saved_name_is_replaced_only_when_asked() {
    let mut store = memory_store();
    store.save_roll(CAMPAIGN, &attack(), false).unwrap();
    let mut better = attack();
    better.params.insert("bonus".into(), json!(7));
    let error = store.save_roll(CAMPAIGN, &better, false).unwrap_err();
    assert!(matches!(
        error,
        StoreError::AlreadyExists(Existing::SavedRoll { .. })
    ));
    assert_eq!(store.saved_roll(CAMPAIGN, "attack").unwrap(), attack());
    store.save_roll(CAMPAIGN, &better, true).unwrap();
    assert_eq!(store.saved_roll(CAMPAIGN, "attack").unwrap(), better);
}

#[test]
fn a_broken_expression_is_refused_with_its_errors() {
    let mut store = memory_store();
    let broken = SavedRoll {
        name: "broken".into(),
        expression: "d20 + + ".into(),
        params: BTreeMap::new(),
        description: None,
    };
    let error = store.save_roll(CAMPAIGN, &broken, false).unwrap_err();
    let StoreError::Language(diagnostics) = &error else {
        panic!("{error:?}");
    };
    assert!(!diagnostics.is_empty());
    assert!(store.saved_rolls(CAMPAIGN).unwrap().is_empty());
}

#[test]
fn expression_rolls_are_logged_and_replayed() {
    let mut store = memory_store();
    let saved = attack();
    let mut rolled = roll_expression(
        &saved.expression,
        &saved.params,
        &Dice::Given(vec![12]),
        &Limits::default(),
    )
    .unwrap();
    rolled.record.saved_roll = Some(saved.name.clone());
    let face = rolled.record.dice[0].face;
    assert_eq!(rolled.record.result, json!(face + 5));
    let entry = store.log_roll(CAMPAIGN, Some(HERO), rolled.record).unwrap();
    assert_eq!(entry.action, "expression");
    assert_eq!(entry.character.as_deref(), Some(HERO));
    // Rolled outside the campaign: logged as given dice, with no seed.
    assert_eq!(entry.seed, None);
    assert!(entry.dice_given);
    assert_eq!(entry.inputs["saved_roll"], "attack");
    let given = roll_expression(
        "3d6",
        &BTreeMap::new(),
        &Dice::Given(vec![1, 2, 3]),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(given.record.result, json!(6));
    store.log_roll(CAMPAIGN, None, given.record).unwrap();
    let filter = LogFilter {
        action: Some("expression".into()),
        ..LogFilter::default()
    };
    assert_eq!(store.log(&filter).unwrap().len(), 2);
    let report = store.replay(CAMPAIGN, &Limits::default()).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.replayed, 3);
}

#[test]
fn a_record_whose_dice_do_not_give_its_result_is_refused() {
    let mut store = memory_store();
    let mut rolled = roll_expression(
        "d6 + 1",
        &BTreeMap::new(),
        &Dice::Given(vec![4]),
        &Limits::default(),
    )
    .unwrap();
    rolled.record.result = json!(6);
    let error = store
        .log_roll(CAMPAIGN, None, rolled.record.clone())
        .unwrap_err();
    assert!(
        error.to_string().contains("gives 5, not the recorded 6"),
        "{error}"
    );
    rolled.record.result = json!(5);
    rolled.record.seed = Some(2);
    let error = store.log_roll(CAMPAIGN, None, rolled.record).unwrap_err();
    assert!(
        error.to_string().contains("not the ones seed 2 gives"),
        "{error}"
    );
    assert_eq!(store.log(&LogFilter::default()).unwrap().len(), 1);
}

#[test]
fn a_saved_roll_rolls_with_its_defaults_or_given_parameters() {
    let mut store = memory_store();
    store.save_roll(CAMPAIGN, &attack(), false).unwrap();
    let limits = Limits::default();
    let (entry, rolled) = store
        .roll_saved(
            CAMPAIGN,
            Some(HERO),
            "attack",
            &BTreeMap::new(),
            &Dice::Given(vec![10]),
            &limits,
        )
        .unwrap();
    assert_eq!(entry.result, json!(15));
    assert_eq!(rolled.roll.result.to_string(), "15");
    assert_eq!(entry.inputs["saved_roll"], "attack");
    assert_eq!(entry.inputs["params"], json!({ "bonus": 5 }));
    let bonus = BTreeMap::from([("bonus".to_string(), json!(-2))]);
    let (entry, _) = store
        .roll_saved(
            CAMPAIGN,
            None,
            "attack",
            &bonus,
            &Dice::Given(vec![10]),
            &limits,
        )
        .unwrap();
    assert_eq!(entry.result, json!(8));
    let missing = store
        .roll_saved(CAMPAIGN, None, "defend", &bonus, &Dice::Derived, &limits)
        .unwrap_err();
    assert!(matches!(missing, StoreError::NotFound(_)));
    let (entry, rolled) = store
        .roll(
            CAMPAIGN,
            None,
            "d6 + d8",
            &BTreeMap::new(),
            &Dice::Derived,
            &limits,
        )
        .unwrap();
    assert_eq!(entry.dice, rolled.record.dice);
    assert!(entry.seed.is_some() && !entry.dice_given);
    let broken = store
        .roll(
            CAMPAIGN,
            None,
            "d6 +",
            &BTreeMap::new(),
            &Dice::Derived,
            &limits,
        )
        .unwrap_err();
    assert!(matches!(broken, StoreError::Language(_)));
    let ran_out = store
        .roll(
            CAMPAIGN,
            None,
            "2d6",
            &BTreeMap::new(),
            &Dice::Given(vec![3]),
            &limits,
        )
        .unwrap_err();
    assert!(ran_out.to_string().contains("ran out"), "{ran_out}");
    assert_eq!(store.log(&LogFilter::default()).unwrap().len(), 4);
    assert!(store.replay(CAMPAIGN, &limits).unwrap().is_ok());
}

#[test]
fn an_exploding_roll_replays_with_its_own_depth() {
    let mut store = memory_store();
    let shallow = Limits {
        explode_depth: 1,
        ..Limits::default()
    };
    // d6! with depth 1: a 6 adds one more die, and that one does not explode again.
    let (entry, _) = store
        .roll(
            CAMPAIGN,
            None,
            "d6!",
            &BTreeMap::new(),
            &Dice::Given(vec![6, 6]),
            &shallow,
        )
        .unwrap();
    assert_eq!(entry.result, json!(12));
    assert_eq!(entry.inputs["explode_depth"], 1);
    let report = store.replay(CAMPAIGN, &Limits::default()).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
}
