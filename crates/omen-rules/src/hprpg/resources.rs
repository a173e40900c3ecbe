//! What a character spends and keeps track of (003-M13, M21, M23, M24, M25, S3, A12, A13, A20):
//! FORTITUDE and health as bounded resources ([`Resource`]), the FORTITUDE spends ([`FortitudeSpend`]),
//! RAGE's cumulative penalty ([`rage_resist_penalty`]), the feats as data ([`feat_data`]) applied to a
//! check by a pure function ([`apply_feats`]), RAPID REFLEXES ([`keep_better_distribution`],
//! [`roll_keep_better`]) and UNWAVERING FOCUS ([`rerolled_distribution`], [`reroll_catastrophes`]),
//! daily uses ([`use_feat`]), automatic successes from FORTITUDE and rituals ([`granted_successes`])
//! and resource-limited attempts ([`Attempts`]).
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use omen_rules::hprpg::resources::{Resource, FortitudeSpend, keep_better_distribution};
//! use omen_rules::hprpg::{Check, HprpgOptions};
//!
//! // Two automatic successes cost two FORTITUDE (003-A13).
//! let fortitude = Resource::full(3).spend(FortitudeSpend::AutomaticSuccess.cost(2))?;
//! assert_eq!(fortitude.current, 1);
//! // RAPID REFLEXES, one die against DV 12: the better of two rolls succeeds 1 − (11/12)² = 23/144.
//! let check = Check::new(1, 12, 1, 0, &HprpgOptions::default(), &Limits::default())?;
//! let kept = keep_better_distribution(&check, &Limits::default())?;
//! assert_eq!(kept.probability(&1).to_string(), "23/144");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;

use omen_core::{Die, DieSource, Distribution, Limits, Weight};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::character::Feat;
use super::{Check, CheckRoll, Counts, Degree, HprpgError, SIDES};

/// Why a resource could not be spent or a feat used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ResourceError {
    #[error(
        "not enough {what}: {needed} needed, {current} left; spend less or regain {what} first"
    )]
    NotEnough {
        what: &'static str,
        needed: u32,
        current: u32,
    },
    #[error("the character has not taken the feat {0}; add it to the sheet's feats first")]
    FeatNotTaken(Feat),
    #[error(
        "{feat} is used up today ({per_day} a day); wait for a new day (the new-day action resets \
         daily uses)"
    )]
    FeatUsedUp { feat: Feat, per_day: u32 },
    #[error("{0} does not change a check's dice or difficulty; leave it out of the check's feats")]
    NotACheckFeat(Feat),
    #[error("no attempts left; a new attempt needs a material change of circumstances")]
    NoAttemptsLeft,
    #[error(transparent)]
    Rules(#[from] HprpgError),
}

// ---------------------------------------------------------------------------------------------------
// Bounded resources: FORTITUDE and health (003-A14).

/// A resource with a current value and a maximum (003-A14: the maxima are set by the table, no
/// formula). FORTITUDE points and levels of health.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct Resource {
    pub current: u32,
    pub max: u32,
}

impl Resource {
    /// A full resource of `max`.
    pub fn full(max: u32) -> Resource {
        Resource { current: max, max }
    }

    /// The resource after spending `points`.
    ///
    /// # Errors
    /// [`ResourceError::NotEnough`] when fewer than `points` are left; nothing is spent.
    pub fn spend(self, points: u32) -> Result<Resource, ResourceError> {
        self.spend_as("fortitude", points)
    }

    /// As [`Resource::spend`], naming the resource in the error.
    ///
    /// # Errors
    /// [`ResourceError::NotEnough`] when fewer than `points` are left.
    pub fn spend_as(self, what: &'static str, points: u32) -> Result<Resource, ResourceError> {
        match self.current.checked_sub(points) {
            Some(current) => Ok(Resource { current, ..self }),
            None => Err(ResourceError::NotEnough {
                what,
                needed: points,
                current: self.current,
            }),
        }
    }

    /// The resource after regaining `points`, never above the maximum.
    pub fn regain(self, points: u32) -> Resource {
        Resource {
            current: self.current.saturating_add(points).min(self.max),
            ..self
        }
    }

