//! The game master's channel: the campaign names one (`/omen gm-channel`), and the dice of each
//! private or blind roll are posted there, as the game master may see the entry, by the bot
//! (Discord lets an interaction answer only in its own channel). The channel the roll was made in
//! gets the placeholder and the commitment alone, as before.

use serde_json::Value;

use super::deferred::ChannelPost;
use super::face::Face;
use super::interaction::{Interaction, message, reply, text};
use super::reads;
use super::render::{api_error, entry_line};
use super::seat::Seat;

/// The post of entry `sequence` (private or blind, just logged in `seat`'s campaign) to the game
/// master's channel: none when the campaign names none or the server has no bot token.
pub(crate) async fn post_for_game_master(
    face: &Face,
    seat: &Seat,
    sequence: u64,
) -> Option<ChannelPost> {
    let discord = face.app.inner.config.discord.as_ref()?;
    discord.bot_token.as_ref()?;
    let campaign = seat.campaign.clone();
    let named = face
        .app
        .inner
        .db
        .with(move |store| store.discord_gm_channel(&campaign))
        .await;
    let named = match named {
        Ok(named) => named?,
        Err(error) => {
            tracing::warn!("discord: the game master's channel was not read: {error:?}");
            return None;
        }
    };
    // As the game master whose invite named the channel may see it: every die.
    let shown = match reads::entry_as(face, &named.game_master, sequence).await {
        Ok(entry) => entry_line(&entry),
        Err(error) => api_error(&error),
    };
    let content = format!("For the game master, from <#{}>: {shown}", seat.channel_id);
    Some(ChannelPost {
        channel: named.channel,
        message: message(&content, false, &[]),
    })
}

/// `/omen gm-channel [channel]`: the game master of the channel's campaign names the channel
/// (none: names none). Answered ephemerally.
pub(crate) async fn name(face: &Face, interaction: &Interaction) -> Value {
    let seat = match super::seat::seat(face, interaction).await {
        Ok(seat) => seat,
        Err(refused) => return refused,
    };
    let (_, options) = interaction.options();
    let channel = text(options, "channel");
    let (member, named) = (seat.member.clone(), channel.clone());
    let done = face
        .app
        .inner
        .db
        .with(move |store| store.set_discord_gm_channel(&member, named.as_deref()))
        .await;
    if let Err(error) = done {
        return reply(&api_error(&error), true);
    }
    let campaign = &seat.campaign;
    let Some(channel) = channel else {
        return reply(
            &format!(
                "`{campaign}` names no game master's channel now: the dice of private and blind rolls go to their roller alone."
            ),
            true,
        );
    };
    let mut said = format!(
        "The dice of private and blind rolls in `{campaign}` now go to <#{channel}> too. Only you should read it: check its permissions in Discord."
    );
    let bot = face
        .app
        .inner
        .config
        .discord
        .as_ref()
        .is_some_and(|d| d.bot_token.is_some());
    if !bot {
        said.push_str(" This server has no bot token (`omen serve --discord-bot-token`), so nothing is posted there until it has one.");
    }
    reply(&said, true)
}
