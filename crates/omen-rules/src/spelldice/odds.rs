//! One cast's odds and the extremes among the dice, as analyses (001-M8, M7, A2, errata
//! E001-1..4): P(success), P(catastrophe) and P(empowered) by spell level and dice committed with a
//! flat penalty, and P(snake eyes), P(boxcars), P(either) and P(both) by dice. The numbers are
//! [`super::cast_odds`]' and [`super::extreme_odds`]'; this module reads the inputs and lays them out.

use omen_core::Limits;
use serde::{Deserialize, Serialize};

use super::{SpellLevel, cast_odds, extreme_odds};
use crate::analysis::{Analysis, AnalysisTable, decode_inputs, inputs_schema, probability_cell};

/// The most dice either table counts up to: twice the 12 of 001-M8. Each count walks every sum of
/// its dice, so the work grows quickly with it, and a request must stay quick.
pub const MAX_DICE: usize = 24;

/// The largest flat penalty: 24 dice showing 6 total 144, so at 144 no cast can succeed and a larger
/// one only says the same.
pub const MAX_PENALTY: i64 = 144;

fn twelve() -> usize {
    12
}

/// The inputs of the `odds` analysis.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"spell_level": 2, "max_dice": 6, "penalty": 1}))]
pub struct CastOddsInputs {
    /// One spell level, 1 to 9 (the target is 7 + spell level); left out, every level.
    #[serde(default)]
    #[schemars(range(min = 1, max = 9))]
    pub spell_level: Option<i64>,
    /// Dice committed, from 1 up to this.
    #[serde(default = "twelve")]
    #[schemars(range(min = 1, max = 24))]
    pub max_dice: usize,
    /// Armour and encumbrance penalty subtracted from the total (001-M7).
    #[serde(default)]
    #[schemars(range(min = 0, max = 144))]
    pub penalty: i64,
}

/// The inputs of the `extremes` analysis.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"max_dice": 4}))]
pub struct ExtremesInputs {
    /// Dice counts from 1 up to this.
    #[serde(default = "twelve")]
    #[schemars(range(min = 1, max = 24))]
    pub max_dice: usize,
}

fn dice_within(max_dice: usize) -> Result<usize, String> {
    if (1..=MAX_DICE).contains(&max_dice) {
        Ok(max_dice)
    } else {
        Err(format!(
            "max_dice {max_dice} is outside 1..={MAX_DICE}; give the most dice to count up to"
        ))
    }
}

fn odds(inputs: &serde_json::Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    let inputs: CastOddsInputs = decode_inputs(inputs)?;
    let max_dice = dice_within(inputs.max_dice)?;
    if !(0..=MAX_PENALTY).contains(&inputs.penalty) {
        return Err(format!(
            "penalty {} is outside 0..={MAX_PENALTY}; a penalty subtracts, give it as a size",
            inputs.penalty
        ));
    }
    let levels: Vec<SpellLevel> = match inputs.spell_level {
        Some(level) => vec![SpellLevel::new(level).map_err(|e| e.to_string())?],
        None => SpellLevel::all().collect(),
    };
    let mut tables = Vec::new();
    for level in levels {
        let mut table = AnalysisTable::new(
            format!(
                "Spell level {} (target {}), penalty {}: one cast's odds by dice committed",
                level.value(),
                level.target(),
                inputs.penalty
            ),
            &["dice", "success", "catastrophe", "empowered"],
        );
        for dice in 1..=max_dice {
            let odds = cast_odds(level, dice, inputs.penalty, limits).map_err(|e| e.to_string())?;
            table.row(vec![
                dice.to_string(),
                probability_cell(&odds.success),
                probability_cell(&odds.catastrophe),
                probability_cell(&odds.empowered),
            ]);
        }
        tables.push(table);
    }
    Ok(tables)
}

fn extremes(inputs: &serde_json::Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    let inputs: ExtremesInputs = decode_inputs(inputs)?;
    let max_dice = dice_within(inputs.max_dice)?;
    let mut table = AnalysisTable::new(
        "Snake eyes (two or more 1s, the seed's \"either\" numbers) and boxcars (two or more 6s) \
         among the dice, whatever the result",
        &["dice", "snake eyes", "boxcars", "either", "both"],
    );
    for dice in 1..=max_dice {
        let odds = extreme_odds(dice, limits).map_err(|e| e.to_string())?;
        table.row(vec![
            dice.to_string(),
            probability_cell(&odds.snake_eyes),
            probability_cell(&odds.boxcars),
            probability_cell(&odds.either),
            probability_cell(&odds.both),
        ]);
    }
    Ok(vec![table])
}

