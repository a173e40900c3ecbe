//! Seed 000's checks: Lore and Essence, their tables, and the ritualist's state.

use std::fmt;
use std::ops::RangeInclusive;

use num_traits::{One, Zero};
use omen_core::{
    CoreError, Die, DieSource, Distribution, Keep, Limits, Probability, Weight, keep_sum,
};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::render::percent_cell;

/// The seed document this module implements.
pub const SEED_FILE: &str = "000_a60612f38c616a78.txt";

/// Every die in this game is a d6.
pub const SIDES: i64 = 6;

/// Dice the pairs-for-7 shortcut must leave to be rolled, unless the replaced pairs alone reach the
/// desired threshold (000-M11).
pub const MIN_ROLLED_DICE: usize = 5;

/// What one replaced pair of dice adds to the Essence total (000-M11).
pub const PAIR_VALUE: i64 = 7;

/// Why a ritual roll or computation was refused. Messages are lower case and say how to fix the input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RitualError {
    #[error("ritual difficulty {0} is outside 1..=6; use 1 (trivial) up to 6 (very difficult)")]
    Difficulty(i64),
    #[error("lore {0} is negative; lore starts at 0 and only grows")]
    NegativeLore(i64),
    #[error("{contributor} essence {value} is negative; give reductions as penalties")]
    NegativeEssence {
        contributor: &'static str,
        value: i64,
    },
    #[error(
        "the {penalty} penalty {value} is negative; a penalty removes dice, give it as a count"
    )]
    NegativePenalty { penalty: &'static str, value: i64 },
    #[error("a ritual needs at least one essence threshold")]
    NoThresholds,
    #[error("essence threshold {0} is below 1 and always reached; use thresholds of 1 or more")]
    ThresholdTooLow(i64),
    #[error("essence threshold {0} is listed twice; list each threshold once")]
    DuplicateThreshold(i64),
    #[error(
        "{threshold} is not one of the ritual's essence thresholds ({thresholds}); name the threshold of the desired effect"
    )]
    UnknownThreshold { threshold: i64, thresholds: String },
    #[error(
        "{pairs} pairs need {} dice but the pool has only {dice}; replace at most {} pairs",
        2 * .pairs,
        .dice / 2
    )]
    TooManyPairs { pairs: usize, dice: usize },
    #[error(
        "replacing {pairs} pairs leaves {rolled} dice to roll; roll at least 5, or replace pairs until 7 per pair {} the threshold {threshold}",
        .rule.name()
    )]
    TooFewDiceRolled {
        pairs: usize,
        rolled: usize,
        threshold: i64,
        rule: ShortcutThreshold,
    },
    #[error("a ritual needs a name; give the name the character's ritual lists use")]
    EmptyRitualName,
    #[error(
        "ritual {ritual:?} failed deciphering and is among the unknown rituals until lore increases (lore is {lore}); try it again after a lore gain"
    )]
    UnknownRitual { ritual: String, lore: i64 },
    #[error("ritual {0:?} is not among the known rituals; decipher it before memorising it")]
    NotKnown(String),
    #[error("ritual {0:?} is already memorised; memorise another ritual")]
    AlreadyMemorised(String),
    #[error(transparent)]
    Core(#[from] CoreError),
}

// ---------------------------------------------------------------------------------------------------
// Options (000-A2, 000-A9) and the registry entry.

/// Whether the two familiarity bonuses of a Lore check add up (000-A2).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum FamiliarityBonuses {
    /// Deciphered before (+1) and performed before (+2) both apply: +3. The spec's resolution.
    #[default]
    Stack,
    /// Only the larger applies: +2 when performed before, whether or not also deciphered.
    LargerOnly,
}

impl FamiliarityBonuses {
    pub const ALL: [FamiliarityBonuses; 2] =
        [FamiliarityBonuses::Stack, FamiliarityBonuses::LargerOnly];

    /// The option value as listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            FamiliarityBonuses::Stack => "stack",
            FamiliarityBonuses::LargerOnly => "larger-only",
        }
    }
}

