//! Preparing the rolls: the same code for `apply` and `odds`, so the odds are those of the roll.

use omen_core::{DieSource, Distribution, Limits};
use serde_json::{Value, json};

use super::action::{CastAction, CheckAction, ResistAction};
use super::error::HprpgGameError;
use super::state::{DeliveryKind, HprpgState, LastCheck};
use crate::hprpg::character::{Aspect, CharacterSheet, Discipline, Feat, SustainedSpell};
use crate::hprpg::resources::{
    self, CheckAdjustment, FortitudeSpend, TwoRolls, apply_feats, keep_better_distribution,
    use_feat,
};
use crate::hprpg::zero_dots::ZeroDots;
use crate::hprpg::{
    CatchCasting, Check, CheckRoll, Delivery, HprpgError, HprpgOptions, OptionalSuccesses,
    casting_difficulty, casting_pool, given_difficulty, level_fortitude, optional_cap, pool_size,
    resist_difficulty,
};
use crate::vocabulary::stateful::Problems;

/// A check ready to roll, and the state once its costs are paid.
pub(super) struct Prepared {
    pub(super) check: Check,
    pub(super) keep_better: bool,
    pub(super) after: HprpgState,
    pub(super) info: Value,
}

/// Collects every problem of an action before anything is rolled.
#[derive(Default)]
pub(super) struct Collect(Problems);

impl Collect {
    fn keep<T, E: Into<HprpgGameError>>(&mut self, result: Result<T, E>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.0.push(error.into().to_string());
                None
            }
        }
    }

    fn finish(self) -> Result<(), HprpgGameError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(HprpgGameError::Several(self.0))
        }
    }
}

/// The figures of a check once its pool and DV are known.
pub(super) struct CheckFigures {
    pub(super) pool: u64,
    pub(super) difficulty: i64,
    pub(super) catastrophe_range: i64,
    pub(super) intractability: i64,
    pub(super) automatic: u64,
}

/// The check a preparation ends in, once every problem met on the way has been reported: the last
/// step shared by checks and casts.
pub(super) fn finish_check(
    mut collect: Collect,
    figures: &CheckFigures,
    options: &HprpgOptions,
    limits: &Limits,
) -> Result<Check, HprpgGameError> {
    let check = collect.keep(Check::new(
        figures.pool,
        figures.difficulty,
        figures.catastrophe_range,
        figures.intractability,
        options,
        limits,
    ));
    collect.finish()?;
    let check = check.ok_or(HprpgGameError::NothingToRoll)?;
    Ok(check.with_automatic_successes(figures.automatic))
}

/// Checks each feat (one with a check effect, taken, a use left today), counts its use and adds up
/// the adjustments of those that pass.
pub(super) fn take_feats(
    state: &mut HprpgState,
    feats: &[Feat],
    collect: &mut Collect,
) -> CheckAdjustment {
    let mut usable = Vec::new();
    for &feat in feats {
        let applies = collect.keep(apply_feats(&[feat])).is_some();
        if let Some(uses) = collect.keep(use_feat(&state.sheet.feats, &state.sheet.feat_uses, feat))
        {
            state.sheet.feat_uses = uses;
            if applies {
                usable.push(feat);
            }
        }
    }
    apply_feats(&usable).unwrap_or_default()
}

pub(super) fn spend_fortitude(
    state: &mut HprpgState,
    spend: FortitudeSpend,
    count: u32,
) -> Result<u32, HprpgGameError> {
    let cost = spend.cost(count);
    state.sheet.fortitude = state.sheet.fortitude.spend(cost)?;
    Ok(cost)
}

/// What joins the aspect's dots in a check's pool.
pub(super) enum Second<'a> {
    Nothing,
    Ability(&'a str),
    Affinity(Discipline),
    /// A resist ability's dots: the zero-dot rules of checks do not apply to resisting (003-A18).
    Resist(u32),
}

