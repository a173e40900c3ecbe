//! Campaigns, characters, actions, saved rolls and the log. Every route authenticates the caller
//! ([`crate::auth::Caller`]), asks [`crate::auth::authorise`] what it may do, and sends what it
//! answers through the caller's [`crate::redact::Redactor`]. Each file below is a group of routes;
//! this one only lists them.

pub(crate) mod actions;
pub(crate) mod campaign;
mod characters;
mod invites;
pub(crate) mod reveal;
pub(crate) mod rolls;
mod shared;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;

pub(crate) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(campaign::list_campaigns, campaign::create_campaign))
        .routes(routes!(campaign::show_campaign))
        .routes(routes!(campaign::import_campaign))
        .routes(routes!(invites::list_invites, invites::create_invite))
        .routes(routes!(invites::revoke_invite))
        .routes(routes!(
            characters::list_characters,
            characters::create_character
        ))
        .routes(routes!(
            characters::show_character,
            characters::edit_character,
            characters::delete_character
        ))
        .routes(routes!(actions::act))
        .routes(routes!(actions::odds))
        .routes(routes!(rolls::roll_in_campaign))
        .routes(routes!(rolls::list_saved))
        .routes(routes!(rolls::save_roll, rolls::delete_saved))
        .routes(routes!(rolls::roll_saved))
        .routes(routes!(reveal::reveal))
        .routes(routes!(campaign::verify))
        .routes(routes!(campaign::head))
        .routes(routes!(campaign::export))
}
