//! Omen's seed rule sets: one module per seed game, all listed in one [`registry`] behind the
//! [`RuleSet`] trait. Every probability is exact (a fraction from `omen-core`), every roll takes its dice
//! from an injected [`omen_core::DieSource`] and returns them, so a seed's worked example can be replayed
//! with [`omen_core::ScriptedDice`]. No I/O.
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use omen_rules::ritual::{Difficulty, LoreCheck, LoreModifiers, RitualOptions};
//!
//! let limits = Limits::default();
//! // Lore 2, deciphering a ritual of difficulty 5 that the character has deciphered before: 3 dice.
//! let modifiers = LoreModifiers { deciphered_before: true, ..LoreModifiers::default() };
//! let check = LoreCheck::new(2, Difficulty::new(5)?, &modifiers, &RitualOptions::default(), &limits)?;
//! assert_eq!(check.pool(), 3);
//! // P(highest of 3d6 ≥ 5) = 1 − (4/6)³, exactly.
//! assert_eq!(check.success_probability(&limits)?.to_string(), "19/27");
//! // The same check with given dice: the highest die counts.
//! let roll = check.roll(&mut ScriptedDice::new(vec![2, 5, 1]))?;
//! assert_eq!((roll.dice, roll.result, roll.success), (vec![2, 5, 1], Some(5), true));
//!
//! // Every rule set describes itself as data.
//! let ritual = omen_rules::find("ritual").expect("registered");
//! assert_eq!(ritual.seed_file(), "000_a60612f38c616a78.txt");
//! assert!(ritual.spec_items().contains(&"000-M5"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Adding a seed game is one folder (`luck.rs` and `luck/`, with a unit struct implementing [`RuleSet`])
//! and one line in the registry below: this file is the only one that names every game. What the games
//! share is in [`vocabulary`], which names none.

// No function over 100 lines (STYLE.md 16): an action's arm is a function of its own.
#![deny(clippy::too_many_lines)]

pub mod hprpg;
pub mod luck;
pub mod ritual;
pub mod spelldice;
pub mod stateful;
pub mod t13;
#[cfg(any(test, feature = "test-game"))]
pub mod test_game;
pub mod vocabulary;

use std::sync::OnceLock;

pub use vocabulary::rule_set::*;
pub use vocabulary::{analysis, render, schema_check};

use vocabulary::stateful::Game;

/// Every seed game, in seed order. A new game is one line here.
#[cfg(not(any(test, feature = "test-game")))]
static REGISTRY: &[&dyn RuleSet] = &[
    &ritual::Ritual,
    &spelldice::SpellDice,
    &luck::Luck,
    &hprpg::Hprpg,
    &t13::T13,
];

/// The seed games and, last, the test game (see [`test_game`]), for tests only.
#[cfg(any(test, feature = "test-game"))]
static REGISTRY: &[&dyn RuleSet] = &[
    &ritual::Ritual,
    &spelldice::SpellDice,
    &luck::Luck,
    &hprpg::Hprpg,
    &t13::T13,
    &test_game::Coin,
];

/// The registered rule sets, in seed order.
pub fn registry() -> &'static [&'static dyn RuleSet] {
    REGISTRY
}

/// The seed games alone, in seed order: [`registry`] without the test game, which a workspace-wide
/// `cargo test` registers in every crate's tests (cargo unifies the `test-game` feature that
/// omen-cli's tests enable), so a test about the seeds' games asks for these.
pub fn seed_games() -> &'static [&'static dyn RuleSet] {
    #[cfg(any(test, feature = "test-game"))]
    let seeds = &REGISTRY[..REGISTRY.len() - 1];
    #[cfg(not(any(test, feature = "test-game")))]
    let seeds = REGISTRY;
    seeds
}

/// The rule set called `name` (as [`RuleSet::name`] spells it), if registered.
pub fn find(name: &str) -> Option<&'static dyn RuleSet> {
    REGISTRY.iter().copied().find(|rules| rules.name() == name)
}

/// The games whose characters keep state ([`RuleSet::game`]), in seed order.
pub fn games() -> &'static [&'static dyn Game] {
    static GAMES: OnceLock<Vec<&'static dyn Game>> = OnceLock::new();
    GAMES.get_or_init(|| REGISTRY.iter().filter_map(|rules| rules.game()).collect())
}

/// The stateful game called `name` (its rule set's name), if there is one.
pub fn game(name: &str) -> Option<&'static dyn Game> {
    find(name).and_then(|rules| rules.game())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_player_sees_a_luck_roll_without_the_game_masters_fields() {
        let hidden = find("luck").expect("registered").game_master_only();
        let state = json!({ "history": { "kind": "good", "length": 1 },
                            "intrinsic": [{ "source": "halfling", "value": 2 }] });
        assert_eq!(hidden.show(View::Player, Part::State, &state), json!({}));
        assert_eq!(hidden.show(View::GameMaster, Part::State, &state), state);
        let result = json!({ "die": 45, "modifier": 2, "karmic_modifier": 0, "range": "good",
                             "outcome": "good" });
        assert_eq!(
            hidden.show(View::Player, Part::Result, &result),
            json!({ "die": 45, "outcome": "good" })
        );
        assert_eq!(
            hidden.summary(View::Player, "roll", &result, "d50 = 45 with modifier +2"),
            "d50 = 45: good luck"
        );
        // The other rule sets hide nothing.
        for rules in registry().iter().filter(|r| r.name() != "luck") {
            assert!(
                !rules.game_master_only().hides_anything(),
                "{}",
                rules.name()
            );
        }
    }

    #[test]
    fn every_example_action_has_odds_for_the_example_character() {
        // A form built from the schemas starts from these examples: each must work as it is.
        let limits = omen_core::Limits::default();
        for game in stateful::games() {
            let schemas = game.schemas();
            let sheet = &schemas["sheet"]["examples"][0];
            let state = game
                .new_character(sheet)
                .unwrap_or_else(|e| panic!("{}: the example sheet: {e}", game.name()));
            let examples = schemas["action"]["examples"]
                .as_array()
                .unwrap_or_else(|| panic!("{}: no example actions", game.name()));
            let rolling: Vec<&str> = game
                .actions()
                .iter()
                .filter(|a| a.rolls)
                .map(|a| a.name)
                .collect();
            assert!(
                examples
                    .iter()
                    .any(|e| rolling.contains(&e["action"].as_str().unwrap_or(""))),
                "{}: no example of an action that rolls",
                game.name()
            );
            for example in examples {
                game.odds(&state, example, &limits)
                    .unwrap_or_else(|e| panic!("{}: {example}: {e}", game.name()));
            }
        }
    }

    #[test]
    fn a_hidden_path_goes_through_objects_and_every_element_of_an_array() {
        let hidden = GameMasterOnly {
            state: &["a/b"],
            ..GameMasterOnly::NOTHING
        };
        let state = json!({ "a": [{ "b": 1, "c": 2 }, { "b": 3 }], "b": 4 });
        assert_eq!(
            hidden.show(View::Player, Part::State, &state),
            json!({ "a": [{ "c": 2 }, {}], "b": 4 })
        );
    }
}
