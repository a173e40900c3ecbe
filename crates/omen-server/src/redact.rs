//! The one redaction step: what a viewer may receive of a character, a log entry, odds or an
//! error, by the declaration each rule set makes of its game-master-only fields
//! ([`omen_rules::GameMasterOnly`]). The server holds no game's names or fields; every route passes
//! what it sends to a non-game-master through here.
//!
//! Log entries are redacted by the store's listing for a viewer (`omen_store::Store::log_for`), which
//! applies the same declarations and each roll's visibility; every entry the server sends (answers
//! and events) comes from it.

use omen_rules::{GameMasterOnly, Part, View};
use serde_json::Value;

/// What one viewer may see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Redactor {
    pub view: View,
}

fn declaration(rule_set: Option<&str>) -> Option<&'static GameMasterOnly> {
    rule_set
        .and_then(omen_rules::find)
        .map(omen_rules::RuleSet::game_master_only)
}

impl Redactor {
    pub fn new(view: View) -> Self {
        Redactor { view }
    }

    pub fn is_game_master(&self) -> bool {
        self.view == View::GameMaster
    }

    /// `value`, a `part` of `rule_set`'s data, as this viewer may see it. An unknown rule set shows
    /// a player nothing.
    pub fn show(&self, rule_set: &str, part: Part, value: &Value) -> Value {
        if self.is_game_master() {
            return value.clone();
        }
        match declaration(Some(rule_set)) {
            Some(hidden) => hidden.show(self.view, part, value),
            None if rule_set == omen_store::PLAIN => value.clone(),
            None => Value::Null,
        }
    }

    /// A character as JSON (`omen_store::Character`'s fields), its sheet and state redacted.
    pub fn character(&self, character: &omen_store::Character) -> Value {
        let mut value = serde_json::to_value(character).unwrap_or(Value::Null);
        let rule_set = character.rule_set.as_str();
        value["sheet"] = self.show(rule_set, Part::Sheet, &character.sheet);
        value["state"] = self.show(rule_set, Part::State, &character.state);
        value
    }

    /// Exact odds of an action of `rule_set`.
    pub fn odds(&self, rule_set: &str, odds: &Value) -> Value {
        self.show(rule_set, Part::Odds, odds)
    }
}
