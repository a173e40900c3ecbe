//! `omen ritual lore` and `omen ritual essence`: seed 000's Lore and Essence checks without a character. Arguments in, the
//! rule set's exact answers and rolls out; the rules themselves live in `omen_rules::ritual`.

use std::io::Write;

use clap::{Args, Subcommand};
use omen_core::{Limits, Probability, probability_to_f64};
use omen_rules::ritual::{
    Difficulty, EssenceCheck, EssenceContributions, EssenceOutcome, FamiliarityBonuses, LoreCheck,
    LoreDice, LoreModifiers, RitualError, RitualOptions, ShortcutThreshold,
};
use serde::Serialize;
use serde_json::Value;

use crate::act::{RollSource, typed_option};
use crate::args::RollFormat;

#[derive(Debug, Subcommand)]
pub enum RitualCommand {
    /// A Lore check: the exact chance of success, then a roll.
    #[command(
        after_help = "Examples:\n  omen ritual lore --lore 2 --difficulty 4\n  omen ritual lore --lore 1 --difficulty 5 --foreign-tradition --format json"
    )]
    Lore(LoreArgs),
    /// An Essence check: the exact chance of each threshold, then a roll.
    #[command(
        after_help = "Examples:\n  omen ritual essence --leader 3 --assistant 2 --threshold 12\n  omen ritual essence --leader 3 --threshold 10 --threshold 14 --pairs 1"
    )]
    Essence(EssenceArgs),
}

/// The four Lore modifiers that depend on the ritual's text.
#[derive(Debug, Args)]
pub struct RitualModifiers {
    /// Inventing the ritual from scratch (−2 dice).
    #[arg(long)]
    pub inventing: bool,
    /// Modifying a ritual (−1).
    #[arg(long)]
    pub modifying: bool,
    /// Translated from a language the ritualist does not know well (−1).
    #[arg(long)]
    pub unfamiliar_language: bool,
    /// Not of the character's Tradition (−1).
    #[arg(long)]
    pub foreign_tradition: bool,
}

/// What an Essence check is made of besides the Leader.
#[derive(Debug, Args)]
pub struct EssenceInputs {
    /// An Assistant's Essence (repeat for each).
    #[arg(long = "assistant", value_name = "N")]
    pub assistants: Vec<i64>,
    /// Essence of the Time and Place.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub time_and_place: i64,
    /// A Relic's Essence (repeat for each).
    #[arg(long = "relic", value_name = "N")]
    pub relics: Vec<i64>,
    /// An Offering's Essence (repeat for each).
    #[arg(long = "offering", value_name = "N")]
    pub offerings: Vec<i64>,
    /// Dice lost to anything else (contamination, the GM's ruling).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub penalty: i64,
    /// A threshold of the ritual (repeat for each; at least one).
    #[arg(long = "threshold", value_name = "T", required = true)]
    pub thresholds: Vec<i64>,
    /// Replace this many pairs of dice by 7 each.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub pairs: usize,
    /// The threshold aimed for when replacing pairs [default: the highest].
    #[arg(long, value_name = "T")]
    pub desired: Option<i64>,
}

#[derive(Debug, Args)]
pub struct LoreArgs {
    /// The character's Lore (0 for one who has never performed a ritual).
    #[arg(long, value_name = "N")]
    pub lore: i64,
    /// Ritual Difficulty, 1 (Trivial) to 6 (Very Difficult).
    #[arg(long, value_name = "T")]
    pub difficulty: i64,
    #[command(flatten)]
    pub modifiers: RitualModifiers,
    /// Deciphered this ritual before (+1).
    #[arg(long)]
    pub deciphered_before: bool,
    /// Successfully performed this ritual before (+2).
    #[arg(long)]
    pub performed_before: bool,
    /// A rule option, NAME=VALUE (familiarity-bonuses=larger-only: the rule's other reading).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    #[command(flatten)]
    pub source: RollSource,
}

