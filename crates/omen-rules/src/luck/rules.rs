//! Seed 002's luck rolls: the d50's ranges, the karmic history and its long run.

use std::ops::RangeInclusive;

use omen_core::{Chain, CoreError, Die, DieSource, Distribution, Limits, Probability, Weight};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The seed document this module implements.
pub const SEED_FILE: &str = "002_60aeb867c045fe01.txt";

/// Every luck roll is a d50 (002-M1).
pub const SIDES: i64 = 50;

/// The highest face of the default bad range and the lowest of the default good range (002-M1).
pub const BAD_TOP: i64 = 10;
pub const GOOD_BOTTOM: i64 = 41;

/// An event's own modifier lies in −50..=+50 (002-M3).
pub const EVENT_MODIFIER_LIMIT: i64 = 50;

/// The karmic history remembers at most this many outcomes (002-S1).
pub const HISTORY_LENGTH: u8 = 6;

/// The karmic modifier's size for a run of 1..=6 outcomes of one kind (002-M5): positive after bad
/// luck, negative after good luck.
pub const KARMIC_TABLE: [i64; HISTORY_LENGTH as usize] = [0, 1, 2, 4, 7, 10];

/// Why a luck roll or computation was refused. Messages are lower case and say how to fix the input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LuckError {
    #[error(
        "event luck modifier {0} is outside -50..=+50; use at most ±50 and give the rest as an intrinsic modifier"
    )]
    EventModifier(i64),
    #[error(
        "a luck event must offer a bad luck outcome, a good luck outcome or both; with neither the roll has no purpose"
    )]
    NoOutcomeOffered,
    #[error(
        "a luck run of length {0} is outside 1..=6; the history remembers at most six outcomes"
    )]
    RunLength(u8),
    #[error("luck die {0} is not a face of a d50; give a value from 1 to 50")]
    DieFace(i64),
    #[error("the combined luck modifier overflows; use modifiers of a sensible size")]
    ModifierOverflow,
    #[error(transparent)]
    Core(#[from] CoreError),
}

// ---------------------------------------------------------------------------------------------------
// Options (002-A2) and the registry entry.

/// What a roll in the range of an outcome the event does not offer does to the karmic history (002-A2).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum MissingOutcome {
    /// It is a neutral result ("no event") and empties the history. The spec's resolution.
    #[default]
    ResetsHistory,
    /// The history is left as it was, as if no roll had been made.
    KeepsHistory,
}

impl MissingOutcome {
    pub const ALL: [MissingOutcome; 2] =
        [MissingOutcome::ResetsHistory, MissingOutcome::KeepsHistory];

    /// The option value as listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            MissingOutcome::ResetsHistory => "resets-history",
            MissingOutcome::KeepsHistory => "keeps-history",
        }
    }
}

/// The readings this rule set lets the table choose; `Default` is the spec's resolutions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LuckOptions {
    pub missing_outcome: MissingOutcome,
}

// ---------------------------------------------------------------------------------------------------
// Ranges (002-M1, M2, A1, A4).

/// What a luck roll gives: bad luck, no event, or good luck. Ordered bad < neutral < good.
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
pub enum LuckOutcome {
    Bad,
    /// "No event".
    Neutral,
    Good,
}

impl LuckOutcome {
    pub const ALL: [LuckOutcome; 3] = [LuckOutcome::Bad, LuckOutcome::Neutral, LuckOutcome::Good];

    pub fn name(self) -> &'static str {
        match self {
            LuckOutcome::Bad => "bad luck",
            LuckOutcome::Neutral => "no event",
            LuckOutcome::Good => "good luck",
        }
    }
}

/// The three ranges of the d50 for one combined modifier, as the seed's calculator shows them (002-M2).
/// A range is `None` when the modifier empties it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LuckRanges {
    pub modifier: i64,
    pub bad: Option<RangeInclusive<i64>>,
    pub neutral: Option<RangeInclusive<i64>>,
    pub good: Option<RangeInclusive<i64>>,
}

/// A range clamped to the die's faces, `None` when nothing is left.
fn clamped(low: i128, high: i128) -> Option<RangeInclusive<i64>> {
    let low = low.max(1);
    let high = high.min(i128::from(SIDES));
    // Both now lie in 1..=50 whenever the range is not empty.
    (low <= high).then_some(low as i64..=high as i64)
}

