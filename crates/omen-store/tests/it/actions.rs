use omen_core::Limits;
use omen_store::{Dice, LogFilter, RolledDie, StoreError};
use serde_json::json;

use crate::{CAMPAIGN, HERO, luck_roll, memory_store};

#[test]
fn an_action_rolls_writes_the_state_and_logs_it() {
    let mut store = memory_store();
    let before = store.character(CAMPAIGN, HERO).unwrap().state;
    let entry = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(-5),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(entry.sequence, 2);
    assert_eq!(entry.action, "roll");
    // The seed comes from the draw published before the roll: its secret opens the commitment.
    let draw = entry.draw.as_ref().expect("a drawn roll records its draw");
    assert!(entry.seed.is_some() && entry.seed_proof.is_none() && !entry.dice_given);
    assert_eq!(
        Some(omen_store::draw::commitment_of(&draw.secret)),
        entry.draw_commitment
    );
    assert_eq!(entry.dice.len(), 1);
    assert_eq!(
        (entry.dice[0].die.as_str(), entry.dice[0].sides),
        ("d50", 50)
    );
    assert_eq!(entry.result["die"], entry.dice[0].face);
    assert_eq!(entry.inputs["action"], luck_roll(-5));
    assert_eq!(entry.state_before.as_ref(), Some(&before));
    let after = store.character(CAMPAIGN, HERO).unwrap().state;
    assert_eq!(entry.state_after.as_ref(), Some(&after));
    assert_eq!(
        store.log(&LogFilter::default()).unwrap().last(),
        Some(&entry)
    );
    assert_eq!(entry.hash, entry.compute_hash());
    // RFC 3339, UTC, milliseconds.
    assert_eq!(entry.time.len(), "2026-11-23T15:41:03.123Z".len());
    assert_eq!(omen_store::normalize_time(&entry.time).unwrap(), entry.time);
}

#[test]
fn given_dice_decide_the_roll() {
    let mut store = memory_store();
    let entry = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Given(vec![50]),
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(entry.seed, None);
    assert_eq!(
        entry.dice,
        [RolledDie {
            die: "d50".into(),
            sides: 50,
            face: 50
        }]
    );
    assert_eq!(entry.result["outcome"], "good");
    let state = store.character(CAMPAIGN, HERO).unwrap().state;
    assert_eq!(state["history"], json!({ "kind": "good", "length": 1 }));
}

/// No roll again by trying again, and none chosen: two copies of one database with its key hold the
/// same published draw, so the same request with the same entropy rolls the same in both (the key's
/// holder cannot redo it), while other entropy, or another request, draws unrelated dice.
#[test]
fn a_copy_of_the_database_rolls_the_same_for_the_same_entropy_only() {
    let (dir, path, store) = crate::file_store();
    drop(store);
    let copy = dir.path().join("copy.db");
    std::fs::copy(&path, &copy).unwrap();
    std::fs::copy(
        dir.path().join("omen.db.key"),
        dir.path().join("copy.db.key"),
    )
    .unwrap();
    let mut first = omen_store::Store::open(&path).unwrap();
    let mut second = omen_store::Store::open(&copy).unwrap();
    let act = |store: &mut omen_store::Store, modifier: i64, entropy: &str| {
        let action = luck_roll(modifier);
        let options =
            omen_store::EntryOptions::default().with_draw(Some(entropy.to_string()), None);
        store
            .perform(omen_store::ActionRequest::new(CAMPAIGN, HERO, &action).with_options(options))
            .unwrap()
    };
    let a = act(&mut first, 3, "entropy-one-0001");
    let b = act(&mut second, 3, "entropy-one-0001");
    assert_eq!(a.draw_commitment, b.draw_commitment);
    assert_eq!(
        (a.seed, a.dice, a.result, a.state_after),
        (b.seed, b.dice, b.result, b.state_after)
    );
    // Two more copies of the second, all three one entry on, at the same place and draw.
    let copy_of_second = |name: &str| {
        let file = dir.path().join(format!("{name}.db"));
        std::fs::copy(&copy, &file).unwrap();
        std::fs::copy(
            dir.path().join("omen.db.key"),
            dir.path().join(format!("{name}.db.key")),
        )
        .unwrap();
        omen_store::Store::open(&file).unwrap()
    };
    // Closed first, so that its file holds every write.
    drop(second);
    let (mut third, mut fourth) = (copy_of_second("third"), copy_of_second("fourth"));
    let mut second = omen_store::Store::open(&copy).unwrap();
    let c = act(&mut second, 3, "entropy-two-0002");
    let d = act(&mut third, 4, "entropy-two-0002");
    let e = act(&mut fourth, 3, "entropy-three-03");
    assert_eq!(c.draw_commitment, d.draw_commitment);
    assert_eq!(c.draw_commitment, e.draw_commitment);
    assert_ne!(c.seed, d.seed, "another request draws another seed");
    assert_ne!(c.seed, e.seed, "other entropy draws another seed");
}

/// A chosen seed is a chosen roll: a campaign refuses it, and logs nothing.
#[test]
fn a_chosen_seed_is_refused() {
    let mut store = memory_store();
    let error = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Seed(7),
            &Limits::default(),
        )
        .unwrap_err();
    assert!(
        error.to_string().contains("no seed can be chosen"),
        "{error}"
    );
    assert_eq!(store.log(&LogFilter::default()).unwrap().len(), 1);
}

