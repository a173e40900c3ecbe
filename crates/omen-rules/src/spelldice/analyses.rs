//! Seed 001's analyses (001-M8, A2), Courtney's threefold result table (001-D1, A6) and the reference tables.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use num_bigint::{BigInt, BigUint};
use num_rational::Ratio;
use num_traits::{One, Zero};
use omen_core::{CoreError, Distribution, Limits, Probability};
use serde::{Deserialize, Serialize};

use crate::render::{fixed_decimal, percent_cell};

use super::rules::*;

// ---------------------------------------------------------------------------------------------------
// Analyses (001-M8, A2).

/// Snake eyes and boxcars among `dice` d6, whatever the spell's result (001-M8, A2, E001-1..3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtremeOdds {
    pub dice: usize,
    /// P(two or more 1s): the numbers the seed quotes (1/36, 16/216, 171/1296) as "either".
    pub snake_eyes: Probability,
    /// P(two or more 6s), equal to `snake_eyes` by symmetry.
    pub boxcars: Probability,
    /// P(two or more 1s or two or more 6s): the seed's words.
    pub either: Probability,
    /// P(two or more 1s and two or more 6s).
    pub both: Probability,
}

/// The extremes among `dice` d6 (001-M8, A2): both the seed's numbers and what its words say.
///
/// # Errors
/// [`SpellDiceError::Core`] when the computation exceeds `limits`.
pub fn extreme_odds(dice: usize, limits: &Limits) -> Result<ExtremeOdds, SpellDiceError> {
    let summaries = roll_summaries(dice, RemovalFaces::default(), limits)?;
    Ok(ExtremeOdds {
        dice,
        snake_eyes: summaries.probability_where(|s| s.ones >= 2),
        boxcars: summaries.probability_where(|s| s.sixes >= 2),
        either: summaries.probability_where(|s| s.ones >= 2 || s.sixes >= 2),
        both: summaries.probability_where(|s| s.ones >= 2 && s.sixes >= 2),
    })
}

/// The odds of one cast's results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CastOdds {
    /// P(success), empowered or not.
    pub success: Probability,
    /// P(failure with two or more 1s).
    pub catastrophe: Probability,
    /// P(success with two or more 6s).
    pub empowered: Probability,
}

/// One die removed or kept after one cast, with the result (001-M8's single-cast outcome
/// distribution: success/failure × dice removed, catastrophe and empowerment shown apart).
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
pub struct SingleCast {
    pub result: CastResult,
    /// Spell dice the cast removes from the pool.
    pub removed: usize,
}

/// The distribution of one cast's result and removed dice when committing `dice` spell dice (no life
/// dice) at `spell_level` with `penalty` subtracted from the total (001-M2..M4, M6, M7, M8).
///
/// # Errors
/// [`SpellDiceError::NoDice`] for 0 dice; [`SpellDiceError::NegativePenalty`];
/// [`SpellDiceError::Core`] when the computation exceeds `limits`.
pub fn single_cast_distribution(
    spell_level: SpellLevel,
    dice: usize,
    penalty: i64,
    options: &SpellDiceOptions,
    limits: &Limits,
) -> Result<Distribution<SingleCast>, SpellDiceError> {
    if dice == 0 {
        return Err(SpellDiceError::NoDice);
    }
    if penalty < 0 {
        return Err(SpellDiceError::NegativePenalty {
            penalty: "flat",
            value: penalty,
        });
    }
    let target = spell_level.target();
    Ok(
        roll_summaries(dice, options.removal_faces, limits)?.map(|s| {
            let result = CastResult::of(
                s.sum - penalty,
                target,
                usize::from(s.ones),
                usize::from(s.sixes),
            );
            let removed = if result.removes_dice(options.removal_timing) {
                s.removable
            } else {
                0
            };
            SingleCast { result, removed }
        }),
    )
}

