//! Each action applied: state in, dice from the source, new state out, one function per action.

use omen_core::{DieSource, Limits};
use serde_json::{Value, json};

use super::action::{LoreAction, LoreKind, LoreRequest, RitualAction};
use super::requests::{
    dice_error, essence_request, lore_request, roll_json, roll_text, session_check_json,
};
use crate::ritual::{
    EssenceOutcome, LoreModifiers, RecordingRule, RitualError, RitualState, SessionReroll,
};
use crate::vocabulary::stateful::ActionError;

/// What an applied action comes to: its result, the state after it and a one-line summary.
type Applied = (Value, RitualState, String);

pub(super) fn apply_action(
    state: &RitualState,
    action: &RitualAction,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, ActionError> {
    if let Some(lore) = action.lore_action() {
        return lore_check_of(state, &lore, source, limits);
    }
    match action {
        RitualAction::EndSession { choice } => end_session(state, *choice, source, limits),
        RitualAction::Essence { .. } => essence(state, action, source, limits),
        RitualAction::Record { ritual } => record(state, ritual),
        RitualAction::Sleep {} => Ok(sleep(state)),
        // Lore checks are answered above.
        _ => Err(ActionError::Malformed {
            what: "action",
            message: "not a ritual action".to_string(),
        }),
    }
}

/// A `lore-check`, `decipher` or `memorise` action.
fn lore_check_of(
    state: &RitualState,
    lore: &LoreAction<'_>,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, ActionError> {
    let request = lore_request(state, lore, limits)?;
    // Deciphering and memorising take the familiarity bonuses from the lists themselves.
    let circumstances = lore.circumstances.modifiers(false, false);
    match lore.kind {
        LoreKind::Check { .. } => lore_check(state, &request, source, limits),
        LoreKind::Decipher => decipher(state, (&request, &circumstances), source, limits),
        LoreKind::Memorise => memorise(state, (&request, &circumstances), source, limits),
    }
}

fn lore_check(
    state: &RitualState,
    request: &LoreRequest,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, ActionError> {
    let name = &request.ritual;
    let done = state
        .check(
            name,
            request.difficulty,
            &request.modifiers,
            &request.options,
            limits,
            source,
        )
        .map_err(dice_error)?;
    let mut result = roll_json(&done.check, &done.roll);
    result["ritual"] = json!(name);
    let summary = format!(
        "Lore check on {name}, pool {}: {}",
        done.check.pool(),
        roll_text(&done.roll)
    );
    Ok((result, done.state, summary))
}

fn decipher(
    state: &RitualState,
    (request, circumstances): (&LoreRequest, &LoreModifiers),
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, ActionError> {
    let name = &request.ritual;
    let done = state
        .decipher(
            name,
            request.difficulty,
            circumstances,
            &request.options,
            limits,
            source,
        )
        .map_err(dice_error)?;
    let mut result = roll_json(&done.check, &done.roll);
    result["ritual"] = json!(name);
    result["list"] = json!(if done.roll.success {
        "known"
    } else {
        "unknown"
    });
    let summary = format!(
        "deciphering {name}, pool {}: {} ({})",
        done.check.pool(),
        roll_text(&done.roll),
        if done.roll.success {
            "now known"
        } else {
            "unknown until Lore rises"
        }
    );
    Ok((result, done.state, summary))
}

fn memorise(
    state: &RitualState,
    (request, circumstances): (&LoreRequest, &LoreModifiers),
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, ActionError> {
    let name = &request.ritual;
    let done = state
        .memorise(
            name,
            request.difficulty,
            circumstances,
            &request.options,
            limits,
            source,
        )
        .map_err(dice_error)?;
    let mut result = match (&done.check, &done.roll) {
        (Some(check), Some(roll)) => roll_json(check, roll),
        _ => json!({ "free": true }),
    };
    result["ritual"] = json!(name);
    result["memorised"] = json!(done.memorised);
    let summary = match &done.roll {
        None => format!("{name} memorised (the first one is free)"),
        Some(roll) => format!(
            "remembering {name}: {} ({})",
            roll_text(roll),
            if done.memorised {
                "memorised"
            } else {
                "back to the source or the notes"
            }
        ),
    };
    Ok((result, done.state, summary))
}

fn end_session(
    state: &RitualState,
    choice: SessionReroll,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, ActionError> {
    let end = state
        .end_session(choice, limits, source)
        .map_err(dice_error)?;
    let rerolled = end.reroll.as_ref().map_or(Value::Null, |(check, roll)| {
        let mut value = session_check_json(check);
        value["dice"] = json!(roll.dice);
        value["result"] = json!(roll.result);
        value["success"] = json!(roll.success);
        value
    });
    let summary = match &end.reroll {
        None => "session ended without a re-roll".to_string(),
        Some((check, roll)) => format!(
            "session re-roll of {} (difficulty {}, pool {}): {}{}",
            check.ritual,
            check.difficulty,
            check.pool,
            roll_text(roll),
            if end.lore_gained {
                format!("; Lore rises to {}", end.state.lore)
            } else {
                String::new()
            }
        ),
    };
    let result = json!({
        "rerolled": rerolled,
        "lore_gained": end.lore_gained,
        "lore": end.state.lore,
    });
    Ok((result, end.state, summary))
}

fn essence(
    state: &RitualState,
    action: &RitualAction,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, ActionError> {
    let request = essence_request(state, action, limits)?;
    let roll = request.check.roll(source).map_err(dice_error)?;
    let mut after = state.record_attempt(&request.ritual).map_err(dice_error)?;
    let performed = matches!(roll.outcome, EssenceOutcome::Reached(_));
    if performed {
        after = after.mark_performed(&request.ritual).map_err(dice_error)?;
    }
    let mut result = json!({
        "ritual": request.ritual,
        "pool": request.check.pool(),
        "repeated_attempts": request.repeated_attempts,
        "pairs": roll.pairs,
        "dice": roll.dice,
        "total": roll.total,
        "outcome": roll.outcome,
        "performed": performed,
    });
    let summary = format!(
        "{} with {} essence dice{}: total {} → {}",
        request.ritual,
        request.check.pool(),
        if roll.pairs > 0 {
            format!(" ({} pairs for 7)", roll.pairs)
        } else {
            String::new()
        },
        roll.total,
        match roll.outcome {
            EssenceOutcome::Failed => "failed".to_string(),
            EssenceOutcome::Reached(t) => format!("threshold {t} reached"),
        }
    );
    // Only under 000-M8's optional rule, so other results keep their shape.
    if let RitualAction::Essence {
        recording_and_memorising: RecordingRule::On,
        read_from: Some(read_from),
        ..
    } = action
    {
        result["read_from"] = json!(read_from);
    }
    Ok((result, after, summary))
}

fn record(state: &RitualState, ritual: &str) -> Result<Applied, ActionError> {
    let name = ritual.trim().to_string();
    if name.is_empty() {
        return Err(ActionError::rules(RitualError::EmptyRitualName));
    }
    if !state.known.contains(&name) {
        return Err(ActionError::Malformed {
            what: "ritual",
            message: format!(
                "{name:?} is not among the known rituals; decipher it from the source before \
                 copying it into the notes"
            ),
        });
    }
    if state.notes.contains(&name) {
        return Err(ActionError::Malformed {
            what: "ritual",
            message: format!("{name:?} is already in the notes; copy another ritual"),
        });
    }
    let mut after = state.clone();
    after.notes.insert(name.clone());
    let summary = format!(
        "{name} copied into the notes (time and materials only): performing it from them needs no \
         Lore check"
    );
    Ok((json!({ "ritual": name, "recorded": true }), after, summary))
}

fn sleep(state: &RitualState) -> Applied {
    let cleared: u64 = state.attempts.values().map(|&n| u64::from(n)).sum();
    let summary = format!("a full night's sleep: {cleared} attempt(s) forgotten");
    (
        json!({ "attempts_cleared": cleared }),
        state.full_night_sleep(),
        summary,
    )
}
