//! `omen spelldice` (seed 001) and `omen luck` (seed 002): their analyses from the command line.
//! The rules and the exact answers are omen-rules'; this only reads arguments and prints.

use std::io::{self, Write};

use clap::{Args, Subcommand, ValueEnum};
use omen_core::{Limits, Probability, probability_to_f64};

use crate::ritual::{dice_source, percent};
use omen_rules::luck::{Karma, LuckOutcome, long_run, ranges};
use omen_rules::spelldice::{SpellDiceOptions, SpellLevel, Strategy, exhaust};
use omen_rules::t13::{BoughtDie, CrisisTrigger, DiceSpec, Difficulty, T13Options, TestDice, test};

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

#[derive(Debug, Subcommand)]
pub enum T13Command {
    /// A Dice Test: the exact distribution of result levels, the crisis chance and the cost, then a
    /// roll (--seed or --dice to replay).
    Test(T13Args),
}

#[derive(Debug, Args)]
pub struct T13Args {
    /// Sides of the Boon die, if one is rolled.
    #[arg(long, value_name = "SIDES")]
    pub boon: Option<i64>,
    /// Sides of the Descendant die, if one is rolled.
    #[arg(long, value_name = "SIDES")]
    pub descendant: Option<i64>,
    /// Proficiency d8s, 0 to 4.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub proficiency: usize,
    /// A bought die as KIND:SIDES:CURRENCY, e.g. skill:6:sway (repeat for each).
    #[arg(long = "buy", value_name = "KIND:SIDES:CURRENCY")]
    pub bought: Vec<String>,
    /// Added to the total (negative for handicaps).
    #[arg(
        long,
        value_name = "N",
        allow_hyphen_values = true,
        default_value_t = 0
    )]
    pub modifier: i64,
    /// The difficulty.
    #[arg(long, value_name = "D", conflicts_with = "opponent")]
    pub difficulty: Option<i64>,
    /// The opponent's total, in an opposed test.
    #[arg(long, value_name = "TOTAL")]
    pub opponent: Option<i64>,
    /// Proficiency Crisis when every proficiency die is at 1 or 8, not any one (004-A4).
    #[arg(long)]
    pub all_dice_crisis: bool,
    #[arg(long, value_name = "N", conflicts_with = "dice")]
    pub seed: Option<u64>,
    /// These dice values, in order: Boon, Descendant, proficiency, bought.
    #[arg(long, value_name = "VALUES", value_delimiter = ',')]
    pub dice: Option<Vec<i64>>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn t13(command: &T13Command, limits: &Limits) -> anyhow::Result<bool> {
    let T13Command::Test(args) = command;
    let result = (|| {
        let bought = args
            .bought
            .iter()
            .map(|b| {
                let parts: Vec<&str> = b.split(':').collect();
                let [kind, sides, currency] = parts[..] else {
                    return Err(format!(
                        "--buy {b}: write KIND:SIDES:CURRENCY, e.g. skill:6:sway"
                    ));
                };
                let sides: i64 = sides
                    .parse()
                    .map_err(|_| format!("--buy {b}: `{sides}` is not a number of sides"))?;
                BoughtDie::from_names(kind, sides, currency).map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let spec = DiceSpec {
            boon: args.boon,
            descendant: args.descendant,
            proficiency: args.proficiency,
            bought,
            modifier: args.modifier,
        };
        let dice = TestDice::new(spec, limits).map_err(|e| e.to_string())?;
        let opposition = match (args.difficulty, args.opponent) {
            (Some(d), None) => Difficulty::new(d),
            (None, Some(t)) => Difficulty::opponent_total(t),
            _ => return Err("give --difficulty D or --opponent TOTAL".to_string()),
        }
        .map_err(|e| e.to_string())?;
        let options = T13Options {
            crisis_trigger: if args.all_dice_crisis {
                CrisisTrigger::AllDice
            } else {
                CrisisTrigger::AnyDie
            },
        };
        let levels = dice
            .level_distribution(opposition, limits)
            .map_err(|e| e.to_string())?;
        let crisis = dice
            .crisis_probability(&options, limits)
            .map_err(|e| e.to_string())?;
        let cost = dice.cost();
        let (mut source, seed) = dice_source(&args.dice, args.seed);
        let roll = test(&dice, opposition, &options, source.as_mut()).map_err(|e| e.to_string())?;
        let mut text = format!(
            "cost: {} Sway or {} Chi or {} Yarn\n",
            cost.sway, cost.chi, cost.yarn
        );
        let mut chances = Vec::new();
        for (level, w) in levels.entries() {
            let p = Probability::new(w.clone(), levels.total().clone());
            text.push_str(&format!("  P({}) = {p} ≈ {}\n", level.name(), percent(&p)));
            chances.push(serde_json::json!({"level": level.name(), "probability": p.to_string()}));
        }
        text.push_str(&format!(
            "  P(Proficiency Crisis) = {crisis} ≈ {}\n",
            percent(&crisis)
        ));
        if let Some(seed) = seed {
            text.push_str(&format!("seed: {seed}\n"));
        }
        text.push_str(&format!(
            "dice: {:?}, total {} → {}{}\n",
            roll.dice(),
            roll.total,
            roll.result.level.name(),
            if roll.result.crisis {
                " (Proficiency Crisis)"
            } else {
                ""
            }
        ));
        let json = serde_json::json!({
            "cost": {"sway": cost.sway, "chi": cost.chi, "yarn": cost.yarn},
            "levels": chances,
            "crisis": crisis.to_string(),
            "dice": roll.dice(),
            "total": roll.total,
            "level": roll.result.level.name(),
            "proficiency_crisis": roll.result.crisis,
            "seed": seed,
        });
        Ok((text, json))
    })();
    answer(args.format, result)
}