    /// The resource after losing `points` (harm), never below 0, and the points that found nothing
    /// left to take.
    pub fn lose(self, points: u32) -> (Resource, u32) {
        let taken = points.min(self.current);
        (
            Resource {
                current: self.current - taken,
                ..self
            },
            points - taken,
        )
    }
}

// ---------------------------------------------------------------------------------------------------
// FORTITUDE (003-M23, A12, A13) and rituals (003-M21).

/// What FORTITUDE buys (003-M23); each costs 1 point.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum FortitudeSpend {
    /// Each spell level above the Affinity (003-A12).
    SpellLevel,
    /// An extra action, e.g. an immediate catch-cast (003-M19).
    ExtraAction,
    /// One automatic success (003-A13, M9).
    AutomaticSuccess,
    /// UNWAVERING FOCUS's reroll of the catastrophe dice (003-M25).
    UnwaveringFocus,
    /// ORGANIC REPOSE's healing (003-M25).
    OrganicRepose,
}

/// FORTITUDE per spend (003-M23, A12, A13).
pub const FORTITUDE_PER_SPEND: u32 = 1;

impl FortitudeSpend {
    /// The FORTITUDE `count` of these cost: 1 point each.
    pub fn cost(self, count: u32) -> u32 {
        count.saturating_mul(FORTITUDE_PER_SPEND)
    }
}

/// The automatic successes of a check (003-M9, M21, A13): one per FORTITUDE point spent on them, those
/// a ritual grants (the GM decides how many a well-described ritual is worth), and those of feats.
/// They feed [`Check::with_automatic_successes`].
pub fn granted_successes(fortitude_points: u32, ritual: u32, feats: u64) -> u64 {
    u64::from(fortitude_points)
        .saturating_add(u64::from(ritual))
        .saturating_add(feats)
}

// ---------------------------------------------------------------------------------------------------
// RAGE (003-M24, S3).

/// Damage per success of a rage-fuelled weapon attack (003-M24).
pub const RAGE_DAMAGE_PER_SUCCESS: u64 = 2;

/// The damage of a rage-fuelled weapon attack with `net` successes (003-M24); nothing below 1.
pub fn rage_damage(net: i64) -> u64 {
    u64::try_from(net)
        .unwrap_or(0)
        .saturating_mul(RAGE_DAMAGE_PER_SUCCESS)
}

/// The RAGE counter after a turn using RAGE (003-S3): one more die lost on Resist checks.
pub fn rage_turn(rage_turns: u32) -> u32 {
    rage_turns.saturating_add(1)
}

/// The RAGE counter after a turn without RAGE (003-S3): reset.
pub fn calm_turn(_rage_turns: u32) -> u32 {
    0
}

/// Dice lost on every Resist check (003-M24): one per consecutive turn of RAGE.
pub fn rage_resist_penalty(rage_turns: u32) -> u32 {
    rage_turns
}

// ---------------------------------------------------------------------------------------------------
// Feats (003-M25, A20).

/// What a feat does in numbers (003-M25).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "effect")]
pub enum FeatEffect {
    /// Extra dice on the check.
    BonusDice { dice: u32 },
    /// A change of the check's DV.
    DifficultyChange { change: i64 },
    /// Automatic successes (003-M9).
    AutomaticSuccesses { successes: u64 },
    /// Roll twice, keep the roll with the higher net (003-A20).
    KeepBetterOfTwo,
    /// Reroll every catastrophe die once, declared after the roll.
    RerollCatastrophes,
    /// A check of a fixed DV with a given ability; `centimetres_per_success` of growth.
    Growth {
        difficulty: i64,
        ability: &'static str,
        centimetres_per_success: u32,
    },
    /// Extra levels of damage.
    ExtraDamage { damage: u32 },
    /// Levels of health recovered.
    Heal { health: u32 },
    /// Extra Galleons whenever the party gains some.
    ExtraGalleons { galleons: u64 },
    /// An extra attack at a dice penalty.
    ExtraAttack { penalty_dice: u32 },
    /// RAGE dots replace the Affinity's dice in a casting; the level cap stays the Affinity's.
    RageForAffinity,
    /// No numbers: the GM adjudicates.
    Narrative,
}

