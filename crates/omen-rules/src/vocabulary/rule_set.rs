//! What every rule set says about itself, as data: the [`RuleSet`] trait and its [`Description`], the
//! game master's view ([`GameMasterOnly`]), mechanics, named options and reference tables. Shared
//! vocabulary: this module names no game (the registry in the crate root does).

use serde::Serialize;

use super::analysis;
use super::stateful::Game;

/// One seed game's rules, described as data for listings (`omen rules`) and implemented by its module.
///
/// The descriptions are `'static` data so a listing needs no computation; the module's own types and
/// functions do the work.
pub trait RuleSet: Sync {
    /// Everything the rule set says about itself, as constant data.
    fn describe(&self) -> &'static Description;

    /// The short lower-case name used to pick the rule set, e.g. `ritual`.
    fn name(&self) -> &'static str {
        self.describe().name
    }

    /// The seed document's file name, e.g. `000_a60612f38c616a78.txt`.
    fn seed_file(&self) -> &'static str {
        self.describe().seed_file
    }

    /// One line saying what the game's dice do.
    fn description(&self) -> &'static str {
        self.describe().description
    }

    /// The spec items implemented, as in `seed-spec.md` (e.g. `000-M1`), in spec order.
    fn spec_items(&self) -> &'static [&'static str] {
        self.describe().spec_items
    }

    /// The mechanics, each with the spec items it covers.
    fn mechanics(&self) -> &'static [Mechanic] {
        self.describe().mechanics
    }

    /// The named options: every rule whose seed text allows another plausible reading.
    fn options(&self) -> &'static [RuleOption] {
        self.describe().options
    }

    /// What only the game master may see of a character and its actions (002-M4).
    fn game_master_only(&self) -> &'static GameMasterOnly {
        &self.describe().game_master_only
    }

    /// Reference tables the module can print, such as a seed's appendix.
    fn tables(&self) -> &'static [ReferenceTable] {
        self.describe().tables
    }

    /// Analyses computed from a few inputs (a calculator for any modifier, a table for any DV), for
    /// the faces that serve them without knowing the game. None unless the module offers some.
    fn analyses(&self) -> &'static [analysis::Analysis] {
        &[]
    }

    /// The game's characters that keep state from roll to roll, served as JSON: `None` for a rule
    /// set whose rolls remember nothing.
    fn game(&self) -> Option<&'static dyn Game> {
        None
    }

    /// The seed's tag in the spec (`000`): the file name up to the first underscore.
    fn tag(&self) -> &'static str {
        let file = self.seed_file();
        file.split('_').next().unwrap_or(file)
    }
}

/// What a rule set says about itself: one constant per module, so a listing needs no computation and
/// every module describes itself the same way.
#[derive(Debug)]
pub struct Description {
    pub name: &'static str,
    pub seed_file: &'static str,
    pub description: &'static str,
    pub spec_items: &'static [&'static str],
    pub mechanics: &'static [Mechanic],
    pub options: &'static [RuleOption],
    pub tables: &'static [ReferenceTable],
    /// What only the game master may see: one declaration for every face (CLI, server, page).
    pub game_master_only: GameMasterOnly,
}

/// Who is looking at an answer: the game master sees everything, a player only what the rule set does
/// not declare game-master-only ([`GameMasterOnly`]).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum View {
    #[default]
    GameMaster,
    Player,
}

/// The fields of a rule set's actions, sheet, state, action results and odds that only the game master may
/// see (002-M4: a character's Luck modifiers are hidden from the player), declared once per rule set
/// as data. Each entry is a path of object keys separated by `/`; a path through an array applies to
/// every element. Every face applies the declaration the same way, through [`GameMasterOnly::show`]
/// and [`GameMasterOnly::summary`], so no face decides on its own what a player sees.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct GameMasterOnly {
    /// Fields of an action as given (a modifier the game master sets).
    pub action: &'static [&'static str],
    pub sheet: &'static [&'static str],
    pub state: &'static [&'static str],
    pub result: &'static [&'static str],
    pub odds: &'static [&'static str],
    /// The one-line summary a player sees of an action, from the action's name and its result as the
    /// player sees it; `None` when the full summary shows nothing game-master-only.
    #[serde(skip)]
    pub player_summary: fn(action: &str, shown: &serde_json::Value) -> Option<String>,
}

/// Which part of an answer a value is, for [`GameMasterOnly::show`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Action,
    Sheet,
    State,
    Result,
    Odds,
}

fn no_player_summary(_action: &str, _shown: &serde_json::Value) -> Option<String> {
    None
}

impl GameMasterOnly {
    /// A rule set that hides nothing.
    pub const NOTHING: GameMasterOnly = GameMasterOnly {
        action: &[],
        sheet: &[],
        state: &[],
        result: &[],
        odds: &[],
        player_summary: no_player_summary,
    };

    /// The paths hidden from a player in `part`.
    pub fn paths(&self, part: Part) -> &'static [&'static str] {
        match part {
            Part::Action => self.action,
            Part::Sheet => self.sheet,
            Part::State => self.state,
            Part::Result => self.result,
            Part::Odds => self.odds,
        }
    }

    /// `value` (a sheet, a state, a result or odds) as `view` may see it: whole for the game master,
    /// without the declared paths for a player.
    pub fn show(&self, view: View, part: Part, value: &serde_json::Value) -> serde_json::Value {
        let mut shown = value.clone();
        if view == View::Player {
            for path in self.paths(part) {
                let keys: Vec<&str> = path.split('/').collect();
                remove_path(&mut shown, &keys);
            }
        }
        shown
    }

    /// The summary of `action` as `view` may see it.
    pub fn summary(
        &self,
        view: View,
        action: &str,
        result: &serde_json::Value,
        summary: &str,
    ) -> String {
        match view {
            View::GameMaster => summary.to_string(),
            View::Player => {
                let shown = self.show(view, Part::Result, result);
                (self.player_summary)(action, &shown).unwrap_or_else(|| summary.to_string())
            }
        }
    }

    /// Whether anything at all is hidden from a player.
    pub fn hides_anything(&self) -> bool {
        [
            Part::Action,
            Part::Sheet,
            Part::State,
            Part::Result,
            Part::Odds,
        ]
        .iter()
        .any(|&part| !self.paths(part).is_empty())
    }
}

