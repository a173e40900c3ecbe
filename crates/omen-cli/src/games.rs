//! `omen spelldice` (seed 001) and `omen luck` (seed 002): their analyses from the command line.
//! The rules and the exact answers are omen-rules'; this only reads arguments and prints.

use std::io::Write;

use clap::{Args, Subcommand, ValueEnum};
use omen_core::{Limits, Probability, probability_to_f64};

use crate::ritual::percent;
use crate::tables::{Table, TableFormat, print};
use crate::words::count;
use omen_rules::luck::{Karma, LuckOutcome, long_run, ranges};
use omen_rules::spelldice::{
    SpellDiceOptions, SpellLevel, Strategy, cast_odds, exhaust, extreme_odds,
};
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
    #[command(
        after_help = "Examples:\n  omen spelldice exhaust --level 1 --strategy all\n  omen spelldice exhaust --level 3 --spell-level 2 --strategy fixed:2 --format json"
    )]
    Exhaust(ExhaustArgs),
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
    /// A character casts: committed dice rolled, dice showing 1-2 leave the pool.
    #[command(
        after_help = "Examples:\n  omen spelldice cast --char Mage --spell-dice 3 --spell-level 2 --odds\n  omen spelldice cast --sheet '{\"level\":3}' --spell-dice 3 --spell-level 2 --dice 2,4,5"
    )]
    Cast(crate::actions::CastArgs),
    /// A restful night's sleep: every spell die comes back.
    #[command(
        after_help = "Examples:\n  omen spelldice sleep --char Mage\n  omen spelldice sleep --state mage.json"
    )]
    Sleep(crate::actions::JustHolder),
    /// Hit points restored after life-energy dice.
    #[command(
        after_help = "Examples:\n  omen spelldice heal --char Mage\n  omen spelldice heal --char Mage --amount 4"
    )]
    Heal(crate::actions::HealArgs),
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

#[derive(Debug, Args)]
pub struct ExhaustArgs {
    /// The magic-user's level (the pool is 2 + level d6).
    #[arg(long, value_name = "L")]
    pub level: i64,
    /// The spell level (target 7 + level).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub spell_level: i64,
    /// all | minimum | optimal (fewest days without a success) | most-casts (most successful casts a day) | fixed:K
    #[arg(long, value_name = "STRATEGY", default_value = "all")]
    pub strategy: String,
    /// The author's variant: dice are lost only on a success or a catastrophe; the same as
    /// --option removal-timing=success-or-catastrophe.
    #[arg(long)]
    pub variant: bool,
    /// A rule option, NAME=VALUE: removal-faces or removal-timing (see `omen rules`).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Text)]
    pub format: Format,
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
    /// A luck roll for an event: the character's intrinsic modifiers and karmic history
    /// apply, next-roll modifiers are used up and the history is updated.
    #[command(
        after_help = "Examples:\n  omen luck roll --char Ayla --event-modifier -5 --odds\n  omen luck roll --char Ayla --event-modifier -5\n  omen luck roll --state ayla.json --offers bad --dice 42"
    )]
    Roll(LuckRollArgs),
    /// Give the character an intrinsic modifier, permanent or for the next roll only.
    #[command(
        after_help = "Examples:\n  omen luck add-modifier --char Ayla --source halfling --value 2\n  omen luck add-modifier --char Ayla --source curse --value -3 --next-roll"
    )]
    AddModifier(AddModifierArgs),
    /// Remove the intrinsic modifiers that come from one source.
    #[command(after_help = "Examples:\n  omen luck remove-modifier --char Ayla --source curse")]
    RemoveModifier(RemoveModifierArgs),
}

#[derive(Debug, Args)]
pub struct LuckRollArgs {
    /// The event's own modifier, −50..=+50.
    #[arg(
        long,
        value_name = "M",
        allow_hyphen_values = true,
        default_value_t = 0
    )]
    pub event_modifier: i64,
    /// Which outcomes the event offers.
    #[arg(long, value_enum, ignore_case = true, default_value_t = OffersArg::Both)]
    pub offers: OffersArg,
    /// A roll in the range of an outcome the event does not offer leaves the history as it was
    /// (by default it is "no event" and empties the history).
    #[arg(long)]
    pub missing_keeps_history: bool,
    #[command(flatten)]
    pub holder: crate::act::Holder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OffersArg {
    Both,
    Bad,
    Good,
}

