//! `/omen bind` and `/omen link`: the game master binds a channel to their campaign, a player links
//! their Discord account to their invite (`/omen unbind` and `/omen gm-channel` act as the
//! channel's seated game master, see `gm_channel.rs`). Each takes the invite's token as an option and is answered
//! ephemerally, so the token is seen by its holder and Discord only, never in the channel; the
//! answer never repeats it. Quick database calls, answered at once.

use serde_json::Value;

use super::face::Face;
use super::interaction::{Interaction, reply, text};
use super::render::api_error;
use crate::auth::{Need, authorise};

pub(crate) async fn answer(face: &Face, interaction: Interaction) -> Value {
    let (sub, options) = interaction.options();
    let token = text(options, "token").unwrap_or_default();
    let (Some(channel), Some(user)) = (
        interaction.channel_id.clone(),
        interaction.user_id().map(str::to_string),
    ) else {
        return reply("Omen answers in a server's channels only.", true);
    };
    let bind = match sub {
        Some("bind") => true,
        Some("link") => false,
        Some("unbind") => return unbind(face, &interaction).await,
        Some("gm-channel") => return super::gm_channel::name(face, &interaction).await,
        _ => {
            return reply(
                "`/omen` takes `bind`, `link`, `unbind` or `gm-channel`.",
                true,
            );
        }
    };
    // Tokens are long and random; one longer than any invite's is refused without a look-up.
    if token.len() > 256 {
        return reply(not_valid(), true);
    }
    let guild = interaction.guild_id.clone();
    let db = &face.app.inner.db;
    let member = match db.with(move |store| store.authenticate(&token)).await {
        Ok(Some(member)) => member,
        Ok(None) => return reply(not_valid(), true),
        Err(error) => return reply(&api_error(&error), true),
    };
    let campaign = member.campaign.clone();
    if bind && let Err(error) = authorise(&member, &campaign, Need::GameMaster) {
        return reply(&api_error(&error), true);
    }
    let done = db
        .with(move |store| match bind {
            true => store.bind_discord_channel(&member, guild.as_deref(), &channel, &user),
            false => store.link_discord_user(&member, &user),
        })
        .await;
    match (done, bind) {
        (Err(error), _) => reply(&api_error(&error), true),
        (Ok(()), true) => reply(
            &format!(
                "This channel now plays `{campaign}`, and your Discord account acts as its game master. Players link their accounts with `/omen link` and their invite's token."
            ),
            true,
        ),
        (Ok(()), false) => reply(
            &format!(
                "Your Discord account is linked to your invite of `{campaign}`: your rolls here are logged and signed as that member's."
            ),
            true,
        ),
    }
}

/// `/omen unbind`: the game master of the channel's campaign, as their linked account.
async fn unbind(face: &Face, interaction: &Interaction) -> Value {
    let seat = match super::seat::seat(face, interaction).await {
        Ok(seat) => seat,
        Err(refused) => return refused,
    };
    let channel = interaction.channel_id.clone().unwrap_or_default();
    let member = seat.member.clone();
    let done = face
        .app
        .inner
        .db
        .with(move |store| store.unbind_discord_channel(&member, &channel))
        .await;
    match done {
        Ok(_) => reply(
            &format!("This channel no longer plays `{}`.", seat.campaign),
            true,
        ),
        Err(error) => reply(&api_error(&error), true),
    }
}

fn not_valid() -> &'static str {
    "That token is not valid: it is unknown or revoked. Ask the game master for a new invite."
}
