//! The flags several commands declare alike: where a script comes from (`EXPR` or `--file`), its
//! parameters and dialect, the limits it runs under, the text-or-JSON format of a one-result
//! command, and who sees what (`--view`, `--visibility`). They sit below every command's module, so
//! each command imports them and none imports another command for them.

use std::path::PathBuf;

use clap::{Args, ValueEnum, value_parser};
use omen_core::{Ceilings, Limits};
use omen_lang::Value;
use omen_rules::View;

/// Where the expression or script comes from: the EXPR argument or `--file`, exactly one of them.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct InputArgs {
    /// The dice expression or script, e.g. "4d6kh3 + 2" or "param n = 3; (n)d6kh1".
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expression: Option<String>,
    /// Read the script from FILE (UTF-8) instead of EXPR; `-` reads standard input.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ScriptArgs {
    /// Set a script parameter (`param name = default;`): an integer, true/false, or a label.
    /// Repeat for more.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, Value)>,
    #[command(flatten)]
    pub dialect: DialectArg,
}

impl ScriptArgs {
    /// The dialect named by `--dialect` (clap has checked the name).
    pub fn dialect(&self) -> &'static omen_lang::syntax::Dialect {
        self.dialect.dialect()
    }
}

/// `--dialect`, declared once for every command that reads an expression.
#[derive(Clone, Debug, Args)]
pub struct DialectArg {
    /// The notation the expression is written in: Omen's own, or another roller's with that roller's
    /// meanings (see docs/dialects.md). The reading line shows how it was read. [default: the
    /// campaign's dialect when rolling in one (`omen campaign set NAME --dialect D`), else omen]
    #[arg(
        long = "dialect",
        value_name = "NAME",
        env = "OMEN_DIALECT",
        value_parser = clap::builder::PossibleValuesParser::new(
            omen_lang::syntax::dialect::Dialect::names().chain([crate::anydice_prob::ANYDICE])
        )
    )]
    pub name: Option<String>,
}

impl DialectArg {
    /// Omen's own notation, for inputs that name none (saved rolls are stored in it).
    pub fn omen() -> Self {
        DialectArg {
            name: Some("omen".to_string()),
        }
    }

    /// The dialect named (clap has checked the name), Omen's when none is.
    pub fn dialect(&self) -> &'static omen_lang::syntax::Dialect {
        self.given().unwrap_or_default()
    }

    /// The dialect named by `--dialect` or `OMEN_DIALECT`, if one is.
    pub fn given(&self) -> Option<&'static omen_lang::syntax::Dialect> {
        self.name
            .as_deref()
            .and_then(omen_lang::syntax::Dialect::named)
    }
}

/// `name=value`, the value read the way the language reads parameter values.
pub(crate) fn parse_param(text: &str) -> Result<(String, Value), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, got `{text}`"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("expected a name before `=` in `{text}`"));
    }
    let value = omen_lang::parse_param_value(value);
    if let Value::Text(text) = &value
        && looks_like_an_integer(text)
    {
        // A number past 64 bits would otherwise become a label and pass unnoticed.
        return Err(format!(
            "`{text}` does not fit in a 64-bit integer (from {} to {})",
            i64::MIN,
            i64::MAX
        ));
    }
    Ok((name.to_string(), value))
}

/// An optional sign and ASCII digits: what a player means as a number.
fn looks_like_an_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The output of a command that prints one result: text to read, or JSON for programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RollFormat {
    /// Text to read.
    Text,
    /// One JSON object on one line, exact fractions as strings.
    Json,
}

