//! What a rule set keeps for the game master, taken out of an entry: the player's view that a hidden
//! part's seal commits to, and that every non-game-master listing shows.

use omen_rules::{GameMasterOnly, Part, View};
use serde_json::Value;

use super::entry::LogEntry;

/// The rule set's game-master-only parts, none for a rule set this build does not know.
pub(crate) fn rules_of(rule_set: Option<&str>) -> &'static GameMasterOnly {
    rule_set
        .and_then(omen_rules::find)
        .map_or(&const { GameMasterOnly::NOTHING }, |rules| {
            rules.game_master_only()
        })
}

/// Removes from `entry` what its rule set keeps for the game master; marks it redacted when anything
/// was removed.
pub(crate) fn without_game_master_fields(mut entry: LogEntry) -> LogEntry {
    let before = serde_json::to_value(&entry).ok();
    let view = View::Player;
    let kind = entry
        .inputs
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let rule_set = entry
        .inputs
        .get("rule_set")
        .and_then(Value::as_str)
        .map(str::to_string);
    let hidden = rules_of(rule_set.as_deref());
    let show = |part: Part, value: &Value| hidden.show(view, part, value);
    match kind.as_str() {
        "action" => {
            if let Some(action) = entry.inputs.get_mut("action") {
                *action = show(Part::Action, action);
            }
            entry.summary = hidden.summary(view, &entry.action, &entry.result, &entry.summary);
            entry.result = show(Part::Result, &entry.result);
            if let Some(odds) = entry.result.get_mut("odds") {
                *odds = show(Part::Odds, odds);
            }
        }
        "create" => {
            if let Some(sheet) = entry.inputs.get_mut("sheet") {
                *sheet = show(Part::Sheet, sheet);
            }
        }
        "edit" => {
            if let Some(state) = entry.inputs.get_mut("state") {
                *state = show(Part::State, state);
            }
        }
        "migrate" | "import" => {
            if let Some(characters) = entry
                .inputs
                .get_mut("characters")
                .and_then(Value::as_array_mut)
            {
                for character in characters {
                    let hidden = rules_of(character.get("rule_set").and_then(Value::as_str));
                    if let Some(state) = character.get_mut("state") {
                        *state = hidden.show(view, Part::State, state);
                    }
                }
            }
        }
        _ => {}
    }
    entry.state_before = entry.state_before.map(|s| show(Part::State, &s));
    entry.state_after = entry.state_after.map(|s| show(Part::State, &s));
    if serde_json::to_value(&entry).ok() != before {
        entry.redacted = true;
    }
    entry
}
