//! Characters that carry state from roll to roll: the one interface every seed game offers to a store,
//! a CLI or a server. This module names no game: each game's rule set serves its own ([`serve`]).
//!
//! A game's state, its actions and their results are serde types owned by the game's module; this module
//! turns them into JSON at one boundary ([`Game`]) so a store can keep any game's characters in one
//! table, log every action with its inputs, and replay the log later from the recorded dice. Every
//! transition is still a pure function: state in, dice from a [`DieSource`], state out.
//!
//! State is versioned ([`Stateful::VERSION`]). A game that adds a field gives it a serde default, so state
//! saved by an older version still loads; a change that a default cannot express raises the version and
//! converts older JSON in [`Stateful::upgrade`].
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use serde_json::json;
//!
//! let luck = omen_rules::stateful::game("luck").expect("luck keeps state");
//! let state = luck.new_character(&json!({ "intrinsic": [{ "source": "halfling", "value": 2 }] }))?;
//! // A d50 of 50 with a +2 halfling modifier is good luck; the history starts a good run.
//! let applied = luck.apply(&state, &json!({ "action": "roll" }), &mut ScriptedDice::new(vec![50]), &Limits::default())?;
//! assert_eq!(applied.result["outcome"], "good");
//! assert_eq!(applied.state["history"], json!({ "kind": "good", "length": 1 }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::marker::PhantomData;

use omen_core::{CoreError, DieSource, Limits};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use thiserror::Error;

/// Everything wrong with a sheet or a saved state, listed at once (a player fixes them all in one go).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Problems(pub Vec<String>);

impl Problems {
    pub fn new() -> Self {
        Problems(Vec::new())
    }

