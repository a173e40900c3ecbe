//! Suggestions while `/roll`'s `saved` or `character` is typed: the names of the channel's
//! campaign that contain what was typed (in any case), those that start with it first, at most
//! Discord's 25. Only a seated member gets any: an unbound channel or an unlinked account gets
//! none, as it would get nothing else.

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
        ("roll", "character") => db
            .with(move |store| store.characters(&campaign))
            .await
            .map(|found| found.into_iter().map(|c| c.name).collect::<Vec<_>>()),
        _ => return none,
    };
    match names {
        Ok(names) => choices(&matching(names, &typed)),
        Err(_) => none,
    }
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
