//! The slash commands, as Discord's command definitions (JSON): the fixed ones, and one per rule
//! set whose subcommands are its actions and whose options are derived at run time from the
//! actions' JSON Schema (`omen_rules::stateful::Game::action_schema`), the schema the API checks
//! actions against and the pages build their forms from. `omen discord register` prints or sends
//! them.
//!
//! Discord's limits are kept: names of 1 to 32 lower-case letters, digits, `-` and `_`,
//! descriptions of 1 to 100 characters, at most 25 options and 25 choices. A field the options
//! cannot carry (an object, a list) is a string option read as JSON; an action whose fields do not
//! fit in 25 options takes them all as one JSON option.

use serde_json::{Map, Value, json};

/// Option types.
const SUB_COMMAND: u8 = 1;
const STRING: u8 = 3;
const INTEGER: u8 = 4;
const BOOLEAN: u8 = 5;
const CHANNEL: u8 = 7;
const NUMBER: u8 = 10;

/// Discord's most options of a command or subcommand, and choices of an option.
const MAX_OPTIONS: usize = 25;

/// JavaScript's largest exact whole number: Discord's bounds on numbers.
const MAX_SAFE: i64 = (1 << 53) - 1;

/// The setup command's name (`/omen bind`, `/omen link`).
pub(crate) const SETUP: &str = "omen";

/// The option an action's fields take as JSON when they do not fit.
pub(crate) const JSON_OPTION: &str = "json";

/// The options every rolling command adds to its own: the roller's part in the draw
/// ([`draw_options`]) and who sees the result. A rule set's field of one of these names would be
/// shadowed, so such an action takes its fields as JSON.
pub(crate) const RESERVED: [&str; 4] = ["character", "entropy", "commitment", "visibility"];

/// How one option's value becomes a field of the action.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Field {
    /// The option's value as it is (a number, a string, true/false).
    Plain,
    /// A string read as JSON: a field the options cannot carry.
    Json,
}

/// Every command, in the order `omen discord register` lists them.
pub fn commands() -> Value {
    let mut commands = vec![
        setup(),
        roll(),
        odds(),
        log(),
        verify(),
        reveal(),
        fairness(),
    ];
    commands.extend(
        omen_rules::stateful::games()
            .iter()
            .filter_map(|game| rule_set(*game)),
    );
    Value::Array(commands)
}

fn command(name: &str, description: &str, options: Vec<Value>) -> Value {
    json!({ "type": 1, "name": name, "description": clip(description), "options": options })
}

fn option(kind: u8, name: &str, description: &str, required: bool) -> Value {
    json!({ "type": kind, "name": name, "description": clip(description), "required": required })
}

fn visibility() -> Value {
    let mut option = option(
        STRING,
        "visibility",
        "Who sees it: public (default), private (you and the GM), blind (the GM), self (you)",
        false,
    );
    option["choices"] = json!(
        ["public", "private", "blind", "self"]
            .iter()
            .map(|v| json!({ "name": v, "value": v }))
            .collect::<Vec<_>>()
    );
    option
}

fn setup() -> Value {
    let token = |what: &str| vec![option(STRING, "token", what, true)];
    let sub = |name: &str, description: &str, options: Vec<Value>| json!({ "type": SUB_COMMAND, "name": name, "description": clip(description), "options": options });
    command(
        SETUP,
        "Set up Omen in this channel",
        vec![
            sub(
                "bind",
                "Bind this channel to your campaign (game master; only you see the answer)",
                token("Your game master invite's token"),
            ),
            sub(
                "link",
                "Link your Discord account to your invite (only you see the answer)",
                token("Your invite's token"),
            ),
            sub(
                "unbind",
                "Unbind this channel from your campaign (game master)",
                vec![],
            ),
            sub(
                "gm-channel",
                "Name the channel the dice of private and blind rolls go to (game master; none: stop)",
                vec![gm_channel_option()],
            ),
        ],
    )
}

/// A text channel (type 0), as Discord's picker offers them.
fn gm_channel_option() -> Value {
    let mut option = option(
        CHANNEL,
        "channel",
        "A channel only you read; leave out to name none",
        false,
    );
    option["channel_types"] = json!([0]);
    option
}

