//! Seed 003's characters as a stateful game (003-S1, S2, S3 and the mechanics that change them):
//! checks, castings with catch-casting kept in the state, resisting, FORTITUDE, health, RAGE,
//! sustained spells, feats with daily uses. Each action is a pure function: state in, dice from the
//! source, new state out; on an error nothing changes.
//!
//! The sheet that makes a character ([`HprpgSheet`]) is either the player's creation choices
//! (`{"create": {…}}`, checked by [`super::character::create`]) or a finished sheet (`{"sheet": {…}}`,
//! e.g. an advanced character copied from paper, checked by [`super::character::validate`]).
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use serde_json::json;
//!
//! let hprpg = omen_rules::stateful::game("hprpg").expect("hprpg keeps state");
//! let aspects = json!({"FITNESS": 1, "CHARM": 1, "INTELLIGENCE": 3, "PRECISION": 1, "DECEPTION": 1,
//!     "WILLPOWER": 3, "VITALITY": 1, "INSIGHT": 1, "PERCEPTION": 1});
//! let state = hprpg.new_character(&json!({"sheet": {
//!     "aspects": aspects, "affinities": {"ELEMENTAL": 3},
//!     "fortitude": {"current": 2, "max": 2}, "health": {"current": 5, "max": 5}}}))?;
//! // Jane's fire bolt (003-M22): TRIA with Affinity 3 is DV 8; 7 dice; net 3 pays 2 for RANGED and
//! // 1 for OVERPOWER: POWER 4.
//! let cast = json!({"action": "cast", "discipline": "ELEMENTAL", "level": 3, "aspect": "WILLPOWER",
//!     "bonus_dice": 1, "delivery": "ranged", "optional": {"overpower": 1}});
//! let dice = vec![1, 4, 5, 8, 8, 9, 11];
//! let applied = hprpg.apply(&state, &cast, &mut ScriptedDice::new(dice), &Limits::default())?;
//! assert_eq!(applied.result["net"], 3);
//! assert_eq!(applied.result["spell"]["power"], 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod action;
mod apply;
mod error;
mod odds;
mod outcome;
mod prepare;
mod rolls;
mod state;
#[cfg(test)]
mod tests;

use omen_core::{DieSource, Limits};
use serde_json::{Value, json};

use action::HPRPG_ACTIONS;
pub use action::{
    CastAction, CatchCastAction, CheckAction, HprpgAction, ReduceCastingAction, ResistAction,
};
use apply::apply_action;
pub use error::HprpgGameError;
use error::fail;
use odds::odds_of;
pub use outcome::off_archetype_feats;
pub use state::{CheckSpec, DeliveryKind, HprpgState, LastCheck, PendingCasting};

use super::character;
pub use super::sheet::HprpgSheet;
use super::state_version;
use super::summary::SheetSummary;
use crate::vocabulary::stateful::{ActionError, ActionInfo, Problems, Stateful};

/// Seed 003's characters, served by [`crate::vocabulary::stateful::game`] as `"hprpg"`.
#[derive(Clone, Copy, Debug, Default)]
pub struct HprpgGame;

impl Stateful for HprpgGame {
    const NAME: &'static str = "hprpg";
    const VERSION: u32 = state_version::CURRENT;
    type Sheet = HprpgSheet;
    type State = HprpgState;
    type Action = HprpgAction;

    fn actions() -> &'static [ActionInfo] {
        HPRPG_ACTIONS
    }

    fn create(sheet: HprpgSheet) -> Result<HprpgState, Problems> {
        match sheet {
            HprpgSheet::Create(choices) => {
                let created = character::create(&choices)?;
                let mut state = HprpgState::new(created.sheet);
                state.advancement_cap = choices.advancement_cap;
                Ok(state)
            }
            HprpgSheet::Sheet(sheet) => {
                let state = HprpgState::new(*sheet);
                Self::validate(&state).into_result(state)
            }
        }
    }

    fn warnings(sheet: &HprpgSheet) -> Vec<String> {
        super::sheet::sheet_warnings(sheet)
    }

    fn upgrade(version: u32, state: Value) -> Result<Value, Problems> {
        state_version::upgrade(version, state)
    }

    fn validate(state: &HprpgState) -> Problems {
        let mut problems = character::validate(&state.sheet, state.advancement_cap).problems;
        problems.0.extend(state_version::problem(state.version));
        if let Some(casting) = &state.casting {
            let progress = casting.progress;
            if progress.accumulated == 0 || progress.accumulated >= progress.required {
                problems.push(format!(
                    "the waiting casting has {} of {} successes; a catch-cast needs at least 1 and \
                     fewer than required, so remove the casting",
                    progress.accumulated, progress.required
                ));
            }
            if casting.level > super::MAX_SPELL_LEVEL {
                problems.push(format!(
                    "the waiting casting has level {}, above SUMNUS (7); use 0..7",
                    casting.level
                ));
            }
            if !(0..=super::MAX_CATASTROPHE_RANGE).contains(&casting.casting.catastrophe_range) {
                problems.push("the waiting casting's catastrophe range is outside 0..11; fix it");
            }
        }
        if let Some(last) = &state.last_check
            && last.dice.iter().any(|d| !(1..=super::SIDES).contains(d))
        {
            problems.push("the last check holds a die outside 1..12; remove last_check");
        }
        problems
    }

    fn summary(state: &HprpgState) -> Option<(String, Value)> {
        let summary = SheetSummary::of(&state.sheet);
        Some((summary.text(), json!(summary)))
    }

    fn apply(
        state: &HprpgState,
        action: &HprpgAction,
        source: &mut dyn DieSource,
        limits: &Limits,
    ) -> Result<(Value, HprpgState, String), ActionError> {
        let (result, after, summary) = apply_action(state, action, source, limits).map_err(fail)?;
        Self::validate(&after).into_result(())?;
        Ok((result, after, summary))
    }

    fn odds(
        state: &HprpgState,
        action: &HprpgAction,
        limits: &Limits,
    ) -> Result<Value, ActionError> {
        odds_of(state, action, limits)
    }
}
