//! What a roll or an action delivers to Discord once logged: the channel's message (as an observer
//! of the campaign may see it), the roller's own view, the buttons; and a reveal, posted with the
//! text its commitment is the hash of. Shared by the commands and the buttons above it.

use axum::Json;
use axum::extract::State;
use omen_store::Visibility;
use serde_json::{Value, json};

use super::deferred::{Delivery, defer};
use super::draw::{RollerDraw, hint};
use super::face::Face;
use super::gm_channel::post_for_game_master;
use super::interaction::{CommandOption, Interaction, button, message, reply, text};
use super::reads;
use super::render::{api_error, entry_line};
use super::seat::Seat;
use crate::auth::Caller;
use crate::campaigns::rolls::{CampaignRoll, SavedRollRequest, roll_in_campaign, roll_saved};
use crate::error::{ApiError, Body, PathParams};

/// `/reveal` and the Reveal button: the game master's, answered in the channel with the revealed
/// roll as the channel may now see it and the text its commitment is the hash of.
pub(crate) fn reveal(face: &Face, interaction: &Interaction, seat: Seat, sequence: u64) -> Value {
    if !seat.is_game_master() {
        return reply("Only the game master reveals a roll here.", true);
    }
    let face2 = face.clone();
    defer(face, interaction, false, async move {
        let revealed = crate::campaigns::reveal::reveal(
            State(face2.app.clone()),
            Caller(seat.member.clone()),
            PathParams((seat.campaign.clone(), sequence)),
        )
        .await;
        if let Err(error) = revealed {
            return Delivery::one(message(&api_error(&error), false, &[]));
        }
        Delivery::one(message(
            &revealed_text(&face2, &seat, sequence).await,
            false,
            &[],
        ))
    })
}

/// A revealed entry as the channel sees it, with its commitment's preimage to check by hand.
async fn revealed_text(face: &Face, seat: &Seat, sequence: u64) -> String {
    let entry = match reads::entry_as(face, &seat.channel(), sequence).await {
        Ok(entry) => entry,
        Err(error) => return api_error(&error),
    };
    let mut text = format!("Revealed: {}", entry_line(&entry));
    let parsed: Option<omen_store::LogEntry> = serde_json::from_value(entry.clone()).ok();
    if let Some(preimage) = parsed.as_ref().and_then(|e| e.commitment_preimage()) {
        let commitment = entry["commitment"].as_str().unwrap_or_default();
        text.push_str(&format!(
            "\nCommitment `{commitment}` is the SHA-256 of:\n```json\n{preimage}\n```"
        ));
    }
    text
}

/// What `/roll` (or Again) rolls.
#[derive(Clone, Debug)]
pub(crate) struct RollSpec {
    pub expression: Option<String>,
    pub saved: Option<String>,
    pub character: Option<String>,
    pub visibility: Visibility,
    /// The roller's entropy and the commitment they read; none from a button.
    pub draw: RollerDraw,
}

impl RollSpec {
    pub(crate) fn from_options(options: &[CommandOption]) -> Result<Self, String> {
        let visibility = match text(options, "visibility") {
            Some(text) => text.parse().map_err(|_| {
                format!("`{text}` is not a visibility: public, private, blind or self")
            })?,
            None => Visibility::Public,
        };
        let spec = RollSpec {
            expression: text(options, "expression"),
            saved: text(options, "saved"),
            character: text(options, "character"),
            visibility,
            draw: RollerDraw::from_options(options)?,
        };
        match (&spec.expression, &spec.saved) {
            (Some(_), None) | (None, Some(_)) => Ok(spec),
            _ => Err("give either an `expression` or a `saved` roll's name".to_string()),
        }
    }
}

/// Rolls `spec` as the seat's member, logged and signed in the campaign.
pub(crate) async fn roll(face: &Face, seat: &Seat, spec: RollSpec) -> Delivery {
    let (app, member, campaign) = (face.app.clone(), seat.member.clone(), seat.campaign.clone());
    let logged = match (&spec.expression, &spec.saved) {
        (Some(expression), _) => {
            let request = CampaignRoll {
                expression: expression.clone(),
                params: Default::default(),
                character: spec.character.clone(),
                visibility: Some(spec.visibility),
                entropy: spec.draw.entropy.clone(),
                commitment: spec.draw.commitment.clone(),
            };
            roll_in_campaign(
                State(app),
                Caller(member),
                PathParams(campaign),
                Body(request),
            )
            .await
        }
        (None, saved) => {
            let request = SavedRollRequest {
                character: spec.character.clone(),
                visibility: Some(spec.visibility),
                entropy: spec.draw.entropy.clone(),
                commitment: spec.draw.commitment.clone(),
                ..SavedRollRequest::default()
            };
            let name = saved.clone().unwrap_or_default();
            roll_saved(
                State(app),
                Caller(member),
                PathParams((campaign, name)),
                Body(request),
            )
            .await
        }
    };
    match logged {
        Ok(Json(logged)) => {
            let entry = logged.entry.clone();
            deliver_entry(face, seat, &entry, spec.visibility, true).await
        }
        Err(error) => failed(&error, spec.visibility),
    }
}

/// A refusal in words, to whoever would have seen the roll; with a Discord hint where the API's
/// names a route.
pub(crate) fn failed(error: &ApiError, visibility: Visibility) -> Delivery {
    let mut text = api_error(error);
    if let Some(hint) = error.errors.first().and_then(|p| hint(&p.kind)) {
        text.push_str(&format!("\n{hint}"));
    }
    Delivery::one(message(&text, visibility == Visibility::SelfOnly, &[]))
}

/// The messages of a logged entry: a public one in the channel (as the channel may see it); a
/// `self` one to its roller alone; a private or blind one as a placeholder with its commitment in
/// the channel, what the roller may see of it to them alone, and its dice to the game master's
/// channel when the campaign names one.
pub(crate) async fn deliver_entry(
    face: &Face,
    seat: &Seat,
    mine: &Value,
    visibility: Visibility,
    again: bool,
) -> Delivery {
    let sequence = mine["sequence"].as_u64().unwrap_or_default();
    let hash = mine["hash"].as_str().unwrap_or_default();
    let id = |what: &str| format!("{what}:{sequence}:{}", &hash[..hash.len().min(16)]);
    if visibility == Visibility::SelfOnly {
        let buttons = if again {
            vec![button("Again", &id("again"), true)]
        } else {
            vec![]
        };
        return Delivery::one(message(&entry_line(mine), true, &buttons));
    }
    let shown = match reads::entry_as(face, &seat.channel(), sequence).await {
        Ok(entry) => entry,
        Err(error) => return failed(&error, visibility),
    };
    if visibility == Visibility::Public {
        let mut buttons = vec![];
        if again {
            buttons.push(button("Again", &id("again"), true));
            buttons.push(button("Odds", &id("odds"), false));
        }
        return Delivery::one(message(&entry_line(&shown), false, &buttons));
    }
    let buttons = [
        button("Show me", &id("show"), false),
        button("Reveal", &id("reveal"), false),
    ];
    let placeholder = message(&entry_line(&shown), false, &buttons);
    let to_roller = message(
        &format!("Only you see this: {}", entry_line(mine)),
        true,
        &[],
    );
    let posts = post_for_game_master(face, seat, sequence).await;
    Delivery {
        follow_ups: vec![to_roller],
        posts: posts.into_iter().collect(),
        ..Delivery::one(placeholder)
    }
}

/// An ephemeral "nothing to do" for a button whose entry is not what it was.
pub(crate) fn stale_button() -> Value {
    json!(reply(
        "This button's roll is not in this channel's campaign any more.",
        true
    ))
}
