//! Seed 003's calculators for more than one roller, as analyses (003-M11, M12, M14, A6, A7): a
//! contest, working together and passive perception. Each takes pools (the dice a side rolls), the
//! DV and the catastrophe range, answers with the exact odds, and, given the dice rolled at the
//! table, scores them too, so a seed's worked example replays on every face that serves analyses.
//!
//! The arithmetic is [`super::Check`], [`super::Contest`] and [`super::Teamwork`]'s; this module only
//! reads the inputs and lays the answers out as tables.

use num_traits::One;
use omen_core::{Distribution, Limits};
use serde::{Deserialize, Serialize};

use super::{
    Check, CheckRoll, Contest, ContestNets, ContestOutcome, Degree, HprpgOptions, Teamwork,
    given_difficulty, passive_perception, sneaker_revealed,
};
use crate::analysis::{Analysis, AnalysisTable, decode_inputs, inputs_schema, probability_cell};

/// The most dice one side may roll here: far above any pool the seed describes (the Whomping
/// Willow's 11), and small enough that every answer is quick.
pub const MAX_POOL: u64 = 40;

/// The most helpers working together in one request.
pub const MAX_HELPERS: usize = 12;

/// The highest DV accepted as given: 12 (003-M2) plus the 2 a PRACTICAL ability at 0 dots adds
/// (003-M6); a DV above 12 is scored as 12 (003-A4).
pub const MAX_GIVEN_DIFFICULTY: i64 = 14;

/// The highest rating of PERCEPTION or ALERTNESS (003-D1: 0..7).
pub const MAX_RATING: u32 = 7;

fn five() -> u64 {
    5
}

fn four() -> u64 {
    4
}

fn six() -> u64 {
    6
}

fn three_dots() -> u32 {
    3
}

fn four_dots() -> u32 {
    4
}

fn standard() -> i64 {
    8
}

fn easy() -> i64 {
    6
}

fn one() -> i64 {
    1
}

fn bruce_and_jane() -> Vec<u64> {
    vec![4, 5]
}

/// How a contest turns each side's net into the margin (003-A6).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ContestNetsChoice {
    /// Each side's net counts from 0: a side that rolls a catastrophe suffers it itself and gives
    /// the other side nothing. The spec's resolution.
    #[default]
    Floor,
    /// The signed nets: a resistor's catastrophe widens the instigator's margin.
    Signed,
}

impl From<ContestNetsChoice> for ContestNets {
    fn from(choice: ContestNetsChoice) -> Self {
        match choice {
            ContestNetsChoice::Floor => ContestNets::Floor,
            ContestNetsChoice::Signed => ContestNets::Signed,
        }
    }
}

/// The inputs of the `contest` analysis (003-M11, A6).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"pool": 5, "resistor_pool": 3, "difficulty": 8, "dice": [8, 9, 10, 11, 12, 8, 9, 10]}))]
pub struct ContestInputs {
    /// The instigator's pool: aspect + ability dots and any bonus dice (0: the zero pool, two dice
    /// of which the lower counts).
    #[serde(default = "five")]
    #[schemars(range(min = 0, max = 40))]
    pub pool: u64,
    /// The resistor's pool, counted the same way.
    #[serde(default = "four")]
    #[schemars(range(min = 0, max = 40))]
    pub resistor_pool: u64,
    /// The DV of the instigator's action, which both sides roll against (STANDARD is 8). A DV above
    /// 12 is scored as 12.
    #[serde(default = "standard")]
    #[schemars(range(min = 2, max = 14))]
    #[schemars(extend("x-cli-flag" = "dv"))]
    pub difficulty: i64,
    /// The resistor's own DV, when the GM rules the two sides' situations differ; left out, the
    /// resistor rolls against the instigator's DV.
    #[serde(default)]
    #[schemars(range(min = 2, max = 14))]
    #[schemars(extend("x-cli-flag" = "resistor-dv"))]
    pub resistor_difficulty: Option<i64>,
    /// Dice at or below this are catastrophes (1 as usual, 3 with a Broken Wand, 0 for none).
    #[serde(default = "one")]
    #[schemars(range(min = 0, max = 11))]
    pub catastrophe_range: i64,
    /// Whether the margin takes each side's net from 0 (`floor`) or the signed nets (`signed`).
    #[serde(default)]
    pub contest_nets: ContestNetsChoice,
    /// The dice rolled at the table, to score them: the instigator's first, then the resistor's
    /// (two for a zero pool), each 1 to 12. Leave empty for the odds alone.
    #[serde(default)]
    #[schemars(length(max = 82))]
    pub dice: Vec<i64>,
}