/// The roller's part in a roll's draw, as the API's `entropy` and `commitment` (see the README's
/// trust model): entropy of their own, so the server, which knows the draw's secret, did not choose
/// the roll; and the draw's commitment they read (`/log` shows the next one), so no entry slipped
/// in before theirs.
fn draw_options() -> [Value; 2] {
    let mut entropy = option(
        STRING,
        "entropy",
        "Your own randomness for the draw (8 to 128 characters, e.g. random words): the server then chose no roll",
        false,
    );
    entropy["min_length"] = json!(omen_store::draw::MIN_ENTROPY);
    entropy["max_length"] = json!(omen_store::draw::MAX_ENTROPY);
    let mut commitment = option(
        STRING,
        "commitment",
        "The next draw's commitment as /log shows it: refused if another entry took that draw first",
        false,
    );
    commitment["min_length"] = json!(64);
    commitment["max_length"] = json!(64);
    [entropy, commitment]
}

/// An option whose values Discord asks Omen to suggest as they are typed (the campaign's names).
fn suggested(mut option: Value) -> Value {
    option["autocomplete"] = json!(true);
    option
}

fn roll() -> Value {
    command(
        "roll",
        "Roll dice, logged and signed in the channel's campaign",
        vec![
            option(
                STRING,
                "expression",
                "An expression in the campaign's dialect, e.g. 2d20kh1+5",
                false,
            ),
            suggested(option(
                STRING,
                "saved",
                "A saved roll's name, instead of an expression",
                false,
            )),
            suggested(option(
                STRING,
                "character",
                "The character it is rolled for",
                false,
            )),
            visibility(),
            draw_options()[0].clone(),
            draw_options()[1].clone(),
        ],
    )
}

fn odds() -> Value {
    command(
        "odds",
        "The exact odds of an expression, as a table of fractions",
        vec![option(
            STRING,
            "expression",
            "An expression, e.g. 3d6",
            true,
        )],
    )
}

fn log() -> Value {
    let mut last = option(
        INTEGER,
        "last",
        "How many of the last entries (default 10)",
        false,
    );
    last["min_value"] = json!(1);
    last["max_value"] = json!(20);
    command(
        "log",
        "The last entries of the log, as you may see them",
        vec![last],
    )
}

fn verify() -> Value {
    let receipt = option(
        STRING,
        "receipt",
        "A receipt kept earlier (SEQUENCE:HASH): the log must still hold that entry with that hash",
        false,
    );
    let mut entry = option(
        INTEGER,
        "entry",
        "An entry whose draw to show and check: its commitment, secret, entropy and seed",
        false,
    );
    entry["min_value"] = json!(1);
    command(
        "verify",
        "Verify the campaign's log and post a receipt to keep",
        vec![receipt, entry],
    )
}

fn reveal() -> Value {
    let mut entry = option(INTEGER, "entry", "The entry's number", true);
    entry["min_value"] = json!(1);
    command("reveal", "Reveal a hidden roll (game master)", vec![entry])
}

fn fairness() -> Value {
    command(
        "fairness",
        "Are the dice fair? The campaign's fairness tests",
        vec![],
    )
}

/// Whether `name` is a valid command or option name for Discord.
pub(crate) fn valid_name(name: &str) -> bool {
    (1..=32).contains(&name.chars().count())
        && name
            .chars()
            .all(|c| c == '-' || c == '_' || c.is_ascii_lowercase() || c.is_ascii_digit())
}

fn clip(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    let line = if line.is_empty() { "—" } else { line };
    if line.chars().count() <= 100 {
        return line.to_string();
    }
    let mut cut: String = line.chars().take(99).collect();
    cut.push('…');
    cut
}

/// A rule set's command: one subcommand per action (at most 25), within Discord's limit on a
/// command's text; none for a rule set whose name Discord would refuse or whose command cannot be
/// made to fit.
fn rule_set(game: &dyn omen_rules::stateful::Game) -> Option<Value> {
    if !valid_name(game.name()) {
        return None;
    }
    let schema = game.action_schema();
    let description = omen_rules::find(game.name()).map_or(game.name(), |r| r.description());
    let subcommands: Vec<Value> = game
        .actions()
        .iter()
        .filter(|action| valid_name(action.name))
        .take(MAX_OPTIONS)
        .map(|action| {
            let fields = action_options(&schema, action.name);
            json!({ "type": SUB_COMMAND, "name": action.name, "description": clip(action.summary),
                    "options": fields.into_iter().map(|(o, _)| o).collect::<Vec<_>>() })
        })
        .collect();
    // Past Discord's limit on a command's text, shortened until it fits (see `fit.rs`).
    super::fit::fitted(command(game.name(), description, subcommands))
}

