//! Omen's HTTP API: dice, exact odds and campaigns for a whole table, with game-master, player and
//! observer roles. A library: [`app`] returns the [`axum::Router`] with every route; `omen serve`
//! binds it to a socket.
//!
//! ```
//! use axum::body::Body;
//! use axum::http::Request;
//! use tower::ServiceExt;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let store = omen_store::Store::open_in_memory()?;
//! let app = omen_server::app(omen_server::AppState::new(store, omen_server::Config::default()));
//! let request = Request::post("/api/v1/prob")
//!     .header("content-type", "application/json")
//!     .body(Body::from(r#"{"expressions": ["2d6"]}"#))?;
//! let response = app.oneshot(request).await?;
//! assert_eq!(response.status(), 200);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! # Shape
//!
//! Every route is under `/api/v1/`; the OpenAPI 3.1 document at `/api/v1/openapi.json` is generated
//! from the handlers' annotations and types ([`openapi`]), so it cannot drift from them. Errors are
//! JSON, `{"errors": [{"kind", "message", "span", "help"}]}` as the CLI's `--format json` diagnostics,
//! with the status codes 400 (malformed), 401 (no or unknown token), 403 (a role that may not), 404,
//! 409 (a name that is taken), 413 (body too large), 422 (an expression or action that is well
//! formed but refused), 429 (rate limit) and 503 with `Retry-After` (a saturated pool, a timeout).
//! With [`Config::discord`] set, `POST /discord/interactions` answers Discord's interactions
//! ([`discord`]): Discord's protocol, so outside the OpenAPI document.
//!
//! # Limits
//!
//! Every request is bounded: the body size, a timeout, a per-client rate limit, and the work of one
//! computation ([`Config::limits`], by default half the CLI's work budget). Exact computations
//! run on a bounded pool ([`Config::compute_threads`]); a request that waits longer than
//! [`Config::queue_timeout`] for its turn gets 503. The database is used from worker threads only,
//! never from the async threads. Odds are cached by a hash of the program and its options
//! ([`Config::cache_entries`] of them, least recently used first out).
//!
//! # Roles
//!
//! See [`auth`]: a bearer token is an invite's token; it names a campaign and a role. The web page
//! trades it for a session cookie (`POST /api/v1/session`), and a write with the cookie carries the
//! session's CSRF token. Everything a
//! non-game-master receives passes through one redaction step ([`redact`]), which removes what each
//! rule set declares game-master-only.

// STYLE.md 16: no function over 100 lines; a longer one is split into named steps.
#![deny(clippy::too_many_lines)]

pub mod auth;
mod campaigns;
mod client;
mod config;
pub mod discord;
pub mod error;
mod events;
mod fair;
mod fairness;
mod filters;
mod host;
mod listing;
mod net;
mod odds;
mod pacing;
mod page;
pub mod prob;
pub mod redact;
mod refusal;
mod rules;
mod schema;
mod session;
mod state;
mod streams;
mod summary;
mod work;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use tower_governor::GovernorLayer;
use tower_governor::governor::GovernorConfigBuilder;
use tower_governor::key_extractor::KeyExtractor;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use crate::config::{
    Config, DEFAULT_MAX_OUTCOMES, DEFAULT_MAX_OUTPUT, DEFAULT_MAX_STATES, DEFAULT_WORK_BUDGET,
    default_limits,
};
use crate::error::{ApiError, Problem};
pub use crate::events::{PAGE_BYTES as STREAM_PAGE_BYTES, PAGE_ENTRIES as STREAM_PAGE_ENTRIES};
pub use crate::fairness::REPORT_BUDGET_RATIO;
pub use crate::listing::{DEFAULT_LIMIT as LOG_PAGE_DEFAULT, MAX_LIMIT as LOG_PAGE_MAX};
pub use crate::net::{RESERVED_DESCRIPTORS, connection_limit, raise_descriptor_limit};
pub use crate::state::AppState;
pub(crate) use crate::state::Notice;
pub use crate::streams::{STREAMS_PER_ADDRESS, STREAMS_PER_MEMBER};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Omen",
        description = "Dice, exact odds and campaigns with a signed roll log, for a game master, players and observers.",
        license(name = "MIT OR Apache-2.0")
    ),
    modifiers(&BearerToken),
    components(schemas(crate::schema::ParamValue)),
    tags(
        (name = "dice", description = "stateless: exact odds and rolls"),
        (name = "rules", description = "the rule sets and their schemas"),
        (name = "campaigns", description = "campaigns, characters, actions and the log; a bearer token names the campaign and the role"),
    )
)]
struct ApiDoc;

