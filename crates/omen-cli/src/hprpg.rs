//! `omen hprpg`: seed 003's d12 success pools. So far the outcome tables of its Appendix 10.

use std::io::{self, Write};

use clap::{Args, Subcommand, ValueEnum};
use omen_rules::hprpg::table;

#[derive(Debug, Subcommand)]
pub enum HprpgCommand {
    /// The outcome table of Appendix 10 for a DV and catastrophe range: dice 0..14 against
    /// catastrophe, failure, 1..6 and 7+ net successes.
    Table(TableArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// Percentages rounded as the seed rounds them (2 significant figures).
    Markdown,
    /// Exact fractions.
    Json,
}

#[derive(Debug, Args)]
pub struct TableArgs {
    /// The difficulty value (DV), 2..12; raised above the catastrophe range as the rules say.
    #[arg(long, value_name = "D")]
    pub dv: i64,
    /// The top of the catastrophe range (1 for 1-1, 3 for a Broken Wand's 1-3).
    #[arg(long, value_name = "X", default_value_t = 1)]
    pub catastrophe_range: i64,
    #[arg(long, value_enum, default_value_t = TableFormat::Markdown)]
    pub format: TableFormat,
}

/// Runs an hprpg command; `Ok(false)` means bad input, already reported.
pub fn run(command: &HprpgCommand) -> anyhow::Result<bool> {
    match command {
        HprpgCommand::Table(args) => match table(args.dv, args.catastrophe_range) {
            Ok(t) => {
                let text = match args.format {
                    TableFormat::Markdown => t.markdown(),
                    TableFormat::Json => format!("{}\n", t.to_json()),
                };
                io::stdout().lock().write_all(text.as_bytes())?;
                Ok(true)
            }
            Err(error) => {
                eprintln!("error: {error}");
                Ok(false)
            }
        },
    }
}
