//! `omen spelldice` (seed 001) and `omen luck` (seed 002): their analyses from the command line.
//! The rules and the exact answers are omen-rules'; this only reads arguments and prints.

use clap::{Args, Subcommand};
use omen_core::Limits;

use crate::ritual::percent;
use crate::tables::{Table, TableFormat, print};
use omen_rules::luck::{Karma, LuckOutcome, long_run, ranges};
use omen_rules::spelldice::{SpellLevel, cast_odds, extreme_odds};

#[derive(Debug, Subcommand)]
pub enum SpellDiceCommand {
    /// Snake eyes and boxcars by dice count: P(two or more 1s), which is what the seed's
    /// numbers are, P(either extreme), which is what its words say, and P(both).
    #[command(
        after_help = "Examples:\n  omen spelldice extremes\n  omen spelldice extremes --format json"
    )]
    Extremes(ExtremesArgs),
    /// P(success), P(catastrophe) and P(empowered) by spell level and dice committed.
    #[command(
        after_help = "Examples:\n  omen spelldice odds --spell-level 2\n  omen spelldice odds --spell-level 1 --penalty 1 --format json"
    )]
    Odds(CastOddsArgs),
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

#[derive(Debug, Args)]
pub struct ExtremesArgs {
    /// Dice counts 1..=N.
    #[arg(long, value_name = "N", default_value_t = 12)]
    pub max_dice: usize,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = TableFormat::Text)]
    pub format: TableFormat,
}

#[derive(Debug, Args)]
pub struct CastOddsArgs {
    /// One spell level (1..=9); every level when left out.
    #[arg(long, value_name = "S")]
    pub spell_level: Option<i64>,
    /// Dice committed, 1..=N.
    #[arg(long, value_name = "N", default_value_t = 12)]
    pub max_dice: usize,
    /// Armour and encumbrance penalty subtracted from the total.
    #[arg(long, value_name = "P", default_value_t = 0)]
    pub penalty: i64,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = TableFormat::Text)]
    pub format: TableFormat,
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

/// Dice counts beyond this are refused by the analyses: each row is a full pool enumeration.
const MAX_ANALYSIS_DICE: usize = 100;

fn extremes(args: &ExtremesArgs, limits: &Limits) -> Result<(String, serde_json::Value), String> {
    if !(1..=MAX_ANALYSIS_DICE).contains(&args.max_dice) {
        return Err(format!(
            "--max-dice {} is outside 1..={MAX_ANALYSIS_DICE}",
            args.max_dice
        ));
    }
    let mut text = String::from("dice  P(2+ ones)          P(either extreme)   P(both)\n");
    let mut rows = Vec::new();
    for dice in 1..=args.max_dice {
        let odds = extreme_odds(dice, limits).map_err(|e| e.to_string())?;
        text.push_str(&format!(
            "{dice:>4}  {:<18}  {:<18}  {}\n",
            percent(&odds.snake_eyes),
            percent(&odds.either),
            percent(&odds.both)
        ));
        rows.push(serde_json::json!({
            "dice": dice,
            "snake_eyes": odds.snake_eyes.to_string(),
            "boxcars": odds.boxcars.to_string(),
            "either": odds.either.to_string(),
            "both": odds.both.to_string(),
        }));
    }
    Ok((text, serde_json::json!({ "rows": rows })))
}

fn cast_odds_table(
    args: &CastOddsArgs,
    limits: &Limits,
) -> Result<(String, serde_json::Value), String> {
    if !(1..=MAX_ANALYSIS_DICE).contains(&args.max_dice) {
        return Err(format!(
            "--max-dice {} is outside 1..={MAX_ANALYSIS_DICE}",
            args.max_dice
        ));
    }
    let levels: Vec<SpellLevel> = match args.spell_level {
        Some(level) => vec![SpellLevel::new(level).map_err(|e| e.to_string())?],
        None => SpellLevel::all().collect(),
    };
    let mut text = String::new();
    let mut rows = Vec::new();
    for level in levels {
        text.push_str(&format!(
            "spell level {} (target {}):\n  dice  success   catastrophe  empowered\n",
            level.value(),
            level.target()
        ));
        for dice in 1..=args.max_dice {
            let odds = cast_odds(level, dice, args.penalty, limits).map_err(|e| e.to_string())?;
            text.push_str(&format!(
                "  {dice:>4}  {:>8}  {:>11}  {:>9}\n",
                percent(&odds.success),
                percent(&odds.catastrophe),
                percent(&odds.empowered)
            ));
            rows.push(serde_json::json!({
                "spell_level": level.value(),
                "dice": dice,
                "success": odds.success.to_string(),
                "catastrophe": odds.catastrophe.to_string(),
                "empowered": odds.empowered.to_string(),
            }));
        }
    }
    Ok((
        text,
        serde_json::json!({ "penalty": args.penalty, "rows": rows }),
    ))
}

pub fn spelldice(command: &SpellDiceCommand, limits: &Limits) -> anyhow::Result<bool> {
    match command {
        SpellDiceCommand::Extremes(args) => {
            let columns = ["dice", "snake_eyes", "boxcars", "either", "both"];
            print(args.format, extremes(args, limits), |json| {
                Table::from_json(json, &columns)
            })
        }
        SpellDiceCommand::Courtney(args) => {
            let columns = ["results", "timing", "spell_lost", "text"];
            print(args.format, courtney(args), |json| {
                Table::from_json(json, &columns)
            })
        }
        SpellDiceCommand::Odds(args) => {
            let columns = ["spell_level", "dice", "success", "catastrophe", "empowered"];
            print(args.format, cast_odds_table(args, limits), |json| {
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