/// The inputs of the `teamwork` analysis: working together (003-M12, A7).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"pools": [4, 5], "difficulty": 6, "dice": [1, 1, 3, 10, 3, 7, 10, 10, 11]}))]
pub struct TeamworkInputs {
    /// Each helper's pool (aspect + ability dots), the one doing the bulk of the work first; 0 is
    /// the zero pool. Incidental help is not a helper: it adds a die to the main pool instead.
    #[serde(default = "bruce_and_jane")]
    #[schemars(length(min = 1, max = 12), inner(range(min = 0, max = 40)))]
    #[schemars(extend("x-cli-flag" = "pool"))]
    pub pools: Vec<u64>,
    /// The DV every helper rolls against (EASY is 6). A DV above 12 is scored as 12.
    #[serde(default = "easy")]
    #[schemars(range(min = 2, max = 14))]
    #[schemars(extend("x-cli-flag" = "dv"))]
    pub difficulty: i64,
    /// Dice at or below this are catastrophes (1 as usual, 3 with a Broken Wand, 0 for none).
    #[serde(default = "one")]
    #[schemars(range(min = 0, max = 11))]
    pub catastrophe_range: i64,
    /// The dice rolled at the table, to score them: each helper's in the order of the pools (two
    /// for a zero pool), each 1 to 12. Leave empty for the odds alone.
    #[serde(default)]
    #[schemars(length(max = 480))]
    pub dice: Vec<i64>,
}

/// The inputs of the `perception` analysis: passive perception against a sneak (003-M14).
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"perception": 3, "alertness": 4, "sneak_pool": 6, "dice": [2, 3, 5, 6, 8, 10]}))]
pub struct PerceptionInputs {
    /// The watcher's PERCEPTION dots.
    #[serde(default = "three_dots")]
    #[schemars(range(min = 0, max = 7))]
    pub perception: u32,
    /// The watcher's ALERTNESS dots; PERCEPTION + ALERTNESS is the passive perception, the DV of
    /// every sneak against the watcher.
    #[serde(default = "four_dots")]
    #[schemars(range(min = 0, max = 7))]
    pub alertness: u32,
    /// The sneaker's pool (0: the zero pool). The sneaker is revealed on a failure or a catastrophe.
    #[serde(default = "six")]
    #[schemars(range(min = 0, max = 40))]
    pub sneak_pool: u64,
    /// Dice at or below this are catastrophes (1 as usual).
    #[serde(default = "one")]
    #[schemars(range(min = 0, max = 11))]
    pub catastrophe_range: i64,
    /// The sneak's dice as rolled at the table (two for a zero pool), each 1 to 12, to score them.
    /// Leave empty for the odds alone.
    #[serde(default)]
    #[schemars(length(max = 40))]
    pub dice: Vec<i64>,
}

/// Refuses a pool outside 0..=[`MAX_POOL`].
fn pool_within(what: &str, pool: u64) -> Result<u64, String> {
    if pool > MAX_POOL {
        return Err(format!(
            "{what} of {pool} dice is above {MAX_POOL}; give at most {MAX_POOL} dice"
        ));
    }
    Ok(pool)
}

/// A DV as given: 2..=[`MAX_GIVEN_DIFFICULTY`].
fn difficulty_within(what: &str, difficulty: i64) -> Result<i64, String> {
    given_difficulty(difficulty).map_err(|e| format!("{what}: {e}"))?;
    if difficulty > MAX_GIVEN_DIFFICULTY {
        return Err(format!(
            "{what} {difficulty} is above {MAX_GIVEN_DIFFICULTY}; every DV above 12 is scored as 12, \
             so give 12"
        ));
    }
    Ok(difficulty)
}