/// When replaced pairs alone are enough to waive the five-dice minimum of the shortcut (000-A9).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ShortcutThreshold {
    /// 7 per pair meets or exceeds the desired threshold, as thresholds are met everywhere else. The
    /// spec's resolution.
    #[default]
    Meets,
    /// 7 per pair strictly exceeds the desired threshold, as the seed's sentence literally says.
    Exceeds,
}

impl ShortcutThreshold {
    pub const ALL: [ShortcutThreshold; 2] = [ShortcutThreshold::Meets, ShortcutThreshold::Exceeds];

    /// The option value as listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            ShortcutThreshold::Meets => "meets",
            ShortcutThreshold::Exceeds => "exceeds",
        }
    }

    /// Whether `value` reaches `threshold` under this reading.
    pub fn reaches(self, value: i128, threshold: i64) -> bool {
        match self {
            ShortcutThreshold::Meets => value >= i128::from(threshold),
            ShortcutThreshold::Exceeds => value > i128::from(threshold),
        }
    }
}

/// The readings this rule set lets the table choose; `Default` is the spec's resolutions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RitualOptions {
    pub familiarity_bonuses: FamiliarityBonuses,
    pub shortcut_threshold: ShortcutThreshold,
    pub repeat_counting: RepeatCounting,
}

// ---------------------------------------------------------------------------------------------------
// The Lore check (000-M1..M5, A1, A2).

/// A Ritual Difficulty, 1 (trivial) to 6 (very difficult) (000-M1). Stored as its number; a stored
/// number outside 1..=6 is refused when read back.
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
#[serde(try_from = "i64", into = "i64")]
pub struct Difficulty(u8);

impl TryFrom<i64> for Difficulty {
    type Error = RitualError;

    fn try_from(value: i64) -> Result<Self, Self::Error> {
        Difficulty::new(value)
    }
}

impl From<Difficulty> for i64 {
    fn from(difficulty: Difficulty) -> i64 {
        difficulty.value()
    }
}

impl Difficulty {
    /// Succeeds without a roll (000-M3).
    pub const TRIVIAL: Difficulty = Difficulty(1);
    pub const VERY_DIFFICULT: Difficulty = Difficulty(6);

    /// # Errors
    /// [`RitualError::Difficulty`] outside 1..=6.
    pub fn new(value: i64) -> Result<Self, RitualError> {
        match u8::try_from(value) {
            Ok(v @ 1..=6) => Ok(Difficulty(v)),
            _ => Err(RitualError::Difficulty(value)),
        }
    }

    /// Every difficulty, 1 to 6.
    pub fn all() -> impl Iterator<Item = Difficulty> {
        (1..=6).map(Difficulty)
    }

    pub fn value(self) -> i64 {
        i64::from(self.0)
    }

    /// Difficulty 1 is never rolled (000-M3).
    pub fn is_automatic(self) -> bool {
        self == Difficulty::TRIVIAL
    }
}

impl fmt::Display for Difficulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The circumstances that add or remove Lore dice (000-M1); several can apply at once (000-M2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LoreModifiers {
    /// Inventing a ritual from scratch: −2.
    pub inventing: bool,
    /// Modifying a ritual: −1.
    pub modifying: bool,
    /// Translated from a language the ritualist does not know well: −1.
    pub unfamiliar_language: bool,
    /// Not part of the character's Tradition: −1.
    pub foreign_tradition: bool,
    /// Deciphered this ritual before (it is or was among the Known Rituals): +1.
    pub deciphered_before: bool,
    /// Successfully performed this ritual before (among the Used Rituals): +2.
    pub performed_before: bool,
}

impl LoreModifiers {
    /// The net dice the modifiers add (negative when they remove dice).
    pub fn dice(&self, options: &RitualOptions) -> i64 {
        let penalties = [
            (self.inventing, 2),
            (self.modifying, 1),
            (self.unfamiliar_language, 1),
            (self.foreign_tradition, 1),
        ]
        .iter()
        .filter(|(applies, _)| *applies)
        .map(|(_, dice)| dice)
        .sum::<i64>();
        let familiarity = match (
            options.familiarity_bonuses,
            self.deciphered_before,
            self.performed_before,
        ) {
            (_, false, false) => 0,
            (_, true, false) => 1,
            (FamiliarityBonuses::Stack, true, true) => 3,
            (_, _, true) => 2,
        };
        familiarity - penalties
    }
}

/// Which dice a Lore check rolls (000-M3, M4, A1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoreDice {
    /// Difficulty 1: no roll.
    Automatic,
    /// A pool of 1 or more: that many d6, the highest counts.
    HighestOf(usize),
    /// A pool of 0 or less: 2d6, the lower counts.
    LowerOfTwo,
}

