//! `omen hprpg`: seed 003's d12 success pools: the outcome tables of its Appendix 10, and a
//! character's checks, castings, resists and resources (see [`crate::actions`]).

use std::io::{self, Write};

use clap::{Args, Subcommand, ValueEnum};
use omen_rules::hprpg::table;

#[derive(Debug, Subcommand)]
pub enum HprpgCommand {
    /// The outcome table of Appendix 10 for a DV and catastrophe range: dice 0..14 against
    /// catastrophe, failure, 1..6 and 7+ net successes.
    Table(TableArgs),
    /// A check (003-M1..M9): aspect + ability (or affinity) dice against a DV, exact odds with --odds.
    Check(crate::actions::HprpgCheckArgs),
    /// Cast a spell (003-M15..M19): DV 8 + level − affinity, required and optional successes, POWER.
    Cast(crate::actions::HprpgCastArgs),
    /// Catch-cast the spell waiting for successes (003-M19), with one die fewer each time.
    CatchCast(crate::actions::HprpgCatchCastArgs),
    /// Give up the spell waiting for successes.
    AbandonCasting(crate::actions::JustHolder),
    /// Resist an incoming spell (003-M20): each net success lowers its POWER by 1.
    Resist(crate::actions::HprpgResistArgs),
    /// Spend FORTITUDE (003-M23).
    SpendFortitude(crate::actions::HprpgSpendArgs),
    /// Regain FORTITUDE (the Personality's Nourishment met), up to the maximum.
    RegainFortitude(crate::actions::HprpgPointsArgs),
    /// Take levels of harm.
    TakeHarm(crate::actions::HprpgLevelsArgs),
    /// Heal levels of harm, up to the maximum Health.
    Heal(crate::actions::HprpgLevelsArgs),
    /// ORGANIC REPOSE (003-M25): 1 FORTITUDE for +3 Health, once a day.
    OrganicRepose(crate::actions::JustHolder),
    /// UNWAVERING FOCUS (003-M25): reroll the last check's catastrophe dice for 1 FORTITUDE.
    UnwaveringFocus(crate::actions::JustHolder),
    /// Keep a spell sustained (each costs a die on later casts, 003-M16).
    Sustain(crate::actions::HprpgSustainArgs),
    /// Stop sustaining a spell.
    EndSustain(crate::actions::HprpgSpellArgs),
    /// A turn of RAGE (003-M24): −1 die to Resist checks per turn, cumulative.
    RageTurn(crate::actions::JustHolder),
    /// A turn without RAGE: the Resist penalty resets.
    CalmTurn(crate::actions::JustHolder),
    /// A new day: the daily feat uses reset.
    NewDay(crate::actions::JustHolder),
    /// Galleons gained.
    GainGalleons(crate::actions::HprpgGalleonsArgs),
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
pub fn run(command: &HprpgCommand, limits: &omen_core::Limits) -> anyhow::Result<bool> {
    use crate::actions::{self as a, bare};
    match command {
        HprpgCommand::Check(args) => a::hprpg_check(args, limits),
        HprpgCommand::Cast(args) => a::hprpg_cast(args, limits),
        HprpgCommand::CatchCast(args) => a::hprpg_catch_cast(args, limits),
        HprpgCommand::AbandonCasting(args) => bare("hprpg", "abandon-casting", args, limits),
        HprpgCommand::Resist(args) => a::hprpg_resist(args, limits),
        HprpgCommand::SpendFortitude(args) => a::hprpg_spend(args, limits),
        HprpgCommand::RegainFortitude(args) => a::hprpg_regain(args, limits),
        HprpgCommand::TakeHarm(args) => a::hprpg_levels("take-harm", args, limits),
        HprpgCommand::Heal(args) => a::hprpg_levels("heal", args, limits),
        HprpgCommand::OrganicRepose(args) => bare("hprpg", "organic-repose", args, limits),
        HprpgCommand::UnwaveringFocus(args) => bare("hprpg", "unwavering-focus", args, limits),
        HprpgCommand::Sustain(args) => a::hprpg_sustain(args, limits),
        HprpgCommand::EndSustain(args) => a::hprpg_end_sustain(args, limits),
        HprpgCommand::RageTurn(args) => bare("hprpg", "rage-turn", args, limits),
        HprpgCommand::CalmTurn(args) => bare("hprpg", "calm-turn", args, limits),
        HprpgCommand::NewDay(args) => bare("hprpg", "new-day", args, limits),
        HprpgCommand::GainGalleons(args) => a::hprpg_galleons(args, limits),
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