/// The dice a pool rolls: its own, or two for the zero pool (003-M6).
fn rolled(pool: u64) -> usize {
    if pool == 0 {
        2
    } else {
        usize::try_from(pool).unwrap_or(usize::MAX)
    }
}

/// Checks the dice given for sides rolling `pools`: none (the odds alone) or exactly as many as
/// they roll, each a face of a d12.
fn given_dice(dice: &[i64], pools: &[u64], whose: &str) -> Result<bool, String> {
    if dice.is_empty() {
        return Ok(false);
    }
    let wanted: usize = pools.iter().map(|&p| rolled(p)).sum();
    if dice.len() != wanted {
        return Err(format!(
            "{} dice given, but {whose} roll {wanted} (a zero pool rolls two); give all {wanted}, or \
             none for the odds alone",
            dice.len()
        ));
    }
    if let Some(bad) = dice.iter().find(|d| !(1..=super::SIDES).contains(*d)) {
        return Err(format!(
            "a die showing {bad} is no face of a d12; give faces 1 to 12"
        ));
    }
    Ok(true)
}

fn check(
    pool: u64,
    difficulty: i64,
    catastrophe_range: i64,
    limits: &Limits,
) -> Result<Check, String> {
    Check::new(
        pool,
        difficulty,
        catastrophe_range,
        0,
        &HprpgOptions::default(),
        limits,
    )
    .map_err(|e| e.to_string())
}

/// One scored roll as a row: who, the dice, successes, catastrophes, net, degree.
fn roll_row(who: String, roll: &CheckRoll) -> Vec<String> {
    let dice: Vec<String> = roll.dice.iter().map(i64::to_string).collect();
    vec![
        who,
        dice.join(", "),
        roll.successes.to_string(),
        roll.catastrophes.to_string(),
        roll.net.to_string(),
        roll.degree.name().to_string(),
    ]
}

const ROLL_COLUMNS: [&str; 6] = ["who", "dice", "successes", "catastrophes", "net", "degree"];

/// A margin's outcome as people read it (003-M11).
fn contest_outcome_text(outcome: ContestOutcome) -> String {
    match outcome {
        ContestOutcome::Failure => "the action fails".to_string(),
        ContestOutcome::StatusQuo => "status quo".to_string(),
        ContestOutcome::Success(degree) => format!("success, {}", degree.name()),
    }
}

/// The nets a degree covers, as the seed counts them (003-M5).
fn nets_of(degree: Degree) -> &'static str {
    match degree {
        Degree::CatastrophicFailure => "< 0",
        Degree::Failure => "0",
        Degree::Marginal => "1",
        Degree::Okay => "2",
        Degree::Good => "3",
        Degree::Complete => "4",
        Degree::Excellent => "5",
        Degree::Flawless => "6",
        Degree::Legendary => "≥ 7",
    }
}

/// The chance of every degree of a net distribution, worst first, with the nets each covers.
fn degree_table(caption: String, nets: &Distribution<i64>) -> AnalysisTable {
    let degrees = nets.map(|&net| Degree::of(net));
    let mut table = AnalysisTable::new(caption, &["degree", "net", "chance"]);
    for degree in Degree::ALL {
        table.row(vec![
            degree.name().to_string(),
            nets_of(degree).to_string(),
            probability_cell(&degrees.probability(&degree)),
        ]);
    }
    table
}