/// Dice entered by hand are logged, marked as given, with no seed.
#[test]
fn given_dice_are_marked() {
    let mut store = memory_store();
    let entry = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Given(vec![30]),
            &Limits::default(),
        )
        .unwrap();
    assert!(entry.dice_given);
    assert_eq!(entry.seed, None);
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
}

#[test]
fn a_refused_action_changes_nothing() {
    let mut store = memory_store();
    let before = store.character(CAMPAIGN, HERO).unwrap();
    let limits = Limits::default();
    let unknown = store
        .act(
            CAMPAIGN,
            HERO,
            &json!({ "action": "dance" }),
            Dice::Derived,
            &limits,
        )
        .unwrap_err();
    assert!(
        unknown.to_string().contains("no action `dance`"),
        "{unknown}"
    );
    let rules = store
        .act(CAMPAIGN, HERO, &luck_roll(99), Dice::Derived, &limits)
        .unwrap_err();
    assert!(rules.to_string().contains("outside -50..=+50"), "{rules}");
    let not_a_face = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Given(vec![51]),
            &limits,
        )
        .unwrap_err();
    assert!(
        not_a_face.to_string().contains("not a face of d50"),
        "{not_a_face}"
    );
    let too_few = store
        .act(CAMPAIGN, HERO, &luck_roll(0), Dice::Given(vec![]), &limits)
        .unwrap_err();
    assert!(matches!(too_few, StoreError::Rules(_)), "{too_few}");
    let too_many = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Given(vec![20, 30]),
            &limits,
        )
        .unwrap_err();
    assert!(
        too_many
            .to_string()
            .contains("1 given dice value(s) left unused: 30"),
        "{too_many}"
    );
    let missing = store
        .act(CAMPAIGN, "Borin", &luck_roll(0), Dice::Derived, &limits)
        .unwrap_err();
    assert!(matches!(missing, StoreError::NotFound(_)));
    assert_eq!(store.character(CAMPAIGN, HERO).unwrap(), before);
    assert_eq!(store.log(&LogFilter::default()).unwrap().len(), 1);
}

#[test]
fn actions_without_dice_change_the_state() {
    let mut store = memory_store();
    let add = json!({ "action": "add-modifier", "source": "blessing", "value": 3, "duration": "next-roll" });
    let entry = store
        .act(
            CAMPAIGN,
            HERO,
            &add,
            Dice::Given(vec![]),
            &Limits::default(),
        )
        .unwrap();
    assert!(entry.dice.is_empty());
    let state = store.character(CAMPAIGN, HERO).unwrap().state;
    assert_eq!(state["intrinsic"].as_array().unwrap().len(), 2);
    // The next roll consumes the blessing.
    store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Given(vec![25]),
            &Limits::default(),
        )
        .unwrap();
    let state = store.character(CAMPAIGN, HERO).unwrap().state;
    assert_eq!(state["intrinsic"].as_array().unwrap().len(), 1);
}

#[test]
fn odds_follow_the_current_state_without_rolling() {
    let mut store = memory_store();
    let limits = Limits::default();
    // A halfling's +2: bad luck on 1 to 8, good luck on 39 to 50.
    let odds = store.odds(CAMPAIGN, HERO, &luck_roll(0), &limits).unwrap();
    assert_eq!(odds["modifier"], 2);
    let fraction = |odds: &serde_json::Value, outcome: &str| {
        odds["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["outcome"] == outcome)
            .map(|row| row["fraction"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(fraction(&odds, "bad"), "4/25");
    assert_eq!(fraction(&odds, "good"), "6/25");
    assert_eq!(store.log(&LogFilter::default()).unwrap().len(), 1);
    // Two good rolls: a karmic −1 now.
    store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Given(vec![50]),
            &limits,
        )
        .unwrap();
    store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Given(vec![49]),
            &limits,
        )
        .unwrap();
    let odds = store.odds(CAMPAIGN, HERO, &luck_roll(0), &limits).unwrap();
    assert_eq!(odds["karmic_modifier"], -1);
    assert_eq!(odds["modifier"], 1);
    let no_odds = store
        .odds(
            CAMPAIGN,
            HERO,
            &json!({ "action": "remove-modifier", "source": "halfling" }),
            &limits,
        )
        .unwrap_err();
    assert!(
        no_odds.to_string().contains("only a roll has odds"),
        "{no_odds}"
    );
}

/// Seeds use all 64 bits; one above `i64::MAX` (half of them) is stored and exported exactly.
#[test]
fn a_seed_above_the_largest_signed_integer_is_kept_exactly() {
    let mut store = memory_store();
    let entry = (0..200)
        .map(|_| {
            store
                .act(
                    CAMPAIGN,
                    HERO,
                    &luck_roll(0),
                    Dice::Derived,
                    &Limits::default(),
                )
                .unwrap()
        })
        .find(|entry| entry.seed.unwrap() > i64::MAX as u64)
        .expect("one seed in two is above i64::MAX");
    let index = entry.sequence as usize - 1;
    assert_eq!(store.log(&LogFilter::default()).unwrap()[index], entry);
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
    assert!(store.replay(CAMPAIGN, &Limits::default()).unwrap().is_ok());
    let export = store.export_campaign(CAMPAIGN).unwrap();
    assert_eq!(export["log"][index]["seed"], json!(entry.seed.unwrap()));
}
