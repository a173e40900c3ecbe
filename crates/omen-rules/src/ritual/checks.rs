//! A Lore check and an Essence check without a character (000-M1..M5, M9..M11, A1, A2, A9), as
//! analyses: the exact odds, then a roll of the dice given (rolled at the table) or from a seed, so a
//! check replays. The stateful ritualist's checks are [`super::RitualGame`]'s actions.

use omen_core::{ChaChaDice, DieSource, Limits, Probability, ScriptedDice, probability_to_f64};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::rules::{
    Difficulty, EssenceCheck, EssenceContributions, EssenceOutcome, FamiliarityBonuses, LoreCheck,
    LoreDice, LoreModifiers, RitualError, RitualOptions, ShortcutThreshold,
};
use crate::analysis::{Analysis, AnalysisTable, Answer, decode_inputs, inputs_schema};

/// Where a check's dice come from: the dice rolled at the table, else the seed.
fn source(dice: &[i64], seed: Option<u64>) -> (Box<dyn DieSource>, Option<u64>) {
    if dice.is_empty() {
        let seed = seed.unwrap_or_default();
        (Box::new(ChaChaDice::from_seed(seed)), Some(seed))
    } else {
        (Box::new(ScriptedDice::new(dice.to_vec())), None)
    }
}

/// The inputs of the `lore` analysis: a Lore check (000-M1..M5).
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    example = json!({ "lore": 2, "difficulty": 4 }),
    example = json!({ "lore": 1, "difficulty": 5, "foreign_tradition": true })
)]
pub struct LoreInputs {
    /// The character's Lore (0 for one who has never performed a ritual).
    pub lore: i64,
    /// Ritual Difficulty, 1 (Trivial) to 6 (Very Difficult).
    pub difficulty: i64,
    /// Inventing the ritual from scratch (−2 dice).
    #[serde(default)]
    pub inventing: bool,
    /// Modifying a ritual (−1).
    #[serde(default)]
    pub modifying: bool,
    /// Translated from a language the ritualist does not know well (−1).
    #[serde(default)]
    pub unfamiliar_language: bool,
    /// Not of the character's Tradition (−1).
    #[serde(default)]
    pub foreign_tradition: bool,
    /// Deciphered this ritual before (+1).
    #[serde(default)]
    pub deciphered_before: bool,
    /// Successfully performed this ritual before (+2).
    #[serde(default)]
    pub performed_before: bool,
    /// Whether the two familiarity bonuses add up (000-A2).
    #[serde(default)]
    pub familiarity_bonuses: FamiliarityBonuses,
    /// The dice rolled at the table, in order; the seed is then not used.
    #[serde(default)]
    pub dice: Vec<i64>,
    /// The seed of the roll when no dice are given (a face picks one when none is given, and shows
    /// it so the roll can be replayed).
    #[serde(default)]
    #[schemars(extend("x-cli-fresh-seed" = true))]
    pub seed: Option<u64>,
}

