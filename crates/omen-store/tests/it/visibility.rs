//! Hidden rolls: committed in the chain, kept for the game master, listed for each viewer as they may
//! see them, revealed later and checked against their commitment.

use omen_core::Limits;
use omen_store::{
    ActionRequest, Actor, Dice, EntryOptions, LogEntry, LogFilter, Member, Role, RollRequest,
    Store, StoreError, Viewer, Visibility,
};
use serde_json::{Value, json};

use crate::{CAMPAIGN, HERO, luck_roll, memory_store};

/// A recognisable hidden value: the source of a game-master-only luck modifier.
const PLANTED: &str = "KOBOLD-CURSE-7731";

/// `Tak` with `Ayla` (luck, carrying a planted hidden modifier) owned by one player, `Bren` (plain)
/// owned by another, and an observer.
fn table() -> (Store, Member, Member, Member) {
    let mut store = crate::empty_store();
    store.create_campaign(CAMPAIGN).unwrap();
    let sheet = json!({ "intrinsic": [{ "source": PLANTED, "value": 3 }] });
    store
        .create_character(CAMPAIGN, HERO, "luck", &sheet)
        .unwrap();
    store
        .create_character(CAMPAIGN, "Bren", "none", &json!({}))
        .unwrap();
    let mut member = |role, character: Option<&str>| {
        let (_, token) = store.create_invite(CAMPAIGN, role, character).unwrap();
        store.authenticate(&token).unwrap().unwrap()
    };
    let ayla = member(Role::Player, Some(HERO));
    let bren = member(Role::Player, Some("Bren"));
    let observer = member(Role::Observer, None);
    (store, ayla, bren, observer)
}

fn roll(
    store: &mut Store,
    character: &str,
    expression: &str,
    dice: Vec<i64>,
    visibility: Visibility,
    actor: Option<Actor>,
) -> LogEntry {
    store
        .submit_roll(
            RollRequest::expression(CAMPAIGN, expression)
                .for_character(Some(character))
                .with_dice(Dice::Given(dice))
                .with_options(EntryOptions::new(visibility, actor)),
        )
        .unwrap()
        .0
}

fn seen(store: &Store, viewer: &Viewer, sequence: u64) -> LogEntry {
    store
        .log_for(&LogFilter::default(), viewer)
        .unwrap()
        .into_iter()
        .find(|e| e.sequence == sequence)
        .unwrap()
}

fn all() -> LogFilter {
    LogFilter::default()
}

#[test]
fn a_hidden_entry_commits_to_its_content_and_the_chain_verifies() {
    let (mut store, ayla, ..) = table();
    let entry = roll(
        &mut store,
        "Bren",
        "3d6",
        vec![6, 6, 6],
        Visibility::Blind,
        Some(Actor::of(&ayla)),
    );
    assert_eq!(entry.version, 4);
    assert_eq!(entry.visibility, Visibility::Blind);
    let salt = entry.salt.clone().unwrap();
    assert_eq!(salt.len(), 64, "256 bits of salt");
    assert_eq!(
        entry.commitment.as_deref(),
        Some(entry.compute_commitment(&salt).as_str())
    );
    // The hash covers the commitment, not the content: the content can go and the hash still holds.
    let mut stripped = entry.clone();
    stripped.result = Value::Null;
    stripped.dice.clear();
    assert_eq!(stripped.compute_hash(), entry.hash);
    let mut recommitted = entry.clone();
    recommitted.commitment = Some("0".repeat(64));
    assert_ne!(recommitted.compute_hash(), entry.hash);
    // The game master's store keeps the content; verify and replay check it.
    assert_eq!(store.log(&all()).unwrap().last().unwrap().result, json!(18));
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
    let replay = store.replay(CAMPAIGN, &Limits::default()).unwrap();
    assert!(replay.is_ok(), "{:?}", replay.problems);
}