/// P(success), P(catastrophe) and P(empowered) for `dice` spell dice at `spell_level` with `penalty`
/// subtracted (001-M8, E001-4).
///
/// # Errors
/// As [`single_cast_distribution`].
pub fn cast_odds(
    spell_level: SpellLevel,
    dice: usize,
    penalty: i64,
    limits: &Limits,
) -> Result<CastOdds, SpellDiceError> {
    let outcomes = single_cast_distribution(
        spell_level,
        dice,
        penalty,
        &SpellDiceOptions::default(),
        limits,
    )?;
    Ok(CastOdds {
        success: outcomes.probability_where(|o| o.result.is_success()),
        catastrophe: outcomes.probability_where(|o| o.result == CastResult::Catastrophe),
        empowered: outcomes.probability_where(|o| o.result == CastResult::Empowered),
    })
}

/// How many spell dice a caster commits over a day (001-M8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Every die left.
    All,
    /// The fewest dice that can reach the target ([`minimum_dice`]).
    Minimum,
    /// For each pool size, the commitment that maximises P(at least one success before the pool is
    /// exhausted), ties going to the fewest dice; the same commitment by pool size is kept after a
    /// success. E001-5: at level 1 and target 8 under the base rule this is commit-all (under the
    /// variant it is commit-2). It does not maximise expected successes: at level 5, spell level 1,
    /// base rule, it commits everything (3.56 successes a day) where commit-minimum averages 3.85;
    /// [`Strategy::MostCasts`] does.
    Optimal,
    /// For each pool size, the commitment that maximises the expected number of successful casts in
    /// the day, ties going to the fewest dice (001-M8). At level 2, spell level 1, base rule: 7159/2888
    /// successes a day, against 45623/19760 under [`Strategy::Optimal`].
    MostCasts,
    /// K dice, or the whole pool once it holds fewer than K.
    Fixed(usize),
}

impl Strategy {
    pub fn name(self) -> String {
        match self {
            Strategy::All => "all".to_string(),
            Strategy::Minimum => "minimum".to_string(),
            Strategy::Optimal => "optimal".to_string(),
            Strategy::MostCasts => "most-casts".to_string(),
            Strategy::Fixed(k) => format!("fixed:{k}"),
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for Strategy {
    type Err = SpellDiceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "all" => Ok(Strategy::All),
            "minimum" => Ok(Strategy::Minimum),
            "optimal" => Ok(Strategy::Optimal),
            "most-casts" => Ok(Strategy::MostCasts),
            _ => s
                .strip_prefix("fixed:")
                .and_then(|k| k.parse().ok())
                .map(Strategy::Fixed)
                .ok_or_else(|| SpellDiceError::Strategy(s.to_string())),
        }
    }
}

/// A day of casting one spell level from a full pool (001-M8, E001-5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exhaustion {
    /// P(the pool can no longer reach the target before any cast has succeeded).
    pub exhausted_before_success: Probability,
    /// The expected number of successful casts in the day.
    pub expected_successes: Ratio<BigUint>,
    /// The dice committed at each pool size (index = dice left), 0 where the pool cannot reach.
    pub commitments: Vec<usize>,
}

type Q = Ratio<BigInt>;

fn to_probability(q: &Q) -> Probability {
    let numerator = q.numer().to_biguint().unwrap_or_default();
    let denominator = q.denom().to_biguint().unwrap_or_else(BigUint::one);
    Probability::new(numerator, denominator)
}

/// One commitment's value at one pool size, given the values of every smaller pool.
struct CommitmentValue {
    exhausted: Q,
    successes: Q,
}

