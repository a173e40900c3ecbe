//! The Discord face: `POST /discord/interactions`, Discord's "Interactions Endpoint URL" (HTTP
//! interactions, no gateway connection). On when [`DiscordConfig`] is in the server's
//! [`crate::Config`].
//!
//! Every interaction passes the gate (`gate.rs`) first (Discord's Ed25519 signature over the
//! timestamp and the raw body, a recent timestamp, an id not seen before: 401 otherwise), then the
//! rates of its Discord user and server. A command then finds its seat (`seat.rs`): the campaign the
//! channel is bound to and the member the user's Discord account is linked to, and acts as that
//! member through the API's own handlers, so the roles, the log, the signatures and the redaction
//! are the API's. What goes to the channel is rendered from what an observer of the campaign may
//! see; what goes to one person, ephemerally, from what that member may see.
//!
//! Anything that may take a while is deferred: Discord gets "thinking…" at once and the answer
//! edits it through the interaction's webhook ([`webhook::DiscordApi`]), under the server's
//! request timeout and work budget, with at most [`DiscordConfig::max_deferred`] at once.

mod actions;
mod autocomplete;
mod buttons;
mod chart;
mod deferred;
pub mod definitions;
mod delivery;
mod draw;
mod face;
mod fit;
mod gate;
mod gm_channel;
mod interaction;
pub mod multipart;
mod play;
mod reads;
mod render;
mod seat;
mod settings;
mod setup;
pub mod webhook;

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{FromRequest, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::AppState;
use crate::error::{ApiError, Problem};

pub use settings::{DEFAULT_API_BASE, DiscordConfig};

use face::{Face, FaceInner};
use gate::{Gate, Refused};
use interaction::Interaction;

/// The Discord route, when the face is configured; none otherwise (the path is then 404 like any
/// unknown one).
pub(crate) fn routes(app: &AppState) -> Router<AppState> {
    let Some(config) = app.inner.config.discord.clone() else {
        return Router::new();
    };
    let face = Face {
        app: app.clone(),
        inner: Arc::new(FaceInner {
            gate: Gate::new(&config),
            api: webhook::DiscordApi::new(&config.api_base, &config.application_id),
            deferred: Arc::new(Semaphore::new(config.max_deferred.max(1))),
        }),
    };
    Router::new()
        .route("/discord/interactions", axum::routing::post(interactions))
        .with_state(face)
}

/// An interaction that passed the gate.
pub(crate) struct Signed(pub Interaction);

fn refusal(refused: Refused) -> ApiError {
    let (status, message) = match refused {
        Refused::Signature => (
            StatusCode::UNAUTHORIZED,
            "the interaction's signature is not the application's",
        ),
        Refused::Stale => (
            StatusCode::UNAUTHORIZED,
            "the interaction's timestamp is outside the accepted window",
        ),
        Refused::Replayed => (
            StatusCode::UNAUTHORIZED,
            "this interaction was answered already",
        ),
        Refused::Full => (
            StatusCode::SERVICE_UNAVAILABLE,
            "too many interactions to remember; try again shortly",
        ),
    };
    let mut error = ApiError::new(status, Problem::new("discord-signature", message));
    if status == StatusCode::SERVICE_UNAVAILABLE {
        error.retry_after = Some(10);
        error.errors[0].kind = "busy".to_string();
    }
    error
}

impl FromRequest<Face> for Signed {
    type Rejection = ApiError;

    async fn from_request(request: Request, face: &Face) -> Result<Self, ApiError> {
        let (parts, body) = request.into_parts();
        let limit = face.app.inner.config.max_body;
        let body = axum::body::to_bytes(body, limit).await.map_err(|_| {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                Problem::new(
                    "too-large",
                    "the interaction is larger than the server accepts",
                ),
            )
        })?;
        let header = |name: &str| parts.headers.get(name).map(|v| v.as_bytes());
        face.inner
            .gate
            .check(
                header("x-signature-ed25519"),
                header("x-signature-timestamp"),
                &body,
            )
            .map_err(refusal)?;
        let interaction: Interaction = serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("not an interaction: {e}")))?;
        face.inner
            .gate
            .first_time(&interaction.id)
            .map_err(refusal)?;
        Ok(Signed(interaction))
    }
}

async fn interactions(State(face): State<Face>, Signed(interaction): Signed) -> Response {
    let answer: Value = match interaction.kind {
        interaction::PING => interaction::pong(),
        interaction::APPLICATION_COMMAND | interaction::MESSAGE_COMPONENT => {
            match rate(&face, &interaction) {
                Err(refused) => refused,
                Ok(()) if interaction.kind == interaction::MESSAGE_COMPONENT => {
                    buttons::answer(&face, interaction).await
                }
                Ok(()) if interaction.command_name() == definitions::SETUP => {
                    setup::answer(&face, interaction).await
                }
                Ok(()) => play::answer(&face, interaction).await,
            }
        }
        // Past a rate, no suggestions: an autocomplete answer cannot carry a message.
        interaction::AUTOCOMPLETE => match rate(&face, &interaction) {
            Err(_) => interaction::choices(&[]),
            Ok(()) => autocomplete::answer(&face, interaction).await,
        },
        // Modals are not offered, so never sent.
        _ => interaction::reply("Omen does not answer this kind of interaction.", true),
    };
    Json(answer).into_response()
}

/// The rates of the interaction's user and server: past them, an ephemeral answer saying how long
/// to wait (Discord shows a failure for anything but 200).
fn rate(face: &Face, interaction: &Interaction) -> Result<(), Value> {
    let user = interaction.user_id().unwrap_or_default();
    face.inner
        .gate
        .allow(interaction.guild_id.as_deref(), user)
        .map_err(|wait| {
            interaction::reply(
                &format!("Too many commands at once: try again in {wait} s."),
                true,
            )
        })
}
