//! Seed 003's zero-dot rules (003-M6) when others roll a stored character: a contest, working together
//! and a sneak against Passive Perception take the same rules as the character's own check.
//! Seed 003: a test named `m6_…` covers 003-M6.

use omen_core::{Distribution, Limits, Probability, ScriptedDice, Weight};
use omen_rules::hprpg::game::HprpgState;
use omen_rules::hprpg::{Check, Contest, ContestNets, HprpgOptions, Teamwork};
use omen_rules::stateful;
use serde_json::json;

/// Rook: PRECISION 1, FITNESS 2, BRAWL 1; COVERT (PRACTICAL), HISTORY (KNOWLEDGE) and ALERTNESS
/// (INNATE) at 0 dots.
fn rook() -> serde_json::Value {
    stateful::game("hprpg")
        .unwrap()
        .new_character(&json!({ "sheet": {
            "aspects": { "FITNESS": 2, "CHARM": 1, "INTELLIGENCE": 1, "PRECISION": 1,
                         "DECEPTION": 1, "WILLPOWER": 1, "VITALITY": 1, "INSIGHT": 1,
                         "PERCEPTION": 1 },
            "abilities": { "BRAWL": 1 }
        }}))
        .unwrap()
}

fn state() -> HprpgState {
    serde_json::from_value(rook()).unwrap()
}

fn check(pool: u64, difficulty: i64) -> Check {
    Check::new(
        pool,
        difficulty,
        1,
        0,
        &HprpgOptions::default(),
        &Limits::default(),
    )
    .unwrap()
}

/// One d12's net against `difficulty` with catastrophes on 1.
fn die_net(face: i64, difficulty: i64) -> i64 {
    i64::from(face >= difficulty) - i64::from(face == 1)
}

/// The distribution of `f` over every pair of faces of two d12s, counted one by one.
fn enumerate(f: impl Fn(i64, i64) -> i64) -> Distribution<i64> {
    let mut counts = std::collections::BTreeMap::new();
    for a in 1..=12 {
        for b in 1..=12 {
            *counts.entry(f(a, b)).or_insert(0u32) += 1;
        }
    }
    Distribution::from_weights(counts.into_iter().map(|(k, n)| (k, Weight::from(n)))).unwrap()
}

/// The same outcomes with the same probabilities.
fn same_odds(a: &Distribution<i64>, b: &Distribution<i64>) {
    let outcomes = |d: &Distribution<i64>| d.outcomes().copied().collect::<Vec<_>>();
    assert_eq!(outcomes(a), outcomes(b));
    for outcome in outcomes(a) {
        assert_eq!(
            a.probability(&outcome),
            b.probability(&outcome),
            "{outcome}"
        );
    }
}

fn fraction(n: u32, d: u32) -> Probability {
    Probability::new(Weight::from(n), Weight::from(d))
}

/// 003-M6 as the character's own check decides it: COVERT at 0 is PRACTICAL (DV + 2), ALERTNESS at 0
/// is INNATE (nothing), HISTORY at 0 is KNOWLEDGE (no roll); a rated ability changes nothing.
#[test]
fn m6_a_stored_characters_roll_takes_the_zero_dot_rules_of_a_check() {
    let rook = state();
    let covert = rook.roll_of("PRECISION", "covert").unwrap();
    assert_eq!((covert.pool, covert.difficulty_change), (1, 2));
    assert_eq!(covert.zero_dot_rule, Some("practical-plus-two"));
    let alertness = rook.roll_of("FITNESS", "ALERTNESS").unwrap();
    assert_eq!((alertness.pool, alertness.difficulty_change), (2, 0));
    let brawl = rook.roll_of("FITNESS", "BRAWL").unwrap();
    assert_eq!((brawl.pool, brawl.difficulty_change), (3, 0));
    assert_eq!(brawl.zero_dot_rule, None);
    let history = rook.roll_of("FITNESS", "HISTORY").unwrap_err();
    assert!(
        history.contains("HISTORY is a KNOWLEDGE ability with 0 dots"),
        "{history}"
    );
    assert!(history.contains("(003-M6)"), "{history}");
    // The character's own check of PRECISION + COVERT at DV 8: the same pool and DV 10.
    let own = stateful::game("hprpg")
        .unwrap()
        .odds(
            &rook_value(),
            &json!({ "action": "check", "aspect": "PRECISION", "ability": "COVERT",
                     "difficulty": 8 }),
            &Limits::default(),
        )
        .unwrap();
    assert_eq!(own["pool"], 1);
    assert_eq!(own["difficulty"], 8 + covert.difficulty_change);
}

