//! Seed 002 as the registry lists it, and what of it only the game master sees (002-M4).

use super::analyses::ANALYSES;
use super::game::LuckGame;
use super::game::outcome_text;
use super::rules::{LuckOutcome, SEED_FILE};
use crate::vocabulary::stateful::{self, Game};
use crate::{Description, GameMasterOnly, Mechanic, RuleOption, RuleSet};

/// Seed 002 in the registry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Luck;

const SPEC_ITEMS: &[&str] = &[
    "002-M1", "002-M2", "002-M3", "002-M4", "002-S1", "002-M5", "002-M6", "002-A1", "002-A2",
    "002-A3", "002-A4", "002-A5",
];

const MECHANICS: &[Mechanic] = &[
    Mechanic {
        name: "luck roll",
        spec_items: &["002-M1", "002-M2", "002-M3", "002-A1", "002-A4"],
        summary: "roll 1d50; combined modifier m = event + intrinsic + karmic shifts the ranges: bad \
                  1..10−m, good 41−m..50 (clamped to 1..50), anything else or an outcome the event \
                  does not offer is no event",
    },
    Mechanic {
        name: "intrinsic modifiers",
        spec_items: &["002-M4"],
        summary: "per-character modifiers (piety, halfling +2, items, blessings, curses), permanent or \
                  for the next luck roll only, which that roll consumes",
    },
    Mechanic {
        name: "karmic history",
        spec_items: &["002-S1", "002-M5", "002-A2", "002-A3", "002-A5"],
        summary: "a run of up to 6 bad or good outcomes; no event empties it, the opposite outcome \
                  restarts it; a run of n gives ±{0,1,2,4,7,10}[n−1] (+ after bad luck) to the next roll",
    },
    Mechanic {
        name: "long run",
        spec_items: &["002-M6"],
        summary: "exact long-run frequencies of bad, neutral and good for a base modifier, and the \
                  distribution of the karmic history, from the Markov chain of histories",
    },
];

const OPTIONS: &[RuleOption] = &[RuleOption {
    name: "missing-outcome",
    spec_item: "002-A2",
    summary: "whether a no event caused by an outcome the event does not offer empties the karmic \
              history like a neutral roll or leaves it unchanged",
    choices: &["resets-history", "keeps-history"],
    default: "resets-history",
    actions: &["roll"],
}];

static DESCRIPTION: Description = Description {
    name: "luck",
    seed_file: SEED_FILE,
    description: "Tak'Rahn luck rolls: a d50 with bad and good ranges shifted by modifiers and a karmic streak damper",
    spec_items: SPEC_ITEMS,
    mechanics: MECHANICS,
    options: OPTIONS,
    tables: &[],
    game_master_only: GAME_MASTER_ONLY,
};

/// 002-M4: the intrinsic modifiers are "hidden because this is tracked internally for each character
/// by the Game Operative". The karmic history and every modifier derived from them stay with the game
/// master too, and so do the odds (they would give the combined modifier away); a player sees the
/// die and the outcome.
const GAME_MASTER_ONLY: GameMasterOnly = GameMasterOnly {
    action: &["source", "value", "duration"],
    sheet: &["intrinsic", "history"],
    state: &["intrinsic", "history"],
    result: &["modifier", "karmic_modifier", "range", "added", "removed"],
    odds: &["modifier", "karmic_modifier", "outcomes"],
    player_summary,
};

/// What a player reads of a luck action: the die and the outcome of a roll; of a change to the
/// hidden modifiers, only that the game master made one.
fn player_summary(action: &str, shown: &serde_json::Value) -> Option<String> {
    Some(match action {
        "roll" => {
            let outcome = shown
                .get("outcome")
                .cloned()
                .and_then(|o| serde_json::from_value::<LuckOutcome>(o).ok())
                .map_or("?", outcome_text);
            format!(
                "d50 = {}: {outcome}",
                shown.get("die").unwrap_or(&serde_json::Value::Null)
            )
        }
        _ => "the game master changed a hidden Luck modifier".to_string(),
    })
}

impl RuleSet for Luck {
    fn describe(&self) -> &'static Description {
        &DESCRIPTION
    }

    fn analyses(&self) -> &'static [crate::analysis::Analysis] {
        ANALYSES
    }

    fn game(&self) -> Option<&'static dyn Game> {
        Some(stateful::serve::<LuckGame>())
    }
}