fn contest(inputs: &serde_json::Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    let inputs: ContestInputs = decode_inputs(inputs)?;
    let pool = pool_within("the instigator's pool", inputs.pool)?;
    let resistor_pool = pool_within("the resistor's pool", inputs.resistor_pool)?;
    let difficulty = difficulty_within("the DV", inputs.difficulty)?;
    let resistor_difficulty = match inputs.resistor_difficulty {
        Some(dv) => difficulty_within("the resistor's DV", dv)?,
        None => difficulty,
    };
    let scored = given_dice(&inputs.dice, &[pool, resistor_pool], "the two sides")?;
    let range = inputs.catastrophe_range;
    let contest = Contest {
        instigator: check(pool, difficulty, range, limits)?,
        resistor: check(resistor_pool, resistor_difficulty, range, limits)?,
        nets: inputs.contest_nets.into(),
    };
    let margins = contest
        .margin_distribution(limits)
        .map_err(|e| e.to_string())?;
    let sides = format!(
        "{pool}d12 against DV {} and {resistor_pool}d12 against DV {} (catastrophes 1–{range}, nets \
         {})",
        contest.instigator.difficulty(),
        contest.resistor.difficulty(),
        contest.nets.name()
    );
    let mut outcomes = AnalysisTable::new(
        format!("P(each outcome) of the contest: {sides}"),
        &["outcome", "margin", "chance"],
    );
    outcomes.row(vec![
        contest_outcome_text(ContestOutcome::Failure),
        "< 0".to_string(),
        probability_cell(&margins.probability_where(|&m| m < 0)),
    ]);
    outcomes.row(vec![
        contest_outcome_text(ContestOutcome::StatusQuo),
        "0".to_string(),
        probability_cell(&margins.probability(&0)),
    ]);
    for degree in Degree::ALL.into_iter().filter(|d| d.is_success()) {
        outcomes.row(vec![
            contest_outcome_text(ContestOutcome::Success(degree)),
            nets_of(degree).to_string(),
            probability_cell(&margins.probability_where(|&m| m > 0 && Degree::of(m) == degree)),
        ]);
    }
    let mut by_margin = AnalysisTable::new(
        "P(each margin): the instigator's net less the resistor's",
        &["margin", "chance"],
    );
    for (margin, weight) in margins.entries() {
        let p = omen_core::Probability::new(weight.clone(), margins.total().clone());
        by_margin.row(vec![margin.to_string(), probability_cell(&p)]);
    }
    let mut tables = vec![outcomes, by_margin];
    if scored {
        let roll = contest
            .roll(&mut omen_core::ScriptedDice::new(inputs.dice.clone()))
            .map_err(|e| e.to_string())?;
        let mut table = AnalysisTable::new("The dice as rolled", &ROLL_COLUMNS);
        table.row(roll_row("instigator".to_string(), &roll.instigator));
        table.row(roll_row("resistor".to_string(), &roll.resistor));
        let mut margin = vec![String::new(); ROLL_COLUMNS.len()];
        margin[0] = "margin".to_string();
        margin[4] = roll.margin.to_string();
        margin[5] = contest_outcome_text(roll.outcome);
        table.row(margin);
        tables.push(table);
    }
    Ok(tables)
}

fn teamwork(inputs: &serde_json::Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    let inputs: TeamworkInputs = decode_inputs(inputs)?;
    if inputs.pools.is_empty() || inputs.pools.len() > MAX_HELPERS {
        return Err(format!(
            "{} helpers given; working together needs 1 to {MAX_HELPERS}, the main actor first",
            inputs.pools.len()
        ));
    }
    for (i, &pool) in inputs.pools.iter().enumerate() {
        pool_within(&format!("helper {}'s pool", i + 1), pool)?;
    }
    let difficulty = difficulty_within("the DV", inputs.difficulty)?;
    let scored = given_dice(&inputs.dice, &inputs.pools, "the helpers")?;
    let checks = inputs
        .pools
        .iter()
        .map(|&pool| check(pool, difficulty, inputs.catastrophe_range, limits))
        .collect::<Result<Vec<_>, _>>()?;
    let effective = checks[0].difficulty();
    let team = Teamwork::new(checks).map_err(|e| e.to_string())?;
    let nets = team.net_distribution(limits).map_err(|e| e.to_string())?;
    let pools: Vec<String> = inputs.pools.iter().map(|p| format!("{p}d12")).collect();
    let mut tables = vec![degree_table(
        format!(
            "P(each degree) working together: {} against DV {effective} (catastrophes 1–{}), \
             successes and catastrophes pooled",
            pools.join(" + "),
            inputs.catastrophe_range
        ),
        &nets,
    )];
    if scored {
        let roll = team
            .roll(&mut omen_core::ScriptedDice::new(inputs.dice.clone()))
            .map_err(|e| e.to_string())?;
        let mut table = AnalysisTable::new("The dice as rolled, then pooled", &ROLL_COLUMNS);
        for (i, helper) in roll.rolls.iter().enumerate() {
            table.row(roll_row(format!("helper {}", i + 1), helper));
        }
        table.row(vec![
            "pooled".to_string(),
            String::new(),
            roll.successes.to_string(),
            roll.catastrophes.to_string(),
            roll.net.to_string(),
            roll.degree.name().to_string(),
        ]);
        tables.push(table);
    }
    Ok(tables)
}

