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

use crate::error::ApiError;

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
        // `summary` decides for itself what a viewer may see: it reads the whole state.
        value["summary"] = serde_json::to_value(crate::summary::summary(self.view, character))
            .unwrap_or(Value::Null);
        value["warnings"] = Value::from(crate::summary::warnings(self.view, character));
        value
    }

    /// Exact odds of an action of `rule_set`.
    pub fn odds(&self, rule_set: &str, odds: &Value) -> Value {
        self.show(rule_set, Part::Odds, odds)
    }
}

/// Error kinds whose text the server builds from the request alone (its JSON, path, query, token,
/// expression) or from fixed words: nothing in them comes from a campaign's stored data.
const REQUEST_KINDS: &[&str] = &[
    "bad-request",
    "bad-json",
    "bad-path",
    "bad-query",
    "unauthorized",
    "forbidden",
    "not-found",
    "already-exists",
    "rate-limited",
    "busy",
    "timeout",
    "too-large",
    "method-not-allowed",
    "no-odds",
];

/// What a refusal that could quote stored data says to a non-game-master instead.
const WITHHELD_MESSAGE: &str = "refused for a reason that only the game master sees";

/// Leaves (strings and numbers) of `value`, each once.
fn leaves(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Number(number) => out.push(number.to_string()),
        Value::Array(items) => items.iter().for_each(|item| leaves(item, out)),
        Value::Object(fields) => fields.values().for_each(|item| leaves(item, out)),
        Value::Null | Value::Bool(_) => {}
    }
}

/// Whether `text` holds `needle` as a whole word: a hidden `3` is not found in `13` or `d30`.
fn holds_word(text: &str, needle: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + needle.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

impl Redactor {
    /// The values of `character` this viewer may not see: every leaf of its sheet and state that
    /// the rule set's declaration removes, and the names of the removed fields.
    pub fn secrets(&self, character: &omen_store::Character) -> Vec<String> {
        if self.is_game_master() {
            return Vec::new();
        }
        let mut secrets = Vec::new();
        let rule_set = character.rule_set.as_str();
        for (part, value) in [
            (Part::Sheet, &character.sheet),
            (Part::State, &character.state),
        ] {
            let mut all = Vec::new();
            leaves(value, &mut all);
            let mut shown = Vec::new();
            leaves(&self.show(rule_set, part, value), &mut shown);
            for leaf in all {
                // A leaf also shown elsewhere (a name, a small number in a visible field) is no
                // secret; what only the hidden fields hold is.
                if !shown.contains(&leaf) && !secrets.contains(&leaf) {
                    secrets.push(leaf);
                }
            }
            if let Some(declared) = declaration(Some(rule_set)) {
                for path in declared.paths(part) {
                    for key in path.split('/') {
                        secrets.push(key.to_string());
                    }
                }
            }
        }
        secrets
    }

    /// An error as this viewer may receive it: the one step every refusal a non-game-master gets
    /// passes through. A problem whose kind may quote stored data (a rule set's refusal, an invalid
    /// state, a storage failure) loses its text; any other problem loses it too when it holds one
    /// of `secrets` ([`Redactor::secrets`]). The status and the kind stay: they are the same
    /// whatever the hidden values are.
    pub fn error(&self, error: ApiError, secrets: &[String]) -> ApiError {
        if self.is_game_master() {
            return error;
        }
        let mut error = error;
        for problem in error.errors.iter_mut().chain(&mut error.warnings) {
            let quotes_secret = |text: &str| {
                secrets
                    .iter()
                    .any(|secret| !secret.is_empty() && holds_word(text, secret))
            };
            let from_request = REQUEST_KINDS.contains(&problem.kind.as_str())
                || problem.span.is_some()
                || problem.kind == "rate-limited";
            let leaks = quotes_secret(&problem.message)
                || problem.help.as_deref().is_some_and(quotes_secret);
            if !from_request || leaks {
                problem.message = WITHHELD_MESSAGE.to_string();
                problem.help = Some("the game master sees why".to_string());
                problem.span = None;
            }
        }
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Problem;
    use axum::http::StatusCode;
    use serde_json::json;

    fn luck_character() -> omen_store::Character {
        omen_store::Character {
            campaign: "Tak".to_string(),
            name: "Ayla".to_string(),
            rule_set: "luck".to_string(),
            sheet: json!({ "intrinsic": [{ "source": "zq-amulet", "value": 17 }] }),
            state: json!({ "intrinsic": [{ "source": "zq-amulet", "value": 17 }], "history": [] }),
            state_version: 1,
            created: String::new(),
            updated: String::new(),
        }
    }

    #[test]
    fn an_error_quoting_a_hidden_value_reaches_a_player_without_it() {
        let player = Redactor::new(View::Player);
        let secrets = player.secrets(&luck_character());
        assert!(secrets.contains(&"zq-amulet".to_string()), "{secrets:?}");
        assert!(secrets.contains(&"17".to_string()), "{secrets:?}");
        for (kind, message) in [
            ("not-found", "no modifier `zq-amulet` on Ayla"),
            ("bad-request", "value 17 is too large"),
            ("rules", "the rules refuse it"),
            ("invalid", "a state that does not load"),
            ("storage", "disk I/O error at row 5"),
        ] {
            let error = ApiError::new(StatusCode::BAD_REQUEST, Problem::new(kind, message))
                .with_warning(Problem::new("bad-request", "zq-amulet"));
            let seen = player.error(error.clone(), &secrets);
            let text = serde_json::to_string(&seen.body()).unwrap();
            assert!(
                !text.contains("zq-amulet") && !text.contains("17"),
                "{text}"
            );
            assert!(!text.contains(message), "{text}");
            assert_eq!(seen.status, error.status);
            assert_eq!(seen.errors[0].kind, kind);
            // The game master gets it whole.
            let whole = Redactor::new(View::GameMaster).error(error.clone(), &secrets);
            assert_eq!(whole.errors[0].message, message);
        }
    }

    #[test]
    fn an_error_made_of_the_request_alone_reaches_a_player_whole() {
        let player = Redactor::new(View::Player);
        let secrets = player.secrets(&luck_character());
        for (kind, message) in [
            ("not-found", "`Ayla` has no entry 170"),
            ("forbidden", "an observer only reads"),
            ("bad-json", "missing field `action` at line 1 column 2"),
        ] {
            let error = ApiError::new(StatusCode::BAD_REQUEST, Problem::new(kind, message));
            assert_eq!(player.error(error, &secrets).errors[0].message, message);
        }
        assert!(holds_word("value 17 here", "17"));
        assert!(!holds_word("d170 and 117", "17"));
    }
}