/// The options of action `name` of `schema` (`character` first, then the fields, `visibility`,
/// `entropy` and `commitment`), each with how its value becomes a field.
pub(crate) fn action_options(schema: &Value, name: &str) -> Vec<(Value, Field)> {
    let character = (
        option(STRING, "character", "The character who acts", true),
        Field::Plain,
    );
    let closing = [
        visibility(),
        draw_options()[0].clone(),
        draw_options()[1].clone(),
    ];
    let fields = variant(schema, name)
        .map(|v| fields(schema, v))
        .unwrap_or_default();
    let fits = fields.len() + 1 + closing.len() <= MAX_OPTIONS
        && fields.iter().all(|(o, _)| {
            let name = o["name"].as_str().unwrap_or("");
            valid_name(name) && !RESERVED.contains(&name)
        });
    let mut options = vec![character];
    if fits {
        options.extend(fields);
    } else {
        let described = "The action's fields as a JSON object (they do not fit in options)";
        options.push((option(STRING, JSON_OPTION, described, false), Field::Json));
    }
    options.extend(closing.into_iter().map(|o| (o, Field::Plain)));
    // Discord lists the required options first.
    options.sort_by_key(|(o, _)| o["required"] != true);
    options
}

/// The variant of the action schema's `oneOf` whose `action` is `name`.
fn variant<'a>(schema: &'a Value, name: &str) -> Option<&'a Value> {
    schema["oneOf"].as_array()?.iter().find(|v| {
        let action = &v["properties"]["action"];
        action["const"] == name
            || action["enum"]
                .as_array()
                .is_some_and(|e| e.len() == 1 && e[0] == name)
    })
}

