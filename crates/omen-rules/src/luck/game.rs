//! Characters that keep their luck between rolls (002-S1, M4, M5): the stateful game.

use omen_core::{DieSource, Limits};
use serde::{Deserialize, Serialize};

use super::rules::{
    Duration, IntrinsicModifier, LuckError, LuckEvent, LuckOptions, LuckOutcome, LuckState,
    MissingOutcome, roll,
};
use crate::vocabulary::stateful::{self, ActionError, ActionInfo, Problems, Stateful};

// ---------------------------------------------------------------------------------------------------
// Characters that keep their luck between rolls (002-S1, M4, M5): the stateful game.

/// Seed 002's characters: their intrinsic modifiers and karmic history, kept between luck rolls.
#[derive(Clone, Copy, Debug, Default)]
pub struct LuckGame;

/// Which outcomes a luck event offers (002-M3).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Offers {
    #[default]
    Both,
    /// Only bad luck: a roll in the good range is no event.
    Bad,
    /// Only good luck: a roll in the bad range is no event.
    Good,
}

impl Offers {
    /// The event with this modifier offering these outcomes.
    ///
    /// # Errors
    /// [`LuckError::EventModifier`] outside −50..=+50.
    pub fn event(self, modifier: i64) -> Result<LuckEvent, LuckError> {
        LuckEvent::new(modifier, self != Offers::Good, self != Offers::Bad)
    }
}

/// What a game master can do with a character's luck. JSON: `{"action": "roll", "event_modifier": -5}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
#[schemars(example = serde_json::json!({"action": "roll", "event_modifier": -5}))]
pub enum LuckAction {
    /// A luck roll for an event (002-M1..M5): consumes next-roll modifiers, updates the history.
    Roll {
        /// The event's own modifier, −50 to +50.
        #[serde(default)]
        event_modifier: i64,
        #[serde(default)]
        offers: Offers,
        #[serde(default)]
        #[schemars(extend("x-cli-switch" = serde_json::json!({"missing-keeps-history": "keeps-history"})))]
        missing_outcome: MissingOutcome,
    },
    /// Gives the character an intrinsic modifier (002-M4).
    AddModifier {
        /// Where it comes from ("halfling", "blessing").
        source: String,
        /// The modifier, negative for a curse.
        value: i64,
        #[serde(default)]
        #[schemars(extend("x-cli-switch" = serde_json::json!({"next-roll": "next-roll"})))]
        duration: Duration,
    },
    /// Removes every intrinsic modifier from `source` (the cause is gone).
    RemoveModifier {
        /// The source whose modifiers are removed.
        source: String,
    },
}

/// A luck roll's result as logged and shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct RollRecord {
    die: i64,
    karmic_modifier: i64,
    modifier: i64,
    range: LuckOutcome,
    outcome: LuckOutcome,
}

const LUCK_ACTIONS: &[ActionInfo] = &[
    ActionInfo {
        name: "roll",
        spec_items: &[
            "002-M1", "002-M3", "002-M4", "002-M5", "002-S1", "002-A2", "002-A3",
        ],
        summary: "a d50 luck roll for an event: modifiers, outcome, the history updated",
        rolls: true,
    },
    ActionInfo {
        name: "add-modifier",
        spec_items: &["002-M4"],
        summary: "give the character an intrinsic modifier, permanent or for the next roll",
        rolls: false,
    },
    ActionInfo {
        name: "remove-modifier",
        spec_items: &["002-M4"],
        summary: "remove the intrinsic modifiers from one source",
        rolls: false,
    },
];

pub(super) fn signed(value: i64) -> String {
    if value >= 0 {
        format!("+{value}")
    } else {
        value.to_string()
    }
}

impl Stateful for LuckGame {
    const NAME: &'static str = "luck";
    const VERSION: u32 = 1;
    type Sheet = LuckState;
    type State = LuckState;
    type Action = LuckAction;

