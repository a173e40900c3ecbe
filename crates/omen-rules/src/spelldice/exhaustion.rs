//! A day of casting as an analysis (001-M8, M6, A5, E001-5): P(no successful cast before the pool
//! can no longer reach the target) and the expected successful casts for one level, spell level,
//! commitment strategy and removal rule, with every strategy side by side. The Markov chain is
//! [`super::exhaust`]'s; this module reads the inputs and lays the answer out as tables.

use omen_core::{Limits, Probability};
use serde::{Deserialize, Serialize};

use super::{
    RemovalFaces, RemovalTiming, SpellDiceOptions, SpellLevel, Strategy, exhaust, minimum_dice,
};
use crate::analysis::{Analysis, AnalysisTable, decode_inputs, fraction, inputs_schema};
use crate::render::fixed_decimal;

/// The highest magic-user level the analysis takes: a pool of 12 dice, as far as 001-M8's tables
/// go in dice, and quick to solve for every strategy.
pub const MAX_LEVEL: i64 = 10;

/// How many spell dice each cast commits over the day (001-M8).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum StrategyChoice {
    /// Every die left.
    #[default]
    All,
    /// The fewest dice that can reach the target.
    Minimum,
    /// At each pool size, the commitment with the best chance of a success before the dice run
    /// out.
    Optimal,
    /// At each pool size, the commitment with the most successful casts expected in the day.
    MostCasts,
    /// The number of dice in `fixed_dice`, or the whole pool once fewer are left.
    Fixed,
}

fn one() -> i64 {
    1
}

/// The inputs of the `exhaust` analysis.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"level": 3, "spell_level": 2, "strategy": "fixed", "fixed_dice": 2}))]
pub struct ExhaustInputs {
    /// The magic-user's level: the day starts with a full pool of 2 + level d6.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 10))]
    pub level: i64,
    /// The spell level cast all day, 1 to 9: a cast succeeds on a total of 7 + spell level
    /// (level-agnostic spells are level 1).
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 9))]
    pub spell_level: i64,
    /// How many dice each cast commits; the day ends when the pool can no longer reach the target.
    #[serde(default)]
    pub strategy: StrategyChoice,
    /// The dice each cast commits under the `fixed` strategy (the whole pool once fewer are left);
    /// other strategies ignore it.
    #[serde(default)]
    #[schemars(range(min = 1, max = 12))]
    pub fixed_dice: Option<usize>,
    /// Committed dice showing 1 up to this face leave the pool (2 in the seed).
    #[serde(default)]
    #[schemars(range(min = 1, max = 6))]
    pub removal_faces: RemovalFaces,
    /// When those dice leave: after every cast (the seed's rule) or only after a success or a
    /// catastrophe (the author's proposed fix).
    #[serde(default)]
    #[schemars(extend("x-cli-switch" = serde_json::json!({"variant": "success-or-catastrophe"})))]
    pub removal_timing: RemovalTiming,
}

/// The engine's strategy for a choice, or why there is none.
fn strategy(choice: StrategyChoice, fixed_dice: Option<usize>) -> Result<Strategy, String> {
    Ok(match choice {
        StrategyChoice::All => Strategy::All,
        StrategyChoice::Minimum => Strategy::Minimum,
        StrategyChoice::Optimal => Strategy::Optimal,
        StrategyChoice::MostCasts => Strategy::MostCasts,
        StrategyChoice::Fixed => match fixed_dice {
            Some(k @ 1..=12) => Strategy::Fixed(k),
            Some(k) => {
                return Err(format!(
                    "fixed_dice {k} is outside 1..=12; give the dice each cast commits"
                ));
            }
            None => {
                return Err(
                    "the fixed strategy commits fixed_dice dice a cast; give fixed_dice, e.g. 2"
                        .to_string(),
                );
            }
        },
    })
}

/// An expectation as a cell: the exact fraction and four decimals.
fn expectation_cell(value: &Probability) -> String {
    format!("{} (≈ {})", fraction(value), fixed_decimal(value, 4))
}