/// The ranges for the combined modifier `modifier`, any value (002-M1, M2): bad 1..=10−m, neutral
/// 11−m..=40−m, good 41−m..=50, each clamped to 1..=50. Exactly ±40 already guarantees an outcome
/// (002-A1); modifiers beyond ±50 are allowed and clamp the same way (002-A4).
pub fn ranges(modifier: i64) -> LuckRanges {
    let m = i128::from(modifier);
    LuckRanges {
        modifier,
        bad: clamped(1, i128::from(BAD_TOP) - m),
        neutral: clamped(i128::from(BAD_TOP) + 1 - m, i128::from(GOOD_BOTTOM) - 1 - m),
        good: clamped(i128::from(GOOD_BOTTOM) - m, i128::from(SIDES)),
    }
}

fn range_size(range: &Option<RangeInclusive<i64>>) -> u64 {
    range
        .as_ref()
        .map_or(0, |r| (r.end() - r.start() + 1).unsigned_abs())
}

impl LuckRanges {
    /// The range a die value falls in.
    pub fn range_of(&self, die: i64) -> LuckOutcome {
        if self.bad.as_ref().is_some_and(|r| r.contains(&die)) {
            LuckOutcome::Bad
        } else if self.good.as_ref().is_some_and(|r| r.contains(&die)) {
            LuckOutcome::Good
        } else {
            LuckOutcome::Neutral
        }
    }

    /// Faces of the d50 in the range of `outcome`.
    pub fn faces(&self, outcome: LuckOutcome) -> u64 {
        match outcome {
            LuckOutcome::Bad => range_size(&self.bad),
            LuckOutcome::Neutral => range_size(&self.neutral),
            LuckOutcome::Good => range_size(&self.good),
        }
    }

    /// P(the die falls in the range of `outcome`) = faces/50, exactly (the calculator's percentages).
    pub fn probability(&self, outcome: LuckOutcome) -> Probability {
        Probability::new(
            Weight::from(self.faces(outcome)),
            Weight::from(SIDES as u64),
        )
    }

    /// The exact distribution of the range the die falls in: the outcome of an event offering both.
    pub fn outcome_distribution(&self) -> Distribution<LuckOutcome> {
        self.distribution_offering(true, true)
    }

    /// The outcome distribution when only some outcomes are offered: the others count as no event.
    fn distribution_offering(&self, bad: bool, good: bool) -> Distribution<LuckOutcome> {
        let weights = LuckOutcome::ALL.map(|range| {
            let outcome = offered_outcome(range, bad, good);
            (outcome, Weight::from(self.faces(range)))
        });
        Distribution::from_weights(weights)
            .expect("the three ranges cover the 50 faces")
            .normalized()
    }
}

fn offered_outcome(range: LuckOutcome, bad: bool, good: bool) -> LuckOutcome {
    match range {
        LuckOutcome::Bad if bad => LuckOutcome::Bad,
        LuckOutcome::Good if good => LuckOutcome::Good,
        _ => LuckOutcome::Neutral,
    }
}

// ---------------------------------------------------------------------------------------------------
// Events (002-M3) and intrinsic modifiers (002-M4).

/// A luck event: its own modifier and which outcomes it offers (002-M3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LuckEvent {
    modifier: i64,
    offers_bad: bool,
    offers_good: bool,
}

impl LuckEvent {
    /// # Errors
    /// [`LuckError::EventModifier`] outside −50..=+50; [`LuckError::NoOutcomeOffered`] when the event
    /// offers neither outcome.
    pub fn new(modifier: i64, offers_bad: bool, offers_good: bool) -> Result<Self, LuckError> {
        if !(-EVENT_MODIFIER_LIMIT..=EVENT_MODIFIER_LIMIT).contains(&modifier) {
            return Err(LuckError::EventModifier(modifier));
        }
        if !offers_bad && !offers_good {
            return Err(LuckError::NoOutcomeOffered);
        }
        Ok(LuckEvent {
            modifier,
            offers_bad,
            offers_good,
        })
    }

    /// An event offering both outcomes.
    ///
    /// # Errors
    /// [`LuckError::EventModifier`] outside −50..=+50.
    pub fn both(modifier: i64) -> Result<Self, LuckError> {
        Self::new(modifier, true, true)
    }

    pub fn modifier(&self) -> i64 {
        self.modifier
    }

    pub fn offers(&self, outcome: LuckOutcome) -> bool {
        match outcome {
            LuckOutcome::Bad => self.offers_bad,
            LuckOutcome::Good => self.offers_good,
            LuckOutcome::Neutral => true,
        }
    }

