//! A campaign's characters: listed, created, shown, edited and deleted.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::{Caller, Need, authorise};
use crate::error::{ApiError, Body, ErrorBody, PathParams, Problem};
use crate::summary::CharacterBody;

use super::shared::{
    CampaignMemberErrors, CharacterMemberErrors, GameMasterCharacterErrors, visible_character,
};

/// The campaign's characters.
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}/characters",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path)),
    responses(
        (status = 200, description = "the characters, as the caller may see them", body = Vec<CharacterBody>),
        CampaignMemberErrors,
    )
)]
pub async fn list_characters(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
) -> Result<Json<Vec<Value>>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Read)?;
    let characters = state
        .inner
        .db
        .with(move |store| {
            store
                .characters(&campaign)?
                .iter()
                .map(|c| visible_character(store, &member, &redactor, c))
                .collect::<Result<Vec<_>, _>>()
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    Ok(Json(characters))
}

/// `POST .../characters`: a new character from a sheet (or the rule set's creation choices: the
/// sheet schema at `GET /api/v1/rules/{game}` says which it takes).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewCharacter {
    pub name: String,
    /// The rule set, e.g. `luck`; `none` for a character bound to no rule set, that only rolls expressions.
    pub rule_set: String,
    #[serde(default = "empty_object", deserialize_with = "crate::error::object")]
    pub sheet: Value,
}

impl utoipa::PartialSchema for NewCharacter {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::schema::new_character()
    }
}

impl ToSchema for NewCharacter {}

impl NewCharacter {
    /// The pairing the document states: a plain character has no sheet. Refused as a body the
    /// document refuses (422), before the store is asked.
    fn check(&self) -> Result<(), ApiError> {
        let empty = self.sheet.as_object().is_some_and(|sheet| sheet.is_empty());
        if self.rule_set == omen_store::PLAIN && !empty {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                Problem::new(
                    "bad-json",
                    "a plain character (`rule_set` `none`) has no sheet: leave `sheet` out, or choose a rule set",
                ),
            ));
        }
        Ok(())
    }
}

fn empty_object() -> Value {
    json!({})
}

/// Creates a character (the game master).
#[utoipa::path(
    post,
    path = "/api/v1/campaigns/{campaign}/characters",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path)),
    request_body = NewCharacter,
    responses(
        (status = 201, description = "the character", body = CharacterBody),
        (status = 400, description = "a malformed request", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "not the game master", body = ErrorBody),
        (status = 404, description = "no such campaign or rule set", body = ErrorBody),
        (status = 409, description = "the name is taken", body = ErrorBody),
        (status = 422, description = "the rule set refuses the sheet, or a plain character (`none`) has one", body = ErrorBody),
    )
)]
pub async fn create_character(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
    Body(request): Body<NewCharacter>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let redactor = authorise(&member, &campaign, Need::GameMaster)?;
    request.check()?;
    let announce = campaign.clone();
    let character = state
        .inner
        .db
        .with(move |store| {
            store.create_character(&campaign, &request.name, &request.rule_set, &request.sheet)
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    state.announce(&announce);
    Ok((StatusCode::CREATED, Json(redactor.character(&character))))
}

/// One character.
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}/characters/{character}",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("character" = String, Path)),
    responses(
        (status = 200, description = "the character, as the caller may see it", body = CharacterBody),
        CharacterMemberErrors,
    )
)]
pub async fn show_character(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, character)): PathParams<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Read)?;
    let found = state
        .inner
        .db
        .with(move |store| {
            let found = store.character(&campaign, &character)?;
            visible_character(store, &member, &redactor, &found)
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    Ok(Json(found))
}

/// `PATCH .../characters/{character}`: a game-master edit.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CharacterEdit {
    /// A new state, whole, as the rule set's state schema describes it.
    #[serde(default, deserialize_with = "crate::error::optional_object")]
    #[schema(value_type = Option<Object>)]
    pub state: Option<Value>,
    /// A new name.
    #[serde(default)]
    #[schema(schema_with = crate::schema::optional_name)]
    pub name: Option<String>,
}

/// Edits a character's state or name (the game master); both are logged.
#[utoipa::path(
    patch,
    path = "/api/v1/campaigns/{campaign}/characters/{character}",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("character" = String, Path)),
    request_body = CharacterEdit,
    responses(
        (status = 200, description = "the character after the edit", body = CharacterBody),
        (status = 400, description = "a malformed request", body = ErrorBody),
        GameMasterCharacterErrors,
        (status = 409, description = "the new name is taken", body = ErrorBody),
        (status = 422, description = "the rule set refuses the state", body = ErrorBody),
    )
)]
pub async fn edit_character(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, character)): PathParams<(String, String)>,
    Body(edit): Body<CharacterEdit>,
) -> Result<Json<Value>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::GameMaster)?;
    let announce = campaign.clone();
    let edited = state
        .inner
        .db
        .with(move |store| {
            if let Some(new_state) = &edit.state {
                store.set_state(&campaign, &character, new_state)?;
            }
            let name = match &edit.name {
                Some(name) => {
                    store.rename_character(&campaign, &character, name)?;
                    name.clone()
                }
                None => character,
            };
            store.character(&campaign, &name)
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    state.announce(&announce);
    Ok(Json(redactor.character(&edited)))
}

/// Deletes a character (the game master); the log keeps its history.
#[utoipa::path(
    delete,
    path = "/api/v1/campaigns/{campaign}/characters/{character}",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("character" = String, Path)),
    responses(
        (status = 204, description = "deleted"),
        GameMasterCharacterErrors,
    )
)]
pub async fn delete_character(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, character)): PathParams<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let redactor = authorise(&member, &campaign, Need::GameMaster)?;
    let announce = campaign.clone();
    state
        .inner
        .db
        .with(move |store| store.delete_character(&campaign, &character))
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    state.announce(&announce);
    Ok(StatusCode::NO_CONTENT)
}
