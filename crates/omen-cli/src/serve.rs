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
    /// Extra dice one die may add by exploding (at most 1,000).
    #[arg(long, value_name = "N", default_value_t = omen_server::default_limits().explode_depth,
          value_parser = value_parser!(u64).range(0..=Ceilings::EXPLODE_DEPTH))]
    pub explode_depth: u64,
    /// Dice in one pool (at most 1,000,000).
    #[arg(long, value_name = "N", default_value_t = omen_server::default_limits().max_dice,
          value_parser = value_parser!(u64).range(0..=Ceilings::MAX_DICE))]
    pub max_dice: u64,
    /// Sides of one die, and faces of a custom die (at most 10,000,000).
    #[arg(long, value_name = "N", default_value_t = omen_server::default_limits().max_sides,
          value_parser = value_parser!(u64).range(1..=Ceilings::MAX_SIDES))]
    pub max_sides: u64,
    /// Distinct outcomes of any one distribution (a tenth of the CLI's default; at most 10,000,000).
    #[arg(long, value_name = "N", default_value_t = omen_server::default_limits().max_outcomes,
          value_parser = value_parser!(u64).range(1..=Ceilings::MAX_OUTCOMES))]
    pub max_outcomes: u64,
    /// States a dynamic program may hold at once (a tenth of the CLI's default; at most
    /// 200,000,000).
    #[arg(long, value_name = "N", default_value_t = omen_server::default_limits().max_states,
          value_parser = value_parser!(u64).range(1..=Ceilings::MAX_STATES))]
    pub max_states: u64,
    /// States of one process (`after`, `absorb`, `stationary`) (at most 5,000).
    #[arg(long, value_name = "N", default_value_t = omen_server::default_limits().max_chain_states,
          value_parser = value_parser!(u64).range(1..=Ceilings::MAX_CHAIN_STATES))]
    pub max_chain_states: u64,
    /// Steps one rolled process may take (at most 10,000,000).
    #[arg(long, value_name = "N", default_value_t = omen_server::default_limits().max_process_steps,
          value_parser = value_parser!(u64).range(0..=Ceilings::MAX_PROCESS_STEPS))]
    pub max_process_steps: u64,
    /// Nested calls of user functions (recursion depth; at most 10,000).
    #[arg(long, value_name = "N", default_value_t = omen_server::default_limits().max_call_depth,
          value_parser = value_parser!(u64).range(0..=Ceilings::MAX_CALL_DEPTH))]
    pub max_call_depth: u64,
    /// Work of one computation (half the CLI's default: about one second at worst).
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
    /// Computations one client address (an IPv6 client by its /64) may have running or waiting;
    /// past it, 429 (at most 10,000). One address may have all the computation threads but one
    /// running.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = value_parser!(u64).range(1..=10_000))]
    pub computations_per_client: u64,
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
    /// Seconds a connection may take to send a request's head, or stay open having sent nothing,
    /// before it is closed (at most 600).
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = value_parser!(u64).range(1..=600))]
    pub header_timeout: u64,
    /// Seconds a kept-alive connection may wait for its next request before it is closed (at
    /// most 3,600).
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = value_parser!(u64).range(1..=3600))]
    pub idle_timeout: u64,
    /// Bytes of a request's head (request line and headers); past it, 431 (at most 262,144).
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 10, value_parser = value_parser!(u64).range(1024..=(256 << 10)))]
    pub max_header_bytes: u64,
    /// Connections open at once; past it, 503. Also kept 128 below the descriptor limit, which
    /// `omen serve` raises to its hard limit at start (at most 1,000,000).
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Connections one client address may hold open; past it, 429 (at most 100,000).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = value_parser!(u64).range(1..=100_000))]
    pub connections_per_client: u64,
    /// A name the server answers to besides localhost and the address a client reached, e.g.
    /// the name a reverse proxy or your players use (repeatable; `*` for any). Other `Host`
    /// names are refused with 421, so a web page elsewhere cannot reach the server through a
    /// name of its own (DNS rebinding).
    #[arg(long = "public-name", value_name = "NAME")]
    pub public_names: Vec<String>,
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
    /// The Discord application's public key (the developer portal's "Public Key", 64 hex digits):
    /// turns on `POST /discord/interactions`, Discord's Interactions Endpoint URL.
    #[arg(
        long,
        value_name = "HEX",
        env = "OMEN_DISCORD_PUBLIC_KEY",
        requires = "discord_application_id"
    )]
    pub discord_public_key: Option<String>,
    /// The Discord application's id (the developer portal's "Application ID").
    #[arg(long, value_name = "ID", env = "OMEN_DISCORD_APPLICATION_ID")]
    pub discord_application_id: Option<String>,
    /// Discord's API, where deferred answers are edited (a stand-in's URL in tests).
    #[arg(long, value_name = "URL", env = "OMEN_DISCORD_API_BASE", default_value = omen_server::discord::DEFAULT_API_BASE)]
    pub discord_api_base: String,
    /// The Discord bot's token: the dice of private and blind rolls are posted to the game
    /// master's channel a campaign names (`/omen gm-channel`).
    #[arg(
        long,
        value_name = "TOKEN",
        env = "OMEN_DISCORD_BOT_TOKEN",
        hide_env_values = true
    )]
    pub discord_bot_token: Option<String>,
}

