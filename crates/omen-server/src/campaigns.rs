//! Campaigns, characters, actions, saved rolls and the log. Every route authenticates the caller
//! ([`Caller`]), asks [`authorise`] what it may do, and sends what it answers through the caller's
//! [`Redactor`].

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use omen_rules::Part;
use omen_store::{
    Actor, Dice, EntryOptions, LogEntry, LogFilter, Member, Role, RollRequest, SavedRoll, Viewer,
    Visibility,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::auth::{Caller, Need, authorise};
use crate::error::{ApiError, Body, ErrorBody, PathParams, Problem};
use crate::redact::Redactor;
use crate::refusal::{Call, Refused, for_viewer};
use crate::summary::CharacterBody;

pub(crate) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_campaigns, create_campaign))
        .routes(routes!(show_campaign))
        .routes(routes!(import_campaign))
        .routes(routes!(list_invites, create_invite))
        .routes(routes!(revoke_invite))
        .routes(routes!(list_characters, create_character))
        .routes(routes!(show_character, edit_character, delete_character))
        .routes(routes!(act))
        .routes(routes!(odds))
        .routes(routes!(roll_in_campaign))
        .routes(routes!(list_saved))
        .routes(routes!(save_roll, delete_saved))
        .routes(routes!(roll_saved))
        .routes(routes!(reveal))
        .routes(routes!(verify))
        .routes(routes!(head))
        .routes(routes!(export))
}

/// Sets of refusals that several routes share, each documented once: 401 for a missing or unknown
/// token, and the 403 and 404 given. Each answer names what was refused in an [`ErrorBody`]; the
/// types are only read by the OpenAPI document, never built.
macro_rules! refusals {
    ($($(#[$doc:meta])* $name:ident: $forbidden:literal, $not_found:literal;)*) => {$(
        $(#[$doc])*
        #[derive(utoipa::IntoResponses)]
        #[allow(dead_code)]
        enum $name {
            /// no token, or an unknown one
            #[response(status = 401)]
            Unauthorized(ErrorBody),
            #[doc = $forbidden]
            #[response(status = 403)]
            Forbidden(ErrorBody),
            #[doc = $not_found]
            #[response(status = 404)]
            NotFound(ErrorBody),
        }
    )*};
}

refusals! {
    /// A member's read of the campaign.
    CampaignMemberErrors: "a token of another campaign", "no such campaign";
    /// A member's read of a character.
    CharacterMemberErrors: "a token of another campaign", "no such campaign or character";
    /// A game master's write to the campaign.
    GameMasterErrors: "not the game master", "no such campaign";
    /// A game master's write to a character.
    GameMasterCharacterErrors: "not the game master", "no such campaign or character";
}

/// A campaign, with how much it holds.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CampaignBody {
    pub name: String,
    pub created: String,
    pub characters: u64,
    pub log_entries: u64,
}

impl From<omen_store::Campaign> for CampaignBody {
    fn from(c: omen_store::Campaign) -> Self {
        CampaignBody {
            name: c.name,
            created: c.created,
            characters: c.characters,
            log_entries: c.log_entries,
        }
    }
}

/// `POST /api/v1/campaigns`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewCampaign {
    #[schema(schema_with = crate::schema::name)]
    pub name: String,
}

/// An invite: who it lets in, as what. Its token is shown once, when it is made.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct InviteBody {
    #[schema(value_type = Object)]
    pub invite: Value,
    /// The bearer token: shown once, stored only as a hash.
    pub token: String,
}

/// A new campaign and the game master's invite.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CreatedCampaign {
    pub campaign: CampaignBody,
    pub game_master: InviteBody,
}

fn forbidden_creation() -> ApiError {
    ApiError::forbidden("this server does not create campaigns over the API").map_help(
        "the server's operator creates them with `omen campaign new NAME` and `omen campaign invite NAME --role gm`",
    )
}

impl ApiError {
    fn map_help(mut self, help: &str) -> Self {
        for problem in &mut self.errors {
            problem.help = Some(help.to_string());
        }
        self
    }
}

/// The campaigns the caller's token opens (one: a token belongs to one campaign).
#[utoipa::path(
    get,
    path = "/api/v1/campaigns",
    tag = "campaigns",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the caller's campaigns", body = Vec<CampaignBody>),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
    )
)]
pub async fn list_campaigns(
    State(state): State<AppState>,
    Caller(member): Caller,
) -> Result<Json<Vec<CampaignBody>>, ApiError> {
    let campaign = state
        .inner
        .db
        .with(move |store| store.campaign(&member.campaign))
        .await?;
    Ok(Json(vec![campaign.into()]))
}

