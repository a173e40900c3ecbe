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

pub mod auth;
mod campaigns;
mod client;
pub mod error;
mod events;
mod fair;
mod fairness;
mod filters;
mod host;
mod listing;
mod net;
mod pacing;
mod page;
pub mod prob;
pub mod redact;
mod refusal;
mod rules;
mod schema;
mod session;
mod summary;
mod work;

use std::future::Future;
use std::io::Write as _;
use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use omen_core::Limits;
use omen_store::Store;
use tokio::sync::{Semaphore, broadcast, watch};
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

use crate::error::{ApiError, Problem};
pub use crate::events::{
    PAGE_BYTES as STREAM_PAGE_BYTES, PAGE_ENTRIES as STREAM_PAGE_ENTRIES, STREAMS_PER_ADDRESS,
    STREAMS_PER_MEMBER,
};
pub use crate::fairness::REPORT_BUDGET_RATIO;
pub use crate::listing::{DEFAULT_LIMIT as LOG_PAGE_DEFAULT, MAX_LIMIT as LOG_PAGE_MAX};
pub use crate::net::{RESERVED_DESCRIPTORS, connection_limit, raise_descriptor_limit};
use crate::work::{Compute, Database};

/// How the server bounds its work. [`Config::default`] is what `omen serve` uses unless told
/// otherwise.
#[derive(Clone, Debug)]
pub struct Config {
    /// The limits of one computation. The default ([`default_limits`]) is the CLI's with half its
    /// work budget (about one second at worst), a tenth of its states and outcomes, and 32 MiB of
    /// output: a server shares its cores and its memory.
    pub limits: Limits,
    /// Exact computations and rolls at once (default: the number of cores). One client address
    /// (an IPv6 client by its /64) may have all but one of them running, so another always finds
    /// one; waiting computations take turns address by address.
    pub compute_threads: usize,
    /// Computations one client address may have running or waiting (default 16); past it, 429
    /// with `Retry-After`.
    pub computations_per_client: usize,
    /// How long a request may wait for the pool or the database before 503 (default 2 s).
    pub queue_timeout: Duration,
    /// How long a request may take in all (default 10 s); past it, 503.
    pub request_timeout: Duration,
    /// The largest request body, in bytes (default 64 KiB).
    pub max_body: usize,
    /// Requests per second per client address, with bursts of twice that; `None` for no limit.
    pub rate_limit: Option<u32>,
    /// Server-sent-event connections at once (default 256).
    pub max_event_streams: usize,
    /// Computed odds kept (default 4096).
    pub cache_entries: usize,
    /// How long a connection may take to send a request's head, and may stay open having sent
    /// nothing (default 10 s); then it is closed.
    pub header_timeout: Duration,
    /// How long a kept-alive connection may wait for its next request (default 60 s).
    pub idle_timeout: Duration,
    /// The largest request head (request line and headers), in bytes (default 16 KiB); past it,
    /// 431.
    pub max_header_bytes: usize,
    /// Connections open at once (default 4096), and in any case [`RESERVED_DESCRIPTORS`] below
    /// the process's descriptor limit ([`connection_limit`]); past it, 503.
    pub max_connections: usize,
    /// Connections one client address may hold open (default 64); past it, 429.
    pub connections_per_client: usize,
    /// Names the server answers to besides localhost and the address a client reached (the `Host`
    /// check against DNS rebinding); `*` for any.
    pub public_names: Vec<String>,
    /// Whether anyone may create a campaign with `POST /api/v1/campaigns` (and so become its game
    /// master). Default true; `omen serve --no-open-campaigns` turns it off, leaving the CLI.
    pub open_campaigns: bool,
    /// How long a browser session lasts (default 12 hours: a game night).
    pub session_lifetime: Duration,
    /// Mark the session cookie `Secure` on every answer, not only on requests a proxy says came over
    /// HTTPS (`X-Forwarded-Proto` or `Forwarded`). Default false.
    pub secure_cookies: bool,
}

/// The server's default work budget: half the CLI's (about one second at worst). Calibrated on the
/// README's performance suite, whose costliest problem (`9d20!>=18dl9<=19` at explosion depth 20)
/// needs about 340 million; a tenth of the CLI's refused it and `100d20kh50` (200 million). A test
/// runs the whole suite through the API.
pub const DEFAULT_WORK_BUDGET: u64 = 500_000_000;

/// The server's default output limit, in bytes: `1000d6` (the largest answer of the README's
/// performance suite) is about 23 MB of exact fractions as JSON. Answers over 256 KiB are not
/// cached, so this bounds one request's memory, not the cache's.
pub const DEFAULT_MAX_OUTPUT: u64 = 32 << 20;

/// The server's default limit on the states a dynamic program holds at once: a tenth of the CLI's,
/// since a server's memory is shared by every request in flight.
pub const DEFAULT_MAX_STATES: u64 = 2_000_000;

/// The server's default limit on the outcomes of one distribution: a tenth of the CLI's.
pub const DEFAULT_MAX_OUTCOMES: u64 = 100_000;