impl ServeArgs {
    /// The Discord face, when its public key is given; an error for a key or id that is not
    /// Discord's.
    fn discord(&self) -> Result<Option<omen_server::discord::DiscordConfig>, String> {
        let (Some(key), Some(id)) = (&self.discord_public_key, &self.discord_application_id) else {
            return Ok(None);
        };
        let config = omen_server::discord::DiscordConfig::new(key, id)?
            .with_api_base(&self.discord_api_base);
        match &self.discord_bot_token {
            Some(token) => config.with_bot_token(token).map(Some),
            None => Ok(Some(config)),
        }
    }

    fn config(&self) -> omen_server::Config {
        let defaults = omen_server::Config::default();
        omen_server::Config {
            limits: Limits {
                explode_depth: self.explode_depth,
                max_dice: self.max_dice,
                max_sides: self.max_sides,
                max_outcomes: self.max_outcomes,
                max_states: self.max_states,
                max_chain_states: self.max_chain_states,
                max_process_steps: self.max_process_steps,
                max_call_depth: self.max_call_depth,
                work_budget: self.work_budget,
                max_output: self.max_output,
                ..defaults.limits.clone()
            },
            compute_threads: self
                .compute_threads
                .map_or(defaults.compute_threads, |n| n as usize),
            computations_per_client: self.computations_per_client as usize,
            queue_timeout: Duration::from_secs(self.queue_timeout),
            request_timeout: Duration::from_secs(self.request_timeout),
            max_body: self.max_body as usize,
            rate_limit: Some(self.rate_limit).filter(|&r| r > 0),
            max_event_streams: self.max_event_streams as usize,
            cache_entries: self.cache_entries as usize,
            header_timeout: Duration::from_secs(self.header_timeout),
            idle_timeout: Duration::from_secs(self.idle_timeout),
            max_header_bytes: self.max_header_bytes as usize,
            max_connections: self.max_connections as usize,
            connections_per_client: self.connections_per_client as usize,
            public_names: self.public_names.clone(),
            open_campaigns: !self.no_open_campaigns,
            session_lifetime: defaults.session_lifetime,
            secure_cookies: self.secure_cookies,
            discord: self.discord().ok().flatten(),
        }
    }
}

