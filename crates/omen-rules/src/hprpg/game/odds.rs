//! The odds of the actions that roll, before rolling: each prepares its check as `apply` does, so the
//! odds are those of the roll.

use omen_core::{Distribution, Limits};
use serde_json::{Value, json};

use super::action::{CastAction, HprpgAction, ReduceCastingAction, ResistAction};
use super::error::{HprpgGameError, fail};
use super::outcome::{casting_result, merge, reduced_casting};
use super::prepare::{
    automatic_success_note, catch_cast_check, focus_target, nets_of, prepare_cast,
    prepare_check_action, prepare_resist_action,
};
use super::state::HprpgState;
use crate::hprpg::resources;
use crate::hprpg::{resist_nullifies, resisted_power};
use crate::vocabulary::stateful::{self, ActionError};

/// The odds of `action` from `state`, one function per action that rolls.
pub(super) fn odds_of(
    state: &HprpgState,
    action: &HprpgAction,
    limits: &Limits,
) -> Result<Value, ActionError> {
    match action {
        HprpgAction::Check(check) => {
            let prepared = prepare_check_action(state, check, limits).map_err(fail)?;
            let nets = nets_of(&prepared.check, prepared.keep_better, limits).map_err(fail)?;
            let mut odds = merge(prepared.info, nets_and_degrees(&nets));
            odds["automatic_success"] = json!(automatic_success_note(&prepared.check));
            Ok(odds)
        }
        HprpgAction::Cast(cast) => cast_odds(state, cast, limits),
        HprpgAction::CatchCast(_) => catch_cast_odds(state, limits),
        HprpgAction::ReduceCasting(reduce) => reduce_casting_odds(state, reduce, limits),
        HprpgAction::Resist(resist) => resist_odds(state, resist, limits),
        HprpgAction::UnwaveringFocus => {
            let (last, check) = focus_target(state, limits).map_err(fail)?;
            let before = check.score_dice(&last.dice);
            let nets =
                resources::reroll_distribution_given(&check, &before, limits).map_err(fail)?;
            Ok(merge(
                json!({ "before": before.net }),
                nets_and_degrees(&nets),
            ))
        }
        _ => Err(ActionError::Malformed {
            what: "action",
            message:
                "only check, cast, catch-cast, reduce-casting, resist and unwavering-focus have \
                      odds"
                    .to_string(),
        }),
    }
}

fn nets_and_degrees(nets: &Distribution<i64>) -> Value {
    json!({
        "net": stateful::distribution_json(nets),
        "degree": stateful::distribution_json(&resources::degrees(nets)),
    })
}

fn cast_odds(state: &HprpgState, cast: &CastAction, limits: &Limits) -> Result<Value, ActionError> {
    let prepared = prepare_cast(state, cast, limits).map_err(fail)?;
    let nets = nets_of(&prepared.check, prepared.keep_better, limits).map_err(fail)?;
    let required = prepared.required;
    let outcomes = nets.map(|&net| casting_result(net, required));
    let completion = if prepared.keep_better {
        Value::Null
    } else {
        stateful::probability_json(
            &crate::hprpg::completion_probability(&prepared.check, required, limits)
                .map_err(fail)?,
        )
    };
    Ok(merge(
        prepared.info,
        json!({
            "net": stateful::distribution_json(&nets),
            "outcome": stateful::distribution_json(&outcomes),
            "takes_effect_with_catch_casting": completion,
        }),
    ))
}

fn catch_cast_odds(state: &HprpgState, limits: &Limits) -> Result<Value, ActionError> {
    let pending = state
        .casting
        .clone()
        .ok_or(HprpgGameError::NoCasting)
        .map_err(fail)?;
    let casting = pending.casting.check(limits).map_err(fail)?;
    let next = catch_cast_check(&casting, &pending.progress);
    let nets = next.net_distribution(limits).map_err(fail)?;
    let completion = pending
        .progress
        .completion_probability(&casting, limits)
        .map_err(fail)?;
    Ok(json!({
        "dice": next.dice(),
        "difficulty": next.difficulty(),
        "progress": pending.progress,
        "net": stateful::distribution_json(&nets),
        "takes_effect": stateful::probability_json(&completion),
    }))
}

/// No dice now: the odds are those of the spell taking effect after the reduction, at once or by
/// catch-casting until it does or fails.
fn reduce_casting_odds(
    state: &HprpgState,
    reduce: &ReduceCastingAction,
    limits: &Limits,
) -> Result<Value, ActionError> {
    let pending = reduced_casting(state, reduce).map_err(fail)?;
    let progress = pending.progress;
    let takes_effect = if progress.accumulated >= progress.required {
        <omen_core::Probability as num_traits::One>::one()
    } else {
        let casting = pending.casting.check(limits).map_err(fail)?;
        progress
            .completion_probability(&casting, limits)
            .map_err(fail)?
    };
    Ok(json!({
        "required": progress.required,
        "accumulated": progress.accumulated,
        "takes_effect": stateful::probability_json(&takes_effect),
    }))
}

fn resist_odds(
    state: &HprpgState,
    resist: &ResistAction,
    limits: &Limits,
) -> Result<Value, ActionError> {
    let (prepared, penalty) = prepare_resist_action(state, resist, limits).map_err(fail)?;
    let nets = nets_of(&prepared.check, prepared.keep_better, limits).map_err(fail)?;
    let power = resist.power;
    let left = nets.map(|&net| resisted_power(power, net));
    let nullified = nets.probability_where(|&net| resist_nullifies(power, net));
    Ok(merge(
        prepared.info,
        json!({
            "rage_penalty": penalty,
            "net": stateful::distribution_json(&nets),
            "power": stateful::distribution_json(&left),
            "nullified": stateful::probability_json(&nullified),
        }),
    ))
}
