//! A character's summary: the rule set's reading of its state for people (a sheet's ratings with
//! their names, say), sent beside the stored form in every character response
//! ([`omen_rules::stateful::Game::summary`]).
//!
//! The summary is computed from the whole state, so it could hold any field of it. A player or an
//! observer therefore gets it only from a rule set that keeps none of a character's sheet or state
//! for the game master: a summary of the redacted state could read a withheld field as its default
//! and state a falsehood, and one of the whole state could leak it.

use omen_rules::{GameMasterOnly, Part, View};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// The summary field of a character response.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CharacterSummary {
    /// The summary as lines of text, as `omen char show` prints it.
    pub text: String,
    /// The same as JSON, in the rule set's own shape.
    #[schema(value_type = Object)]
    pub value: Value,
}

// The document's description of what `crate::redact::Redactor::character` builds as JSON; the
// integration test `character_summary` checks that every field it sends is described here.
/// A character as the caller may see it: the sheet and state without the fields the rule set keeps
/// for the game master.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CharacterBody {
    pub campaign: String,
    pub name: String,
    /// The rule set, e.g. `luck`; `none` for a character bound to no rule set.
    pub rule_set: String,
    /// The sheet, without the fields the rule set keeps for the game master; null to anyone but the
    /// game master for a rule set this build does not know.
    #[schema(value_type = Option<Object>)]
    pub sheet: Value,
    /// The state, as the rule set defines it, without the fields it keeps for the game master; null
    /// while it follows a roll hidden from the caller.
    #[schema(value_type = Option<Object>)]
    pub state: Value,
    pub state_version: u32,
    /// When it was made (RFC 3339).
    pub created: String,
    /// When it last changed (RFC 3339).
    pub updated: String,
    /// The rule set's reading of the state for people; null for a rule set without one, for a
    /// state withheld from the caller, and for anyone but the game master when the rule set keeps
    /// any of a character's sheet or state for the game master.
    pub summary: Option<CharacterSummary>,
    /// What the rules allowed but found unusual in the sheet the character was made from, one
    /// sentence each (dots left unspent, a bonus the seed prints unreadably and the rules assume, a
    /// rating above the advancement cap); empty when nothing was, and to anyone but the game master
    /// when the rule set keeps any of a character's sheet or state for the game master.
    pub warnings: Vec<String>,
    /// True while the state follows a roll hidden from the caller (then state and summary are null).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_withheld: Option<bool>,
}

/// `character`'s summary as `view` may see it: none for a rule set without one, for a state that
/// does not load, and for anyone but the game master when the rule set hides any of a character's
/// sheet or state from players.
pub(crate) fn summary(view: View, character: &omen_store::Character) -> Option<CharacterSummary> {
    let declared = omen_rules::find(&character.rule_set)?.game_master_only();
    if !may_see_summary(view, declared) {
        return None;
    }
    let game = omen_rules::stateful::game(&character.rule_set)?;
    // A state stored in an older version is read as this build upgrades it, as actions read it.
    let state = game.load(character.state_version, &character.state).ok()?;
    let (text, value) = game.summary(&state)?;
    Some(CharacterSummary { text, value })
}

/// What `character`'s rule set found unusual in the sheet it was made from, as `view` may see it:
/// under the summary's rule, since the sentences read the whole sheet.
pub(crate) fn warnings(view: View, character: &omen_store::Character) -> Vec<String> {
    let visible = omen_rules::find(&character.rule_set)
        .is_some_and(|rules| may_see_summary(view, rules.game_master_only()));
    match omen_rules::stateful::game(&character.rule_set) {
        Some(game) if visible => game.sheet_warnings(&character.sheet),
        _ => Vec::new(),
    }
}

/// Whether `view` may see a summary of a rule set declaring `declared`: the game master always; anyone
/// else only when none of a character's sheet or state is kept for the game master.
fn may_see_summary(view: View, declared: &GameMasterOnly) -> bool {
    view == View::GameMaster
        || (declared.paths(Part::Sheet).is_empty() && declared.paths(Part::State).is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn character(rule_set: &str, state: Value) -> omen_store::Character {
        omen_store::Character {
            campaign: "Tak".into(),
            name: "Ayla".into(),
            rule_set: rule_set.into(),
            sheet: Value::Null,
            state,
            state_version: 1,
            created: String::new(),
            updated: String::new(),
        }
    }

    #[test]
    fn a_rule_set_that_hides_any_sheet_or_state_field_gives_only_the_game_master_a_summary() {
        let hides_sheet = GameMasterOnly {
            sheet: &["modifier"],
            ..GameMasterOnly::NOTHING
        };
        let hides_state = GameMasterOnly {
            state: &["secret/value"],
            ..GameMasterOnly::NOTHING
        };
        for declared in [&hides_sheet, &hides_state] {
            assert!(may_see_summary(View::GameMaster, declared));
            assert!(!may_see_summary(View::Player, declared));
        }
        // Hidden odds or results are not the sheet's: the summary does not read them.
        let hides_odds = GameMasterOnly {
            odds: &["chance"],
            ..GameMasterOnly::NOTHING
        };
        assert!(may_see_summary(View::Player, &hides_odds));
        assert!(may_see_summary(View::Player, &GameMasterOnly::NOTHING));
    }

    #[test]
    fn an_unknown_rule_set_has_no_summary() {
        let unknown = character("no-such-rules", Value::Null);
        assert!(summary(View::GameMaster, &unknown).is_none());
        assert!(summary(View::Player, &unknown).is_none());
    }
}
