//! Seed 003's dice: the pool, the difficulty, scoring, degrees, contests, teamwork, perception,
//! spellcasting, resisting and catch-casting (see the module above for the spec items).

use std::fmt;

use omen_core::{CoreError, Die, DieSource, Distribution, Limits, Weight};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The seed document this module implements.
pub const SEED_FILE: &str = "003_1702dc698ddb7165.txt";

/// Every die is a d12 (003-M1).
pub const SIDES: i64 = 12;

/// The lowest difficulty value (003-M2, M4).
pub const MIN_DIFFICULTY: i64 = 2;

/// The highest difficulty value (003-M2, M4).
pub const MAX_DIFFICULTY: i64 = 12;

/// The GM's guide to difficulty values, easiest first (003-M2); any value 2..=12 may be used.
pub const DIFFICULTY_GUIDE: [(&str, i64); 5] = [
    ("VERY EASY", 4),
    ("EASY", 6),
    ("STANDARD", 8),
    ("HARD", 10),
    ("VERY HARD", 12),
];

/// The widest catastrophe range 1..X: at X = 12 no difficulty would be left above it (003-M4).
pub const MAX_CATASTROPHE_RANGE: i64 = SIDES - 1;

/// Why a check or computation was refused. Messages are lower case and say how to fix the input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum HprpgError {
    #[error(
        "catastrophe range 1..{0} is outside 0..11; use 1 for the usual range (0: no catastrophes, 11 \
         at most, so a d12 can still succeed)"
    )]
    CatastropheRange(i64),
    #[error("intractability {0} is negative; use 0 for none")]
    Intractability(i64),
    #[error(
        "DV {0} is below 2; the lowest DV is 2, and a DV of 4 is VERY EASY (an automatic success \
         may suit a trivial task)"
    )]
    Difficulty(i64),
    #[error("the Appendix 10 tables are for DV 2 to 12, not {0}; give a DV from 2 to 12")]
    TableDifficulty(i64),
    #[error(
        "{0} appendix rows asked for; the Appendix 10 table has rows for 0 to 14 dice, ask for at most \
         14"
    )]
    TableRows(usize),
    #[error("working together needs at least one helper's check; give the leader's first")]
    NoHelpers,
    #[error("spell level {0} is above SUMNUS (7); use 0 (NIHIL) to 7")]
    SpellLevel(u32),
    #[error(
        "{count} successes spent on {effect}, above its cap of {cap} (2 × spell level, 1 for NIHIL); \
         spend at most {cap}"
    )]
    OptionalCap {
        effect: &'static str,
        count: u64,
        cap: u64,
    },
    #[error("{total} optional successes spent but only {optional} left; spend at most {optional}")]
    OptionalSpent { total: u64, optional: u64 },
    #[error(
        "a net of {net} with {required} required is no catch-cast start; catch-casting needs a cast \
         (net ≥ 1) short of the requirement"
    )]
    NotShort { net: i64, required: u64 },
    #[error(transparent)]
    Core(#[from] CoreError),
}

// ---------------------------------------------------------------------------------------------------
// Options (003-A4, A5) and the registry entry.

/// What a difficulty above 12 does (003-A4).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum DifficultyAboveTwelve {
    /// The difficulty is clamped to 12; the points above are lost. The spec's resolution.
    #[default]
    Clamp,
    /// The difficulty is clamped to 12 and each point above 12 adds one point of intractability.
    Intractability,
}

impl DifficultyAboveTwelve {
    pub const ALL: [DifficultyAboveTwelve; 2] = [
        DifficultyAboveTwelve::Clamp,
        DifficultyAboveTwelve::Intractability,
    ];

    /// The option value as listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            DifficultyAboveTwelve::Clamp => "clamp",
            DifficultyAboveTwelve::Intractability => "intractability",
        }
    }
}