/// The inputs of the `essence` analysis: an Essence check (000-M9..M11, A9).
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    example = json!({ "leader": 3, "assistants": [2], "thresholds": [12] }),
    example = json!({ "leader": 3, "thresholds": [10, 14], "pairs": 1 })
)]
pub struct EssenceInputs {
    /// The Ritual Leader's Essence.
    #[serde(default)]
    pub leader: i64,
    /// An Assistant's Essence (repeat for each).
    #[serde(default)]
    #[schemars(extend("x-cli-flag" = "assistant"))]
    pub assistants: Vec<i64>,
    /// Essence of the Time and Place.
    #[serde(default)]
    pub time_and_place: i64,
    /// A Relic's Essence (repeat for each).
    #[serde(default)]
    #[schemars(extend("x-cli-flag" = "relic"))]
    pub relics: Vec<i64>,
    /// An Offering's Essence (repeat for each).
    #[serde(default)]
    #[schemars(extend("x-cli-flag" = "offering"))]
    pub offerings: Vec<i64>,
    /// Dice lost to anything else (contamination, the GM's ruling).
    #[serde(default)]
    pub penalty: i64,
    /// A threshold of the ritual (repeat for each; at least one).
    #[schemars(extend("x-cli-flag" = "threshold"))]
    pub thresholds: Vec<i64>,
    /// Replace this many pairs of dice by 7 each.
    #[serde(default)]
    pub pairs: usize,
    /// The threshold aimed for when replacing pairs [default: the highest].
    #[serde(default)]
    pub desired: Option<i64>,
    /// Earlier attempts at this ritual since everyone last slept (attempt k loses k − 1 dice).
    #[serde(default)]
    pub repeated_attempts: i64,
    /// When replaced pairs alone waive the five-dice minimum (000-A9).
    #[serde(default)]
    pub shortcut_threshold: ShortcutThreshold,
    /// The dice rolled at the table, in order; the seed is then not used.
    #[serde(default)]
    pub dice: Vec<i64>,
    /// The seed of the roll when no dice are given (a face picks one when none is given, and shows
    /// it so the roll can be replayed).
    #[serde(default)]
    #[schemars(extend("x-cli-fresh-seed" = true))]
    pub seed: Option<u64>,
}

fn percent(p: &Probability) -> String {
    format!("{:.2}%", probability_to_f64(p) * 100.0)
}