/// P(no success before exhaustion) and expected successes from a pool of `pool` dice committing
/// `dice`, given those of the smaller pools; a cast that removes nothing returns to the same pool, so
/// that self-loop is solved in closed form.
fn commitment_value(
    pool: usize,
    outcomes: &Distribution<SingleCast>,
    exhausted: &[Q],
    successes: &[Q],
) -> Result<CommitmentValue, SpellDiceError> {
    let total = BigInt::from(outcomes.total().clone());
    let mut stay_failing = Q::zero();
    let mut stay = Q::zero();
    let mut exhausted_sum = Q::zero();
    let mut successes_sum = Q::zero();
    for (outcome, weight) in outcomes.entries() {
        let p = Q::new(BigInt::from(weight.clone()), total.clone());
        let success = outcome.result.is_success();
        if success {
            successes_sum += &p;
        }
        if outcome.removed == 0 {
            stay += &p;
            if !success {
                stay_failing += &p;
            }
        } else {
            let left = pool - outcome.removed;
            successes_sum += &p * &successes[left];
            if !success {
                exhausted_sum += &p * &exhausted[left];
            }
        }
    }
    if stay.is_one() {
        return Err(CoreError::NeverAbsorbs { state: pool }.into());
    }
    Ok(CommitmentValue {
        exhausted: exhausted_sum / (Q::one() - stay_failing),
        successes: successes_sum / (Q::one() - stay),
    })
}

/// A day of casting (001-M8, E001-5): a magic-user of `level` starts with a full pool and casts spells
/// of `spell_level` (no life dice, no penalties), committing dice by `strategy`, for as long as the
/// pool can reach the target (001-A5); the day ends when it no longer can. Returns P(no successful
/// cast before that) and the expected number of successful casts in the day, exactly, under the
/// removal rules of `options` (the base rule or the author's variant, and the removal faces).
///
/// The pool's Markov chain only ever stays put or shrinks, so it is solved exactly by recursion on the
/// pool size, smallest first.
///
/// # Errors
/// [`SpellDiceError::Level`]; [`SpellDiceError::CommitmentCannotReach`] for `Fixed(k)` with k dice
/// unable to reach the target; [`SpellDiceError::Core`] when the computation exceeds `limits`.
pub fn exhaust(
    level: i64,
    spell_level: SpellLevel,
    strategy: Strategy,
    options: &SpellDiceOptions,
    limits: &Limits,
) -> Result<Exhaustion, SpellDiceError> {
    let full = Caster::rested(level, limits)?.pool();
    let target = spell_level.target();
    let minimum = minimum_dice(target);
    if let Strategy::Fixed(k) = strategy
        && k < minimum
    {
        return Err(SpellDiceError::CommitmentCannotReach { dice: k, target });
    }
    let mut cache: Vec<Option<Distribution<SingleCast>>> = vec![None; full + 1];
    let mut outcomes_for = |dice: usize| -> Result<Distribution<SingleCast>, SpellDiceError> {
        if cache[dice].is_none() {
            cache[dice] = Some(single_cast_distribution(
                spell_level,
                dice,
                0,
                options,
                limits,
            )?);
        }
        Ok(cache[dice].clone().expect("just filled"))
    };
    let mut exhausted: Vec<Q> = Vec::with_capacity(full + 1);
    let mut successes: Vec<Q> = Vec::with_capacity(full + 1);
    let mut commitments = Vec::with_capacity(full + 1);
    for pool in 0..=full {
        if pool < minimum {
            exhausted.push(Q::one());
            successes.push(Q::zero());
            commitments.push(0);
            continue;
        }
        let candidates: Vec<usize> = match strategy {
            Strategy::All => vec![pool],
            Strategy::Minimum => vec![minimum],
            Strategy::Fixed(k) => vec![k.min(pool)],
            Strategy::Optimal | Strategy::MostCasts => (minimum..=pool).collect(),
        };
        let mut best: Option<(usize, CommitmentValue)> = None;
        for dice in candidates {
            let value = commitment_value(pool, &outcomes_for(dice)?, &exhausted, &successes)?;
            let better = |b: &CommitmentValue| match strategy {
                Strategy::MostCasts => value.successes > b.successes,
                _ => value.exhausted < b.exhausted,
            };
            if best.as_ref().is_none_or(|(_, b)| better(b)) {
                best = Some((dice, value));
            }
        }
        let (dice, value) = best.expect("at least one candidate");
        exhausted.push(value.exhausted);
        successes.push(value.successes);
        commitments.push(dice);
    }
    Ok(Exhaustion {
        exhausted_before_success: to_probability(&exhausted[full]),
        expected_successes: to_probability(&successes[full]),
        commitments,
    })
}

