//! Suggestions while `/roll`'s `saved` or `character`, or a rule set's command's `character`, is
//! typed: the names of the channel's campaign that contain what was typed (in any case), those that
//! start with it first, at most Discord's 25. Only a seated member gets any: an unbound channel or
//! an unlinked account gets none, as it would get nothing else. A character is suggested only to
//! whom may act for it (the game master, or the player whose invite names it: the API refuses the
//! rest), and to a rule set's command only if it plays that rule set.

use omen_store::{Character, Member, Role};
use serde_json::Value;

use super::face::Face;
use super::interaction::{Interaction, MAX_CHOICES, choices};
use super::seat::seat;

pub(crate) async fn answer(face: &Face, interaction: Interaction) -> Value {
    let none = choices(&[]);
    let Ok(seat) = seat(face, &interaction).await else {
        return none;
    };
    let (_, options) = interaction.options();
    let Some(focused) = options.iter().find(|o| o.focused) else {
        return none;
    };
    let typed = focused
        .value
        .as_ref()
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_lowercase();
    let campaign = seat.campaign.clone();
    let db = &face.app.inner.db;
    let names = match (interaction.command_name(), focused.name.as_str()) {
        ("roll", "saved") => db
            .with(move |store| store.saved_rolls(&campaign))
            .await
            .map(|rolls| rolls.into_iter().map(|r| r.name).collect::<Vec<_>>()),
        (command, "character") => {
            let game = match command {
                "roll" => None,
                game if omen_rules::stateful::game(game).is_some() => Some(game.to_string()),
                _ => return none,
            };
            let member = seat.member.clone();
            db.with(move |store| store.characters(&campaign))
                .await
                .map(|found| actable(found, &member, game.as_deref()))
        }
        _ => return none,
    };
    match names {
        Ok(names) => choices(&matching(names, &typed)),
        Err(_) => none,
    }
}

/// The names of the characters `member` may act for, of rule set `game` when one is given.
fn actable(characters: Vec<Character>, member: &Member, game: Option<&str>) -> Vec<String> {
    characters
        .into_iter()
        .filter(|c| game.is_none_or(|game| c.rule_set == game))
        .filter(|c| match member.role {
            Role::GameMaster => true,
            Role::Player => member.characters.contains(&c.name),
            _ => false,
        })
        .map(|c| c.name)
        .collect()
}

/// The names containing `typed` (lower case), those starting with it first, each group in order.
fn matching(names: Vec<String>, typed: &str) -> Vec<String> {
    let (mut starting, containing): (Vec<String>, Vec<String>) = names
        .into_iter()
        .filter(|name| name.to_lowercase().contains(typed))
        .partition(|name| name.to_lowercase().starts_with(typed));
    starting.extend(containing);
    starting.truncate(MAX_CHOICES);
    starting
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_starting_with_the_typed_text_come_first() {
        let names = ["Cato", "Ayla", "Macavity", "catherine"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            matching(names.clone(), "ca"),
            ["Cato", "catherine", "Macavity"]
        );
        assert_eq!(matching(names.clone(), ""), names);
        let many: Vec<String> = (0..40).map(|n| format!("n{n}")).collect();
        assert_eq!(matching(many, "n").len(), 25);
    }
}