struct BearerToken;

impl utoipa::Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("an invite's token (`omen campaign invite`)"))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "cookie",
            SecurityScheme::ApiKey(utoipa::openapi::security::ApiKey::Cookie(
                utoipa::openapi::security::ApiKeyValue::with_description(
                    auth::SESSION_COOKIE,
                    "the web page's session (`POST /api/v1/session`); a write with it also sends the session's CSRF token in `X-Omen-CSRF`",
                ),
            )),
        );
    }
}

/// The answers any route can give, from the layers in front of every handler: documented on every
/// operation so that a client (and the API fuzz test) finds each status it can meet.
struct EveryRoute;

impl utoipa::Modify for EveryRoute {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
        let error = |description: &str| {
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("ErrorBody")))
                        .build(),
                )
                .build()
        };
        let common = [
            ("400", "a malformed path, query or body"),
            ("413", "the body is larger than the server accepts"),
            (
                "429",
                "too many requests from this address; see Retry-After",
            ),
            (
                "503",
                "the server is busy or the request took too long; see Retry-After",
            ),
        ];
        for item in openapi.paths.paths.values_mut() {
            for (writes, operation) in [
                (false, &mut item.get),
                (true, &mut item.post),
                (true, &mut item.put),
                (true, &mut item.patch),
                (true, &mut item.delete),
            ]
            .into_iter()
            .filter_map(|(writes, operation)| Some((writes, operation.as_mut()?)))
            {
                let secured = operation.security.as_ref().is_some_and(|s| !s.is_empty());
                // Logging out names the cookie itself.
                let names_cookie = operation.security.iter().flatten().any(|requirement| {
                    serde_json::to_value(requirement).is_ok_and(|v| v.get("cookie").is_some())
                });
                if secured && !names_cookie {
                    // Every route that takes a bearer token takes the session cookie instead.
                    let security = operation.security.get_or_insert_with(Vec::new);
                    security.push(utoipa::openapi::security::SecurityRequirement::new(
                        "cookie",
                        Vec::<String>::new(),
                    ));
                }
                let extra = secured.then_some((
                    "401",
                    "no bearer token or session, or an unknown, expired or revoked one",
                ));
                let csrf = (secured && writes).then_some((
                    "403",
                    "a write with the session cookie but without its CSRF token (`X-Omen-CSRF`)",
                ));
                let with_body = operation.request_body.is_some();
                let body = [
                    (
                        "415",
                        "a body sent without `Content-Type: application/json`",
                    ),
                    (
                        "422",
                        "a JSON body whose fields do not have the documented shape",
                    ),
                ]
                .into_iter()
                .filter(|_| with_body);
                for (status, description) in common.into_iter().chain(extra).chain(csrf).chain(body)
                {
                    operation
                        .responses
                        .responses
                        .entry(status.to_string())
                        .or_insert_with(|| error(description).into());
                }
            }
        }
    }
}

fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(prob::prob))
        .routes(routes!(prob::roll))
        .routes(routes!(prob::rules))
        .routes(routes!(prob::rule))
        .routes(routes!(rules::table))
        .routes(routes!(rules::analysis))
        .routes(routes!(rules::odds))
        .routes(routes!(rules::sheet))
        .merge(session::routes())
        .merge(campaigns::routes())
        .routes(routes!(listing::log))
        .routes(routes!(fairness::fairness))
        .routes(routes!(events::events))
}

/// The OpenAPI 3.1 document of every route, as served at `/api/v1/openapi.json`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    router_and_document().1
}

/// The routes and their document, with the answers every route can give added once the routes are
/// in it.
fn router_and_document() -> (Router<AppState>, utoipa::openapi::OpenApi) {
    let (router, mut document) = routes().split_for_parts();
    utoipa::Modify::modify(&EveryRoute, &mut document);
    (router, document)
}

/// The client a rate limit counts: its address when the server knows it, else one shared bucket.
#[derive(Clone, Copy, Debug)]
struct ClientAddress;

impl KeyExtractor for ClientAddress {
    type Key = Option<std::net::IpAddr>;

    fn extract<T>(
        &self,
        request: &axum::http::Request<T>,
    ) -> Result<Self::Key, tower_governor::GovernorError> {
        Ok(request
            .extensions()
            .get::<axum::extract::ConnectInfo<SocketAddr>>()
            .map(|info| info.0.ip()))
    }
}