/// Whether the successes left after intractability absorbs its share stop at 0 (003-A5).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum IntractabilityFloor {
    /// net = max(S − I, 0) − C. The spec's resolution.
    #[default]
    Floor,
    /// net = S − I − C.
    NoFloor,
}

impl IntractabilityFloor {
    pub const ALL: [IntractabilityFloor; 2] =
        [IntractabilityFloor::Floor, IntractabilityFloor::NoFloor];

    /// The option value as listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            IntractabilityFloor::Floor => "floor",
            IntractabilityFloor::NoFloor => "no-floor",
        }
    }
}

/// The readings this rule set lets the table choose; `Default` is the spec's resolutions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HprpgOptions {
    pub difficulty_above_twelve: DifficultyAboveTwelve,
    pub intractability_floor: IntractabilityFloor,
}

// ---------------------------------------------------------------------------------------------------
// The pool and the difficulty (003-M1, M2, M4, A3, A4).

/// The dice of a check (003-M1): aspect dots + ability (or affinity) dots + bonus dice − penalty dice,
/// at least 0 (a pool of 0 is the zero-pool rule, 003-M6) and unbounded above.
pub fn pool_size(aspect: u32, ability: u32, bonuses: u32, penalties: u32) -> u64 {
    (u64::from(aspect) + u64::from(ability) + u64::from(bonuses))
        .saturating_sub(u64::from(penalties))
}

/// The difficulty a check is scored against, and the intractability it brings (003-M4, A4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EffectiveDifficulty {
    /// clamp(DV, max(2, X + 1), 12).
    pub difficulty: i64,
    /// Points of the DV above 12 turned into intractability (only under
    /// [`DifficultyAboveTwelve::Intractability`]).
    pub intractability: u64,
}

impl EffectiveDifficulty {
    /// The DV a check uses for a `difficulty` from the GM or a formula (any integer, 003-A4) and
    /// catastrophe range 1..`catastrophe_range`: never at or below the range (003-M4, A3), never
    /// above 12.
    ///
    /// # Errors
    /// [`HprpgError::CatastropheRange`] outside 0..=11.
    pub fn new(
        difficulty: i64,
        catastrophe_range: i64,
        options: &HprpgOptions,
    ) -> Result<Self, HprpgError> {
        if !(0..=MAX_CATASTROPHE_RANGE).contains(&catastrophe_range) {
            return Err(HprpgError::CatastropheRange(catastrophe_range));
        }
        let intractability = match options.difficulty_above_twelve {
            DifficultyAboveTwelve::Clamp => 0,
            DifficultyAboveTwelve::Intractability => {
                u64::try_from(difficulty.saturating_sub(MAX_DIFFICULTY)).unwrap_or(0)
            }
        };
        let lowest = MIN_DIFFICULTY.max(catastrophe_range + 1);
        Ok(EffectiveDifficulty {
            difficulty: difficulty.clamp(lowest, MAX_DIFFICULTY),
            intractability,
        })
    }
}

// ---------------------------------------------------------------------------------------------------
// Degrees (003-M5).

/// The outcome of a check by its net successes (003-M5), worst first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Degree {
    /// net < 0.
    CatastrophicFailure,
    /// net = 0.
    Failure,
    /// net = 1.
    Marginal,
    /// net = 2.
    Okay,
    /// net = 3.
    Good,
    /// net = 4.
    Complete,
    /// net = 5.
    Excellent,
    /// net = 6.
    Flawless,
    /// net ≥ 7.
    Legendary,
}

impl Degree {
    pub const ALL: [Degree; 9] = [
        Degree::CatastrophicFailure,
        Degree::Failure,
        Degree::Marginal,
        Degree::Okay,
        Degree::Good,
        Degree::Complete,
        Degree::Excellent,
        Degree::Flawless,
        Degree::Legendary,
    ];

