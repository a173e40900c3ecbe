//! The commands of a bound channel: `/roll`, the reads (`/odds`, `/log`, `/verify`, `/fairness`),
//! `/reveal`, and one command per rule set ([`super::actions`]). Each finds its seat first, then
//! defers, and acts as the seat's member through the API's handlers.

use omen_store::Visibility;
use serde_json::Value;

use super::deferred::defer;
use super::delivery::{RollSpec, reveal, roll};
use super::face::Face;
use super::interaction::{Interaction, reply, text};
use super::seat::seat;
use super::{actions, reads};

pub(crate) async fn answer(face: &Face, interaction: Interaction) -> Value {
    let seat = match seat(face, &interaction).await {
        Ok(seat) => seat,
        Err(refused) => return refused,
    };
    let (_, options) = interaction.options();
    match interaction.command_name() {
        "roll" => {
            let spec = match RollSpec::from_options(options) {
                Ok(spec) => spec,
                Err(refused) => return reply(&refused, true),
            };
            let ephemeral = spec.visibility == Visibility::SelfOnly;
            let face2 = face.clone();
            defer(face, &interaction, ephemeral, async move {
                roll(&face2, &seat, spec).await
            })
        }
        "odds" => {
            let expression = text(options, "expression").unwrap_or_default();
            let face2 = face.clone();
            defer(face, &interaction, true, async move {
                reads::odds(&face2, &seat, expression).await
            })
        }
        "log" => {
            let last = options_number(options, "last").unwrap_or(10).clamp(1, 20);
            let face2 = face.clone();
            defer(face, &interaction, true, async move {
                reads::log(&face2, &seat, last).await
            })
        }
        "verify" => {
            let receipt = text(options, "receipt");
            let entry = options_number(options, "entry");
            let face2 = face.clone();
            defer(face, &interaction, false, async move {
                reads::verify(&face2, &seat, receipt, entry).await
            })
        }
        "fairness" => {
            let face2 = face.clone();
            defer(face, &interaction, true, async move {
                reads::fairness(&face2, &seat).await
            })
        }
        "reveal" => {
            let sequence = options_number(options, "entry").unwrap_or_default();
            reveal(face, &interaction, seat, sequence)
        }
        name => actions::answer(face, &interaction, seat, name),
    }
}

fn options_number(options: &[super::interaction::CommandOption], name: &str) -> Option<u64> {
    super::interaction::value(options, name).and_then(Value::as_u64)
}
