//! Deferred answers: Discord is told "thinking…" at once, and the work runs in a task of its own
//! under the server's bounds (the request timeout, the work budget, the computation pool's share of
//! the Discord user), then edits the promised message and sends its follow-ups through the
//! interaction's webhook.

use std::future::Future;
use std::hash::{Hash, Hasher};
use std::net::{IpAddr, Ipv6Addr};

use serde_json::Value;

use super::face::Face;
use super::interaction::{Interaction, deferred, reply};
use super::multipart::Attachment;
use crate::client::{RequestScope, in_request};

/// What a deferred answer delivers: the promised message with its files (a chart), then
/// follow-ups (each ephemeral or not, as its flags say), then posts to other channels by the bot
/// (the game master's).
pub(crate) struct Delivery {
    pub original: Value,
    pub files: Vec<Attachment>,
    pub follow_ups: Vec<Value>,
    pub posts: Vec<ChannelPost>,
}

/// A message the bot posts in a channel other than the interaction's (the game master's).
pub(crate) struct ChannelPost {
    pub channel: String,
    pub message: Value,
}

impl Delivery {
    pub fn one(original: Value) -> Self {
        Delivery {
            original,
            files: Vec::new(),
            follow_ups: Vec::new(),
            posts: Vec::new(),
        }
    }
}

/// The computation pool shares its threads by client; Discord's requests all come from Discord's
/// addresses, so each Discord user counts as a client of their own: an address in the unique-local
/// range (`fd00::/8`) derived from the user's id, which no real client has.
fn client_of(user: &str) -> IpAddr {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    user.hash(&mut hasher);
    let high = (0xfdu128 << 120) | (u128::from(hasher.finish()) << 56);
    IpAddr::V6(Ipv6Addr::from(high))
}

/// Answers `interaction` with a deferral (ephemeral or not: Discord fixes it now), and runs `work`
/// for the message. Past the bound on deferred answers, an ephemeral "busy" now instead.
pub(crate) fn defer<F>(face: &Face, interaction: &Interaction, ephemeral: bool, work: F) -> Value
where
    F: Future<Output = Delivery> + Send + 'static,
{
    let Ok(permit) = face.inner.deferred.clone().try_acquire_owned() else {
        return reply(
            "The server is answering many commands at once: try again in a few seconds.",
            true,
        );
    };
    let timeout = face.app.inner.config.request_timeout;
    let scope = RequestScope {
        client: interaction.user_id().map(client_of),
        cancel: omen_core::Cancel::new().with_deadline(std::time::Instant::now() + timeout),
    };
    let (api, token) = (face.inner.api.clone(), interaction.token.clone());
    let bot = face
        .app
        .inner
        .config
        .discord
        .as_ref()
        .and_then(|d| d.bot_token.clone());
    tokio::spawn(async move {
        let _permit = permit;
        let delivery = match tokio::time::timeout(timeout, in_request(scope, work)).await {
            Ok(delivery) => delivery,
            Err(_) => Delivery::one(super::interaction::message(
                "This took longer than the server allows; nothing more will come of it.",
                ephemeral,
                &[],
            )),
        };
        if let Err(error) = api
            .edit_original(&token, &delivery.original, &delivery.files)
            .await
        {
            tracing::warn!("discord: the deferred answer was not delivered: {error}");
            return;
        }
        for message in &delivery.follow_ups {
            if let Err(error) = api.follow_up(&token, message).await {
                tracing::warn!("discord: a follow-up was not delivered: {error}");
            }
        }
        for post in delivery.posts.iter().filter(|_| bot.is_some()) {
            let bot = bot.as_ref().map(|b| b.expose()).unwrap_or_default();
            if let Err(error) = api.post_to_channel(bot, &post.channel, &post.message).await {
                tracing::warn!("discord: a post to a channel was not delivered: {error}");
            }
        }
    });
    deferred(ephemeral)
}
