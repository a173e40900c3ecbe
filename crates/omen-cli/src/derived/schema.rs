//! A rule set's JSON Schemas read as command-line fields: what each property is (a switch, a number,
//! one of a few names, a list, a small object), its help, its default and the hints a rule set gives
//! the command line (`x-cli-*`). The schemas are the rule sets' own (schemars); nothing here names a
//! game.
//!
//! Hints, all optional, each beside the field it is about:
//! * `x-cli-flag`: the flag's long name where users know another one (`--dv` for `difficulty`); the
//!   field's own name, in kebab case, stays an alias.
//! * `x-cli-switch`: `{"FLAG": "VALUE"}`, a flag without a value that sets the field to VALUE
//!   (`--decline` for `"choice": "decline"`).
//! * `x-cli-fields`: for a list of objects, the properties a `A:B:C` value fills, in order
//!   (`--buy skill:6:sway`); trailing ones may be left out for their defaults.
//! * `x-cli-command` (on an action): the subcommand's name where it differs from the action's.

use serde_json::{Map, Value};

/// What a flag's value is.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// true or false; `--flag` alone is true.
    Switch,
    /// A whole number, within the schema's bounds.
    Integer { min: Option<i64>, max: Option<i64> },
    /// A decimal number.
    Number,
    /// Text.
    Text,
    /// One of a few names, each with its help; `open` when the rule set takes other spellings too.
    Choice {
        values: Vec<(String, Option<String>)>,
        open: bool,
    },
    /// The flag repeated, one item each time.
    List(Box<Kind>),
    /// An object given as one `A:B:C` value (the names of its fields in order), or as JSON.
    Record(Vec<(String, Kind)>),
    /// An object whose fields are flags of their own (`--optional-defy`, or the field's hint).
    Nested(Vec<Field>),
    /// Anything else, given as JSON text.
    Json,
}

/// One property of an object schema, as a flag.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The property's name in JSON.
    pub name: String,
    pub kind: Kind,
    pub required: bool,
    /// The property's description, or its type's.
    pub help: Option<String>,
    pub default: Option<Value>,
    /// The flag's long name: the `x-cli-flag` hint, else the name in kebab case.
    pub flag: String,
    /// Whether the rule set named the flag (`x-cli-flag`).
    pub hinted: bool,
    /// `x-cli-switch`: flags that set the field to a value.
    pub switches: Vec<(String, Value)>,
}

impl Field {
    /// The name in kebab case, as an alias when the hint names the flag otherwise.
    pub fn kebab(&self) -> String {
        self.name.replace('_', "-")
    }
}

/// Follows `$ref` into the root's `$defs`, and takes the non-null branch of an optional type.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut schema = schema;
    for _ in 0..8 {
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let name = reference.rsplit('/').next().unwrap_or(reference);
            match root.pointer(&format!("/$defs/{name}")) {
                Some(target) => schema = target,
                None => return schema,
            }
        } else if let Some(branches) = schema.get("anyOf").and_then(Value::as_array)
            && let [only] = branches
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .collect::<Vec<_>>()
                .as_slice()
        {
            schema = only;
        } else {
            return schema;
        }
    }
    schema
}

/// The schema's type other than `null`.
fn type_name(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(name) => Some(name),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .find(|n| *n != "null"),
        _ => None,
    }
}

/// The names a string enumeration allows, each with its description: `enum`, or `oneOf` branches
/// of `const` and `enum`.
fn choices(schema: &Value) -> Option<Vec<(String, Option<String>)>> {
    let names = |list: &Value| -> Vec<String> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    if let Some(list) = schema.get("enum") {
        return Some(names(list).into_iter().map(|n| (n, None)).collect());
    }
    let branches = schema.get("oneOf")?.as_array()?;
    let mut values = Vec::new();
    for branch in branches {
        let help = description(branch);
        if let Some(name) = branch.get("const").and_then(Value::as_str) {
            values.push((name.to_string(), help));
        } else if let Some(list) = branch.get("enum") {
            values.extend(names(list).into_iter().map(|n| (n, help.clone())));
        } else {
            return None;
        }
    }
    Some(values)
}