/// Creates a campaign and returns its game master's invite token (when the server allows it).
#[utoipa::path(
    post,
    path = "/api/v1/campaigns",
    tag = "campaigns",
    request_body = NewCampaign,
    responses(
        (status = 201, description = "the campaign and the game master's token", body = CreatedCampaign),
        (status = 400, description = "a malformed name", body = ErrorBody),
        (status = 403, description = "this server creates no campaigns over the API", body = ErrorBody),
        (status = 409, description = "the name is taken", body = ErrorBody),
    )
)]
pub async fn create_campaign(
    State(state): State<AppState>,
    Body(request): Body<NewCampaign>,
) -> Result<(StatusCode, Json<CreatedCampaign>), ApiError> {
    if !state.inner.config.open_campaigns {
        return Err(forbidden_creation());
    }
    let (campaign, invite, token) = state
        .inner
        .db
        .with(move |store| {
            let campaign = store.create_campaign(&request.name)?;
            let (invite, token) = store.create_invite(&campaign.name, Role::GameMaster, None)?;
            Ok((campaign, invite, token))
        })
        .await?;
    state.announce(&campaign.name);
    Ok((
        StatusCode::CREATED,
        Json(CreatedCampaign {
            campaign: campaign.into(),
            game_master: InviteBody {
                invite: serde_json::to_value(invite).unwrap_or_default(),
                token,
            },
        }),
    ))
}

/// One campaign.
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path)),
    responses(
        (status = 200, description = "the campaign", body = CampaignBody),
        CampaignMemberErrors,
    )
)]
pub async fn show_campaign(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
) -> Result<Json<CampaignBody>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Read)?;
    let found = state
        .inner
        .db
        .with(move |store| store.campaign(&campaign))
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    Ok(Json(found.into()))
}

/// `POST /api/v1/campaigns/import`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// What `GET .../export` (or `omen export`) gave.
    #[schema(value_type = Object)]
    pub export: Value,
    /// Another name to import it under.
    #[serde(default)]
    #[schema(schema_with = crate::schema::optional_name)]
    pub name: Option<String>,
}

/// Imports an exported campaign (its log is verified first) and returns its new game master's token.
#[utoipa::path(
    post,
    path = "/api/v1/campaigns/import",
    tag = "campaigns",
    request_body = ImportRequest,
    responses(
        (status = 201, description = "the campaign and the game master's token", body = CreatedCampaign),
        (status = 400, description = "a malformed request", body = ErrorBody),
        (status = 403, description = "this server creates no campaigns over the API", body = ErrorBody),
        (status = 409, description = "the name is taken", body = ErrorBody),
        (status = 422, description = "an `export` that cannot be imported (`bad-export`): not an export, or one whose log, signatures, names, sheets or states do not verify; no schema can check a signature, so this is the answer, not 400", body = ErrorBody),
    )
)]
pub async fn import_campaign(
    State(state): State<AppState>,
    Body(request): Body<ImportRequest>,
) -> Result<(StatusCode, Json<CreatedCampaign>), ApiError> {
    if !state.inner.config.open_campaigns {
        return Err(forbidden_creation());
    }
    let (campaign, invite, token) = state
        .inner
        .db
        .with(move |store| {
            let campaign = store.import_campaign(&request.export, request.name.as_deref())?;
            let (invite, token) = store.create_invite(&campaign.name, Role::GameMaster, None)?;
            Ok((campaign, invite, token))
        })
        .await?;
    state.announce(&campaign.name);
    Ok((
        StatusCode::CREATED,
        Json(CreatedCampaign {
            campaign: campaign.into(),
            game_master: InviteBody {
                invite: serde_json::to_value(invite).unwrap_or_default(),
                token,
            },
        }),
    ))
}

/// `POST .../invites`: its schema ([`crate::schema::new_invite`]) pairs each role with its
/// character, or none.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewInvite {
    /// `gm`, `player` or `observer`.
    pub role: Role,
    /// The character a player's invite lets them act for.
    #[serde(default)]
    pub character: Option<String>,
}

impl utoipa::PartialSchema for NewInvite {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::schema::new_invite()
    }
}

impl ToSchema for NewInvite {}

