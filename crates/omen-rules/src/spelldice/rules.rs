//! Seed 001's spell dice: the pool, the cast, the strategies and Courtney's table.

use std::fmt;

use omen_core::{CoreError, Die, DieSource, Distribution, Limits};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The seed document this module implements.
pub const SEED_FILE: &str = "001_44c551452a4b4e64.txt";

/// Every spell die is a d6.
pub const SIDES: i64 = 6;

/// Spell dice a magic-user has besides one per level (001-M1).
pub const BASE_POOL: usize = 2;

/// The target number is this plus the spell level (001-M2).
pub const BASE_TARGET: i64 = 7;

/// The highest spell level.
pub const MAX_SPELL_LEVEL: i64 = 9;

/// Why a cast or an analysis was refused. Messages are lower case and say how to fix the input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SpellDiceError {
    #[error("magic-user level {0} is not a level; magic-users start at level 1 and count up")]
    Level(i64),
    #[error(
        "spell level {0} is outside 1..=9; level-agnostic spells use level 1 (target number 8)"
    )]
    SpellLevel(i64),
    #[error(
        "a level {level} magic-user holds at most {max} spell dice, not {pool}; give a pool of 0..={max}"
    )]
    PoolTooLarge { pool: usize, level: u32, max: usize },
    #[error("cannot commit {committed} spell dice from a pool of {pool}; commit at most {pool}")]
    NotEnoughSpellDice { committed: usize, pool: usize },
    #[error(
        "a cast needs at least one die; commit spell dice, or life-energy dice once the pool is empty"
    )]
    NoDice,
    #[error(
        "{life} life-energy dice exceed the magic-user level {level}; use at most {level} per cast"
    )]
    TooManyLifeDice { life: usize, level: u32 },
    #[error(
        "life-energy dice are usable only once the spell pool is empty ({pool} spell dice left); \
         spend the pool first or choose the `mixing` option"
    )]
    LifeDiceBeforeDepleted { pool: usize },
    #[error("the {penalty} penalty {value} is negative; a penalty subtracts, give it as a size")]
    NegativePenalty { penalty: &'static str, value: i64 },
    #[error(
        "removal faces 1..={0} are outside 1..=6; remove dice showing 1 up to 1 ({{1}}) .. 6 (every die)"
    )]
    RemovalFaces(i64),
    #[error(
        "committing {dice} dice can never reach the target {target}; commit at least {} dice",
        minimum_dice(*.target)
    )]
    CommitmentCannotReach { dice: usize, target: i64 },
    #[error("unknown strategy `{0}`; use all, minimum, optimal, most-casts or fixed:K")]
    Strategy(String),
    #[error(transparent)]
    Core(#[from] CoreError),
}

// ---------------------------------------------------------------------------------------------------
// Options (001-M3's knob, 001-A3, 001-M6/A4) and the registry entry.

/// The faces that remove a committed spell die from the pool: 1 up to some face (001-M3's "scarcity"
/// knob). The seed's rule is 1–2.
/// JSON: the highest face as a number, `2` for the seed's rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "i64", into = "i64")]
pub struct RemovalFaces(u8);

impl TryFrom<i64> for RemovalFaces {
    type Error = SpellDiceError;

    fn try_from(highest: i64) -> Result<Self, Self::Error> {
        RemovalFaces::up_to(highest)
    }
}

impl From<RemovalFaces> for i64 {
    fn from(faces: RemovalFaces) -> i64 {
        faces.highest()
    }
}

impl RemovalFaces {
    /// Dice showing 1 or 2 are removed: the seed's rule.
    pub const ONE_OR_TWO: RemovalFaces = RemovalFaces(2);

    /// Dice showing 1 up to `highest` are removed.
    ///
    /// # Errors
    /// [`SpellDiceError::RemovalFaces`] unless `highest` is in 1..=6.
    pub fn up_to(highest: i64) -> Result<Self, SpellDiceError> {
        match u8::try_from(highest) {
            Ok(h @ 1..=6) => Ok(RemovalFaces(h)),
            _ => Err(SpellDiceError::RemovalFaces(highest)),
        }
    }

    /// The highest face that removes a die.
    pub fn highest(self) -> i64 {
        i64::from(self.0)
    }

    pub fn removes(self, face: i64) -> bool {
        (1..=self.highest()).contains(&face)
    }
}

impl Default for RemovalFaces {
    fn default() -> Self {
        RemovalFaces::ONE_OR_TWO
    }
}

