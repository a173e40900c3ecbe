//! Replaying a campaign's log: every entry recomputed from its recorded dice, and every character's
//! states followed from entry to entry.

use std::collections::HashMap;

use omen_core::Limits;
use serde::Serialize;
use serde_json::Value;

use crate::dice::{Dice, Recording};
use crate::error::StoreError;
use crate::log::{self, LogEntry, LogProblem};
use crate::roll::{self, RollRecord};
use crate::store::{Store, campaign_id, game};

/// The result of replaying a campaign's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplayReport {
    pub campaign: String,
    /// Entries in the log.
    pub entries: u64,
    /// Entries recomputed with the recorded result and states.
    pub replayed: u64,
    /// Every entry that did not replay, and every break in a character's states.
    pub problems: Vec<LogProblem>,
}

impl ReplayReport {
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

fn field<'a>(entry: &'a LogEntry, name: &str) -> Result<&'a Value, String> {
    entry
        .inputs
        .get(name)
        .ok_or_else(|| format!("its inputs have no `{name}`"))
}

fn text_field<'a>(entry: &'a LogEntry, name: &str) -> Result<&'a str, String> {
    field(entry, name)?
        .as_str()
        .ok_or_else(|| format!("its inputs' `{name}` is not text"))
}

fn same(what: &str, recomputed: &Value, recorded: Option<&Value>) -> Result<(), String> {
    match recorded {
        Some(recorded) if recorded == recomputed => Ok(()),
        Some(recorded) => Err(format!(
            "recomputing it gives {what} {recomputed}, not the recorded {recorded}"
        )),
        None => Err(format!("it records no {what}")),
    }
}

/// Whether `recorded`, a state the log holds, is `current` as this build writes it: the same, or a
/// state of an older version that this build's upgrade turns into it (a rule set that starts to
/// record more raises its state version, and the entries written before keep the older form).
fn same_state(rule_set: &str, current: &Value, recorded: &Value) -> bool {
    current == recorded
        || game(rule_set).is_ok_and(|game| {
            // An older version's state as that version wrote it, whole: the loader fills what a
            // state leaves out, so a state missing a field would otherwise pass as its default.
            game.is_as_written(recorded)
                && (1..game.state_version()).any(|version| {
                    game.load(version, recorded)
                        .is_ok_and(|loaded| loaded == *current)
                })
        })
}

/// As [`same`] for a state recomputed from an entry's inputs, allowing the recorded one an older
/// version (see [`same_state`]).
fn same_upgraded(
    rule_set: &str,
    recomputed: &Value,
    recorded: Option<&Value>,
) -> Result<(), String> {
    match recorded {
        Some(recorded) if same_state(rule_set, recomputed, recorded) => Ok(()),
        other => same("the state", recomputed, other),
    }
}

/// Recomputes one entry from its inputs and recorded dice.
fn replay_entry(entry: &LogEntry, limits: &Limits) -> Result<(), String> {
    let kind = text_field(entry, "kind")?;
    match kind {
        "create" if text_field(entry, "rule_set")? == crate::store::PLAIN => same(
            "the state",
            &serde_json::json!({}),
            entry.state_after.as_ref(),
        ),
        "create" => {
            let game = game(text_field(entry, "rule_set")?).map_err(|e| e.to_string())?;
            let state = game
                .new_character(field(entry, "sheet")?)
                .map_err(|e| format!("its sheet no longer makes a character: {e}"))?;
            same_upgraded(game.name(), &state, entry.state_after.as_ref())
        }
        "edit" => {
            let game = game(text_field(entry, "rule_set")?).map_err(|e| e.to_string())?;
            let version = field(entry, "state_version")?
                .as_u64()
                .ok_or("its state version is not a number")? as u32;
            let state = game
                .load(version, field(entry, "state")?)
                .map_err(|e| format!("its state no longer loads: {e}"))?;
            same_upgraded(game.name(), &state, entry.state_after.as_ref())
        }
        "action" => {
            let game = game(text_field(entry, "rule_set")?).map_err(|e| e.to_string())?;
            let before = entry
                .state_before
                .as_ref()
                .ok_or("it records no state before")?;
            let action = field(entry, "action")?;
            let mut dice = Recording::replay(&entry.dice);
            let applied = game
                .apply(before, action, &mut dice, limits)
                .map_err(|e| format!("applying it again from its dice fails: {e}"))?;
            if dice.rolled() != entry.dice || !dice.unused().is_empty() {
                return Err(
                    "its dice do not fit its action: applying it again uses other dice".to_string(),
                );
            }
            same("the result", &applied.result, Some(&entry.result))?;
            same("the state", &applied.state, entry.state_after.as_ref())?;
            if let Some(seed) = entry.seed {
                let mut seeded = Recording::new(&Dice::Seed(seed));
                game.apply(before, action, &mut seeded, limits)
                    .map_err(|e| format!("applying it again from seed {seed} fails: {e}"))?;
                if seeded.rolled() != entry.dice {
                    return Err(format!("its dice are not the ones seed {seed} gives"));
                }
            }
            Ok(())
        }
        "expression" => {
            let record = RollRecord {
                expression: text_field(entry, "expression")?.to_string(),
                params: serde_json::from_value(field(entry, "params")?.clone())
                    .map_err(|e| format!("its parameters do not read: {e}"))?,
                saved_roll: None,
                explode_depth: field(entry, "explode_depth")?
                    .as_u64()
                    .ok_or("its explosion depth is not a number")?,
                seed: entry.seed,
                dice: entry.dice.clone(),
                result: entry.result.clone(),
            };
            roll::recheck(&record, limits)
        }
        "refused" => replay_refused(entry, limits),
        "rename" | "delete" | "migrate" | "import" | "invite" | "revoke-invite" | "reveal" => {
            Ok(())
        }
        other => Err(format!(
            "its kind `{other}` is unknown to this build of omen"
        )),
    }
}

