//! Which refusals of an action a player may read in full.
//!
//! A rule set's refusal may quote what only the game master sees (a hidden modifier that makes a
//! total overflow), so [`Redactor::error`] withholds the text of every rule-set refusal from a
//! player. Most refusals depend on nothing hidden, though: a misspelt action, a word where a number
//! belongs, an event modifier out of range. Those are told apart by asking the rules again, with
//! the state as the player sees it (every hidden field removed, so at its default): a refusal
//! given word for word from that state too is a function of what the player already sees and of
//! their own request, and so reveals nothing. Any other refusal stays withheld.

use omen_core::{ChaChaDice, Limits};
use omen_rules::Part;
use serde_json::Value;

use crate::AppState;
use crate::error::ApiError;
use crate::redact::Redactor;

/// Which rule-set call was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Call {
    /// Applying the action (`POST .../actions`).
    Apply,
    /// Its odds (`POST .../odds`).
    Odds,
}

/// What the probe needs of the refused request: the character as stored and the action sent.
pub(crate) struct Refused<'a> {
    pub rule_set: &'a str,
    pub state: &'a Value,
    pub action: &'a Value,
    pub call: Call,
    /// Whether the state follows a roll hidden from the viewer, who then sees none of it.
    pub withheld: bool,
}

/// `error` as `redactor`'s viewer receives it: whole for the game master, and whole for a player
/// when the rules refuse the request word for word from the state as that player sees it;
/// otherwise through [`Redactor::error`].
pub(crate) async fn for_viewer(
    state: &AppState,
    redactor: Redactor,
    refused: Refused<'_>,
    error: ApiError,
    secrets: &[String],
) -> ApiError {
    if redactor.is_game_master() {
        return error;
    }
    // Only the rule set's refusals are withheld for their kind; the rest pass the redactor as they
    // always did (a request error is shown, a storage failure is not).
    if error.errors.is_empty() || error.errors.iter().any(|p| p.kind != "rules") {
        return redactor.error(error, secrets);
    }
    // A state the viewer may not see at all is probed as an empty one (every field at its
    // default): what they are told must not depend on it.
    let shown_state = if refused.withheld {
        Value::Object(serde_json::Map::new())
    } else {
        redactor.show(refused.rule_set, Part::State, refused.state)
    };
    let (rule_set, action, call) = (
        refused.rule_set.to_string(),
        refused.action.clone(),
        refused.call,
    );
    let limits = state.limits();
    let probe = state
        .inner
        .compute
        .run(move || refusal_from(&rule_set, &shown_state, &action, call, &limits))
        .await;
    match probe {
        Ok(Some(again)) if same_words(&again, &error) => error,
        _ => redactor.error(error, secrets),
    }
}

/// The rules' refusal of `action` from `state`, as the server would send it; `None` when they
/// accept it. Dice come from a fixed seed: the outcome of a roll is never what refuses an action.
fn refusal_from(
    rule_set: &str,
    state: &Value,
    action: &Value,
    call: Call,
    limits: &Limits,
) -> Option<ApiError> {
    let game = omen_rules::stateful::game(rule_set)?;
    let refused = match call {
        Call::Apply => game
            .apply(state, action, &mut ChaChaDice::from_seed(0), limits)
            .err(),
        Call::Odds => game.odds(state, action, limits).err(),
    }?;
    Some(ApiError::from(omen_store::StoreError::Rules(refused)))
}

fn same_words(a: &ApiError, b: &ApiError) -> bool {
    a.status == b.status && a.errors == b.errors
}