    /// The outcome of a die in `range`: no event when the event does not offer that outcome.
    pub fn outcome_for(&self, range: LuckOutcome) -> LuckOutcome {
        offered_outcome(range, self.offers_bad, self.offers_good)
    }

    /// The exact distribution of this event's outcome for a character in `state` (002-M1..M5).
    ///
    /// # Errors
    /// [`LuckError::ModifierOverflow`].
    pub fn outcome_distribution(
        &self,
        state: &LuckState,
    ) -> Result<Distribution<LuckOutcome>, LuckError> {
        let modifier = state.modifier_for(self)?;
        Ok(ranges(modifier).distribution_offering(self.offers_bad, self.offers_good))
    }
}

/// How long an intrinsic modifier lasts (002-M4).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
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
pub enum Duration {
    /// As long as its cause lasts (piety level, race, an item worn); removed by the caller.
    #[default]
    Permanent,
    /// For the next luck roll only; that roll consumes it.
    NextRoll,
}

/// One intrinsic luck modifier of a character (002-M4): piety, halfling, items, blessings, curses.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct IntrinsicModifier {
    /// Where it comes from, for display ("halfling", "blessing").
    pub source: String,
    pub value: i64,
    #[serde(default)]
    pub duration: Duration,
}

impl IntrinsicModifier {
    pub fn permanent(source: &str, value: i64) -> Self {
        IntrinsicModifier {
            source: source.to_string(),
            value,
            duration: Duration::Permanent,
        }
    }

    pub fn next_roll(source: &str, value: i64) -> Self {
        IntrinsicModifier {
            source: source.to_string(),
            value,
            duration: Duration::NextRoll,
        }
    }

    /// Every halfling's permanent +2 (002-M4).
    pub fn halfling() -> Self {
        Self::permanent("halfling", 2)
    }
}

// ---------------------------------------------------------------------------------------------------
// The karmic history (002-S1, M5, A5).

/// Which way a run of luck went.
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
pub enum RunKind {
    Bad,
    Good,
}

/// A character's karmic history (002-S1): empty, or a run of 1..=6 outcomes of one kind. The seed's
/// "two or more of the most recent rolls with the same outcome" is this run (002-A5).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(try_from = "Option<RunRecord>", into = "Option<RunRecord>")]
pub struct LuckHistory {
    run: Option<(RunKind, u8)>,
}

/// A history as saved: `null` when empty, else `{"kind": "good", "length": 2}`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RunRecord {
    kind: RunKind,
    length: u8,
}

impl TryFrom<Option<RunRecord>> for LuckHistory {
    type Error = LuckError;

    fn try_from(record: Option<RunRecord>) -> Result<Self, LuckError> {
        match record {
            None => Ok(LuckHistory::EMPTY),
            Some(RunRecord { kind, length }) => LuckHistory::run(kind, length),
        }
    }
}

impl From<LuckHistory> for Option<RunRecord> {
    fn from(history: LuckHistory) -> Self {
        history.run.map(|(kind, length)| RunRecord { kind, length })
    }
}

impl LuckHistory {
    pub const EMPTY: LuckHistory = LuckHistory { run: None };

    /// A run of `length` outcomes of `kind`.
    ///
    /// # Errors
    /// [`LuckError::RunLength`] outside 1..=6.
    pub fn run(kind: RunKind, length: u8) -> Result<Self, LuckError> {
        if !(1..=HISTORY_LENGTH).contains(&length) {
            return Err(LuckError::RunLength(length));
        }
        Ok(LuckHistory {
            run: Some((kind, length)),
        })
    }

    pub fn kind(&self) -> Option<RunKind> {
        self.run.map(|(kind, _)| kind)
    }

    /// The run's length, 0 when empty.
    pub fn length(&self) -> u8 {
        self.run.map_or(0, |(_, length)| length)
    }

    pub fn is_empty(&self) -> bool {
        self.run.is_none()
    }

    /// The karmic modifier this history gives the next roll (002-M5): +table after bad luck, −table
    /// after good luck, 0 when empty.
    pub fn karmic_modifier(&self) -> i64 {
        match self.run {
            None => 0,
            Some((kind, length)) => {
                let size = KARMIC_TABLE[usize::from(length) - 1];
                match kind {
                    RunKind::Bad => size,
                    RunKind::Good => -size,
                }
            }
        }
    }