fn perception(inputs: &serde_json::Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    let inputs: PerceptionInputs = decode_inputs(inputs)?;
    for (name, dots) in [
        ("PERCEPTION", inputs.perception),
        ("ALERTNESS", inputs.alertness),
    ] {
        if dots > MAX_RATING {
            return Err(format!(
                "{name} {dots} is above {MAX_RATING}, the highest rating; give 0 to {MAX_RATING}"
            ));
        }
    }
    let pool = pool_within("the sneak's pool", inputs.sneak_pool)?;
    let scored = given_dice(&inputs.dice, &[pool], "the sneak's pool")?;
    let passive = passive_perception(inputs.perception, inputs.alertness);
    // A watcher with fewer than 2 dots still sets a DV: the lowest there is (003-M4).
    let sneak = check(pool, passive.max(2), inputs.catastrophe_range, limits)?;
    let mut dv = AnalysisTable::new("Passive perception", &["value", "DV"]);
    dv.row(vec![
        format!(
            "PERCEPTION {} + ALERTNESS {}",
            inputs.perception, inputs.alertness
        ),
        passive.to_string(),
    ]);
    dv.row(vec![
        "the DV a sneak is scored against".to_string(),
        sneak.difficulty().to_string(),
    ]);
    let nets = sneak.net_distribution(limits).map_err(|e| e.to_string())?;
    let revealed = nets.probability_where(|&net| sneaker_revealed(Degree::of(net)));
    let mut reveal = AnalysisTable::new(
        format!(
            "A sneak with {pool}d12 against DV {}: revealed on a failure or a catastrophe",
            sneak.difficulty()
        ),
        &["event", "chance"],
    );
    reveal.row(vec!["revealed".to_string(), probability_cell(&revealed)]);
    reveal.row(vec![
        "unnoticed (the degree says how much is noticed)".to_string(),
        probability_cell(&(omen_core::Probability::one() - &revealed)),
    ]);
    let mut tables = vec![
        dv,
        reveal,
        degree_table("P(each degree) of the sneak".to_string(), &nets),
    ];
    if scored {
        let roll = sneak.replay(&inputs.dice).map_err(|e| e.to_string())?;
        let mut table = AnalysisTable::new("The sneak as rolled", &ROLL_COLUMNS);
        table.row(roll_row("sneaker".to_string(), &roll));
        let mut verdict = vec![String::new(); ROLL_COLUMNS.len()];
        verdict[0] = "verdict".to_string();
        verdict[5] = if sneaker_revealed(roll.degree) {
            "revealed".to_string()
        } else {
            "unnoticed".to_string()
        };
        table.row(verdict);
        tables.push(table);
    }
    Ok(tables)
}

/// The contest analysis (003-M11, A6).
pub const CONTEST: Analysis = Analysis {
    name: "contest",
    spec_items: &["003-M11", "003-A6"],
    summary: "a contest: both sides roll against the instigator's DV (or each its own) and the margin \
              of nets decides: the exact chance of each outcome and margin, and the dice rolled at \
              the table scored",
    inputs: inputs_schema::<ContestInputs>,
    run: contest,
    answer: None,
};

/// The working-together analysis (003-M12, A7).
pub const TEAMWORK: Analysis = Analysis {
    name: "teamwork",
    spec_items: &["003-M12", "003-A7"],
    summary: "working together: every helper rolls, successes and catastrophes are pooled: the exact \
              chance of each degree, and the dice rolled at the table scored",
    inputs: inputs_schema::<TeamworkInputs>,
    run: teamwork,
    answer: None,
};

