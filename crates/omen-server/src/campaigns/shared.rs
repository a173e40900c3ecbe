//! What the campaign routes share: the refusals their OpenAPI entries document, and what a member
//! may see of the rolls and characters they ask about.

use omen_store::{LogEntry, LogFilter, Member, Role, Viewer, Visibility};
use serde_json::{Value, json};

use crate::error::ErrorBody;
use crate::redact::Redactor;

/// Sets of refusals that several routes share, each documented once: 401 for a missing or unknown
/// token, and the 403 and 404 given. Each answer names what was refused in an [`ErrorBody`]; the
/// types are only read by the OpenAPI document, never built.
macro_rules! refusals {
    ($($(#[$doc:meta])* $name:ident: $forbidden:literal, $not_found:literal;)*) => {$(
        $(#[$doc])*
        #[derive(utoipa::IntoResponses)]
        #[allow(dead_code)]
        pub(super) enum $name {
            /// no token, or an unknown one
            #[response(status = 401)]
            Unauthorized(ErrorBody),
            #[doc = $forbidden]
            #[response(status = 403)]
            Forbidden(ErrorBody),
            #[doc = $not_found]
            #[response(status = 404)]
            NotFound(ErrorBody),
        }
    )*};
}

refusals! {
    /// A member's read of the campaign.
    CampaignMemberErrors: "a token of another campaign", "no such campaign";
    /// A member's read of a character.
    CharacterMemberErrors: "a token of another campaign", "no such campaign or character";
    /// A game master's write to the campaign.
    GameMasterErrors: "not the game master", "no such campaign";
    /// A game master's write to a character.
    GameMasterCharacterErrors: "not the game master", "no such campaign or character";
}

/// Whether a request asks for a roll its caller will not see: a blind one by anyone but the game
/// master.
pub(super) fn asks_blind(member: &Member, visibility: Option<Visibility>) -> bool {
    member.role != Role::GameMaster && visibility == Some(Visibility::Blind)
}

/// One entry written for `member`, as they may see it.
pub(super) fn seen(
    store: &omen_store::Store,
    entry: &LogEntry,
    member: &Member,
) -> Result<LogEntry, omen_store::StoreError> {
    store.entry_for(entry.clone(), &Viewer::Member(member.clone()))
}

/// Whether `character`'s state carries the outcome of a roll hidden from `member` on (a streak, a
/// balance, a spent pool): its state and its odds are then withheld from them until the roll is
/// revealed, as the log withholds the states of its later entries.
pub(super) fn follows_hidden_roll(
    store: &omen_store::Store,
    member: &Member,
    character: &omen_store::Character,
) -> Result<bool, omen_store::StoreError> {
    named_follows_hidden_roll(store, member, &character.campaign, &character.name)
}

pub(super) fn named_follows_hidden_roll(
    store: &omen_store::Store,
    member: &Member,
    campaign: &str,
    character: &str,
) -> Result<bool, omen_store::StoreError> {
    if member.role == Role::GameMaster {
        return Ok(false);
    }
    let filter = LogFilter {
        campaign: Some(campaign.to_string()),
        character: Some(character.to_string()),
        ..LogFilter::default()
    };
    Ok(store
        .log_for(&filter, &Viewer::Member(member.clone()))?
        .iter()
        .any(|entry| entry.inputs.get("kind").and_then(Value::as_str) == Some("hidden")))
}

/// The odds a viewer gets of a character whose state follows a roll hidden from them: the same
/// whatever the hidden roll and the state are.
pub(super) fn withheld_odds() -> Value {
    json!({ "withheld": "the character's state follows a roll hidden from you; the game master sees its odds" })
}

/// A character as `member` may see it: the rule set's game-master-only fields removed, and its
/// state withheld while it follows a roll hidden from them.
pub(super) fn visible_character(
    store: &omen_store::Store,
    member: &Member,
    redactor: &Redactor,
    character: &omen_store::Character,
) -> Result<Value, omen_store::StoreError> {
    let mut value = redactor.character(character);
    if follows_hidden_roll(store, member, character)? {
        value["state"] = Value::Null;
        value["summary"] = Value::Null;
        value["state_withheld"] = Value::Bool(true);
    }
    Ok(value)
}