// ---------------------------------------------------------------------------------------------------
// Courtney's threefold result table (001-D1, A6).

/// When a spell goes off on Courtney's result table (001-D1).
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
pub enum CourtneyTiming {
    EndOfRound,
    Instantly,
}

/// One row of Courtney's threefold result table (001-D1). Reference data only (001-A6): the seed
/// names neither the roll the table reads nor its modifiers (a 1 cannot even be rolled on 2d6), so no
/// cast consults it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CourtneyRow {
    /// The results the row covers.
    pub results: RangeInclusive<i64>,
    pub timing: CourtneyTiming,
    /// Whether the caster loses the spell.
    pub spell_lost: bool,
    /// The seed's words.
    pub text: &'static str,
}

/// Courtney's threefold result table, as the seed prints it (001-D1).
pub const COURTNEY_RESULTS: [CourtneyRow; 3] = [
    CourtneyRow {
        results: 1..=5,
        timing: CourtneyTiming::EndOfRound,
        spell_lost: true,
        text: "spell goes off at the end of the round, lose the spell",
    },
    CourtneyRow {
        results: 6..=8,
        timing: CourtneyTiming::EndOfRound,
        spell_lost: false,
        text: "spell goes off at the end of the round",
    },
    CourtneyRow {
        results: 9..=12,
        timing: CourtneyTiming::Instantly,
        spell_lost: false,
        text: "spell goes off instantly",
    },
];

/// The row of Courtney's table covering `result`; `None` outside 1..=12.
pub fn courtney_result(result: i64) -> Option<&'static CourtneyRow> {
    COURTNEY_RESULTS
        .iter()
        .find(|row| row.results.contains(&result))
}

/// Courtney's table as markdown (001-D1).
pub fn courtney_table() -> String {
    let mut out = String::from("| result | effect |\n|-------:|:-------|\n");
    for row in &COURTNEY_RESULTS {
        out.push_str(&format!(
            "| {:>6} | {} |\n",
            format!("{}-{}", row.results.start(), row.results.end()),
            row.text
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------------
// Reference tables (001-M8, A2).

/// P(two or more 1s) (the seed's "either" numbers), P(either extreme) and P(both) for 1..=12 dice
/// (001-M8, A2, E001-1..3).
pub fn extremes_table() -> String {
    let limits = Limits::default();
    let mut out = String::from(
        "| dice | 2+ ones | either  | both    |\n|-----:|--------:|--------:|--------:|\n",
    );
    for dice in 1..=12 {
        let odds =
            extreme_odds(dice, &limits).expect("at most 12 dice are within the default limits");
        out.push_str(&format!(
            "| {dice:>4} |{}|{}|{}|\n",
            percent_cell(&odds.snake_eyes),
            percent_cell(&odds.either),
            percent_cell(&odds.both)
        ));
    }
    out
}

/// A day of casting ([`exhaust`]) for levels 1..=5, every spell level up to the level, the base rule
/// and the variant, and strategies all, minimum and optimal (001-M8, M6, E001-5).
pub fn exhaustion_table() -> String {
    let limits = Limits::default();
    let mut out = String::from(
        "| level | spell | rule    | strategy | exhausted | successes |\n|------:|------:|:--------|:---------|----------:|----------:|\n",
    );
    for level in 1..=5 {
        for spell_level in SpellLevel::all().filter(|s| s.value() <= level) {
            for (rule, options) in [
                ("base", SpellDiceOptions::default()),
                ("variant", SpellDiceOptions::variant()),
            ] {
                for strategy in [Strategy::All, Strategy::Minimum, Strategy::Optimal] {
                    let day = exhaust(level, spell_level, strategy, &options, &limits)
                        .expect("levels 1..5 are within the default limits");
                    out.push_str(&format!(
                        "| {level:>5} | {spell_level:>5} | {rule:<7} | {:<8} | {} | {:>9} |\n",
                        strategy.name(),
                        percent_cell(&day.exhausted_before_success),
                        fixed_decimal(&day.expected_successes, 4)
                    ));
                }
            }
        }
    }
    out
}
