//! The buttons under a roll: Again (a new logged roll of the same expression, never a silent
//! reroll), Odds, Show me (the entry as the clicker may see it) and Reveal (the game master's).
//! Their state is in `custom_id`, `WHAT:SEQUENCE:HASH16` (at most 48 characters, under Discord's
//! 100): the entry's number and the start of its hash, so a button of a channel since bound to
//! another campaign finds no entry rather than another one.

use omen_store::Visibility;
use serde_json::Value;

use super::deferred::defer;
use super::delivery::{RollSpec, reveal, roll, stale_button};
use super::draw::RollerDraw;
use super::face::Face;
use super::interaction::{Interaction, reply};
use super::reads;
use super::render::{api_error, entry_line};
use super::seat::seat;

fn parse(custom_id: &str) -> Option<(&str, u64, &str)> {
    let mut parts = custom_id.splitn(3, ':');
    let what = parts.next()?;
    let sequence = parts.next()?.parse().ok()?;
    let hash = parts.next()?;
    (hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some((what, sequence, hash))
}

pub(crate) async fn answer(face: &Face, interaction: Interaction) -> Value {
    let Some((what, sequence, hash)) = parse(interaction.custom_id()) else {
        return reply("This button is not one of Omen's.", true);
    };
    let seat = match seat(face, &interaction).await {
        Ok(seat) => seat,
        Err(refused) => return refused,
    };
    // The entry as the clicker may see it: its hash is shown to every member.
    let entry = match reads::entry_as(face, &seat.member, sequence).await {
        Ok(entry) if entry["hash"].as_str().is_some_and(|h| h.starts_with(hash)) => entry,
        Ok(_) => return stale_button(),
        Err(error) => return reply(&api_error(&error), true),
    };
    match what {
        "show" => reply(&entry_line(&entry), true),
        "reveal" => reveal(face, &interaction, seat, sequence),
        "again" | "odds" => {
            let inputs = &entry["inputs"];
            let Some(expression) = inputs["expression"].as_str().map(str::to_string) else {
                return reply("You may not see what this roll rolled.", true);
            };
            let face2 = face.clone();
            if what == "odds" {
                return defer(face, &interaction, true, async move {
                    reads::odds(&face2, &seat, expression).await
                });
            }
            let visibility: Visibility =
                serde_json::from_value(entry["visibility"].clone()).unwrap_or_default();
            let spec = RollSpec {
                saved: inputs["saved_roll"].as_str().map(str::to_string),
                expression: None,
                character: entry["character"].as_str().map(str::to_string),
                visibility,
                // A click carries nothing typed: the server's entropy, and the entry says so.
                draw: RollerDraw::default(),
            };
            // A saved roll is rolled again by its name (its defaults may have changed since, as
            // they would for `/roll saved:`); an expression by its logged text.
            let spec = match spec.saved {
                Some(_) => spec,
                None => RollSpec {
                    expression: Some(expression),
                    ..spec
                },
            };
            defer(
                face,
                &interaction,
                visibility == Visibility::SelfOnly,
                async move { roll(&face2, &seat, spec).await },
            )
        }
        _ => reply("This button is not one of Omen's.", true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_custom_id_names_an_entry_by_number_and_hash() {
        assert_eq!(
            parse("again:12:0123456789abcdef"),
            Some(("again", 12, "0123456789abcdef"))
        );
        assert_eq!(parse("again:12:0123"), None);
        assert_eq!(parse("again:x:0123456789abcdef"), None);
    }
}
