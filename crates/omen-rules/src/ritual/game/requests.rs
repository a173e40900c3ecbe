//! The checks an action asks for, every rule it breaks listed, and how their rolls read.

use std::collections::BTreeSet;

use omen_core::Limits;
use serde_json::{Value, json};

use super::action::{LoreAction, LoreKind, LoreRequest, RitualAction};
use crate::ritual::{
    Difficulty, EssenceCheck, EssenceContributions, LoreCheck, LoreCheckPurpose, LoreDice,
    LoreRoll, ReadFrom, RecordingRule, RitualError, RitualOptions, RitualState, SessionLoreCheck,
};
use crate::vocabulary::stateful::{self, ActionError, Problems};

pub(super) fn dice_error(error: RitualError) -> ActionError {
    match error {
        RitualError::Core(core) => ActionError::Dice(core),
        other => ActionError::rules(other),
    }
}

pub(super) fn ritual_name(ritual: &str, problems: &mut Problems) -> String {
    let name = ritual.trim().to_string();
    if name.is_empty() {
        problems.push(RitualError::EmptyRitualName.to_string());
    }
    name
}

pub(super) fn difficulty(value: i64, problems: &mut Problems) -> Option<Difficulty> {
    Difficulty::new(value)
        .map_err(|e| problems.push(e.to_string()))
        .ok()
}

pub(super) fn lore_request(
    state: &RitualState,
    action: &LoreAction<'_>,
    limits: &Limits,
) -> Result<LoreRequest, ActionError> {
    let LoreAction {
        ritual,
        difficulty: difficulty_value,
        circumstances,
        familiarity_bonuses,
        kind,
    } = action;
    let mut problems = Problems::new();
    let name = ritual_name(ritual, &mut problems);
    let difficulty = difficulty(*difficulty_value, &mut problems);
    match kind {
        LoreKind::Decipher if state.unknown.contains(&name) => {
            problems.push(
                RitualError::UnknownRitual {
                    ritual: name.clone(),
                    lore: state.lore,
                }
                .to_string(),
            );
        }
        LoreKind::Memorise if !name.is_empty() => {
            if !state.known.contains(&name) {
                problems.push(RitualError::NotKnown(name.clone()).to_string());
            } else if state.memorised.contains(&name) {
                problems.push(RitualError::AlreadyMemorised(name.clone()).to_string());
            }
        }
        _ => {}
    }
    let options = RitualOptions {
        familiarity_bonuses: *familiarity_bonuses,
        ..RitualOptions::default()
    };
    let (deciphered, performed) = match kind {
        LoreKind::Check {
            deciphered_before,
            performed_before,
        } => (
            deciphered_before.unwrap_or_else(|| state.known.contains(&name)),
            performed_before.unwrap_or_else(|| state.used.contains(&name)),
        ),
        LoreKind::Decipher | LoreKind::Memorise => {
            (state.known.contains(&name), state.used.contains(&name))
        }
    };
    let modifiers = circumstances.modifiers(deciphered, performed);
    let Some(difficulty) = difficulty else {
        return Err(problems.into());
    };
    let check = LoreCheck::new(state.lore, difficulty, &modifiers, &options, limits)
        .map_err(|e| problems.push(e.to_string()))
        .ok();
    match check {
        Some(check) if problems.is_empty() => Ok(LoreRequest {
            ritual: name,
            difficulty,
            modifiers,
            check,
            options,
        }),
        _ => Err(problems.into()),
    }
}

/// Which die counts and how many are rolled (000-M3, M4, A1).
pub(super) fn dice_rule(check: &LoreCheck) -> (&'static str, usize) {
    match check.dice() {
        LoreDice::Automatic => ("automatic", 0),
        LoreDice::HighestOf(n) => ("highest", n),
        LoreDice::LowerOfTwo => ("lower-of-two", 2),
    }
}

pub(super) fn lore_odds(check: &LoreCheck, limits: &Limits) -> Result<Value, ActionError> {
    let success = check.success_probability(limits).map_err(dice_error)?;
    let results = check
        .result_distribution(limits)
        .map_err(dice_error)?
        .map_or(Value::Null, |d| stateful::distribution_json(&d));
    let (rule, dice_rolled) = dice_rule(check);
    Ok(json!({
        "pool": check.pool(),
        "difficulty": check.difficulty().value(),
        "rule": rule,
        "dice_rolled": dice_rolled,
        "success": stateful::probability_json(&success),
        "results": results,
    }))
}

pub(super) fn roll_json(check: &LoreCheck, roll: &LoreRoll) -> Value {
    json!({
        "pool": check.pool(),
        "difficulty": check.difficulty().value(),
        "dice": roll.dice,
        "result": roll.result,
        "success": roll.success,
    })
}

pub(super) fn roll_text(roll: &LoreRoll) -> String {
    match roll.result {
        None => "automatic success".to_string(),
        Some(result) => format!(
            "{:?} → {result}: {}",
            roll.dice,
            if roll.success { "success" } else { "failure" }
        ),
    }
}

/// An Essence check as an action asks for it, with the penalty from the recorded attempts.
pub(super) struct EssenceRequest {
    pub(super) ritual: String,
    pub(super) repeated_attempts: i64,
    pub(super) check: EssenceCheck,
}

