//! A character's actions and their odds, and what a hidden roll before them withholds.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use omen_rules::Part;
use omen_store::{Actor, Dice, EntryOptions, LogEntry, LogFilter, Member, Visibility};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::{Caller, Need, authorise};
use crate::error::{ApiError, Body, ErrorBody, PathParams, Problem};
use crate::redact::Redactor;
use crate::refusal::{Call, Refused, for_viewer};

use super::shared::{CharacterMemberErrors, asks_blind, follows_hidden_roll, seen, withheld_odds};

/// `POST .../actions`: an action of the character's rule set.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    /// The action, as the rule set's action schema describes it: `{"action": "roll", …}`.
    #[schema(value_type = Object)]
    #[serde(deserialize_with = "crate::error::object")]
    pub action: Value,
    /// Also answer the exact odds of the action from the state it was applied to.
    #[serde(default)]
    pub odds: bool,
    /// Dice rolled at the table, used in order (the game master only); logged as given.
    #[serde(default)]
    pub dice: Option<Vec<i64>>,
    /// Who may see it: `public` (default), `private` (the roller and the game master), `blind`
    /// (the game master; the roller sees that it happened) or `self` (the roller).
    #[serde(default)]
    #[schema(schema_with = crate::schema::visibility)]
    pub visibility: Option<Visibility>,
    /// Fresh random entropy for the entry's draw: 8 to 128 visible ASCII characters (e.g. 32 random
    /// bytes in hex). The draw's secret was committed before it arrived, so with it no one, the
    /// server included, chose the roll; the server draws its own when it is absent.
    #[serde(default)]
    #[schema(schema_with = crate::schema::entropy)]
    pub entropy: Option<String>,
    /// The draw commitment the caller read (`next_draw_commitment` of `GET …/head`, or of the last
    /// entry): refused with 409 `moved-on` when another entry took that draw first.
    #[serde(default)]
    #[schema(schema_with = crate::schema::commitment)]
    pub commitment: Option<String>,
}

/// An applied action: its log entry and, when asked, the odds it had.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ActionResponse {
    #[schema(value_type = Object)]
    pub entry: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub odds: Option<Value>,
}

/// The exact odds of `action` from `state`, on the computation pool.
async fn action_odds(
    state: &AppState,
    rule_set: String,
    character_state: Value,
    action: Value,
) -> Result<Value, ApiError> {
    let limits = state.limits();
    state
        .inner
        .compute
        .run(move || {
            let game = omen_rules::stateful::game(&rule_set).ok_or_else(|| {
                ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    Problem::new(
                        "no-odds",
                        format!("a `{rule_set}` character takes no actions"),
                    ),
                )
            })?;
            game.odds(&character_state, &action, &limits)
                .map_err(|error| ApiError::from(omen_store::StoreError::Rules(error)))
        })
        .await?
}

/// Applies an action for a character: rolled with dice the campaign's key derives, logged, and
/// announced on the event stream.
#[utoipa::path(
    post,
    path = "/api/v1/campaigns/{campaign}/characters/{character}/actions",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("character" = String, Path)),
    request_body = ActionRequest,
    responses(
        (status = 200, description = "the log entry (and odds), as the caller may see them", body = ActionResponse),
        (status = 400, description = "a malformed request", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "not the game master nor the character's player", body = ErrorBody),
        (status = 404, description = "no such campaign or character", body = ErrorBody),
        (status = 409, description = "`moved-on`: the `commitment` sent is no longer the next draw's, since another entry took it first (nothing was drawn)", body = ErrorBody),
        (status = 422, description = "the rule set refuses the action", body = ErrorBody),
    )
)]
pub async fn act(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, character)): PathParams<(String, String)>,
    Body(request): Body<ActionRequest>,
) -> Result<Json<ActionResponse>, ApiError> {
    // An answer about a roll the caller may not see leaves on a whole quantum (see pacing.rs), so
    // its time does not follow its dice.
    let blind = asks_blind(&member, request.visibility);
    let answer = act_now(state, member, (campaign, character), request);
    crate::pacing::paced(blind, answer, |Json(answer)| {
        answer.entry["redacted"] == true && !answer.entry["commitment"].is_null()
    })
    .await
}