/// The limits every request runs under; defaults come from `omen_core::Limits::default()`, ceilings
/// from `omen_core::Ceilings` (a value past its ceiling is a usage error, exit 2).
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = "Limits")]
pub struct LimitArgs {
    /// Extra dice one die may add by exploding (at most 1,000).
    #[arg(long, value_name = "N", default_value_t = Limits::default().explode_depth,
          value_parser = value_parser!(u64).range(0..=Ceilings::EXPLODE_DEPTH))]
    pub explode_depth: u64,
    /// Dice in one pool (at most 1,000,000).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_dice,
          value_parser = value_parser!(u64).range(0..=Ceilings::MAX_DICE))]
    pub max_dice: u64,
    /// Sides of one die, and faces of a custom die (at most 10,000,000).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_sides,
          value_parser = value_parser!(u64).range(1..=Ceilings::MAX_SIDES))]
    pub max_sides: u64,
    /// Distinct outcomes of any one distribution (at most 10,000,000).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_outcomes,
          value_parser = value_parser!(u64).range(1..=Ceilings::MAX_OUTCOMES))]
    pub max_outcomes: u64,
    /// States a dynamic program may hold at once (at most 200,000,000).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_states,
          value_parser = value_parser!(u64).range(1..=Ceilings::MAX_STATES))]
    pub max_states: u64,
    /// States of one process (`after`, `absorb`, `stationary`); solved exactly, in time cubic in this
    /// (at most 5,000).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_chain_states,
          value_parser = value_parser!(u64).range(1..=Ceilings::MAX_CHAIN_STATES))]
    pub max_chain_states: u64,
    /// Steps one rolled process may take: `after`'s count, or the steps before `absorb` settles
    /// (at most 10,000,000).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_process_steps,
          value_parser = value_parser!(u64).range(0..=Ceilings::MAX_PROCESS_STEPS))]
    pub max_process_steps: u64,
    /// Nested calls of user functions (recursion depth; at most 10,000).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_call_depth,
          value_parser = value_parser!(u64).range(0..=Ceilings::MAX_CALL_DEPTH))]
    pub max_call_depth: u64,
    /// Work of one computation, in 64-bit multiply-adds (multiplying two big weights costs the
    /// product of their lengths in 64-bit limbs; a rolled step or die costs a fixed amount). The
    /// default is about two seconds (at most 1,000,000,000,000).
    #[arg(long, value_name = "N", default_value_t = Limits::default().work_budget,
          value_parser = value_parser!(u64).range(0..=Ceilings::WORK_BUDGET))]
    pub work_budget: u64,
    /// Bytes of output (a distribution's table or JSON, a roll's transcript); a larger result is
    /// refused before it is written (at most 1 GiB).
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_output,
          value_parser = value_parser!(u64).range(0..=Ceilings::MAX_OUTPUT))]
    pub max_output: u64,
}

impl LimitArgs {
    pub fn to_limits(&self) -> Limits {
        Limits {
            explode_depth: self.explode_depth,
            max_dice: self.max_dice,
            max_sides: self.max_sides,
            max_outcomes: self.max_outcomes,
            max_states: self.max_states,
            max_chain_states: self.max_chain_states,
            max_process_steps: self.max_process_steps,
            max_call_depth: self.max_call_depth,
            work_budget: self.work_budget,
            max_output: self.max_output,
            ..Limits::default()
        }
    }
}

/// Who may see a logged roll, as `--visibility` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum VisibilityArg {
    /// Everyone.
    Public,
    /// The roller and the game master.
    Private,
    /// The game master only; the roller sees that a roll happened.
    Blind,
    /// The roller only.
    #[value(name = "self")]
    SelfOnly,
}

impl VisibilityArg {
    /// How the command line logs a roll: made by the game master at the database, with the
    /// visibility asked for (nothing recorded for a plain public roll, as before).
    pub fn options(visibility: Option<VisibilityArg>) -> omen_store::EntryOptions {
        match visibility {
            None => omen_store::EntryOptions::default(),
            Some(visibility) => omen_store::EntryOptions::new(
                match visibility {
                    VisibilityArg::Public => omen_store::Visibility::Public,
                    VisibilityArg::Private => omen_store::Visibility::Private,
                    VisibilityArg::Blind => omen_store::Visibility::Blind,
                    VisibilityArg::SelfOnly => omen_store::Visibility::SelfOnly,
                },
                Some(omen_store::Actor::GameMaster),
            ),
        }
    }
}

/// Who reads an answer, as `--view` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ViewArg {
    /// The game master: everything.
    Gm,
    /// A player: without the fields the rule set declares game-master-only.
    Player,
}

impl ViewArg {
    pub fn view(self) -> View {
        match self {
            ViewArg::Gm => View::GameMaster,
            ViewArg::Player => View::Player,
        }
    }
}

/// The names of the registered rule sets as help text reads them ("a, b or c"), from omen-rules'
/// registry, so a flag's help never lists the games by hand and a new game appears in it unasked.
pub fn rule_set_names(stateful_only: bool) -> String {
    let names: Vec<&str> = if stateful_only {
        omen_rules::games().iter().map(|game| game.name()).collect()
    } else {
        omen_rules::registry()
            .iter()
            .map(|rules| rules.name())
            .collect()
    };
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_split_at_the_first_equals_sign() {
        assert_eq!(parse_param("dv=8"), Ok(("dv".to_string(), Value::Int(8))));
        assert_eq!(
            parse_param("mood=a=b"),
            Ok(("mood".to_string(), Value::text("a=b")))
        );
        assert!(parse_param("8").is_err());
        assert!(parse_param("=8").is_err());
    }
}