#[derive(Debug, Args)]
pub struct AddModifierArgs {
    /// Where it comes from ("halfling", "blessing").
    #[arg(long, value_name = "NAME")]
    pub source: String,
    /// The modifier, negative for a curse.
    #[arg(long, value_name = "V", allow_hyphen_values = true)]
    pub value: i64,
    /// For the next luck roll only.
    #[arg(long)]
    pub next_roll: bool,
    #[command(flatten)]
    pub holder: crate::act::Holder,
}

#[derive(Debug, Args)]
pub struct RemoveModifierArgs {
    /// The source whose modifiers are removed.
    #[arg(long, value_name = "NAME")]
    pub source: String,
    #[command(flatten)]
    pub holder: crate::act::Holder,
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

/// Prints `text` or `json`; reports `error` and answers `false` (bad input) when there is one.
fn answer(
    format: Format,
    result: Result<(String, serde_json::Value), String>,
) -> anyhow::Result<bool> {
    match result {
        Ok((text, json)) => {
            let mut out = crate::output::result();
            match format {
                Format::Text => {
                    out.write_all(crate::fit::wrap(&text, crate::fit::width()).as_bytes())?
                }
                Format::Json => writeln!(out, "{json}")?,
            }
            Ok(true)
        }
        Err(message) => {
            crate::fit::error(message);
            Ok(false)
        }
    }
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
    let args = match command {
        SpellDiceCommand::Exhaust(args) => args,
        SpellDiceCommand::Extremes(args) => {
            let columns = ["dice", "snake_eyes", "boxcars", "either", "both"];
            return print(args.format, extremes(args, limits), |json| {
                Table::from_json(json, &columns)
            });
        }
        SpellDiceCommand::Courtney(args) => {
            let columns = ["results", "timing", "spell_lost", "text"];
            return print(args.format, courtney(args), |json| {
                Table::from_json(json, &columns)
            });
        }
        SpellDiceCommand::Odds(args) => {
            let columns = ["spell_level", "dice", "success", "catastrophe", "empowered"];
            return print(args.format, cast_odds_table(args, limits), |json| {
                Table::from_json(json, &columns)
            });
        }
        SpellDiceCommand::Cast(args) => return crate::actions::spelldice_cast(args, limits),
        SpellDiceCommand::Sleep(args) => {
            return crate::actions::bare("spelldice", "sleep", args, limits);
        }
        SpellDiceCommand::Heal(args) => return crate::actions::spelldice_heal(args, limits),
    };
    let result = (|| {
        let strategy: Strategy = args.strategy.parse().map_err(|e| format!("{e}"))?;
        let spell_level = SpellLevel::new(args.spell_level).map_err(|e| e.to_string())?;
        let fields = crate::act::analysis_options("spelldice", "exhaust", &args.options)?;
        if args.variant && fields.contains_key("removal_timing") {
            return Err(
                "--variant is removal-timing=success-or-catastrophe; give one of the two"
                    .to_string(),
            );
        }
        fn field<T: serde::de::DeserializeOwned>(
            fields: &serde_json::Map<String, serde_json::Value>,
            name: &str,
        ) -> Result<Option<T>, String> {
            fields
                .get(name)
                .map(|value| serde_json::from_value(value.clone()).map_err(|e| e.to_string()))
                .transpose()
        }
        let mut options = if args.variant {
            SpellDiceOptions::variant()
        } else {
            SpellDiceOptions::default()
        };
        if let Some(faces) = field(&fields, "removal_faces")? {
            options.removal_faces = faces;
        }
        if let Some(timing) = field(&fields, "removal_timing")? {
            options.removal_timing = timing;
        }
        let variant = options.removal_timing != SpellDiceOptions::default().removal_timing;
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
            if variant { ", variant rule" } else { "" },
            e.exhausted_before_success,
            percent(&e.exhausted_before_success),
            e.expected_successes,
            probability_to_f64(&expected),
        );
        let json = serde_json::json!({
            "level": args.level,
            "spell_level": args.spell_level,
            "strategy": args.strategy,
            "variant": variant,
            "removal_faces": i64::from(options.removal_faces),
            "probability": e.exhausted_before_success.to_string(),
            "expected_casts": e.expected_successes.to_string(),
            "commitments": e.commitments,
        });
        Ok((text, json))
    })();
    answer(args.format, result)
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
        LuckCommand::Roll(args) => {
            let offers = match args.offers {
                OffersArg::Both => "both",
                OffersArg::Bad => "bad",
                OffersArg::Good => "good",
            };
            let missing = if args.missing_keeps_history {
                "keeps-history"
            } else {
                "resets-history"
            };
            let action = serde_json::json!({
                "action": "roll",
                "event_modifier": args.event_modifier,
                "offers": offers,
                "missing_outcome": missing,
            });
            crate::act::run("luck", action, &args.holder, limits)
        }
        LuckCommand::AddModifier(args) => {
            let action = serde_json::json!({
                "action": "add-modifier",
                "source": args.source,
                "value": args.value,
                "duration": if args.next_roll { "next-roll" } else { "permanent" },
            });
            crate::act::run("luck", action, &args.holder, limits)
        }
        LuckCommand::RemoveModifier(args) => {
            let action = serde_json::json!({ "action": "remove-modifier", "source": args.source });
            crate::act::run("luck", action, &args.holder, limits)
        }
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

#[derive(Debug, Subcommand)]
pub enum T13Command {
    /// A Dice Test: the exact distribution of result levels, the crisis chance and the cost, then a
    /// roll (--seed or --dice to replay). With --char or --state, a character's test: its proficiency
    /// dice, and bought dice paid from its Sway, Chi or Yarn.
    #[command(
        after_help = "Examples:\n  omen t13 test --boon 6 --descendant 8 --proficiency 2 --difficulty 10\n  omen t13 test --char Vex --boon 6 --descendant 8 --difficulty 10 --odds\n  omen t13 test --char Vex --boon 6 --buy skill:6:sway --opponent 12"
    )]
    Test(T13Args),
    /// Add to a character's Sway, Chi or Yarn.
    #[command(
        after_help = "Examples:\n  omen t13 gain --char Vex --chi 2\n  omen t13 gain --state vex.json --sway 1 --yarn 1"
    )]
    Gain(crate::actions::BalanceArgs),
    /// Take from a character's Sway, Chi or Yarn (never below 0).
    #[command(
        after_help = "Examples:\n  omen t13 spend --char Vex --chi 2\n  omen t13 spend --char Vex --sway 3 --shortfall-paid-as lost-annex"
    )]
    Spend(crate::actions::BalanceArgs),
    /// Spend the last test's levels: Extra Success Level effects of the character's
    /// tier and failure inversions, gains and losses credited to the balances.
    #[command(
        after_help = "Examples:\n  omen t13 spend-levels --char Vex --effect gain-chi:2\n  omen t13 spend-levels --char Vex --effect cause-fear --effect set-tone"
    )]
    SpendLevels(SpendLevelsArgs),
}