    /// Records one problem.
    pub fn push(&mut self, problem: impl Into<String>) {
        self.0.push(problem.into());
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok(value)` when nothing was recorded, else every problem.
    ///
    /// # Errors
    /// The problems recorded, when there are any.
    pub fn into_result<T>(self, value: T) -> Result<T, Problems> {
        if self.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [] => write!(f, "no problems"),
            [one] => write!(f, "{one}"),
            many => {
                write!(f, "{} problems:", many.len())?;
                for problem in many {
                    write!(f, "\n  - {problem}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Problems {}

/// Why an action could not be applied. Nothing changes when one is returned.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ActionError {
    #[error("{game} has no action `{action}`; its actions are: {known}")]
    UnknownAction {
        game: &'static str,
        action: String,
        known: String,
    },
    #[error("invalid {what}: {message}")]
    Malformed { what: &'static str, message: String },
    #[error("{0}")]
    Invalid(Problems),
    /// The game's own rule error (an impossible DV, a pool too small for the cast, …).
    #[error("{0}")]
    Rules(Box<dyn std::error::Error + Send + Sync>),
    /// The dice source failed: given dice ran out or did not fit the die.
    #[error(transparent)]
    Dice(#[from] CoreError),
}

impl ActionError {
    /// Wraps a rule set's own error, keeping dice errors recognisable.
    pub fn rules(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        ActionError::Rules(Box::new(error))
    }
}

impl From<Problems> for ActionError {
    fn from(problems: Problems) -> Self {
        ActionError::Invalid(problems)
    }
}

/// One action as applied: what happened and the character's state afterwards.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// The result, as the game's result type serialises it (dice, outcome, …).
    pub result: Value,
    /// The state after the action (the same as before for an action that changes nothing).
    pub state: Value,
    /// One line for people: "d50 = 37 with modifier +2: no event".
    pub summary: String,
}

/// An action a game offers, for listings and help.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ActionInfo {
    /// The value of the action's `"action"` field, e.g. `roll`.
    pub name: &'static str,
    /// The spec items it implements.
    pub spec_items: &'static [&'static str],
    /// What it does.
    pub summary: &'static str,
    /// Whether it rolls dice (and so has odds).
    pub rolls: bool,
}

/// A game's stateful rules as typed Rust. Implement this; [`game`] serves it as a [`Game`].
pub trait Stateful: Sync + 'static {
    /// The rule set's name (as [`crate::RuleSet::name`]).
    const NAME: &'static str;
    /// The version of the state format written now. Raise it when [`Stateful::upgrade`] must convert.
    const VERSION: u32;
    /// What a new character is made from (a sheet, starting resources).
    type Sheet: DeserializeOwned + schemars::JsonSchema;
    /// What the rules remember about a character.
    type State: Serialize + DeserializeOwned + schemars::JsonSchema;
    /// The actions, internally tagged by `"action"` in JSON.
    type Action: Serialize + DeserializeOwned + schemars::JsonSchema;

    /// The actions the game offers.
    fn actions() -> &'static [ActionInfo];

    /// A new character's state, or every problem with the sheet.
    ///
    /// # Errors
    /// Every problem with `sheet`.
    fn create(sheet: Self::Sheet) -> Result<Self::State, Problems>;

    /// What the rules allow but find unusual in a sheet (dots left unspent, a count the seed leaves
    /// unreadable, a rating above the advancement cap): said beside the new character, never a
    /// reason to refuse it. None by default.
    fn warnings(sheet: &Self::Sheet) -> Vec<String> {
        let _ = sheet;
        Vec::new()
    }

    /// Every problem with a state (out-of-range values a hand-edited file could hold).
    fn validate(state: &Self::State) -> Problems;

    /// Converts state written by an older version (`version < VERSION`) into the current JSON shape.
    /// The default accepts it as it is: new fields take their serde defaults.
    ///
    /// # Errors
    /// Problems that make the old state unusable.
    fn upgrade(version: u32, state: Value) -> Result<Value, Problems> {
        let _ = version;
        Ok(state)
    }

    /// The state as people read it, shown beside the stored form: text lines and the same as JSON
    /// (a sheet's ratings with their names, say). None when the stored form speaks for itself.
    fn summary(state: &Self::State) -> Option<(String, Value)> {
        let _ = state;
        None
    }

    /// Applies `action` to `state`, rolling from `source`: the result (serialised), the new state and a
    /// one-line summary.
    ///
    /// # Errors
    /// The game's own errors and the source's.
    fn apply(
        state: &Self::State,
        action: &Self::Action,
        source: &mut dyn DieSource,
        limits: &Limits,
    ) -> Result<(Value, Self::State, String), ActionError>;

    /// The exact odds of `action` from `state`, before rolling, as JSON with exact fractions.
    ///
    /// # Errors
    /// The game's own errors, or [`ActionError::Malformed`] for an action that rolls nothing.
    fn odds(
        state: &Self::State,
        action: &Self::Action,
        limits: &Limits,
    ) -> Result<Value, ActionError>;
}

/// A game with stateful characters, behind JSON: what a store, a CLI or a server calls.
pub trait Game: Sync {
    /// The rule set's name.
    fn name(&self) -> &'static str;

    /// The state format version [`Game::new_character`] and [`Game::apply`] write.
    fn state_version(&self) -> u32;

    /// The actions the game offers.
    fn actions(&self) -> &'static [ActionInfo];

    /// The JSON Schemas of the game's `sheet` (what a new character is made from, with complete
    /// examples), `state` and `action` inputs, derived from the Rust types so they cannot drift.
    fn schemas(&self) -> Value;

    /// The JSON Schema of the `action` input alone, as in [`Game::schemas`]: what a face needs to
    /// describe the actions, without the cost of the sheet's and the state's (the command line builds
    /// its game commands from it at every start).
    fn action_schema(&self) -> Value {
        self.schemas()["action"].clone()
    }

    /// A new character's state (current version) from its sheet, or every problem with the sheet.
    ///
    /// # Errors
    /// [`ActionError::Malformed`] when the sheet does not have the game's shape,
    /// [`ActionError::Invalid`] with every rule the sheet breaks.
    fn new_character(&self, sheet: &Value) -> Result<Value, ActionError>;

    /// [`Stateful::warnings`] of `sheet`: none for a sheet that does not have the game's shape
    /// (its problems are [`Game::new_character`]'s to report).
    fn sheet_warnings(&self, sheet: &Value) -> Vec<String>;

    /// Loads `state` saved at `version`: upgraded to the current version, checked, and re-serialised.
    ///
    /// # Errors
    /// [`ActionError::Malformed`] / [`ActionError::Invalid`] as for a sheet; a version newer than this
    /// build knows is malformed.
    fn load(&self, version: u32, state: &Value) -> Result<Value, ActionError>;

    /// Whether `state` is exactly the JSON this build's state type writes for what it holds: no
    /// field left out for a default to fill, none unknown, nothing upgraded. A replay accepts a
    /// recorded state of an older version only in the form that version wrote, so a state with a
    /// field missing cannot pass as an old one that the loader completes.
    /// (An older version's state must therefore still decode as the current type, its new fields
    /// left out; a version that changes a field's shape needs its own check here.)
    fn is_as_written(&self, state: &Value) -> bool;

    /// [`Stateful::summary`] of `state` (current version): text and JSON for people; none when the
    /// game has none or the state does not load.
    fn summary(&self, state: &Value) -> Option<(String, Value)>;

    /// Applies `action` (an object with an `"action"` field) to `state` (current version).
    ///
    /// # Errors
    /// As [`Stateful::apply`]; [`ActionError::UnknownAction`] for an action the game lacks.
    fn apply(
        &self,
        state: &Value,
        action: &Value,
        source: &mut dyn DieSource,
        limits: &Limits,
    ) -> Result<Applied, ActionError>;

    /// The exact odds of `action` from `state`.
    ///
    /// # Errors
    /// As [`Stateful::odds`].
    fn odds(&self, state: &Value, action: &Value, limits: &Limits) -> Result<Value, ActionError>;
}

/// Serves a [`Stateful`] game as a [`Game`].
struct Served<T>(PhantomData<fn() -> T>);

fn decode<T: DeserializeOwned + schemars::JsonSchema>(
    what: &'static str,
    value: &Value,
) -> Result<T, ActionError> {
    super::schema_check::decode(value).map_err(|message| ActionError::Malformed { what, message })
}

fn encode<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("rule-set types serialise to JSON")
}

impl<T: Stateful> Served<T> {
    fn state(value: &Value) -> Result<T::State, ActionError> {
        let state: T::State = decode("state", value)?;
        T::validate(&state).into_result(state).map_err(Into::into)
    }

    fn action(value: &Value) -> Result<T::Action, ActionError> {
        let name = value.get("action").and_then(Value::as_str);
        if let Some(name) = name
            && !T::actions().iter().any(|a| a.name == name)
        {
            return Err(ActionError::UnknownAction {
                game: T::NAME,
                action: name.to_string(),
                known: T::actions()
                    .iter()
                    .map(|a| a.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        decode("action", value)
    }
}

impl<T: Stateful> Game for Served<T> {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn state_version(&self) -> u32 {
        T::VERSION
    }

    fn actions(&self) -> &'static [ActionInfo] {
        T::actions()
    }

    fn schemas(&self) -> Value {
        serde_json::json!({
            "sheet": schemars::schema_for!(T::Sheet),
            "state": schemars::schema_for!(T::State),
            "action": schemars::schema_for!(T::Action),
        })
    }

    fn action_schema(&self) -> Value {
        // The schema's own JSON, handed over: `serde_json::to_value` would copy the whole tree to
        // reorder its keywords, a fifth of the start-up of `omen GAME ACTION --help`.
        schemars::schema_for!(T::Action).to_value()
    }

    fn new_character(&self, sheet: &Value) -> Result<Value, ActionError> {
        let sheet: T::Sheet = decode("sheet", sheet)?;
        let state = T::create(sheet)?;
        T::validate(&state).into_result(())?;
        Ok(encode(&state))
    }

    fn sheet_warnings(&self, sheet: &Value) -> Vec<String> {
        // serde alone: a sheet that does not decode has no warnings to give, and the schema walk
        // that lists every problem is the creation's to run.
        serde_json::from_value::<T::Sheet>(sheet.clone())
            .map_or_else(|_| Vec::new(), |s| T::warnings(&s))
    }

    fn load(&self, version: u32, state: &Value) -> Result<Value, ActionError> {
        if version > T::VERSION {
            return Err(ActionError::Malformed {
                what: "state",
                message: format!(
                    "version {version} is newer than this build of omen reads ({}); upgrade omen",
                    T::VERSION
                ),
            });
        }
        let current = if version < T::VERSION {
            T::upgrade(version, state.clone())?
        } else {
            state.clone()
        };
        Ok(encode(&Self::state(&current)?))
    }

    fn is_as_written(&self, state: &Value) -> bool {
        serde_json::from_value::<T::State>(state.clone()).is_ok_and(|read| encode(&read) == *state)
    }

    fn summary(&self, state: &Value) -> Option<(String, Value)> {
        T::summary(&Self::state(state).ok()?)
    }

    fn apply(
        &self,
        state: &Value,
        action: &Value,
        source: &mut dyn DieSource,
        limits: &Limits,
    ) -> Result<Applied, ActionError> {
        let action = Self::action(action)?;
        let state = Self::state(state)?;
        let (result, after, summary) = T::apply(&state, &action, source, limits)?;
        Ok(Applied {
            result,
            state: encode(&after),
            summary,
        })
    }

    fn odds(&self, state: &Value, action: &Value, limits: &Limits) -> Result<Value, ActionError> {
        let action = Self::action(action)?;
        let state = Self::state(state)?;
        T::odds(&state, &action, limits)
    }
}

/// `T` served as a [`Game`]: what a rule set's [`crate::RuleSet::game`] returns.
pub fn serve<T: Stateful>() -> &'static dyn Game {
    &Served::<T>(PhantomData)
}

/// An exact probability as JSON: `{"fraction": "1/5", "percent": 20.0}`. The fraction is the value; the
/// percentage (a float) is for people reading the JSON.
pub fn probability_json(p: &omen_core::Probability) -> Value {
    use num_traits::ToPrimitive;
    let percent = p.to_f64().map_or(Value::Null, |f| {
        serde_json::Number::from_f64(f * 100.0).map_or(Value::Null, Value::Number)
    });
    serde_json::json!({ "fraction": super::analysis::fraction(p), "percent": percent })
}

/// A distribution's outcomes as JSON odds, `[{"outcome": …, "fraction": …, "percent": …}]`, in the
/// distribution's order.
pub fn distribution_json<T: Ord + Clone + Serialize>(
    distribution: &omen_core::Distribution<T>,
) -> Value {
    let total = distribution.total();
    let rows = distribution
        .entries()
        .iter()
        .map(|(outcome, weight)| {
            let p = omen_core::Probability::new(weight.clone(), total.clone());
            let mut row = probability_json(&p);
            row["outcome"] = encode(outcome);
            row
        })
        .collect();
    Value::Array(rows)
}
