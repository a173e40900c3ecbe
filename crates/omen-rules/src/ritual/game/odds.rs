//! The odds of an action, before rolling.

use num_traits::{One, Zero};
use omen_core::{Limits, Probability};
use serde_json::{Value, json};

use super::action::{LoreKind, RitualAction};
use super::requests::{dice_error, essence_request, lore_odds, lore_request, session_check_json};
use crate::ritual::{RitualState, SessionReroll};
use crate::vocabulary::stateful::{self, ActionError};

/// The odds of `action` from `state`: those of its Lore or Essence check, or of the session's
/// re-roll.
pub(super) fn odds_of(
    state: &RitualState,
    action: &RitualAction,
    limits: &Limits,
) -> Result<Value, ActionError> {
    if let Some(lore) = action.lore_action() {
        let request = lore_request(state, &lore, limits)?;
        if matches!(lore.kind, LoreKind::Memorise) && state.memorised.is_empty() {
            return Ok(json!({
                "free": true,
                "success": stateful::probability_json(&Probability::one()),
            }));
        }
        return lore_odds(&request.check, limits);
    }
    match action {
        RitualAction::EndSession { choice } => {
            let gain = match choice {
                SessionReroll::Reroll => state.lore_gain_probability(limits).map_err(dice_error)?,
                SessionReroll::Decline => Probability::zero(),
            };
            let check = match choice {
                SessionReroll::Reroll => state
                    .most_difficult_check()
                    .map_or(Value::Null, session_check_json),
                SessionReroll::Decline => Value::Null,
            };
            Ok(json!({ "check": check, "lore_gain": stateful::probability_json(&gain) }))
        }
        RitualAction::Essence { .. } => {
            let request = essence_request(state, action, limits)?;
            let check = &request.check;
            let thresholds: Vec<Value> = check
                .threshold_probabilities(limits)
                .map_err(dice_error)?
                .iter()
                .map(|(threshold, p)| {
                    let mut row = stateful::probability_json(p);
                    row["threshold"] = json!(threshold);
                    row
                })
                .collect();
            let outcomes = check.outcome_distribution(limits).map_err(dice_error)?;
            Ok(json!({
                "pool": check.pool(),
                "repeated_attempts": request.repeated_attempts,
                "pairs": check.pairs(),
                "rolled_dice": check.rolled_dice(),
                "thresholds": thresholds,
                "outcomes": stateful::distribution_json(&outcomes),
            }))
        }
        _ => Err(ActionError::Malformed {
            what: "action",
            message: "a full night's sleep rolls nothing, so it has no odds".to_string(),
        }),
    }
}