#[derive(Debug, Args)]
pub struct EssenceArgs {
    /// The Ritual Leader's Essence.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub leader: i64,
    #[command(flatten)]
    pub essence: EssenceInputs,
    /// Earlier attempts at this ritual since everyone last slept (attempt k loses k − 1 dice).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub repeated_attempts: i64,
    /// A rule option, NAME=VALUE (shortcut-threshold=exceeds: the rule's other reading).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    #[command(flatten)]
    pub source: RollSource,
}

/// Runs a ritual command; `Ok(false)` means bad input, already reported.
pub fn run(command: &RitualCommand, limits: &Limits) -> anyhow::Result<bool> {
    let mut out = crate::output::result();
    match command {
        RitualCommand::Lore(args) => {
            let options = RitualOptions {
                familiarity_bonuses: match options("lore", &args.options) {
                    Ok(fields) => typed_option(
                        &fields,
                        "familiarity_bonuses",
                        &FamiliarityBonuses::ALL,
                        FamiliarityBonuses::name,
                    ),
                    Err(message) => return refuse(&message),
                },
                ..RitualOptions::default()
            };
            report(lore(args, &options, limits), &args.source, &mut out)
        }
        RitualCommand::Essence(args) => {
            let fields = match options("essence", &args.options) {
                Ok(fields) if fields.contains_key("repeat_counting") => {
                    return refuse(
                        "repeat-counting counts a character's attempts (omen ritual perform); this \
                         check takes the attempts with --repeated-attempts",
                    );
                }
                Ok(fields) => fields,
                Err(message) => return refuse(&message),
            };
            let options = RitualOptions {
                shortcut_threshold: typed_option(
                    &fields,
                    "shortcut_threshold",
                    &ShortcutThreshold::ALL,
                    ShortcutThreshold::name,
                ),
                ..RitualOptions::default()
            };
            report(essence(args, &options, limits), &args.source, &mut out)
        }
    }
}

fn options(analysis: &str, given: &[String]) -> Result<serde_json::Map<String, Value>, String> {
    crate::act::analysis_options("ritual", analysis, given)
}

fn refuse(message: &str) -> anyhow::Result<bool> {
    crate::fit::error(message);
    Ok(false)
}

/// One answered check: the text and JSON views of the same facts.
struct Answer {
    text: String,
    json: serde_json::Value,
}

fn report(
    answer: Result<Answer, RitualError>,
    source: &RollSource,
    out: &mut dyn Write,
) -> anyhow::Result<bool> {
    match answer {
        Ok(answer) => {
            match source.format {
                RollFormat::Text => {
                    out.write_all(crate::fit::wrap(&answer.text, crate::fit::width()).as_bytes())?
                }
                RollFormat::Json => writeln!(out, "{}", answer.json)?,
            }
            Ok(true)
        }
        Err(error) => {
            let message = error.to_string();
            match source.format {
                RollFormat::Text => eprintln!("error: {message}"),
                RollFormat::Json => eprintln!(
                    "{}",
                    serde_json::json!({"errors": [{"severity": "error", "kind": "bad-ritual", "message": message}]})
                ),
            }
            Ok(false)
        }
    }
}

fn percent(p: &Probability) -> String {
    format!("{:.2}%", probability_to_f64(p) * 100.0)
}

#[derive(Serialize)]
struct LoreJson<'a> {
    pool: i64,
    difficulty: i64,
    rolled: &'a str,
    dice: &'a [i64],
    result: Option<i64>,
    success: bool,
    probability: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
}

