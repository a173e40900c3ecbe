//! The calculators the command line still writes by hand, because their rule sets do not offer them
//! as analyses yet (see [`omen_rules::analysis`]): each a subcommand of its game beside the derived
//! ones. Once a rule set offers an analysis of the same name, the derived subcommand takes the name
//! and the one here is no longer reachable; it is then deleted.

use clap::{Command, FromArgMatches, Subcommand};
use omen_core::Limits;

use crate::hprpg::HprpgCommand;
use crate::ritual::RitualCommand;

/// Adds `game`'s calculators whose names the derived subcommands left free.
pub fn add(game: &str, command: Command) -> Command {
    let scratch = Command::new(game.to_string());
    let scratch = match game {
        "ritual" => RitualCommand::augment_subcommands(scratch),
        "hprpg" => HprpgCommand::augment_subcommands(scratch),
        _ => return command,
    };
    let mut command = command;
    for sub in scratch.get_subcommands() {
        let taken = command.get_subcommands().any(|c| {
            c.get_name() == sub.get_name() || c.get_all_aliases().any(|a| a == sub.get_name())
        });
        if !taken {
            command = command.subcommand(sub.clone());
        }
    }
    command
}

/// Runs one of `game`'s calculators (`matches` are the game's); `Ok(false)` means bad input.
///
/// # Errors
/// Writing the result failed, or `matches` name no calculator (a bug: clap parsed it).
pub fn run(game: &str, matches: &clap::ArgMatches, limits: &Limits) -> anyhow::Result<bool> {
    match game {
        "ritual" => crate::ritual::run(&RitualCommand::from_arg_matches(matches)?, limits),
        "hprpg" => crate::hprpg::run(&HprpgCommand::from_arg_matches(matches)?),
        _ => anyhow::bail!("{game} has no calculator of that name"),
    }
}