/// A validated Lore check: its pool and difficulty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoreCheck {
    pool: i64,
    difficulty: Difficulty,
}

/// One Lore check as rolled: the dice in order, the die that counts, and whether it succeeded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoreRoll {
    /// Every die rolled, in order; empty for difficulty 1.
    pub dice: Vec<i64>,
    /// The highest die (pool ≥ 1) or the lower of two (pool ≤ 0); `None` when nothing was rolled.
    pub result: Option<i64>,
    pub success: bool,
}

impl LoreCheck {
    /// A Lore check for a character with `lore` under `modifiers` (000-M1, M2).
    ///
    /// # Errors
    /// [`RitualError::NegativeLore`]; [`CoreError::TooManyDice`] (as [`RitualError::Core`]) when the pool
    /// is above `limits.max_dice`.
    pub fn new(
        lore: i64,
        difficulty: Difficulty,
        modifiers: &LoreModifiers,
        options: &RitualOptions,
        limits: &Limits,
    ) -> Result<Self, RitualError> {
        if lore < 0 {
            return Err(RitualError::NegativeLore(lore));
        }
        Self::from_pool(
            lore.saturating_add(modifiers.dice(options)),
            difficulty,
            limits,
        )
    }

    /// A Lore check with its pool already worked out; any pool ≤ 0 rolls two dice (000-A1).
    ///
    /// # Errors
    /// [`CoreError::TooManyDice`] (as [`RitualError::Core`]) when `pool` is above `limits.max_dice`.
    pub fn from_pool(
        pool: i64,
        difficulty: Difficulty,
        limits: &Limits,
    ) -> Result<Self, RitualError> {
        if pool > 0 {
            limits.check_dice(pool)?;
        }
        Ok(LoreCheck { pool, difficulty })
    }

    /// Lore plus modifiers; may be zero or negative.
    pub fn pool(&self) -> i64 {
        self.pool
    }

    pub fn difficulty(&self) -> Difficulty {
        self.difficulty
    }

    pub fn dice(&self) -> LoreDice {
        if self.difficulty.is_automatic() {
            LoreDice::Automatic
        } else if self.pool >= 1 {
            // Checked against the limits at construction, so it fits.
            LoreDice::HighestOf(usize::try_from(self.pool).unwrap_or(usize::MAX))
        } else {
            LoreDice::LowerOfTwo
        }
    }

    /// The distribution of the die that counts (the pmf of the result, 000-M5); `None` for difficulty 1,
    /// which is not rolled.
    ///
    /// # Errors
    /// [`RitualError::Core`] when the computation exceeds `limits`.
    pub fn result_distribution(
        &self,
        limits: &Limits,
    ) -> Result<Option<Distribution<i64>>, RitualError> {
        let (count, keep) = match self.dice() {
            LoreDice::Automatic => return Ok(None),
            LoreDice::HighestOf(n) => (n, Keep::Highest(1)),
            LoreDice::LowerOfTwo => (2, Keep::Lowest(1)),
        };
        let d6 = Distribution::die(SIDES)?;
        let result = keep_sum(&d6, count, keep, &|x| x, limits, &mut limits.budget())?;
        Ok(Some(result))
    }

    /// P(success), exactly (000-M5): 1 for difficulty 1, else P(result ≥ difficulty).
    ///
    /// # Errors
    /// [`RitualError::Core`] when the computation exceeds `limits`.
    pub fn success_probability(&self, limits: &Limits) -> Result<Probability, RitualError> {
        let difficulty = self.difficulty.value();
        Ok(match self.result_distribution(limits)? {
            None => Probability::one(),
            Some(result) => result.probability_where(|&r| r >= difficulty),
        })
    }

