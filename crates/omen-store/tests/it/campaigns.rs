use std::collections::BTreeMap;

use omen_core::Limits;
use omen_store::{Dice, Existing, Missing, StoreError};

use crate::{CAMPAIGN, file_store, memory_store, raw, roll_times};

#[test]
fn campaigns_are_created_listed_shown_renamed_and_deleted() {
    let mut store = crate::empty_store();
    assert!(store.campaigns().unwrap().is_empty());
    let created = store.create_campaign("Tak").unwrap();
    store.create_campaign("Arden").unwrap();
    let names: Vec<String> = store
        .campaigns()
        .unwrap()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["Arden", "Tak"]);
    assert_eq!(store.campaign("Tak").unwrap().created, created.created);
    store.rename_campaign("Tak", "Tak'Rahn").unwrap();
    assert!(matches!(
        store.campaign("Tak"),
        Err(StoreError::NotFound(_))
    ));
    assert_eq!(store.campaign("Tak'Rahn").unwrap().created, created.created);
    store.delete_campaign("Arden").unwrap();
    let names: Vec<String> = store
        .campaigns()
        .unwrap()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["Tak'Rahn"]);
}

#[test]
fn a_campaign_counts_its_characters_and_log_entries() {
    let mut store = memory_store();
    roll_times(&mut store, 2);
    let campaign = store.campaign(CAMPAIGN).unwrap();
    assert_eq!((campaign.characters, campaign.log_entries), (1, 3));
}

#[test]
fn a_taken_campaign_name_is_refused() {
    let mut store = memory_store();
    let error = store.create_campaign(CAMPAIGN).unwrap_err();
    assert!(matches!(
        error,
        StoreError::AlreadyExists(Existing::Campaign { .. })
    ));
    assert_eq!(
        error.to_string(),
        "a campaign `Tak` already exists; choose another name or rename the existing one"
    );
    store.create_campaign("Other").unwrap();
    assert!(matches!(
        store.rename_campaign("Other", CAMPAIGN),
        Err(StoreError::AlreadyExists(_))
    ));
}

#[test]
fn an_unknown_campaign_is_not_found_with_a_hint() {
    let store = crate::empty_store();
    let error = store.campaign("Nowhere").unwrap_err();
    assert!(matches!(
        error,
        StoreError::NotFound(Missing::Campaign { .. })
    ));
    assert_eq!(
        error.to_string(),
        "no campaign `Nowhere`; `omen campaign list` lists them"
    );
}

#[test]
fn unusable_names_are_refused() {
    let mut store = crate::empty_store();
    for name in ["", "   ", " Tak", "Tak\n"] {
        assert!(
            matches!(store.create_campaign(name), Err(StoreError::Invalid(_))),
            "{name:?}"
        );
    }
    assert!(store.campaigns().unwrap().is_empty());
}

#[test]
fn deleting_a_campaign_removes_everything_it_holds() {
    let (_dir, path, mut store) = file_store();
    roll_times(&mut store, 3);
    store
        .save_roll(
            CAMPAIGN,
            &omen_store::SavedRoll {
                name: "attack".into(),
                expression: "d20 + 5".into(),
                params: Default::default(),
                description: None,
            },
            false,
        )
        .unwrap();
    store.delete_campaign(CAMPAIGN).unwrap();
    let conn = raw(&path);
    for table in [
        "campaign",
        "character",
        "saved_roll",
        "roll_log",
        "chain_head",
    ] {
        let count: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(count, 0, "{table}");
    }
}

/// A campaign remembers the dice notation its rolls are typed in: Roll20's `3d6>3` counts dice at 3 or
/// more, where Omen's counts dice above 3. The log holds Omen's notation, so it replays and verifies.
#[test]
fn a_campaigns_dialect_reads_its_rolls_and_the_log_holds_omen_notation() {
    let mut store = memory_store();
    assert_eq!(store.campaign(CAMPAIGN).unwrap().dialect, "omen");
    let dice = Dice::Given(vec![3, 2, 4]);
    let limits = Limits::default();
    let (_, omen) = store
        .roll(CAMPAIGN, None, "3d6>3", &BTreeMap::new(), &dice, &limits)
        .unwrap();
    assert_eq!(omen.roll.result, omen_lang::Value::Int(1));

    store.set_campaign_dialect(CAMPAIGN, "Roll20").unwrap();
    assert_eq!(store.campaign(CAMPAIGN).unwrap().dialect, "roll20");
    let (entry, roll20) = store
        .roll(CAMPAIGN, None, "3d6>3", &BTreeMap::new(), &dice, &limits)
        .unwrap();
    assert_eq!(roll20.roll.result, omen_lang::Value::Int(2));
    assert_eq!(entry.inputs["expression"], "3d6>=3");

    // Told another dialect, a roll reads in it instead.
    let (_, told) = store
        .roll_in_dialect(
            CAMPAIGN,
            None,
            "3d6>3",
            omen_lang::syntax::Dialect::named("omen"),
            &BTreeMap::new(),
            &dice,
            &limits,
        )
        .unwrap();
    assert_eq!(told.roll.result, omen_lang::Value::Int(1));
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());

    let error = store.set_campaign_dialect(CAMPAIGN, "icepool").unwrap_err();
    assert!(matches!(error, StoreError::Invalid(_)), "{error:?}");
    assert!(matches!(
        store.set_campaign_dialect("Nowhere", "roll20"),
        Err(StoreError::NotFound(_))
    ));

    // An export carries the dialect; an import keeps it.
    let export = store.export_campaign(CAMPAIGN).unwrap();
    assert_eq!(export["campaign"]["dialect"], "roll20");
    let mut other = crate::empty_store();
    let imported = other.import_campaign(&export, None).unwrap();
    assert_eq!(imported.dialect, "roll20");
}
