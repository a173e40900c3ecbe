//! The fairness report: fair seeded dice pass, loaded dice are flagged, a handful of rolls is too few.

use omen_core::{ChaChaDice, Die, DieSource};
use omen_store::{
    Dice, EntryOptions, LogFilter, Member, Role, RollRequest, Store, Verdict, Viewer, Visibility,
    session_bounds,
};
use serde_json::json;

const CAMPAIGN: &str = "Tak";

fn store() -> Store {
    let mut store = crate::empty_store();
    store.create_campaign(CAMPAIGN).unwrap();
    store
        .create_character(CAMPAIGN, "Cato", "none", &json!({}))
        .unwrap();
    store
}

/// Rolls `expression` once with `faces` given, for Cato.
fn roll(store: &mut Store, expression: &str, faces: Vec<i64>, visibility: Visibility) {
    store
        .submit_roll(
            RollRequest::expression(CAMPAIGN, expression)
                .for_character(Some("Cato"))
                .with_dice(Dice::Given(faces))
                .with_options(EntryOptions::new(visibility, None)),
        )
        .unwrap();
}

/// Faces of a fair d6 from a fixed seed: the same every run, so the test cannot flicker.
fn fair_faces(seed: u64, count: usize) -> Vec<i64> {
    let mut dice = ChaChaDice::from_seed(seed);
    (0..count)
        .map(|_| dice.roll(&Die::Standard(6)).unwrap())
        .collect()
}

fn all() -> LogFilter {
    LogFilter::default()
}

#[test]
fn fair_seeded_dice_are_consistent_with_fair_dice() {
    let mut store = store();
    for chunk in fair_faces(11, 600).chunks(3) {
        roll(&mut store, "3d6", chunk.to_vec(), Visibility::Public);
    }
    let report = store.fairness(CAMPAIGN, &all()).unwrap();
    let d6 = &report.whole.dice[0];
    assert_eq!(d6.die, "d6");
    assert_eq!(d6.rolled, 600);
    assert_eq!(d6.given, 600);
    assert_eq!(d6.faces.len(), 6);
    assert_eq!(d6.faces[0].probability, "1/6");
    assert!(
        matches!(d6.verdict, Verdict::Consistent { .. }),
        "{}",
        d6.summary
    );
    assert!(d6.summary.starts_with("consistent with fair dice"));
    let mechanic = &report.whole.mechanics[0];
    assert_eq!(mechanic.mechanic, "3d6");
    assert_eq!(mechanic.rolls, 200);
    // The exact distribution of 3d6: 16 outcomes, P(10) = 27/216 = 1/8.
    assert_eq!(mechanic.outcomes.len(), 16);
    let ten = mechanic
        .outcomes
        .iter()
        .find(|o| o.outcome == json!(10))
        .unwrap();
    assert_eq!(ten.probability, "1/8");
    let fit = mechanic.fit.as_ref().unwrap();
    assert!(fit.pooled, "3d6's tails expect fewer than 5 in 200 rolls");
    assert!(
        matches!(mechanic.verdict, Verdict::Consistent { .. }),
        "{}",
        mechanic.summary
    );
    assert!(!report.whole.is_suspicious());
    assert_eq!(report.sessions.len(), 1);
    assert_eq!(report.sessions[0].section, report.whole);
}

#[test]
fn loaded_dice_given_by_hand_are_flagged() {
    let mut store = store();
    // A d6 that shows 6 far too often: every third roll is forced to 6.
    let loaded: Vec<i64> = fair_faces(5, 300)
        .into_iter()
        .enumerate()
        .map(|(i, face)| if i % 3 == 0 { 6 } else { face })
        .collect();
    for face in loaded {
        roll(&mut store, "1d6", vec![face], Visibility::Public);
    }
    let report = store.fairness(CAMPAIGN, &all()).unwrap();
    let d6 = &report.whole.dice[0];
    assert!(
        matches!(d6.verdict, Verdict::Suspicious { .. }),
        "{}",
        d6.summary
    );
    assert!(d6.summary.starts_with("suspicious: p = "), "{}", d6.summary);
    assert!(d6.fit.as_ref().unwrap().p_value < 1e-6);
    assert!(report.whole.mechanics[0].verdict.is_suspicious());
    assert!(report.whole.is_suspicious());
}

#[test]
fn a_face_a_die_does_not_have_is_impossible() {
    let mut store = store();
    for face in [1, 2, 3] {
        roll(&mut store, "1dF", vec![face - 2], Visibility::Public);
    }
    let report = store.fairness(CAMPAIGN, &all()).unwrap();
    assert_eq!(report.whole.dice[0].die, "dF");
    assert!(matches!(
        report.whole.dice[0].verdict,
        Verdict::TooFew { .. }
    ));
}

#[test]
fn a_handful_of_rolls_is_too_few_to_tell() {
    let mut store = store();
    for face in [6, 6, 6, 6, 6] {
        roll(&mut store, "1d20", vec![face], Visibility::Public);
    }
    let report = store.fairness(CAMPAIGN, &all()).unwrap();
    let d20 = &report.whole.dice[0];
    assert!(
        matches!(d20.verdict, Verdict::TooFew { .. }),
        "{}",
        d20.summary
    );
    assert!(
        d20.summary.starts_with("too few rolls to tell"),
        "{}",
        d20.summary
    );
    // An empty selection has nothing to say.
    let (since, until) = session_bounds("2001-01-01").unwrap();
    let empty = store
        .fairness(
            CAMPAIGN,
            &LogFilter {
                since: Some(since),
                until: Some(until),
                ..all()
            },
        )
        .unwrap();
    assert!(empty.whole.dice.is_empty() && empty.sessions.is_empty());
    assert!(session_bounds("yesterday").is_err());
}

#[test]
fn hidden_rolls_count_for_the_game_master_only() {
    let mut store = store();
    for face in fair_faces(3, 40) {
        roll(&mut store, "1d6", vec![face], Visibility::Blind);
    }
    roll(&mut store, "1d6", vec![2], Visibility::Public);
    let gm = store.fairness(CAMPAIGN, &all()).unwrap();
    assert_eq!(gm.whole.dice[0].rolled, 41);
    let player = Viewer::Member(Member {
        campaign: CAMPAIGN.to_string(),
        role: Role::Player,
        characters: vec!["Cato".to_string()],
        invite_id: 0,
    });
    let seen = store.fairness_for(CAMPAIGN, &all(), &player).unwrap();
    assert_eq!(seen.whole.dice[0].rolled, 1);
    assert_eq!(seen.whole.rolls, 1);
}