#[derive(Debug, Args)]
pub struct SpendLevelsArgs {
    /// An effect, NAME or NAME:AMOUNT (repeat for each level): gain-sway, gain-chi, gain-yarn,
    /// cause-fear, negate-fear, cause-terror, negate-terror, cause-horror, negate-horror,
    /// ordeal-card, wyrd-tarot-card, yarn-event-card, set-tone; failure inversions lose-sway,
    /// lose-chi, lose-yarn, suffer-fear, suffer-terror, suffer-horror, opponent-plays-card,
    /// opposite-tone. A gain or loss moves AMOUNT (default 1).
    #[arg(long = "effect", value_name = "NAME[:AMOUNT]", required = true)]
    pub effects: Vec<String>,
    #[command(flatten)]
    pub holder: crate::act::Holder,
}

fn spend_levels(args: &SpendLevelsArgs, limits: &Limits) -> anyhow::Result<bool> {
    let mut effects = Vec::new();
    for text in &args.effects {
        let (name, amount) = match text.split_once(':') {
            Some((name, amount)) => match amount.parse::<u64>() {
                Ok(amount) => (name, Some(amount)),
                Err(_) => {
                    eprintln!(
                        "error: --effect {text}: `{amount}` is not an amount; write e.g. gain-sway:2"
                    );
                    return Ok(false);
                }
            },
            None => (text.as_str(), None),
        };
        effects.push(serde_json::json!({ "effect": name, "amount": amount }));
    }
    let action = serde_json::json!({ "action": "spend-levels", "effects": effects });
    crate::act::run("t13", action, &args.holder, limits)
}

