//! Plain expression rolls: rolled through the dice language with every die recorded, so the log can
//! replay them.

use std::collections::BTreeMap;

use omen_core::Limits;
use omen_lang::{Diagnostic, Options, Roll, compile, sample};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dice::{Dice, Recording, RolledDie};
use crate::error::StoreError;

/// A roll of an expression or script as it goes into the log: what was rolled, with which parameter
/// values, and every die.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RollRecord {
    /// The expression or script, in the omen dice language.
    pub expression: String,
    /// Values for the script's `param` declarations (numbers, true/false, labels, arrays as tuples).
    #[serde(default)]
    pub params: BTreeMap<String, Value>,
    /// The saved roll this came from, if any.
    #[serde(default)]
    pub saved_roll: Option<String>,
    /// The explosion depth limit the roll used: it decides when an exploding die stops.
    pub explode_depth: u64,
    pub seed: Option<u64>,
    pub dice: Vec<RolledDie>,
    /// The result, as the language's value serialises (a number, true/false, a label, an array).
    pub result: Value,
}

/// A fresh roll of an expression: the record to log, the roll with every node for showing it, and the
/// language's warnings.
#[derive(Clone, Debug, Serialize)]
pub struct ExpressionRoll {
    pub record: RollRecord,
    pub roll: Roll,
    pub warnings: Vec<Diagnostic>,
    /// Given dice values the roll did not use (a warning for the user, not an error).
    pub unused_dice: Vec<i64>,
}

/// A JSON parameter value as a value of the dice language.
///
/// # Errors
/// [`StoreError::Invalid`] for `null`, a fraction or an object.
pub fn param_value(name: &str, value: &Value) -> Result<omen_lang::Value, StoreError> {
    match value {
        Value::Bool(b) => Ok(omen_lang::Value::Bool(*b)),
        // `4.0` is the whole number 4 to JSON (and to JSON Schema's `integer`), whatever a
        // client's serializer wrote.
        Value::Number(n) => n
            .as_i64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && (i64::MIN as f64..i64::MAX as f64).contains(f))
                    .map(|f| f as i64)
            })
            .map(omen_lang::Value::Int)
            .ok_or_else(|| {
                StoreError::Invalid(format!(
                    "parameter `{name}` is {n}; the dice language counts in whole numbers"
                ))
            }),
        Value::String(s) => Ok(omen_lang::Value::text(s)),
        Value::Array(items) => Ok(omen_lang::Value::Tuple(
            items
                .iter()
                .map(|item| param_value(name, item))
                .collect::<Result<Vec<_>, _>>()?
                .into(),
        )),
        Value::Null | Value::Object(_) => Err(StoreError::Invalid(format!(
            "parameter `{name}` is {value}; give a number, true/false, a label or a list"
        ))),
    }
}

fn options(params: &BTreeMap<String, Value>, limits: &Limits) -> Result<Options, StoreError> {
    Ok(Options {
        limits: limits.clone(),
        params: params
            .iter()
            .map(|(name, value)| Ok((name.clone(), param_value(name, value)?)))
            .collect::<Result<_, StoreError>>()?,
        ..Options::default()
    })
}

/// Compiles `expression` with `params`: the warnings, or every error.
///
/// # Errors
/// [`StoreError::Language`] with every diagnostic; [`StoreError::Invalid`] for a parameter value the
/// language has no kind for.
pub fn check_expression(
    expression: &str,
    params: &BTreeMap<String, Value>,
    limits: &Limits,
) -> Result<Vec<Diagnostic>, StoreError> {
    let options = options(params, limits)?;
    compile(expression, &options)
        .map(|checked| checked.warnings)
        .map_err(StoreError::Language)
}

/// `expression` as written in `dialect`, in Omen's notation (its reading, which parses back to the
/// same program), with the warnings of reading it. Logs and saved rolls hold Omen's notation, so that
/// they replay the same whatever dialect they were typed in.
///
/// # Errors
/// [`StoreError::Language`] with every diagnostic, spanned in `expression`.
pub fn in_omen_notation(
    expression: &str,
    dialect: &'static omen_lang::syntax::Dialect,
    params: &BTreeMap<String, Value>,
    limits: &Limits,
) -> Result<(String, Vec<Diagnostic>), StoreError> {
    let options = Options {
        dialect,
        ..options(params, limits)?
    };
    let checked = compile(expression, &options).map_err(StoreError::Language)?;
    Ok((checked.reading, checked.warnings))
}