/// When dice showing a removal face leave the pool (001-M3, M6, A4).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum RemovalTiming {
    /// After every cast, success or failure: the seed's base rule (001-M3).
    #[default]
    Always,
    /// Only after a success or a catastrophe; a plain failure removes nothing: the author's proposed
    /// fix (001-M6). Only the dice showing removal faces go, not every committed die (001-A4).
    SuccessOrCatastrophe,
}

impl RemovalTiming {
    pub const ALL: [RemovalTiming; 2] =
        [RemovalTiming::Always, RemovalTiming::SuccessOrCatastrophe];

    pub fn name(self) -> &'static str {
        match self {
            RemovalTiming::Always => "always",
            RemovalTiming::SuccessOrCatastrophe => "success-or-catastrophe",
        }
    }
}

/// The damage a life-energy die deals to the caster (001-A3).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum LifeDamage {
    /// Its rolled face: the spec's resolution.
    #[default]
    Face,
    /// 1 per die.
    One,
}

impl LifeDamage {
    pub fn name(self) -> &'static str {
        match self {
            LifeDamage::Face => "face",
            LifeDamage::One => "one",
        }
    }
}

/// When life-energy dice may be used (001-A3).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum LifeDiceUse {
    /// Only when the spell pool is empty: the spec's resolution.
    #[default]
    WhenDepleted,
    /// Together with spell dice.
    Mixing,
}

impl LifeDiceUse {
    pub fn name(self) -> &'static str {
        match self {
            LifeDiceUse::WhenDepleted => "when-depleted",
            LifeDiceUse::Mixing => "mixing",
        }
    }
}

/// The readings this rule set lets the table choose; `Default` is the seed's rules and the spec's
/// resolutions. Every field has a default in JSON.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct SpellDiceOptions {
    pub removal_faces: RemovalFaces,
    pub removal_timing: RemovalTiming,
    pub life_damage: LifeDamage,
    pub life_dice_use: LifeDiceUse,
}

