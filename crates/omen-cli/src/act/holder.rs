//! Whose character an action is for, where its dice come from, and what the reader may see of the
//! answer: the flags every game action takes, whatever its game.

use std::path::PathBuf;

use clap::Args;
use omen_core::{ChaChaDice, DieSource, ScriptedDice};
use omen_rules::{GameMasterOnly, Part, View};
use serde_json::Value;

use super::odds_text::odds_text;
use crate::shared_args::{RollFormat, ViewArg, VisibilityArg};

/// Whose state an action reads and writes, where its dice come from, and how to print.
#[derive(Clone, Debug, Args)]
pub struct Holder {
    /// The character in the campaign database whose state the action reads and updates.
    #[arg(long = "char", value_name = "NAME", conflicts_with_all = ["state", "sheet"])]
    pub character: Option<String>,
    /// The campaign of --char (may be left out when the database holds one campaign).
    #[arg(long, value_name = "NAME", requires = "character")]
    pub campaign: Option<String>,
    /// The campaign database: a SQLite file (a path or sqlite://PATH) or a PostgreSQL database
    /// (postgres://USER@HOST/DB) [default: $OMEN_DB, else omen.db in the platform data directory].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// A JSON state file instead of a database: created from --sheet if missing, updated in place.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// The sheet of a new character: JSON text, or @FILE.
    #[arg(long, value_name = "JSON")]
    pub sheet: Option<String>,
    /// Print the exact odds of the action from the character's current state; roll nothing.
    #[arg(long, conflicts_with_all = ["seed", "dice"])]
    pub odds: bool,
    /// A rule option for this action, NAME=VALUE (repeat for each); `omen rules` lists each game's
    /// options, their choices and the actions they apply to.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// Who reads the answer: gm sees everything; player does not see what the rule set keeps for the
    /// game master (luck's hidden modifiers), in text, JSON and the summary alike.
    #[arg(long, value_enum, ignore_case = true, default_value_t = ViewArg::Gm)]
    pub view: ViewArg,
    /// Who may see the logged action (with --char): public, private (the character's player and the
    /// game master), blind (the game master only) or self (the player only); see `omen log reveal`.
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        value_name = "WHO",
        requires = "character"
    )]
    pub visibility: Option<VisibilityArg>,
    #[command(flatten)]
    pub source: RollSource,
}

/// What `view` may see of an answer of `game`: the rule set's one declaration applied.
pub struct Seen {
    hidden: &'static GameMasterOnly,
    view: View,
}

impl Seen {
    pub fn of(game: &str, view: ViewArg) -> Seen {
        Seen {
            hidden: omen_rules::find(game).map_or(&const { GameMasterOnly::NOTHING }, |rules| {
                rules.game_master_only()
            }),
            view: view.view(),
        }
    }

    pub fn show(&self, part: Part, value: &Value) -> Value {
        self.hidden.show(self.view, part, value)
    }

    pub fn summary(&self, action: &Value, result: &Value, summary: &str) -> String {
        self.hidden
            .summary(self.view, action_name(action), result, summary)
    }

    /// Odds as text, or a note that nothing of them is for this view.
    pub fn odds_text(&self, odds: &Value) -> String {
        let shown = self.show(Part::Odds, odds);
        if shown.as_object().is_some_and(serde_json::Map::is_empty) {
            " hidden from this view (they depend on what the game master keeps)\n".to_string()
        } else {
            odds_text(&shown)
        }
    }
}

/// Where the dice come from, and how to print.
#[derive(Clone, Debug, Args)]
pub struct RollSource {
    /// Seed for the roller (ChaCha20); without it one is picked and shown.
    #[arg(long, value_name = "N", conflicts_with = "dice")]
    pub seed: Option<u64>,
    /// Use these dice values, in order, instead of random ones, e.g. --dice 2,5,1.
    #[arg(
        long,
        value_name = "VALUES",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub dice: Option<Vec<i64>>,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = RollFormat::Text)]
    pub format: RollFormat,
}

impl RollSource {
    /// The dice source that `--dice` or `--seed` ask for (a fresh seed when neither is given), and the
    /// seed when one was used.
    pub fn dice_source(&self) -> (Box<dyn DieSource>, Option<u64>) {
        match (&self.dice, self.seed) {
            (Some(values), _) => (Box::new(ScriptedDice::new(values.clone())), None),
            (None, seed) => {
                let seed = seed.unwrap_or_else(crate::seed::fresh_seed);
                (Box::new(ChaChaDice::from_seed(seed)), Some(seed))
            }
        }
    }
}

pub fn action_name(action: &Value) -> &str {
    action.get("action").and_then(Value::as_str).unwrap_or("?")
}