impl NewInvite {
    /// The pairing the document states: refused as a body the document refuses (422), before the
    /// store is asked.
    fn check(&self) -> Result<(), ApiError> {
        let refused = |message: &str| {
            Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                Problem::new("bad-json", message),
            ))
        };
        match (self.role, &self.character) {
            (Role::Player, None) => refused(
                "a player's invite names the character the player acts for: give `character`",
            ),
            (Role::GameMaster | Role::Observer, Some(_)) => refused(
                "only a player's invite names a character: leave `character` out of a `gm` or `observer` invite",
            ),
            _ => Ok(()),
        }
    }
}

/// The campaign's invites (never their tokens).
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}/invites",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path)),
    responses(
        (status = 200, description = "the invites", body = Vec<Object>),
        GameMasterErrors,
    )
)]
pub async fn list_invites(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
) -> Result<Json<Value>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::GameMaster)?;
    let invites = state
        .inner
        .db
        .with(move |store| store.invites(&campaign))
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    Ok(Json(serde_json::to_value(invites).unwrap_or_default()))
}

/// Makes an invite: its token is in the answer, once.
#[utoipa::path(
    post,
    path = "/api/v1/campaigns/{campaign}/invites",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path)),
    request_body = NewInvite,
    responses(
        (status = 201, description = "the invite and its token", body = InviteBody),
        (status = 400, description = "a malformed request", body = ErrorBody),
        GameMasterCharacterErrors,
        (status = 422, description = "a body the schema refuses: a player's invite without a character, another role's with one", body = ErrorBody),
    )
)]
pub async fn create_invite(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
    Body(request): Body<NewInvite>,
) -> Result<(StatusCode, Json<InviteBody>), ApiError> {
    let redactor = authorise(&member, &campaign, Need::GameMaster)?;
    request.check()?;
    let (invite, token) = state
        .inner
        .db
        .with(move |store| {
            store.create_invite(&campaign, request.role, request.character.as_deref())
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    Ok((
        StatusCode::CREATED,
        Json(InviteBody {
            invite: serde_json::to_value(invite).unwrap_or_default(),
            token,
        }),
    ))
}

/// Revokes an invite: its token stops working at once.
#[utoipa::path(
    delete,
    path = "/api/v1/campaigns/{campaign}/invites/{id}",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("id" = i64, Path)),
    responses(
        (status = 204, description = "revoked"),
        (status = 400, description = "a malformed id", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "not the game master", body = ErrorBody),
        (status = 404, description = "no such invite", body = ErrorBody),
        (status = 409, description = "an invite revoked already", body = ErrorBody),
    )
)]
pub async fn revoke_invite(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, id)): PathParams<(String, i64)>,
) -> Result<StatusCode, ApiError> {
    let redactor = authorise(&member, &campaign, Need::GameMaster)?;
    let c = campaign.clone();
    state
        .inner
        .db
        .with(move |store| store.revoke_invite(&c, id))
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    // The invite's event streams check their credential when woken, and end.
    state.announce(&campaign);
    Ok(StatusCode::NO_CONTENT)
}

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
    let mut secrets = Vec::new();
    let mut before_action = None;
    if !redactor.is_game_master() {
        // An action that sets fields the rule set keeps for the game master (a hidden modifier) is
        // the game master's: a player cannot set what they may not see.
        let (c, n, who) = (campaign.clone(), character.clone(), member.clone());
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
        secrets = redactor.secrets(&found);
        if redactor.show(&found.rule_set, Part::Action, &request.action) != request.action {
            return Err(ApiError::forbidden(
                "this action sets what only the game master sees; the game master takes it",
            ));
        }
        before_action = Some((found, withheld));
    }
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
            let found = store.character(&c, &n)?;
            // Read before the action is logged: its own visibility does not hide the state it
            // starts from; an earlier hidden roll's does.
            let withheld = follows_hidden_roll(store, &member, &found)?;
            let perform = |store: &mut omen_store::Store, log_refusals: bool| {
                store.perform(
                    omen_store::ActionRequest::new(&c, &n, &action)
                        .with_dice(dice.clone())
                        .with_limits(limits.clone())
                        .with_options(options.clone().logging_refusals(log_refusals)),
                )
            };
            let mut performed = perform(store, false);
            if let Err(omen_store::StoreError::Rules(refusal)) = &performed
                && after_hidden
                && !refused_from_any_state(&found.rule_set, &action, refusal, &limits)
            {
                performed = perform(store, true);
            }
            let entry = match performed {
                Err(omen_store::StoreError::Refused { sequence, .. }) if after_hidden => {
                    let filter = LogFilter {
                        campaign: Some(c.clone()),
                        ..LogFilter::default()
                    };
                    store
                        .log_page(&filter, Some(sequence - 1), Some(1))?
                        .pop()
                        .ok_or_else(|| {
                            omen_store::StoreError::Corrupt(
                                "a logged refusal is missing".to_string(),
                            )
                        })?
                }
                other => other?,
            };
            Ok((
                seen(store, &entry, &member)?,
                found.rule_set,
                found.state,
                withheld,
            ))
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

