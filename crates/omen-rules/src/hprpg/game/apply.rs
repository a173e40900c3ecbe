//! Each action applied: state in, dice from the source, new state out. The actions that roll are in
//! `rolls`; here are the dispatch and the bookkeeping of FORTITUDE, health, sustained spells, RAGE,
//! feats and Galleons.

use omen_core::{DieSource, Limits};
use serde_json::json;

use super::action::HprpgAction;
use super::error::HprpgGameError;
use super::outcome::{Applied, append_archetype_warnings, reduce_casting};
use super::prepare::{add_sustained, spend_fortitude};
use super::rolls;
use super::state::HprpgState;
use crate::hprpg::character::{Discipline, Feat};
use crate::hprpg::resources::{self, FortitudeSpend, feat_data, use_feat};

/// Applies `action` to `state`, one function per action.
pub(super) fn apply_action(
    state: &HprpgState,
    action: &HprpgAction,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<Applied, HprpgGameError> {
    match action {
        HprpgAction::Check(check) => rolls::check(state, check, source, limits),
        HprpgAction::Cast(cast) => rolls::cast(state, cast, source, limits),
        HprpgAction::CatchCast(catch) => rolls::catch_cast(state, catch, source, limits),
        HprpgAction::ReduceCasting(reduce) => reduce_casting(state, reduce),
        HprpgAction::AbandonCasting => abandon_casting(state),
        HprpgAction::Resist(resist) => rolls::resist(state, resist, source, limits),
        HprpgAction::SpendFortitude { spend, count } => spend_fortitude_on(state, *spend, *count),
        HprpgAction::RegainFortitude { points } => regain_fortitude(state, *points),
        HprpgAction::TakeHarm { levels } => take_harm(state, *levels),
        HprpgAction::Heal { levels } => heal(state, *levels),
        HprpgAction::OrganicRepose => organic_repose(state),
        HprpgAction::UnwaveringFocus => rolls::unwavering_focus(state, source, limits),
        HprpgAction::Sustain {
            spell,
            discipline,
            level,
        } => sustain(state, spell, *discipline, *level),
        HprpgAction::EndSustain { spell } => end_sustain(state, spell),
        HprpgAction::RageTurn => rage_turn(state),
        HprpgAction::CalmTurn => calm_turn(state),
        HprpgAction::NewDay => new_day(state),
        HprpgAction::UseFeat { feat } => use_narrative_feat(state, *feat),
        HprpgAction::Movement => movement(state),
        HprpgAction::GainGalleons { amount } => gain_galleons(state, *amount),
    }
}

fn abandon_casting(state: &HprpgState) -> Result<Applied, HprpgGameError> {
    if state.casting.is_none() {
        return Err(HprpgGameError::NoCasting);
    }
    let mut after = state.clone();
    after.casting = None;
    Ok((
        json!({ "abandoned": true }),
        after,
        "the casting is abandoned".to_string(),
    ))
}

fn spend_fortitude_on(
    state: &HprpgState,
    spend: FortitudeSpend,
    count: u32,
) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    let cost = spend_fortitude(&mut after, spend, count)?;
    Ok((
        json!({ "spent": cost, "fortitude": after.sheet.fortitude }),
        after.clone(),
        format!(
            "spent {cost} FORTITUDE ({} left)",
            after.sheet.fortitude.current
        ),
    ))
}

fn regain_fortitude(state: &HprpgState, points: u32) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    after.sheet.fortitude = state.sheet.fortitude.regain(points);
    let gained = after.sheet.fortitude.current - state.sheet.fortitude.current;
    let nourishment = state
        .sheet
        .personality
        .map(|personality| personality.data().nourishment);
    Ok((
        json!({ "regained": gained, "fortitude": after.sheet.fortitude,
                "nourishment": nourishment }),
        after.clone(),
        format!(
            "regained {gained} FORTITUDE ({} of {})",
            after.sheet.fortitude.current, after.sheet.fortitude.max
        ),
    ))
}

fn take_harm(state: &HprpgState, levels: u32) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    let (health, unabsorbed) = state.sheet.health.lose(levels);
    after.sheet.health = health;
    Ok((
        json!({ "health": health, "unabsorbed": unabsorbed, "down": health.current == 0 }),
        after,
        format!(
            "took {levels} harm: health {} of {}",
            health.current, health.max
        ),
    ))
}

fn heal(state: &HprpgState, levels: u32) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    after.sheet.health = state.sheet.health.regain(levels);
    Ok((
        json!({ "health": after.sheet.health }),
        after.clone(),
        format!(
            "healed: health {} of {}",
            after.sheet.health.current, after.sheet.health.max
        ),
    ))
}