/// What a (resolved) schema asks for; `depth` 0 lets an object become nested flags.
fn kind(root: &Value, schema: &Value, hints: &Value, depth: u8) -> Kind {
    let schema = resolve(root, schema);
    if let Some(values) = choices(schema) {
        let open = schema.get("x-any-spelling").and_then(Value::as_bool) == Some(true);
        return Kind::Choice { values, open };
    }
    match type_name(schema) {
        Some("boolean") => Kind::Switch,
        Some("integer") => Kind::Integer {
            min: schema.get("minimum").and_then(Value::as_i64),
            max: schema.get("maximum").and_then(Value::as_i64),
        },
        Some("number") => Kind::Number,
        Some("string") => Kind::Text,
        Some("array") if depth == 0 => {
            let item = schema.get("items").unwrap_or(&Value::Null);
            let resolved = resolve(root, item);
            match (type_name(resolved), hints.get("x-cli-fields")) {
                (Some("object"), Some(order)) => {
                    let properties = resolved.get("properties").unwrap_or(&Value::Null);
                    let parts = order
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(|name| {
                            let schema = properties.get(name).unwrap_or(&Value::Null);
                            (name.to_string(), kind(root, schema, &Value::Null, 1))
                        })
                        .collect();
                    Kind::List(Box::new(Kind::Record(parts)))
                }
                (Some("object" | "array"), _) => Kind::List(Box::new(Kind::Json)),
                _ => Kind::List(Box::new(kind(root, item, &Value::Null, 1))),
            }
        }
        Some("object") if depth == 0 => match object_fields(root, schema, 1) {
            Some(fields) if fields.iter().all(|f| is_scalar(&f.kind)) => Kind::Nested(fields),
            _ => Kind::Json,
        },
        _ => Kind::Json,
    }
}

fn is_scalar(kind: &Kind) -> bool {
    matches!(
        kind,
        Kind::Switch | Kind::Integer { .. } | Kind::Number | Kind::Text | Kind::Choice { .. }
    )
}

/// The properties of an object schema as fields, in the schema's order (schemars sorts them).
pub fn object_fields(root: &Value, schema: &Value, depth: u8) -> Option<Vec<Field>> {
    let schema = resolve(root, schema);
    let properties = schema.get("properties")?.as_object()?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut fields = Vec::new();
    for (name, property) in properties {
        fields.push(field(
            root,
            name,
            property,
            required.contains(&name.as_str()),
            depth,
        ));
    }
    Some(fields)
}

fn field(root: &Value, name: &str, property: &Value, required: bool, depth: u8) -> Field {
    let resolved = resolve(root, property);
    let help = description(property).or_else(|| description(resolved));
    let switches = property
        .get("x-cli-switch")
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .map(|(flag, value)| (flag.clone(), value.clone()))
                .collect()
        })
        .unwrap_or_default();
    Field {
        name: name.to_string(),
        kind: kind(root, property, property, depth),
        // A field with a default need not be given, whatever the schema's `required` says.
        required: required && property.get("default").is_none(),
        help,
        default: property.get("default").cloned(),
        hinted: property.get("x-cli-flag").is_some(),
        flag: property
            .get("x-cli-flag")
            .and_then(Value::as_str)
            .map_or_else(|| name.replace('_', "-"), str::to_string),
        switches,
    }
}

fn description(schema: &Value) -> Option<String> {
    let text = schema.get("description").and_then(Value::as_str)?;
    // The doc comment's lines become one line of single spaces, built in one string: this runs
    // for every field of the action given, at every start.
    let mut flat = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !flat.is_empty() {
            flat.push(' ');
        }
        flat.push_str(word);
    }
    Some(without_spec_ids(&flat))
}

/// One action of a game: its name, its subcommand's name, its help and its fields (all but the
/// `action` tag).
#[derive(Clone, Debug)]
pub struct ActionSchema {
    pub name: String,
    pub command: String,
    pub help: Option<String>,
    pub fields: Vec<Field>,
}

/// The actions of an action schema (a `oneOf` of objects tagged by `action`), in the schema's order.
#[cfg(test)]
pub fn actions(root: &Value) -> Vec<ActionSchema> {
    branches(root).map(|b| action(root, b, true)).collect()
}

/// The actions' names and help alone, without reading their fields: what a game's list of
/// subcommands needs.
pub fn action_names(root: &Value) -> Vec<ActionSchema> {
    branches(root).map(|b| action(root, b, false)).collect()
}

/// The subcommand names of the actions alone, in the schema's order: no help, no fields.
pub fn action_commands(root: &Value) -> impl Iterator<Item = &str> {
    branches(root).map(|b| command_of(b).1)
}

/// The help of the action whose subcommand is `command`, without reading its fields.
pub fn action_help(root: &Value, command: &str) -> Option<String> {
    branches(root)
        .find(|b| command_of(b).1 == command)
        .and_then(description)
}

/// The action whose subcommand is `command`, with its fields.
pub fn action_of(root: &Value, command: &str) -> Option<ActionSchema> {
    // The search reads names only: the help text is made for the one action found.
    branches(root)
        .find(|b| command_of(b).1 == command)
        .map(|b| action(root, b, true))
}