    /// Rolls the check with dice from `source` (000-M3, M4).
    ///
    /// # Errors
    /// The source's errors (a [`omen_core::ScriptedDice`] that runs out or shows a non-d6 face), as
    /// [`RitualError::Core`].
    pub fn roll(&self, source: &mut dyn DieSource) -> Result<LoreRoll, RitualError> {
        let (count, highest) = match self.dice() {
            LoreDice::Automatic => {
                return Ok(LoreRoll {
                    dice: Vec::new(),
                    result: None,
                    success: true,
                });
            }
            LoreDice::HighestOf(n) => (n, true),
            LoreDice::LowerOfTwo => (2, false),
        };
        let dice = roll_d6(count, source)?;
        let result = if highest {
            dice.iter().max()
        } else {
            dice.iter().min()
        }
        .copied();
        let success = result.is_some_and(|r| r >= self.difficulty.value());
        Ok(LoreRoll {
            dice,
            result,
            success,
        })
    }
}

fn roll_d6(count: usize, source: &mut dyn DieSource) -> Result<Vec<i64>, CoreError> {
    let d6 = Die::Standard(SIDES as u64);
    (0..count).map(|_| source.roll(&d6)).collect()
}

// ---------------------------------------------------------------------------------------------------
// The Essence check (000-M9..M11, S2's penalty, A9..A11).

/// What feeds an Essence pool (000-M9). Essence values are plain integers (000-A11).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EssenceContributions {
    /// The Ritual Leader's Essence.
    pub leader: i64,
    /// Each Assistant's Essence.
    pub assistants: Vec<i64>,
    /// Essence derived from the Time and Place.
    pub time_and_place: i64,
    /// Essence of each Relic present.
    pub relics: Vec<i64>,
    /// Essence of each Offering.
    pub offerings: Vec<i64>,
    /// Earlier attempts at this ritual since all ritualists last had a full night's sleep: attempt k
    /// loses k − 1 dice (000-S2).
    pub repeated_attempts: i64,
    /// Dice lost to anything else, such as ritual contamination or the GM's ruling.
    pub other_penalties: i64,
}

impl EssenceContributions {
    /// The number of Essence dice: the contributions minus the penalties, at least 0 (000-M9).
    ///
    /// # Errors
    /// [`RitualError::NegativeEssence`], [`RitualError::NegativePenalty`]; [`CoreError::TooManyDice`] (as
    /// [`RitualError::Core`]) when the pool is above `limits.max_dice`.
    pub fn pool(&self, limits: &Limits) -> Result<usize, RitualError> {
        let contributors = std::iter::once(("leader's", self.leader))
            .chain(self.assistants.iter().map(|&v| ("an assistant's", v)))
            .chain(std::iter::once(("time and place", self.time_and_place)))
            .chain(self.relics.iter().map(|&v| ("a relic's", v)))
            .chain(self.offerings.iter().map(|&v| ("an offering's", v)));
        let mut dice: i128 = 0;
        for (contributor, value) in contributors {
            if value < 0 {
                return Err(RitualError::NegativeEssence { contributor, value });
            }
            dice += i128::from(value);
        }
        for (penalty, value) in [
            ("repeated-attempt", self.repeated_attempts),
            ("other", self.other_penalties),
        ] {
            if value < 0 {
                return Err(RitualError::NegativePenalty { penalty, value });
            }
            dice -= i128::from(value);
        }
        let dice = i64::try_from(dice.max(0)).unwrap_or(i64::MAX);
        Ok(limits.check_dice(dice)?)
    }
}

/// What an Essence total achieves (000-M10). JSON: `"failed"` or `{"reached": 12}`.
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
pub enum EssenceOutcome {
    /// Below the lowest threshold.
    Failed,
    /// The highest threshold the total meets.
    Reached(i64),
}

