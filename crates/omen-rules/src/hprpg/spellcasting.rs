//! Seed 003's spellcasting, resisting and catch-casting (003-M15..M20, A12, A15..A19).

use num_traits::Zero;
use omen_core::{DieSource, Limits, Probability};
use serde::{Deserialize, Serialize};

use super::rules::*;

// ---------------------------------------------------------------------------------------------------
// Spellcasting (003-M15..M20, A12, A15..A19).

/// The highest spell level, SUMNUS (003-M15).
pub const MAX_SPELL_LEVEL: u32 = 7;

/// The spell levels' names, NIHIL 0 to SUMNUS 7 (003-M15).
pub const SPELL_LEVELS: [&str; 8] = [
    "NIHIL", "PRIMUS", "DUA", "TRIA", "QUARTUM", "QUINTA", "SEXTUS", "SUMNUS",
];

pub(super) fn check_level(level: u32) -> Result<(), HprpgError> {
    if level > MAX_SPELL_LEVEL {
        Err(HprpgError::SpellLevel(level))
    } else {
        Ok(())
    }
}

/// The casting DV before clamping (003-M16): 8 + spell level − Affinity dots. [`Check::new`] clamps it.
///
/// # Errors
/// [`HprpgError::SpellLevel`] above 7.
pub fn casting_difficulty(level: u32, affinity: u32) -> Result<i64, HprpgError> {
    check_level(level)?;
    Ok(8 + i64::from(level) - i64::from(affinity))
}

/// FORTITUDE a casting costs to exceed the level cap of Affinity dots (003-M15, A12): 1 per level
/// above Affinity.
///
/// # Errors
/// [`HprpgError::SpellLevel`] above 7.
pub fn level_fortitude(level: u32, affinity: u32) -> Result<u32, HprpgError> {
    check_level(level)?;
    Ok(level.saturating_sub(affinity))
}

/// The casting pool (003-M16): Affinity + Aspect + bonus dice − penalty dice − 1 die per sustained
/// effect (concentration), at least 0.
pub fn casting_pool(
    affinity: u32,
    aspect: u32,
    bonuses: u32,
    penalties: u32,
    sustained: u32,
) -> u64 {
    pool_size(
        aspect,
        affinity,
        bonuses,
        penalties.saturating_add(sustained),
    )
}

/// How a spell reaches its targets, and so its required successes (003-M17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Delivery {
    /// SELF: no successes required.
    Caster,
    /// WANDTIP: 1 per target.
    Wandtip { targets: u32 },
    /// RANGED: 2 per target.
    Ranged { targets: u32 },
    /// MASS: 4 or more, as the GM sets.
    Mass { required: u32 },
}

impl Delivery {
    /// The successes required (003-M17).
    pub fn required(self) -> u64 {
        match self {
            Delivery::Caster => 0,
            Delivery::Wandtip { targets } => u64::from(targets),
            Delivery::Ranged { targets } => 2 * u64::from(targets),
            Delivery::Mass { required } => u64::from(required.max(4)),
        }
    }
}

/// How the optional successes are spent (003-M18).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct OptionalSuccesses {
    /// +1 POWER each.
    #[schemars(extend("x-cli-flag" = "overpower"))]
    pub overpower: u64,
    /// +1 resist DV each.
    #[schemars(extend("x-cli-flag" = "defy"))]
    pub defy: u64,
    /// +1 original duration each.
    #[schemars(extend("x-cli-flag" = "extend"))]
    pub extend: u64,
}

/// The cap on each optional effect (003-M18, A17): 2 × spell level successes, 1 for NIHIL.
pub fn optional_cap(level: u32) -> u64 {
    if level == 0 { 1 } else { 2 * u64::from(level) }
}

/// What a casting's net achieved (003-M17, A16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CastingOutcome {
    /// Net < 0: the casting fails with a catastrophe (the GM chooses the backfire).
    Catastrophe,
    /// Net = 0: the casting fails.
    Failure,
    /// Net ≥ 1 but below the requirement: reduce the targets, abandon, or catch-cast (003-M19).
    Short { net: u64, required: u64 },
    /// The spell takes effect with `optional` successes to spend.
    Cast { optional: u64 },
}

