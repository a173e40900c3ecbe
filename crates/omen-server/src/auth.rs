//! Who is asking: authentication is one extractor (a bearer token to a [`Member`]), authorisation one
//! function ([`authorise`]).
//!
//! A token is an invite's (`omen campaign invite CAMPAIGN --role gm|player|observer [--char NAME]`, or
//! `POST /api/v1/campaigns/{campaign}/invites`): it names one campaign and one role. The game master
//! does everything; a player reads and acts for the characters the invite names; an observer only
//! reads. The web page exchanges the token for a session cookie: that exchange plugs in at
//! [`token`], the one place a request's credential is read.

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use omen_rules::View;

pub use omen_store::{Member, Role};

use crate::AppState;
use crate::error::ApiError;
use crate::redact::Redactor;

/// The credential of a request: `Authorization: Bearer TOKEN`.
fn token(parts: &Parts) -> Option<String> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// The member a request's token belongs to; 401 without a token or with an unknown or revoked one.
#[derive(Clone, Debug)]
pub struct Caller(pub Member);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Some(token) = token(parts) else {
            return Err(ApiError::unauthorized());
        };
        // Tokens are long and random; one longer than any invite's is refused without a look-up.
        if token.len() > 256 {
            return Err(ApiError::unauthorized());
        }
        let member = state
            .inner
            .db
            .with(move |store| store.authenticate(&token))
            .await?;
        member.map(Caller).ok_or_else(ApiError::unauthorized)
    }
}

/// What a request needs to do.
#[derive(Clone, Copy, Debug)]
pub enum Need<'a> {
    /// Read the campaign: every member.
    Read,
    /// Act for (or roll as) a character: the game master, or a player who owns it.
    ActFor(&'a str),
    /// Roll without a character, or save a roll: the game master and players.
    Play,
    /// Everything else: the game master only.
    GameMaster,
}

/// Whether `member` may do what `need` says in `campaign`, and if so, what they may see.
///
/// # Errors
/// 403 for a token of another campaign or a role that may not.
pub fn authorise(member: &Member, campaign: &str, need: Need<'_>) -> Result<Redactor, ApiError> {
    if member.campaign != campaign {
        return Err(ApiError::forbidden(
            "this token belongs to another campaign",
        ));
    }
    let allowed = match (member.role, need) {
        (Role::GameMaster, _) => true,
        (_, Need::Read) => true,
        (Role::Player, Need::Play) => true,
        (Role::Player, Need::ActFor(character)) => member.characters.iter().any(|c| c == character),
        _ => false,
    };
    if !allowed {
        let message = match (member.role, need) {
            (Role::Observer, _) => "an observer only reads".to_string(),
            (_, Need::ActFor(character)) => {
                format!("this player's characters do not include `{character}`")
            }
            _ => "only the game master may do this".to_string(),
        };
        return Err(ApiError::forbidden(message));
    }
    Ok(Redactor::new(view(member.role)))
}

/// What a role sees: the game master everything, everyone else the player's view.
pub fn view(role: Role) -> View {
    match role {
        Role::GameMaster => View::GameMaster,
        _ => View::Player,
    }
}
