//! Each game publishes the JSON Schemas of its sheet, state and actions, derived from its Rust types,
//! and its sheet's schema carries examples that make valid characters.

use omen_rules::seed_games;
use omen_rules::stateful::game;

fn games() -> Vec<&'static dyn omen_rules::stateful::Game> {
    seed_games()
        .iter()
        .filter_map(|rules| game(rules.name()))
        .collect()
}

#[test]
fn every_game_keeping_characters_has_the_three_schemas() {
    let names: Vec<&str> = games().iter().map(|g| g.name()).collect();
    assert_eq!(names, ["ritual", "spelldice", "luck", "hprpg", "t13"]);
    for g in games() {
        let schemas = g.schemas();
        for part in ["sheet", "state", "action"] {
            let schema = &schemas[part];
            assert_eq!(
                schema["$schema"],
                "https://json-schema.org/draft/2020-12/schema",
                "{} {part}",
                g.name()
            );
        }
    }
}

/// Every action the game lists is one the action schema names in its `action` tag.
#[test]
fn the_action_schema_names_every_action() {
    for g in games() {
        let schema = g.schemas()["action"].to_string();
        for action in g.actions() {
            assert!(
                schema.contains(&format!("\"const\":\"{}\"", action.name)),
                "{}: {} not in {schema}",
                g.name(),
                action.name
            );
        }
    }
}

#[test]
fn every_example_sheet_makes_a_valid_character() {
    for g in games() {
        let examples = g.schemas()["sheet"]["examples"].clone();
        let examples = examples.as_array().expect("examples").clone();
        assert!(!examples.is_empty(), "{}: no example sheet", g.name());
        for example in examples {
            let state = g
                .new_character(&example)
                .unwrap_or_else(|e| panic!("{}: {example}: {e}", g.name()));
            // The state it makes loads back as the current version.
            assert_eq!(g.load(g.state_version(), &state).unwrap(), state);
            assert!(state.is_object(), "{}: {state}", g.name());
        }
    }
}

#[test]
fn an_example_missing_a_required_field_is_refused() {
    let spelldice = game("spelldice").unwrap();
    assert!(spelldice.new_character(&serde_json::json!({})).is_err());
    let required = &spelldice.schemas()["sheet"]["required"];
    assert_eq!(required, &serde_json::json!(["level"]));
}