/// Whether a request asks for a roll its caller will not see: a blind one by anyone but the game
/// master.
fn asks_blind(member: &Member, visibility: Option<Visibility>) -> bool {
    member.role != Role::GameMaster && visibility == Some(Visibility::Blind)
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

/// Whether `character`'s state carries the outcome of a roll hidden from `member` on (a streak, a
/// balance, a spent pool): its state and its odds are then withheld from them until the roll is
/// revealed, as the log withholds the states of its later entries.
pub(crate) fn follows_hidden_roll(
    store: &omen_store::Store,
    member: &Member,
    character: &omen_store::Character,
) -> Result<bool, omen_store::StoreError> {
    named_follows_hidden_roll(store, member, &character.campaign, &character.name)
}

fn named_follows_hidden_roll(
    store: &omen_store::Store,
    member: &Member,
    campaign: &str,
    character: &str,
) -> Result<bool, omen_store::StoreError> {
    if member.role == Role::GameMaster {
        return Ok(false);
    }
    let filter = LogFilter {
        campaign: Some(campaign.to_string()),
        character: Some(character.to_string()),
        ..LogFilter::default()
    };
    Ok(store
        .log_for(&filter, &Viewer::Member(member.clone()))?
        .iter()
        .any(|entry| entry.inputs.get("kind").and_then(Value::as_str) == Some("hidden")))
}

/// The odds a viewer gets of a character whose state follows a roll hidden from them: the same
/// whatever the hidden roll and the state are.
fn withheld_odds() -> Value {
    json!({ "withheld": "the character's state follows a roll hidden from you; the game master sees its odds" })
}

/// A character as `member` may see it: the rule set's game-master-only fields removed, and its
/// state withheld while it follows a roll hidden from them.
pub(crate) fn visible_character(
    store: &omen_store::Store,
    member: &Member,
    redactor: &Redactor,
    character: &omen_store::Character,
) -> Result<Value, omen_store::StoreError> {
    let mut value = redactor.character(character);
    if follows_hidden_roll(store, member, character)? {
        value["state"] = Value::Null;
        value["summary"] = Value::Null;
        value["state_withheld"] = Value::Bool(true);
    }
    Ok(value)
}

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

/// One entry written for `member`, as they may see it.
fn seen(
    store: &omen_store::Store,
    entry: &LogEntry,
    member: &Member,
) -> Result<LogEntry, omen_store::StoreError> {
    store.entry_for(entry.clone(), &Viewer::Member(member.clone()))
}

/// Checks every hash, link, signature and seed proof of the log.
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}/verify",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path)),
    responses(
        (status = 200, description = "the report; `ok` says whether the log verifies", body = Object),
        CampaignMemberErrors,
    )
)]
pub async fn verify(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
) -> Result<Json<Value>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Read)?;
    let report = state
        .inner
        .db
        .with(move |store| store.verify(&campaign))
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    let mut value = serde_json::to_value(&report).unwrap_or_default();
    value["ok"] = Value::Bool(report.is_ok());
    if !redactor.is_game_master() {
        // A problem's text can quote a state; a player learns which entries fail, not why.
        value["problems"] = report
            .problems
            .iter()
            .map(|p| json!({ "sequence": p.sequence, "problem": "does not verify (the game master sees why)" }))
            .collect();
    }
    Ok(Json(value))
}

