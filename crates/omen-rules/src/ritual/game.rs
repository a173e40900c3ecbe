//! Seed 000's ritualists as a stateful game: Lore, the ritual lists, the session's Lore checks and the
//! attempts since the last full night's sleep, kept between actions (000-S1, S2).

mod action;
mod apply;
mod odds;
mod requests;

use omen_core::{DieSource, Limits};
use serde_json::Value;

use action::RITUAL_ACTIONS;
pub use action::{RitualAction, RitualSheet};
use requests::names_problems;

use super::{RitualError, RitualState};
use crate::vocabulary::stateful::{ActionError, ActionInfo, Problems, Stateful};

/// Seed 000's characters: Lore, the known / used / unknown / memorised rituals, this session's Lore
/// checks and the attempts at each ritual since the last full night's sleep.
///
/// ```
/// use omen_core::{Limits, ScriptedDice};
/// use serde_json::json;
///
/// let ritual = omen_rules::stateful::game("ritual").expect("ritual keeps state");
/// let state = ritual.new_character(&json!({ "lore": 2, "essence": 3 }))?;
/// // Two Lore dice against difficulty 4: the highest, 5, deciphers the ritual.
/// let decipher = json!({ "action": "decipher", "ritual": "Ward", "difficulty": 4 });
/// let applied = ritual.apply(&state, &decipher, &mut ScriptedDice::new(vec![5, 1]), &Limits::default())?;
/// assert_eq!(applied.state["known"], json!(["Ward"]));
/// // Performing it: the character's Essence of 3 and an assistant's 2 make five dice, which reach 9
/// // 99.28 % of the time, as Appendix B prints.
/// let perform = json!({ "action": "essence", "ritual": "Ward", "assistants": [2], "thresholds": [9, 15] });
/// let odds = ritual.odds(&applied.state, &perform, &Limits::default())?;
/// assert_eq!(odds["thresholds"][0]["fraction"], "965/972");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct RitualGame;

impl Stateful for RitualGame {
    const NAME: &'static str = "ritual";
    const VERSION: u32 = 1;
    type Sheet = RitualSheet;
    type State = RitualState;
    type Action = RitualAction;

    fn actions() -> &'static [ActionInfo] {
        RITUAL_ACTIONS
    }

    fn create(sheet: RitualSheet) -> Result<RitualState, Problems> {
        let state = RitualState {
            lore: sheet.lore,
            essence: sheet.essence,
            known: sheet.known,
            used: sheet.used,
            unknown: sheet.unknown,
            memorised: sheet.memorised,
            notes: sheet.notes,
            ..RitualState::default()
        };
        Self::validate(&state).into_result(state)
    }

    fn validate(state: &RitualState) -> Problems {
        let mut problems = Problems::new();
        if state.lore < 0 {
            problems.push(RitualError::NegativeLore(state.lore).to_string());
        }
        if let Some(essence) = state.essence.filter(|&e| e < 0) {
            problems.push(format!(
                "the character's essence {essence} is negative; essence is a count of dice"
            ));
        }
        names_problems("known", &state.known, &mut problems);
        names_problems("used", &state.used, &mut problems);
        names_problems("unknown", &state.unknown, &mut problems);
        names_problems("memorised", &state.memorised, &mut problems);
        names_problems("notes", &state.notes, &mut problems);
        for ritual in state.notes.difference(&state.known) {
            problems.push(format!(
                "ritual {ritual:?} in the notes is not among the known rituals; a ritual is deciphered before it is copied"
            ));
        }
        for ritual in state.memorised.difference(&state.known) {
            problems.push(format!(
                "memorised ritual {ritual:?} is not among the known rituals; a ritual is deciphered before it is memorised"
            ));
        }
        for check in &state.session_checks {
            if check.ritual.trim().is_empty() {
                problems.push("a Lore check of this session names no ritual");
            }
        }
        for ritual in state.attempts.keys() {
            if ritual.trim().is_empty() {
                problems.push("attempts are recorded for a ritual with no name");
            }
        }
        problems
    }

    fn apply(
        state: &RitualState,
        action: &RitualAction,
        source: &mut dyn DieSource,
        limits: &Limits,
    ) -> Result<(Value, RitualState, String), ActionError> {
        apply::apply_action(state, action, source, limits)
    }

    fn odds(
        state: &RitualState,
        action: &RitualAction,
        limits: &Limits,
    ) -> Result<Value, ActionError> {
        odds::odds_of(state, action, limits)
    }
}