#[test]
fn public_entries_without_an_actor_name_no_visibility() {
    let mut store = memory_store();
    let entry = store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(entry.version, 4);
    let shown = serde_json::to_value(&entry).unwrap();
    for key in ["visibility", "actor", "commitment", "salt", "redacted"] {
        assert!(shown.get(key).is_none(), "{key} in {shown}");
    }
    let exported = store.export_campaign(CAMPAIGN).unwrap();
    assert!(exported["log"][1].get("visibility").is_none());
}

#[test]
fn each_viewer_sees_what_the_visibility_allows() {
    let (mut store, ayla, bren, observer) = table();
    let public = roll(&mut store, "Bren", "1d6", vec![4], Visibility::Public, None).sequence;
    let private = roll(
        &mut store,
        "Bren",
        "1d6",
        vec![5],
        Visibility::Private,
        None,
    )
    .sequence;
    let blind = roll(&mut store, "Bren", "1d6", vec![2], Visibility::Blind, None).sequence;
    let own = roll(
        &mut store,
        "Bren",
        "1d6",
        vec![1],
        Visibility::SelfOnly,
        Some(Actor::of(&bren)),
    )
    .sequence;
    let gm = Viewer::GameMaster;
    let roller = Viewer::Member(bren.clone());
    let other = Viewer::Member(ayla.clone());
    let watcher = Viewer::Member(observer.clone());
    let shows = |viewer: &Viewer, sequence: u64| {
        let entry = seen(&store, viewer, sequence);
        assert_eq!(entry.redacted, entry.result.is_null(), "{entry:?}");
        !entry.result.is_null()
    };
    for viewer in [&gm, &roller, &other, &watcher] {
        assert!(shows(viewer, public));
    }
    assert!(shows(&gm, private) && shows(&roller, private));
    assert!(!shows(&other, private) && !shows(&watcher, private));
    assert!(shows(&gm, blind));
    assert!(!shows(&roller, blind) && !shows(&other, blind) && !shows(&watcher, blind));
    assert!(shows(&roller, own));
    assert!(!shows(&gm, own) && !shows(&other, own) && !shows(&watcher, own));
    // A stream resumes after the last entry it sent.
    let after = store.log_for_after(&all(), blind, &roller).unwrap();
    assert_eq!(
        after.iter().map(|e| e.sequence).collect::<Vec<_>>(),
        vec![own]
    );
    // A member sees only their own campaign, whatever the filter says; every entry keeps its place.
    store.create_campaign("Elsewhere").unwrap();
    let listed = store.log_for(&all(), &roller).unwrap();
    assert!(listed.iter().all(|e| e.campaign == CAMPAIGN));
    let numbers: Vec<u64> = listed.iter().map(|e| e.sequence).collect();
    assert_eq!(numbers, (1..=numbers.len() as u64).collect::<Vec<_>>());
    // The salt of an unrevealed entry is the game master's only.
    assert!(seen(&store, &roller, private).salt.is_none());
    assert!(seen(&store, &gm, private).salt.is_some());
}

#[test]
fn a_redacted_blind_roll_gives_away_no_dice_count_size_or_length() {
    let (mut store, _, bren, _) = table();
    let small = roll(&mut store, "Bren", "1d4", vec![1], Visibility::Blind, None).sequence;
    let big = roll(
        &mut store,
        "Bren",
        "12d20 + 7",
        vec![20; 12],
        Visibility::Blind,
        None,
    )
    .sequence;
    let viewer = Viewer::Member(bren);
    // Blank what differs between any two entries (their place and their hashes): what is left of
    // the two rolls must be identical.
    let blank = |sequence: u64| {
        let mut value = serde_json::to_value(seen(&store, &viewer, sequence)).unwrap();
        for key in [
            "sequence",
            "time",
            "hash",
            "previous_hash",
            "signature",
            "commitment",
            // Fresh random commitments of each entry's draw and the next: public, and no function
            // of the roll.
            "draw_commitment",
            "next_draw_commitment",
        ] {
            value[key] = Value::Null;
        }
        value.to_string()
    };
    assert_eq!(blank(small), blank(big));
    let shown = seen(&store, &viewer, big);
    assert!(shown.dice.is_empty() && shown.seed.is_none() && shown.salt.is_none());
    assert_eq!(shown.inputs, json!({ "kind": "hidden" }));
    assert!(shown.summary.contains("blind"), "{}", shown.summary);
    let text = serde_json::to_string(&shown).unwrap();
    // Quoted: the expression as a JSON string (hashes are hex and may hold it by chance).
    assert!(!text.contains("\"12d20"), "{text}");
}