fn remove_path(value: &mut serde_json::Value, keys: &[&str]) {
    match value {
        serde_json::Value::Array(items) => {
            for item in items {
                remove_path(item, keys);
            }
        }
        serde_json::Value::Object(map) => match keys {
            [] => {}
            [last] => {
                map.remove(*last);
            }
            [first, rest @ ..] => {
                if let Some(inner) = map.get_mut(*first) {
                    remove_path(inner, rest);
                }
            }
        },
        _ => {}
    }
}

/// One mechanic of a rule set, for listings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mechanic {
    /// A short name, e.g. `lore check`.
    pub name: &'static str,
    /// The spec items it implements.
    pub spec_items: &'static [&'static str],
    /// One line: inputs, dice and result.
    pub summary: &'static str,
}

/// A named option: one reading of an unclear rule, chosen by the spec's resolution unless changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RuleOption {
    /// The option's name, e.g. `familiarity-bonuses`.
    pub name: &'static str,
    /// The spec item (an ambiguity, `A`) whose resolution it configures.
    pub spec_item: &'static str,
    /// What the choices decide.
    pub summary: &'static str,
    /// The possible values, the default among them.
    pub choices: &'static [&'static str],
    /// The spec's resolution.
    pub default: &'static str,
    /// The actions (`omen act` and the game's subcommands) and analyses that take it, by name.
    pub actions: &'static [&'static str],
}

impl RuleOption {
    /// The field of an action's JSON that carries the option: its name in snake case.
    pub fn field(&self) -> String {
        self.name.replace('-', "_")
    }

    /// The JSON value of one of the choices: a number for a numeric choice, else the name.
    ///
    /// # Errors
    /// [`OptionError::Choice`] for a value that is not one of the choices.
    pub fn value(&self, choice: &str) -> Result<serde_json::Value, OptionError> {
        if !self.choices.contains(&choice) {
            return Err(OptionError::Choice {
                option: self.name,
                value: choice.to_string(),
                choices: self.choices.join(", "),
            });
        }
        Ok(choice
            .parse::<i64>()
            .map_or_else(|_| serde_json::Value::from(choice), serde_json::Value::from))
    }
}

/// Why a `NAME=VALUE` option was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionError {
    #[error("option `{0}` is not NAME=VALUE; write e.g. --option intractability-floor=no-floor")]
    Malformed(String),
    #[error("{rules} has no option `{name}`; its options are: {known}")]
    Unknown {
        rules: &'static str,
        name: String,
        known: String,
    },
    #[error("option `{option}` does not apply to `{action}`; it applies to: {applies}")]
    NotHere {
        option: &'static str,
        action: String,
        applies: String,
    },
    #[error("option `{option}` cannot be `{value}`; choose one of: {choices}")]
    Choice {
        option: &'static str,
        value: String,
        choices: String,
    },
    #[error("option `{0}` is given twice; give it once")]
    Repeated(&'static str),
}

/// The options `NAME=VALUE` given for `action` of `rules`, each checked against the rule set's list:
/// the action's JSON fields and their values (see [`RuleOption::field`] and [`RuleOption::value`]).
///
/// # Errors
/// The first option that is malformed, unknown, not for `action`, repeated or has a value outside
/// its choices.
pub fn option_fields(
    rules: &dyn RuleSet,
    action: &str,
    given: &[String],
) -> Result<serde_json::Map<String, serde_json::Value>, OptionError> {
    let mut fields = serde_json::Map::new();
    for text in given {
        let (name, value) = text
            .split_once('=')
            .ok_or_else(|| OptionError::Malformed(text.clone()))?;
        let option = rules
            .options()
            .iter()
            .find(|o| o.name == name.trim())
            .ok_or_else(|| OptionError::Unknown {
                rules: rules.name(),
                name: name.to_string(),
                known: rules
                    .options()
                    .iter()
                    .map(|o| o.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        if !option.actions.contains(&action) {
            return Err(OptionError::NotHere {
                option: option.name,
                action: action.to_string(),
                applies: option.actions.join(", "),
            });
        }
        let value = option.value(value.trim())?;
        if fields.insert(option.field(), value).is_some() {
            return Err(OptionError::Repeated(option.name));
        }
    }
    Ok(fields)
}

/// Sets the options `NAME=VALUE` on an action's JSON (an object with an `"action"` field), each
/// checked against the rule set's list as [`option_fields`] does.
///
/// # Errors
/// As [`option_fields`].
pub fn set_options(
    rules: &dyn RuleSet,
    action: &mut serde_json::Value,
    given: &[String],
) -> Result<(), OptionError> {
    let name = action
        .get("action")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
        .to_string();
    let fields = option_fields(rules, &name, given)?;
    if let Some(object) = action.as_object_mut() {
        object.extend(fields);
    }
    Ok(())
}

/// A table a rule set can print exactly as its seed prints it.
#[derive(Clone, Copy, Debug)]
pub struct ReferenceTable {
    /// The table's name, e.g. `lore`.
    pub name: &'static str,
    /// The spec items whose reference output it is.
    pub spec_items: &'static [&'static str],
    /// What the table shows.
    pub summary: &'static str,
    /// Renders the table, newline-terminated lines.
    pub render: fn() -> String,
}