async fn act_now(
    state: AppState,
    member: Member,
    (campaign, character): (String, String),
    request: ActionRequest,
) -> Result<Json<ActionResponse>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::ActFor(&character))?;
    if request.dice.is_some() && !redactor.is_game_master() {
        return Err(ApiError::forbidden(
            "only the game master gives dice: given dice are a chosen roll",
        ));
    }
    let (secrets, before_action) = if redactor.is_game_master() {
        (Vec::new(), None)
    } else {
        let (found, withheld) = player_may_act(
            &state,
            &member,
            (&campaign, &character),
            &redactor,
            &request,
        )
        .await?;
        (redactor.secrets(&found), Some((found, withheld)))
    };
    let limits = state.limits();
    let dice = request.dice.map_or(Dice::Derived, Dice::Given);
    // After a hidden roll the caller may not see, the character's state carries its outcome (a
    // spent pool, a streak): whether an action is refused would tell it. Such actions are blind
    // until the game master reveals that roll, and a refusal that the state decides is logged as a
    // blind entry and answered as an accepted blind action is (one the rules give from any state,
    // a misspelt action say, is answered as usual).
    let after_hidden = before_action
        .as_ref()
        .is_some_and(|(_, withheld)| *withheld);
    let visibility = if after_hidden {
        Visibility::Blind
    } else {
        request.visibility.unwrap_or_default()
    };
    let options = EntryOptions::new(visibility, Some(Actor::of(&member)))
        .with_draw(request.entropy.clone(), request.commitment.clone());
    let (c, n, action) = (campaign.clone(), character.clone(), request.action.clone());
    let performed = state
        .inner
        .db
        .with(move |store| {
            let plan = Plan {
                campaign: &c,
                character: &n,
                action: &action,
                dice,
                limits,
                options,
                after_hidden,
            };
            perform(store, &member, &plan)
        })
        .await;
    let (entry, rule_set, before, withheld) = match (performed, &before_action) {
        (Ok(performed), _) => performed,
        (Err(error), Some((found, withheld))) => {
            let refused = Refused {
                rule_set: &found.rule_set,
                state: &found.state,
                action: &request.action,
                call: Call::Apply,
                withheld: *withheld,
            };
            return Err(for_viewer(&state, redactor, refused, error, &secrets).await);
        }
        (Err(error), None) => return Err(redactor.error(error, &secrets)),
    };
    state.announce(&campaign);
    let odds = if request.odds && withheld {
        Some(withheld_odds())
    } else if request.odds {
        let odds = action_odds(&state, rule_set.clone(), before, request.action)
            .await
            .map_err(|e| redactor.error(e, &secrets))?;
        Some(redactor.odds(&rule_set, &odds))
    } else {
        None
    };
    Ok(Json(ActionResponse {
        entry: serde_json::to_value(&entry).unwrap_or_default(),
        odds,
    }))
}

/// An action to write to a character: the rule set's action, how to roll and log it, and whether
/// it follows a roll hidden from its caller.
struct Plan<'a> {
    campaign: &'a str,
    character: &'a str,
    action: &'a Value,
    dice: Dice,
    limits: omen_core::Limits,
    options: EntryOptions,
    after_hidden: bool,
}

/// Performs the planned action for `member`, in the store's worker: the log entry as they may see
/// it, the rule set, the state before, and whether that state follows a roll hidden from them.
/// After a hidden roll, a refusal that the state decides is logged as a blind entry and returned
/// as one.
fn perform(
    store: &mut omen_store::Store,
    member: &Member,
    plan: &Plan<'_>,
) -> Result<(LogEntry, String, Value, bool), omen_store::StoreError> {
    let found = store.character(plan.campaign, plan.character)?;
    // Read before the action is logged: its own visibility does not hide the state it
    // starts from; an earlier hidden roll's does.
    let withheld = follows_hidden_roll(store, member, &found)?;
    let attempt = |store: &mut omen_store::Store, log_refusals: bool| {
        store.perform(
            omen_store::ActionRequest::new(plan.campaign, plan.character, plan.action)
                .with_dice(plan.dice.clone())
                .with_limits(plan.limits.clone())
                .with_options(plan.options.clone().logging_refusals(log_refusals)),
        )
    };
    let mut performed = attempt(store, false);
    if let Err(omen_store::StoreError::Rules(refusal)) = &performed
        && plan.after_hidden
        && !refused_from_any_state(&found.rule_set, plan.action, refusal, &plan.limits)
    {
        performed = attempt(store, true);
    }
    let entry = match performed {
        Err(omen_store::StoreError::Refused { sequence, .. }) if plan.after_hidden => {
            let filter = LogFilter {
                campaign: Some(plan.campaign.to_string()),
                ..LogFilter::default()
            };
            store
                .log_page(&filter, Some(sequence - 1), Some(1))?
                .pop()
                .ok_or_else(|| {
                    omen_store::StoreError::Corrupt("a logged refusal is missing".to_string())
                })?
        }
        other => other?,
    };
    Ok((
        seen(store, &entry, member)?,
        found.rule_set,
        found.state,
        withheld,
    ))
}