    /// The history after a roll with `outcome` (002-S1): neutral empties it; the opposite outcome or an
    /// empty history starts a run of 1; the same outcome lengthens the run, at most to 6.
    pub fn after(self, outcome: LuckOutcome) -> LuckHistory {
        let kind = match outcome {
            LuckOutcome::Neutral => return LuckHistory::EMPTY,
            LuckOutcome::Bad => RunKind::Bad,
            LuckOutcome::Good => RunKind::Good,
        };
        let length = match self.run {
            Some((previous, length)) if previous == kind => (length + 1).min(HISTORY_LENGTH),
            _ => 1,
        };
        LuckHistory {
            run: Some((kind, length)),
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// The luck roll as a pure state transition (002-M1..M5, S1, A2, A3).

/// What the rules remember about one character between luck rolls.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
#[schemars(example = serde_json::json!({"intrinsic": [{"source": "halfling", "value": 2}, {"source": "cursed ring", "value": -1, "duration": "permanent"}]}))]
pub struct LuckState {
    /// Intrinsic modifiers, permanent and next-roll-only (002-M4).
    pub intrinsic: Vec<IntrinsicModifier>,
    pub history: LuckHistory,
}

impl LuckState {
    /// The sum of the intrinsic modifiers that apply to the next roll.
    ///
    /// # Errors
    /// [`LuckError::ModifierOverflow`].
    pub fn intrinsic_modifier(&self) -> Result<i64, LuckError> {
        self.intrinsic
            .iter()
            .try_fold(0i64, |sum, m| sum.checked_add(m.value))
            .ok_or(LuckError::ModifierOverflow)
    }

    /// The combined modifier for `event` (002-M1): event + intrinsic + karmic, the karmic one from the
    /// history before the roll (002-A3).
    ///
    /// # Errors
    /// [`LuckError::ModifierOverflow`].
    pub fn modifier_for(&self, event: &LuckEvent) -> Result<i64, LuckError> {
        self.intrinsic_modifier()?
            .checked_add(event.modifier)
            .and_then(|m| m.checked_add(self.history.karmic_modifier()))
            .ok_or(LuckError::ModifierOverflow)
    }
}

/// One luck roll as made: the die, the modifiers, the outcome and the character's state afterwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LuckRoll {
    /// The d50 rolled.
    pub die: i64,
    /// The karmic modifier applied (from the history before the roll).
    pub karmic_modifier: i64,
    /// Event + intrinsic + karmic.
    pub modifier: i64,
    /// The range the die fell in.
    pub range: LuckOutcome,
    /// What happened: the range's outcome, or no event when the event does not offer it.
    pub outcome: LuckOutcome,
    /// The state after the roll: next-roll modifiers consumed, history updated.
    pub state: LuckState,
}

/// Resolves a luck roll whose die is already known: the pure transition behind [`roll`].
///
/// The karmic modifier comes from the history before the roll, which the outcome then updates (002-A3).
/// Next-roll intrinsic modifiers are consumed. A no event caused by an outcome the event does not offer
/// empties the history unless `options` keep it (002-A2).
///
/// # Errors
/// [`LuckError::DieFace`] when `die` is not in 1..=50; [`LuckError::ModifierOverflow`].
pub fn resolve(
    state: &LuckState,
    event: &LuckEvent,
    options: &LuckOptions,
    die: i64,
) -> Result<LuckRoll, LuckError> {
    if !(1..=SIDES).contains(&die) {
        return Err(LuckError::DieFace(die));
    }
    let modifier = state.modifier_for(event)?;
    let range = ranges(modifier).range_of(die);
    let outcome = event.outcome_for(range);
    let missing = range != outcome;
    let history = if missing && options.missing_outcome == MissingOutcome::KeepsHistory {
        state.history
    } else {
        state.history.after(outcome)
    };
    let intrinsic = state
        .intrinsic
        .iter()
        .filter(|m| m.duration == Duration::Permanent)
        .cloned()
        .collect();
    Ok(LuckRoll {
        die,
        karmic_modifier: state.history.karmic_modifier(),
        modifier,
        range,
        outcome,
        state: LuckState { intrinsic, history },
    })
}

/// Rolls for luck with a d50 from `source` (002-M1..M5): the outcome, the new state and the die.
///
/// # Errors
/// The source's errors, as [`LuckError::Core`]; [`LuckError::ModifierOverflow`].
pub fn roll(
    state: &LuckState,
    event: &LuckEvent,
    options: &LuckOptions,
    source: &mut dyn DieSource,
) -> Result<LuckRoll, LuckError> {
    let die = source.roll(&Die::Standard(SIDES as u64))?;
    resolve(state, event, options, die)
}

// ---------------------------------------------------------------------------------------------------
// Analyses (002-M6).

/// Whether the analyses apply the karmic modifier (002-M6 asks for both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Karma {
    #[default]
    On,
    Off,
}

/// The long-run behaviour of a character who keeps rolling for events offering both outcomes at one
/// base modifier (event + intrinsic).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongRun {
    /// The long-run frequencies of bad luck, no event and good luck.
    pub outcomes: Distribution<LuckOutcome>,
    /// The long-run distribution of the karmic history (before a roll).
    pub histories: Distribution<LuckHistory>,
}

