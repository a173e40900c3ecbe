//! Who is asking: authentication is one extractor (a bearer token or a session cookie to a
//! [`Member`]), authorisation one function ([`authorise`]).
//!
//! A token is an invite's (`omen campaign invite CAMPAIGN --role gm|player|observer [--char NAME]`, or
//! `POST /api/v1/campaigns/{campaign}/invites`): it names one campaign and one role. The game master
//! does everything; a player reads and acts for the characters the invite names; an observer only
//! reads. The web page trades the token for a session cookie (`POST /api/v1/session`, see
//! [`crate::session`]): a request carries `Authorization: Bearer TOKEN` or the cookie, and
//! [`credential`] is the one place either is read.
//!
//! # Cross-site requests
//!
//! A browser sends a cookie by itself, so a request authenticated by the cookie that writes (any
//! method but GET, HEAD and OPTIONS) must also carry the session's CSRF token in [`CSRF_HEADER`]: a
//! page of another site cannot read that token, and cannot send a custom header without the
//! server's consent (CORS, which this server never grants). The cookie is also `SameSite=Strict`.
//! A bearer token is never sent by a browser on its own, so bearer requests need no CSRF token.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use omen_rules::View;
use sha2::{Digest, Sha256};

pub use omen_store::{Member, Role};

use crate::AppState;
use crate::error::{ApiError, Problem};
use crate::redact::Redactor;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "omen_session";

/// The header a cookie-authenticated write carries its CSRF token in.
pub const CSRF_HEADER: &str = "x-omen-csrf";

/// What a request presents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Credential {
    /// `Authorization: Bearer TOKEN`: an invite's token.
    Bearer(String),
    /// The session cookie: a session's id.
    Session(String),
}

// The refusal of a credential is written beside the credential, so the error type below names none.
impl ApiError {
    /// A credential was sent but lets no one in. Which of the three it is stays unsaid: telling an
    /// unknown token from a revoked one would tell a guesser which tokens once existed.
    pub(crate) fn invalid_credential(credential: &Credential) -> Self {
        let (what, help) = match credential {
            Credential::Bearer(_) => (
                "the bearer token is not valid: it is unknown, revoked or expired",
                "ask the game master for a new invite (`omen campaign invite`)",
            ),
            Credential::Session(_) => (
                "the session is not valid: it is unknown, ended or expired",
                "open the invite link again, or trade its token with `POST /api/v1/session`",
            ),
        };
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            Problem::new("unauthorized", what).with_help(help),
        )
    }
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// The session id in the request's cookies, if any.
pub(crate) fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == SESSION_COOKIE)
        .map(|c| c.value().to_string())
        .filter(|v| !v.is_empty())
}

/// The credential of a request: a bearer token first (a client that sends one means it), else the
/// session cookie.
pub(crate) fn credential(headers: &HeaderMap) -> Option<Credential> {
    bearer(headers)
        .map(Credential::Bearer)
        .or_else(|| session_cookie(headers).map(Credential::Session))
}

/// The CSRF token of session `id`: derived from the id (which only the server and the cookie hold),
/// so nothing more is stored and a page learns it only from `GET /api/v1/session`.
pub fn csrf_token(session_id: &str) -> String {
    let digest = Sha256::digest(format!("omen-csrf\0{session_id}").as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `headers` carry session `id`'s CSRF token. Compared without an early exit, so the time
/// taken says nothing about how much of a guess was right.
pub(crate) fn csrf_matches(headers: &HeaderMap, session_id: &str) -> bool {
    let expected = csrf_token(session_id);
    let Some(given) = headers.get(CSRF_HEADER).map(|v| v.as_bytes()) else {
        return false;
    };
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected.as_bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

pub(crate) fn csrf_refused() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::FORBIDDEN,
        Problem::new(
            "csrf",
            "a write with the session cookie needs the session's CSRF token",
        )
        .with_help(format!(
            "send the `csrf` of `GET /api/v1/session` in the `{CSRF_HEADER}` header"
        )),
    )
}

/// The member a request's credential belongs to; 401 without one or with an unknown, expired or
/// revoked one, 403 for a cookie-authenticated write without the CSRF token.
#[derive(Clone, Debug)]
pub struct Caller(pub Member);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Some(credential) = credential(&parts.headers) else {
            return Err(ApiError::unauthorized());
        };
        let refused = ApiError::invalid_credential(&credential);
        let member = match credential {
            Credential::Bearer(token) => {
                // Tokens are long and random; one longer than any invite's is refused without a
                // look-up.
                if token.len() > 256 {
                    return Err(refused);
                }
                state
                    .inner
                    .db
                    .with(move |store| store.authenticate(&token))
                    .await?
            }
            Credential::Session(id) => {
                if !parts.method.is_safe() && !csrf_matches(&parts.headers, &id) {
                    return Err(csrf_refused());
                }
                if id.len() > 256 {
                    return Err(refused);
                }
                state
                    .inner
                    .db
                    .with(move |store| store.session(&id))
                    .await?
                    .map(|(member, _)| member)
            }
        };
        member.map(Caller).ok_or(refused)
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