#[derive(Debug, Args)]
pub struct T13Args {
    /// Sides of the Boon die, if one is rolled.
    #[arg(long, value_name = "SIDES")]
    pub boon: Option<i64>,
    /// Sides of the Descendant die, if one is rolled.
    #[arg(long, value_name = "SIDES")]
    pub descendant: Option<i64>,
    /// Proficiency d8s, 0 to 4 [default: a character's own, else 0].
    #[arg(long, value_name = "N")]
    pub proficiency: Option<usize>,
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
    #[arg(long, value_name = "TOTAL", conflicts_with = "opponent_dice")]
    pub opponent: Option<i64>,
    /// A die the opponent rolls, by sides (repeat for each): both sides roll, exact odds included.
    #[arg(
        long = "opponent-die",
        value_name = "SIDES",
        conflicts_with = "difficulty"
    )]
    pub opponent_dice: Vec<i64>,
    /// Added to the opponent's rolled total.
    #[arg(
        long,
        value_name = "N",
        allow_hyphen_values = true,
        default_value_t = 0
    )]
    pub opponent_modifier: i64,
    /// --dice gives the values in order: Boon, Descendant, proficiency, bought.
    #[command(flatten)]
    pub holder: crate::act::Holder,
}

/// A character's Dice Test, as the t13 game's action.
fn t13_action(args: &T13Args, limits: &Limits) -> anyhow::Result<bool> {
    let bought = match args
        .bought
        .iter()
        .map(|b| crate::actions::bought_die(b))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(bought) => bought,
        Err(message) => {
            crate::fit::error(message);
            return Ok(false);
        }
    };
    let action = serde_json::json!({
        "action": "test",
        "boon": args.boon,
        "descendant": args.descendant,
        "proficiency": args.proficiency,
        "bought": bought,
        "modifier": args.modifier,
        "difficulty": args.difficulty,
        "opponent_total": args.opponent,
        "opponent_dice": args.opponent_dice,
        "opponent_modifier": args.opponent_modifier,
    });
    crate::act::run("t13", action, &args.holder, limits)
}

pub fn t13(command: &T13Command, limits: &Limits) -> anyhow::Result<bool> {
    let args = match command {
        T13Command::Test(args) => args,
        T13Command::Gain(args) => return crate::actions::t13_balance("gain", args, limits),
        T13Command::Spend(args) => return crate::actions::t13_balance("spend", args, limits),
        T13Command::SpendLevels(args) => return spend_levels(args, limits),
    };
    let holder = &args.holder;
    // A test with the opponent's dice is the character action, whose odds cover both sides.
    if holder.character.is_some()
        || holder.state.is_some()
        || holder.sheet.is_some()
        || holder.odds
        || !args.opponent_dice.is_empty()
    {
        return t13_action(args, limits);
    }
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
            proficiency: args.proficiency.unwrap_or(0),
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
        let fields = crate::act::analysis_options("t13", "test", &holder.options)?;
        let options = T13Options {
            crisis_trigger: crate::act::typed_option(
                &fields,
                "crisis_trigger",
                &CrisisTrigger::ALL,
                CrisisTrigger::name,
            ),
        };
        let levels = dice
            .level_distribution(opposition, limits)
            .map_err(|e| e.to_string())?;
        let crisis = dice
            .crisis_probability(&options, limits)
            .map_err(|e| e.to_string())?;
        let cost = dice.cost();
        let (mut source, seed) = holder.source.dice_source();
        let roll = test(&dice, opposition, &options, source.as_mut()).map_err(|e| e.to_string())?;
        let mut text = format!(
            "cost: {}\n",
            crate::words::t13_cost(cost.sway, cost.chi, cost.yarn)
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
        let result = roll.result;
        let crisis_opposite = result.crisis_opposite();
        text.push_str(&format!(
            "dice: {:?}, total {} → {} ({}, {}){}\n",
            roll.dice(),
            roll.total,
            result.level.name(),
            count(result.success_levels, "success level", "success levels"),
            count(result.failure_levels, "failure level", "failure levels"),
            match crisis_opposite {
                Some((level, levels)) => format!(
                    "; Proficiency Crisis: also {} ({})",
                    level.name(),
                    if level.is_success() {
                        count(levels, "success level", "success levels")
                    } else {
                        count(levels, "failure level", "failure levels")
                    }
                ),
                None if result.crisis =>
                    "; Proficiency Crisis (Borderline has no opposite)".to_string(),
                None => String::new(),
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
            "success_levels": result.success_levels,
            "failure_levels": result.failure_levels,
            "crisis_opposite": crisis_opposite.map(|(level, levels)| {
                serde_json::json!({ "level": level.name(), "levels": levels })
            }),
            "seed": seed,
        });
        Ok((text, json))
    })();
    let format = match holder.source.format {
        crate::args::RollFormat::Text => Format::Text,
        crate::args::RollFormat::Json => Format::Json,
    };
    answer(format, result)
}
