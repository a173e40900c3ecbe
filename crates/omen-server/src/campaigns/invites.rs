//! A campaign's invites: listed, made and revoked by its game master.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use omen_store::Role;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::{Caller, Need, authorise};
use crate::error::{ApiError, Body, ErrorBody, PathParams, Problem};

use super::shared::{GameMasterCharacterErrors, GameMasterErrors};

/// An invite: who it lets in, as what. Its token is shown once, when it is made.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct InviteBody {
    #[schema(value_type = Object)]
    pub invite: Value,
    /// The bearer token: shown once, stored only as a hash.
    pub token: String,
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
