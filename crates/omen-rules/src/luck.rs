//! Seed 002 (`002_60aeb867c045fe01.txt`), "Luck Events" of the Tak'Rahn ruleset: a d50 luck roll whose
//! bad and good ranges a combined modifier shifts, with a karmic modifier that damps streaks.
//!
//! Implements `seed-spec.md` items 002-M1/M2 with A1 and A4 (the ranges for any combined modifier:
//! [`ranges`], [`LuckRanges`]), 002-M3 (events offering one or both outcomes: [`LuckEvent`]), 002-M4
//! (intrinsic modifiers, permanent or for the next roll only: [`IntrinsicModifier`]), 002-S1 and M5 with
//! A5 (the karmic history and its modifier: [`LuckHistory`]), 002-A2 (whether a "no event" from a
//! missing outcome resets the history: [`MissingOutcome`]), 002-A3 (the karmic modifier comes from the
//! history before the roll: [`roll`], [`resolve`]) and the 002-M6 analyses ([`long_run`],
//! [`nth_roll`]). Not yet: the Piety table (external to the seed; give its modifier as an intrinsic one).
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use omen_rules::luck::{self, Karma, LuckEvent, LuckOptions, LuckOutcome, LuckState, ranges};
//!
//! // The seed's calculator at +2: bad 1 to 8, good 39 to 50, 16 % bad luck.
//! let plus_two = ranges(2);
//! assert_eq!(plus_two.probability(LuckOutcome::Bad).to_string(), "4/25");
//! assert_eq!((plus_two.bad, plus_two.good), (Some(1..=8), Some(39..=50)));
//! // Two good-luck rolls in a row give a karmic −1 to the next roll.
//! let event = LuckEvent::both(0)?;
//! let mut dice = ScriptedDice::new(vec![44, 50]);
//! let first = luck::roll(&LuckState::default(), &event, &LuckOptions::default(), &mut dice)?;
//! let second = luck::roll(&first.state, &event, &LuckOptions::default(), &mut dice)?;
//! assert_eq!((second.die, second.outcome), (50, LuckOutcome::Good));
//! assert_eq!(second.state.history.karmic_modifier(), -1);
//! // In the long run at base 0, still exactly one roll in five is good luck.
//! let long = luck::long_run(0, Karma::On, &Limits::default())?;
//! assert_eq!(long.outcomes.probability(&LuckOutcome::Good).to_string(), "1/5");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ops::RangeInclusive;

use omen_core::{Chain, CoreError, Die, DieSource, Distribution, Limits, Probability, Weight};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::stateful::{self, ActionError, ActionInfo, Problems, Stateful};
use crate::{Description, GameMasterOnly, Mechanic, RuleOption, RuleSet};

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

/// Seed 002 in the registry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Luck;

const SPEC_ITEMS: &[&str] = &[
    "002-M1", "002-M2", "002-M3", "002-M4", "002-S1", "002-M5", "002-M6", "002-A1", "002-A2",
    "002-A3", "002-A4", "002-A5",
];

const MECHANICS: &[Mechanic] = &[
    Mechanic {
        name: "luck roll",
        spec_items: &["002-M1", "002-M2", "002-M3", "002-A1", "002-A4"],
        summary: "roll 1d50; combined modifier m = event + intrinsic + karmic shifts the ranges: bad \
                  1..10−m, good 41−m..50 (clamped to 1..50), anything else or an outcome the event \
                  does not offer is no event",
    },
    Mechanic {
        name: "intrinsic modifiers",
        spec_items: &["002-M4"],
        summary: "per-character modifiers (piety, halfling +2, items, blessings, curses), permanent or \
                  for the next luck roll only, which that roll consumes",
    },
    Mechanic {
        name: "karmic history",
        spec_items: &["002-S1", "002-M5", "002-A2", "002-A3", "002-A5"],
        summary: "a run of up to 6 bad or good outcomes; no event empties it, the opposite outcome \
                  restarts it; a run of n gives ±{0,1,2,4,7,10}[n−1] (+ after bad luck) to the next roll",
    },
    Mechanic {
        name: "long run",
        spec_items: &["002-M6"],
        summary: "exact long-run frequencies of bad, neutral and good for a base modifier, and the \
                  distribution of the karmic history, from the Markov chain of histories",
    },
];

const OPTIONS: &[RuleOption] = &[RuleOption {
    name: "missing-outcome",
    spec_item: "002-A2",
    summary: "whether a no event caused by an outcome the event does not offer empties the karmic \
              history like a neutral roll or leaves it unchanged",
    choices: &["resets-history", "keeps-history"],
    default: "resets-history",
    actions: &["roll"],
}];