/// Writes a line to stdout, ignoring a closed stdout: a server whose log pipe went away keeps
/// serving its tables (`println!` would panic on the broken pipe).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Serves until SIGINT or SIGTERM; `Ok(false)` when the database cannot be opened or the address
/// bound.
pub fn run(args: &ServeArgs) -> anyhow::Result<bool> {
    if let Err(refused) = args.discord() {
        eprintln!("error: {refused}");
        return Ok(false);
    }
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
    // Before the runtime opens anything: connections, not a shell's default of 1,024
    // descriptors, are what the server's own bound counts.
    let descriptors = omen_server::raise_descriptor_limit();
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
        // The first address is one a browser can open: `/api/v1/` alone answers 404.
        say!("omen serve: listening on http://{address}/ (the calculator page)");
        say!("the seed games: http://{address}/games");
        say!(
            "the table: http://{address}/table#join=TOKEN with an invite's token (the part after # never reaches the server)"
        );
        say!("the API: http://{address}/api/v1/ (OpenAPI: http://{address}/api/v1/openapi.json)");
        say!("database: {database}");
        if args.discord_public_key.is_some() {
            say!(
                "Discord: http://{address}/discord/interactions (behind your HTTPS proxy: the portal's Interactions Endpoint URL)"
            );
        }
        let connections = omen_server::connection_limit(args.max_connections as usize);
        match descriptors {
            Some(limit) => say!("connections: at most {connections} at once (descriptor limit {limit})"),
            None => say!("connections: at most {connections} at once"),
        }
        if empty {
            let db = &database;
            say!(
                "no campaigns yet; create one and its game master's invite with\n  \
                 omen campaign new NAME --db {db}\n  \
                 omen campaign invite NAME --role gm --db {db}\n\
                 or over the API (the answer holds the game master's token):\n  \
                 curl -X POST http://{address}/api/v1/campaigns -H 'content-type: application/json' -d '{{\"name\":\"NAME\"}}'"
            );
        }
        let state = omen_server::AppState::new(store, args.config());
        omen_server::serve(listener, state, omen_server::shutdown_signal()).await?;
        say!("omen serve: stopped");
        Ok(true)
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::args::{Cli, Command};

    fn serve(flags: &[&str]) -> Result<ServeArgs, clap::Error> {
        let cli = Cli::try_parse_from(["omen", "serve"].iter().chain(flags))?;
        match cli.command {
            Some(Command::Serve(args)) => Ok(args.0),
            _ => panic!("expected serve"),
        }
    }

    #[test]
    fn the_language_limit_flags_reach_the_server() {
        let limits = serve(&[
            "--max-dice",
            "7",
            "--explode-depth",
            "3",
            "--max-call-depth",
            "9",
            "--max-chain-states",
            "11",
            "--max-states",
            "13",
            "--max-outcomes",
            "17",
            "--max-sides",
            "19",
            "--max-process-steps",
            "23",
        ])
        .unwrap()
        .config()
        .limits;
        assert_eq!(
            (limits.max_dice, limits.explode_depth, limits.max_call_depth),
            (7, 3, 9)
        );
        assert_eq!((limits.max_chain_states, limits.max_states), (11, 13));
        assert_eq!(
            (
                limits.max_outcomes,
                limits.max_sides,
                limits.max_process_steps
            ),
            (17, 19, 23)
        );
    }

    #[test]
    fn the_connection_flags_reach_the_server_and_default_as_the_library() {
        let defaults = omen_server::Config::default();
        let config = serve(&[]).unwrap().config();
        assert_eq!(config.header_timeout, defaults.header_timeout);
        assert_eq!(config.idle_timeout, defaults.idle_timeout);
        assert_eq!(config.max_header_bytes, defaults.max_header_bytes);
        assert_eq!(config.max_connections, defaults.max_connections);
        assert_eq!(
            config.connections_per_client,
            defaults.connections_per_client
        );
        assert_eq!(
            config.computations_per_client,
            defaults.computations_per_client
        );
        assert!(config.public_names.is_empty());
        let config = serve(&[
            "--header-timeout",
            "3",
            "--idle-timeout",
            "5",
            "--max-header-bytes",
            "8192",
            "--connections-per-client",
            "7",
            "--computations-per-client",
            "2",
            "--public-name",
            "omen.example.org",
            "--public-name",
            "table.example.org",
        ])
        .unwrap()
        .config();
        assert_eq!(config.header_timeout, Duration::from_secs(3));
        assert_eq!(config.idle_timeout, Duration::from_secs(5));
        assert_eq!(config.max_header_bytes, 8192);
        assert_eq!(config.connections_per_client, 7);
        assert_eq!(config.computations_per_client, 2);
        assert_eq!(
            config.public_names,
            ["omen.example.org", "table.example.org"]
        );
        assert!(serve(&["--max-header-bytes", "300000"]).is_err());
        assert!(serve(&["--connections-per-client", "0"]).is_err());
    }

    #[test]
    fn the_server_defaults_are_no_looser_than_the_clis_and_have_the_same_ceilings() {
        let server = serve(&[]).unwrap().config().limits;
        let cli = Limits::default();
        assert_eq!(server, omen_server::default_limits());
        for (name, served, command_line) in [
            ("max-dice", server.max_dice, cli.max_dice),
            ("max-sides", server.max_sides, cli.max_sides),
            ("explode-depth", server.explode_depth, cli.explode_depth),
            ("max-outcomes", server.max_outcomes, cli.max_outcomes),
            ("max-states", server.max_states, cli.max_states),
            (
                "max-chain-states",
                server.max_chain_states,
                cli.max_chain_states,
            ),
            (
                "max-process-steps",
                server.max_process_steps,
                cli.max_process_steps,
            ),
            ("max-call-depth", server.max_call_depth, cli.max_call_depth),
            ("work-budget", server.work_budget, cli.work_budget),
            ("max-output", server.max_output, cli.max_output),
        ] {
            assert!(
                served <= command_line,
                "--{name}: {served} > {command_line}"
            );
        }
        assert!(server.max_states < cli.max_states);
        let past = (Ceilings::MAX_DICE + 1).to_string();
        assert!(serve(&["--max-dice", &past]).is_err());
        let past = (Ceilings::MAX_CALL_DEPTH + 1).to_string();
        assert!(serve(&["--max-call-depth", &past]).is_err());
    }
}