/// The chain head: the last entry's number and hash, signed; and the commitment of the draw the next
/// entry will take, to send back with fresh entropy (see the README's trust model).
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}/head",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path)),
    responses(
        (status = 200, description = "the head, or null for an empty log", body = Object),
        CampaignMemberErrors,
    )
)]
pub async fn head(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
) -> Result<Json<Value>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Read)?;
    let head = state
        .inner
        .db
        .with(move |store| {
            store.campaign(&campaign)?;
            Ok((
                store.head(&campaign)?,
                store.next_draw_commitment(&campaign)?,
            ))
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    let (head, next_draw_commitment) = head;
    Ok(Json(json!({
        "head": head,
        "receipt": head.as_ref().map(|h| h.receipt()),
        "next_draw_commitment": next_draw_commitment,
    })))
}

/// The whole campaign as JSON, log, hashes, signatures and public key included. The game master gets
/// everything (an export that `import` accepts); any other member gets the campaign as they may see
/// it (the log as the log route lists it, sheets and states without the rule sets' game-master-only
/// fields), marked `redacted_for` and refused by `import`, since what was withheld cannot be verified.
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}/export",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path)),
    responses(
        (status = 200, description = "the export, whole for the game master, redacted for others", body = Object),
        CampaignMemberErrors,
    )
)]
pub async fn export(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
) -> Result<Json<Value>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Read)?;
    let export = state
        .inner
        .db
        .with(move |store| match member.role {
            Role::GameMaster => store.export_campaign(&campaign),
            Role::Player | Role::Observer => {
                let mut export =
                    store.export_campaign_for(&campaign, &Viewer::Member(member.clone()))?;
                // A live state that carries a hidden roll's outcome on goes, as the character
                // routes withhold it.
                if let Some(characters) = export.get_mut("characters").and_then(Value::as_array_mut)
                {
                    for character in characters {
                        let name = character["name"].as_str().unwrap_or_default().to_string();
                        if named_follows_hidden_roll(store, &member, &campaign, &name)? {
                            character["state"] = Value::Null;
                            character["state_withheld"] = Value::Bool(true);
                        }
                    }
                }
                Ok(export)
            }
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    Ok(Json(export))
}

/// Reveals a hidden roll: a logged entry that gives the salt of its commitment, after which everyone
/// sees the roll and can check it against the commitment. The game master reveals every hidden roll
/// but a `self` roll; a `self` roll is its roller's alone to reveal (a player's, or the game
/// master's own). An observer reveals nothing.
#[utoipa::path(
    post,
    path = "/api/v1/campaigns/{campaign}/log/{sequence}/reveal",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("sequence" = u64, Path)),
    responses(
        (status = 200, description = "the reveal entry", body = Object),
        (status = 400, description = "a malformed entry number", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "a token of another campaign, an observer's, or the game master asking for another member's `self` roll", body = ErrorBody),
        (status = 404, description = "no such campaign or entry; to a player, any entry that is not their own hidden roll, whether it exists or not", body = ErrorBody),
        (status = 409, description = "an entry that is not hidden, or was revealed already", body = ErrorBody),
    )
)]
pub async fn reveal(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, sequence)): PathParams<(String, u64)>,
) -> Result<Json<Value>, ApiError> {
    // The game master and players; the store decides which entries each may reveal.
    let redactor = authorise(&member, &campaign, Need::Play)?;
    let game_master = redactor.is_game_master();
    let (c, viewer) = (campaign.clone(), Viewer::Member(member.clone()));
    // As the caller: a `self` roll is its roller's to reveal, even the game master's own.
    let answer = state
        .inner
        .db
        .with(move |store| store.reveal_as(&c, sequence, &viewer));
    // A player's answer leaves on a whole quantum, so its time does not tell another's hidden roll
    // from no entry at all.
    let entry = crate::pacing::paced(!game_master, answer, |_| false)
        .await
        .map_err(|error| match game_master {
            true => error,
            false => refused_reveal(error, redactor, &campaign, sequence),
        })?;
    state.announce(&campaign);
    Ok(Json(serde_json::to_value(entry).unwrap_or_default()))
}

/// A player's refused reveal. An entry that is not theirs to reveal is refused as one that does not
/// exist, in the same words, so the refusal tells nothing of whose it is or what it holds; an entry
/// that is not hidden or was revealed already is one everyone sees, so that conflict is told as it
/// is.
fn refused_reveal(error: ApiError, redactor: Redactor, campaign: &str, sequence: u64) -> ApiError {
    match error.status {
        StatusCode::NOT_FOUND | StatusCode::FORBIDDEN => ApiError::not_found(format!(
            "`{campaign}` has no entry {sequence} that this player may reveal; a player reveals only their own `self` rolls, the game master the other hidden ones"
        )),
        StatusCode::CONFLICT => error,
        _ => redactor.error(error, &[]),
    }
}