impl<'a> Second<'a> {
    fn of(
        ability: Option<&'a str>,
        affinity: Option<Discipline>,
    ) -> Result<Second<'a>, HprpgGameError> {
        match (ability, affinity) {
            (Some(ability), Some(affinity)) => Err(HprpgGameError::AbilityAndAffinity {
                ability: ability.to_string(),
                affinity,
            }),
            (Some(ability), None) => Ok(Second::Ability(ability)),
            (None, Some(affinity)) => Ok(Second::Affinity(affinity)),
            (None, None) => Ok(Second::Nothing),
        }
    }
}

/// What a check rolls, gathered from a `check` or a `resist` action.
pub(super) struct CheckInputs<'a> {
    pub(super) aspect: Option<Aspect>,
    pub(super) second: Second<'a>,
    pub(super) difficulty: i64,
    /// Bonus and penalty dice.
    pub(super) dice: (u32, u32),
    pub(super) catastrophe_range: i64,
    pub(super) intractability: i64,
    /// Automatic successes bought with FORTITUDE and granted by a ritual.
    pub(super) successes: (u32, u32),
    pub(super) feats: &'a [Feat],
    pub(super) aspect_only_knowledge: bool,
    pub(super) options: HprpgOptions,
}

pub(super) fn prepare_check(
    state: &HprpgState,
    inputs: CheckInputs<'_>,
    limits: &Limits,
) -> Result<Prepared, HprpgGameError> {
    let CheckInputs {
        aspect,
        second,
        difficulty,
        dice,
        catastrophe_range,
        intractability,
        successes,
        feats,
        aspect_only_knowledge,
        options,
    } = inputs;
    let mut after = state.clone();
    let mut collect = Collect::default();
    let sheet = &state.sheet;
    if aspect.is_none() && matches!(second, Second::Nothing) {
        return Err(HprpgGameError::NothingToRoll);
    }
    let aspect_dots = aspect.map_or(0, |a| sheet.aspect(a));
    let mut zero_dots = ZeroDots::Ordinary;
    let second_dots = match second {
        Second::Ability(name) => match collect.keep(sheet.ability(name)) {
            Some(rating) => {
                zero_dots = ZeroDots::of(&rating, aspect_only_knowledge);
                if zero_dots == ZeroDots::Impossible {
                    collect.keep::<(), _>(Err(HprpgGameError::KnowledgeWithoutDots(
                        rating.name.clone(),
                    )));
                }
                rating.dots
            }
            None => 0,
        },
        Second::Affinity(discipline) => sheet.affinity(discipline),
        Second::Resist(dots) => dots,
        Second::Nothing => 0,
    };
    let adjustment = take_feats(&mut after, feats, &mut collect);
    let (fortitude_successes, ritual_successes) = successes;
    let fortitude = collect
        .keep(spend_fortitude(
            &mut after,
            FortitudeSpend::AutomaticSuccess,
            fortitude_successes,
        ))
        .unwrap_or(0);
    let pool = pool_size(
        aspect_dots,
        second_dots,
        dice.0.saturating_add(adjustment.bonus_dice),
        dice.1.saturating_add(adjustment.penalty_dice),
    );
    let given = adjustment.fixed_difficulty.unwrap_or(difficulty);
    let difficulty = given
        .saturating_add(adjustment.difficulty_change)
        .saturating_add(zero_dots.difficulty_change());
    let automatic = resources::granted_successes(
        fortitude_successes,
        ritual_successes,
        adjustment.automatic_successes,
    );
    let figures = CheckFigures {
        pool,
        difficulty,
        catastrophe_range,
        intractability,
        automatic,
    };
    let check = finish_check(collect, &figures, &options, limits)?;
    let mut info = json!({
        "pool": pool,
        "difficulty": check.difficulty(),
        "intractability": check.intractability(),
        "automatic_successes": automatic,
        "fortitude_spent": fortitude,
        "zero_dot_rule": zero_dots.name(),
        "extra_damage": adjustment.extra_damage,
    });
    // Only with DRYAD'S EMBRACE, so that every other check's result (and a logged one replayed)
    // keeps its shape.
    if let Some(per_success) = adjustment.growth_per_success {
        info["growth_per_success"] = json!(per_success);
    }
    Ok(Prepared {
        check,
        keep_better: adjustment.keep_better_of_two,
        after,
        info,
    })
}

