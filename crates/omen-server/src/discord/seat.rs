//! Who a Discord user is in a channel: the one step every campaign command takes before anything
//! else, as the API's routes take [`crate::auth::Caller`]. A channel no game master bound, or an
//! account linked to no invite of the channel's campaign, gets an ephemeral answer saying what to
//! do, and nothing is read.

use omen_store::{Member, Role};
use serde_json::Value;

use super::face::Face;
use super::interaction::{Interaction, reply};
use super::render::api_error;

/// The campaign of the channel and the member acting in it.
#[derive(Clone, Debug)]
pub(crate) struct Seat {
    pub campaign: String,
    pub member: Member,
    /// The Discord channel the interaction came from.
    pub channel_id: String,
}

impl Seat {
    /// The channel as an audience: whatever is posted in it is what an observer of the campaign may
    /// see (no invite has id 0, so no roll is "their own").
    pub fn channel(&self) -> Member {
        Member {
            campaign: self.campaign.clone(),
            role: Role::Observer,
            characters: Vec::new(),
            invite_id: 0,
        }
    }

    pub fn is_game_master(&self) -> bool {
        self.member.role == Role::GameMaster
    }
}

/// The seat of `interaction`'s user in its channel, or the ephemeral answer that refuses them.
pub(crate) async fn seat(face: &Face, interaction: &Interaction) -> Result<Seat, Value> {
    let (Some(channel), Some(user)) = (
        interaction.channel_id.clone(),
        interaction.user_id().map(str::to_string),
    ) else {
        return Err(reply("Omen answers in a server's channels only.", true));
    };
    let found = face
        .app
        .inner
        .db
        .with({
            let channel = channel.clone();
            move |store| store.discord_seat(&channel, &user)
        })
        .await
        .map_err(|e| reply(&api_error(&e), true))?;
    let Some(campaign) = found.campaign else {
        return Err(reply(
            "This channel is bound to no campaign. The game master binds it with `/omen bind` and their token.",
            true,
        ));
    };
    let Some(member) = found.member else {
        return Err(reply(
            &format!(
                "Your Discord account is linked to no invite of `{campaign}`. Ask the game master for an invite and run `/omen link` with its token (only you see it)."
            ),
            true,
        ));
    };
    Ok(Seat {
        campaign,
        member,
        channel_id: channel,
    })
}