/// A feat's data (003-D4, M25).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FeatData {
    pub feat: Feat,
    pub effect: FeatEffect,
    /// Uses a day, if limited.
    pub per_day: Option<u32>,
    /// FORTITUDE each use costs.
    pub fortitude: u32,
    /// When it applies (the GM judges whether it does).
    pub when: &'static str,
}

const fn feat(
    feat: Feat,
    effect: FeatEffect,
    per_day: Option<u32>,
    fortitude: u32,
    when: &'static str,
) -> FeatData {
    FeatData {
        feat,
        effect,
        per_day,
        fortitude,
        when,
    }
}

/// Every feat's data, in [`Feat::ALL`] order (003-M25).
pub const FEATS: [FeatData; 22] = [
    feat(
        Feat::Ambush,
        FeatEffect::BonusDice { dice: 2 },
        None,
        0,
        "the first attack from hiding, a trap or an ambush",
    ),
    feat(
        Feat::ColdCases,
        FeatEffect::DifficultyChange { change: -2 },
        None,
        0,
        "a KNOWLEDGE check related to a past case",
    ),
    feat(
        Feat::FamiliarTerrain,
        FeatEffect::BonusDice { dice: 1 },
        None,
        0,
        "an action using the surroundings of the favoured terrain",
    ),
    feat(
        Feat::LieDetector,
        FeatEffect::Narrative,
        None,
        0,
        "someone deliberately lies to the character",
    ),
    feat(
        Feat::RapidReflexes,
        FeatEffect::KeepBetterOfTwo,
        None,
        0,
        "a REFLEX roll",
    ),
    feat(
        Feat::UnwaveringFocus,
        FeatEffect::RerollCatastrophes,
        Some(1),
        1,
        "after any roll with catastrophes",
    ),
    feat(
        Feat::AsteriasEyes,
        FeatEffect::BonusDice { dice: 1 },
        None,
        0,
        "a sight-related check under an open sky",
    ),
    feat(
        Feat::DryadsEmbrace,
        FeatEffect::Growth {
            difficulty: 8,
            ability: "NURTURE",
            centimetres_per_success: 30,
        },
        Some(1),
        0,
        "a NURTURE check on a plant",
    ),
    feat(
        Feat::NaturesCloak,
        FeatEffect::DifficultyChange { change: -2 },
        None,
        0,
        "a COVERT action in a natural space",
    ),
    feat(
        Feat::NymphsFury,
        FeatEffect::ExtraDamage { damage: 1 },
        None,
        0,
        "an ELEMENTAL spell",
    ),
    feat(
        Feat::OrganicRepose,
        FeatEffect::Heal { health: 3 },
        Some(1),
        1,
        "at any time",
    ),
    feat(
        Feat::SatyrSpirit,
        FeatEffect::AutomaticSuccesses { successes: 1 },
        None,
        0,
        "a spell cast on an animal the character is not in combat with",
    ),
    feat(
        Feat::BurnBook,
        FeatEffect::BonusDice { dice: 2 },
        None,
        0,
        "spreading rumours, misinformation or gossip, or discrediting someone",
    ),
    feat(
        Feat::MesmerisingPresence,
        FeatEffect::Narrative,
        Some(1),
        0,
        "hypnotising a person slightly",
    ),
    feat(
        Feat::OneForYouTwoForMe,
        FeatEffect::ExtraGalleons { galleons: 1 },
        None,
        0,
        "the character or an ally gains Galleons",
    ),
    feat(
        Feat::UnbreakableVow,
        FeatEffect::Narrative,
        None,
        0,
        "a deal shaken on willingly",
    ),
    feat(
        Feat::Bloodlust,
        FeatEffect::ExtraAttack { penalty_dice: 2 },
        None,
        0,
        "a turn in which the character incapacitates a foe",
    ),
    feat(
        Feat::Duelist,
        FeatEffect::AutomaticSuccesses { successes: 1 },
        None,
        0,
        "an attack roll fighting one-on-one",
    ),
    feat(
        Feat::FuriousSpellcaster,
        FeatEffect::RageForAffinity,
        Some(3),
        0,
        "a spellcasting check",
    ),
    feat(
        Feat::HolisticTactics,
        FeatEffect::Narrative,
        None,
        0,
        "a successful TACTICS check on a foe",
    ),
    feat(
        Feat::StudentOfWar,
        FeatEffect::DifficultyChange { change: -1 },
        None,
        0,
        "attacks against a target studied beforehand",
    ),
    feat(
        Feat::SavageAttacker,
        FeatEffect::ExtraDamage { damage: 1 },
        None,
        0,
        "every attack, physical or magical",
    ),
];