impl CastingOutcome {
    /// The outcome of a casting's `net` with `required` successes (003-A16: a cast needs net ≥ 1).
    pub fn of(net: i64, required: u64) -> CastingOutcome {
        match u64::try_from(net) {
            Err(_) => CastingOutcome::Catastrophe,
            Ok(0) => CastingOutcome::Failure,
            Ok(net) if net < required => CastingOutcome::Short { net, required },
            Ok(net) => CastingOutcome::Cast {
                optional: net - required,
            },
        }
    }
}

/// A spell that took effect, its optional successes spent (003-M18).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct CastSpell {
    pub level: u32,
    pub spent: OptionalSuccesses,
    /// Optional successes left unused (allowed).
    pub unused: u64,
    /// Spell level + OVERPOWER: the levels of harm dealt, or the rounds of a stun.
    pub power: u64,
    /// Added to the resist DV of anyone resisting it (003-M20).
    pub defy: u64,
}

/// Spends `optional` successes of a spell of `level` as `spent` says (003-M18, A17).
///
/// # Errors
/// [`HprpgError::SpellLevel`] above 7; [`HprpgError::OptionalCap`] when an effect exceeds its cap;
/// [`HprpgError::OptionalSpent`] when more is spent than there is.
pub fn spend_optional(
    level: u32,
    optional: u64,
    spent: OptionalSuccesses,
) -> Result<CastSpell, HprpgError> {
    check_level(level)?;
    let cap = optional_cap(level);
    for (effect, count) in [
        ("overpower", spent.overpower),
        ("defy", spent.defy),
        ("extend", spent.extend),
    ] {
        if count > cap {
            return Err(HprpgError::OptionalCap { effect, count, cap });
        }
    }
    let total = spent.overpower + spent.defy + spent.extend;
    if total > optional {
        return Err(HprpgError::OptionalSpent { total, optional });
    }
    Ok(CastSpell {
        level,
        spent,
        unused: optional - total,
        power: u64::from(level) + spent.overpower,
        defy: spent.defy,
    })
}

/// The resist DV before clamping (003-M20, A18): 8 + incoming spell level + its DEFY − resist-ability
/// dots. [`Check::new`] clamps it.
///
/// # Errors
/// [`HprpgError::SpellLevel`] above 7.
pub fn resist_difficulty(level: u32, defy: u64, resist_dots: u32) -> Result<i64, HprpgError> {
    check_level(level)?;
    let defy = i64::try_from(defy).unwrap_or(i64::MAX);
    Ok((8 + i64::from(level))
        .saturating_add(defy)
        .saturating_sub(i64::from(resist_dots)))
}

/// The POWER left after a resist of `net` (003-M20, A18, A19): each net success removes 1, a net
/// below 1 removes nothing; 0 nullifies the spell.
pub fn resisted_power(power: u64, net: i64) -> u64 {
    power.saturating_sub(u64::try_from(net).unwrap_or(0))
}

/// Whether a resist of `net` nullifies a spell of `power` (003-M20, A19): the resist succeeds (net ≥ 1)
/// and leaves POWER 0. A NIHIL spell starts at POWER 0, so a failed resist (net ≤ 0) leaves it at 0
/// without nullifying it: only a successful resist does.
pub fn resist_nullifies(power: u64, net: i64) -> bool {
    net >= 1 && resisted_power(power, net) == 0
}

/// Where a casting stands between catch-casts (003-S2, M19).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatchCasting {
    /// Net successes gathered so far.
    pub accumulated: u64,
    /// The successes the spell requires.
    pub required: u64,
    /// Catch-casts made so far.
    pub catch_casts: u64,
}

/// One catch-cast as rolled and what it left.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CatchCastRoll {
    pub roll: CheckRoll,
    pub outcome: CatchCastOutcome,
}

/// What a catch-cast did (003-M19, A15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CatchCastOutcome {
    /// Net ≤ 0: the casting fails (with a catastrophe if `catastrophe`); no further catch-casts.
    Failed { catastrophe: bool },
    /// Still short; another catch-cast may follow.
    Continue(CatchCasting),
    /// The spell takes effect with `optional` successes to spend (003-A15).
    Cast { optional: u64 },
}