/// A validated Essence check: the pool, the ritual's thresholds, and the pairs replaced by 7.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EssenceCheck {
    pool: usize,
    thresholds: Vec<i64>,
    pairs: usize,
}

/// One Essence check as rolled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EssenceRoll {
    /// Every die rolled, in order (the replaced pairs are not rolled).
    pub dice: Vec<i64>,
    /// Pairs replaced by 7 each.
    pub pairs: usize,
    /// 7 per pair plus the dice.
    pub total: i64,
    pub outcome: EssenceOutcome,
}

impl EssenceCheck {
    /// An Essence check with the pool `contributions` give and the ritual's `thresholds` (any order).
    ///
    /// # Errors
    /// Those of [`EssenceContributions::pool`] and [`EssenceCheck::from_pool`].
    pub fn new(
        contributions: &EssenceContributions,
        thresholds: &[i64],
        limits: &Limits,
    ) -> Result<Self, RitualError> {
        Self::from_pool(contributions.pool(limits)?, thresholds, limits)
    }

    /// An Essence check of `dice` dice against the ritual's `thresholds` (any order).
    ///
    /// # Errors
    /// [`RitualError::NoThresholds`], [`RitualError::ThresholdTooLow`],
    /// [`RitualError::DuplicateThreshold`]; [`CoreError::TooManyDice`] (as [`RitualError::Core`]) when
    /// `dice` is above `limits.max_dice`.
    pub fn from_pool(
        dice: usize,
        thresholds: &[i64],
        limits: &Limits,
    ) -> Result<Self, RitualError> {
        limits.check_dice(i64::try_from(dice).unwrap_or(i64::MAX))?;
        if thresholds.is_empty() {
            return Err(RitualError::NoThresholds);
        }
        let mut sorted = thresholds.to_vec();
        sorted.sort_unstable();
        if let Some(&low) = sorted.first().filter(|&&t| t < 1) {
            return Err(RitualError::ThresholdTooLow(low));
        }
        if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(RitualError::DuplicateThreshold(pair[0]));
        }
        Ok(EssenceCheck {
            pool: dice,
            thresholds: sorted,
            pairs: 0,
        })
    }

    /// The same check with `pairs` pairs of dice replaced by 7 each, if the shortcut allows it for the
    /// effect of `desired_threshold` (000-M11, A9, A10).
    ///
    /// # Errors
    /// [`RitualError::UnknownThreshold`] when `desired_threshold` is not one of the ritual's; those of
    /// [`check_pair_shortcut`].
    pub fn with_pairs(
        self,
        pairs: usize,
        desired_threshold: i64,
        options: &RitualOptions,
    ) -> Result<Self, RitualError> {
        if !self.thresholds.contains(&desired_threshold) {
            let listed: Vec<String> = self.thresholds.iter().map(i64::to_string).collect();
            return Err(RitualError::UnknownThreshold {
                threshold: desired_threshold,
                thresholds: listed.join(", "),
            });
        }
        check_pair_shortcut(
            self.pool,
            pairs,
            desired_threshold,
            options.shortcut_threshold,
        )?;
        Ok(EssenceCheck { pairs, ..self })
    }

    /// The Essence dice, replaced pairs included.
    pub fn pool(&self) -> usize {
        self.pool
    }

    /// Pairs replaced by 7 each.
    pub fn pairs(&self) -> usize {
        self.pairs
    }

    /// The dice actually rolled: the pool less the replaced pairs.
    pub fn rolled_dice(&self) -> usize {
        self.pool - 2 * self.pairs
    }

    /// The thresholds, ascending.
    pub fn thresholds(&self) -> &[i64] {
        &self.thresholds
    }

    /// What a total achieves: the highest threshold it meets (000-M10).
    pub fn outcome_for_total(&self, total: i64) -> EssenceOutcome {
        self.thresholds
            .iter()
            .rev()
            .find(|&&t| total >= t)
            .map_or(EssenceOutcome::Failed, |&t| EssenceOutcome::Reached(t))
    }

    fn pairs_value(&self) -> Result<i64, CoreError> {
        i64::try_from(self.pairs)
            .ok()
            .and_then(|p| p.checked_mul(PAIR_VALUE))
            .ok_or(CoreError::Overflow)
    }

    /// The exact distribution of the total: 7 per replaced pair plus the sum of the rolled dice.
    ///
    /// # Errors
    /// [`RitualError::Core`] when the computation exceeds `limits`.
    pub fn total_distribution(&self, limits: &Limits) -> Result<Distribution<i64>, RitualError> {
        let sum = dice_sum_distribution(self.rolled_dice(), limits)?;
        let pairs = self.pairs_value()?;
        Ok(sum.map(|&s| s + pairs))
    }

    /// P(total ≥ threshold) for each threshold, ascending (000-M10, M12).
    ///
    /// # Errors
    /// [`RitualError::Core`] when the computation exceeds `limits`.
    pub fn threshold_probabilities(
        &self,
        limits: &Limits,
    ) -> Result<Vec<(i64, Probability)>, RitualError> {
        let total = self.total_distribution(limits)?;
        Ok(self
            .thresholds
            .iter()
            .map(|&t| (t, total.probability_where(|&s| s >= t)))
            .collect())
    }

    /// The distribution of the outcome: which threshold is the highest reached, or failure (000-M10).
    ///
    /// # Errors
    /// [`RitualError::Core`] when the computation exceeds `limits`.
    pub fn outcome_distribution(
        &self,
        limits: &Limits,
    ) -> Result<Distribution<EssenceOutcome>, RitualError> {
        Ok(self
            .total_distribution(limits)?
            .map(|&total| self.outcome_for_total(total)))
    }

    /// Rolls the check with dice from `source`.
    ///
    /// # Errors
    /// The source's errors, as [`RitualError::Core`]; [`CoreError::Overflow`] for a total beyond 64 bits.
    pub fn roll(&self, source: &mut dyn DieSource) -> Result<EssenceRoll, RitualError> {
        let dice = roll_d6(self.rolled_dice(), source)?;
        let total = dice
            .iter()
            .try_fold(self.pairs_value()?, |acc, &d| acc.checked_add(d))
            .ok_or(CoreError::Overflow)?;
        Ok(EssenceRoll {
            dice,
            pairs: self.pairs,
            total,
            outcome: self.outcome_for_total(total),
        })
    }
}

