//! The actions that roll: a check, a cast, a catch-cast, resisting and UNWAVERING FOCUS. Each
//! prepares its check as the odds do (see `prepare`), rolls it and records what follows.

use omen_core::{DieSource, Limits};
use serde_json::json;

use super::action::{CastAction, CatchCastAction, CheckAction, ResistAction};
use super::error::HprpgGameError;
use super::outcome::{
    Applied, SpellEffect, append_archetype_warnings, dice_text, merge, outcome_name, roll_summary,
    take_effect,
};
use super::prepare::{
    Prepared, PreparedCast, automatic_success_note, catch_cast_check, check_allocation,
    focus_target, prepare_cast, prepare_check_action, prepare_resist_action, roll_prepared,
    spend_fortitude,
};
use super::state::{CheckSpec, HprpgState, LastCheck, PendingCasting};
use crate::hprpg::character::Feat;
use crate::hprpg::resources::{self, FortitudeSpend, use_feat};
use crate::hprpg::state_version;
use crate::hprpg::{
    CastingOutcome, CatchCastOutcome, Check, CheckRoll, resist_nullifies, resisted_power,
};

/// A check (003-M1..M9, M21, M24, M25).
pub(super) fn check(
    state: &HprpgState,
    action: &CheckAction,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, HprpgGameError> {
    let Prepared {
        check,
        keep_better,
        mut after,
        info,
    } = prepare_check_action(state, action, limits)?;
    let extra_damage = info["extra_damage"].as_u64().unwrap_or(0);
    let (roll, rolls) = roll_prepared(&check, keep_better, source)?;
    after.last_check = Some(LastCheck {
        check: CheckSpec::of(&check),
        dice: roll.dice.clone(),
        rerolled: false,
    });
    let mut summary = roll_summary(&check, &roll);
    let rage_damage = action.rage_attack.then(|| {
        // The attack is the turn's use of RAGE by itself (003-M24, S3).
        after.sheet.rage_turns = resources::rage_turn(state.sheet.rage_turns);
        if roll.net >= 1 {
            resources::rage_damage(roll.net).saturating_add(extra_damage)
        } else {
            0
        }
    });
    if let Some(damage) = rage_damage {
        summary.push_str(&format!(
            "; RAGE attack: {damage} damage, RAGE used {} turn(s) running",
            after.sheet.rage_turns
        ));
    }
    // DRYAD'S EMBRACE: the plant grows by the net successes (003-M25); a failed check grows
    // nothing.
    let growth = info["growth_per_success"]
        .as_u64()
        .map(|per| per.saturating_mul(u64::try_from(roll.net.max(0)).unwrap_or(0)));
    if let Some(centimetres) = growth {
        summary.push_str(&format!("; DRYAD'S EMBRACE: {centimetres} cm of growth"));
    }
    let automatic = automatic_success_note(&check);
    if let Some(note) = &automatic {
        summary.push_str(&format!("; {note}"));
    }
    append_archetype_warnings(&mut summary, state, &action.feats);
    let mut result = merge(
        info,
        json!({
            "roll": roll,
            "rolls": rolls,
            "net": roll.net,
            "degree": roll.degree,
            "automatic_success": automatic,
            "rage_damage": rage_damage,
            "rage_turns": after.sheet.rage_turns,
        }),
    );
    if let Some(centimetres) = growth {
        result["growth_centimetres"] = json!(centimetres);
    }
    Ok((result, after, summary))
}

/// A casting (003-M15..M19, M23): it takes effect, falls short and waits for a catch-cast, or
/// fails.
pub(super) fn cast(
    state: &HprpgState,
    action: &CastAction,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, HprpgGameError> {
    let PreparedCast {
        check,
        keep_better,
        mut after,
        required,
        extra_damage,
        info,
    } = prepare_cast(state, action, limits)?;
    let (roll, rolls) = roll_prepared(&check, keep_better, source)?;
    after.last_check = None;
    let outcome = CastingOutcome::of(roll.net, required);
    let mut result = merge(
        info,
        json!({
            "roll": roll,
            "rolls": rolls,
            "net": roll.net,
            "outcome": outcome_name(&outcome),
        }),
    );
    let tail = match outcome {
        CastingOutcome::Cast {
            optional: available,
        } => {
            let effect = SpellEffect {
                discipline: action.discipline,
                level: action.level,
                requested: action.optional,
                extra_damage,
                sustain: action.sustain.as_deref(),
            };
            let (spell, damage) = take_effect(&mut after, &effect, available)?;
            result["spell"] = json!(spell);
            result["damage"] = json!(damage);
            format!("cast with POWER {}", spell.power)
        }
        CastingOutcome::Short { net, required } => {
            let progress = crate::hprpg::CatchCasting::after(roll.net, required)?;
            after.casting = Some(waiting_casting(
                state,
                action,
                &check,
                progress,
                extra_damage,
            ));
            result["catch_casting"] = json!(progress);
            format!("short ({net} of {required}): catch-cast or abandon")
        }
        CastingOutcome::Failure => "the casting fails".to_string(),
        CastingOutcome::Catastrophe => "the casting fails catastrophically".to_string(),
    };
    let summary = cast_summary(state, action, (&check, &roll), &tail);
    Ok((result, after, summary))
}

/// The casting left waiting for its catch-casts (003-S2).
fn waiting_casting(
    state: &HprpgState,
    action: &CastAction,
    check: &Check,
    progress: crate::hprpg::CatchCasting,
    extra_damage: u32,
) -> PendingCasting {
    PendingCasting {
        discipline: action.discipline,
        level: action.level,
        casting: CheckSpec::of(check),
        progress,
        optional: action.optional,
        extra_damage,
        sustain: action.sustain.clone(),
        // A state of version 1 did not record it, and its replayed log must not.
        delivery: (state.version >= state_version::RECORDS_DELIVERY).then_some(action.delivery),
    }
}

/// A cast's summary: the spell, the roll, what came of it and any feat off the archetype.
fn cast_summary(
    state: &HprpgState,
    action: &CastAction,
    (check, roll): (&Check, &CheckRoll),
    tail: &str,
) -> String {
    let mut summary = format!(
        "{} {}: {}; {tail}",
        action.discipline,
        crate::hprpg::SPELL_LEVELS
            .get(action.level as usize)
            .copied()
            .unwrap_or("?"),
        roll_summary(check, roll)
    );
    let mut used = action.feats.clone();
    if action.furious {
        used.push(Feat::FuriousSpellcaster);
    }
    append_archetype_warnings(&mut summary, state, &used);
    summary
}

/// The next catch-cast of the waiting casting (003-M19, S2).
pub(super) fn catch_cast(
    state: &HprpgState,
    action: &CatchCastAction,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, HprpgGameError> {
    let pending = state.casting.clone().ok_or(HprpgGameError::NoCasting)?;
    let requested = action.optional.unwrap_or(pending.optional);
    check_allocation(pending.level, requested)?;
    let mut after = state.clone();
    let fortitude = if action.extra_action {
        spend_fortitude(&mut after, FortitudeSpend::ExtraAction, 1)?
    } else {
        0
    };
    let casting = pending.casting.check(limits)?;
    let caught = pending.progress.catch_cast(&casting, source)?;
    after.last_check = None;
    let mut result = json!({
        "dice": catch_cast_check(&casting, &pending.progress).dice(),
        "fortitude_spent": fortitude,
        "roll": caught.roll,
        "net": caught.roll.net,
    });
    let tail = match caught.outcome {
        CatchCastOutcome::Failed { catastrophe } => {
            after.casting = None;
            result["outcome"] = json!(if catastrophe {
                "catastrophe"
            } else {
                "failure"
            });
            "the casting fails".to_string()
        }
        CatchCastOutcome::Continue(next) => {
            if let Some(casting) = after.casting.as_mut() {
                casting.progress = next;
                casting.optional = requested;
            }
            result["outcome"] = json!("short");
            result["catch_casting"] = json!(next);
            format!("still short ({} of {})", next.accumulated, next.required)
        }
        CatchCastOutcome::Cast {
            optional: available,
        } => {
            after.casting = None;
            let effect = SpellEffect::of_pending(&pending, requested);
            let (spell, damage) = take_effect(&mut after, &effect, available)?;
            result["outcome"] = json!("cast");
            result["spell"] = json!(spell);
            result["damage"] = json!(damage);
            format!("cast with POWER {}", spell.power)
        }
    };
    let summary = format!(
        "catch-cast {}: {} → net {}; {tail}",
        pending.progress.catch_casts + 1,
        dice_text(&caught.roll),
        caught.roll.net
    );
    Ok((result, after, summary))
}

/// Resisting a spell (003-M20, M24).
pub(super) fn resist(
    state: &HprpgState,
    action: &ResistAction,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, HprpgGameError> {
    let (prepared, penalty) = prepare_resist_action(state, action, limits)?;
    let Prepared {
        check,
        keep_better,
        mut after,
        info,
    } = prepared;
    let (roll, rolls) = roll_prepared(&check, keep_better, source)?;
    after.last_check = None;
    let power = action.power;
    let left = resisted_power(power, roll.net);
    let nullified = resist_nullifies(power, roll.net);
    let summary = format!(
        "resist: {}; POWER {power} → {left}{}",
        roll_summary(&check, &roll),
        if nullified { ": nullified" } else { "" }
    );
    let result = merge(
        info,
        json!({
            "rage_penalty": penalty,
            "roll": roll,
            "rolls": rolls,
            "net": roll.net,
            "degree": roll.degree,
            "power": left,
            "nullified": nullified,
        }),
    );
    Ok((result, after, summary))
}

/// UNWAVERING FOCUS: 1 FORTITUDE to reroll the last check's catastrophe dice (003-M25).
pub(super) fn unwavering_focus(
    state: &HprpgState,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, HprpgGameError> {
    let (last, check) = focus_target(state, limits)?;
    let mut after = state.clone();
    after.sheet.feat_uses = use_feat(
        &state.sheet.feats,
        &state.sheet.feat_uses,
        Feat::UnwaveringFocus,
    )?;
    spend_fortitude(&mut after, FortitudeSpend::UnwaveringFocus, 1)?;
    let before = check.score_dice(&last.dice);
    let roll = resources::reroll_catastrophes(&check, &before, source)?;
    after.last_check = Some(LastCheck {
        check: last.check,
        dice: roll.dice.clone(),
        rerolled: true,
    });
    let summary = format!(
        "UNWAVERING FOCUS: {} → {}",
        dice_text(&before),
        roll_summary(&check, &roll)
    );
    Ok((
        json!({ "before": before, "roll": roll, "net": roll.net, "degree": roll.degree }),
        after,
        summary,
    ))
}