/// A feat's data (003-M25).
pub fn feat_data(feat: Feat) -> &'static FeatData {
    &FEATS[feat as usize]
}

/// What the feats applied to one check change (003-M25). The caller (the GM) decides which feats
/// apply; this only adds up their numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CheckAdjustment {
    pub bonus_dice: u32,
    pub penalty_dice: u32,
    /// Added to the DV before clamping.
    pub difficulty_change: i64,
    /// A DV the feat sets (DRYAD'S EMBRACE: 8), replacing the given one.
    pub fixed_difficulty: Option<i64>,
    pub automatic_successes: u64,
    /// RAPID REFLEXES (003-A20).
    pub keep_better_of_two: bool,
    pub extra_damage: u32,
    /// DRYAD'S EMBRACE: centimetres a plant grows per net success.
    pub growth_per_success: Option<u32>,
}

/// Adds up what `feats` do to a check (003-M25): bonus dice, DV changes, automatic successes, RAPID
/// REFLEXES, extra damage. Feats that change no check (UNWAVERING FOCUS and ORGANIC REPOSE are
/// actions of their own; ONE FOR YOU, TWO FOR ME changes Galleons; FURIOUS SPELLCASTER is a casting
/// option; the narrative ones) are refused.
///
/// # Errors
/// [`ResourceError::NotACheckFeat`] for a feat without an effect on a check.
pub fn apply_feats(feats: &[Feat]) -> Result<CheckAdjustment, ResourceError> {
    let mut adjustment = CheckAdjustment::default();
    for &feat in feats {
        match feat_data(feat).effect {
            FeatEffect::BonusDice { dice } => {
                adjustment.bonus_dice = adjustment.bonus_dice.saturating_add(dice);
            }
            FeatEffect::DifficultyChange { change } => adjustment.difficulty_change += change,
            FeatEffect::AutomaticSuccesses { successes } => {
                adjustment.automatic_successes += successes;
            }
            FeatEffect::KeepBetterOfTwo => adjustment.keep_better_of_two = true,
            FeatEffect::Growth {
                difficulty,
                centimetres_per_success,
                ..
            } => {
                adjustment.fixed_difficulty = Some(difficulty);
                adjustment.growth_per_success = Some(centimetres_per_success);
            }
            FeatEffect::ExtraDamage { damage } => adjustment.extra_damage += damage,
            FeatEffect::ExtraAttack { penalty_dice } => {
                adjustment.penalty_dice = adjustment.penalty_dice.saturating_add(penalty_dice);
            }
            FeatEffect::RerollCatastrophes
            | FeatEffect::Heal { .. }
            | FeatEffect::ExtraGalleons { .. }
            | FeatEffect::RageForAffinity
            | FeatEffect::Narrative => return Err(ResourceError::NotACheckFeat(feat)),
        }
    }
    Ok(adjustment)
}