    /// The degree of `net` successes.
    pub fn of(net: i64) -> Degree {
        match net {
            i64::MIN..=-1 => Degree::CatastrophicFailure,
            0 => Degree::Failure,
            1 => Degree::Marginal,
            2 => Degree::Okay,
            3 => Degree::Good,
            4 => Degree::Complete,
            5 => Degree::Excellent,
            6 => Degree::Flawless,
            _ => Degree::Legendary,
        }
    }

    /// The name the seed prints (upper case).
    pub fn name(self) -> &'static str {
        match self {
            Degree::CatastrophicFailure => "CATASTROPHIC FAILURE",
            Degree::Failure => "FAILURE",
            Degree::Marginal => "MARGINAL",
            Degree::Okay => "OKAY",
            Degree::Good => "GOOD",
            Degree::Complete => "COMPLETE",
            Degree::Excellent => "EXCELLENT",
            Degree::Flawless => "FLAWLESS",
            Degree::Legendary => "LEGENDARY",
        }
    }

    /// Whether the action succeeded (net ≥ 1).
    pub fn is_success(self) -> bool {
        self >= Degree::Marginal
    }
}

impl fmt::Display for Degree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

// ---------------------------------------------------------------------------------------------------
// The check (003-M3, M5, M6, M7, A1, A5, A8).

/// Successes and catastrophes among the scored dice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Counts {
    pub successes: u64,
    pub catastrophes: u64,
}

/// A validated check: how many dice, against what, with what intractability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Check {
    pub(super) dice: usize,
    pub(super) difficulty: i64,
    pub(super) catastrophe_range: i64,
    pub(super) intractability: u64,
    pub(super) floor: IntractabilityFloor,
    pub(super) automatic_successes: u64,
}

impl Check {
    /// A check of `dice` d12 (0: the zero pool) against `difficulty` (clamped as
    /// [`EffectiveDifficulty::new`] says) with catastrophe range 1..`catastrophe_range` and
    /// `intractability` from the GM (003-M7), plus any the difficulty brings (003-A4 option).
    ///
    /// # Errors
    /// [`HprpgError::CatastropheRange`] outside 0..=11; [`HprpgError::Intractability`] below 0;
    /// [`CoreError::TooManyDice`] (as [`HprpgError::Core`]) beyond `limits`.
    pub fn new(
        dice: u64,
        difficulty: i64,
        catastrophe_range: i64,
        intractability: i64,
        options: &HprpgOptions,
        limits: &Limits,
    ) -> Result<Self, HprpgError> {
        let dice = limits.check_dice(i64::try_from(dice).unwrap_or(i64::MAX))?;
        let effective = EffectiveDifficulty::new(difficulty, catastrophe_range, options)?;
        let intractability = u64::try_from(intractability)
            .map_err(|_| HprpgError::Intractability(intractability))?;
        Ok(Check {
            dice,
            difficulty: effective.difficulty,
            catastrophe_range,
            intractability: intractability.saturating_add(effective.intractability),
            floor: options.intractability_floor,
            automatic_successes: 0,
        })
    }

    /// The pool's dice; 0 is the zero pool (two dice rolled, the lower scored).
    pub fn dice(&self) -> usize {
        self.dice
    }

    /// The effective difficulty value, 2..=12 and above the catastrophe range.
    pub fn difficulty(&self) -> i64 {
        self.difficulty
    }

    /// X of the catastrophe range 1..X.
    pub fn catastrophe_range(&self) -> i64 {
        self.catastrophe_range
    }

    /// The successes absorbed before catastrophes cancel the rest (003-M7), including those of a DV
    /// above 12 under the 003-A4 option.
    pub fn intractability(&self) -> u64 {
        self.intractability
    }

    /// Successes and catastrophes among `scored` dice (003-M3, A1: meeting the DV succeeds).
    pub fn score(&self, scored: &[i64]) -> Counts {
        let mut counts = Counts::default();
        for &die in scored {
            if die >= self.difficulty {
                counts.successes += 1;
            } else if die <= self.catastrophe_range {
                counts.catastrophes += 1;
            }
        }
        counts
    }