/// An error answer that is not JSON yet (a timeout, a body limit, an unknown method) as JSON, with
/// `Retry-After` on every 503: one shape for every error a client sees.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (kind, message) = match status {
        StatusCode::SERVICE_UNAVAILABLE => ("timeout", "the request took too long".to_string()),
        StatusCode::PAYLOAD_TOO_LARGE => (
            "too-large",
            "the request body is larger than the server accepts".to_string(),
        ),
        StatusCode::METHOD_NOT_ALLOWED => (
            "method-not-allowed",
            "this route takes another method".to_string(),
        ),
        other => (
            "error",
            other.canonical_reason().unwrap_or("error").to_lowercase(),
        ),
    };
    let mut error = ApiError::new(status, Problem::new(kind, message));
    if status == StatusCode::SERVICE_UNAVAILABLE {
        error.retry_after = Some(1);
    }
    let mut answer = error.into_response();
    for name in [header::ALLOW, header::RETRY_AFTER] {
        if let Some(value) = response.headers().get(&name) {
            answer.headers_mut().insert(name, value.clone());
        }
    }
    answer
}

async fn no_route() -> ApiError {
    ApiError::not_found("no such route; the routes are listed at /api/v1/openapi.json")
}

/// The router with every route and layer: the whole server, ready for `axum::serve` or a test's
/// `oneshot`. Serve it with `into_make_service_with_connect_info::<SocketAddr>()` for a rate limit
/// per client address.
pub fn app(state: AppState) -> Router {
    let config = state.inner.config.clone();
    let names = host::Names::new(&config.public_names);
    let (router, document) = router_and_document();
    let document = Arc::new(document);
    let mut router = router
        .route(
            "/api/v1/openapi.json",
            axum::routing::get(move || {
                let document = document.clone();
                async move { axum::Json(document.as_ref().clone()) }
            }),
        )
        .merge(page::routes())
        .merge(discord::routes(&state))
        .fallback(no_route)
        .with_state(state.clone())
        .layer(axum::middleware::from_fn_with_state(state, request_scope))
        .layer(RequestBodyLimitLayer::new(config.max_body))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            config.request_timeout,
        ));
    if let Some(per_second) = config.rate_limit.filter(|&r| r > 0) {
        let governor = GovernorConfigBuilder::default()
            .key_extractor(ClientAddress)
            .per_nanosecond(1_000_000_000 / u64::from(per_second))
            .burst_size(per_second.saturating_mul(2))
            .finish();
        if let Some(governor) = governor {
            router = router.layer(GovernorLayer::new(governor).error_handler(|error| {
                let wait = match error {
                    tower_governor::GovernorError::TooManyRequests { wait_time, .. } => wait_time,
                    _ => 1,
                };
                let mut refused = ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    Problem::new("rate-limited", "too many requests from this address")
                        .with_help(format!("wait {} s", wait.max(1))),
                );
                refused.retry_after = Some(wait.max(1));
                refused.into_response()
            }));
        }
    }
    router
        .layer(CompressionLayer::new())
        .layer(TraceLayer::new_for_http())
        .layer(axum::middleware::map_response(json_errors))
        .layer(axum::middleware::from_fn_with_state(
            names,
            host::check_host,
        ))
        .layer(axum::middleware::from_fn(host::protective_headers))
}

/// Serves the request as its client's, with a cancellation handle of its own
/// ([`client::in_request`]): the computation pool shares its threads by client, and a computation
/// stops when its request times out or is dropped.
async fn request_scope(
    State(state): State<AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let client = request
        .extensions()
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|info| client::client_key(info.0.ip()));
    let deadline = std::time::Instant::now() + state.inner.config.request_timeout;
    let scope = client::RequestScope {
        client,
        cancel: omen_core::Cancel::new().with_deadline(deadline),
    };
    client::in_request(scope, next.run(request)).await
}

/// Serves `app(state)` on `listener` until `shutdown` resolves, then stops taking connections, ends
/// the event streams and waits for the requests in flight: an action being written finishes.
/// Connections are bounded as [`Config`] says: a request head's time and size, idle time, and
/// connections per client address and in all (below the descriptor limit; `omen serve` raises it
/// first with [`raise_descriptor_limit`]).
///
/// # Errors
/// None today: a failed `accept` (no descriptor left, a connection reset) is waited out.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = app(state.clone());
    net::serve(listener, state, router, shutdown).await
}

/// Resolves at the first SIGINT (Ctrl-C) or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
