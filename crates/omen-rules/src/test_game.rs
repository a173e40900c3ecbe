//! A game for tests only: a coin that remembers how many heads it has shown. It is compiled for this
//! crate's unit tests and for the crates that enable the `test-game` feature from their
//! dev-dependencies (the command line's tests), never into a build people run. It shows that a game
//! is one module and one line in the registry: its subcommands, its API routes and the page's forms
//! come from the description below with no change anywhere else.

use omen_core::{Die, DieSource, Limits, Probability, Weight};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::analysis::{Analysis, AnalysisTable, Answer, decode_inputs, inputs_schema};
use crate::vocabulary::stateful::{
    ActionError, ActionInfo, Game, Problems, Stateful, probability_json, serve,
};
use crate::{Description, GameMasterOnly, Mechanic, RuleSet};

/// The test game in the registry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Coin;

static DESCRIPTION: Description = Description {
    name: "coin",
    seed_file: "test_coin.txt",
    description: "a coin for tests: flips that count their heads",
    spec_items: &[],
    mechanics: &[Mechanic {
        name: "flip",
        spec_items: &[],
        summary: "a d2: 2 is heads, 1 tails",
    }],
    options: &[],
    tables: &[],
    game_master_only: GameMasterOnly::NOTHING,
};

impl RuleSet for Coin {
    fn describe(&self) -> &'static Description {
        &DESCRIPTION
    }

    fn analyses(&self) -> &'static [Analysis] {
        &[STREAK]
    }

    fn game(&self) -> Option<&'static dyn Game> {
        Some(serve::<CoinGame>())
    }
}

/// The coin's character: its heads so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct CoinGame;

/// What a coin starts from.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = json!({ "heads": 0 }))]
pub struct CoinSheet {
    /// Heads already shown.
    #[serde(default)]
    pub heads: u32,
}

/// What a coin remembers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoinState {
    /// Heads shown so far.
    pub heads: u32,
}

/// What a coin does.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
#[schemars(example = json!({ "action": "flip" }), example = json!({ "action": "flip", "call": "heads" }))]
pub enum CoinAction {
    /// Flips the coin: a d2, 2 is heads.
    Flip {
        /// The side called before the flip, if any: the result says whether the call was right.
        #[serde(default)]
        call: Option<Side>,
    },
}

/// A side of the coin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// A 2 on the d2.
    Heads,
    /// A 1 on the d2.
    Tails,
}

const ACTIONS: &[ActionInfo] = &[ActionInfo {
    name: "flip",
    spec_items: &[],
    summary: "flips the coin: a d2, 2 is heads",
    rolls: true,
}];

impl Stateful for CoinGame {
    const NAME: &'static str = "coin";
    const VERSION: u32 = 1;
    type Sheet = CoinSheet;
    type State = CoinState;
    type Action = CoinAction;

    fn actions() -> &'static [ActionInfo] {
        ACTIONS
    }

    fn create(sheet: CoinSheet) -> Result<CoinState, Problems> {
        Ok(CoinState { heads: sheet.heads })
    }

    fn validate(_state: &CoinState) -> Problems {
        Problems::new()
    }

    fn apply(
        state: &CoinState,
        action: &CoinAction,
        source: &mut dyn DieSource,
        _limits: &Limits,
    ) -> Result<(Value, CoinState, String), ActionError> {
        let CoinAction::Flip { call } = action;
        let face = source.roll(&Die::Standard(2))?;
        let side = if face == 2 { Side::Heads } else { Side::Tails };
        let heads = state.heads + u32::from(side == Side::Heads);
        let result = json!({ "die": face, "side": side, "called_right": call.map(|c| c == side) });
        let summary = format!("d2 = {face}: {side:?}, {heads} heads so far").to_lowercase();
        Ok((result, CoinState { heads }, summary))
    }

    fn odds(
        _state: &CoinState,
        _action: &CoinAction,
        _limits: &Limits,
    ) -> Result<Value, ActionError> {
        let half = Probability::new(Weight::from(1u32), Weight::from(2u32));
        Ok(json!({ "heads": probability_json(&half), "tails": probability_json(&half) }))
    }
}

/// The inputs of the `streak` analysis.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = json!({ "flips": 3 }))]
pub struct StreakInputs {
    /// Flips in a row, 1..20.
    #[schemars(range(min = 1, max = 20))]
    pub flips: u32,
}

fn streak(inputs: &Value, _limits: &Limits) -> Result<Answer, String> {
    let StreakInputs { flips } = decode_inputs(inputs)?;
    if !(1..=20).contains(&flips) {
        return Err(format!("flips must be 1..20, not {flips}"));
    }
    let mut table = AnalysisTable::new("Heads every time", &["flips", "probability"]);
    let p = Probability::new(Weight::from(1u32), Weight::from(1u64 << flips));
    table.row(vec![
        flips.to_string(),
        crate::analysis::probability_cell(&p),
    ]);
    Ok(Answer::tables(vec![table]))
}

fn streak_tables(inputs: &Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    streak(inputs, limits).map(|a| a.tables)
}

const STREAK: Analysis = Analysis {
    name: "streak",
    spec_items: &[],
    summary: "the chance of heads on every one of a number of flips",
    inputs: inputs_schema::<StreakInputs>,
    run: streak_tables,
    answer: None,
};

#[cfg(test)]
mod tests {
    use omen_core::ScriptedDice;

    use super::*;

    #[test]
    fn the_test_game_is_registered_and_flips_from_the_dice_given() {
        assert!(crate::find("coin").is_some());
        let coin = crate::game("coin").expect("keeps state");
        let state = coin.new_character(&json!({})).expect("an empty sheet");
        let limits = Limits::default();
        let flip = json!({ "action": "flip", "call": "tails" });
        // A 2 is heads: the call of tails was wrong, and the coin has one head.
        let applied = coin
            .apply(&state, &flip, &mut ScriptedDice::new(vec![2]), &limits)
            .expect("flips");
        assert_eq!(applied.result["called_right"], false);
        assert_eq!(applied.state, json!({ "heads": 1 }));
        let odds = coin.odds(&state, &flip, &limits).expect("odds");
        assert_eq!(odds["heads"]["fraction"], "1/2");
    }
}
