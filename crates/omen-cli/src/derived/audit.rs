//! Every field of every game's actions and analyses is a flag with help, and a value given to it
//! reaches the JSON the rule set reads: computed from the schemas, so a field added to a rule set is
//! checked without a line here.

use serde_json::Value;

use super::command::{self, ANALYSIS_FLAGS, HOLDER_FLAGS, flags_of, placeholder};
use super::schema::{self, Field, Kind};

/// The command line `omen GAME COMMAND` with every required field, and `field` too.
fn words(
    game: &str,
    name: &str,
    fields: &[Field],
    field: &Field,
    reserved: &[&str],
) -> Vec<String> {
    let mut words = vec!["omen".to_string(), game.to_string(), name.to_string()];
    for other in fields.iter().filter(|f| f.required && f.name != field.name) {
        words.extend(flags_of(other, &placeholder(&other.kind), reserved));
    }
    let value = match &field.kind {
        // One field of a nested object is enough to send the object.
        Kind::Nested(children) => {
            let child = children.first().expect("a nested object has fields");
            serde_json::json!({ child.name.clone(): placeholder(&child.kind) })
        }
        kind => placeholder(kind),
    };
    words.extend(flags_of(field, &value, reserved));
    // The flags are shell words (a JSON value is quoted for the examples); argv takes them bare.
    words.into_iter().map(|word| unquote(&word)).collect()
}

/// A single-quoted shell word as the shell passes it on.
fn unquote(word: &str) -> String {
    match word.strip_prefix('\'').and_then(|w| w.strip_suffix('\'')) {
        Some(inner) => inner.replace("'\\''", "'"),
        None => word.to_string(),
    }
}

/// The problems of one subcommand: a field without help, or one whose value does not arrive.
fn check(game: &str, name: &str, fields: &[Field], reserved: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    let full = crate::args::full_command();
    let Some(sub) = full
        .find_subcommand(game)
        .and_then(|g| g.find_subcommand(name))
    else {
        return vec![format!("omen {game} {name}: no such subcommand")];
    };
    for field in fields {
        let ids: Vec<String> = match &field.kind {
            Kind::Nested(children) => children
                .iter()
                .map(|c| command::nested_id(field, c))
                .collect(),
            _ => vec![field.name.clone()],
        };
        for id in ids {
            let help = sub
                .get_arguments()
                .find(|a| a.get_id().as_str() == id)
                .and_then(|a| a.get_help().map(ToString::to_string));
            if help.is_none_or(|h| h.trim().is_empty() || h.trim().starts_with('[')) {
                problems.push(format!("omen {game} {name}: `{id}` has no help"));
            }
        }
        let words = words(game, name, fields, field, reserved);
        let given = crate::args::full_command()
            .try_get_matches_from(&words)
            .map_err(|e| e.to_string())
            .and_then(|m| {
                let (_, g) = m.subcommand().ok_or("no game")?;
                let (_, s) = g.subcommand().ok_or("no subcommand")?;
                super::values::object(s, fields)
            });
        match given {
            Ok(object) if object.contains_key(&field.name) => {}
            Ok(object) => problems.push(format!("{words:?}: no `{}` in {object:?}", field.name)),
            Err(error) => problems.push(format!("{words:?}: {error}")),
        }
    }
    problems
}

#[test]
fn every_field_of_every_action_and_analysis_is_a_flag_with_help_that_reaches_the_rule_set() {
    let mut problems = Vec::new();
    let mut fields = 0;
    for game in omen_rules::stateful::games() {
        let root = game.schemas()["action"].clone();
        for action in schema::actions(&root) {
            fields += action.fields.len();
            problems.extend(check(
                game.name(),
                &action.command,
                &action.fields,
                HOLDER_FLAGS,
            ));
        }
    }
    for rules in omen_rules::registry() {
        for analysis in rules.analyses() {
            let root: Value = (analysis.inputs)();
            let inputs = schema::object_fields(&root, &root, 0).unwrap_or_default();
            fields += inputs.len();
            problems.extend(check(rules.name(), analysis.name, &inputs, ANALYSIS_FLAGS));
        }
    }
    // The seeds' 37 actions alone have well over a hundred fields: the walk did not miss them.
    assert!(fields > 100, "only {fields} fields found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_flags_users_know_are_the_rule_sets_hints() {
    // Historical names, now hints beside the fields: each still parses to the field.
    for (words, field, value) in [
        (
            &["hprpg", "check", "--dv", "8"][..],
            "difficulty",
            serde_json::json!(8),
        ),
        (
            &["hprpg", "check", "--dv", "8", "--feat", "AMBUSH"],
            "feats",
            serde_json::json!(["AMBUSH"]),
        ),
        (
            &["ritual", "end-session", "--decline"],
            "choice",
            serde_json::json!("decline"),
        ),
        (
            &[
                "luck",
                "add-modifier",
                "--source",
                "x",
                "--value",
                "1",
                "--next-roll",
            ],
            "duration",
            serde_json::json!("next-roll"),
        ),
        (
            &["t13", "test", "--buy", "skill:6"],
            "bought",
            serde_json::json!([{"kind": "skill", "sides": 6}]),
        ),
        (
            &["t13", "spend-levels", "--effect", "gain-sway:2"],
            "effects",
            serde_json::json!([{"effect": "gain-sway", "amount": 2}]),
        ),
        (
            &[
                "ritual",
                "perform",
                "--ritual",
                "Ward",
                "--threshold",
                "9",
                "--assistant",
                "2",
                "--assistant",
                "1",
            ],
            "assistants",
            serde_json::json!([2, 1]),
        ),
        (
            &["spelldice", "cast", "--armour", "1"],
            "penalties",
            serde_json::json!({"armour": 1}),
        ),
    ] {
        let mut all = vec!["omen"];
        all.extend(words);
        let matches = crate::args::full_command()
            .try_get_matches_from(&all)
            .expect("parses");
        let (game, g) = matches.subcommand().unwrap();
        let (name, s) = g.subcommand().unwrap();
        let root = omen_rules::stateful::game(game).unwrap().schemas()["action"].clone();
        let action = schema::actions(&root)
            .into_iter()
            .find(|a| a.command == name)
            .unwrap();
        let object = super::values::object(s, &action.fields).unwrap();
        assert_eq!(object.get(field), Some(&value), "{all:?}");
    }
}

#[test]
fn the_action_schema_alone_is_the_one_among_all_the_schemas() {
    for game in omen_rules::stateful::games() {
        assert_eq!(
            game.action_schema(),
            game.schemas()["action"],
            "{}",
            game.name()
        );
    }
}