fn run(
    expression: &str,
    params: &BTreeMap<String, Value>,
    limits: &Limits,
    source: &mut Recording,
) -> Result<(Roll, Vec<Diagnostic>), StoreError> {
    let options = options(params, limits)?;
    let checked = compile(expression, &options).map_err(StoreError::Language)?;
    let roll = sample(&checked.program, &options.limits, source)
        .map_err(|error| StoreError::Language(vec![error]))?;
    Ok((roll, checked.warnings))
}

/// Rolls `expression` once with `dice`, recording every die: the record [`crate::Store::log_roll`]
/// takes.
///
/// # Errors
/// [`StoreError::Language`] when it does not compile or cannot be rolled (given dice running out
/// included).
pub fn roll_expression(
    expression: &str,
    params: &BTreeMap<String, Value>,
    dice: &Dice,
    limits: &Limits,
) -> Result<ExpressionRoll, StoreError> {
    roll_drawing(expression, params, dice, limits).0
}

/// [`roll_expression`], and every die it drew, whether it succeeded or not: a campaign logs a roll
/// refused after it drew dice, so that the refusal previews nothing.
pub(crate) fn roll_drawing(
    expression: &str,
    params: &BTreeMap<String, Value>,
    dice: &Dice,
    limits: &Limits,
) -> (Result<ExpressionRoll, StoreError>, Vec<RolledDie>) {
    let mut source = Recording::new(dice);
    let rolled = record(expression, params, dice, limits, &mut source);
    let drawn = source.rolled();
    (rolled, drawn)
}

fn record(
    expression: &str,
    params: &BTreeMap<String, Value>,
    dice: &Dice,
    limits: &Limits,
    source: &mut Recording,
) -> Result<ExpressionRoll, StoreError> {
    let (roll, warnings) = run(expression, params, limits, source)?;
    let record = RollRecord {
        expression: expression.to_string(),
        params: params.clone(),
        saved_roll: None,
        explode_depth: limits.explode_depth,
        seed: dice.seed(),
        dice: source.rolled(),
        result: serde_json::to_value(&roll.result)?,
    };
    Ok(ExpressionRoll {
        record,
        unused_dice: source.unused().to_vec(),
        roll,
        warnings,
    })
}

/// Rolls a record again from its recorded dice (and, when seeded, from its seed) and says what does
/// not match, if anything. `limits` bound the work; the recorded explosion depth replaces theirs, and
/// the dice and sides limits stretch to what the record holds, since its dice are already rolled.
pub(crate) fn recheck(record: &RollRecord, limits: &Limits) -> Result<(), String> {
    let widest = record.dice.iter().map(|d| d.sides).max().unwrap_or(0);
    let limits = Limits {
        explode_depth: record.explode_depth,
        max_explode_depth: limits.max_explode_depth.max(record.explode_depth),
        max_dice: limits.max_dice.max(record.dice.len() as u64),
        max_sides: limits.max_sides.max(widest),
        ..limits.clone()
    };
    let mut replay = Recording::replay(&record.dice);
    let (roll, _) = run(&record.expression, &record.params, &limits, &mut replay)
        .map_err(|error| format!("rolling it again from its dice fails: {error}"))?;
    if replay.rolled() != record.dice || !replay.unused().is_empty() {
        return Err(
            "its dice do not fit its expression: rolling it again uses other dice".to_string(),
        );
    }
    let result = serde_json::to_value(&roll.result).map_err(|e| e.to_string())?;
    if result != record.result {
        return Err(format!(
            "rolling it again from its dice gives {result}, not the recorded {}",
            record.result
        ));
    }
    if let Some(seed) = record.seed {
        let mut seeded = Recording::new(&Dice::Seed(seed));
        run(&record.expression, &record.params, &limits, &mut seeded)
            .map_err(|error| format!("rolling it again from seed {seed} fails: {error}"))?;
        if seeded.rolled() != record.dice {
            return Err(format!("its dice are not the ones seed {seed} gives"));
        }
    }
    Ok(())
}