fn exhaustion(inputs: &serde_json::Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    let inputs: ExhaustInputs = decode_inputs(inputs)?;
    if !(1..=MAX_LEVEL).contains(&inputs.level) {
        return Err(format!(
            "magic-user level {} is outside 1..={MAX_LEVEL}; give a level from 1 to {MAX_LEVEL}",
            inputs.level
        ));
    }
    let spell_level = SpellLevel::new(inputs.spell_level).map_err(|e| e.to_string())?;
    let chosen = strategy(inputs.strategy, inputs.fixed_dice)?;
    let options = SpellDiceOptions {
        removal_faces: inputs.removal_faces,
        removal_timing: inputs.removal_timing,
        ..SpellDiceOptions::default()
    };
    let day =
        exhaust(inputs.level, spell_level, chosen, &options, limits).map_err(|e| e.to_string())?;
    let target = spell_level.target();
    let rule = match options.removal_timing {
        RemovalTiming::Always => "dice lost after every cast",
        RemovalTiming::SuccessOrCatastrophe => "dice lost only on a success or a catastrophe",
    };
    let mut caption = format!(
        "A day of casting: level {} ({} dice), target {target}, strategy {chosen}, faces 1–{} {rule}",
        inputs.level,
        day.commitments.len() - 1,
        options.removal_faces.highest(),
    );
    if let (Some(k), false) = (inputs.fixed_dice, inputs.strategy == StrategyChoice::Fixed) {
        // Said rather than refused: a form keeps the number when the menu changes.
        caption.push_str(&format!(
            " (fixed_dice {k} is not used: choose the fixed strategy to commit {k} dice a cast)"
        ));
    }
    let mut summary = AnalysisTable::new(caption, &["quantity", "value"]);
    summary.row(vec![
        "P(no successful cast before the pool can no longer reach the target)".to_string(),
        crate::analysis::probability_cell(&day.exhausted_before_success),
    ]);
    summary.row(vec![
        "expected successful casts in the day".to_string(),
        expectation_cell(&day.expected_successes),
    ]);
    let mut commitments = AnalysisTable::new(
        format!("The dice {chosen} commits at each pool size"),
        &["dice left", "dice committed"],
    );
    for (pool, &dice) in day.commitments.iter().enumerate().rev() {
        let committed = if pool < minimum_dice(target) {
            format!("none: {pool} dice cannot reach {target}")
        } else {
            dice.to_string()
        };
        commitments.row(vec![pool.to_string(), committed]);
    }
    let compared = compare(&inputs, spell_level, chosen, &options, limits)?;
    Ok(vec![summary, commitments, compared])
}

/// Every strategy for the same day, side by side (the chosen fixed one too).
fn compare(
    inputs: &ExhaustInputs,
    spell_level: SpellLevel,
    chosen: Strategy,
    options: &SpellDiceOptions,
    limits: &Limits,
) -> Result<AnalysisTable, String> {
    let mut strategies = vec![
        Strategy::All,
        Strategy::Minimum,
        Strategy::Optimal,
        Strategy::MostCasts,
    ];
    if let Strategy::Fixed(_) = chosen {
        strategies.push(chosen);
    }
    let mut table = AnalysisTable::new(
        "Every strategy for the same day",
        &[
            "strategy",
            "P(no success before the dice run out)",
            "expected successful casts",
        ],
    );
    for strategy in strategies {
        let day = exhaust(inputs.level, spell_level, strategy, options, limits)
            .map_err(|e| e.to_string())?;
        table.row(vec![
            strategy.name(),
            crate::analysis::probability_cell(&day.exhausted_before_success),
            expectation_cell(&day.expected_successes),
        ]);
    }
    Ok(table)
}