/// A request refused after it drew dice: made again from its recorded dice (and from its seed), it
/// must fail again having drawn exactly those dice.
fn replay_refused(entry: &LogEntry, limits: &Limits) -> Result<(), String> {
    let request = field(entry, "request")?;
    let text = |name: &str| {
        request
            .get(name)
            .and_then(Value::as_str)
            .ok_or(format!("the request it names has no {name}"))
    };
    let faces: Vec<i64> = entry.dice.iter().map(|die| die.face).collect();
    let mut sources = vec![("its dice".to_string(), Dice::Given(faces))];
    if let Some(seed) = entry.seed {
        sources.push((format!("seed {seed}"), Dice::Seed(seed)));
    }
    for (what, dice) in sources {
        let drawn = match text("kind")? {
            "expression" => {
                let params =
                    serde_json::from_value(request.get("params").cloned().unwrap_or(Value::Null))
                        .map_err(|e| format!("its parameters do not read: {e}"))?;
                let limits = Limits {
                    explode_depth: request
                        .get("explode_depth")
                        .and_then(Value::as_u64)
                        .ok_or("its explosion depth is not a number")?,
                    max_dice: limits.max_dice.max(entry.dice.len() as u64),
                    ..limits.clone()
                };
                let (rolled, drawn) =
                    roll::roll_drawing(text("expression")?, &params, &dice, &limits);
                if rolled.is_ok() {
                    return Err(format!(
                        "rolling it again from {what} succeeds, yet it is logged as refused"
                    ));
                }
                drawn
            }
            "action" => {
                let game = game(text("rule_set")?).map_err(|e| e.to_string())?;
                let before = entry
                    .state_before
                    .as_ref()
                    .ok_or("it records no state before")?;
                let action = request.get("action").ok_or("the request names no action")?;
                let mut source = Recording::new(&dice);
                if game.apply(before, action, &mut source, limits).is_ok() {
                    return Err(format!(
                        "applying it again from {what} succeeds, yet it is logged as refused"
                    ));
                }
                source.rolled()
            }
            other => {
                return Err(format!(
                    "it refuses a request of kind `{other}`, which draws no dice"
                ));
            }
        };
        if drawn != entry.dice {
            return Err(format!(
                "making it again from {what} draws other dice than it records"
            ));
        }
    }
    Ok(())
}

impl Store {
    /// Recomputes every entry of a campaign's log from its recorded dice (and seed) and checks the
    /// results and states against the recorded ones, and that each character's state before an entry
    /// is the state its previous entry left.
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; problems with entries are in the report, not errors.
    pub fn replay(&self, campaign: &str, limits: &Limits) -> Result<ReplayReport, StoreError> {
        let (raw, character_problems) = self.read(|conn| {
            let raw = log::raw_entries(conn, campaign_id(conn, campaign)?)?;
            let check = crate::store::check_campaign(conn, campaign, None)?;
            Ok((raw, check.character_problems))
        })?;
        let entries = raw.len() as u64;
        let mut problems = Vec::new();
        let mut replayed = 0;
        // Each character's state after its latest entry, and that entry's number.
        let mut states: HashMap<String, (u64, Value)> = HashMap::new();
        for raw in raw {
            let sequence = raw.sequence();
            let entry = match raw.parse() {
                Ok(entry) => entry,
                Err(problem) => {
                    problems.push(LogProblem::entry(sequence, problem));
                    continue;
                }
            };
            match replay_entry(&entry, limits) {
                Ok(()) => replayed += 1,
                Err(problem) => problems.push(LogProblem::entry(sequence, problem)),
            }
            if let Some(snapshot) = entry
                .inputs
                .get("characters")
                .and_then(Value::as_array)
                .filter(|_| matches!(entry.action.as_str(), "migrate" | "import"))
            {
                // An anchor names each character by its identity from here on.
                states.clear();
                for character in snapshot {
                    if let (Some(uid), Some(state)) = (
                        character.get("uid").and_then(Value::as_str),
                        character.get("state"),
                    ) {
                        states.insert(uid.to_string(), (sequence, state.clone()));
                    }
                }
                continue;
            }
            let Some(name) = entry.character.clone() else {
                continue;
            };
            // Signed entries name the character by its identity; older ones only by name.
            let id = entry.character_uid.clone().unwrap_or_else(|| name.clone());
            if entry.action == "rename" {
                if entry.character_uid.is_none()
                    && let Some(from) = entry.inputs.get("from").and_then(Value::as_str)
                    && let Some(state) = states.remove(from)
                {
                    states.insert(name, state);
                }
                continue;
            }
            let rule_set = entry.inputs.get("rule_set").and_then(Value::as_str);
            if let (Some(before), Some((previous, state))) = (&entry.state_before, states.get(&id))
                && !rule_set.map_or(before == state, |rule_set| {
                    same_state(rule_set, before, state)
                })
            {
                problems.push(LogProblem::entry(
                    sequence,
                    format!("{name}'s state before it is not the state entry {previous} left: a change went unlogged or was lost"),
                ));
            }
            match &entry.state_after {
                Some(after) => {
                    states.insert(id, (sequence, after.clone()));
                }
                None if entry.action == "delete" => {
                    states.remove(&id);
                }
                None => {}
            }
        }
        problems.extend(character_problems);
        Ok(ReplayReport {
            campaign: campaign.to_string(),
            entries,
            replayed,
            problems,
        })
    }
}