static DESCRIPTION: Description = Description {
    name: "luck",
    seed_file: SEED_FILE,
    description: "Tak'Rahn luck rolls: a d50 with bad and good ranges shifted by modifiers and a karmic streak damper",
    spec_items: SPEC_ITEMS,
    mechanics: MECHANICS,
    options: OPTIONS,
    tables: &[],
    game_master_only: GAME_MASTER_ONLY,
};

/// 002-M4: the intrinsic modifiers are "hidden because this is tracked internally for each character
/// by the Game Operative". The karmic history and every modifier derived from them stay with the game
/// master too, and so do the odds (they would give the combined modifier away); a player sees the
/// die and the outcome.
const GAME_MASTER_ONLY: GameMasterOnly = GameMasterOnly {
    action: &["source", "value", "duration"],
    sheet: &["intrinsic", "history"],
    state: &["intrinsic", "history"],
    result: &["modifier", "karmic_modifier", "range", "added", "removed"],
    odds: &["modifier", "karmic_modifier", "outcomes"],
    player_summary,
};

/// What a player reads of a luck action: the die and the outcome of a roll; of a change to the
/// hidden modifiers, only that the game master made one.
fn player_summary(action: &str, shown: &serde_json::Value) -> Option<String> {
    Some(match action {
        "roll" => {
            let outcome = shown
                .get("outcome")
                .cloned()
                .and_then(|o| serde_json::from_value::<LuckOutcome>(o).ok())
                .map_or("?", outcome_text);
            format!(
                "d50 = {}: {outcome}",
                shown.get("die").unwrap_or(&serde_json::Value::Null)
            )
        }
        _ => "the game master changed a hidden Luck modifier".to_string(),
    })
}

impl RuleSet for Luck {
    fn describe(&self) -> &'static Description {
        &DESCRIPTION
    }

    fn analyses(&self) -> &'static [crate::analysis::Analysis] {
        ANALYSES
    }
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

// ---------------------------------------------------------------------------------------------------
// Characters that keep their luck between rolls (002-S1, M4, M5): the stateful game.

/// Seed 002's characters: their intrinsic modifiers and karmic history, kept between luck rolls.
#[derive(Clone, Copy, Debug, Default)]
pub struct LuckGame;

/// Which outcomes a luck event offers (002-M3).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Offers {
    #[default]
    Both,
    /// Only bad luck: a roll in the good range is no event.
    Bad,
    /// Only good luck: a roll in the bad range is no event.
    Good,
}

impl Offers {
    /// The event with this modifier offering these outcomes.
    ///
    /// # Errors
    /// [`LuckError::EventModifier`] outside −50..=+50.
    pub fn event(self, modifier: i64) -> Result<LuckEvent, LuckError> {
        LuckEvent::new(modifier, self != Offers::Good, self != Offers::Bad)
    }
}

/// What a game master can do with a character's luck. JSON: `{"action": "roll", "event_modifier": -5}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
#[schemars(example = serde_json::json!({"action": "roll", "event_modifier": -5}))]
pub enum LuckAction {
    /// A luck roll for an event (002-M1..M5): consumes next-roll modifiers, updates the history.
    Roll {
        /// The event's own modifier, −50 to +50.
        #[serde(default)]
        event_modifier: i64,
        #[serde(default)]
        offers: Offers,
        #[serde(default)]
        #[schemars(extend("x-cli-switch" = serde_json::json!({"missing-keeps-history": "keeps-history"})))]
        missing_outcome: MissingOutcome,
    },
    /// Gives the character an intrinsic modifier (002-M4).
    AddModifier {
        /// Where it comes from ("halfling", "blessing").
        source: String,
        /// The modifier, negative for a curse.
        value: i64,
        #[serde(default)]
        #[schemars(extend("x-cli-switch" = serde_json::json!({"next-roll": "next-roll"})))]
        duration: Duration,
    },
    /// Removes every intrinsic modifier from `source` (the cause is gone).
    RemoveModifier {
        /// The source whose modifiers are removed.
        source: String,
    },
}

/// A luck roll's result as logged and shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct RollRecord {
    die: i64,
    karmic_modifier: i64,
    modifier: i64,
    range: LuckOutcome,
    outcome: LuckOutcome,
}