    /// The check with `successes` automatic successes (003-M9, A13: FORTITUDE, rituals, feats), added
    /// to the dice's successes before intractability and catastrophes cancel any.
    pub fn with_automatic_successes(mut self, successes: u64) -> Check {
        self.automatic_successes = successes;
        self
    }

    /// The automatic successes added to every roll (003-M9).
    pub fn automatic_successes(&self) -> u64 {
        self.automatic_successes
    }

    /// The same check with another number of dice (0: the zero pool).
    pub(super) fn with_dice(mut self, dice: usize) -> Check {
        self.dice = dice;
        self
    }

    /// Net successes of the dice's `counts` (003-M7, A5, M9): the automatic successes join the dice's,
    /// intractability absorbs successes first, then each catastrophe cancels one; without
    /// intractability or automatic successes simply S − C.
    pub fn net(&self, counts: Counts) -> i64 {
        self.net_of_total(Counts {
            successes: counts.successes.saturating_add(self.automatic_successes),
            catastrophes: counts.catastrophes,
        })
    }

    /// Net successes of counts that already include every automatic success.
    fn net_of_total(&self, counts: Counts) -> i64 {
        let signed = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let left = match self.floor {
            IntractabilityFloor::Floor => {
                signed(counts.successes.saturating_sub(self.intractability))
            }
            IntractabilityFloor::NoFloor => {
                signed(counts.successes).saturating_sub(signed(self.intractability))
            }
        };
        left.saturating_sub(signed(counts.catastrophes))
    }

    /// Rolls the check with dice from `source`: the pool's d12 in order, or for a zero pool two d12 of
    /// which the lower is scored (003-M6, A8).
    ///
    /// # Errors
    /// The source's errors (a [`omen_core::ScriptedDice`] that runs out or shows a value outside 1..12),
    /// as [`HprpgError::Core`].
    pub fn roll(&self, source: &mut dyn DieSource) -> Result<CheckRoll, HprpgError> {
        let die = Die::Standard(SIDES.unsigned_abs());
        // Only the zero pool rolls two dice; every other pool rolls exactly its dice.
        let rolled = if self.dice == 0 { 2 } else { self.dice };
        let dice = (0..rolled)
            .map(|_| source.roll(&die))
            .collect::<Result<Vec<i64>, CoreError>>()?;
        let scored = if self.dice == 0 {
            dice.iter().copied().min().into_iter().collect()
        } else {
            dice.clone()
        };
        Ok(self.result(dice, scored))
    }

    /// The result of known dice without a source: all of them scored, or for a zero pool the lower
    /// (a later rule rescores dice already rolled, 003-M25).
    pub(super) fn score_dice(&self, dice: &[i64]) -> CheckRoll {
        let scored = if self.dice == 0 {
            dice.iter().copied().min().into_iter().collect()
        } else {
            dice.to_vec()
        };
        self.result(dice.to_vec(), scored)
    }

    /// The result of given dice: all of them scored, or for a zero pool (which must be given two) the
    /// lower. Useful to replay a seed's example without a [`DieSource`].
    ///
    /// # Errors
    /// As [`Check::roll`] with a [`omen_core::ScriptedDice`] of `dice`.
    pub fn replay(&self, dice: &[i64]) -> Result<CheckRoll, HprpgError> {
        self.roll(&mut omen_core::ScriptedDice::new(dice.to_vec()))
    }

    pub(super) fn result(&self, dice: Vec<i64>, scored: Vec<i64>) -> CheckRoll {
        let counts = self.score(&scored);
        let net = self.net(counts);
        CheckRoll {
            dice,
            scored,
            successes: counts.successes.saturating_add(self.automatic_successes),
            catastrophes: counts.catastrophes,
            net,
            degree: Degree::of(net),
        }
    }

