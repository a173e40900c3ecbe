//! The one redaction step: what a viewer may receive of a character, a log entry, odds or an
//! error, by the declaration each rule set makes of its game-master-only fields
//! ([`omen_rules::GameMasterOnly`]). The server holds no game's names or fields; every route passes
//! what it sends to a non-game-master through here.
//!
//! Where the rule set of a value cannot be told (an entry of a kind this build does not know), a
//! player gets the entry without its inputs, result and states: unknown means hidden.

use omen_rules::{GameMasterOnly, Part, View};
use serde_json::{Value, json};

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

    /// A log entry as JSON, with what the viewer may not see removed from its inputs, result, states
    /// and summary. `rule_set` is the character's rule set when the entry does not name it (a rename
    /// or a delete).
    pub fn entry(&self, entry: &omen_store::LogEntry, rule_set: Option<&str>) -> Value {
        let mut value = serde_json::to_value(entry).unwrap_or(Value::Null);
        if self.is_game_master() {
            return value;
        }
        let kind = entry
            .inputs
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("");
        let named = entry.inputs.get("rule_set").and_then(Value::as_str);
        let rule_set = named.or(rule_set);
        let known_kind = matches!(
            kind,
            "create" | "action" | "edit" | "rename" | "delete" | "expression"
        );
        let hidden = match (kind, rule_set) {
            ("expression", _) => Some(&GameMasterOnly::NOTHING),
            (_, Some(omen_store::PLAIN)) => Some(&GameMasterOnly::NOTHING),
            (_, rule_set) if known_kind => declaration(rule_set),
            _ => None,
        };
        let Some(hidden) = hidden else {
            // Nothing to go by: keep what identifies the entry in the chain, drop its content.
            for field in ["result", "state_before", "state_after"] {
                value[field] = Value::Null;
            }
            value["inputs"] = json!({ "kind": kind });
            value["summary"] = Value::from(format!("{kind} (hidden)"));
            return value;
        };
        let view = self.view;
        let inputs = &mut value["inputs"];
        if let Some(action) = entry.inputs.get("action") {
            inputs["action"] = hidden.show(view, Part::Action, action);
        }
        if let Some(sheet) = entry.inputs.get("sheet") {
            inputs["sheet"] = hidden.show(view, Part::Sheet, sheet);
        }
        if let Some(state) = entry.inputs.get("state") {
            inputs["state"] = hidden.show(view, Part::State, state);
        }
        value["result"] = hidden.show(view, Part::Result, &entry.result);
        for (field, state) in [
            ("state_before", &entry.state_before),
            ("state_after", &entry.state_after),
        ] {
            if let Some(state) = state {
                value[field] = hidden.show(view, Part::State, state);
            }
        }
        value["summary"] =
            Value::from(hidden.summary(view, &entry.action, &entry.result, &entry.summary));
        value
    }

    /// Exact odds of an action of `rule_set`.
    pub fn odds(&self, rule_set: &str, odds: &Value) -> Value {
        self.show(rule_set, Part::Odds, odds)
    }
}