/// The exact distribution of the sum of `dice` d6 (the constant 0 for no dice).
///
/// # Errors
/// [`RitualError::Core`] when the computation exceeds `limits`.
pub fn dice_sum_distribution(
    dice: usize,
    limits: &Limits,
) -> Result<Distribution<i64>, RitualError> {
    let d6 = Distribution::die(SIDES)?;
    Ok(keep_sum(
        &d6,
        dice,
        Keep::All,
        &|x| x,
        limits,
        &mut limits.budget(),
    )?)
}

/// P(the sum of `dice` d6 ≥ `threshold`), exactly (000-M12).
///
/// # Errors
/// [`RitualError::Core`] when the computation exceeds `limits`.
pub fn essence_success_probability(
    dice: usize,
    threshold: i64,
    limits: &Limits,
) -> Result<Probability, RitualError> {
    Ok(dice_sum_distribution(dice, limits)?.probability_where(|&s| s >= threshold))
}

/// Whether `pairs` pairs of a pool of `dice` may be replaced by 7 each when aiming at
/// `desired_threshold` (000-M11, A9, A10). Replacing no pairs is always allowed.
pub fn pair_shortcut_allowed(
    dice: usize,
    pairs: usize,
    desired_threshold: i64,
    rule: ShortcutThreshold,
) -> bool {
    check_pair_shortcut(dice, pairs, desired_threshold, rule).is_ok()
}

