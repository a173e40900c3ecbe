//! `omen db`: whole databases, whatever engine holds them.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use omen_store::Database;

use crate::words::count;

/// `omen db COMMAND`.
#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Move every campaign, character, saved roll, log entry and invite, and the Discord channel
    /// bindings, account links and game masters' channels, from one database to another, empty one
    /// (SQLite to PostgreSQL or back): nothing is re-signed, so the logs verify as before, and the
    /// signing key is copied beside the target when it has none.
    #[command(after_help = "Examples:\n  \
        omen db migrate --from omen.db --to postgres://omen@db.example/omen\n  \
        omen db migrate --from sqlite://table.db --to postgres://omen@localhost/omen --to-key /etc/omen/omen.key\n  \
        omen db migrate --from postgres://omen@localhost/omen --to backup.db")]
    Migrate(MigrateArgs),
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The database to move: a SQLite file (a path or sqlite://PATH) or postgres://USER@HOST/DB.
    #[arg(long, value_name = "DB")]
    pub from: PathBuf,
    /// The empty database to move it into (a SQLite file is created; a PostgreSQL database must
    /// exist, its tables are made).
    #[arg(long, value_name = "DB")]
    pub to: PathBuf,
    /// The source's signing key [default: $OMEN_KEY, else beside a SQLite file (its path and .key),
    /// else postgres.key in the platform data directory].
    #[arg(long, value_name = "PATH")]
    pub from_key: Option<PathBuf>,
    /// Where the target's writers will find the key [default: as --from-key, for the target].
    #[arg(long, value_name = "PATH")]
    pub to_key: Option<PathBuf>,
}

/// Runs `omen db …`; `Ok(false)` for a database that cannot be opened or is not empty.
pub fn run(command: &DbCommand) -> anyhow::Result<bool> {
    let DbCommand::Migrate(args) = command;
    let fail = |message: String| {
        crate::fit::error(crate::escape::lines(&message));
        Ok(false)
    };
    let from = Database::parse(args.from.as_os_str());
    let to = Database::parse(args.to.as_os_str());
    if from == to {
        return fail(format!(
            "--from and --to are the same database ({from}); give another --to"
        ));
    }
    let (from_key, to_key) = match (
        from.key_path(args.from_key.clone()),
        to.key_path(args.to_key.clone()),
    ) {
        (Ok(from_key), Ok(to_key)) => (from_key, to_key),
        (Err(error), _) | (_, Err(error)) => return fail(error.to_string()),
    };
    let source = match from.open_read_only(&from_key) {
        Ok(store) => store,
        Err(error) => return fail(error.to_string()),
    };
    let mut target = match to.open(&to_key) {
        Ok(store) => store,
        Err(error) => return fail(error.to_string()),
    };
    let report = match source.copy_into(&mut target) {
        Ok(report) => report,
        Err(error) => return fail(error.to_string()),
    };
    let mut note = String::new();
    if from_key.is_file() && !to_key.exists() && from_key != to_key {
        if let Some(parent) = to_key.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        // A copy keeps the owner-only permissions of the key file.
        std::fs::copy(&from_key, &to_key)?;
        note = format!("\nthe signing key was copied to {}", to_key.display());
    }
    // Discord's part on a line of its own: what lets its channels and players go on as before.
    let text = format!(
        "moved {} ({}, {}, {}, {}) from {from} to {to}\nand for Discord: {}, {}, {}{note}\n",
        count(report.campaigns, "campaign", "campaigns"),
        count(report.characters, "character", "characters"),
        count(report.saved_rolls, "saved roll", "saved rolls"),
        count(report.log_entries, "log entry", "log entries"),
        count(report.invites, "invite", "invites"),
        count(report.discord_bindings, "bound channel", "bound channels"),
        count(report.discord_links, "linked account", "linked accounts"),
        count(
            report.discord_gm_channels,
            "game master's channel",
            "game masters' channels"
        )
    );
    let mut out = crate::output::result();
    use std::io::Write;
    out.write_all(crate::fit::wrap(&text, crate::fit::width()).as_bytes())?;
    Ok(true)
}