/// The aspect of a casting: the given one, or the discipline's default (the better rated of two,
/// the first on a tie).
pub(super) fn casting_aspect(
    sheet: &CharacterSheet,
    discipline: Discipline,
    given: Option<Aspect>,
) -> Aspect {
    given.unwrap_or_else(|| {
        let defaults = discipline.default_aspects();
        let mut best = defaults[0];
        for &aspect in &defaults[1..] {
            if sheet.aspect(aspect) > sheet.aspect(best) {
                best = aspect;
            }
        }
        best
    })
}

/// The delivery asked for. A MASS requirement below the rule's 4 is refused rather than raised, so
/// a player never casts against a requirement they did not ask for.
pub(super) fn delivery(
    kind: DeliveryKind,
    targets: u32,
    required: Option<u32>,
) -> Result<Delivery, HprpgGameError> {
    Ok(match kind {
        DeliveryKind::Caster => Delivery::Caster,
        DeliveryKind::Wandtip => Delivery::Wandtip { targets },
        DeliveryKind::Ranged => Delivery::Ranged { targets },
        DeliveryKind::Mass => match required.unwrap_or(4) {
            required if required < 4 => return Err(HprpgGameError::MassBelowFour(required)),
            required => Delivery::Mass { required },
        },
    })
}

pub(super) fn check_allocation(
    level: u32,
    optional: OptionalSuccesses,
) -> Result<(), HprpgGameError> {
    crate::hprpg::check_level(level)?;
    let cap = optional_cap(level);
    for (effect, count) in [
        ("overpower", optional.overpower),
        ("defy", optional.defy),
        ("extend", optional.extend),
    ] {
        if count > cap {
            return Err(HprpgGameError::OptionalCap {
                effect,
                count,
                cap,
                level,
            });
        }
    }
    Ok(())
}

/// The allocation that fits `available` optional successes: OVERPOWER first, then DEFY, then EXTEND.
pub(super) fn fit_allocation(requested: OptionalSuccesses, available: u64) -> OptionalSuccesses {
    let overpower = requested.overpower.min(available);
    let left = available - overpower;
    let defy = requested.defy.min(left);
    let left = left - defy;
    OptionalSuccesses {
        overpower,
        defy,
        extend: requested.extend.min(left),
    }
}

pub(super) struct PreparedCast {
    pub(super) check: Check,
    pub(super) keep_better: bool,
    pub(super) after: HprpgState,
    pub(super) required: u64,
    pub(super) extra_damage: u32,
    pub(super) info: Value,
}

/// The dice a casting draws on besides its aspect: the Affinity's dots, or RAGE's for a FURIOUS
/// SPELLCASTER, whose daily use and turn of RAGE it records in `after`.
fn casting_dice_from(
    state: &HprpgState,
    after: &mut HprpgState,
    discipline: Discipline,
    furious: bool,
    collect: &mut Collect,
) -> u32 {
    let sheet = &state.sheet;
    if !furious {
        return sheet.affinity(discipline);
    }
    if let Some(uses) = collect.keep(use_feat(
        &after.sheet.feats,
        &after.sheet.feat_uses,
        Feat::FuriousSpellcaster,
    )) {
        after.sheet.feat_uses = uses;
    }
    // A FURIOUS SPELLCASTER cast is the turn's use of RAGE by itself (003-M24, S3).
    after.sheet.rage_turns = resources::rage_turn(state.sheet.rage_turns);
    sheet.ability("RAGE").map_or(0, |rating| rating.dots)
}