/// One cast's odds (001-M8, M7, E001-4).
pub const ODDS: Analysis = Analysis {
    name: "odds",
    spec_items: &["001-M8", "001-M7", "001-M4"],
    summary: "one cast's exact P(success), P(catastrophe) and P(empowered) by spell level and dice \
              committed, with an armour or encumbrance penalty",
    inputs: inputs_schema::<CastOddsInputs>,
    run: odds,
    answer: None,
};

/// The extremes among the dice (001-M8, A2, E001-1..3).
pub const EXTREMES: Analysis = Analysis {
    name: "extremes",
    spec_items: &["001-M8", "001-A2"],
    summary: "snake eyes and boxcars by dice count: P(two or more 1s), which is what the seed's \
              numbers are, P(either extreme), which is what its words say, and P(both)",
    inputs: inputs_schema::<ExtremesInputs>,
    run: extremes,
    answer: None,
};

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn run(analysis: &Analysis, inputs: Value) -> Result<Vec<AnalysisTable>, String> {
        (analysis.run)(&inputs, &Limits::default())
    }

    fn exact(cell: &str) -> &str {
        cell.split(' ').next().unwrap_or_default()
    }

    #[test]
    fn the_real_catastrophe_rate_at_target_8_peaks_at_three_dice() {
        // E001-4, the errata's exact values: a catastrophe needs a failure and two 1s: 2 dice 1/36,
        // 3 dice 13/216 (1-1-6 succeeds), 4 dice 31/1296, 5 dice 7/2592.
        let tables = run(&ODDS, json!({ "spell_level": 1, "max_dice": 5 })).expect("runs");
        assert_eq!(tables.len(), 1);
        let catastrophe: Vec<&str> = tables[0].rows.iter().map(|r| exact(&r[2])).collect();
        assert_eq!(catastrophe, ["0", "1/36", "13/216", "31/1296", "7/2592"]);
        // One die never reaches 8; two succeed on 2d6 ≥ 8, 15 of 36 rolls.
        assert_eq!(exact(&tables[0].rows[0][1]), "0");
        assert_eq!(exact(&tables[0].rows[1][1]), "5/12");
        // Empowered: success with two 6s; with two dice only 6-6, 1/36.
        assert_eq!(exact(&tables[0].rows[1][3]), "1/36");
    }

    #[test]
    fn a_penalty_raises_the_total_needed_and_every_level_has_a_table() {
        // Penalty 1 at target 8 is 2d6 ≥ 9: 10 of 36 rolls.
        let tables = run(
            &ODDS,
            json!({ "spell_level": 1, "max_dice": 2, "penalty": 1 }),
        )
        .expect("runs");
        assert_eq!(exact(&tables[0].rows[1][1]), "5/18");
        let every = run(&ODDS, json!({ "max_dice": 1 })).expect("runs");
        assert_eq!(every.len(), 9);
        assert!(
            every[8].caption.contains("target 16"),
            "{}",
            every[8].caption
        );
        for (inputs, says) in [
            (json!({ "max_dice": 0 }), "outside 1..=24"),
            (json!({ "max_dice": 25 }), "outside 1..=24"),
            (json!({ "penalty": -1 }), "outside 0..=144"),
            (json!({ "spell_level": 10 }), "outside 1..=9"),
        ] {
            let message = run(&ODDS, inputs.clone()).expect_err("refused");
            assert!(message.contains(says), "{inputs}: {message}");
        }
    }

    #[test]
    fn the_seeds_either_numbers_are_two_or_more_ones() {
        // E001-1..3: 1/36, 16/216 and 171/1296 are P(two or more 1s); either extreme is 1/18,
        // 4/27 and 7/27; both at once with 4 dice 6/1296.
        let tables = run(&EXTREMES, json!({ "max_dice": 4 })).expect("runs");
        let column =
            |i: usize| -> Vec<&str> { tables[0].rows.iter().map(|r| exact(&r[i])).collect() };
        assert_eq!(column(1), ["0", "1/36", "2/27", "19/144"]);
        assert_eq!(column(2), column(1));
        assert_eq!(column(3), ["0", "1/18", "4/27", "7/27"]);
        assert_eq!(exact(&tables[0].rows[3][4]), "1/216");
    }

    #[test]
    fn both_analyses_answer_their_defaults_and_examples_with_help_on_every_field() {
        for analysis in [ODDS, EXTREMES] {
            run(&analysis, json!({})).unwrap_or_else(|e| panic!("{}: {e}", analysis.name));
            let schema = (analysis.inputs)();
            run(&analysis, schema["examples"][0].clone())
                .unwrap_or_else(|e| panic!("{}: {e}", analysis.name));
            for (field, property) in schema["properties"].as_object().expect("properties") {
                assert!(property["description"].is_string(), "{field}");
            }
        }
    }
}