impl SpellDiceOptions {
    /// The seed's rules with the author's variant (001-M6).
    pub fn variant() -> Self {
        SpellDiceOptions {
            removal_timing: RemovalTiming::SuccessOrCatastrophe,
            ..SpellDiceOptions::default()
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// The pool (001-M1, S1, A5) and the cast (001-M2..M7).

/// A spell level, 1 to 9; level-agnostic spells are level 1 (001-M2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SpellLevel(u8);

impl SpellLevel {
    /// Level-agnostic spells: target number 8.
    pub const AGNOSTIC: SpellLevel = SpellLevel(1);

    /// # Errors
    /// [`SpellDiceError::SpellLevel`] outside 1..=9.
    pub fn new(level: i64) -> Result<Self, SpellDiceError> {
        match u8::try_from(level) {
            Ok(l @ 1..=9) => Ok(SpellLevel(l)),
            _ => Err(SpellDiceError::SpellLevel(level)),
        }
    }

    /// Every spell level, 1 to 9.
    pub fn all() -> impl Iterator<Item = SpellLevel> {
        (1..=9).map(SpellLevel)
    }

    pub fn value(self) -> i64 {
        i64::from(self.0)
    }

    /// 7 + spell level (001-M2).
    pub fn target(self) -> i64 {
        BASE_TARGET + self.value()
    }
}

impl fmt::Display for SpellLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// The fewest d6 whose highest total reaches `target` (001-A1): committing fewer is legal but cannot
/// succeed. At least 1.
pub fn minimum_dice(target: i64) -> usize {
    let needed = (target.max(1) + SIDES - 1) / SIDES;
    usize::try_from(needed).unwrap_or(usize::MAX)
}

/// A magic-user's spell dice: level and the dice left today (001-M1, S1). JSON:
/// `{"level": 3, "pool": 4}`; a pool above 2 + level is refused when read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "CasterFields")]
pub struct Caster {
    level: u32,
    pool: usize,
}

/// A caster as JSON holds it, before validation.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct CasterFields {
    level: i64,
    pool: usize,
}

impl TryFrom<CasterFields> for Caster {
    type Error = SpellDiceError;

    fn try_from(fields: CasterFields) -> Result<Self, Self::Error> {
        Caster::with_pool(fields.level, fields.pool, &Limits::default())
    }
}

impl Caster {
    /// A rested magic-user of `level`: a full pool of 2 + level dice.
    ///
    /// # Errors
    /// [`SpellDiceError::Level`] below 1; [`CoreError::TooManyDice`] (as [`SpellDiceError::Core`]) when
    /// the pool is above `limits.max_dice`.
    pub fn rested(level: i64, limits: &Limits) -> Result<Self, SpellDiceError> {
        let level_value = u32::try_from(level)
            .ok()
            .filter(|&l| l >= 1)
            .ok_or(SpellDiceError::Level(level))?;
        let pool = limits.check_dice(level.saturating_add(BASE_POOL as i64))?;
        Ok(Caster {
            level: level_value,
            pool,
        })
    }

    /// A magic-user of `level` with `pool` spell dice left.
    ///
    /// # Errors
    /// As [`Caster::rested`]; [`SpellDiceError::PoolTooLarge`] above 2 + level.
    pub fn with_pool(level: i64, pool: usize, limits: &Limits) -> Result<Self, SpellDiceError> {
        let rested = Caster::rested(level, limits)?;
        if pool > rested.pool {
            return Err(SpellDiceError::PoolTooLarge {
                pool,
                level: rested.level,
                max: rested.pool,
            });
        }
        Ok(Caster { pool, ..rested })
    }

    pub fn level(&self) -> u32 {
        self.level
    }

    /// Spell dice left today.
    pub fn pool(&self) -> usize {
        self.pool
    }

    /// 2 + level (001-M1).
    pub fn max_pool(&self) -> usize {
        BASE_POOL + self.level as usize
    }

    /// After a restful night's sleep: every spell die recovered (001-S1).
    pub fn rest(&self) -> Caster {
        Caster {
            pool: self.max_pool(),
            ..*self
        }
    }

    /// Whether the whole pool, every die at 6, reaches `target` (001-A5); when it cannot, the pool is
    /// exhausted for that target, though the caster may still roll (and lose) the dice.
    pub fn can_reach(&self, target: i64) -> bool {
        self.pool >= minimum_dice(target)
    }
}

/// Flat penalties subtracted from the roll total (001-M7).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct Penalties {
    /// Armour penalty for this cast; left out, the character's.
    #[schemars(extend("x-cli-flag" = "armour"))]
    pub armour: i64,
    /// Encumbrance penalty for this cast; left out, the character's.
    #[schemars(extend("x-cli-flag" = "encumbrance"))]
    pub encumbrance: i64,
}

impl Penalties {
    /// The total subtracted.
    ///
    /// # Errors
    /// [`SpellDiceError::NegativePenalty`].
    pub fn total(&self) -> Result<i64, SpellDiceError> {
        for (penalty, value) in [("armour", self.armour), ("encumbrance", self.encumbrance)] {
            if value < 0 {
                return Err(SpellDiceError::NegativePenalty { penalty, value });
            }
        }
        Ok(self.armour.saturating_add(self.encumbrance))
    }
}

/// What the caster attempts: a spell level, the dice committed and the penalties that apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CastRequest {
    pub spell_level: SpellLevel,
    /// Spell dice committed from the pool (001-M2).
    pub spell_dice: usize,
    /// Life-energy dice (001-M5), at most the magic-user level.
    pub life_dice: usize,
    pub penalties: Penalties,
}

impl CastRequest {
    /// `spell_dice` spell dice at `spell_level`, no life dice, no penalties.
    pub fn new(spell_level: SpellLevel, spell_dice: usize) -> Self {
        CastRequest {
            spell_level,
            spell_dice,
            life_dice: 0,
            penalties: Penalties::default(),
        }
    }
}

/// A cast's result (001-M2, M4), in order from worst to best.
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
pub enum CastResult {
    /// Failed with two or more 1s.
    Catastrophe,
    Failure,
    Success,
    /// Succeeded with two or more 6s.
    Empowered,
}

impl CastResult {
    pub fn is_success(self) -> bool {
        matches!(self, CastResult::Success | CastResult::Empowered)
    }

    pub fn name(self) -> &'static str {
        match self {
            CastResult::Catastrophe => "catastrophe",
            CastResult::Failure => "failure",
            CastResult::Success => "success",
            CastResult::Empowered => "empowered",
        }
    }

    /// The result of a total (after penalties) against `target` with the counts of 1s and 6s among
    /// every die rolled, spell and life dice alike (001-M4, A3).
    pub fn of(total: i64, target: i64, ones: usize, sixes: usize) -> CastResult {
        match (total >= target, ones >= 2, sixes >= 2) {
            (true, _, true) => CastResult::Empowered,
            (true, _, false) => CastResult::Success,
            (false, true, _) => CastResult::Catastrophe,
            (false, false, _) => CastResult::Failure,
        }
    }

    /// Whether dice showing removal faces leave the pool after this result (001-M3, M6).
    pub fn removes_dice(self, timing: RemovalTiming) -> bool {
        match timing {
            RemovalTiming::Always => true,
            RemovalTiming::SuccessOrCatastrophe => self != CastResult::Failure,
        }
    }
}

