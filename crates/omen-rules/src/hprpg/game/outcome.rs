//! What a roll comes to: summaries, effects taking hold, sustained spells, a reduced casting.

use serde::Serialize;
use serde_json::{Value, json};

use super::action::ReduceCastingAction;
use super::error::HprpgGameError;
use super::prepare::{add_sustained, delivery, fit_allocation};
use super::state::{DeliveryKind, HprpgState, PendingCasting};
use crate::hprpg::character::{CharacterSheet, Discipline, Feat};
use crate::hprpg::{
    CastSpell, CastingOutcome, Check, CheckRoll, OptionalSuccesses, spend_optional,
};

/// What an applied action comes to: its result, the state after it and a one-line summary.
pub(super) type Applied = (Value, HprpgState, String);

pub(super) fn dice_text(roll: &CheckRoll) -> String {
    roll.dice
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join("-")
}

pub(super) fn counted(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

pub(super) fn roll_summary(check: &Check, roll: &CheckRoll) -> String {
    format!(
        "{}d12 vs DV {}: {} → {}, {}, net {} ({})",
        check.dice(),
        check.difficulty(),
        dice_text(roll),
        counted(roll.successes, "success", "successes"),
        counted(roll.catastrophes, "catastrophe", "catastrophes"),
        roll.net,
        roll.degree
    )
}

pub(super) fn merge(mut base: Value, extra: Value) -> Value {
    if let (Value::Object(base), Value::Object(extra)) = (&mut base, extra) {
        base.extend(extra);
    }
    base
}

/// A spell about to take effect, as its caster asked for it.
pub(super) struct SpellEffect<'a> {
    pub(super) discipline: Discipline,
    pub(super) level: u32,
    /// How to spend the optional successes, fitted to those that came up.
    pub(super) requested: OptionalSuccesses,
    /// Extra damage from feats (NYMPH'S FURY, SAVAGE ATTACKER).
    pub(super) extra_damage: u32,
    /// The name to keep the spell up under, if any.
    pub(super) sustain: Option<&'a str>,
}

impl<'a> SpellEffect<'a> {
    /// The effect of a waiting casting, its optional successes spent as `requested`.
    pub(super) fn of_pending(
        pending: &'a PendingCasting,
        requested: OptionalSuccesses,
    ) -> SpellEffect<'a> {
        SpellEffect {
            discipline: pending.discipline,
            level: pending.level,
            requested,
            extra_damage: pending.extra_damage,
            sustain: pending.sustain.as_deref(),
        }
    }
}

/// Takes effect: spends the `optional` successes that came up and keeps the spell up if asked to.
pub(super) fn take_effect(
    after: &mut HprpgState,
    effect: &SpellEffect<'_>,
    optional: u64,
) -> Result<(CastSpell, u64), HprpgGameError> {
    let allocation = fit_allocation(effect.requested, optional);
    let spell = spend_optional(effect.level, optional, allocation)?;
    if let Some(name) = effect.sustain {
        add_sustained(after, name, Some(effect.discipline), Some(effect.level))?;
    }
    Ok((spell, spell.power + u64::from(effect.extra_damage)))
}

pub(super) fn outcome_name(outcome: &CastingOutcome) -> &'static str {
    match outcome {
        CastingOutcome::Catastrophe => "catastrophe",
        CastingOutcome::Failure => "failure",
        CastingOutcome::Short { .. } => "short",
        CastingOutcome::Cast { .. } => "cast",
    }
}

/// What a casting's net comes to, for the odds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum CastingResult {
    Catastrophe,
    Failure,
    Short,
    Cast,
}

pub(super) fn casting_result(net: i64, required: u64) -> CastingResult {
    match CastingOutcome::of(net, required) {
        CastingOutcome::Catastrophe => CastingResult::Catastrophe,
        CastingOutcome::Failure => CastingResult::Failure,
        CastingOutcome::Short { .. } => CastingResult::Short,
        CastingOutcome::Cast { .. } => CastingResult::Cast,
    }
}

pub(super) fn delivery_name(kind: DeliveryKind) -> String {
    match kind {
        DeliveryKind::Caster => "SELF",
        DeliveryKind::Wandtip => "WANDTIP",
        DeliveryKind::Ranged => "RANGED",
        DeliveryKind::Mass => "MASS",
    }
    .to_string()
}