    fn actions() -> &'static [ActionInfo] {
        LUCK_ACTIONS
    }

    fn create(sheet: LuckState) -> Result<LuckState, Problems> {
        Self::validate(&sheet).into_result(sheet)
    }

    fn validate(state: &LuckState) -> Problems {
        let mut problems = Problems::new();
        for modifier in &state.intrinsic {
            if modifier.source.trim().is_empty() {
                problems.push("an intrinsic modifier has no source; name where it comes from");
            }
        }
        if state.intrinsic_modifier().is_err() {
            problems.push(
                "the intrinsic modifiers overflow when added; use modifiers of a sensible size",
            );
        }
        problems
    }

    fn apply(
        state: &LuckState,
        action: &LuckAction,
        source: &mut dyn DieSource,
        _limits: &Limits,
    ) -> Result<(serde_json::Value, LuckState, String), ActionError> {
        match action {
            LuckAction::Roll {
                event_modifier,
                offers,
                missing_outcome,
            } => {
                let event = offers.event(*event_modifier).map_err(ActionError::rules)?;
                let options = LuckOptions {
                    missing_outcome: *missing_outcome,
                };
                let roll = roll(state, &event, &options, source).map_err(|e| match e {
                    LuckError::Core(core) => ActionError::Dice(core),
                    other => ActionError::rules(other),
                })?;
                let summary = format!(
                    "d50 = {} with modifier {} (karmic {}): {}",
                    roll.die,
                    signed(roll.modifier),
                    signed(roll.karmic_modifier),
                    outcome_text(roll.outcome)
                );
                let record = RollRecord {
                    die: roll.die,
                    karmic_modifier: roll.karmic_modifier,
                    modifier: roll.modifier,
                    range: roll.range,
                    outcome: roll.outcome,
                };
                let result = serde_json::to_value(record).expect("serialisable");
                Ok((result, roll.state, summary))
            }
            LuckAction::AddModifier {
                source: cause,
                value,
                duration,
            } => {
                let mut after = state.clone();
                after.intrinsic.push(IntrinsicModifier {
                    source: cause.clone(),
                    value: *value,
                    duration: *duration,
                });
                Self::validate(&after).into_result(())?;
                let summary = format!("intrinsic modifier {} from {cause}", signed(*value));
                Ok((serde_json::json!({ "added": cause }), after, summary))
            }
            LuckAction::RemoveModifier { source: cause } => {
                let mut after = state.clone();
                after.intrinsic.retain(|m| &m.source != cause);
                let removed = state.intrinsic.len() - after.intrinsic.len();
                if removed == 0 {
                    return Err(ActionError::Invalid(Problems(vec![format!(
                        "no intrinsic modifier comes from `{cause}`"
                    )])));
                }
                let summary = format!("removed {removed} modifier(s) from {cause}");
                Ok((serde_json::json!({ "removed": removed }), after, summary))
            }
        }
    }

    fn odds(
        state: &LuckState,
        action: &LuckAction,
        _limits: &Limits,
    ) -> Result<serde_json::Value, ActionError> {
        let LuckAction::Roll {
            event_modifier,
            offers,
            ..
        } = action
        else {
            return Err(ActionError::Malformed {
                what: "action",
                message: "only a roll has odds".to_string(),
            });
        };
        let event = offers.event(*event_modifier).map_err(ActionError::rules)?;
        let modifier = state.modifier_for(&event).map_err(ActionError::rules)?;
        let outcomes = event
            .outcome_distribution(state)
            .map_err(ActionError::rules)?;
        Ok(serde_json::json!({
            "modifier": modifier,
            "karmic_modifier": state.history.karmic_modifier(),
            "outcomes": stateful::distribution_json(&outcomes),
        }))
    }
}

pub(super) fn outcome_text(outcome: LuckOutcome) -> &'static str {
    match outcome {
        LuckOutcome::Bad => "bad luck",
        LuckOutcome::Neutral => "no event",
        LuckOutcome::Good => "good luck",
    }
}