/// Checks the pairs-for-7 shortcut (000-M11): each replaced pair takes two dice of the pool, and at
/// least [`MIN_ROLLED_DICE`] dice must still be rolled unless 7 per pair alone reaches
/// `desired_threshold` (then even no dice at all, 000-A9); a pool of fewer than 5 dice may use it only
/// that way (000-A10).
///
/// # Errors
/// [`RitualError::TooManyPairs`] when the pool has fewer than `2 · pairs` dice;
/// [`RitualError::TooFewDiceRolled`] when fewer than 5 dice would be rolled and the pairs fall short.
pub fn check_pair_shortcut(
    dice: usize,
    pairs: usize,
    desired_threshold: i64,
    rule: ShortcutThreshold,
) -> Result<(), RitualError> {
    if pairs == 0 {
        return Ok(());
    }
    let rolled = pairs
        .checked_mul(2)
        .and_then(|replaced| dice.checked_sub(replaced))
        .ok_or(RitualError::TooManyPairs { pairs, dice })?;
    let pairs_total = i128::from(PAIR_VALUE) * pairs as i128;
    if rolled < MIN_ROLLED_DICE && !rule.reaches(pairs_total, desired_threshold) {
        return Err(RitualError::TooFewDiceRolled {
            pairs,
            rolled,
            threshold: desired_threshold,
            rule,
        });
    }
    Ok(())
}

/// The numbers of pairs the shortcut allows for one pool and desired threshold (000-M11, A9, A10): at
/// most two runs. Not always one range: 12 dice aiming at 35 allow 0..=3 (5 or more dice still
/// rolled) and 5..=6 (35 or more from pairs alone), but not 4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedPairs {
    /// 0 (no shortcut, always allowed) up to the most pairs that still leave 5 dice to roll.
    pub leaving_five_dice: RangeInclusive<usize>,
    /// The pairs whose 7 each reach the desired threshold by themselves, up to the whole pool; `None`
    /// when even all the pairs the pool holds fall short.
    pub reaching_threshold: Option<RangeInclusive<usize>>,
}

impl AllowedPairs {
    pub fn contains(&self, pairs: usize) -> bool {
        self.leaving_five_dice.contains(&pairs)
            || self
                .reaching_threshold
                .as_ref()
                .is_some_and(|run| run.contains(&pairs))
    }

    /// The most pairs that may be replaced.
    pub fn max(&self) -> usize {
        let reaching = self.reaching_threshold.as_ref().map_or(0, |run| *run.end());
        reaching.max(*self.leaving_five_dice.end())
    }

    /// Every allowed number of pairs, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let after_five = self.leaving_five_dice.end() + 1;
        let reaching = self
            .reaching_threshold
            .clone()
            .into_iter()
            .flat_map(move |run| (*run.start()).max(after_five)..=*run.end());
        self.leaving_five_dice.clone().chain(reaching)
    }
}

/// Which numbers of pairs of a pool of `dice` may be replaced by 7 each when aiming at
/// `desired_threshold`; worked out directly, without trying each number.
pub fn allowed_pairs(dice: usize, desired_threshold: i64, rule: ShortcutThreshold) -> AllowedPairs {
    let most = dice / 2;
    let leaving_five = dice.saturating_sub(MIN_ROLLED_DICE) / 2;
    // The fewest pairs (at least one) whose 7 each reach the threshold.
    let threshold = i128::from(desired_threshold);
    let value = i128::from(PAIR_VALUE);
    let fewest = match rule {
        ShortcutThreshold::Meets => (threshold + value - 1).div_euclid(value),
        ShortcutThreshold::Exceeds => threshold.div_euclid(value) + 1,
    }
    .max(1);
    let reaching_threshold = usize::try_from(fewest)
        .ok()
        .filter(|&fewest| fewest <= most)
        .map(|fewest| fewest..=most);
    AllowedPairs {
        leaving_five_dice: 0..=leaving_five,
        reaching_threshold,
    }
}

// ---------------------------------------------------------------------------------------------------
// The seed's tables (000-M5, M12, M13), byte for byte as its Appendix C and D programs print them.