impl fmt::Display for CastResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One cast as rolled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CastOutcome {
    /// The committed spell dice, in order.
    pub spell_dice: Vec<i64>,
    /// The life-energy dice, in order, rolled after the spell dice.
    pub life_dice: Vec<i64>,
    /// The sum of every die minus the penalties.
    pub total: i64,
    /// 7 + spell level.
    pub target: i64,
    pub result: CastResult,
    /// Spell dice removed from the pool.
    pub removed: usize,
    /// Damage the life-energy dice dealt to the caster (001-M5, A3).
    pub life_damage: i64,
}

/// A cast's transition: the outcome, the caster after it, and every die rolled in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cast {
    pub outcome: CastOutcome,
    pub state: Caster,
    pub dice: Vec<i64>,
}

/// Casts `request` from `state` with dice from `source` (001-M2..M7): a pure transition, the caster
/// before in, the outcome, the caster after and the dice out.
///
/// # Errors
/// [`SpellDiceError::NoDice`], [`SpellDiceError::NotEnoughSpellDice`],
/// [`SpellDiceError::TooManyLifeDice`], [`SpellDiceError::LifeDiceBeforeDepleted`],
/// [`SpellDiceError::NegativePenalty`]; the source's errors as [`SpellDiceError::Core`].
pub fn cast(
    state: &Caster,
    request: &CastRequest,
    options: &SpellDiceOptions,
    source: &mut dyn DieSource,
) -> Result<Cast, SpellDiceError> {
    let penalty = check_request(state, request, options)?;
    roll_request(state, request, options, penalty, source)
}

/// Every reason `request` cannot be cast from `state` under `options` (001-M2, M5, M7, A3), each
/// as its error; empty when the cast may go ahead. The one check [`cast`] makes, listed in full.
pub fn request_problems(
    state: &Caster,
    request: &CastRequest,
    options: &SpellDiceOptions,
) -> Vec<SpellDiceError> {
    let mut problems = Vec::new();
    for (penalty, value) in [
        ("armour", request.penalties.armour),
        ("encumbrance", request.penalties.encumbrance),
    ] {
        if value < 0 {
            problems.push(SpellDiceError::NegativePenalty { penalty, value });
        }
    }
    if request.spell_dice + request.life_dice == 0 {
        problems.push(SpellDiceError::NoDice);
    }
    if request.spell_dice > state.pool {
        problems.push(SpellDiceError::NotEnoughSpellDice {
            committed: request.spell_dice,
            pool: state.pool,
        });
    }
    if request.life_dice > state.level as usize {
        problems.push(SpellDiceError::TooManyLifeDice {
            life: request.life_dice,
            level: state.level,
        });
    }
    if request.life_dice > 0 && options.life_dice_use == LifeDiceUse::WhenDepleted && state.pool > 0
    {
        problems.push(SpellDiceError::LifeDiceBeforeDepleted { pool: state.pool });
    }
    problems
}

/// A cast of one `request` as exact odds: the result, the spell dice removed and the damage the
/// life-energy dice deal, jointly (001-M2..M7, A3).
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
pub struct CastSummary {
    pub result: CastResult,
    /// Spell dice the cast removes from the pool.
    pub removed: usize,
    /// Damage the life-energy dice deal to the caster.
    pub life_damage: i64,
}

