//! `omen save` and `omen saved`: named, parameterised rolls kept in a campaign, and the script a
//! saved roll gives `omen roll @NAME` and `omen prob @NAME`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use omen_core::Limits;
use omen_store::{SavedRoll, StoreError};
use serde_json::{Value, json};

use super::args::{SaveArgs, SavedArgs, SavedCommand};
use super::shared::{attempt, campaign_name, fail, print, refuse_expression};
use crate::escape;
use crate::shared_args::{DialectArg, InputArgs, ScriptArgs, parse_param};
use crate::store_access::{open_read, open_write};

/// `--param NAME=VALUE` values as JSON, read the way the language reads parameter values.
fn json_params(params: &[String]) -> Result<BTreeMap<String, Value>, String> {
    let parsed = params
        .iter()
        .map(|p| parse_param(p))
        .collect::<Result<Vec<_>, String>>()?;
    json_param_values(&parsed)
}

/// Parameter values of the language as the JSON a campaign stores them in.
pub fn json_param_values(
    params: &[(String, omen_lang::Value)],
) -> Result<BTreeMap<String, Value>, String> {
    params
        .iter()
        .map(|(name, value)| {
            let value = serde_json::to_value(value).map_err(|e| e.to_string())?;
            Ok((name.clone(), value))
        })
        .collect()
}

/// The saved roll `name` as a script to compute: its text, with its default parameters under the
/// ones given on the command line.
pub fn saved_input(
    name: &str,
    campaign: &Option<String>,
    db: &Option<PathBuf>,
    given: &ScriptArgs,
) -> Result<(InputArgs, ScriptArgs), String> {
    let store = open_read(db, &None).map_err(|e| e.to_string())?;
    let campaign = campaign_name(&store, campaign)?;
    let saved = store
        .saved_roll(&campaign, name)
        .map_err(|e| e.to_string())?;
    let params = saved
        .params_with(&json_param_values(&given.params)?)
        .iter()
        .map(|(key, value)| Ok((key.clone(), omen_store::param_value(key, value)?)))
        .collect::<Result<Vec<_>, omen_store::StoreError>>()
        .map_err(|e| e.to_string())?;
    Ok((
        InputArgs {
            expression: Some(saved.expression),
            file: None,
        },
        // A saved roll is kept in Omen's own notation.
        ScriptArgs {
            params,
            dialect: DialectArg::omen(),
        },
    ))
}

pub fn save(args: &SaveArgs) -> anyhow::Result<bool> {
    let mut store = attempt!(open_write(&args.db));
    let campaign = attempt!(campaign_name(&store, &args.campaign));
    let expression = match (&args.expression, &args.file) {
        (Some(text), _) => text.clone(),
        (None, Some(path)) => attempt!(
            std::fs::read_to_string(path)
                .map(|text| text.trim_end().to_string())
                .map_err(|e| format!("cannot read {}: {e}", path.display()))
        ),
        (None, None) => return fail("give an expression or -f FILE"),
    };
    let params = attempt!(json_params(&args.params));
    // Saved rolls are kept in Omen's notation: one typed in the campaign's dialect is kept as its
    // reading.
    let dialect = attempt!(store.campaign(&campaign)).dialect;
    let expression = match omen_lang::syntax::Dialect::named(&dialect) {
        Some(dialect) if dialect.name != "omen" => {
            match omen_store::in_omen_notation(&expression, dialect, &params, &Limits::default()) {
                Ok((reading, _)) => reading,
                Err(StoreError::Language(errors)) => {
                    return refuse_expression(&expression, &errors);
                }
                Err(error) => return fail(error),
            }
        }
        _ => expression,
    };
    // A saved roll that does not compile would fail every time it is used: refuse it now, drawn.
    match omen_store::check_expression(&expression, &params, &Limits::default()) {
        Ok(_) => {}
        Err(StoreError::Language(errors)) => return refuse_expression(&expression, &errors),
        Err(error) => return fail(error),
    }
    let saved = SavedRoll {
        name: args.name.trim_start_matches('@').to_string(),
        expression,
        params,
        description: args.description.clone(),
    };
    attempt!(store.save_roll(&campaign, &saved, args.replace));
    print(
        args.db.format,
        &format!(
            "saved @{} in `{}`\n",
            escape::line(&saved.name),
            escape::line(&campaign)
        ),
        &saved,
    )
}

pub fn saved(args: &SavedArgs) -> anyhow::Result<bool> {
    let mut store = match &args.command {
        SavedCommand::List => attempt!(open_read(&args.db.db, &args.db.key)),
        SavedCommand::Delete { .. } => attempt!(open_write(&args.db)),
    };
    let campaign = attempt!(campaign_name(&store, &args.campaign));
    match &args.command {
        SavedCommand::List => {
            let saved = attempt!(store.saved_rolls(&campaign));
            let mut text = String::new();
            for s in &saved {
                let params: Vec<String> = s
                    .params
                    .iter()
                    .map(|(k, v)| format!("{}={}", escape::line(k), escape::line(&v.to_string())))
                    .collect();
                text.push_str(&format!(
                    "@{}  {}",
                    escape::line(&s.name),
                    escape::line(&s.expression)
                ));
                if !params.is_empty() {
                    text.push_str(&format!("  [{}]", params.join(", ")));
                }
                if let Some(d) = &s.description {
                    text.push_str(&format!("  # {}", escape::line(d)));
                }
                text.push('\n');
            }
            if saved.is_empty() {
                text.push_str("no saved rolls; save one with `omen save NAME EXPR`\n");
            }
            print(args.db.format, &text, &saved)
        }
        SavedCommand::Delete { name } => {
            let name = name.trim_start_matches('@');
            attempt!(store.delete_saved_roll(&campaign, name));
            print(
                args.db.format,
                &format!("@{name} deleted from `{campaign}`\n"),
                &json!({ "deleted": name }),
            )
        }
    }
}