#[test]
fn a_reveal_opens_the_commitment_for_everyone() {
    let (mut store, _, bren, observer) = table();
    let hidden = roll(
        &mut store,
        "Bren",
        "2d6",
        vec![3, 4],
        Visibility::Blind,
        None,
    );
    let watcher = Viewer::Member(observer);
    assert!(seen(&store, &watcher, hidden.sequence).redacted);
    let reveal = store.reveal(CAMPAIGN, hidden.sequence).unwrap();
    assert_eq!(reveal.action, "reveal");
    assert_eq!(reveal.inputs["sequence"], hidden.sequence);
    assert_eq!(reveal.actor.as_deref(), Some("gm"));
    assert_eq!(reveal.character.as_deref(), Some("Bren"));
    let opened = seen(&store, &watcher, hidden.sequence);
    assert!(!opened.redacted);
    assert_eq!(opened.result, json!(7));
    let salt = opened.salt.clone().expect("the salt is given out");
    assert_eq!(
        Some(opened.compute_commitment(&salt)),
        opened.commitment,
        "anyone can check the revealed content"
    );
    assert_eq!(opened.compute_hash(), opened.hash);
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
    let replay = store.replay(CAMPAIGN, &Limits::default()).unwrap();
    assert!(replay.is_ok(), "{:?}", replay.problems);
    let again = store.reveal(CAMPAIGN, hidden.sequence).unwrap_err();
    assert!(again.to_string().contains("revealed already"), "{again}");
    // The entry's state refuses these, not their shape: conflicts (the server's 409).
    assert!(matches!(again, StoreError::Conflict(_)), "{again:?}");
    let public = roll(&mut store, "Bren", "1d6", vec![1], Visibility::Public, None);
    let refused = store.reveal(CAMPAIGN, public.sequence).unwrap_err();
    assert!(refused.to_string().contains("not hidden"), "{refused}");
    assert!(matches!(refused, StoreError::Conflict(_)), "{refused:?}");
    assert!(matches!(
        store.reveal(CAMPAIGN, 999),
        Err(StoreError::NotFound(_))
    ));
    // Revealed entries and their reveals survive an export and an import that verifies them.
    let export = store.export_campaign(CAMPAIGN).unwrap();
    let mut other = crate::empty_store();
    other.import_campaign(&export, None).unwrap();
    assert!(other.verify(CAMPAIGN).unwrap().is_ok());
    let _ = bren;
}

#[test]
fn hidden_content_changed_after_the_roll_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("omen.db");
    let mut store = Store::open(&path).unwrap();
    store.create_campaign(CAMPAIGN).unwrap();
    store
        .create_character(CAMPAIGN, "Bren", "none", &json!({}))
        .unwrap();
    let hidden = roll(
        &mut store,
        "Bren",
        "1d20",
        vec![3],
        Visibility::Private,
        None,
    );
    let conn = crate::raw(&path);
    conn.execute(
        "UPDATE roll_log SET result = '20', dice = '[{\"die\":\"d20\",\"sides\":20,\"face\":20}]' WHERE sequence = ?1",
        [hidden.sequence as i64],
    )
    .unwrap();
    let report = store.verify(CAMPAIGN).unwrap();
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.sequence == Some(hidden.sequence) && p.problem.contains("commitment")),
        "{:?}",
        report.problems
    );
    // Making a hidden entry public behind the log's back is caught too.
    conn.execute(
        "UPDATE roll_log SET visibility = 'public' WHERE sequence = ?1",
        [hidden.sequence as i64],
    )
    .unwrap();
    assert!(!store.verify(CAMPAIGN).unwrap().is_ok());
    // And a reveal whose salt does not open the commitment.
    conn.execute(
        "UPDATE roll_log SET visibility = 'private', result = '3', dice = '[{\"die\":\"d20\",\"sides\":20,\"face\":3}]' WHERE sequence = ?1",
        [hidden.sequence as i64],
    )
    .unwrap();
    assert!(store.verify(CAMPAIGN).unwrap().is_ok());
    let reveal = store.reveal(CAMPAIGN, hidden.sequence).unwrap();
    let mut inputs = reveal.inputs.clone();
    inputs["salt"] = json!("00".repeat(32));
    conn.execute(
        "UPDATE roll_log SET inputs = ?1 WHERE sequence = ?2",
        rusqlite::params![inputs.to_string(), reveal.sequence as i64],
    )
    .unwrap();
    let report = store.verify(CAMPAIGN).unwrap();
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.sequence == Some(reveal.sequence) && p.problem.contains("salt")),
        "{:?}",
        report.problems
    );
}

