//! `/api/v1/session`: the web page trades an invite's token for a session cookie, asks whom the
//! cookie lets in (and the session's CSRF token), and logs out.
//!
//! The invite link the game master hands out is `/table#join=TOKEN`: the token is in the fragment,
//! which a browser never sends, so it reaches the server only in this route's JSON body (never in
//! a URL, so never in an access log). The cookie is `HttpOnly` (no script reads it),
//! `SameSite=Strict` (no other site's page sends it), `Secure` when the request came over HTTPS
//! (or `Config::secure_cookies`), and lasts `Config::session_lifetime`. See [`crate::auth`] for the
//! CSRF token that cookie-authenticated writes carry.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use cookie::{Cookie, SameSite};
use omen_store::{Member, Role};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::auth::{Credential, credential, csrf_matches, csrf_refused, csrf_token};
use crate::error::{ApiError, Body, ErrorBody};

pub(crate) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(show_session, open_session, end_session))
}

/// `POST /api/v1/session`.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenSession {
    /// An invite's token.
    pub token: String,
}

/// Whom a session (or a bearer token) lets in.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SessionBody {
    pub campaign: String,
    /// `gm`, `player` or `observer`.
    #[schema(value_type = String)]
    pub role: Role,
    /// The characters a player acts for.
    pub characters: Vec<String>,
    /// The token a cookie-authenticated write sends in `X-Omen-CSRF`; null for a bearer token.
    pub csrf: Option<String>,
    /// When the session ends (RFC 3339); null for a bearer token.
    pub expires: Option<String>,
}

impl SessionBody {
    fn new(member: Member, session: Option<(&str, String)>) -> Self {
        let (csrf, expires) = match session {
            Some((id, expires)) => (Some(csrf_token(id)), Some(expires)),
            None => (None, None),
        };
        SessionBody {
            campaign: member.campaign,
            role: member.role,
            characters: member.characters,
            csrf,
            expires,
        }
    }
}

/// Whether the request reached us over HTTPS: a TLS-terminating proxy in front says so.
fn over_https(headers: &HeaderMap) -> bool {
    let forwarded_proto = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"));
    let forwarded = headers
        .get(header::FORWARDED)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split([';', ','])
                .any(|part| part.trim().eq_ignore_ascii_case("proto=https"))
        });
    forwarded_proto || forwarded
}

fn session_cookie(value: String, max_age_seconds: i64, secure: bool) -> HeaderValue {
    let cookie = Cookie::build((crate::auth::SESSION_COOKIE, value))
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(secure)
        .path("/")
        .max_age(cookie::time::Duration::seconds(max_age_seconds))
        .build();
    // A cookie built from our own name and a hex id is always a valid header value.
    HeaderValue::from_str(&cookie.to_string()).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// Trades an invite's token for a session cookie (`HttpOnly`, `SameSite=Strict`, `Secure` over
/// HTTPS); the answer says whom it lets in and carries the session's CSRF token.
#[utoipa::path(
    post,
    path = "/api/v1/session",
    tag = "campaigns",
    request_body = OpenSession,
    responses(
        (status = 201, description = "the session; its id is in the `Set-Cookie` header", body = SessionBody),
        (status = 401, description = "an unknown or revoked token", body = ErrorBody),
    )
)]
pub async fn open_session(
    State(state): State<AppState>,
    headers: HeaderMap,
    Body(request): Body<OpenSession>,
) -> Result<Response, ApiError> {
    let lifetime = state.inner.config.session_lifetime;
    let secure = state.inner.config.secure_cookies || over_https(&headers);
    let token = request.token;
    let session = state
        .inner
        .db
        .with(move |store| store.open_session(&token, lifetime))
        .await?
        .ok_or_else(|| ApiError::invalid_credential(&Credential::Bearer(String::new())))?;
    let max_age = i64::try_from(lifetime.as_secs()).unwrap_or(i64::MAX);
    let cookie = session_cookie(session.id.clone(), max_age, secure);
    let body = SessionBody::new(session.member, Some((&session.id, session.expires)));
    Ok((
        StatusCode::CREATED,
        [(header::SET_COOKIE, cookie)],
        Json(body),
    )
        .into_response())
}

/// Whom the request's session cookie (or bearer token) lets in, with the session's CSRF token.
#[utoipa::path(
    get,
    path = "/api/v1/session",
    tag = "campaigns",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the member", body = SessionBody),
        (status = 401, description = "no session or token, or an expired or revoked one", body = ErrorBody),
    )
)]
pub async fn show_session(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<SessionBody>, ApiError> {
    let credential = credential(&headers).ok_or_else(ApiError::unauthorized)?;
    let refused = ApiError::invalid_credential(&credential);
    let body = match credential {
        Credential::Bearer(token) => {
            let member = state
                .inner
                .db
                .with(move |store| store.authenticate(&token))
                .await?
                .ok_or(refused)?;
            SessionBody::new(member, None)
        }
        Credential::Session(id) => {
            let lookup = id.clone();
            let (member, expires) = state
                .inner
                .db
                .with(move |store| store.session(&lookup))
                .await?
                .ok_or(refused)?;
            SessionBody::new(member, Some((&id, expires)))
        }
    };
    Ok(Json(body))
}

/// Logs out: ends the request's session and clears its cookie. Needs the CSRF token. A bearer
/// token has no session to end, so the document names the cookie alone.
#[utoipa::path(
    delete,
    path = "/api/v1/session",
    tag = "campaigns",
    security(("cookie" = [])),
    responses(
        (status = 204, description = "the session has ended"),
        (status = 401, description = "no session, or one that had already ended", body = ErrorBody),
        (status = 403, description = "no CSRF token, or another session's", body = ErrorBody),
    )
)]
pub async fn end_session(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Some(id) = crate::auth::session_cookie(&headers) else {
        return Err(ApiError::unauthorized());
    };
    if !csrf_matches(&headers, &id) {
        return Err(csrf_refused());
    }
    let (ended, campaign) = state
        .inner
        .db
        .with(move |store| {
            let campaign = store.session(&id)?.map(|(member, _)| member.campaign);
            Ok((store.end_session(&id)?, campaign))
        })
        .await?;
    if !ended {
        return Err(ApiError::invalid_credential(&Credential::Session(
            String::new(),
        )));
    }
    // The session's event streams check their credential when woken, and end now rather than at
    // their next entry.
    if let Some(campaign) = campaign {
        state.announce(&campaign);
    }
    let secure = state.inner.config.secure_cookies || over_https(&headers);
    Ok((
        StatusCode::NO_CONTENT,
        [(header::SET_COOKIE, session_cookie(String::new(), 0, secure))],
    )
        .into_response())
}
