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
    // The result is the game master's part of a luck roll: its salted commitment catches it.
    assert!(
        error
            .to_string()
            .contains("entry 3: what it keeps for the game master does not match its commitment"),
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
        assert!(matches!(error, StoreError::BadExport(_)), "{error}");
    }
    let mut export = store.export_campaign(CAMPAIGN).unwrap();
    export["characters"][0]["state"] = json!({ "intrinsic": [{ "source": "", "value": 1 }] });
    let error = store.import_campaign(&export, Some("X")).unwrap_err();
    assert!(error.to_string().contains("character `Ayla`"), "{error}");
    assert!(matches!(error, StoreError::BadExport(_)), "{error}");
    // A name the caller gives is the request's fault; one the export carries is the export's.
    let error = store.import_campaign(&export, Some(" X")).unwrap_err();
    assert!(matches!(error, StoreError::Invalid(_)), "{error}");
    let mut unnamed = store.export_campaign(CAMPAIGN).unwrap();
    unnamed["campaign"]["name"] = json!("");
    let error = store.import_campaign(&unnamed, None).unwrap_err();
    assert!(matches!(error, StoreError::BadExport(_)), "{error}");
    assert_eq!(store.campaigns().unwrap().len(), 1);
}

/// The export's log, head and campaign as a later import leaves them: without the import entry it
/// appends, and with the first export's key and head.
fn without_imports(mut export: serde_json::Value, first: &serde_json::Value) -> serde_json::Value {
    let log = export["log"].as_array_mut().unwrap();
    log.retain(|entry| entry["action"] != "import");
    export["head"] = first["head"].clone();
    export["campaign"]["public_key"] = first["campaign"]["public_key"].clone();
    export["campaign"]["fingerprint"] = first["campaign"]["fingerprint"].clone();
    export
}

/// From the engine under test to SQLite and back again: every entry, hash and signature, every
/// character and saved roll the same; each hop adds only its own signed import entry.
#[test]
fn an_export_round_trips_between_the_engines() {
    let store = busy_store();
    let export = store.export_campaign(CAMPAIGN).unwrap();
    let mut sqlite = omen_store::Store::open_in_memory().unwrap();
    sqlite.import_campaign(&export, None).unwrap();
    let hop = sqlite.export_campaign(CAMPAIGN).unwrap();
    let mut back = crate::empty_store();
    back.import_campaign(&hop, None).unwrap();
    let round = back.export_campaign(CAMPAIGN).unwrap();
    let imports = |export: &serde_json::Value| {
        export["log"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|entry| entry["action"] == "import")
            .count()
    };
    assert_eq!((imports(&hop), imports(&round)), (1, 2));
    assert_eq!(without_imports(hop, &export), export);
    assert_eq!(without_imports(round, &export), export);
    for (store, engine) in [(&sqlite, "sqlite"), (&back, "under test")] {
        let report = store.verify(CAMPAIGN).unwrap();
        assert!(report.is_ok(), "{engine}: {:?}", report.problems);
        let replay = store.replay(CAMPAIGN, &Limits::default()).unwrap();
        assert!(replay.is_ok(), "{engine}: {:?}", replay.problems);
    }
}

/// A whole database moved (what `omen db migrate` does): the same log, hashes, signatures and head
/// (nothing re-signed), the same characters and saved rolls, invites that still let their members
/// in, and a log that goes on under the same key.
#[test]
fn a_database_moves_whole_between_the_engines() {
    let mut source = busy_store();
    let (_, token) = source
        .create_invite(CAMPAIGN, omen_store::Role::GameMaster, None)
        .unwrap();
    source.create_campaign("Second").unwrap();
    // Into SQLite, then on into the engine under test.
    let mut sqlite = omen_store::Store::open_in_memory().unwrap();
    let report = source.copy_into(&mut sqlite).unwrap();
    assert_eq!((report.campaigns, report.invites), (2, 1));
    let mut target = crate::empty_store();
    assert_eq!(sqlite.copy_into(&mut target).unwrap(), report);
    for moved in [&sqlite, &target] {
        assert_eq!(
            moved.log(&LogFilter::default()).unwrap(),
            source.log(&LogFilter::default()).unwrap()
        );
        assert_eq!(moved.campaigns().unwrap(), source.campaigns().unwrap());
        assert_eq!(
            moved.characters(CAMPAIGN).unwrap(),
            source.characters(CAMPAIGN).unwrap()
        );
        assert_eq!(
            moved.saved_rolls(CAMPAIGN).unwrap(),
            source.saved_rolls(CAMPAIGN).unwrap()
        );
        assert_eq!(
            moved.head(CAMPAIGN).unwrap(),
            source.head(CAMPAIGN).unwrap()
        );
        assert_eq!(
            moved.authenticate(&token).unwrap().map(|m| m.role),
            Some(omen_store::Role::GameMaster)
        );
        assert_eq!(
            moved.invites(CAMPAIGN).unwrap(),
            source.invites(CAMPAIGN).unwrap()
        );
    }
    // A moved campaign's log verifies against its key and takes new entries under it... once the
    // key is there: a store with a key of its own is refused.
    let error = target.delete_character(CAMPAIGN, HERO).unwrap_err();
    assert!(matches!(error, StoreError::Key { .. }), "{error}");
    let report = target.verify(CAMPAIGN).unwrap();
    assert!(
        report.problems.iter().all(|p| p.problem.contains("key")),
        "{:?}",
        report.problems
    );
    // A target that holds a campaign is refused, and left as it was.
    let error = source.copy_into(&mut target).unwrap_err();
    assert!(error.to_string().contains("already holds"), "{error}");
    assert_eq!(target.campaigns().unwrap().len(), 2);
}
