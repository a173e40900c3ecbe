//! `omen spelldice` (seed 001) and `omen luck` (seed 002): their analyses from the command line.
//! The rules and the exact answers are omen-rules'; this only reads arguments and prints.

use clap::{Args, Subcommand};
use omen_core::Limits;

use crate::ritual::percent;
use crate::tables::{Table, TableFormat, print};
use omen_rules::luck::{Karma, LuckOutcome, long_run, ranges};

#[derive(Debug, Subcommand)]
pub enum SpellDiceCommand {
    /// Courtney's threefold result table, reference data from another system: when a
    /// spell goes off for a result, or (with --result) the row of one result.
    #[command(
        after_help = "Examples:\n  omen spelldice courtney\n  omen spelldice courtney --result 7 --format json"
    )]
    Courtney(CourtneyArgs),
}

#[derive(Debug, Args)]
pub struct CourtneyArgs {
    /// A result, 1..12: print its row only.
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub result: Option<i64>,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = TableFormat::Text)]
    pub format: TableFormat,
}

fn courtney(args: &CourtneyArgs) -> Result<(String, serde_json::Value), String> {
    use omen_rules::spelldice::{COURTNEY_RESULTS, CourtneyRow, courtney_result, courtney_table};
    let row_json = |row: &CourtneyRow| {
        serde_json::json!({
            "results": [row.results.start(), row.results.end()],
            "timing": row.timing,
            "spell_lost": row.spell_lost,
            "text": row.text,
        })
    };
    match args.result {
        None => Ok((
            courtney_table(),
            serde_json::json!(COURTNEY_RESULTS.iter().map(row_json).collect::<Vec<_>>()),
        )),
        Some(result) => {
            let row = courtney_result(result).ok_or_else(|| {
                format!("Courtney's table covers results 1 to 12, not {result}; give 1..12")
            })?;
            Ok((format!("{result}: {}\n", row.text), row_json(row)))
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum LuckCommand {
    /// The seed's calculator: the bad, neutral and good ranges of a d50 for a combined modifier.
    #[command(
        after_help = "Examples:\n  omen luck ranges --modifier -2\n  omen luck ranges --modifier 3 --format json"
    )]
    Ranges(LuckArgs),
    /// The exact long-run frequencies of bad luck, no event and good luck with the karmic rule.
    #[command(
        after_help = "Examples:\n  omen luck stationary --modifier 0\n  omen luck stationary --modifier -2 --no-karma --format json"
    )]
    Stationary(StationaryArgs),
}

#[derive(Debug, Args)]
pub struct LuckArgs {
    /// The combined modifier (event + intrinsic + karmic); any integer.
    #[arg(long, value_name = "M", allow_hyphen_values = true)]
    pub modifier: i64,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = TableFormat::Text)]
    pub format: TableFormat,
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
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = TableFormat::Text)]
    pub format: TableFormat,
}

pub fn spelldice(command: &SpellDiceCommand) -> anyhow::Result<bool> {
    match command {
        SpellDiceCommand::Courtney(args) => {
            let columns = ["results", "timing", "spell_lost", "text"];
            print(args.format, courtney(args), |json| {
                Table::from_json(json, &columns)
            })
        }
    }
}

/// The calculator's answer as rows: one per outcome, with its range and probability.
fn luck_ranges_table(json: &serde_json::Value) -> Table {
    let rows: Vec<serde_json::Value> = ["bad", "neutral", "good"]
        .iter()
        .map(|name| {
            serde_json::json!({
                "outcome": name,
                "range": json[name]["range"],
                "probability": json[name]["probability"],
            })
        })
        .collect();
    let table = serde_json::json!({ "modifier": json["modifier"], "rows": rows });
    Table::from_json(&table, &["outcome", "range", "probability"])
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
            print(args.format, Ok((text, json)), luck_ranges_table)
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
                    let mut text = text;
                    text.push_str("stationary karmic history:\n");
                    let mut histories = serde_json::Map::new();
                    for (name, p) in run.named_histories() {
                        text.push_str(&format!("  {name:<8} {p} ≈ {}\n", percent(&p)));
                        histories.insert(name, serde_json::json!(p.to_string()));
                    }
                    text.push_str("current run at least k long:\n");
                    let mut runs = serde_json::Map::new();
                    for k in 1..=6u8 {
                        let p = run.run_at_least(k);
                        text.push_str(&format!("  k = {k}    {p} ≈ {}\n", percent(&p)));
                        runs.insert(k.to_string(), serde_json::json!(p.to_string()));
                    }
                    let json = serde_json::json!({
                        "modifier": args.modifier,
                        "karma": !args.no_karma,
                        "bad": bad.to_string(),
                        "neutral": neutral.to_string(),
                        "good": good.to_string(),
                        "histories": histories,
                        "run_at_least": runs,
                    });
                    (text, json)
                });
            print(args.format, result, |json| Table::from_json(json, &[]))
        }
    }
}