impl LongRun {
    /// The long-run distribution of the karmic history as the seed names its states: `empty`,
    /// `B1`..`B6` (bad runs), `G1`..`G6` (good runs), in that order (002-M6).
    pub fn named_histories(&self) -> Vec<(String, Probability)> {
        let name = |h: &LuckHistory| match h.kind() {
            None => "empty".to_string(),
            Some(RunKind::Bad) => format!("B{}", h.length()),
            Some(RunKind::Good) => format!("G{}", h.length()),
        };
        let mut named: Vec<(String, Probability)> = self
            .histories
            .entries()
            .iter()
            .map(|(h, _)| (name(h), self.histories.probability(h)))
            .collect();
        named.sort_by_key(|(n, _)| (n != "empty", n.starts_with('G'), n.clone()));
        named
    }

    /// P(the current run has length ≥ `length`), of either kind.
    pub fn run_at_least(&self, length: u8) -> Probability {
        self.histories.probability_where(|h| h.length() >= length)
    }
}

/// The history's next-history distribution for a base modifier.
fn history_step(base: i64, karma: Karma, history: &LuckHistory) -> Distribution<LuckHistory> {
    ranges(roll_modifier(base, karma, history))
        .outcome_distribution()
        .map(|&outcome| history.after(outcome))
}

fn roll_modifier(base: i64, karma: Karma, history: &LuckHistory) -> i64 {
    match karma {
        Karma::On => base.saturating_add(history.karmic_modifier()),
        Karma::Off => base,
    }
}

/// The outcome distribution of a roll whose history has distribution `histories`.
fn outcomes_from(
    histories: &Distribution<LuckHistory>,
    base: i64,
    karma: Karma,
) -> Distribution<LuckOutcome> {
    let weights = histories.entries().iter().flat_map(|(history, weight)| {
        let ranges = ranges(roll_modifier(base, karma, history));
        LuckOutcome::ALL.map(|o| (o, weight * Weight::from(ranges.faces(o))))
    });
    Distribution::from_weights(weights)
        .expect("a history distribution has positive mass")
        .normalized()
}

fn history_chain(
    base: i64,
    karma: Karma,
    limits: &Limits,
) -> Result<Chain<LuckHistory>, LuckError> {
    let start = Distribution::constant(LuckHistory::EMPTY);
    Chain::explore(
        &start,
        limits,
        &mut limits.budget(),
        LuckError::Core,
        |history| Ok(history_step(base, karma, history)),
    )
}

/// The exact long-run frequencies of bad luck, no event and good luck, and of the karmic history, for a
/// character starting with an empty history and rolling for events offering both outcomes at combined
/// base modifier `base` (event + intrinsic), through [`omen_core::Chain`] (002-M6). At base 0 the
/// frequencies are exactly 1/5, 3/5, 1/5 with or without karma (E002-3).
///
/// # Errors
/// [`LuckError::Core`] when the chain exceeds `limits` (it has at most 13 states).
pub fn long_run(base: i64, karma: Karma, limits: &Limits) -> Result<LongRun, LuckError> {
    let chain = history_chain(base, karma, limits)?;
    let histories = chain.stationary(&mut limits.budget())?;
    let outcomes = outcomes_from(&histories, base, karma);
    Ok(LongRun {
        outcomes,
        histories,
    })
}

/// The exact outcome distribution of the `n`-th roll (counting from 1) of a character starting with an
/// empty history, every roll an event offering both outcomes at base modifier `base` (002-M6).
///
/// # Errors
/// [`LuckError::Core`] when the chain exceeds `limits`; `n = 0` is treated as the first roll.
pub fn nth_roll(
    base: i64,
    n: u64,
    karma: Karma,
    limits: &Limits,
) -> Result<Distribution<LuckOutcome>, LuckError> {
    let chain = history_chain(base, karma, limits)?;
    let histories = chain.after(n.saturating_sub(1), &mut limits.budget())?;
    Ok(outcomes_from(&histories, base, karma))
}