const LUCK_ACTIONS: &[ActionInfo] = &[
    ActionInfo {
        name: "roll",
        spec_items: &[
            "002-M1", "002-M3", "002-M4", "002-M5", "002-S1", "002-A2", "002-A3",
        ],
        summary: "a d50 luck roll for an event: modifiers, outcome, the history updated",
        rolls: true,
    },
    ActionInfo {
        name: "add-modifier",
        spec_items: &["002-M4"],
        summary: "give the character an intrinsic modifier, permanent or for the next roll",
        rolls: false,
    },
    ActionInfo {
        name: "remove-modifier",
        spec_items: &["002-M4"],
        summary: "remove the intrinsic modifiers from one source",
        rolls: false,
    },
];

fn signed(value: i64) -> String {
    if value >= 0 {
        format!("+{value}")
    } else {
        value.to_string()
    }
}

impl Stateful for LuckGame {
    const NAME: &'static str = "luck";
    const VERSION: u32 = 1;
    type Sheet = LuckState;
    type State = LuckState;
    type Action = LuckAction;

    fn actions() -> &'static [ActionInfo] {
        LUCK_ACTIONS
    }

    fn create(sheet: LuckState) -> Result<LuckState, Problems> {
        Self::validate(&sheet).into_result(sheet)
    }

    fn validate(state: &LuckState) -> Problems {
        let mut problems = Problems::new();
        for modifier in &state.intrinsic {
            if modifier.source.trim().is_empty() {
                problems.push("an intrinsic modifier has no source; name where it comes from");
            }
        }
        if state.intrinsic_modifier().is_err() {
            problems.push(
                "the intrinsic modifiers overflow when added; use modifiers of a sensible size",
            );
        }
        problems
    }

    fn apply(
        state: &LuckState,
        action: &LuckAction,
        source: &mut dyn DieSource,
        _limits: &Limits,
    ) -> Result<(serde_json::Value, LuckState, String), ActionError> {
        match action {
            LuckAction::Roll {
                event_modifier,
                offers,
                missing_outcome,
            } => {
                let event = offers.event(*event_modifier).map_err(ActionError::rules)?;
                let options = LuckOptions {
                    missing_outcome: *missing_outcome,
                };
                let roll = roll(state, &event, &options, source).map_err(|e| match e {
                    LuckError::Core(core) => ActionError::Dice(core),
                    other => ActionError::rules(other),
                })?;
                let summary = format!(
                    "d50 = {} with modifier {} (karmic {}): {}",
                    roll.die,
                    signed(roll.modifier),
                    signed(roll.karmic_modifier),
                    outcome_text(roll.outcome)
                );
                let record = RollRecord {
                    die: roll.die,
                    karmic_modifier: roll.karmic_modifier,
                    modifier: roll.modifier,
                    range: roll.range,
                    outcome: roll.outcome,
                };
                let result = serde_json::to_value(record).expect("serialisable");
                Ok((result, roll.state, summary))
            }
            LuckAction::AddModifier {
                source: cause,
                value,
                duration,
            } => {
                let mut after = state.clone();
                after.intrinsic.push(IntrinsicModifier {
                    source: cause.clone(),
                    value: *value,
                    duration: *duration,
                });
                Self::validate(&after).into_result(())?;
                let summary = format!("intrinsic modifier {} from {cause}", signed(*value));
                Ok((serde_json::json!({ "added": cause }), after, summary))
            }
            LuckAction::RemoveModifier { source: cause } => {
                let mut after = state.clone();
                after.intrinsic.retain(|m| &m.source != cause);
                let removed = state.intrinsic.len() - after.intrinsic.len();
                if removed == 0 {
                    return Err(ActionError::Invalid(Problems(vec![format!(
                        "no intrinsic modifier comes from `{cause}`"
                    )])));
                }
                let summary = format!("removed {removed} modifier(s) from {cause}");
                Ok((serde_json::json!({ "removed": removed }), after, summary))
            }
        }
    }

    fn odds(
        state: &LuckState,
        action: &LuckAction,
        _limits: &Limits,
    ) -> Result<serde_json::Value, ActionError> {
        let LuckAction::Roll {
            event_modifier,
            offers,
            ..
        } = action
        else {
            return Err(ActionError::Malformed {
                what: "action",
                message: "only a roll has odds".to_string(),
            });
        };
        let event = offers.event(*event_modifier).map_err(ActionError::rules)?;
        let modifier = state.modifier_for(&event).map_err(ActionError::rules)?;
        let outcomes = event
            .outcome_distribution(state)
            .map_err(ActionError::rules)?;
        Ok(serde_json::json!({
            "modifier": modifier,
            "karmic_modifier": state.history.karmic_modifier(),
            "outcomes": stateful::distribution_json(&outcomes),
        }))
    }
}