#[test]
fn game_master_only_fields_never_reach_a_player_or_an_observer() {
    let (mut store, ayla, _, observer) = table();
    store
        .perform(
            ActionRequest::new(CAMPAIGN, HERO, &luck_roll(-5))
                .with_dice(Dice::Given(vec![30]))
                .with_options(EntryOptions::new(
                    Visibility::Public,
                    Some(Actor::of(&ayla)),
                )),
        )
        .unwrap();
    store
        .act(
            CAMPAIGN,
            HERO,
            &json!({ "action": "add-modifier", "source": PLANTED, "value": 4 }),
            Dice::Derived,
            &Limits::default(),
        )
        .unwrap();
    let gm = serde_json::to_string(&store.log_for(&all(), &Viewer::GameMaster).unwrap()).unwrap();
    assert!(gm.contains(PLANTED));
    for member in [ayla, observer] {
        let entries = store.log_for(&all(), &Viewer::Member(member)).unwrap();
        let text = serde_json::to_string(&entries).unwrap();
        assert!(!text.contains(PLANTED), "{text}");
        assert!(!text.contains("karmic_modifier"), "{text}");
        assert!(!text.contains("intrinsic"), "{text}");
        let rolled = entries.iter().find(|e| e.action == "roll").unwrap();
        assert!(rolled.redacted);
        assert_eq!(rolled.result["die"], 30);
        assert!(rolled.result.get("modifier").is_none());
    }
}

#[test]
fn entry_for_redacts_an_answer_for_the_member_who_made_it() {
    let (mut store, _, bren, _) = table();
    let entry = roll(
        &mut store,
        "Bren",
        "1d6",
        vec![6],
        Visibility::Blind,
        Some(Actor::of(&bren)),
    );
    let answer = store.entry_for(entry, &Viewer::Member(bren)).unwrap();
    assert!(answer.redacted && answer.dice.is_empty() && answer.result.is_null());
}

#[test]
fn a_players_export_withholds_what_they_may_not_see_and_cannot_be_imported() {
    let (mut store, ayla, bren, _) = table();
    roll(
        &mut store,
        "Bren",
        "4d8",
        vec![8, 8, 8, 7],
        Visibility::Blind,
        None,
    );
    let full = store.export_campaign(CAMPAIGN).unwrap().to_string();
    assert!(full.contains(PLANTED));
    for member in [ayla, bren] {
        let export = store
            .export_campaign_for(CAMPAIGN, &Viewer::Member(member))
            .unwrap();
        assert_eq!(export["redacted_for"], "player");
        let text = export.to_string();
        assert!(!text.contains(PLANTED), "{text}");
        // Quoted on both sides: the expression as a whole JSON string (hashes and identities are
        // hex and may begin with it by chance).
        assert!(!text.contains("\"4d8\""), "{text}");
        assert!(!text.contains("\"salt\""), "{text}");
        let mut other = crate::empty_store();
        let refused = other.import_campaign(&export, None).unwrap_err();
        assert!(
            refused.to_string().contains("cannot be verified"),
            "{refused}"
        );
    }
    let gm = store
        .export_campaign_for(CAMPAIGN, &Viewer::GameMaster)
        .unwrap();
    assert_eq!(gm["redacted_for"], "gm");
    assert!(gm.to_string().contains(PLANTED));
}