fn organic_repose(state: &HprpgState) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    after.sheet.feat_uses = use_feat(
        &state.sheet.feats,
        &state.sheet.feat_uses,
        Feat::OrganicRepose,
    )?;
    let data = feat_data(Feat::OrganicRepose);
    spend_fortitude(&mut after, FortitudeSpend::OrganicRepose, 1)?;
    let health = match data.effect {
        resources::FeatEffect::Heal { health } => health,
        _ => 0,
    };
    after.sheet.health = after.sheet.health.regain(health);
    Ok((
        json!({ "health": after.sheet.health, "fortitude": after.sheet.fortitude }),
        after.clone(),
        format!(
            "ORGANIC REPOSE: health {} of {}",
            after.sheet.health.current, after.sheet.health.max
        ),
    ))
}

fn sustain(
    state: &HprpgState,
    spell: &str,
    discipline: Option<Discipline>,
    level: Option<u32>,
) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    add_sustained(&mut after, spell, discipline, level)?;
    let count = after.sheet.sustained_spells.len();
    Ok((
        json!({ "sustained": count }),
        after,
        format!("sustaining {spell}: −{count} dice on every casting"),
    ))
}

fn end_sustain(state: &HprpgState, spell: &str) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    after.sheet.sustained_spells.retain(|s| s.name != spell);
    if after.sheet.sustained_spells.len() == state.sheet.sustained_spells.len() {
        let active = state
            .sheet
            .sustained_spells
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>();
        return Err(HprpgGameError::NotSustained {
            name: spell.to_string(),
            active: if active.is_empty() {
                "none".to_string()
            } else {
                active.join(", ")
            },
        });
    }
    let count = after.sheet.sustained_spells.len();
    Ok((
        json!({ "sustained": count }),
        after,
        format!("{spell} ends: {count} spell(s) still sustained"),
    ))
}

fn rage_turn(state: &HprpgState) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    after.sheet.rage_turns = resources::rage_turn(state.sheet.rage_turns);
    let penalty = resources::rage_resist_penalty(after.sheet.rage_turns);
    Ok((
        json!({ "rage_turns": after.sheet.rage_turns, "resist_penalty": penalty }),
        after,
        format!("RAGE: −{penalty} dice on Resist checks"),
    ))
}

fn calm_turn(state: &HprpgState) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    after.sheet.rage_turns = resources::calm_turn(state.sheet.rage_turns);
    Ok((
        json!({ "rage_turns": 0, "resist_penalty": 0 }),
        after,
        "a turn without RAGE: no Resist penalty".to_string(),
    ))
}

fn new_day(state: &HprpgState) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    after.sheet.feat_uses.clear();
    Ok((
        json!({ "feat_uses": {} }),
        after,
        "a new day: daily feats are available again".to_string(),
    ))
}

/// A feat without numbers, which the GM adjudicates; one with numbers is refused with the action
/// that applies it.
fn use_narrative_feat(state: &HprpgState, feat: Feat) -> Result<Applied, HprpgGameError> {
    let data = feat_data(feat);
    if data.effect != resources::FeatEffect::Narrative {
        let how = match data.effect {
            resources::FeatEffect::Heal { .. } => "organic-repose",
            resources::FeatEffect::RerollCatastrophes => "unwavering-focus",
            resources::FeatEffect::ExtraGalleons { .. } => "gain-galleons",
            resources::FeatEffect::RageForAffinity => "cast with furious",
            _ => "a check or cast naming it among its feats",
        };
        return Err(HprpgGameError::FeatWithNumbers { feat, how });
    }
    let mut after = state.clone();
    after.sheet.feat_uses = use_feat(&state.sheet.feats, &state.sheet.feat_uses, feat)?;
    let used = after.sheet.feat_uses.get(&feat).copied();
    let mut summary = match (used, data.per_day) {
        (Some(used), Some(per_day)) => {
            format!("{feat}: used {used} of {per_day} today ({})", data.when)
        }
        _ => format!("{feat}: used ({})", data.when),
    };
    append_archetype_warnings(&mut summary, state, std::slice::from_ref(&feat));
    Ok((
        json!({ "feat": feat, "uses_today": used, "per_day": data.per_day }),
        after,
        summary,
    ))
}

fn movement(state: &HprpgState) -> Result<Applied, HprpgGameError> {
    let dots = state.sheet.ability("SPEED").map_or(0, |rating| rating.dots);
    let metres = resources::speed_movement(dots);
    Ok((
        json!({ "speed": dots, "extra_metres_per_round": metres }),
        state.clone(),
        format!("SPEED {dots}: +{metres} m of movement per combat round"),
    ))
}

fn gain_galleons(state: &HprpgState, amount: u64) -> Result<Applied, HprpgGameError> {
    let mut after = state.clone();
    let gained = resources::galleons_gained(amount, state.sheet.has_feat(Feat::OneForYouTwoForMe));
    after.sheet.galleons = state.sheet.galleons.saturating_add(gained);
    Ok((
        json!({ "gained": gained, "galleons": after.sheet.galleons }),
        after.clone(),
        format!("gained {gained} Galleons ({} in all)", after.sheet.galleons),
    ))
}