/// The daily uses after using `feat` once (003-S1, M25): the character must have it, and a feat with
/// a daily limit must have a use left. A feat without a limit leaves the counters as they are.
///
/// # Errors
/// [`ResourceError::FeatNotTaken`], [`ResourceError::FeatUsedUp`].
pub fn use_feat(
    feats: &[Feat],
    uses: &BTreeMap<Feat, u32>,
    feat: Feat,
) -> Result<BTreeMap<Feat, u32>, ResourceError> {
    if !feats.contains(&feat) {
        return Err(ResourceError::FeatNotTaken(feat));
    }
    let mut after = uses.clone();
    if let Some(per_day) = feat_data(feat).per_day {
        let used = after.entry(feat).or_insert(0);
        if *used >= per_day {
            return Err(ResourceError::FeatUsedUp { feat, per_day });
        }
        *used += 1;
    }
    Ok(after)
}

/// The Galleons gained when `amount` come in (003-M25: ONE FOR YOU, TWO FOR ME adds one).
pub fn galleons_gained(amount: u64, one_for_you: bool) -> u64 {
    if one_for_you && amount > 0 {
        amount.saturating_add(1)
    } else {
        amount
    }
}

/// Metres of extra movement per combat round from SPEED (003-M25): 1 per dot.
pub fn speed_movement(speed_dots: u32) -> u32 {
    speed_dots
}

// ---------------------------------------------------------------------------------------------------
// RAPID REFLEXES (003-A20).

/// The exact distribution of the kept net when a check is rolled twice and the roll with the higher
/// net is kept (RAPID REFLEXES, 003-A20): P(kept ≤ k) = P(net ≤ k)².
///
/// # Errors
/// As [`Check::net_distribution`].
pub fn keep_better_distribution(
    check: &Check,
    limits: &Limits,
) -> Result<Distribution<i64>, HprpgError> {
    let nets = check.net_distribution(limits)?;
    let mut budget = limits.budget();
    Ok(nets.combine(&nets, &mut budget, |&a, &b| Ok(a.max(b)))?)
}

/// A check rolled twice (RAPID REFLEXES, 003-A20).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TwoRolls {
    pub first: CheckRoll,
    pub second: CheckRoll,
    /// 0 for the first, 1 for the second; the first on a tie.
    pub kept: usize,
}

impl TwoRolls {
    /// The roll kept.
    pub fn kept_roll(&self) -> &CheckRoll {
        if self.kept == 0 {
            &self.first
        } else {
            &self.second
        }
    }
}

/// Rolls `check` twice from `source` and keeps the roll with the higher net (003-A20).
///
/// # Errors
/// As [`Check::roll`].
pub fn roll_keep_better(check: &Check, source: &mut dyn DieSource) -> Result<TwoRolls, HprpgError> {
    let first = check.roll(source)?;
    let second = check.roll(source)?;
    let kept = usize::from(second.net > first.net);
    Ok(TwoRolls {
        first,
        second,
        kept,
    })
}

// ---------------------------------------------------------------------------------------------------
// UNWAVERING FOCUS (003-M25): reroll every catastrophe die once.

/// Rerolls every die of `roll` in the catastrophe range (each once; the new value stands) and
/// scores the dice again (UNWAVERING FOCUS, 003-M25). A zero pool rerolls each of its two dice in
/// the range and scores the lower again. The new dice come from `source` in the order of the dice
/// replaced.
///
/// # Errors
/// As [`Check::roll`].
pub fn reroll_catastrophes(
    check: &Check,
    roll: &CheckRoll,
    source: &mut dyn DieSource,
) -> Result<CheckRoll, HprpgError> {
    let die = Die::Standard(SIDES.unsigned_abs());
    let mut dice = roll.dice.clone();
    for value in &mut dice {
        if *value <= check.catastrophe_range() {
            *value = source.roll(&die)?;
        }
    }
    let scored: Vec<i64> = if check.dice() == 0 {
        dice.iter().copied().min().into_iter().collect()
    } else {
        dice.clone()
    };
    Ok(check.result(dice, scored))
}