/// A player's or an observer's action checked before it runs: the character and whether its state
/// follows a roll hidden from them. An action that sets fields the rule set keeps for the game
/// master (a hidden modifier) is the game master's: a player cannot set what they may not see.
async fn player_may_act(
    state: &AppState,
    member: &Member,
    (campaign, character): (&str, &str),
    redactor: &Redactor,
    request: &ActionRequest,
) -> Result<(omen_store::Character, bool), ApiError> {
    let (c, n, who) = (campaign.to_string(), character.to_string(), member.clone());
    let (found, withheld) = state
        .inner
        .db
        .with(move |store| {
            let found = store.character(&c, &n)?;
            let withheld = follows_hidden_roll(store, &who, &found)?;
            Ok((found, withheld))
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    if redactor.show(&found.rule_set, Part::Action, &request.action) != request.action {
        return Err(ApiError::forbidden(
            "this action sets what only the game master sees; the game master takes it",
        ));
    }
    Ok((found, withheld))
}

/// Whether the rules refuse `action` with these words from a state the caller sees nothing of (every
/// field at its default): a refusal that does not depend on the hidden state.
fn refused_from_any_state(
    rule_set: &str,
    action: &Value,
    refusal: &omen_rules::stateful::ActionError,
    limits: &omen_core::Limits,
) -> bool {
    let Some(game) = omen_rules::stateful::game(rule_set) else {
        return false;
    };
    let empty = Value::Object(serde_json::Map::new());
    // Fixed dice: the outcome of a roll is never what refuses an action before it is rolled.
    game.apply(
        &empty,
        action,
        &mut omen_core::ChaChaDice::from_seed(0),
        limits,
    )
    .err()
    .is_some_and(|again| again.to_string() == refusal.to_string())
}

/// `POST .../odds`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OddsRequest {
    #[schema(value_type = Object)]
    #[serde(deserialize_with = "crate::error::object")]
    pub action: Value,
}

/// The exact odds of an action from the character's current state, without rolling.
#[utoipa::path(
    post,
    path = "/api/v1/campaigns/{campaign}/characters/{character}/odds",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("character" = String, Path)),
    request_body = OddsRequest,
    responses(
        (status = 200, description = "the odds, as the caller may see them", body = Object),
        (status = 400, description = "a malformed request", body = ErrorBody),
        CharacterMemberErrors,
        (status = 422, description = "the rule set refuses the action", body = ErrorBody),
    )
)]
pub async fn odds(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, character)): PathParams<(String, String)>,
    Body(request): Body<OddsRequest>,
) -> Result<Json<Value>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Read)?;
    let (found, withheld) = state
        .inner
        .db
        .with(move |store| {
            let found = store.character(&campaign, &character)?;
            let withheld = follows_hidden_roll(store, &member, &found)?;
            Ok((found, withheld))
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    if withheld {
        return Ok(Json(withheld_odds()));
    }
    let secrets = redactor.secrets(&found);
    let asked = action_odds(
        &state,
        found.rule_set.clone(),
        found.state.clone(),
        request.action.clone(),
    )
    .await;
    let odds = match asked {
        Ok(odds) => odds,
        Err(error) => {
            let refused = Refused {
                rule_set: &found.rule_set,
                state: &found.state,
                action: &request.action,
                call: Call::Odds,
                withheld: false,
            };
            return Err(for_viewer(&state, redactor, refused, error, &secrets).await);
        }
    };
    Ok(Json(redactor.odds(&found.rule_set, &odds)))
}