/// The exhaustion analysis (001-M8, M6, A5).
pub const EXHAUST: Analysis = Analysis {
    name: "exhaust",
    spec_items: &["001-M8", "001-M6", "001-A5"],
    summary: "a day of casting one spell level from a full pool: the exact chance of no successful \
              cast before the dice can no longer reach the target, the expected successful casts, \
              the dice committed at each pool size, and every strategy side by side",
    inputs: inputs_schema::<ExhaustInputs>,
    run: exhaustion,
    answer: None,
};

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn run(inputs: Value) -> Result<Vec<AnalysisTable>, String> {
        (EXHAUST.run)(&inputs, &Limits::default())
    }

    /// The exact fraction of a cell, without its decimal reading.
    fn exact(cell: &str) -> &str {
        cell.split(' ').next().unwrap_or_default()
    }

    fn strategy_row<'a>(tables: &'a [AnalysisTable], name: &str) -> &'a [String] {
        tables[2]
            .rows
            .iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("no {name} in {:?}", tables[2]))
    }

    #[test]
    fn the_unlucky_first_level_caster_of_the_2013_edit_and_the_authors_fix() {
        // E001-5, from the errata's own exact computation: commit-all 185/1188, commit-minimum
        // (2 dice) 128/363; under the author's fix 13/194 and 1/16.
        let base = run(json!({ "level": 1 })).expect("runs");
        assert_eq!(exact(&base[0].rows[0][1]), "185/1188");
        assert_eq!(exact(&strategy_row(&base, "all")[1]), "185/1188");
        assert_eq!(exact(&strategy_row(&base, "minimum")[1]), "128/363");
        // E001-5: commit-all is the optimal policy at level 1, target 8.
        assert_eq!(exact(&strategy_row(&base, "optimal")[1]), "185/1188");
        let fix =
            run(json!({ "level": 1, "removal_timing": "success-or-catastrophe" })).expect("runs");
        assert!(
            fix[0].caption.contains("only on a success"),
            "{}",
            fix[0].caption
        );
        assert_eq!(exact(&strategy_row(&fix, "all")[1]), "13/194");
        assert_eq!(exact(&strategy_row(&fix, "minimum")[1]), "1/16");
    }

    #[test]
    fn a_fixed_commitment_of_the_pool_or_the_minimum_is_that_strategy() {
        // Level 1 holds 3 dice and target 8 needs 2: fixed:3 commits 3 then 2, as commit-all does;
        // fixed:2 commits 2 at every size, as commit-minimum does.
        let three = run(json!({ "level": 1, "strategy": "fixed", "fixed_dice": 3 })).expect("runs");
        assert_eq!(exact(&three[0].rows[0][1]), "185/1188");
        assert_eq!(
            strategy_row(&three, "fixed:3")[1..],
            strategy_row(&three, "all")[1..]
        );
        let two = run(json!({ "level": 1, "strategy": "fixed", "fixed_dice": 2 })).expect("runs");
        assert_eq!(exact(&two[0].rows[0][1]), "128/363");
        assert_eq!(two[1].rows[0], ["3", "2"]);
        assert_eq!(two[1].rows[2], ["1", "none: 1 dice cannot reach 8"]);
    }

    #[test]
    fn most_casts_never_expects_fewer_successes_than_another_strategy() {
        // It picks, pool size by pool size, the commitment with the most expected successes, so
        // no fixed rule of commitment can beat it; optimal maximises another quantity.
        for level in 1..=4 {
            let tables = run(json!({ "level": level, "strategy": "most-casts" })).expect("runs");
            let value = |name: &str| -> num_rational::Ratio<num_bigint::BigUint> {
                exact(&strategy_row(&tables, name)[2])
                    .parse()
                    .unwrap_or_else(|e| panic!("{name}: {e}"))
            };
            let best = value("most-casts");
            for other in ["all", "minimum", "optimal"] {
                assert!(best >= value(other), "level {level}: {other}");
            }
            assert_eq!(tables[0].rows[1][1], strategy_row(&tables, "most-casts")[2]);
        }
    }

    #[test]
    fn a_fixed_strategy_needs_its_dice_and_other_strategies_say_they_ignore_them() {
        let missing = run(json!({ "strategy": "fixed" })).expect_err("refused");
        assert!(missing.contains("give fixed_dice"), "{missing}");
        let short = run(json!({ "strategy": "fixed", "fixed_dice": 1 })).expect_err("refused");
        assert!(short.contains("commit at least 2"), "{short}");
        let ignored = run(json!({ "strategy": "all", "fixed_dice": 2 })).expect("runs");
        assert!(
            ignored[0].caption.contains("fixed_dice 2 is not used"),
            "{}",
            ignored[0].caption
        );
        for (inputs, says) in [
            (json!({ "level": 11 }), "outside 1..=10"),
            (json!({ "level": 0 }), "outside 1..=10"),
            (json!({ "spell_level": 10 }), "outside 1..=9"),
            (json!({ "removal_faces": 7 }), "7"),
            (json!({ "strategy": "fixed:2" }), "fixed:2"),
        ] {
            let message = run(inputs.clone()).expect_err("refused");
            assert!(message.contains(says), "{inputs}: {message}");
        }
    }

    #[test]
    fn the_analysis_answers_its_defaults_its_example_and_every_field_has_help() {
        run(json!({})).expect("defaults");
        let schema = (EXHAUST.inputs)();
        run(schema["examples"][0].clone()).expect("the example");
        for (field, property) in schema["properties"].as_object().expect("properties") {
            assert!(property["description"].is_string(), "{field} has no help");
        }
    }
}