/// The exact net distribution of `check` when every catastrophe die is rerolled once (UNWAVERING
/// FOCUS used on every roll that has catastrophes; on a roll without any it changes nothing, so this
/// is also its distribution whenever it is used as soon as it can help).
///
/// # Errors
/// As [`Check::net_distribution`].
pub fn rerolled_distribution(
    check: &Check,
    limits: &Limits,
) -> Result<Distribution<i64>, HprpgError> {
    let sides = SIDES.unsigned_abs();
    let success_faces = (SIDES + 1 - check.difficulty()).unsigned_abs();
    let catastrophe_faces = check.catastrophe_range().unsigned_abs();
    // A rolled die after the reroll, out of 144: a face above the range has weight 12 + X (shown at
    // once, or after a reroll), a face in the range weight X.
    let kept = sides + catastrophe_faces;
    let weights = if check.dice() == 0 {
        let all = (sides * sides) * (sides * sides);
        let success = (kept * success_faces) * (kept * success_faces);
        let clear_faces = sides - catastrophe_faces;
        let clear = (kept * clear_faces) * (kept * clear_faces);
        (
            Weight::from(success),
            Weight::from(all - clear),
            Weight::from(clear - success),
        )
    } else {
        let success = kept * success_faces;
        let catastrophe = catastrophe_faces * catastrophe_faces;
        (
            Weight::from(success),
            Weight::from(catastrophe),
            Weight::from(sides * sides - success - catastrophe),
        )
    };
    Ok(check
        .counts_distribution_with(weights, limits)?
        .map(|c| check.net(*c)))
}

/// The exact net distribution after rerolling the catastrophe dice of a known `roll` of `check`: the
/// other dice stay, the rerolled ones are fresh (the odds of UNWAVERING FOCUS once the roll is seen).
///
/// # Errors
/// As [`Check::net_distribution`].
pub fn reroll_distribution_given(
    check: &Check,
    roll: &CheckRoll,
    limits: &Limits,
) -> Result<Distribution<i64>, HprpgError> {
    let range = check.catastrophe_range();
    if check.dice() == 0 {
        // Two dice at most: enumerate the faces of the rerolled ones.
        let mut outcomes: Vec<Vec<i64>> = vec![Vec::new()];
        for &value in &roll.dice {
            let faces: Vec<i64> = if value <= range {
                (1..=SIDES).collect()
            } else {
                vec![value]
            };
            outcomes = outcomes
                .into_iter()
                .flat_map(|prefix| {
                    faces.iter().map(move |&face| {
                        let mut next = prefix.clone();
                        next.push(face);
                        next
                    })
                })
                .collect();
        }
        return Ok(Distribution::from_weights(outcomes.into_iter().map(
            |dice| {
                let lowest: Vec<i64> = dice.iter().copied().min().into_iter().collect();
                (check.net(check.score(&lowest)), Weight::from(1u32))
            },
        ))?);
    }
    let kept: Vec<i64> = roll.dice.iter().copied().filter(|&d| d > range).collect();
    let fixed = check.score(&kept);
    let rerolled = roll.dice.len() - kept.len();
    let add = |fresh: &Counts| {
        check.net(Counts {
            successes: fixed.successes + fresh.successes,
            catastrophes: fixed.catastrophes + fresh.catastrophes,
        })
    };
    if rerolled == 0 {
        return Ok(Distribution::constant(add(&Counts::default())));
    }
    Ok(check
        .with_dice(rerolled)
        .counts_distribution(limits)?
        .map(add))
}

/// The degree distribution from a net distribution.
pub fn degrees(nets: &Distribution<i64>) -> Distribution<Degree> {
    nets.map(|&net| Degree::of(net))
}

// ---------------------------------------------------------------------------------------------------
// Multiple attempts (003-M13).

/// Attempts left at a task the GM allows to be repeated because a finite resource is burned (003-M13:
/// "3 fragile lockpicks, 3 attempts"). The rules have no dice mechanic for repetition: a check is a
/// pure function, so whether to roll it again is the caller's decision, and this counter only keeps
/// the number the GM allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Attempts {
    pub remaining: u32,
}

impl Attempts {
    /// The attempts after one more.
    ///
    /// # Errors
    /// [`ResourceError::NoAttemptsLeft`] when none remain.
    pub fn attempt(self) -> Result<Attempts, ResourceError> {
        self.remaining
            .checked_sub(1)
            .map(|remaining| Attempts { remaining })
            .ok_or(ResourceError::NoAttemptsLeft)
    }
}