/// The waiting casting once its targets or area are reduced (003-M17), before it takes effect: the
/// new requirement, checked to be a reduction within the casting's delivery.
pub(super) fn reduced_casting(
    state: &HprpgState,
    reduce: &ReduceCastingAction,
) -> Result<PendingCasting, HprpgGameError> {
    let ReduceCastingAction {
        delivery: kind,
        targets,
        required,
    } = *reduce;
    let mut pending = state.casting.clone().ok_or(HprpgGameError::NoCasting)?;
    // 003-M17: the reduction keeps the casting's delivery, so the one recorded is the default.
    let kind = kind
        .or(pending.delivery)
        .ok_or(HprpgGameError::ReduceUnknownDelivery)?;
    let current = pending.progress.required;
    match (kind, pending.delivery) {
        (DeliveryKind::Caster, _) => return Err(HprpgGameError::ReduceToSelf),
        (_, Some(was)) if was != kind => {
            return Err(HprpgGameError::ReduceOtherDelivery {
                was: delivery_name(was),
                asked: delivery_name(kind),
            });
        }
        // Before a first reduction the state knows only the requirement; it must be one this
        // delivery can ask for.
        (DeliveryKind::Ranged, None) if current % 2 != 0 => {
            return Err(HprpgGameError::ReduceUnfitDelivery {
                delivery: delivery_name(kind),
                required: current,
            });
        }
        (DeliveryKind::Mass, None) if current < 4 => {
            return Err(HprpgGameError::ReduceUnfitDelivery {
                delivery: delivery_name(kind),
                required: current,
            });
        }
        _ => {}
    }
    if targets == 0 && kind != DeliveryKind::Mass {
        return Err(HprpgGameError::ReduceToNoTargets);
    }
    let asked = delivery(kind, targets, required)?.required();
    if asked >= current {
        return Err(HprpgGameError::NotAReduction { current, asked });
    }
    pending.progress.required = asked;
    pending.delivery = Some(kind);
    Ok(pending)
}

pub(super) fn reduce_casting(
    state: &HprpgState,
    reduce: &ReduceCastingAction,
) -> Result<Applied, HprpgGameError> {
    let pending = reduced_casting(state, reduce)?;
    let progress = pending.progress;
    let mut after = state.clone();
    let mut result = json!({ "required": progress.required, "accumulated": progress.accumulated });
    let summary = if progress.accumulated >= progress.required {
        after.casting = None;
        let effect = SpellEffect::of_pending(&pending, pending.optional);
        let optional = progress.accumulated - progress.required;
        let (spell, damage) = take_effect(&mut after, &effect, optional)?;
        result["outcome"] = json!("cast");
        result["spell"] = json!(spell);
        result["damage"] = json!(damage);
        format!(
            "reduced to {} required: {} gathered, cast with POWER {}",
            progress.required, progress.accumulated, spell.power
        )
    } else {
        result["outcome"] = json!("short");
        result["catch_casting"] = json!(progress);
        after.casting = Some(pending);
        format!(
            "reduced to {} required: still short ({} of {}); catch-cast or abandon",
            progress.required, progress.accumulated, progress.required
        )
    };
    Ok((result, after, summary))
}

/// Feats of `feats` that are not among the character's archetype's feats (003-D4): allowed, since the
/// GM may grant any feat, but said, so a slip in the sheet does not pass unnoticed.
pub fn off_archetype_feats(sheet: &CharacterSheet, feats: &[Feat]) -> Vec<String> {
    let Some(archetype) = sheet.archetype else {
        return Vec::new();
    };
    feats
        .iter()
        .filter(|feat| !archetype.data().feats.contains(feat))
        .map(|feat| {
            format!(
                "{feat} is not a {archetype} feat (003-D4); it applies because the sheet has it, \
                 if the GM allowed it"
            )
        })
        .collect()
}

/// Adds the warnings of [`off_archetype_feats`] to a summary (the result JSON keeps its shape).
pub(super) fn append_archetype_warnings(summary: &mut String, state: &HprpgState, feats: &[Feat]) {
    for warning in off_archetype_feats(&state.sheet, feats) {
        summary.push_str(&format!("; warning: {warning}"));
    }
}
