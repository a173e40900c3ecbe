//! How the server bounds its work: the configuration `omen serve` fills in, and its defaults. Plain
//! data below everything that reads it.

use std::num::NonZeroUsize;
use std::time::Duration;

use omen_core::Limits;

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
    /// The Discord face (`POST /discord/interactions`): on when the application's public key is
    /// given (`omen serve --discord-public-key`). Default off.
    pub discord: Option<crate::discord::DiscordConfig>,
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
            discord: None,
        }
    }
}
