//! Subcommands built at run time from [`super::schema`]'s fields: one flag per field (a nested
//! object's fields each a flag of their own), its help the field's description, its possible values
//! the schema's names, and examples from the schema's own.

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgAction, Command, value_parser};
use serde_json::{Map, Value};

use super::schema::{Field, Kind};

/// The flags the action runner takes itself (see [`crate::act::Holder`]): an action's field named so
/// gets its name with `-field` after it instead.
pub const HOLDER_FLAGS: &[&str] = &[
    "char",
    "campaign",
    "db",
    "state",
    "sheet",
    "odds",
    "option",
    "view",
    "visibility",
    "seed",
    "dice",
    "format",
    "help",
];

/// The flags an analysis takes itself.
pub const ANALYSIS_FLAGS: &[&str] = &["format", "help"];

/// The flag's long name, clear of the command's own (`reserved`).
pub fn long_name(flag: &str, reserved: &[&str]) -> String {
    if reserved.contains(&flag) {
        format!("{flag}-field")
    } else {
        flag.to_string()
    }
}

/// The id of a nested field's argument: `optional.defy`.
pub fn nested_id(parent: &Field, child: &Field) -> String {
    format!("{}.{}", parent.name, child.name)
}

/// The id of a switch's argument.
pub fn switch_id(flag: &str) -> String {
    format!("switch:{flag}")
}

/// Adds one flag per field (nested fields each their own, switches beside them).
pub fn add_fields(mut command: Command, fields: &[Field], reserved: &[&str]) -> Command {
    for field in fields {
        for (flag, value) in &field.switches {
            let help = format!("The same as --{} {}.", field.flag, plain(value));
            command = command.arg(
                Arg::new(switch_id(flag))
                    .long(long_name(flag, reserved))
                    .action(ArgAction::SetTrue)
                    .conflicts_with(field.name.clone())
                    .help(help),
            );
        }
        match &field.kind {
            Kind::Nested(children) => {
                for child in children {
                    let default_flag = format!("{}-{}", field.flag, child.kebab());
                    let flag = if child.hinted {
                        child.flag.clone()
                    } else {
                        default_flag.clone()
                    };
                    let mut arg = arg(child, nested_id(field, child), &long_name(&flag, reserved));
                    if flag != default_flag {
                        arg = arg.visible_alias(default_flag);
                    }
                    command = command.arg(arg.help(help_text(child)));
                }
            }
            _ => {
                let mut arg = arg(field, field.name.clone(), &long_name(&field.flag, reserved));
                if field.flag != field.kebab() && !reserved.contains(&field.kebab().as_str()) {
                    arg = arg.visible_alias(field.kebab());
                }
                command = command.arg(arg.help(help_text(field)).required(field.required));
            }
        }
    }
    command
}

/// The field's help with its default, when the default says something.
fn help_text(field: &Field) -> String {
    let mut help = field.help.clone().unwrap_or_default();
    let item = match &field.kind {
        Kind::List(item) => item.as_ref(),
        kind => kind,
    };
    if let Kind::Choice { values, open: true } = item {
        // Not a closed list for clap (the rule set reads other spellings too), so named here.
        let names: Vec<&str> = values.iter().map(|(n, _)| n.as_str()).collect();
        help.push_str(&format!(" One of: {}.", names.join(", ")));
    }
    if let Some(default) = &field.default
        && !matches!(default, Value::Null | Value::Bool(false))
        && default != &Value::Array(Vec::new())
        && !matches!(field.kind, Kind::Nested(_))
    {
        help.push_str(&format!(" [default: {}]", plain(default)));
    }
    help
}

/// A value as a person writes it on the command line.
pub fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn arg(field: &Field, id: String, flag: &str) -> Arg {
    let value_name = field.name.to_uppercase();
    let arg = Arg::new(id).long(flag.to_string()).value_name(value_name);
    match &field.kind {
        // Numbers may come as one list, `--dice 2,5,1`, as the runner's own `--dice` does.
        Kind::List(item) if matches!(**item, Kind::Integer { .. }) => scalar(arg, item)
            .action(ArgAction::Append)
            .value_delimiter(','),
        Kind::List(item) => scalar(arg, item).action(ArgAction::Append),
        kind => scalar(arg, kind).action(ArgAction::Set),
    }
}

