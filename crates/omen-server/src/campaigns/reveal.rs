//! A hidden roll revealed by its game master or its roller.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use omen_store::Viewer;
use serde_json::Value;

use crate::AppState;
use crate::auth::{Caller, Need, authorise};
use crate::error::{ApiError, ErrorBody, PathParams};
use crate::redact::Redactor;

/// Reveals a hidden roll: a logged entry that gives the salt of its commitment, after which everyone
/// sees the roll and can check it against the commitment. The game master reveals every hidden roll
/// but a `self` roll; a `self` roll is its roller's alone to reveal (a player's, or the game
/// master's own). An observer reveals nothing.
#[utoipa::path(
    post,
    path = "/api/v1/campaigns/{campaign}/log/{sequence}/reveal",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), ("sequence" = u64, Path)),
    responses(
        (status = 200, description = "the reveal entry", body = Object),
        (status = 400, description = "a malformed entry number", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "a token of another campaign, an observer's, or the game master asking for another member's `self` roll", body = ErrorBody),
        (status = 404, description = "no such campaign or entry; to a player, any entry that is not their own hidden roll, whether it exists or not", body = ErrorBody),
        (status = 409, description = "an entry that is not hidden, or was revealed already", body = ErrorBody),
    )
)]
pub async fn reveal(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams((campaign, sequence)): PathParams<(String, u64)>,
) -> Result<Json<Value>, ApiError> {
    // The game master and players; the store decides which entries each may reveal.
    let redactor = authorise(&member, &campaign, Need::Play)?;
    let game_master = redactor.is_game_master();
    let (c, viewer) = (campaign.clone(), Viewer::Member(member.clone()));
    // As the caller: a `self` roll is its roller's to reveal, even the game master's own.
    let answer = state
        .inner
        .db
        .with(move |store| store.reveal_as(&c, sequence, &viewer));
    // A player's answer leaves on a whole quantum, so its time does not tell another's hidden roll
    // from no entry at all.
    let entry = crate::pacing::paced(!game_master, answer, |_| false)
        .await
        .map_err(|error| match game_master {
            true => error,
            false => refused_reveal(error, redactor, &campaign, sequence),
        })?;
    state.announce(&campaign);
    Ok(Json(serde_json::to_value(entry).unwrap_or_default()))
}

/// A player's refused reveal. An entry that is not theirs to reveal is refused as one that does not
/// exist, in the same words, so the refusal tells nothing of whose it is or what it holds; an entry
/// that is not hidden or was revealed already is one everyone sees, so that conflict is told as it
/// is.
fn refused_reveal(error: ApiError, redactor: Redactor, campaign: &str, sequence: u64) -> ApiError {
    match error.status {
        StatusCode::NOT_FOUND | StatusCode::FORBIDDEN => ApiError::not_found(format!(
            "`{campaign}` has no entry {sequence} that this player may reveal; a player reveals only their own `self` rolls, the game master the other hidden ones"
        )),
        StatusCode::CONFLICT => error,
        _ => redactor.error(error, &[]),
    }
}