/// The passive-perception analysis (003-M14).
pub const PERCEPTION: Analysis = Analysis {
    name: "perception",
    spec_items: &["003-M14"],
    summary: "passive perception: PERCEPTION + ALERTNESS is the DV of a sneak, revealed on a failure \
              or a catastrophe: the exact chance, and the sneak's dice rolled at the table scored",
    inputs: inputs_schema::<PerceptionInputs>,
    run: perception,
    answer: None,
};

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::{Value, json};

    use super::*;

    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }

    /// `n/d` in lowest terms as the tables write it (a whole number alone).
    fn fraction(n: u64, d: u64) -> String {
        let g = gcd(n, d).max(1);
        if d / g == 1 {
            (n / g).to_string()
        } else {
            format!("{}/{}", n / g, d / g)
        }
    }

    /// The exact fraction of a probability cell, without the percentage.
    fn exact(cell: &str) -> &str {
        cell.split(' ').next().unwrap_or_default()
    }

    /// Every roll of `pools` (a zero pool is two dice, the lower scored), enumerated face by face:
    /// how many rolls give each value of `score` applied to every side's (successes, catastrophes).
    fn enumerate(
        pools: &[u64],
        difficulty: i64,
        range: i64,
        score: impl Fn(&[(i64, i64)]) -> i64,
    ) -> (BTreeMap<i64, u64>, u64) {
        let dice: Vec<usize> = pools.iter().map(|&p| rolled(p)).collect();
        let total_dice: usize = dice.iter().sum();
        let mut counts = BTreeMap::new();
        let mut faces = vec![1i64; total_dice];
        let mut total = 0u64;
        loop {
            let mut sides = Vec::new();
            let mut at = 0;
            for (&pool, &n) in pools.iter().zip(&dice) {
                let mut side = faces[at..at + n].to_vec();
                if pool == 0 {
                    side = vec![*side.iter().min().expect("two dice")];
                }
                let s = side.iter().filter(|&&f| f >= difficulty).count() as i64;
                let c = side.iter().filter(|&&f| f <= range).count() as i64;
                sides.push((s, c));
                at += n;
            }
            *counts.entry(score(&sides)).or_insert(0) += 1;
            total += 1;
            // The next roll, like an odometer.
            let mut i = 0;
            while i < total_dice && faces[i] == 12 {
                faces[i] = 1;
                i += 1;
            }
            if i == total_dice {
                break;
            }
            faces[i] += 1;
        }
        (counts, total)
    }

    fn run(analysis: &Analysis, inputs: Value) -> Result<Vec<AnalysisTable>, String> {
        (analysis.run)(&inputs, &Limits::default())
    }

    fn row<'a>(table: &'a AnalysisTable, first: &str) -> &'a [String] {
        table
            .rows
            .iter()
            .find(|r| r[0] == first)
            .unwrap_or_else(|| panic!("no row {first} in {table:?}"))
    }

    #[test]
    fn a_contest_of_two_dice_against_one_has_the_margins_every_roll_gives() {
        // Floored nets (003-A6): each side's S − C counted from 0.
        let (margins, total) = enumerate(&[2, 1], 8, 1, |sides| {
            let net = |(s, c): (i64, i64)| (s - c).max(0);
            net(sides[0]) - net(sides[1])
        });
        let tables = run(
            &CONTEST,
            json!({ "pool": 2, "resistor_pool": 1, "difficulty": 8 }),
        )
        .expect("runs");
        let p = |pred: &dyn Fn(i64) -> bool| {
            fraction(
                margins
                    .iter()
                    .filter(|(m, _)| pred(**m))
                    .map(|(_, n)| n)
                    .sum(),
                total,
            )
        };
        assert_eq!(
            exact(&row(&tables[0], "the action fails")[2]),
            p(&|m| m < 0)
        );
        assert_eq!(exact(&row(&tables[0], "status quo")[2]), p(&|m| m == 0));
        assert_eq!(
            exact(&row(&tables[0], "success, MARGINAL")[2]),
            p(&|m| m == 1)
        );
        assert_eq!(exact(&row(&tables[0], "success, OKAY")[2]), p(&|m| m == 2));
        assert_eq!(exact(&row(&tables[0], "success, GOOD")[2]), "0");
        for (margin, n) in &margins {
            assert_eq!(
                exact(&row(&tables[1], &margin.to_string())[1]),
                fraction(*n, total)
            );
        }
    }

    #[test]
    fn signed_nets_let_a_resistors_catastrophe_widen_the_margin() {
        // One die against a zero pool at DV 12: the resistor's lower die is a 1 with 23/144
        // (003-M6), which under signed nets is a net of −1.
        let (margins, total) = enumerate(&[1, 0], 12, 1, |sides| {
            (sides[0].0 - sides[0].1) - (sides[1].0 - sides[1].1)
        });
        let tables = run(
            &CONTEST,
            json!({ "pool": 1, "resistor_pool": 0, "difficulty": 12, "contest_nets": "signed" }),
        )
        .expect("runs");
        assert!(
            tables[0].caption.contains("nets signed"),
            "{}",
            tables[0].caption
        );
        for (margin, n) in &margins {
            assert_eq!(
                exact(&row(&tables[1], &margin.to_string())[1]),
                fraction(*n, total),
                "margin {margin}"
            );
        }
        // Margin 2 needs the instigator's 12 and the resistor's catastrophe: 1/12 × 23/144.
        assert_eq!(exact(&row(&tables[1], "2")[1]), "23/1728");
    }

    #[test]
    fn bruce_shoves_the_death_eater_with_a_margin_of_two_okay() {
        // The seed's contest: 5 successes against 3, margin 2, an OKAY success (003-M11).
        let tables = run(
            &CONTEST,
            json!({ "pool": 5, "resistor_pool": 3, "difficulty": 8,
                    "dice": [8, 9, 10, 11, 12, 8, 9, 10] }),
        )
        .expect("runs");
        let rolled = &tables[2];
        assert_eq!(row(rolled, "instigator")[2..5], ["5", "0", "5"]);
        assert_eq!(row(rolled, "resistor")[2..5], ["3", "0", "3"]);
        assert_eq!(row(rolled, "margin")[4..], ["2", "success, OKAY"]);
    }

    #[test]
    fn helpers_pool_successes_and_catastrophes_as_every_roll_does() {
        // A zero pool and two dice at DV 6 with catastrophes 1–2: 12⁴ rolls.
        let (nets, total) = enumerate(&[0, 2], 6, 2, |sides| {
            sides.iter().map(|(s, c)| s - c).sum()
        });
        let tables = run(
            &TEAMWORK,
            json!({ "pools": [0, 2], "difficulty": 6, "catastrophe_range": 2 }),
        )
        .expect("runs");
        let p = |pred: &dyn Fn(i64) -> bool| {
            fraction(
                nets.iter().filter(|(n, _)| pred(**n)).map(|(_, w)| w).sum(),
                total,
            )
        };
        let degrees = &tables[0];
        assert_eq!(
            exact(&row(degrees, "CATASTROPHIC FAILURE")[2]),
            p(&|n| n < 0)
        );
        assert_eq!(exact(&row(degrees, "FAILURE")[2]), p(&|n| n == 0));
        assert_eq!(exact(&row(degrees, "MARGINAL")[2]), p(&|n| n == 1));
        assert_eq!(exact(&row(degrees, "OKAY")[2]), p(&|n| n == 2));
        assert_eq!(exact(&row(degrees, "GOOD")[2]), p(&|n| n == 3));
        assert_eq!(exact(&row(degrees, "COMPLETE")[2]), "0");
    }

    #[test]
    fn bruce_and_jane_search_the_dungeons_for_a_net_of_three_not_the_seeds_two() {
        // E003-13: Bruce 1,1,3,10 (1 success, 2 catastrophes) and Jane 3,7,10,10,11 (4 successes)
        // at DV 6: pooled 5 − 2 = 3, GOOD.
        let tables = run(
            &TEAMWORK,
            json!({ "pools": [4, 5], "difficulty": 6,
                    "dice": [1, 1, 3, 10, 3, 7, 10, 10, 11] }),
        )
        .expect("runs");
        let rolled = &tables[1];
        assert_eq!(
            row(rolled, "helper 1")[1..5],
            ["1, 1, 3, 10", "1", "2", "-1"]
        );
        assert_eq!(row(rolled, "helper 2")[2..5], ["4", "0", "4"]);
        assert_eq!(row(rolled, "pooled")[2..], ["5", "2", "3", "GOOD"]);
    }

    #[test]
    fn jane_hears_the_acromantula_an_okay_sneak_that_stays_unnoticed() {
        // 003-M14: PERCEPTION 3 + ALERTNESS 4 = 7; 2-3-5-6-8-10 has two successes (8, 10) and no 1.
        let tables = run(
            &PERCEPTION,
            json!({ "perception": 3, "alertness": 4, "sneak_pool": 6,
                    "dice": [2, 3, 5, 6, 8, 10] }),
        )
        .expect("runs");
        assert_eq!(tables[0].rows[0][1], "7");
        assert_eq!(tables[0].rows[1][1], "7");
        let rolled = &tables[3];
        assert_eq!(row(rolled, "sneaker")[2..], ["2", "0", "2", "OKAY"]);
        assert_eq!(row(rolled, "verdict")[5], "unnoticed");
    }

    #[test]
    fn a_two_die_sneak_against_seven_is_revealed_one_time_in_three() {
        // Per die: 6/12 a success, 1/12 a catastrophe, 5/12 neither. Unnoticed needs net ≥ 1: two
        // successes (1/4) or one with a blank (2 × 1/2 × 5/12 = 5/12), 2/3 in all.
        let tables = run(
            &PERCEPTION,
            json!({ "perception": 3, "alertness": 4, "sneak_pool": 2 }),
        )
        .expect("runs");
        assert_eq!(exact(&row(&tables[1], "revealed")[1]), "1/3");
        assert_eq!(tables.len(), 3, "no dice, no roll table");
        // A watcher with no dots sets the lowest DV, 2: one die fails only on a 1.
        let dull = run(
            &PERCEPTION,
            json!({ "perception": 0, "alertness": 0, "sneak_pool": 1 }),
        )
        .expect("runs");
        assert_eq!(dull[0].rows[1][1], "2");
        assert_eq!(exact(&row(&dull[1], "revealed")[1]), "1/12");
    }

    #[test]
    fn inputs_outside_the_rules_are_refused_with_a_hint() {
        let refused = |analysis: &Analysis, inputs: Value, says: &str| {
            let message = run(analysis, inputs.clone()).expect_err("refused");
            assert!(message.contains(says), "{inputs}: {message}");
        };
        refused(&CONTEST, json!({ "dice": [1, 2, 3] }), "give all 9");
        refused(
            &CONTEST,
            json!({ "pool": 0, "resistor_pool": 1, "dice": [1, 2, 13] }),
            "no face",
        );
        refused(&CONTEST, json!({ "pool": 41 }), "at most 40");
        refused(&CONTEST, json!({ "difficulty": 1 }), "below 2");
        refused(&CONTEST, json!({ "resistor_difficulty": 15 }), "give 12");
        refused(
            &CONTEST,
            json!({ "catastrophe_range": 12 }),
            "outside 0..11",
        );
        refused(&CONTEST, json!({ "contest_nets": "both" }), "both");
        refused(&TEAMWORK, json!({ "pools": [] }), "1 to 12");
        refused(&TEAMWORK, json!({ "pools": vec![1; 13] }), "1 to 12");
        refused(&TEAMWORK, json!({ "pool": [1] }), "pool");
        refused(&PERCEPTION, json!({ "perception": 8 }), "highest rating");
        refused(
            &PERCEPTION,
            json!({ "sneak_pool": 0, "dice": [4] }),
            "zero pool rolls two",
        );
    }

    #[test]
    fn every_calculator_answers_its_defaults_and_its_schemas_example() {
        for analysis in [CONTEST, TEAMWORK, PERCEPTION] {
            run(&analysis, json!({})).unwrap_or_else(|e| panic!("{}: {e}", analysis.name));
            let schema = (analysis.inputs)();
            let example = &schema["examples"][0];
            let tables = run(&analysis, example.clone())
                .unwrap_or_else(|e| panic!("{}: {example}: {e}", analysis.name));
            assert!(
                tables.last().is_some_and(|t| t.caption.contains("rolled")),
                "{}: the example scores its dice",
                analysis.name
            );
            // Every field has help for the page and the CLI.
            for (field, property) in schema["properties"].as_object().expect("properties") {
                assert!(
                    property["description"].is_string(),
                    "{}.{field} has no help",
                    analysis.name
                );
            }
        }
    }
}