#[test]
fn a_player_checks_the_chain_without_seeing_the_hidden_rolls() {
    let (mut store, ayla, bren, observer) = table();
    store
        .act(
            CAMPAIGN,
            HERO,
            &luck_roll(0),
            Dice::Given(vec![12]),
            &Limits::default(),
        )
        .unwrap();
    let revealed = roll(
        &mut store,
        "Bren",
        "2d6",
        vec![1, 2],
        Visibility::Private,
        None,
    );
    roll(&mut store, "Bren", "1d6", vec![3], Visibility::Blind, None);
    store.reveal(CAMPAIGN, revealed.sequence).unwrap();
    let key = store.public_key(CAMPAIGN).unwrap().unwrap();
    for member in [ayla, bren, observer] {
        let seen = store.log_for(&all(), &Viewer::Member(member)).unwrap();
        let report = omen_store::verify_view(&seen, &key);
        assert!(report.is_ok(), "{:?}", report.problems);
        assert_eq!(report.entries, seen.len() as u64);
        // Luck's hidden modifiers are withheld, and sealed: the player checks the hash of what they
        // see, and the game master's part is behind a salted commitment.
        assert!(
            seen.iter().any(|e| e.redacted && e.sealed),
            "luck's hidden modifiers"
        );
        assert_eq!(report.commitments_checked, 1, "the revealed roll");
        // A hidden entry whose commitment was swapped, or a revealed one whose result was changed,
        // is caught without the game master's help.
        let blind = seen
            .iter()
            .position(|e| e.visibility == Visibility::Blind)
            .unwrap();
        let mut swapped = seen.clone();
        swapped[blind].commitment = Some("ab".repeat(32));
        assert!(!omen_store::verify_view(&swapped, &key).is_ok());
        let open = seen
            .iter()
            .position(|e| e.sequence == revealed.sequence)
            .unwrap();
        let mut changed = seen.clone();
        changed[open].result = json!(12);
        assert!(!omen_store::verify_view(&changed, &key).is_ok());
        let mut cut = seen.clone();
        cut.remove(2);
        assert!(!omen_store::verify_view(&cut, &key).is_ok());
    }
    let gm = store.log_for(&all(), &Viewer::GameMaster).unwrap();
    let report = omen_store::verify_view(&gm, &key);
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.content_withheld, 0);
    assert_eq!(report.commitments_checked, 2);
}

#[test]
fn states_after_an_unseen_roll_do_not_carry_its_outcome_to_a_player() {
    let (mut store, ayla, ..) = table();
    let luck = |store: &mut Store, face: i64, visibility| {
        store
            .perform(
                ActionRequest::new(CAMPAIGN, HERO, &luck_roll(0))
                    .with_dice(Dice::Given(vec![face]))
                    .with_options(EntryOptions::new(visibility, None)),
            )
            .unwrap()
            .sequence
    };
    let before = luck(&mut store, 25, Visibility::Public);
    let blind = luck(&mut store, 50, Visibility::Blind);
    let after = luck(&mut store, 25, Visibility::Public);
    let viewer = Viewer::Member(ayla);
    assert!(seen(&store, &viewer, before).state_after.is_some());
    let shown = seen(&store, &viewer, after);
    assert!(shown.state_before.is_none() && shown.state_after.is_none());
    assert!(shown.redacted);
    assert_eq!(shown.result["die"], 25, "the roll itself is still shown");
    // The game master sees every state; after a reveal the player does too.
    assert!(
        seen(&store, &Viewer::GameMaster, after)
            .state_before
            .is_some()
    );
    store.reveal(CAMPAIGN, blind).unwrap();
    assert!(seen(&store, &viewer, after).state_before.is_some());
    let key = store.public_key(CAMPAIGN).unwrap().unwrap();
    let report = omen_store::verify_view(&store.log_for(&all(), &viewer).unwrap(), &key);
    assert!(report.is_ok(), "{:?}", report.problems);
}
