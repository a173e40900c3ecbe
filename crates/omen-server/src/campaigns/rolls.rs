//! Rolls in a campaign: expressions rolled and logged, and the rolls a campaign saves by name.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use omen_store::{Actor, EntryOptions, LogEntry, Member, RollRequest, SavedRoll, Visibility};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::{Caller, Need, authorise};
use crate::error::{ApiError, Body, ErrorBody, PathParams};

use super::shared::{CampaignMemberErrors, asks_blind, seen};

/// `POST .../rolls`: an expression rolled in the campaign and logged.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignRoll {
    pub expression: String,
    #[serde(default)]
    #[schema(schema_with = crate::schema::params)]
    pub params: BTreeMap<String, Value>,
    /// The character it is rolled for.
    #[serde(default)]
    pub character: Option<String>,
    /// Who may see it, as for an action.
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

/// A logged roll: the entry and, when the caller may see its content, the roll with every die.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LoggedRoll {
    #[schema(value_type = Object)]
    pub entry: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub roll: Option<Value>,
}

impl LoggedRoll {
    fn new(written: &LogEntry, shown: LogEntry, rolled: &omen_store::ExpressionRoll) -> Self {
        // A blind roll's roller sees that it happened, not how: the roll goes with the content.
        let visible = shown.result == written.result && shown.dice == written.dice;
        LoggedRoll {
            entry: serde_json::to_value(&shown).unwrap_or_default(),
            roll: visible.then(|| serde_json::to_value(&rolled.roll).unwrap_or_default()),
        }
    }
}

fn need_for(character: Option<&str>) -> Need<'_> {
    character.map_or(Need::Play, Need::ActFor)
}

/// Rolls an expression in the campaign: logged, with dice the campaign's key derives.
#[utoipa::path(
    post,
    path = "/api/v1/campaigns/{campaign}/rolls",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path)),
    request_body = CampaignRoll,
    responses(
        (status = 200, description = "the log entry and the roll", body = LoggedRoll),
        (status = 400, description = "a malformed request", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "an observer, or another player's character", body = ErrorBody),
        (status = 404, description = "no such campaign or character", body = ErrorBody),
        (status = 409, description = "`moved-on`: the `commitment` sent is no longer the next draw's, since another entry took it first (nothing was drawn)", body = ErrorBody),
        (status = 422, description = "the expression does not compile or cannot be rolled", body = ErrorBody),
    )
)]
pub async fn roll_in_campaign(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
    Body(request): Body<CampaignRoll>,
) -> Result<Json<LoggedRoll>, ApiError> {
    // An answer about a roll the caller may not see leaves on a whole quantum (see pacing.rs), so
    // its time does not follow its dice.
    let blind = asks_blind(&member, request.visibility);
    let answer = roll_in_campaign_now(state, member, campaign, request);
    crate::pacing::paced(blind, answer, |Json(answer)| answer.roll.is_none()).await
}

async fn roll_in_campaign_now(
    state: AppState,
    member: Member,
    campaign: String,
    request: CampaignRoll,
) -> Result<Json<LoggedRoll>, ApiError> {
    let redactor = authorise(&member, &campaign, need_for(request.character.as_deref()))?;
    let limits = state.limits();
    let options = EntryOptions::new(
        request.visibility.unwrap_or_default(),
        Some(Actor::of(&member)),
    )
    .with_draw(request.entropy.clone(), request.commitment.clone());
    let c = campaign.clone();
    let answer = state
        .inner
        .db
        .with(move |store| {
            let (entry, rolled) = store.submit_roll(
                RollRequest::expression(&c, &request.expression)
                    .for_character(request.character.as_deref())
                    .with_params(request.params.clone())
                    .with_limits(limits)
                    .with_options(options),
            )?;
            Ok(LoggedRoll::new(
                &entry,
                seen(store, &entry, &member)?,
                &rolled,
            ))
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    state.announce(&campaign);
    Ok(Json(answer))
}

/// A saved roll.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct SavedBody {
    pub expression: String,
    #[serde(default)]
    #[schema(schema_with = crate::schema::params)]
    pub params: BTreeMap<String, Value>,
    #[serde(default)]
    pub description: Option<String>,
}

/// The campaign's saved rolls.
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}/saved",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path)),
    responses(
        (status = 200, description = "the saved rolls", body = Vec<Object>),
        CampaignMemberErrors,
    )
)]
pub async fn list_saved(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
) -> Result<Json<Vec<SavedRoll>>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Read)?;
    let saved = state
        .inner
        .db
        .with(move |store| store.saved_rolls(&campaign))
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    Ok(Json(saved))
}