    /// The weights of one scored die: (success, catastrophe, neither), out of 12 (or 144 for the lower
    /// of two dice).
    fn die_weights(&self) -> (Weight, Weight, Weight) {
        let sides = SIDES.unsigned_abs();
        let success = (SIDES + 1 - self.difficulty).unsigned_abs();
        let catastrophe = self.catastrophe_range.unsigned_abs();
        if self.dice == 0 {
            // The lower of two dice succeeds when both do, and avoids the range when both do.
            let all = sides * sides;
            let success = success * success;
            let clear = (sides - catastrophe) * (sides - catastrophe);
            let catastrophe = all - clear;
            (
                Weight::from(success),
                Weight::from(catastrophe),
                Weight::from(all - success - catastrophe),
            )
        } else {
            (
                Weight::from(success),
                Weight::from(catastrophe),
                Weight::from(sides - success - catastrophe),
            )
        }
    }

    /// The exact joint distribution of successes and catastrophes, built die by die.
    ///
    /// # Errors
    /// [`CoreError::WorkBudget`] and [`CoreError::TooManyOutcomes`] (as [`HprpgError::Core`]) beyond
    /// `limits`.
    pub fn counts_distribution(&self, limits: &Limits) -> Result<Distribution<Counts>, HprpgError> {
        self.counts_distribution_with(self.die_weights(), limits)
    }

    /// As [`Check::counts_distribution`] with each scored die's (success, catastrophe, neither)
    /// weights given, for rules that change a die's chances (a reroll, 003-M25).
    pub(super) fn counts_distribution_with(
        &self,
        (success, catastrophe, neither): (Weight, Weight, Weight),
        limits: &Limits,
    ) -> Result<Distribution<Counts>, HprpgError> {
        let die = Distribution::from_weights([
            (
                Counts {
                    successes: 1,
                    catastrophes: 0,
                },
                success,
            ),
            (
                Counts {
                    successes: 0,
                    catastrophes: 1,
                },
                catastrophe,
            ),
            (Counts::default(), neither),
        ])?;
        let scored = self.dice.max(1);
        // (S, C) has (n + 1)(n + 2)/2 outcomes after n dice.
        let n = scored as u128;
        limits.check_outcomes((n + 1) * (n + 2) / 2)?;
        let mut budget = limits.budget();
        let mut sum = die.clone();
        for _ in 1..scored {
            sum = sum.combine(&die, &mut budget, |a, b| {
                Ok(Counts {
                    successes: a.successes + b.successes,
                    catastrophes: a.catastrophes + b.catastrophes,
                })
            })?;
        }
        Ok(sum)
    }

    /// The exact distribution of net successes (003-M3, M6, M7). Without intractability each die is
    /// +1, 0 or −1 and the pool their sum; with it, the joint (S, C) distribution mapped through
    /// [`Check::net`].
    ///
    /// # Errors
    /// [`CoreError::WorkBudget`] and [`CoreError::TooManyOutcomes`] (as [`HprpgError::Core`]) beyond
    /// `limits`.
    pub fn net_distribution(&self, limits: &Limits) -> Result<Distribution<i64>, HprpgError> {
        if self.intractability > 0 || self.automatic_successes > 0 {
            return Ok(self.counts_distribution(limits)?.map(|c| self.net(*c)));
        }
        let (success, catastrophe, neither) = self.die_weights();
        let die = Distribution::from_weights([(1, success), (-1, catastrophe), (0, neither)])?;
        let mut budget = limits.budget();
        Ok(die.sum_of(self.dice.max(1), limits, &mut budget)?)
    }

    /// The exact distribution of the outcome's degree (003-M5).
    ///
    /// # Errors
    /// As [`Check::net_distribution`].
    pub fn degree_distribution(&self, limits: &Limits) -> Result<Distribution<Degree>, HprpgError> {
        Ok(self.net_distribution(limits)?.map(|&net| Degree::of(net)))
    }
}