/// The branches of the `oneOf` that are actions (tagged by a constant `action`).
fn branches(root: &Value) -> impl Iterator<Item = &Value> {
    root.get("oneOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.pointer("/properties/action/const").is_some())
}

/// A branch's action name and its subcommand's (the `x-cli-command` hint, else the name).
fn command_of(branch: &Value) -> (&str, &str) {
    let name = branch
        .pointer("/properties/action/const")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let command = branch
        .get("x-cli-command")
        .and_then(Value::as_str)
        .unwrap_or(name);
    (name, command)
}

fn action(root: &Value, branch: &Value, with_fields: bool) -> ActionSchema {
    let (name, command) = command_of(branch);
    let fields = if with_fields {
        object_fields(root, branch, 0)
            .unwrap_or_default()
            .into_iter()
            .filter(|f| f.name != "action")
            .collect()
    } else {
        Vec::new()
    };
    ActionSchema {
        name: name.to_string(),
        command: command.to_string(),
        help: description(branch),
        fields,
    }
}

/// The examples of one action in the schema's `examples`, without their `action` tag.
pub fn action_examples(root: &Value, action: &str) -> Vec<Map<String, Value>> {
    root.get("examples")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|e| e.get("action").and_then(Value::as_str) == Some(action))
        .filter_map(|e| {
            let mut map = e.as_object()?.clone();
            map.remove("action");
            Some(map)
        })
        .collect()
}

/// A rule set's text for everyday help: spec item ids (`003-M24`, `(001-M2..M7)`) belong in
/// `omen rules GAME --detail`, so parentheses that hold them, and ids standing alone, are left out.
pub fn without_spec_ids(text: &str) -> String {
    // Most texts have no id and nothing to tidy: they are their own answer.
    let untidy = [" :", " ,", " .", "  "].iter().any(|p| text.contains(p));
    if !has_spec_id(text) && !untidy && text.trim().len() == text.len() {
        return text.to_string();
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')').map(|c| open + c) else {
            break;
        };
        out.push_str(&rest[..open]);
        let inside = &rest[open + 1..close];
        if !has_spec_id(inside) {
            out.push_str(&rest[open..=close]);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    let words: Vec<&str> = out.split(' ').filter(|word| !has_spec_id(word)).collect();
    let joined = words.join(" ");
    joined
        .replace(" :", ":")
        .replace(" ,", ",")
        .replace(" .", ".")
        .replace("  ", " ")
        .trim()
        .to_string()
}

/// `000-M8`, `003-A14`: three digits, a dash, a capital, a digit or capital.
fn has_spec_id(text: &str) -> bool {
    text.as_bytes().windows(6).any(|w| {
        w[..3].iter().all(u8::is_ascii_digit)
            && w[3] == b'-'
            && w[4].is_ascii_uppercase()
            && (w[5].is_ascii_digit() || w[5].is_ascii_uppercase())
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn spec_ids_and_the_gaps_they_leave_are_taken_out_of_help_text() {
        let cases = [
            // Nothing to take out: the text itself (the fast path).
            ("Heals levels of health.", "Heals levels of health."),
            (
                "A check (any aspect): dots and dice",
                "A check (any aspect): dots and dice",
            ),
            // Parentheses holding ids go, with the space they leave before a stop.
            ("A check (003-M1..M9, M21): dots", "A check: dots"),
            ("Spends FORTITUDE (003-M23).", "Spends FORTITUDE."),
            ("Once a day, 003-M25 says so", "Once a day, says so"),
            // Untidy text with no id is tidied all the same.
            ("two  spaces , and a stop .", "two spaces, and a stop."),
            (" padded ", "padded"),
        ];
        for (text, expected) in cases {
            assert_eq!(without_spec_ids(text), expected, "{text:?}");
        }
    }

    #[test]
    fn optional_references_resolve_to_their_type_and_keep_the_fields_help() {
        let root = json!({
            "$defs": {"Aspect": {"enum": ["FITNESS", "CHARM"], "type": "string", "x-any-spelling": true}},
            "oneOf": [{
                "properties": {
                    "action": {"const": "check"},
                    "aspect": {"anyOf": [{"$ref": "#/$defs/Aspect"}, {"type": "null"}], "default": null},
                    "difficulty": {"type": "integer", "minimum": 2, "description": "The DV.", "x-cli-flag": "dv"},
                },
                "required": ["action", "difficulty"],
            }],
        });
        let actions = actions(&root);
        let [check] = actions.as_slice() else {
            panic!("one action")
        };
        let [aspect, difficulty] = check.fields.as_slice() else {
            panic!("two fields")
        };
        assert_eq!(
            aspect.kind,
            Kind::Choice {
                values: vec![("FITNESS".into(), None), ("CHARM".into(), None)],
                open: true
            }
        );
        assert!(!aspect.required);
        assert_eq!(difficulty.flag, "dv");
        assert_eq!(difficulty.kebab(), "difficulty");
        assert!(difficulty.required);
        assert_eq!(difficulty.help.as_deref(), Some("The DV."));
        assert_eq!(
            difficulty.kind,
            Kind::Integer {
                min: Some(2),
                max: None
            }
        );
    }
}