pub(super) fn essence_request(
    state: &RitualState,
    action: &RitualAction,
    limits: &Limits,
) -> Result<EssenceRequest, ActionError> {
    let RitualAction::Essence {
        ritual,
        leader,
        assistants,
        time_and_place,
        relics,
        offerings,
        other_penalties,
        thresholds,
        pairs,
        desired_threshold,
        repeat_counting,
        shortcut_threshold,
        recording_and_memorising,
        read_from,
    } = action
    else {
        return Err(ActionError::Malformed {
            what: "action",
            message: "not an essence check".to_string(),
        });
    };
    let mut problems = Problems::new();
    let name = ritual_name(ritual, &mut problems);
    let leader = match leader.or(state.essence) {
        Some(leader) => leader,
        None => {
            problems.push(
                "the leader's essence is unknown; give `leader` or set the character's essence",
            );
            0
        }
    };
    let contributors = std::iter::once(("leader's", leader))
        .chain(assistants.iter().map(|&v| ("an assistant's", v)))
        .chain(std::iter::once(("time and place", *time_and_place)))
        .chain(relics.iter().map(|&v| ("a relic's", v)))
        .chain(offerings.iter().map(|&v| ("an offering's", v)));
    for (contributor, value) in contributors {
        if value < 0 {
            problems.push(RitualError::NegativeEssence { contributor, value }.to_string());
        }
    }
    if *other_penalties < 0 {
        problems.push(
            RitualError::NegativePenalty {
                penalty: "other",
                value: *other_penalties,
            }
            .to_string(),
        );
    }
    check_read_from(
        state,
        &name,
        *recording_and_memorising,
        *read_from,
        &mut problems,
    );
    let repeated_attempts = state.repeated_attempts(&name, *repeat_counting);
    let contributions = EssenceContributions {
        leader,
        assistants: assistants.clone(),
        time_and_place: *time_and_place,
        relics: relics.clone(),
        offerings: offerings.clone(),
        repeated_attempts,
        other_penalties: *other_penalties,
    };
    let check = if problems.is_empty() {
        EssenceCheck::new(&contributions, thresholds, limits)
    } else {
        // Without a pool the thresholds are still worth checking, so every problem is listed.
        EssenceCheck::from_pool(0, thresholds, limits)
    }
    .map_err(|e| problems.push(e.to_string()))
    .ok();
    // Pairs are judged against the real pool only.
    let sound = problems.is_empty();
    let check = check.and_then(|check| {
        if *pairs == 0 || !sound {
            return Some(check);
        }
        let desired = desired_threshold.unwrap_or_else(|| *check.thresholds().last().unwrap_or(&0));
        let options = RitualOptions {
            shortcut_threshold: *shortcut_threshold,
            ..RitualOptions::default()
        };
        check
            .with_pairs(*pairs, desired, &options)
            .map_err(|e| problems.push(e.to_string()))
            .ok()
    });
    match check {
        Some(check) if problems.is_empty() => Ok(EssenceRequest {
            ritual: name,
            repeated_attempts,
            check,
        }),
        _ => Err(problems.into()),
    }
}

/// 000-M8's optional rule: with it on, a performance names where the ritual is read from, and that
/// must hold it (memory: memorised; notes: recorded; the source: a new decipher check of it this
/// session, successful). With it off, `read_from` would be ignored, so it is refused instead.
pub(super) fn check_read_from(
    state: &RitualState,
    name: &str,
    rule: RecordingRule,
    read_from: Option<ReadFrom>,
    problems: &mut Problems,
) {
    let Some(read_from) = read_from else {
        if rule == RecordingRule::On {
            problems.push(
                "with recording-and-memorising on, say where the ritual is read from: memory, \
                 notes or source",
            );
        }
        return;
    };
    if rule == RecordingRule::Off {
        problems.push(format!(
            "read_from {} applies only under the optional rule; set the option \
             recording-and-memorising=on or leave read_from out",
            read_from.name()
        ));
        return;
    }
    let deciphered_now = state
        .session_checks
        .iter()
        .any(|check| check.ritual == name && check.purpose == LoreCheckPurpose::Decipher);
    let missing = match read_from {
        ReadFrom::Memory if !state.memorised.contains(name) => Some(
            "is not memorised (a failed remembering check leaves it so); read it from the notes \
             (no check) or from the source after a new decipher check",
        ),
        ReadFrom::Notes if !state.notes.contains(name) => {
            Some("is not in the notes; copy it there first (record) or read it from elsewhere")
        }
        ReadFrom::Source
            if !(deciphered_now && state.known.contains(name) && !state.unknown.contains(name)) =>
        {
            Some(
                "has not been deciphered from the source this session; decipher it again before \
                 reading it from the source",
            )
        }
        _ => None,
    };
    if let Some(missing) = missing {
        problems.push(format!("ritual {name:?} {missing}"));
    }
}

pub(super) fn names_problems(what: &str, names: &BTreeSet<String>, problems: &mut Problems) {
    for name in names {
        if name.trim().is_empty() || name.trim() != name {
            problems.push(format!(
                "{what} ritual {name:?} is not a ritual name; give names without surrounding spaces"
            ));
        }
    }
}

pub(super) fn session_check_json(check: &SessionLoreCheck) -> Value {
    json!({
        "ritual": check.ritual,
        "purpose": check.purpose,
        "difficulty": check.difficulty.value(),
        "pool": check.pool,
    })
}