/// One check as rolled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckRoll {
    /// Every die rolled, in order (two for a zero pool).
    pub dice: Vec<i64>,
    /// The dice scored: all of them, or the lower of a zero pool's two.
    pub scored: Vec<i64>,
    /// Successes among the scored dice plus the check's automatic successes (003-M9).
    pub successes: u64,
    pub catastrophes: u64,
    pub net: i64,
    pub degree: Degree,
}

// ---------------------------------------------------------------------------------------------------
// Automatic success, contests, working together, perception (003-M8, M11, M12, M14, A6, A7).

/// Whether the GM may let an action succeed without a roll (003-M8, optional): the pool exceeds the
/// DV. The GM still decides, and never in combat or when failure would be dire.
pub fn automatic_success_allowed(pool: u64, difficulty: i64) -> bool {
    i128::from(pool) > i128::from(difficulty)
}

/// How a contest turns each side's net into the margin (003-A6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ContestNets {
    /// Each side's net floored at 0 for the margin; a side below 0 still suffers its own catastrophe.
    /// The spec's resolution.
    #[default]
    Floor,
    /// The signed nets: a resistor's catastrophe widens the instigator's margin.
    Signed,
}

impl ContestNets {
    pub const ALL: [ContestNets; 2] = [ContestNets::Floor, ContestNets::Signed];

    /// The option value as listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            ContestNets::Floor => "floor",
            ContestNets::Signed => "signed",
        }
    }

    fn margin(self, instigator: i64, resistor: i64) -> i64 {
        match self {
            ContestNets::Floor => instigator.max(0) - resistor.max(0),
            ContestNets::Signed => instigator.saturating_sub(resistor),
        }
    }
}

/// What a contest's margin means (003-M11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ContestOutcome {
    /// Margin < 0: the instigator's action fails.
    Failure,
    /// Margin = 0: the status quo of the scene is preserved.
    StatusQuo,
    /// Margin > 0: the instigator succeeds with the margin's degree.
    Success(Degree),
}

impl ContestOutcome {
    /// The outcome of `margin` (instigator − resistor).
    pub fn of(margin: i64) -> ContestOutcome {
        match margin {
            i64::MIN..=-1 => ContestOutcome::Failure,
            0 => ContestOutcome::StatusQuo,
            _ => ContestOutcome::Success(Degree::of(margin)),
        }
    }
}

/// A contest (003-M11, A6): both sides roll, usually against the instigator's DV (the GM may give each
/// side its own, so each side is a whole [`Check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Contest {
    pub instigator: Check,
    pub resistor: Check,
    pub nets: ContestNets,
}

/// A contest as rolled: both checks (the instigator's dice first) and the margin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContestRoll {
    pub instigator: CheckRoll,
    pub resistor: CheckRoll,
    pub margin: i64,
    pub outcome: ContestOutcome,
}

impl Contest {
    /// Rolls the instigator's dice, then the resistor's, from `source`.
    ///
    /// # Errors
    /// As [`Check::roll`].
    pub fn roll(&self, source: &mut dyn DieSource) -> Result<ContestRoll, HprpgError> {
        let instigator = self.instigator.roll(source)?;
        let resistor = self.resistor.roll(source)?;
        let margin = self.nets.margin(instigator.net, resistor.net);
        Ok(ContestRoll {
            instigator,
            resistor,
            margin,
            outcome: ContestOutcome::of(margin),
        })
    }

    /// The exact distribution of the margin.
    ///
    /// # Errors
    /// As [`Check::net_distribution`].
    pub fn margin_distribution(&self, limits: &Limits) -> Result<Distribution<i64>, HprpgError> {
        let instigator = self.instigator.net_distribution(limits)?;
        let resistor = self.resistor.net_distribution(limits)?;
        let mut budget = limits.budget();
        let nets = self.nets;
        Ok(instigator.combine(&resistor, &mut budget, |&a, &b| Ok(nets.margin(a, b)))?)
    }