fn scalar(arg: Arg, kind: &Kind) -> Arg {
    match kind {
        Kind::Switch => arg
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("true")
            .value_parser(value_parser!(bool))
            .value_name("BOOL"),
        Kind::Integer { min, max } => {
            let parser =
                value_parser!(i64).range(min.unwrap_or(i64::MIN)..=max.unwrap_or(i64::MAX));
            arg.value_parser(parser)
                .allow_negative_numbers(min.is_none_or(|m| m < 0))
                .value_name("N")
        }
        Kind::Number => arg
            .value_parser(value_parser!(f64))
            .allow_negative_numbers(true),
        Kind::Choice {
            values,
            open: false,
        } => {
            let values = values.iter().map(|(name, help)| {
                let value = PossibleValue::new(name.clone());
                match help {
                    Some(help) => value.help(help.clone()),
                    None => value,
                }
            });
            arg.value_parser(PossibleValuesParser::new(values))
                .ignore_case(true)
        }
        // The rule set reads other spellings too (aliases, any case): it checks the value.
        Kind::Choice { open: true, .. } => arg,
        Kind::Record(parts) => {
            let names: Vec<String> = parts.iter().map(|(n, _)| n.to_uppercase()).collect();
            arg.value_name(names.join(":"))
        }
        Kind::Json | Kind::Nested(_) | Kind::List(_) => arg.value_name("JSON"),
        Kind::Text => arg,
    }
}

/// `Examples:` lines for a subcommand: each example of the schema as flags, after `prefix`.
pub fn examples(
    prefix: &str,
    fields: &[Field],
    examples: &[Map<String, Value>],
    reserved: &[&str],
) -> String {
    let mut lines = Vec::new();
    for example in examples {
        let mut words = vec![prefix.to_string()];
        for field in fields {
            if let Some(value) = example.get(&field.name) {
                words.extend(flags_of(field, value, reserved));
            }
        }
        lines.push(words.join(" "));
    }
    if lines.is_empty() {
        let mut words = vec![prefix.to_string()];
        for field in fields.iter().filter(|f| f.required) {
            words.extend(flags_of(field, &placeholder(&field.kind), reserved));
        }
        lines.push(words.join(" "));
    }
    let mut text = String::from("Examples:");
    for line in lines {
        text.push_str("\n  ");
        text.push_str(&line);
    }
    text
}

/// A value a required field can show in an example that has none.
pub fn placeholder(kind: &Kind) -> Value {
    match kind {
        Kind::Switch => Value::Bool(true),
        Kind::Integer { min, .. } => Value::from(min.unwrap_or(1).max(1)),
        Kind::Number => Value::from(1),
        Kind::Choice { values, .. } => Value::from(values.first().map_or("", |(n, _)| n.as_str())),
        Kind::List(item) => Value::Array(vec![placeholder(item)]),
        Kind::Record(parts) => Value::Object(
            parts
                .iter()
                .map(|(name, kind)| (name.clone(), placeholder(kind)))
                .collect(),
        ),
        Kind::Text => Value::from("name"),
        Kind::Nested(_) | Kind::Json => Value::Object(Map::new()),
    }
}

/// The flags that give `value` for `field`, as shell words.
pub fn flags_of(field: &Field, value: &Value, reserved: &[&str]) -> Vec<String> {
    let flag = format!("--{}", long_name(&field.flag, reserved));
    match (&field.kind, value) {
        (Kind::Switch, Value::Bool(true)) => vec![flag],
        (Kind::Switch, Value::Bool(false)) => Vec::new(),
        (Kind::List(item), Value::Array(items)) if matches!(**item, Kind::Integer { .. }) => {
            let values: Vec<String> = items.iter().map(plain).collect();
            vec![flag, values.join(",")]
        }
        (Kind::List(item), Value::Array(items)) => items
            .iter()
            .flat_map(|v| [flag.clone(), quote(&list_item(item, v))])
            .collect(),
        (Kind::Nested(children), Value::Object(map)) => children
            .iter()
            .filter_map(|child| Some((child, map.get(&child.name)?)))
            .flat_map(|(child, v)| {
                let flag = if child.hinted {
                    format!("--{}", child.flag)
                } else {
                    format!("--{}-{}", field.flag, child.kebab())
                };
                [flag, quote(&plain(v))]
            })
            .collect(),
        (Kind::Json, v) => vec![flag, quote(&v.to_string())],
        (_, v) => vec![flag, quote(&plain(v))],
    }
}

fn list_item(item: &Kind, value: &Value) -> String {
    match (item, value) {
        (Kind::Record(parts), Value::Object(map)) => parts
            .iter()
            .map_while(|(name, _)| map.get(name).map(plain))
            .collect::<Vec<_>>()
            .join(":"),
        (Kind::Json, v) => v.to_string(),
        (_, v) => plain(v),
    }
}

/// A word as a shell reads it back: quoted when it holds anything but plain characters.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:,/@+=".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
