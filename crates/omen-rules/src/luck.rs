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

mod analyses;
mod description;
mod game;
mod ranges;
mod rules;

pub use analyses::*;
pub use description::Luck;
pub use game::*;
pub use ranges::{RangesInputs, StationaryInputs};
pub use rules::*;