/// Saves a roll under a name: the game master replaces one of the same name, a player only adds.
#[utoipa::path(
    put,
    path = "/api/v1/campaigns/{campaign}/saved/{name}",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("name" = String, Path)),
    request_body = SavedBody,
    responses(
        (status = 204, description = "saved"),
        (status = 400, description = "a malformed request", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "an observer", body = ErrorBody),
        (status = 404, description = "no such campaign", body = ErrorBody),
        (status = 409, description = "a player's roll under a name that is taken", body = ErrorBody),
        (status = 422, description = "the expression does not compile", body = ErrorBody),
    )
)]
pub async fn save_roll(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, name)): PathParams<(String, String)>,
    Body(body): Body<SavedBody>,
) -> Result<StatusCode, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Play)?;
    // A player adds saved rolls; replacing one is deleting it, which is the game master's.
    let replace = redactor.is_game_master();
    let saved = SavedRoll {
        name,
        expression: body.expression,
        params: body.params,
        description: body.description,
    };
    state
        .inner
        .db
        .with(move |store| store.save_roll(&campaign, &saved, replace))
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    Ok(StatusCode::NO_CONTENT)
}

/// Deletes a saved roll (the game master).
#[utoipa::path(
    delete,
    path = "/api/v1/campaigns/{campaign}/saved/{name}",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("name" = String, Path)),
    responses(
        (status = 204, description = "deleted"),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "not the game master", body = ErrorBody),
        (status = 404, description = "no such campaign or saved roll", body = ErrorBody),
    )
)]
pub async fn delete_saved(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, name)): PathParams<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let redactor = authorise(&member, &campaign, Need::GameMaster)?;
    state
        .inner
        .db
        .with(move |store| store.delete_saved_roll(&campaign, &name))
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST .../saved/{name}/roll`.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SavedRollRequest {
    /// Values over the saved defaults.
    #[serde(default)]
    #[schema(schema_with = crate::schema::params)]
    pub params: BTreeMap<String, Value>,
    #[serde(default)]
    pub character: Option<String>,
    /// Who may see it, as for an action.
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

/// Rolls a saved roll in the campaign, logged.
#[utoipa::path(
    post,
    path = "/api/v1/campaigns/{campaign}/saved/{name}/roll",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("name" = String, Path)),
    request_body = SavedRollRequest,
    responses(
        (status = 200, description = "the log entry and the roll", body = LoggedRoll),
        (status = 400, description = "a malformed request", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "an observer, or another player's character", body = ErrorBody),
        (status = 404, description = "no such campaign, saved roll or character", body = ErrorBody),
        (status = 409, description = "`moved-on`: the `commitment` sent is no longer the next draw's, since another entry took it first (nothing was drawn)", body = ErrorBody),
        (status = 422, description = "the roll cannot be rolled with these values", body = ErrorBody),
    )
)]
pub async fn roll_saved(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, name)): PathParams<(String, String)>,
    Body(request): Body<SavedRollRequest>,
) -> Result<Json<LoggedRoll>, ApiError> {
    // An answer about a roll the caller may not see leaves on a whole quantum (see pacing.rs), so
    // its time does not follow its dice.
    let blind = asks_blind(&member, request.visibility);
    let answer = roll_saved_now(state, member, (campaign, name), request);
    crate::pacing::paced(blind, answer, |Json(answer)| answer.roll.is_none()).await
}

async fn roll_saved_now(
    state: AppState,
    member: Member,
    (campaign, name): (String, String),
    request: SavedRollRequest,
) -> Result<Json<LoggedRoll>, ApiError> {
    let redactor = authorise(&member, &campaign, need_for(request.character.as_deref()))?;
    let limits = state.limits();
    let options = EntryOptions::new(
        request.visibility.unwrap_or_default(),
        Some(Actor::of(&member)),
    )
    .with_draw(request.entropy.clone(), request.commitment.clone());
    let c = campaign.clone();
    let answer = state
        .inner
        .db
        .with(move |store| {
            let (entry, rolled) = store.submit_roll(
                RollRequest::saved(&c, &name)
                    .for_character(request.character.as_deref())
                    .with_params(request.params.clone())
                    .with_limits(limits)
                    .with_options(options),
            )?;
            Ok(LoggedRoll::new(
                &entry,
                seen(store, &entry, &member)?,
                &rolled,
            ))
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    state.announce(&campaign);
    Ok(Json(answer))
}
