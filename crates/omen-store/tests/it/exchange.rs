use omen_core::Limits;
use omen_store::{Dice, Existing, LogFilter, SavedRoll, StoreError};
use serde_json::json;

use crate::{CAMPAIGN, HERO, memory_store, roll_times};

/// A campaign with a bit of everything: two characters (one renamed, one deleted), saved rolls,
/// actions, an edit and expression rolls.
fn busy_store() -> omen_store::Store {
    let mut store = memory_store();
    store
        .create_character(CAMPAIGN, "Borin", "luck", &json!({}))
        .unwrap();
    store
        .create_character(CAMPAIGN, "Cato", "luck", &json!({}))
        .unwrap();
    roll_times(&mut store, 3);
    store
        .act(
            CAMPAIGN,
            "Borin",
            &json!({ "action": "add-modifier", "source": "curse", "value": -3 }),
            Dice::Given(vec![]),
            &Limits::default(),
        )
        .unwrap();
    store
        .rename_character(CAMPAIGN, "Borin", "Borin Ironfist")
        .unwrap();
    store.delete_character(CAMPAIGN, "Cato").unwrap();
    store
        .set_state(CAMPAIGN, HERO, &json!({ "intrinsic": [{ "source": "halfling", "value": 2 }], "history": { "kind": "bad", "length": 2 } }))
        .unwrap();
    store
        .save_roll(
            CAMPAIGN,
            &SavedRoll {
                name: "attack".into(),
                expression: "param bonus = 0;\nd20 + bonus".into(),
                params: [("bonus".to_string(), json!(4))].into(),
                description: Some("sword".into()),
            },
            false,
        )
        .unwrap();
    let rolled = omen_store::roll_expression(
        "4d6kh3",
        &Default::default(),
        &Dice::Given(vec![3, 4, 5, 6]),
        &Limits::default(),
    )
    .unwrap();
    store
        .log_roll(CAMPAIGN, Some("Borin Ironfist"), rolled.record)
        .unwrap();
    store
}

#[test]
fn an_export_imports_as_the_same_campaign() {
    let mut store = busy_store();
    let export = store.export_campaign(CAMPAIGN).unwrap();
    assert_eq!(export["format"], "omen-campaign");
    let imported = store.import_campaign(&export, Some("Tak copy")).unwrap();
    assert_eq!(imported.name, "Tak copy");
    let mut again = store.export_campaign("Tak copy").unwrap();
    assert_eq!(again["campaign"]["name"], "Tak copy");
    // The same log, carried on under this database's key by one signed import entry.
    let same_but_the_import = |again: &mut serde_json::Value| {
        let import = again["log"].as_array_mut().unwrap().pop().unwrap();
        assert_eq!(import["action"], "import");
        assert_eq!(
            import["inputs"]["imported_head"]["hash"],
            export["head"]["hash"]
        );
        again["head"] = export["head"].clone();
        again["campaign"]["public_key"] = export["campaign"]["public_key"].clone();
        again["campaign"]["fingerprint"] = export["campaign"]["fingerprint"].clone();
    };
    same_but_the_import(&mut again);
    again["campaign"]["name"] = json!(CAMPAIGN);
    assert_eq!(again, export);
    // Through text, and into another database (with another key), it is still the same.
    let text = serde_json::to_string_pretty(&export).unwrap();
    let mut other = crate::empty_store();
    other
        .import_campaign(&serde_json::from_str(&text).unwrap(), None)
        .unwrap();
    let mut again = other.export_campaign(CAMPAIGN).unwrap();
    assert_ne!(
        again["campaign"]["public_key"],
        export["campaign"]["public_key"]
    );
    same_but_the_import(&mut again);
    assert_eq!(again, export);
    for (store, name) in [(&store, "Tak copy"), (&other, CAMPAIGN)] {
        assert!(store.verify(name).unwrap().is_ok());
        let report = store.replay(name, &Limits::default()).unwrap();
        assert!(report.is_ok(), "{:?}", report.problems);
    }
    assert_eq!(
        store
            .characters("Tak copy")
            .unwrap()
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["Ayla", "Borin Ironfist"]
    );
    // Filtering the copy by the renamed character's name still finds its early entries.
    let borin = store
        .log(&LogFilter {
            campaign: Some("Tak copy".into()),
            character: Some("Borin Ironfist".into()),
            ..LogFilter::default()
        })
        .unwrap();
    assert_eq!(borin[0].action, "create");
    // The copy acts on its own.
    store
        .act(
            "Tak copy",
            HERO,
            &crate::luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(store.export_campaign(CAMPAIGN).unwrap(), export);
}

#[test]
fn an_import_under_a_taken_name_is_refused() {
    let mut store = busy_store();
    let export = store.export_campaign(CAMPAIGN).unwrap();
    let error = store.import_campaign(&export, None).unwrap_err();
    assert!(
        matches!(error, StoreError::AlreadyExists(Existing::Campaign { .. })),
        "{error}"
    );
    assert_eq!(store.campaigns().unwrap().len(), 1);
}

#[test]
fn an_import_of_a_tampered_log_is_refused() {
    let mut store = busy_store();
    let mut export = store.export_campaign(CAMPAIGN).unwrap();
    export["log"][2]["result"]["die"] = json!(1);
    let error = store.import_campaign(&export, Some("Forged")).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("entry 3: its contents do not match its hash"),
        "{error}"
    );
    let mut export = store.export_campaign(CAMPAIGN).unwrap();
    export["log"].as_array_mut().unwrap().pop();
    let error = store.import_campaign(&export, Some("Forged")).unwrap_err();
    assert!(error.to_string().contains("were removed"), "{error}");
    assert!(matches!(
        store.campaign("Forged"),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn an_import_that_is_not_an_export_is_refused() {
    let mut store = busy_store();
    for document in [json!({}), json!({ "format": "something" }), json!([1, 2])] {
        let error = store.import_campaign(&document, Some("X")).unwrap_err();
        assert!(matches!(error, StoreError::Invalid(_)), "{error}");
    }
    let mut export = store.export_campaign(CAMPAIGN).unwrap();
    export["characters"][0]["state"] = json!({ "intrinsic": [{ "source": "", "value": 1 }] });
    let error = store.import_campaign(&export, Some("X")).unwrap_err();
    assert!(error.to_string().contains("character `Ayla`"), "{error}");
    assert_eq!(store.campaigns().unwrap().len(), 1);
}
