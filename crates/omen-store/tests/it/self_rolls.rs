//! A `self` roll is its roller's alone: the game master never sees it, so the game master cannot
//! reveal it either (a reveal would publish its salt, and with it the roll, to the game master and
//! the table). Tried from the game master's side: refused, nothing logged, nothing of the roll in the
//! refusal. Its roller may reveal it.

use omen_store::{
    Actor, Dice, EntryOptions, LogEntry, LogFilter, Member, Role, RollRequest, Store, StoreError,
    Viewer, Visibility,
};

use crate::{CAMPAIGN, HERO};

/// `Tak` with `Ayla` owned by a player and `Bren` by another, and a game master who joined by
/// invite.
fn table() -> (Store, Member, Member, Member) {
    let mut store = crate::empty_store();
    crate::prepare(&mut store);
    store
        .create_character(CAMPAIGN, "Bren", "none", &serde_json::json!({}))
        .unwrap();
    let mut member = |role, character: Option<&str>| {
        let (_, token) = store.create_invite(CAMPAIGN, role, character).unwrap();
        store.authenticate(&token).unwrap().unwrap()
    };
    let ayla = member(Role::Player, Some(HERO));
    let bren = member(Role::Player, Some("Bren"));
    let game_master = member(Role::GameMaster, None);
    (store, ayla, bren, game_master)
}

/// `member` rolls `2d6` (as 6 and 5) with `visibility`, for their character.
fn roll_as(
    store: &mut Store,
    member: &Member,
    character: &str,
    visibility: Visibility,
) -> LogEntry {
    store
        .submit_roll(
            RollRequest::expression(CAMPAIGN, "2d6")
                .for_character(Some(character))
                .with_dice(Dice::Given(vec![6, 5]))
                .with_options(EntryOptions::new(visibility, Some(Actor::of(member)))),
        )
        .unwrap()
        .0
}

fn whole_log(store: &Store) -> Vec<LogEntry> {
    store.log(&LogFilter::default()).unwrap()
}

fn assert_refused_without_trace(
    store: &mut Store,
    attempt: impl FnOnce(&mut Store) -> Result<LogEntry, StoreError>,
    hidden: &LogEntry,
    expect: &str,
) {
    let before = whole_log(store);
    let error = attempt(store).expect_err("the reveal is refused");
    // Refused for who asks, not for the entry's state (that is a conflict) nor its shape.
    assert!(matches!(error, StoreError::Forbidden(_)), "{error:?}");
    let message = error.to_string();
    assert!(message.contains(expect), "{message}");
    let salt = hidden.salt.as_deref().expect("the store keeps the salt");
    assert!(
        !message.contains(salt),
        "the salt is in the refusal: {message}"
    );
    assert_eq!(whole_log(store), before, "the refusal logged something");
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
}

#[test]
fn the_game_master_cannot_reveal_a_self_roll() {
    let (mut store, ayla, _, game_master) = table();
    let secret = roll_as(&mut store, &ayla, HERO, Visibility::SelfOnly);
    assert_eq!(secret.visibility, Visibility::SelfOnly);
    // The game master does not see it...
    let seen = store
        .log_for(&LogFilter::default(), &Viewer::Member(game_master.clone()))
        .unwrap();
    assert!(seen[secret.sequence as usize - 1].redacted);
    // ...so neither the game master at the database nor the one who joined by invite reveals it.
    let only_roller = "only its roller may reveal it";
    assert_refused_without_trace(
        &mut store,
        |store| store.reveal(CAMPAIGN, secret.sequence),
        &secret,
        only_roller,
    );
    assert_refused_without_trace(
        &mut store,
        |store| store.reveal_as(CAMPAIGN, secret.sequence, &Viewer::GameMaster),
        &secret,
        only_roller,
    );
    assert_refused_without_trace(
        &mut store,
        |store| store.reveal_as(CAMPAIGN, secret.sequence, &Viewer::Member(game_master)),
        &secret,
        only_roller,
    );
    // Its roller does; then everyone sees it, and the log verifies.
    let reveal = store
        .reveal_as(CAMPAIGN, secret.sequence, &Viewer::Member(ayla.clone()))
        .unwrap();
    assert_eq!(reveal.action, "reveal");
    assert_eq!(reveal.actor, Some(Actor::of(&ayla).as_text()));
    assert_eq!(reveal.inputs["salt"].as_str(), secret.salt.as_deref());
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
}

/// Another player cannot reveal a `self` roll either, and a player cannot reveal what is the game
/// master's to reveal (a blind roll, which its roller never saw).
#[test]
fn a_player_reveals_only_their_own_self_rolls() {
    let (mut store, ayla, bren, game_master) = table();
    let secret = roll_as(&mut store, &ayla, HERO, Visibility::SelfOnly);
    let bren_viewer = Viewer::Member(bren.clone());
    assert_refused_without_trace(
        &mut store,
        |store| store.reveal_as(CAMPAIGN, secret.sequence, &bren_viewer),
        &secret,
        "only its roller may reveal it",
    );
    let blind = roll_as(&mut store, &bren, "Bren", Visibility::Blind);
    assert_refused_without_trace(
        &mut store,
        |store| store.reveal_as(CAMPAIGN, blind.sequence, &bren_viewer),
        &blind,
        "only the game master may reveal it",
    );
    // The game master's own self roll is the game master's to reveal.
    let own = roll_as(&mut store, &game_master, "Bren", Visibility::SelfOnly);
    assert_refused_without_trace(
        &mut store,
        |store| store.reveal_as(CAMPAIGN, own.sequence, &Viewer::GameMaster),
        &own,
        "only its roller may reveal it",
    );
    store
        .reveal_as(CAMPAIGN, own.sequence, &Viewer::Member(game_master))
        .unwrap();
    store.reveal(CAMPAIGN, blind.sequence).unwrap();
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
}
