//! Seed 001 (`001_44c551452a4b4e64.txt`), a spell-dice pool: magic-users cast by committing d6 from a
//! pool that shrinks whenever a committed die shows 1 or 2, and refills after a night's sleep.
//!
//! Implements `seed-spec.md` items 001-M1 and S1 (the pool: [`Caster`]), 001-M2, M3, M4 and M7 (a cast:
//! [`cast`], [`CastRequest`], [`Penalties`], [`RemovalFaces`]), 001-M5 with A3 (life-energy dice:
//! [`LifeDamage`], [`LifeDiceUse`]), 001-M6 with A4 (the author's variant: [`RemovalTiming`]), 001-A1
//! ([`minimum_dice`]), 001-A5 ([`Caster::can_reach`]) and the analyses of 001-M8 with A2
//! ([`extreme_odds`], [`cast_odds`], [`single_cast_distribution`], [`cast_distribution`], [`exhaust`]);
//! Courtney's table is kept as reference data only (001-D1, A6: [`COURTNEY_RESULTS`]). The caster as
//! a stateful game is [`SpellDiceGame`]. 001-S1 sits inside 001-M1's bullet in the spec, so the
//! registry lists it under 001-M1.
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use omen_rules::spelldice::{
//!     CastRequest, CastResult, Caster, SpellDiceOptions, SpellLevel, Strategy, cast, exhaust,
//! };
//!
//! let limits = Limits::default();
//! // The seed's example: a third-level magic-user (5 dice) commits 3 to a second-level spell (9).
//! let caster = Caster::rested(3, &limits)?;
//! let request = CastRequest::new(SpellLevel::new(2)?, 3);
//! let options = SpellDiceOptions::default();
//! let done = cast(&caster, &request, &options, &mut ScriptedDice::new(vec![2, 4, 5]))?;
//! assert_eq!((done.outcome.total, done.outcome.result), (11, CastResult::Success));
//! assert_eq!(done.state.pool(), 4); // the 2 is lost
//!
//! // E001-5: a first-level caster committing every die runs dry before any success 185/1188 of days.
//! let day = exhaust(1, SpellLevel::AGNOSTIC, Strategy::All, &options, &limits)?;
//! assert_eq!(day.exhausted_before_success.to_string(), "185/1188");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every probability is exact; the exhaustion analysis solves the pool's Markov chain by exact
//! recursion on the pool size (each state only moves to smaller pools or stays put).

mod analyses;
mod courtney;
mod description;
pub mod exhaustion;
mod game;
pub mod odds;
mod rules;

pub use analyses::*;
pub use courtney::CourtneyInputs;
pub use description::SpellDice;
pub use game::{SpellDiceAction, SpellDiceGame, SpellDiceSheet, SpellDiceState};
pub use rules::*;