fn lore(args: &LoreArgs, options: &RitualOptions, limits: &Limits) -> Result<Answer, RitualError> {
    let modifiers = LoreModifiers {
        inventing: args.modifiers.inventing,
        modifying: args.modifiers.modifying,
        unfamiliar_language: args.modifiers.unfamiliar_language,
        foreign_tradition: args.modifiers.foreign_tradition,
        deciphered_before: args.deciphered_before,
        performed_before: args.performed_before,
    };
    let check = LoreCheck::new(
        args.lore,
        Difficulty::new(args.difficulty)?,
        &modifiers,
        options,
        limits,
    )?;
    let p = check.success_probability(limits)?;
    let (mut dice, seed) = args.source.dice_source();
    let roll = check.roll(dice.as_mut())?;
    let rolled = match check.dice() {
        LoreDice::Automatic => "nothing (difficulty 1 succeeds without a roll)".to_string(),
        LoreDice::HighestOf(n) => format!("{n}d6, the highest counts"),
        LoreDice::LowerOfTwo => "2d6, the lower counts (a pool of 0 or less)".to_string(),
    };
    let mut text = format!(
        "Lore check: pool {} against difficulty {}; rolls {rolled}\nP(success) = {p} ≈ {}\n",
        check.pool(),
        args.difficulty,
        percent(&p)
    );
    if let Some(seed) = seed {
        text.push_str(&format!("seed: {seed}\n"));
    }
    let verdict = if roll.success { "success" } else { "failure" };
    match roll.result {
        Some(r) => text.push_str(&format!("dice: {:?} → {r} → {verdict}\n", roll.dice)),
        None => text.push_str(&format!("{verdict}\n")),
    }
    let json = serde_json::to_value(LoreJson {
        pool: check.pool(),
        difficulty: args.difficulty,
        rolled: &rolled,
        dice: &roll.dice,
        result: roll.result,
        success: roll.success,
        probability: p.to_string(),
        seed,
    })
    .expect("plain data serialises");
    Ok(Answer { text, json })
}

fn essence(
    args: &EssenceArgs,
    options: &RitualOptions,
    limits: &Limits,
) -> Result<Answer, RitualError> {
    let contributions = EssenceContributions {
        leader: args.leader,
        assistants: args.essence.assistants.clone(),
        time_and_place: args.essence.time_and_place,
        relics: args.essence.relics.clone(),
        offerings: args.essence.offerings.clone(),
        repeated_attempts: args.repeated_attempts,
        other_penalties: args.essence.penalty,
    };
    let mut check = EssenceCheck::new(&contributions, &args.essence.thresholds, limits)?;
    if args.essence.pairs > 0 {
        let desired = args
            .essence
            .desired
            .unwrap_or_else(|| args.essence.thresholds.iter().copied().max().unwrap_or(0));
        check = check.with_pairs(args.essence.pairs, desired, options)?;
    }
    let outcomes = check.outcome_distribution(limits)?;
    let (mut dice, seed) = args.source.dice_source();
    let roll = check.roll(dice.as_mut())?;
    let name = |o: &EssenceOutcome| match o {
        EssenceOutcome::Failed => "failed".to_string(),
        EssenceOutcome::Reached(t) => format!("threshold {t}"),
    };
    let mut text = format!(
        "Essence check: {} dice{}, thresholds {:?}\n",
        check.pool(),
        if check.pairs() > 0 {
            format!(
                " ({} pairs replaced by 7, {} rolled)",
                check.pairs(),
                check.rolled_dice()
            )
        } else {
            String::new()
        },
        check.thresholds()
    );
    let mut chances = Vec::new();
    for (o, w) in outcomes.entries() {
        let p = Probability::new(w.clone(), outcomes.total().clone());
        text.push_str(&format!("  P({}) = {p} ≈ {}\n", name(o), percent(&p)));
        chances.push(serde_json::json!({"outcome": name(o), "probability": p.to_string()}));
    }
    if let Some(seed) = seed {
        text.push_str(&format!("seed: {seed}\n"));
    }
    text.push_str(&format!(
        "dice: {:?}, total {} → {}\n",
        roll.dice,
        roll.total,
        name(&roll.outcome)
    ));
    let json = serde_json::json!({
        "pool": check.pool(),
        "pairs": check.pairs(),
        "thresholds": check.thresholds(),
        "outcomes": chances,
        "dice": roll.dice,
        "total": roll.total,
        "outcome": name(&roll.outcome),
        "seed": seed,
    });
    Ok(Answer { text, json })
}