/// The Lore-check table exactly as the seed's Appendix C program prints it: P(success) for pools
/// 0..=12 and difficulties 2..=6, from exact values (000-M5, E000-1).
pub fn lore_table() -> String {
    let limits = Limits::default();
    let difficulties: Vec<Difficulty> = Difficulty::all().filter(|d| !d.is_automatic()).collect();
    let mut lines = Vec::new();
    lines.push(table_line(
        "Dice ",
        difficulties.iter().map(|d| format!(" {:<7} ", d.value())),
    ));
    lines.push(table_line(
        ":---:",
        difficulties.iter().map(|_| "--------:".to_string()),
    ));
    for pool in 0..=12 {
        let cells = difficulties.iter().map(|&difficulty| {
            let check = LoreCheck::from_pool(pool, difficulty, &limits)
                .expect("pools of at most 12 dice are within the default limits");
            let p = check
                .success_probability(&limits)
                .expect("pools of at most 12 dice are within the default limits");
            percent_cell(&p)
        });
        lines.push(table_line(&format!(" {pool:>2}d "), cells));
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The Lua programs' rows: the cells joined by `|`, with a trailing `|`.
fn table_line(first: &str, cells: impl Iterator<Item = String>) -> String {
    let mut line = first.to_string();
    for cell in cells {
        line.push('|');
        line.push_str(&cell);
    }
    line.push('|');
    line
}

/// Dice per page of the Essence table, and the most dice it shows (000-M13).
const ESSENCE_PAGE_DICE: usize = 8;
const ESSENCE_MAX_DICE: usize = 24;

/// Appendix D's `feq`: |a − b| < 0.0001, decided exactly. No value in the table comes within 10⁻¹⁰ of
/// that cut, so the decision agrees with the program's doubles (checked by a test).
fn lua_feq(a: &Probability, b: &Probability) -> bool {
    let difference = if a >= b { a - b } else { b - a };
    difference < Probability::new(Weight::one(), Weight::from(10_000u32))
}

/// The Essence-check pages exactly as the seed's Appendix D program prints them: P(sum of N d6 ≥ TN)
/// for N = 1..=24 in pages of 8, TN = 3, 6, … up to 6 × the page's most dice, skipping rows that are
/// all but certain or all but impossible on the page (000-M12, M13, E000-2, E000-3).
pub fn essence_table() -> String {
    let limits = Limits::default();
    let sums: Vec<Distribution<i64>> = (0..=ESSENCE_MAX_DICE)
        .map(|dice| {
            dice_sum_distribution(dice, &limits)
                .expect("sums of at most 24 dice are within the default limits")
        })
        .collect();
    let at_least = |dice: usize, target: i64| sums[dice].probability_where(|&s| s >= target);
    let step = SIDES / 2;
    let mut out = String::new();
    for first in (1..=ESSENCE_MAX_DICE).step_by(ESSENCE_PAGE_DICE) {
        let last = ESSENCE_MAX_DICE.min(first + ESSENCE_PAGE_DICE - 1);
        out.push('\n');
        let header = (first..=last).map(|dice| format!(" {dice:>6}D "));
        out.push_str(&table_line("| TN ", header));
        out.push('\n');
        let bar = (first..=last).map(|_| "--------:".to_string());
        out.push_str(&table_line("|:---:", bar));
        out.push('\n');
        let most = i64::try_from(last).expect("at most 24") * SIDES;
        for target in (step..=most).step_by(step as usize) {
            let all_but_certain = lua_feq(&at_least(first, target), &Probability::one());
            let all_but_impossible = lua_feq(&at_least(last, target), &Probability::zero());
            if all_but_certain || all_but_impossible {
                continue;
            }
            let cells = (first..=last).map(|dice| percent_cell(&at_least(dice, target)));
            out.push_str(&table_line(&format!("| {target:>3} "), cells));
            out.push('\n');
        }
    }
    out
}

/// How repeated attempts are counted for the Essence penalty (000-S2, A8).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum RepeatCounting {
    /// Only earlier attempts at the same ritual count. The spec's resolution.
    #[default]
    PerRitual,
    /// Earlier attempts at any ritual count.
    Global,
}

impl RepeatCounting {
    pub const ALL: [RepeatCounting; 2] = [RepeatCounting::PerRitual, RepeatCounting::Global];

    /// The option value as listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            RepeatCounting::PerRitual => "per-ritual",
            RepeatCounting::Global => "global",
        }
    }
}