/// The exact distribution of what casting `request` from `state` does: result, dice removed and
/// life damage together, life-energy dice included (001-M2..M7, A3). Without life dice and
/// penalties its result and removed dice are those of [`single_cast_distribution`].
///
/// # Errors
/// As [`cast`] for a request that cannot be cast; [`SpellDiceError::Core`] when the computation
/// exceeds `limits`.
pub fn cast_distribution(
    state: &Caster,
    request: &CastRequest,
    options: &SpellDiceOptions,
    limits: &Limits,
) -> Result<Distribution<CastSummary>, SpellDiceError> {
    let penalty = check_request(state, request, options)?;
    let spell = roll_summaries(request.spell_dice, options.removal_faces, limits)?;
    let life = roll_summaries(request.life_dice, options.removal_faces, limits)?;
    let target = request.spell_level.target();
    let life_count = i64::try_from(request.life_dice).unwrap_or(i64::MAX);
    let mut budget = limits.budget();
    Ok(spell.combine(&life, &mut budget, |s, l| {
        let total = s.sum.saturating_add(l.sum).saturating_sub(penalty);
        let ones = usize::from(s.ones) + usize::from(l.ones);
        let sixes = usize::from(s.sixes) + usize::from(l.sixes);
        let result = CastResult::of(total, target, ones, sixes);
        let removed = if result.removes_dice(options.removal_timing) {
            s.removable
        } else {
            0
        };
        let life_damage = match options.life_damage {
            LifeDamage::Face => l.sum,
            LifeDamage::One => life_count,
        };
        Ok(CastSummary {
            result,
            removed,
            life_damage,
        })
    })?)
}

/// Checks a request as [`cast`] does and returns its total penalty: the first problem
/// [`request_problems`] finds.
fn check_request(
    state: &Caster,
    request: &CastRequest,
    options: &SpellDiceOptions,
) -> Result<i64, SpellDiceError> {
    if let Some(problem) = request_problems(state, request, options).into_iter().next() {
        return Err(problem);
    }
    request.penalties.total()
}

fn roll_request(
    state: &Caster,
    request: &CastRequest,
    options: &SpellDiceOptions,
    penalty: i64,
    source: &mut dyn DieSource,
) -> Result<Cast, SpellDiceError> {
    let d6 = Die::Standard(SIDES as u64);
    let spell_dice = (0..request.spell_dice)
        .map(|_| source.roll(&d6))
        .collect::<Result<Vec<_>, _>>()?;
    let life_dice = (0..request.life_dice)
        .map(|_| source.roll(&d6))
        .collect::<Result<Vec<_>, _>>()?;
    let dice: Vec<i64> = spell_dice.iter().chain(&life_dice).copied().collect();
    let total = dice.iter().sum::<i64>().saturating_sub(penalty);
    let count = |face: i64| dice.iter().filter(|&&d| d == face).count();
    let target = request.spell_level.target();
    let result = CastResult::of(total, target, count(1), count(SIDES));
    let removed = if result.removes_dice(options.removal_timing) {
        spell_dice
            .iter()
            .filter(|&&d| options.removal_faces.removes(d))
            .count()
    } else {
        0
    };
    let life_damage = match options.life_damage {
        LifeDamage::Face => life_dice.iter().sum(),
        LifeDamage::One => life_dice.len() as i64,
    };
    Ok(Cast {
        outcome: CastOutcome {
            spell_dice,
            life_dice,
            total,
            target,
            result,
            removed,
            life_damage,
        },
        state: Caster {
            pool: state.pool - removed,
            ..*state
        },
        dice,
    })
}

/// The exact distribution of [`RollSummary`] for `dice` d6, one die at a time.
pub(super) fn roll_summaries(
    dice: usize,
    removal: RemovalFaces,
    limits: &Limits,
) -> Result<Distribution<RollSummary>, SpellDiceError> {
    limits.check_dice(i64::try_from(dice).unwrap_or(i64::MAX))?;
    // Sums × 3 × 3 × removable counts bounds the states.
    let states = (dice as u128 * 6 + 1) * 9 * (dice as u128 + 1);
    limits.check_states(states)?;
    let mut budget = limits.budget();
    budget.spend_estimate(states.saturating_mul(dice as u128 * 6))?;
    let mut current = Distribution::constant(RollSummary {
        sum: 0,
        ones: 0,
        sixes: 0,
        removable: 0,
    });
    for _ in 0..dice {
        let mut next = Vec::with_capacity(current.len() * 6);
        for (summary, weight) in current.entries() {
            for face in 1..=SIDES {
                next.push((
                    RollSummary {
                        sum: summary.sum + face,
                        ones: (summary.ones + u8::from(face == 1)).min(2),
                        sixes: (summary.sixes + u8::from(face == SIDES)).min(2),
                        removable: summary.removable + usize::from(removal.removes(face)),
                    },
                    weight.clone(),
                ));
            }
        }
        current = Distribution::from_weights(next)?;
    }
    Ok(current)
}

/// What matters about a roll of spell dice: the sum, the 1s and 6s (counted up to 2, all the rules
/// look at) and the dice showing removal faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct RollSummary {
    pub(super) sum: i64,
    pub(super) ones: u8,
    pub(super) sixes: u8,
    pub(super) removable: usize,
}
