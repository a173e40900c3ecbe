//! One command per rule set: `/GAME ACTION character:… [fields…] [visibility:…]`, its options read
//! back into the action's JSON by the same derivation that made them ([`super::definitions`]), then
//! applied as the seat's member through the API's action handler: the rules' checks, the log, the
//! signatures and the redaction are the API's.

use axum::Json;
use axum::extract::State;
use omen_store::Visibility;
use serde_json::{Map, Value};

use super::deferred::defer;
use super::definitions::{Field, JSON_OPTION, RESERVED, action_options};
use super::delivery::{deliver_entry, failed};
use super::draw::RollerDraw;
use super::face::Face;
use super::interaction::{CommandOption, Interaction, reply, text};
use super::seat::Seat;
use crate::auth::Caller;
use crate::campaigns::actions::{ActionRequest, act};
use crate::error::{Body, PathParams};

pub(crate) fn answer(face: &Face, interaction: &Interaction, seat: Seat, name: &str) -> Value {
    let Some(game) = omen_rules::stateful::game(name) else {
        return reply(&format!("Omen has no command `/{name}`."), true);
    };
    let (Some(action), options) = interaction.options() else {
        return reply(
            &format!("`/{name}` takes one of the rule set's actions."),
            true,
        );
    };
    let (character, visibility, action) = match read(game, action, options) {
        Ok(read) => read,
        Err(refused) => return reply(&refused, true),
    };
    let draw = match RollerDraw::from_options(options) {
        Ok(draw) => draw,
        Err(refused) => return reply(&refused, true),
    };
    let face2 = face.clone();
    defer(
        face,
        interaction,
        visibility == Visibility::SelfOnly,
        async move {
            let request = ActionRequest {
                action,
                odds: false,
                dice: None,
                visibility: Some(visibility),
                entropy: draw.entropy,
                commitment: draw.commitment,
            };
            let applied = act(
                State(face2.app.clone()),
                Caller(seat.member.clone()),
                PathParams((seat.campaign.clone(), character)),
                Body(request),
            )
            .await;
            match applied {
                Ok(Json(answer)) => {
                    deliver_entry(&face2, &seat, &answer.entry, visibility, false).await
                }
                Err(error) => failed(&error, visibility),
            }
        },
    )
}

/// The character, the visibility and the action's JSON from a subcommand's options.
fn read(
    game: &dyn omen_rules::stateful::Game,
    action: &str,
    options: &[CommandOption],
) -> Result<(String, Visibility, Value), String> {
    if !game.actions().iter().any(|a| a.name == action) {
        return Err(format!("`{}` has no action `{action}`", game.name()));
    }
    let character = text(options, "character").ok_or("name the `character` who acts")?;
    let visibility = match text(options, "visibility") {
        Some(v) => v
            .parse()
            .map_err(|_| format!("`{v}` is not a visibility: public, private, blind or self"))?,
        None => Visibility::Public,
    };
    let mut fields = Map::new();
    let schema = game.action_schema();
    for (option, how) in action_options(&schema, action) {
        let name = option["name"].as_str().unwrap_or_default();
        if RESERVED.contains(&name) {
            continue;
        }
        let Some(value) = options
            .iter()
            .find(|o| o.name == name)
            .and_then(|o| o.value.clone())
        else {
            continue;
        };
        match (how, name) {
            (Field::Json, JSON_OPTION) => {
                let given: Map<String, Value> = json_text(name, &value)?;
                fields.extend(given);
            }
            (Field::Json, _) => {
                fields.insert(name.to_string(), json_text(name, &value)?);
            }
            (Field::Plain, _) => {
                fields.insert(name.to_string(), value);
            }
        }
    }
    fields.insert("action".to_string(), Value::String(action.to_string()));
    Ok((character, visibility, Value::Object(fields)))
}

fn json_text<T: serde::de::DeserializeOwned>(name: &str, value: &Value) -> Result<T, String> {
    let text = value.as_str().unwrap_or_default();
    serde_json::from_str(text).map_err(|e| format!("`{name}` is not the JSON it needs: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn given(name: &str, value: Value) -> CommandOption {
        CommandOption {
            name: name.to_string(),
            kind: 3,
            value: Some(value),
            options: Vec::new(),
            focused: false,
        }
    }

    #[test]
    fn a_luck_roll_is_read_back_into_the_actions_json() {
        let game = omen_rules::stateful::game("luck").unwrap();
        let options = [
            given("character", json!("Ayla")),
            given("event_modifier", json!(-5)),
            given("visibility", json!("blind")),
        ];
        let (character, visibility, action) = read(game, "roll", &options).unwrap();
        assert_eq!(character, "Ayla");
        assert_eq!(visibility, Visibility::Blind);
        assert_eq!(action, json!({ "action": "roll", "event_modifier": -5 }));
        assert!(read(game, "fly", &options).is_err());
    }

    /// A list (t13's bought dice) has no Discord option: it is typed as JSON, read back as JSON,
    /// and a malformed one is refused in words before anything is rolled.
    #[test]
    fn a_field_with_no_option_is_read_as_json() {
        let game = omen_rules::stateful::game("t13").unwrap();
        let bought = r#"[{"kind": "skill", "sides": 6}]"#;
        let options = [
            given("character", json!("Vex")),
            given("difficulty", json!(8)),
            given("bought", json!(bought)),
        ];
        let (_, _, action) = read(game, "test", &options).unwrap();
        assert_eq!(
            action,
            json!({ "action": "test", "difficulty": 8, "bought": [{ "kind": "skill", "sides": 6 }] })
        );
        let options = [
            given("character", json!("Vex")),
            given("bought", json!("[{")),
        ];
        let refused = read(game, "test", &options).unwrap_err();
        assert!(
            refused.starts_with("`bought` is not the JSON it needs"),
            "{refused}"
        );
    }
}
