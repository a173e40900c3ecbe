//! A campaign as a whole: listed, created, shown, imported and exported, its log verified and its
//! head read.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use omen_store::{Role, Viewer};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::{Caller, Need, authorise};
use crate::error::{ApiError, Body, ErrorBody, PathParams};

use super::invites::InviteBody;
use super::shared::{CampaignMemberErrors, named_follows_hidden_roll};

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