/// The cast an action `cast` makes, for `apply` and `odds` alike.
pub(super) fn prepare_cast(
    state: &HprpgState,
    cast: &CastAction,
    limits: &Limits,
) -> Result<PreparedCast, HprpgGameError> {
    let options = HprpgOptions {
        difficulty_above_twelve: cast.difficulty_above_twelve,
        intractability_floor: cast.intractability_floor,
    };
    let (discipline, level) = (cast.discipline, cast.level);
    let mut collect = Collect::default();
    if state.casting.is_some() {
        collect.keep::<(), _>(Err(HprpgGameError::CastingPending));
    }
    if let Some(name) = &cast.sustain {
        // A clashing name is refused before any dice are rolled, not after the spell is cast.
        collect.keep(add_sustained(&mut state.clone(), name, None, None));
    }
    // An impossible level makes every later figure meaningless: refuse it alone.
    let level_cost = level_fortitude(level, state.sheet.affinity(discipline))?;
    collect.keep(check_allocation(level, cast.optional));
    let mut after = state.clone();
    let sheet = &state.sheet;
    let affinity = sheet.affinity(discipline);
    let adjustment = take_feats(&mut after, &cast.feats, &mut collect);
    let dice_from = casting_dice_from(state, &mut after, discipline, cast.furious, &mut collect);
    let fortitude = FortitudeSpend::SpellLevel
        .cost(level_cost)
        .saturating_add(FortitudeSpend::AutomaticSuccess.cost(cast.fortitude_successes));
    if let Some(left) = collect.keep(after.sheet.fortitude.spend(fortitude)) {
        after.sheet.fortitude = left;
    }
    let aspect = casting_aspect(sheet, discipline, cast.aspect);
    let sustained = u32::try_from(sheet.sustained_spells.len()).unwrap_or(u32::MAX);
    let pool = casting_pool(
        dice_from,
        sheet.aspect(aspect),
        cast.bonus_dice.saturating_add(adjustment.bonus_dice),
        cast.penalty_dice.saturating_add(adjustment.penalty_dice),
        sustained,
    );
    let difficulty = adjustment
        .fixed_difficulty
        .unwrap_or(casting_difficulty(level, affinity)?)
        .saturating_add(adjustment.difficulty_change);
    let automatic = resources::granted_successes(
        cast.fortitude_successes,
        cast.ritual_successes,
        adjustment.automatic_successes,
    );
    let figures = CheckFigures {
        pool,
        difficulty,
        catastrophe_range: cast.catastrophe_range,
        intractability: cast.intractability,
        automatic,
    };
    let check = finish_check(collect, &figures, &options, limits)?;
    let required = delivery(cast.delivery, cast.targets, cast.required)?.required();
    let info = json!({
        "aspect": aspect,
        "pool": pool,
        "difficulty": check.difficulty(),
        "concentration_penalty": sustained,
        "automatic_successes": automatic,
        "fortitude_spent": fortitude,
        "required": required,
    });
    Ok(PreparedCast {
        check,
        keep_better: adjustment.keep_better_of_two,
        after,
        required,
        extra_damage: adjustment.extra_damage,
        info,
    })
}

pub(super) fn roll_prepared(
    check: &Check,
    keep_better: bool,
    source: &mut dyn DieSource,
) -> Result<(CheckRoll, Option<TwoRolls>), HprpgError> {
    if keep_better {
        let rolls = resources::roll_keep_better(check, source)?;
        Ok((rolls.kept_roll().clone(), Some(rolls)))
    } else {
        Ok((check.roll(source)?, None))
    }
}

pub(super) fn nets_of(
    check: &Check,
    keep_better: bool,
    limits: &Limits,
) -> Result<Distribution<i64>, HprpgError> {
    if keep_better {
        keep_better_distribution(check, limits)
    } else {
        check.net_distribution(limits)
    }
}

