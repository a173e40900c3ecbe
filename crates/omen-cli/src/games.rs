//! `omen spelldice` (seed 001) and `omen luck` (seed 002): their analyses from the command line.
//! The rules and the exact answers are omen-rules'; this only reads arguments and prints.

use std::io::{self, Write};

use clap::{Args, Subcommand, ValueEnum};
use omen_core::{Limits, Probability, probability_to_f64};
use omen_rules::luck::{Karma, LuckOutcome, long_run, ranges};
use omen_rules::spelldice::{SpellDiceOptions, SpellLevel, Strategy, exhaust};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum SpellDiceCommand {
    /// The exact chance of running out of usable spell dice before a successful cast, and the
    /// expected number of successful casts per day (casting until the pool cannot reach the target).
    Exhaust(ExhaustArgs),
}

#[derive(Debug, Args)]
pub struct ExhaustArgs {
    /// The magic-user's level (the pool is 2 + level d6).
    #[arg(long, value_name = "L")]
    pub level: i64,
    /// The spell level (target 7 + level).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub spell_level: i64,
    /// all | minimum | optimal | fixed:K
    #[arg(long, value_name = "STRATEGY", default_value = "all")]
    pub strategy: String,
    /// The author's variant: dice are lost only on a success or a catastrophe (001-M6).
    #[arg(long)]
    pub variant: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Subcommand)]
pub enum LuckCommand {
    /// The seed's calculator: the bad, neutral and good ranges of a d50 for a combined modifier.
    Ranges(LuckArgs),
    /// The exact long-run frequencies of bad luck, no event and good luck with the karmic rule.
    Stationary(StationaryArgs),
}

#[derive(Debug, Args)]
pub struct LuckArgs {
    /// The combined modifier (event + intrinsic + karmic); any integer.
    #[arg(long, value_name = "M", allow_hyphen_values = true)]
    pub modifier: i64,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct StationaryArgs {
    /// The base modifier of every roll (event + intrinsic), before the karmic one.
    #[arg(
        long,
        value_name = "M",
        allow_hyphen_values = true,
        default_value_t = 0
    )]
    pub modifier: i64,
    /// Without the karmic modifier, for comparison.
    #[arg(long)]
    pub no_karma: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

fn percent(p: &Probability) -> String {
    format!("{:.2}%", probability_to_f64(p) * 100.0)
}

/// Prints `text` or `json`; reports `error` and answers `false` (bad input) when there is one.
fn answer(
    format: Format,
    result: Result<(String, serde_json::Value), String>,
) -> anyhow::Result<bool> {
    match result {
        Ok((text, json)) => {
            let mut out = io::stdout().lock();
            match format {
                Format::Text => out.write_all(text.as_bytes())?,
                Format::Json => writeln!(out, "{json}")?,
            }
            Ok(true)
        }
        Err(message) => {
            eprintln!("error: {message}");
            Ok(false)
        }
    }
}

pub fn spelldice(command: &SpellDiceCommand, limits: &Limits) -> anyhow::Result<bool> {
    let SpellDiceCommand::Exhaust(args) = command;
    let result = (|| {
        let strategy: Strategy = args.strategy.parse().map_err(|e| format!("{e}"))?;
        let spell_level = SpellLevel::new(args.spell_level).map_err(|e| e.to_string())?;
        let options = if args.variant {
            SpellDiceOptions::variant()
        } else {
            SpellDiceOptions::default()
        };
        let e = exhaust(args.level, spell_level, strategy, &options, limits)
            .map_err(|e| e.to_string())?;
        let expected = Probability::new(
            e.expected_successes.numer().clone(),
            e.expected_successes.denom().clone(),
        );
        let text = format!(
            "level {}, spell level {}, strategy {}{}:\n  P(no successful cast before the dice run out) = {} ≈ {}\n  expected successful casts per day = {} ≈ {:.4}\n",
            args.level,
            args.spell_level,
            args.strategy,
            if args.variant { ", variant rule" } else { "" },
            e.exhausted_before_success,
            percent(&e.exhausted_before_success),
            e.expected_successes,
            probability_to_f64(&expected),
        );
        let json = serde_json::json!({
            "level": args.level,
            "spell_level": args.spell_level,
            "strategy": args.strategy,
            "variant": args.variant,
            "probability": e.exhausted_before_success.to_string(),
            "expected_casts": e.expected_successes.to_string(),
            "commitments": e.commitments,
        });
        Ok((text, json))
    })();
    answer(args.format, result)
}

fn range_text(r: &Option<std::ops::RangeInclusive<i64>>) -> String {
    match r {
        Some(r) => format!("{}-{}", r.start(), r.end()),
        None => "none".to_string(),
    }
}

pub fn luck(command: &LuckCommand, limits: &Limits) -> anyhow::Result<bool> {
    match command {
        LuckCommand::Ranges(args) => {
            let r = ranges(args.modifier);
            let mut text = format!("modifier {:+}:\n", args.modifier);
            let mut json = serde_json::json!({"modifier": args.modifier});
            for (name, outcome, range) in [
                ("bad", LuckOutcome::Bad, &r.bad),
                ("neutral", LuckOutcome::Neutral, &r.neutral),
                ("good", LuckOutcome::Good, &r.good),
            ] {
                let p = r.probability(outcome);
                text.push_str(&format!(
                    "  {name:<8} {:>6}  {p} ≈ {}\n",
                    range_text(range),
                    percent(&p)
                ));
                json[name] =
                    serde_json::json!({"range": range_text(range), "probability": p.to_string()});
            }
            answer(args.format, Ok((text, json)))
        }
        LuckCommand::Stationary(args) => {
            let karma = if args.no_karma { Karma::Off } else { Karma::On };
            let result = long_run(args.modifier, karma, limits)
                .map_err(|e| e.to_string())
                .map(|run| {
                    let p = |o| run.outcomes.probability(&o);
                    let (bad, neutral, good) =
                        (p(LuckOutcome::Bad), p(LuckOutcome::Neutral), p(LuckOutcome::Good));
                    let text = format!(
                        "long run at base modifier {:+}{}:\n  bad      {bad} ≈ {}\n  neutral  {neutral} ≈ {}\n  good     {good} ≈ {}\n",
                        args.modifier,
                        if args.no_karma { ", without karma" } else { "" },
                        percent(&bad),
                        percent(&neutral),
                        percent(&good),
                    );
                    let json = serde_json::json!({
                        "modifier": args.modifier,
                        "karma": !args.no_karma,
                        "bad": bad.to_string(),
                        "neutral": neutral.to_string(),
                        "good": good.to_string(),
                    });
                    (text, json)
                });
            answer(args.format, result)
        }
    }
}