fn outcome_text(outcome: LuckOutcome) -> &'static str {
    match outcome {
        LuckOutcome::Bad => "bad luck",
        LuckOutcome::Neutral => "no event",
        LuckOutcome::Good => "good luck",
    }
}

// ---------------------------------------------------------------------------------------------------
// The luck calculator as an analysis (002-M1, M2, M6): the seed's calculator for one combined
// modifier, plus the karmic long run at that modifier as a base.

/// The inputs of the `calculator` analysis.
#[derive(Clone, Debug, Default, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalculatorInputs {
    /// The combined modifier (event + intrinsic + karmic); the seed's calculator covers −50..+50,
    /// and a larger one clamps the same way (002-A4).
    #[serde(default)]
    #[schemars(range(min = -100, max = 100))]
    pub modifier: i64,
}

fn range_text(range: &Option<RangeInclusive<i64>>) -> String {
    match range {
        None => "none".to_string(),
        Some(r) if r.start() == r.end() => r.start().to_string(),
        Some(r) => format!("{}–{}", r.start(), r.end()),
    }
}

fn calculator(
    inputs: &serde_json::Value,
    limits: &Limits,
) -> Result<Vec<crate::analysis::AnalysisTable>, String> {
    use crate::analysis::{AnalysisTable, decode_inputs, probability_cell};
    let CalculatorInputs { modifier } = decode_inputs(inputs)?;
    if !(-100..=100).contains(&modifier) {
        return Err(format!(
            "a modifier of {modifier} is outside −100..+100; every modifier past ±40 already fixes the outcome"
        ));
    }
    let found = ranges(modifier);
    let mut table = AnalysisTable::new(
        format!("The d50's ranges at combined modifier {}", signed(modifier)),
        &["outcome", "faces", "chance"],
    );
    for (outcome, range) in [
        (LuckOutcome::Bad, &found.bad),
        (LuckOutcome::Neutral, &found.neutral),
        (LuckOutcome::Good, &found.good),
    ] {
        table.row(vec![
            outcome_text(outcome).to_string(),
            range_text(range),
            probability_cell(&found.probability(outcome)),
        ]);
    }
    let with = long_run(modifier, Karma::On, limits).map_err(|e| e.to_string())?;
    let without = long_run(modifier, Karma::Off, limits).map_err(|e| e.to_string())?;
    let mut frequencies = AnalysisTable::new(
        format!(
            "The long run at base modifier {} (event + intrinsic), every event offering both outcomes",
            signed(modifier)
        ),
        &["outcome", "with the karmic rule", "without it"],
    );
    for outcome in LuckOutcome::ALL {
        frequencies.row(vec![
            outcome_text(outcome).to_string(),
            probability_cell(&with.outcomes.probability(&outcome)),
            probability_cell(&without.outcomes.probability(&outcome)),
        ]);
    }
    let mut runs = AnalysisTable::new(
        "P(the current run has at least this length), in the long run",
        &["run length", "with the karmic rule", "without it"],
    );
    for length in 1..=6u8 {
        runs.row(vec![
            format!("≥ {length}"),
            probability_cell(&with.run_at_least(length)),
            probability_cell(&without.run_at_least(length)),
        ]);
    }
    let mut histories = AnalysisTable::new(
        "The karmic history before a roll, in the long run (B: a bad run, G: a good run)",
        &["history", "probability", "karmic modifier"],
    );
    for (name, p) in with.named_histories() {
        let karmic = match name.split_at(1) {
            ("B", n) => n
                .parse::<u8>()
                .ok()
                .and_then(|n| LuckHistory::run(RunKind::Bad, n).ok()),
            ("G", n) => n
                .parse::<u8>()
                .ok()
                .and_then(|n| LuckHistory::run(RunKind::Good, n).ok()),
            _ => Some(LuckHistory::EMPTY),
        }
        .map_or(0, |h| h.karmic_modifier());
        histories.row(vec![name, probability_cell(&p), signed(karmic)]);
    }
    Ok(vec![table, frequencies, runs, histories])
}

pub(crate) const ANALYSES: &[crate::analysis::Analysis] = &[crate::analysis::Analysis {
    name: "calculator",
    spec_items: &["002-M1", "002-M2", "002-M5", "002-M6"],
    summary: "the seed's luck calculator: the d50's three ranges and their chances for a combined \
              modifier, and the karmic rule's long run at that modifier",
    inputs: crate::analysis::inputs_schema::<CalculatorInputs>,
    run: calculator,
}];