    /// The exact distribution of the outcome.
    ///
    /// # Errors
    /// As [`Check::net_distribution`].
    pub fn outcome_distribution(
        &self,
        limits: &Limits,
    ) -> Result<Distribution<ContestOutcome>, HprpgError> {
        Ok(self
            .margin_distribution(limits)?
            .map(|&margin| ContestOutcome::of(margin)))
    }
}

/// Working together (003-M12, A7): every helper rolls their own check; all successes and catastrophes
/// are pooled and the net is taken on the pool, with the intractability of the first (leading) check.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Teamwork {
    checks: Vec<Check>,
}

/// Working together as rolled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TeamworkRoll {
    /// Each helper's roll, in order.
    pub rolls: Vec<CheckRoll>,
    /// Pooled successes (automatic ones included).
    pub successes: u64,
    /// Pooled catastrophes.
    pub catastrophes: u64,
    pub net: i64,
    pub degree: Degree,
}

impl Teamwork {
    /// The helpers' checks, the leader first.
    ///
    /// # Errors
    /// [`HprpgError::NoHelpers`] for no checks.
    pub fn new(checks: Vec<Check>) -> Result<Self, HprpgError> {
        if checks.is_empty() {
            return Err(HprpgError::NoHelpers);
        }
        Ok(Teamwork { checks })
    }

    /// The helpers' checks, the leader first.
    pub fn checks(&self) -> &[Check] {
        &self.checks
    }

    fn pooled(&self, counts: Counts) -> i64 {
        self.checks[0].net_of_total(counts)
    }

    /// Rolls each helper's dice in order from `source`.
    ///
    /// # Errors
    /// As [`Check::roll`].
    pub fn roll(&self, source: &mut dyn DieSource) -> Result<TeamworkRoll, HprpgError> {
        let rolls = self
            .checks
            .iter()
            .map(|check| check.roll(source))
            .collect::<Result<Vec<_>, _>>()?;
        let counts = Counts {
            successes: rolls.iter().map(|r| r.successes).sum(),
            catastrophes: rolls.iter().map(|r| r.catastrophes).sum(),
        };
        let net = self.pooled(counts);
        Ok(TeamworkRoll {
            rolls,
            successes: counts.successes,
            catastrophes: counts.catastrophes,
            net,
            degree: Degree::of(net),
        })
    }

    /// The result of given dice, one slice per helper.
    ///
    /// # Errors
    /// As [`Teamwork::roll`] with a [`omen_core::ScriptedDice`] of the dice in order.
    pub fn replay(&self, dice: &[&[i64]]) -> Result<TeamworkRoll, HprpgError> {
        let all = dice.iter().flat_map(|d| d.iter().copied()).collect();
        self.roll(&mut omen_core::ScriptedDice::new(all))
    }

    /// The exact distribution of the pooled net.
    ///
    /// # Errors
    /// As [`Check::counts_distribution`].
    pub fn net_distribution(&self, limits: &Limits) -> Result<Distribution<i64>, HprpgError> {
        let mut budget = limits.budget();
        let mut sum = Distribution::constant(Counts::default());
        for check in &self.checks {
            let counts = check.counts_distribution(limits)?;
            let automatic = check.automatic_successes;
            sum = sum.combine(&counts, &mut budget, |a, b| {
                Ok(Counts {
                    successes: a.successes + b.successes + automatic,
                    catastrophes: a.catastrophes + b.catastrophes,
                })
            })?;
        }
        Ok(sum.map(|c| self.pooled(*c)))
    }
}

/// Passive Perception (003-M14): PERCEPTION + ALERTNESS dots, the DV of sneak checks against the
/// character (clamped as any DV, 003-A4).
pub fn passive_perception(perception: u32, alertness: u32) -> i64 {
    i64::from(perception) + i64::from(alertness)
}

/// Whether a sneak check of `degree` reveals the sneaker (003-M14): on failure or catastrophe.
pub fn sneaker_revealed(degree: Degree) -> bool {
    !degree.is_success()
}