/// The check an action `check` makes, for `apply` and `odds` alike.
pub(super) fn prepare_check_action(
    state: &HprpgState,
    action: &CheckAction,
    limits: &Limits,
) -> Result<Prepared, HprpgGameError> {
    let inputs = CheckInputs {
        aspect: action.aspect,
        second: Second::of(action.ability.as_deref(), action.affinity)?,
        difficulty: given_difficulty(action.difficulty)?,
        dice: (action.bonus_dice, action.penalty_dice),
        catastrophe_range: action.catastrophe_range,
        intractability: action.intractability,
        successes: (action.fortitude_successes, action.ritual_successes),
        feats: &action.feats,
        aspect_only_knowledge: action.aspect_only_knowledge,
        options: HprpgOptions {
            difficulty_above_twelve: action.difficulty_above_twelve,
            intractability_floor: action.intractability_floor,
        },
    };
    prepare_check(state, inputs, limits)
}

/// The resist check an action `resist` makes, with its RAGE penalty, for `apply` and `odds` alike.
pub(super) fn prepare_resist_action(
    state: &HprpgState,
    action: &ResistAction,
    limits: &Limits,
) -> Result<(Prepared, u32), HprpgGameError> {
    let rating = state.sheet.ability(&action.ability)?;
    let difficulty = resist_difficulty(action.level, action.defy, rating.dots)?;
    let penalty = resources::rage_resist_penalty(state.sheet.rage_turns);
    let inputs = CheckInputs {
        aspect: Some(action.aspect),
        second: Second::Resist(rating.dots),
        difficulty,
        dice: (
            action.bonus_dice,
            action.penalty_dice.saturating_add(penalty),
        ),
        catastrophe_range: action.catastrophe_range,
        intractability: 0,
        successes: (action.fortitude_successes, 0),
        feats: &action.feats,
        aspect_only_knowledge: false,
        options: HprpgOptions {
            difficulty_above_twelve: action.difficulty_above_twelve,
            intractability_floor: action.intractability_floor,
        },
    };
    let mut prepared = prepare_check(state, inputs, limits)?;
    prepared.info["resist_ability"] = json!(rating.name);
    Ok((prepared, penalty))
}

/// The check the next catch-cast rolls: the casting with 1 die fewer per catch-cast (003-M19, A15).
pub(super) fn catch_cast_check(casting: &Check, progress: &CatchCasting) -> Check {
    let k = usize::try_from(progress.catch_casts + 1).unwrap_or(usize::MAX);
    casting.with_dice(casting.dice().saturating_sub(k))
}

pub(super) fn focus_target(
    state: &HprpgState,
    limits: &Limits,
) -> Result<(LastCheck, Check), HprpgGameError> {
    let last = state
        .last_check
        .clone()
        .ok_or(HprpgGameError::NoLastCheck)?;
    if last.rerolled {
        return Err(HprpgGameError::AlreadyRerolled);
    }
    let check = last.check.check(limits)?;
    if !last.dice.iter().any(|&d| d <= check.catastrophe_range()) {
        return Err(HprpgGameError::NothingToReroll);
    }
    Ok((last, check))
}

/// 003-M8: a pool larger than the DV may succeed without a roll, at the GM's word, outside combat
/// and where failure is not dire. The check is still rolled; the note says the GM could skip it.
pub(super) fn automatic_success_note(check: &Check) -> Option<String> {
    let pool = u64::try_from(check.dice()).unwrap_or(u64::MAX);
    crate::hprpg::automatic_success_allowed(pool, check.difficulty()).then(|| {
        format!(
            "pool {pool} > DV {}: outside combat, and where failure is not dire, the GM may grant \
             the success without a roll (003-M8)",
            check.difficulty()
        )
    })
}

pub(super) fn add_sustained(
    after: &mut HprpgState,
    name: &str,
    discipline: Option<Discipline>,
    level: Option<u32>,
) -> Result<(), HprpgGameError> {
    if name.trim().is_empty() {
        return Err(HprpgGameError::UnnamedSpell);
    }
    if after.sheet.sustained_spells.iter().any(|s| s.name == name) {
        return Err(HprpgGameError::AlreadySustained(name.to_string()));
    }
    if let Some(level) = level {
        level_fortitude(level, 0)?;
    }
    after.sheet.sustained_spells.push(SustainedSpell {
        name: name.to_string(),
        discipline,
        level,
    });
    Ok(())
}