/// `value` with a `$ref` to the schema's `$defs` followed (one level: the schemas are derived).
fn resolved<'a>(schema: &'a Value, value: &'a Value) -> &'a Value {
    value["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| schema["$defs"].get(name))
        .unwrap_or(value)
}

fn fields(schema: &Value, variant: &Value) -> Vec<(Value, Field)> {
    let empty = Map::new();
    let properties = variant["properties"].as_object().unwrap_or(&empty);
    let required: Vec<&str> = variant["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    properties
        .iter()
        .filter(|(name, _)| name.as_str() != "action")
        .map(|(name, property)| field(schema, name, property, required.contains(&name.as_str())))
        .collect()
}

/// One field as an option.
fn field(schema: &Value, name: &str, property: &Value, required: bool) -> (Value, Field) {
    // `anyOf: [X, null]` and `type: [X, "null"]` are an optional X.
    let mut shape = resolved(schema, property);
    if let Some(any) = shape["anyOf"].as_array() {
        let some: Vec<&Value> = any.iter().filter(|v| v["type"] != "null").collect();
        if let [only] = some[..] {
            shape = resolved(schema, only);
        }
    }
    let kind = match &shape["type"] {
        Value::Array(types) => types
            .iter()
            .find(|t| *t != "null")
            .cloned()
            .unwrap_or(Value::Null),
        other => other.clone(),
    };
    let description = property["description"]
        .as_str()
        .or(shape["description"].as_str())
        .unwrap_or(name);
    let choices = choices(shape);
    let (mut option, how) = match (kind.as_str(), &choices) {
        (Some("integer"), _) => (option(INTEGER, name, description, required), Field::Plain),
        (Some("number"), _) => (option(NUMBER, name, description, required), Field::Plain),
        (Some("boolean"), _) => (option(BOOLEAN, name, description, required), Field::Plain),
        (Some("string"), _) | (None, Some(_)) => {
            (option(STRING, name, description, required), Field::Plain)
        }
        _ => {
            let described = format!("{} (JSON)", clip(description));
            (option(STRING, name, &described, required), Field::Json)
        }
    };
    if option["type"] == INTEGER {
        let bound = |key: &str| shape[key].as_i64().map(|v| v.clamp(-MAX_SAFE, MAX_SAFE));
        if let Some(min) = bound("minimum") {
            option["min_value"] = json!(min);
        }
        if let Some(max) = bound("maximum") {
            option["max_value"] = json!(max);
        }
    }
    if let (Field::Plain, Some(choices)) = (&how, choices)
        && option["type"] == STRING
    {
        option["choices"] = Value::Array(choices);
    }
    (option, how)
}

/// The values a string field may take, as Discord's choices (none past 25, or for a free string).
fn choices(shape: &Value) -> Option<Vec<Value>> {
    let mut values: Vec<String> = Vec::new();
    let mut add = |v: &Value| {
        if let Some(text) = v.as_str() {
            values.push(text.to_string());
        }
    };
    shape["enum"]
        .as_array()
        .into_iter()
        .flatten()
        .for_each(&mut add);
    for alternative in shape["oneOf"].as_array().into_iter().flatten() {
        add(&alternative["const"]);
        alternative["enum"]
            .as_array()
            .into_iter()
            .flatten()
            .for_each(&mut add);
    }
    let fits = !values.is_empty()
        && values.len() <= MAX_OPTIONS
        && values
            .iter()
            .all(|v| (1..=100).contains(&v.chars().count()));
    fits.then(|| {
        values
            .iter()
            .map(|v| json!({ "name": v, "value": v }))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name, description and count within Discord's limits, and every command's whole text,
    /// for every rule set: none is left out.
    #[test]
    fn every_command_keeps_discords_limits() {
        fn check(value: &Value) {
            let name = value["name"].as_str().unwrap();
            assert!(valid_name(name), "{name}");
            let described = value["description"].as_str().unwrap().chars().count();
            assert!((1..=100).contains(&described), "{name}");
            let options = value["options"].as_array().map_or(&[][..], Vec::as_slice);
            assert!(options.len() <= MAX_OPTIONS, "{name}");
            assert!(
                value["choices"]
                    .as_array()
                    .is_none_or(|c| c.len() <= MAX_OPTIONS)
            );
            options.iter().for_each(check);
        }
        let commands = commands();
        for command in commands.as_array().unwrap() {
            check(command);
            let length = super::super::fit::text_length(command);
            assert!(
                length <= super::super::fit::MAX_COMMAND_TEXT,
                "{}: {length}",
                command["name"]
            );
        }
        assert_eq!(
            commands.as_array().unwrap().len(),
            7 + omen_rules::stateful::games().len()
        );
    }

    #[test]
    fn a_schemas_fields_become_typed_options_and_the_rest_json() {
        let schema = json!({
            "$defs": { "Mode": { "oneOf": [{ "const": "a" }, { "enum": ["b"] }] } },
            "oneOf": [{
                "properties": {
                    "action": { "const": "go" },
                    "count": { "type": "integer", "minimum": 0, "description": "How many." },
                    "mode": { "$ref": "#/$defs/Mode" },
                    "maybe": { "anyOf": [{ "$ref": "#/$defs/Mode" }, { "type": "null" }] },
                    "list": { "type": "array", "items": { "type": "integer" } }
                },
                "required": ["action", "count"]
            }]
        });
        let options = action_options(&schema, "go");
        let names: Vec<&str> = options
            .iter()
            .map(|(o, _)| o["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "character",
                "count",
                "list",
                "maybe",
                "mode",
                "visibility",
                "entropy",
                "commitment"
            ]
        );
        let count = &options[1].0;
        assert_eq!(
            (count["type"].as_u64(), count["min_value"].as_i64()),
            (Some(4), Some(0))
        );
        assert_eq!(options[2].1, Field::Json);
        assert_eq!(options[4].0["choices"][1]["value"], "b");
        assert_eq!(options[3].0["choices"].as_array().unwrap().len(), 2);
    }

    /// A rule set's field named as one of the options every rolling command adds would be read as
    /// that option: such an action takes its fields as JSON instead.
    #[test]
    fn a_field_named_like_a_shared_option_is_taken_as_json() {
        let schema = json!({ "oneOf": [{
            "properties": { "action": { "const": "go" }, "entropy": { "type": "integer" } },
            "required": ["action"]
        }] });
        let options = action_options(&schema, "go");
        let names: Vec<&str> = options
            .iter()
            .map(|(o, _)| o["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "character",
                JSON_OPTION,
                "visibility",
                "entropy",
                "commitment"
            ]
        );
        assert_eq!(options[1].1, Field::Json);
    }
}