fn lore_check(inputs: &LoreInputs, limits: &Limits) -> Result<Answer, RitualError> {
    let modifiers = LoreModifiers {
        inventing: inputs.inventing,
        modifying: inputs.modifying,
        unfamiliar_language: inputs.unfamiliar_language,
        foreign_tradition: inputs.foreign_tradition,
        deciphered_before: inputs.deciphered_before,
        performed_before: inputs.performed_before,
    };
    let options = RitualOptions {
        familiarity_bonuses: inputs.familiarity_bonuses,
        ..RitualOptions::default()
    };
    let difficulty = Difficulty::new(inputs.difficulty)?;
    let check = LoreCheck::new(inputs.lore, difficulty, &modifiers, &options, limits)?;
    let p = check.success_probability(limits)?;
    let (mut dice, seed) = source(&inputs.dice, inputs.seed);
    let roll = check.roll(dice.as_mut())?;
    let rolled = match check.dice() {
        LoreDice::Automatic => "nothing (difficulty 1 succeeds without a roll)".to_string(),
        LoreDice::HighestOf(n) => format!("{n}d6, the highest counts"),
        LoreDice::LowerOfTwo => "2d6, the lower counts (a pool of 0 or less)".to_string(),
    };
    let mut text = format!(
        "Lore check: pool {} against difficulty {}; rolls {rolled}\nP(success) = {p} ≈ {}\n",
        check.pool(),
        inputs.difficulty,
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
    let mut odds = AnalysisTable::new("The Lore check", &["pool", "difficulty", "P(success)"]);
    odds.row(vec![
        check.pool().to_string(),
        inputs.difficulty.to_string(),
        p.to_string(),
    ]);
    let mut answer = json!({
        "pool": check.pool(),
        "difficulty": inputs.difficulty,
        "rolled": rolled,
        "dice": roll.dice,
        "result": roll.result,
        "success": roll.success,
        "probability": p.to_string(),
    });
    if let Some(seed) = seed {
        answer["seed"] = json!(seed);
    }
    Ok(Answer {
        tables: vec![odds],
        text: Some(text),
        markdown: None,
        json: Some(answer),
        ..Answer::default()
    })
}

fn outcome_name(outcome: &EssenceOutcome) -> String {
    match outcome {
        EssenceOutcome::Failed => "failed".to_string(),
        EssenceOutcome::Reached(t) => format!("threshold {t}"),
    }
}

fn essence_check(inputs: &EssenceInputs, limits: &Limits) -> Result<Answer, RitualError> {
    let contributions = EssenceContributions {
        leader: inputs.leader,
        assistants: inputs.assistants.clone(),
        time_and_place: inputs.time_and_place,
        relics: inputs.relics.clone(),
        offerings: inputs.offerings.clone(),
        repeated_attempts: inputs.repeated_attempts,
        other_penalties: inputs.penalty,
    };
    let mut check = EssenceCheck::new(&contributions, &inputs.thresholds, limits)?;
    if inputs.pairs > 0 {
        let options = RitualOptions {
            shortcut_threshold: inputs.shortcut_threshold,
            ..RitualOptions::default()
        };
        let highest = inputs.thresholds.iter().copied().max().unwrap_or(0);
        let desired = inputs.desired.unwrap_or(highest);
        check = check.with_pairs(inputs.pairs, desired, &options)?;
    }
    let outcomes = check.outcome_distribution(limits)?;
    let (mut dice, seed) = source(&inputs.dice, inputs.seed);
    let roll = check.roll(dice.as_mut())?;
    let replaced = if check.pairs() > 0 {
        format!(
            " ({} pairs replaced by 7, {} rolled)",
            check.pairs(),
            check.rolled_dice()
        )
    } else {
        String::new()
    };
    let mut text = format!(
        "Essence check: {} dice{replaced}, thresholds {:?}\n",
        check.pool(),
        check.thresholds()
    );
    let mut chances = Vec::new();
    let mut odds = AnalysisTable::new("The Essence check's outcomes", &["outcome", "probability"]);
    for (outcome, weight) in outcomes.entries() {
        let p = Probability::new(weight.clone(), outcomes.total().clone());
        let name = outcome_name(outcome);
        text.push_str(&format!("  P({name}) = {p} ≈ {}\n", percent(&p)));
        chances.push(json!({ "outcome": name, "probability": p.to_string() }));
        odds.row(vec![name, p.to_string()]);
    }
    if let Some(seed) = seed {
        text.push_str(&format!("seed: {seed}\n"));
    }
    text.push_str(&format!(
        "dice: {:?}, total {} → {}\n",
        roll.dice,
        roll.total,
        outcome_name(&roll.outcome)
    ));
    let answer = json!({
        "pool": check.pool(),
        "pairs": check.pairs(),
        "thresholds": check.thresholds(),
        "outcomes": chances,
        "dice": roll.dice,
        "total": roll.total,
        "outcome": outcome_name(&roll.outcome),
        "seed": seed,
    });
    Ok(Answer {
        tables: vec![odds],
        text: Some(text),
        markdown: None,
        json: Some(answer),
        ..Answer::default()
    })
}

fn lore_answer(inputs: &Value, limits: &Limits) -> Result<Answer, String> {
    let inputs: LoreInputs = decode_inputs(inputs)?;
    lore_check(&inputs, limits).map_err(|e| e.to_string())
}

fn essence_answer(inputs: &Value, limits: &Limits) -> Result<Answer, String> {
    let inputs: EssenceInputs = decode_inputs(inputs)?;
    essence_check(&inputs, limits).map_err(|e| e.to_string())
}

fn lore_tables(inputs: &Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    lore_answer(inputs, limits).map(|a| a.tables)
}

fn essence_tables(inputs: &Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    essence_answer(inputs, limits).map(|a| a.tables)
}

pub const LORE: Analysis = Analysis {
    name: "lore",
    spec_items: &[
        "000-M1", "000-M2", "000-M3", "000-M4", "000-M5", "000-A1", "000-A2",
    ],
    summary: "a Lore check: the exact chance of success, then a roll",
    inputs: inputs_schema::<LoreInputs>,
    run: lore_tables,
    answer: Some(lore_answer),
};

pub const ESSENCE: Analysis = Analysis {
    name: "essence",
    spec_items: &["000-M9", "000-M10", "000-M11", "000-A9"],
    summary: "an Essence check: the exact chance of each threshold, then a roll",
    inputs: inputs_schema::<EssenceInputs>,
    run: essence_tables,
    answer: Some(essence_answer),
};