impl CatchCasting {
    /// The state after a first casting of `net` that was cast but short of `required` (003-M19).
    ///
    /// # Errors
    /// [`HprpgError::NotShort`] when the net is below 1 or already meets the requirement.
    pub fn after(net: i64, required: u64) -> Result<Self, HprpgError> {
        match CastingOutcome::of(net, required) {
            CastingOutcome::Short { net, required } => Ok(CatchCasting {
                accumulated: net,
                required,
                catch_casts: 0,
            }),
            _ => Err(HprpgError::NotShort { net, required }),
        }
    }

    /// The next catch-cast: `casting` (the original casting check) with 1 die fewer per catch-cast
    /// so far and this one (003-A15), down to the zero pool.
    ///
    /// # Errors
    /// As [`Check::roll`].
    pub fn catch_cast(
        &self,
        casting: &Check,
        source: &mut dyn DieSource,
    ) -> Result<CatchCastRoll, HprpgError> {
        let k = usize::try_from(self.catch_casts + 1).unwrap_or(usize::MAX);
        let roll = casting
            .with_dice(casting.dice.saturating_sub(k))
            .roll(source)?;
        let outcome = self.advance(roll.net);
        Ok(CatchCastRoll { roll, outcome })
    }

    fn advance(&self, net: i64) -> CatchCastOutcome {
        match u64::try_from(net) {
            Ok(net) if net >= 1 => {
                let accumulated = self.accumulated + net;
                if accumulated >= self.required {
                    CatchCastOutcome::Cast {
                        optional: accumulated - self.required,
                    }
                } else {
                    CatchCastOutcome::Continue(CatchCasting {
                        accumulated,
                        required: self.required,
                        catch_casts: self.catch_casts + 1,
                    })
                }
            }
            _ => CatchCastOutcome::Failed {
                catastrophe: net < 0,
            },
        }
    }

    /// The exact probability that catch-casting from here completes the spell (003-M19), catching
    /// until it does or fails. Each catch-cast that continues adds at least 1, so at most
    /// `required − accumulated` catch-casts follow.
    ///
    /// # Errors
    /// As [`Check::net_distribution`].
    pub fn completion_probability(
        &self,
        casting: &Check,
        limits: &Limits,
    ) -> Result<Probability, HprpgError> {
        let mut memo = std::collections::BTreeMap::new();
        completion(*self, casting, limits, &mut memo)
    }
}

fn completion(
    state: CatchCasting,
    casting: &Check,
    limits: &Limits,
    memo: &mut std::collections::BTreeMap<(u64, u64), Probability>,
) -> Result<Probability, HprpgError> {
    if let Some(p) = memo.get(&(state.accumulated, state.catch_casts)) {
        return Ok(p.clone());
    }
    let k = usize::try_from(state.catch_casts + 1).unwrap_or(usize::MAX);
    let nets = casting
        .with_dice(casting.dice.saturating_sub(k))
        .net_distribution(limits)?;
    let mut p = Probability::zero();
    for (net, weight) in nets.entries() {
        let share = Probability::new(weight.clone(), nets.total().clone());
        match state.advance(*net) {
            CatchCastOutcome::Failed { .. } => {}
            CatchCastOutcome::Cast { .. } => p += share,
            CatchCastOutcome::Continue(next) => {
                p += share * completion(next, casting, limits, memo)?;
            }
        }
    }
    memo.insert((state.accumulated, state.catch_casts), p.clone());
    Ok(p)
}

/// The exact probability that a casting of `casting` needing `required` successes takes effect when
/// the caster catch-casts whenever short (003-M17, M19): net ≥ max(required, 1) at once, or short and
/// completed by catch-casting.
///
/// # Errors
/// As [`Check::net_distribution`].
pub fn completion_probability(
    casting: &Check,
    required: u64,
    limits: &Limits,
) -> Result<Probability, HprpgError> {
    let nets = casting.net_distribution(limits)?;
    let mut p = Probability::zero();
    let mut memo = std::collections::BTreeMap::new();
    for (net, weight) in nets.entries() {
        let share = Probability::new(weight.clone(), nets.total().clone());
        match CastingOutcome::of(*net, required) {
            CastingOutcome::Cast { .. } => p += share,
            CastingOutcome::Short { net, required } => {
                let state = CatchCasting {
                    accumulated: net,
                    required,
                    catch_casts: 0,
                };
                p += share * completion(state, casting, limits, &mut memo)?;
            }
            _ => {}
        }
    }
    Ok(p)
}