fn rook_value() -> serde_json::Value {
    rook()
}

/// A contest at DV 8: Rook's PRECISION + COVERT (1 die, DV 10 by 003-M6) against a resistor's 1 die.
/// By hand, each net floored at 0 (003-A6): Rook succeeds on 10..12 (3/12), the resistor on 8..12
/// (5/12); margin 1 = 3/12 × 7/12 = 7/48, margin −1 = 9/12 × 5/12 = 5/16, else 0 (13/24). Without the
/// rule it would be margin 1 with 5/12 × 7/12 = 35/144.
#[test]
fn m6_a_contest_of_a_stored_practical_ability_at_zero_rolls_against_dv_plus_two() {
    let limits = Limits::default();
    let covert = state().roll_of("PRECISION", "COVERT").unwrap();
    let contest = Contest {
        instigator: check(covert.pool, 8 + covert.difficulty_change),
        resistor: check(1, 8),
        nets: ContestNets::Floor,
    };
    let margins = contest.margin_distribution(&limits).unwrap();
    assert_eq!(margins.probability(&1), fraction(7, 48));
    assert_eq!(margins.probability(&-1), fraction(5, 16));
    assert_eq!(margins.probability(&0), fraction(13, 24));
    same_odds(
        &margins,
        &enumerate(|a, b| die_net(a, 10).max(0) - die_net(b, 8).max(0)),
    );
    let rolled = contest.roll(&mut ScriptedDice::new(vec![9, 7])).unwrap();
    // A 9 meets DV 8 but not the 10 the rule asks for.
    assert_eq!(rolled.margin, 0);
}

/// Working together at DV 8: a helper's 1 die and Rook's PRECISION + COVERT (1 die at DV 10). By
/// hand, per die success / catastrophe / blank: 5, 1, 6 and 3, 1, 8 twelfths; net 2: 15/144, 1: 58/144,
/// 0: 56/144, −1: 14/144, −2: 1/144.
#[test]
fn m6_working_together_rolls_each_stored_helper_with_its_own_zero_dot_rule() {
    let limits = Limits::default();
    let covert = state().roll_of("PRECISION", "COVERT").unwrap();
    let team = Teamwork::new(vec![
        check(1, 8),
        check(covert.pool, 8 + covert.difficulty_change),
    ])
    .unwrap();
    let nets = team.net_distribution(&limits).unwrap();
    for (net, count) in [(2, 15), (1, 58), (0, 56), (-1, 14), (-2, 1)] {
        assert_eq!(nets.probability(&net), fraction(count, 144), "net {net}");
    }
    same_odds(&nets, &enumerate(|a, b| die_net(a, 8) + die_net(b, 10)));
}

/// A sneak against Passive Perception: Rook's PERCEPTION 1 + ALERTNESS 0 (INNATE: no penalty) makes
/// DV 1; a sneaker of PRECISION 1 + COVERT 0 rolls 1 die at 1 + 2 = 3 (the 2 added before the clamp,
/// as a check adds it) and is revealed on net ≤ 0: faces 1 and 2, 1/6 (at DV 1, clamped to 2, only
/// the 1: 1/12).
#[test]
fn m6_a_sneak_of_a_practical_ability_at_zero_adds_two_to_passive_perception() {
    let rook = state();
    let (perception, alertness) = rook.perception_ratings();
    let watch = omen_rules::hprpg::passive_perception(perception, alertness);
    assert_eq!(watch, 1);
    let sneak = rook.roll_of("PRECISION", "COVERT").unwrap();
    let check = check(sneak.pool, watch + sneak.difficulty_change);
    assert_eq!(check.difficulty(), 3);
    let degrees = check.degree_distribution(&Limits::default()).unwrap();
    let revealed = degrees.probability_where(|&d| omen_rules::hprpg::sneaker_revealed(d));
    assert_eq!(revealed, fraction(1, 6));
}