/// The limits of one computation on a server unless told otherwise: the CLI's, with half its work
/// budget, a tenth of its states and outcomes and 32 MiB of output. None is looser than the CLI's.
pub fn default_limits() -> Limits {
    Limits {
        work_budget: DEFAULT_WORK_BUDGET,
        max_output: DEFAULT_MAX_OUTPUT,
        max_states: DEFAULT_MAX_STATES,
        max_outcomes: DEFAULT_MAX_OUTCOMES,
        ..Limits::default()
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            limits: default_limits(),
            compute_threads: std::thread::available_parallelism().map_or(2, NonZeroUsize::get),
            computations_per_client: 16,
            queue_timeout: Duration::from_secs(2),
            request_timeout: Duration::from_secs(10),
            max_body: 64 << 10,
            rate_limit: Some(100),
            max_event_streams: 256,
            cache_entries: 4096,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_header_bytes: 16 << 10,
            max_connections: 4096,
            connections_per_client: 64,
            public_names: Vec::new(),
            open_campaigns: true,
            session_lifetime: Duration::from_secs(12 * 60 * 60),
            secure_cookies: false,
        }
    }
}

/// A new log entry, announced to the event streams of its campaign: by this process when it wrote
/// it, or by the database's notification when any process did (PostgreSQL, [`omen_store::Store::listen`]).
#[derive(Clone, Debug)]
pub(crate) struct Notice {
    /// The campaign, or none for every campaign (the listener reconnected: entries may have gone
    /// unannounced).
    pub campaign: Option<String>,
    /// The entry's sequence number when known: a stream that has already read it stays asleep.
    pub sequence: Option<u64>,
}

pub(crate) struct Inner {
    pub config: Config,
    pub db: Database,
    pub compute: Compute,
    pub cache: Arc<prob::OddsCache>,
    pub notices: broadcast::Sender<Notice>,
    pub event_streams: Arc<Semaphore>,
    /// The event streams by who holds them ([`events::Streams`]): the per-invite and per-address caps.
    pub streams: Arc<events::Streams>,
    /// Exact distributions of logged expressions, shared by fairness reports.
    pub fairness_cache: Arc<omen_store::FairnessCache>,
    pub shutdown: watch::Sender<bool>,
    /// Follows the entries other processes write (PostgreSQL); stops when the state is dropped.
    _listener: Option<omen_store::LogListener>,
}

impl Inner {
    pub(crate) fn cache_handle(&self) -> Arc<prob::OddsCache> {
        self.cache.clone()
    }
}

/// Everything the routes share: the store, the pools, the cache, the event channel.
#[derive(Clone)]
pub struct AppState {
    pub(crate) inner: Arc<Inner>,
}

impl AppState {
    pub fn new(store: Store, config: Config) -> Self {
        let entries = NonZeroUsize::new(config.cache_entries).unwrap_or(NonZeroUsize::MIN);
        let (notices, _) = broadcast::channel(1024);
        let listener = listen(&store, notices.clone());
        AppState {
            inner: Arc::new(Inner {
                _listener: listener,
                db: Database::new(store, config.queue_timeout),
                compute: Compute::new(
                    fair::Shares::new(config.compute_threads, config.computations_per_client),
                    config.queue_timeout,
                ),
                cache: Arc::new(std::sync::Mutex::new(lru::LruCache::new(entries))),
                notices,
                event_streams: Arc::new(Semaphore::new(config.max_event_streams)),
                streams: Arc::default(),
                fairness_cache: fairness::shared_cache(),
                shutdown: watch::channel(false).0,
                config,
            }),
        }
    }

    /// Ends every event stream, so a graceful shutdown does not wait for clients that never leave.
    pub fn begin_shutdown(&self) {
        self.inner.shutdown.send_replace(true);
    }

    /// The limits of a computation for the request being served: the server's, with the request's
    /// cancellation handle, so the computation stops when the request times out or goes away.
    /// Every computation a request starts takes its limits from here.
    pub(crate) fn limits(&self) -> Limits {
        let mut limits = self.inner.config.limits.clone();
        if let Some(cancel) = client::current_cancel() {
            limits.cancel = cancel;
        }
        limits
    }

    pub(crate) fn announce(&self, campaign: &str) {
        // No receiver is not an error: nobody is listening.
        let _ = self.inner.notices.send(Notice {
            campaign: Some(campaign.to_string()),
            sequence: None,
        });
    }
}

/// Wakes the event streams when any process writes to the log (PostgreSQL's notifications): the
/// streams then read the new entries from the database and redact them for their viewers, as they
/// do for this process's own writes. Nothing on SQLite, where this process is the only writer.
fn listen(store: &Store, notices: broadcast::Sender<Notice>) -> Option<omen_store::LogListener> {
    let listening = store.listen(move |signal| {
        let notice = match signal {
            omen_store::LogSignal::Appended { campaign, sequence } => Notice {
                campaign: Some(campaign),
                sequence: Some(sequence),
            },
            omen_store::LogSignal::Resync => Notice {
                campaign: None,
                sequence: None,
            },
            omen_store::LogSignal::Interrupted { error, retry_in } => {
                // Said where `omen serve` says everything: the operator should know.
                // A closed stderr must not take the listener down with a panic.
                let _ = writeln!(
                    std::io::stderr(),
                    "warning: the live log misses other servers' entries until it reconnects (in {retry_in:?}): {error}"
                );
                return;
            }
            _ => return,
        };
        let _ = notices.send(notice);
    });
    match listening {
        Ok(listener) => listener,
        Err(error) => {
            let _ = writeln!(
                std::io::stderr(),
                "warning: the live log will miss other servers' entries: {error}"
            );
            None
        }
    }
}

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
                if secured {
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
