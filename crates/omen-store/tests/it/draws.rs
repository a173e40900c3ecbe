//! Dice no one can foresee or choose, tried from the attacker's side: a refusal that quotes dice,
//! a retry until a roll suits, a stale commitment, and guesses of hidden values against the hash.

use omen_store::draw::{Draw, EntropyFrom, commitment_of};
use omen_store::{
    Actor, Dice, EntryOptions, LogEntry, LogFilter, Role, RollRequest, Store, StoreError, Viewer,
    Visibility,
};
use serde_json::json;

use crate::{CAMPAIGN, HERO, memory_store};

/// A script that draws two d20 and then fails, quoting them: `no arm of this match matches 713`.
const PREVIEW: &str = "let a = 1d20; let b = 1d20; match a*100+b { 0 => 1 }";

fn roll_with(
    store: &mut Store,
    expression: &str,
    options: EntryOptions,
) -> Result<LogEntry, StoreError> {
    store
        .submit_roll(RollRequest::expression(CAMPAIGN, expression).with_options(options))
        .map(|(entry, _)| entry)
}

fn last(store: &Store) -> LogEntry {
    store
        .log(&LogFilter::default())
        .unwrap()
        .pop()
        .expect("an entry")
}

/// The `a*100+b` a refusal of [`PREVIEW`] quotes, if it quotes one.
fn quoted(error: &StoreError) -> Option<i64> {
    let text = error.to_string();
    let start = text.find("matches ")? + "matches ".len();
    text[start..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[test]
fn a_refusal_after_a_draw_is_logged_with_the_dice_it_quotes() {
    let mut store = memory_store();
    let error = roll_with(&mut store, PREVIEW, EntryOptions::default()).unwrap_err();
    let StoreError::Refused {
        sequence,
        error: inner,
        ..
    } = &error
    else {
        panic!("a refusal after a draw is logged: {error}");
    };
    let entry = last(&store);
    assert_eq!(entry.sequence, *sequence);
    assert_eq!(entry.inputs["kind"], "refused");
    assert_eq!(entry.action, "expression");
    assert_eq!(entry.inputs["request"]["expression"], PREVIEW);
    // The dice the refusal quotes are the dice the entry holds: no preview of anything unlogged.
    let faces: Vec<i64> = entry.dice.iter().map(|d| d.face).collect();
    assert_eq!(faces.len(), 2);
    assert_eq!(quoted(inner), Some(faces[0] * 100 + faces[1]));
    assert!(
        error
            .to_string()
            .contains(&format!("logged as entry {sequence}"))
    );
    let report = store.verify(CAMPAIGN).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    let replay = store
        .replay(CAMPAIGN, &omen_core::Limits::default())
        .unwrap();
    assert!(replay.is_ok(), "{:?}", replay.problems);
}

/// The attack of the report: preview with a refused script, then roll when it suits. The preview
/// now takes its own place in the log with its own draw, and the next roll takes the next draw:
/// what the preview showed says nothing of it.
#[test]
fn a_refusal_previews_nothing_of_the_next_entry() {
    let mut store = memory_store();
    let entropy = |text: &str| EntryOptions::default().with_draw(Some(text.to_string()), None);
    let before = store.head(CAMPAIGN).unwrap().unwrap();
    let refused = roll_with(&mut store, PREVIEW, entropy("attacker-entropy-1")).unwrap_err();
    assert!(matches!(refused, StoreError::Refused { .. }), "{refused}");
    let preview = last(&store);
    assert_eq!(preview.sequence, before.sequence + 1);
    let next = roll_with(&mut store, "2d20", entropy("attacker-entropy-1")).unwrap();
    assert_eq!(next.sequence, preview.sequence + 1);
    assert_ne!(next.draw_commitment, preview.draw_commitment);
    assert_eq!(next.draw_commitment, preview.next_draw_commitment);
    assert_ne!(
        next.draw.as_ref().unwrap().secret,
        preview.draw.as_ref().unwrap().secret
    );
}

/// Retrying until a roll suits is what a refusal after a draw would allow; the same request with
/// the same entropy against the same published draw cannot be made twice, since the first one
/// takes the draw.
#[test]
fn no_two_requests_take_one_draw() {
    let mut store = memory_store();
    let mut commitments = std::collections::HashSet::new();
    for attempt in 0..5 {
        let options =
            EntryOptions::default().with_draw(Some(format!("same-entropy-{attempt:04}")), None);
        let entry = match roll_with(&mut store, PREVIEW, options) {
            Err(StoreError::Refused { .. }) => last(&store),
            other => panic!("{other:?}"),
        };
        assert!(commitments.insert(entry.draw_commitment.clone().unwrap()));
    }
}

#[test]
fn a_request_naming_a_stale_commitment_is_refused_before_it_draws() {
    let mut store = memory_store();
    let seen = store.next_draw_commitment(CAMPAIGN).unwrap();
    let first = roll_with(
        &mut store,
        "d20",
        EntryOptions::default().with_draw(Some("fresh-entropy-01".into()), Some(seen.clone())),
    )
    .unwrap();
    assert_eq!(first.draw_commitment.as_deref(), Some(seen.as_str()));
    let entries = store.log(&LogFilter::default()).unwrap().len();
    let error = roll_with(
        &mut store,
        "d20",
        EntryOptions::default().with_draw(Some("fresh-entropy-02".into()), Some(seen)),
    )
    .unwrap_err();
    assert!(matches!(error, StoreError::Moved { .. }), "{error}");
    assert!(error.to_string().contains("moved on"), "{error}");
    assert_eq!(store.log(&LogFilter::default()).unwrap().len(), entries);
}

/// Anyone who sees an entry recomputes its seed from the draw, and the draw opens the commitment
/// the entry before it published.
#[test]
fn a_revealed_draw_recomputes_the_seed_by_hand() {
    let mut store = memory_store();
    let published = store.next_draw_commitment(CAMPAIGN).unwrap();
    let entry = roll_with(
        &mut store,
        "3d6",
        EntryOptions::default().with_draw(Some("0123456789abcdef".into()), None),
    )
    .unwrap();
    let draw: &Draw = entry.draw.as_ref().unwrap();
    assert_eq!(draw.entropy, "0123456789abcdef");
    assert_eq!(draw.entropy_from, EntropyFrom::Caller);
    assert_eq!(commitment_of(&draw.secret), published);
    let request = json!(["expression", null, "public", null, entry.inputs]);
    let seed = omen_store::draw::seed(
        entry.campaign_uid.as_deref().unwrap(),
        entry.sequence,
        &entry.previous_hash,
        draw,
        &request,
    );
    assert_eq!(entry.seed, Some(seed));
    let again = omen_store::roll_expression(
        "3d6",
        &Default::default(),
        &Dice::Seed(seed),
        &omen_core::Limits::default(),
    )
    .unwrap();
    assert_eq!(again.record.dice, entry.dice);
}

/// A blind refusal tells the roller no dice: the error names the entry and its visibility, so a
/// face can withhold the message from whoever may not see the entry.
#[test]
fn a_blind_refusal_is_logged_hidden() {
    let mut store = memory_store();
    let (_, token) = store
        .create_invite(CAMPAIGN, Role::Player, Some(HERO))
        .unwrap();
    let player = store.authenticate(&token).unwrap().unwrap();
    let options = EntryOptions::new(Visibility::Blind, Some(Actor::of(&player)));
    let error = roll_with(&mut store, PREVIEW, options).unwrap_err();
    let StoreError::Refused { visibility, .. } = error else {
        panic!("{error}");
    };
    assert_eq!(visibility, Visibility::Blind);
    let seen = store
        .log_for(&LogFilter::default(), &Viewer::Member(player))
        .unwrap()
        .pop()
        .unwrap();
    assert!(seen.redacted && seen.dice.is_empty() && seen.draw.is_none());
    assert_eq!(seen.result, serde_json::Value::Null);
}

/// The old attack on hidden values: fill the player's copy of an entry with a guess and compare its
/// hash. The hash covers the player's view and the salted commitment of the rest, so even the true
/// value does not confirm itself, and the player's copy still checks.
#[test]
fn hidden_values_cannot_be_guessed_against_the_hash() {
    let mut store = memory_store();
    let (_, token) = store.create_invite(CAMPAIGN, Role::Observer, None).unwrap();
    let observer = store.authenticate(&token).unwrap().unwrap();
    let game_master = store.log(&LogFilter::default()).unwrap();
    let seen = store
        .log_for(&LogFilter::default(), &Viewer::Member(observer))
        .unwrap();
    let (full, shown) = (&game_master[0], &seen[0]);
    assert_eq!(full.action, "create");
    assert!(full.inputs["sheet"].to_string().contains("halfling"));
    assert!(!shown.inputs["sheet"].to_string().contains("halfling"));
    assert!(shown.sealed && shown.gm_salt.is_none() && shown.gm_commitment.is_some());
    // What the observer sees checks against the hash...
    assert_eq!(shown.compute_hash(), shown.hash);
    // ...and the true hidden value, put back, does not: nothing confirms a guess.
    let mut guess = shown.clone();
    guess.inputs = full.inputs.clone();
    guess.sealed = false;
    assert_ne!(guess.compute_hash(), shown.hash);
    assert_ne!(
        guess.compute_gm_commitment(&"0".repeat(64)),
        *shown.gm_commitment.as_ref().unwrap()
    );
    let report = omen_store::verify_view(&seen, &store.public_key(CAMPAIGN).unwrap().unwrap());
    assert!(report.is_ok(), "{:?}", report.problems);
}
