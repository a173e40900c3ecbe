//! `omen serve`: the HTTP API (`omen-server`) on the campaign database, until SIGINT or SIGTERM.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, value_parser};
use omen_core::{Ceilings, Limits};

/// `omen serve` [--bind ADDR] [--db PATH] [--key PATH] [limits].
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on; port 0 picks a free one (printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// The campaign database: a SQLite file (a path or sqlite://PATH) or a PostgreSQL database
    /// (postgres://USER@HOST/DB) [default: $OMEN_DB, else omen.db in the platform data directory].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// The signing key file [default: $OMEN_KEY, else the database's path with .key appended].
    #[arg(long, value_name = "PATH")]
    pub key: Option<PathBuf>,
    /// Work of one computation (a tenth of the CLI's default: about 0.2 s at worst).
    #[arg(long, value_name = "N", default_value_t = omen_server::DEFAULT_WORK_BUDGET,
          value_parser = value_parser!(u64).range(0..=Ceilings::WORK_BUDGET))]
    pub work_budget: u64,
    /// Bytes of one answer's result.
    #[arg(long, value_name = "BYTES", default_value_t = omen_server::DEFAULT_MAX_OUTPUT,
          value_parser = value_parser!(u64).range(0..=Ceilings::MAX_OUTPUT))]
    pub max_output: u64,
    /// Computations at once [default: the number of cores].
    #[arg(long, value_name = "N", value_parser = value_parser!(u64).range(1..=1024))]
    pub compute_threads: Option<u64>,
    /// Seconds a request may wait for the computation pool or the database before 503.
    #[arg(long, value_name = "SECONDS", default_value_t = 2, value_parser = value_parser!(u64).range(0..=60))]
    pub queue_timeout: u64,
    /// Seconds a request may take in all before 503.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = value_parser!(u64).range(1..=600))]
    pub request_timeout: u64,
    /// Bytes of one request body.
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 10, value_parser = value_parser!(u64).range(1..=(64 << 20)))]
    pub max_body: u64,
    /// Requests per second per client address (bursts of twice that); 0 turns the limit off.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = value_parser!(u32).range(0..=1_000_000))]
    pub rate_limit: u32,
    /// Server-sent-event streams open at once.
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = value_parser!(u64).range(0..=100_000))]
    pub max_event_streams: u64,
    /// Computed odds kept in the cache.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = value_parser!(u64).range(1..=1_000_000))]
    pub cache_entries: u64,
    /// Refuse `POST /api/v1/campaigns` and imports: only this CLI creates campaigns.
    #[arg(long)]
    pub no_open_campaigns: bool,
    /// Mark the web page's session cookie `Secure` even when no proxy says the request came over
    /// HTTPS (`X-Forwarded-Proto`); set it behind a TLS proxy that does not say so.
    #[arg(long)]
    pub secure_cookies: bool,
}

impl ServeArgs {
    fn config(&self) -> omen_server::Config {
        let defaults = omen_server::Config::default();
        omen_server::Config {
            limits: Limits {
                work_budget: self.work_budget,
                max_output: self.max_output,
                ..defaults.limits.clone()
            },
            compute_threads: self
                .compute_threads
                .map_or(defaults.compute_threads, |n| n as usize),
            queue_timeout: Duration::from_secs(self.queue_timeout),
            request_timeout: Duration::from_secs(self.request_timeout),
            max_body: self.max_body as usize,
            rate_limit: Some(self.rate_limit).filter(|&r| r > 0),
            max_event_streams: self.max_event_streams as usize,
            cache_entries: self.cache_entries as usize,
            open_campaigns: !self.no_open_campaigns,
            session_lifetime: defaults.session_lifetime,
            secure_cookies: self.secure_cookies,
        }
    }
}

/// Serves until SIGINT or SIGTERM; `Ok(false)` when the database cannot be opened or the address
/// bound.
pub fn run(args: &ServeArgs) -> anyhow::Result<bool> {
    let database = match omen_store::resolve_database(args.db.clone()) {
        Ok(database) => database,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(false);
        }
    };
    let store = match database
        .key_path(args.key.clone())
        .and_then(|key| database.open(&key))
    {
        Ok(store) => store,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(false);
        }
    };
    let empty = store.campaigns().map(|c| c.is_empty()).unwrap_or(false);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind(args.bind).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!(
                    "error: cannot listen on {}: {error}; choose another with --bind",
                    args.bind
                );
                return Ok(false);
            }
        };
        let address = listener.local_addr()?;
        println!("omen serve: listening on http://{address}/api/v1/ (OpenAPI: http://{address}/api/v1/openapi.json)");
        println!("database: {database}");
        println!(
            "the table: http://{address}/table#join=TOKEN with an invite's token (the part after # never reaches the server)"
        );
        if empty {
            let db = &database;
            println!(
                "no campaigns yet; create one and its game master's invite with\n  \
                 omen campaign new NAME --db {db}\n  \
                 omen campaign invite NAME --role gm --db {db}\n\
                 or over the API (the answer holds the game master's token):\n  \
                 curl -X POST http://{address}/api/v1/campaigns -H 'content-type: application/json' -d '{{\"name\":\"NAME\"}}'"
            );
        }
        let state = omen_server::AppState::new(store, args.config());
        omen_server::serve(listener, state, omen_server::shutdown_signal()).await?;
        println!("omen serve: stopped");
        Ok(true)
    })
}
