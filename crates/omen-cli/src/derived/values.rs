//! The flags given, back into the JSON object the rule set's serde type reads: each given field
//! once, fields left out absent (so the type's own defaults apply), a nested object only when one of
//! its fields is given.

use clap::ArgMatches;
use serde_json::{Map, Value};

use super::command::{nested_id, switch_id};
use super::schema::{Field, Kind};

/// The JSON object of the fields given.
///
/// # Errors
/// A value that the flag's type cannot hold (a record with the wrong parts, JSON that does not parse).
pub fn object(matches: &ArgMatches, fields: &[Field]) -> Result<Map<String, Value>, String> {
    let mut object = Map::new();
    for field in fields {
        for (flag, value) in &field.switches {
            if matches.get_flag(&switch_id(flag)) {
                object.insert(field.name.clone(), value.clone());
            }
        }
        match &field.kind {
            Kind::Nested(children) => {
                let mut inner = Map::new();
                for child in children {
                    if let Some(value) = one(matches, &nested_id(field, child), child)? {
                        inner.insert(child.name.clone(), value);
                    }
                }
                if !inner.is_empty() {
                    object.insert(field.name.clone(), Value::Object(inner));
                }
            }
            Kind::List(item) => {
                if let Some(raw) = matches.get_raw(&field.name) {
                    let items = raw
                        .map(|text| parse(item, &text.to_string_lossy(), &field.flag))
                        .collect::<Result<Vec<_>, _>>()?;
                    object.insert(field.name.clone(), Value::Array(items));
                }
            }
            _ => {
                if let Some(value) = one(matches, &field.name, field)? {
                    object.insert(field.name.clone(), value);
                }
            }
        }
    }
    Ok(object)
}

/// The value of one scalar flag, if given.
fn one(matches: &ArgMatches, id: &str, field: &Field) -> Result<Option<Value>, String> {
    let Some(mut raw) = matches.get_raw(id) else {
        return Ok(None);
    };
    let Some(text) = raw.next() else {
        return Ok(None);
    };
    parse(&field.kind, &text.to_string_lossy(), &field.flag).map(Some)
}

/// A flag's text as the field's JSON value. clap has checked the flag's own type (numbers, ranges,
/// names); what remains is the shape of records and JSON.
fn parse(kind: &Kind, text: &str, flag: &str) -> Result<Value, String> {
    match kind {
        Kind::Switch => Ok(Value::Bool(text.eq_ignore_ascii_case("true"))),
        Kind::Integer { .. } => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("--{flag} {text}: not a whole number")),
        Kind::Number => text
            .parse::<f64>()
            .map(Value::from)
            .map_err(|_| format!("--{flag} {text}: not a number")),
        Kind::Choice {
            values,
            open: false,
        } => Ok(Value::from(
            values
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(text))
                .map_or(text, |(name, _)| name.as_str()),
        )),
        Kind::Choice { open: true, .. } | Kind::Text => Ok(Value::from(text)),
        Kind::Record(parts) => record(parts, text, flag),
        Kind::Json | Kind::Nested(_) | Kind::List(_) => {
            crate::json_input::json_argument(text).map_err(|message| format!("--{flag}: {message}"))
        }
    }
}

/// `A:B:C` as an object of the parts' fields, in order; trailing parts may be left out. A value that
/// starts with `{` is the object as JSON.
fn record(parts: &[(String, Kind)], text: &str, flag: &str) -> Result<Value, String> {
    if text.trim_start().starts_with('{') {
        return crate::json_input::json_argument(text)
            .map_err(|message| format!("--{flag}: {message}"));
    }
    let pieces: Vec<&str> = text.split(':').collect();
    let shape = parts
        .iter()
        .map(|(name, _)| name.to_uppercase())
        .collect::<Vec<_>>()
        .join(":");
    if pieces.len() > parts.len() || pieces.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "--{flag} {text}: write {shape} (trailing parts may be left out), or a JSON object"
        ));
    }
    let mut object = Map::new();
    for ((name, kind), piece) in parts.iter().zip(pieces) {
        let value = parse(kind, piece, flag).map_err(|_| {
            format!(
                "--{flag} {text}: `{piece}` is not a {}; write {shape}",
                name
            )
        })?;
        object.insert(name.clone(), value);
    }
    Ok(Value::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_fills_its_parts_in_order_and_may_leave_out_trailing_ones() {
        let parts = vec![
            ("kind".to_string(), Kind::Text),
            (
                "sides".to_string(),
                Kind::Integer {
                    min: None,
                    max: None,
                },
            ),
            ("currency".to_string(), Kind::Text),
        ];
        assert_eq!(
            record(&parts, "skill:6:chi", "buy"),
            Ok(serde_json::json!({"kind": "skill", "sides": 6, "currency": "chi"}))
        );
        assert_eq!(
            record(&parts, "skill:6", "buy"),
            Ok(serde_json::json!({"kind": "skill", "sides": 6}))
        );
        let wrong = record(&parts, "skill:six", "buy").unwrap_err();
        assert!(wrong.contains("`six` is not a sides"), "{wrong}");
        assert!(record(&parts, "a:1:b:c", "buy").is_err());
    }
}
