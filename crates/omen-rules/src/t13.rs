//! Seed 004 (`004_f53bc2b95be51b74.txt`), "T13 Dice Tests": the sum of a pool of dice against a set
//! difficulty or an opponent's total, read as a ladder of result levels.
//!
//! Implements `seed-spec.md` items 004-M1, M2 and D1 with A5 and A6 (the dice of a test and what the
//! bought ones cost: [`DiceSpec`], [`TestDice`], [`PurchaseKind`]), 004-M3 and M4 with A1, A2 and A7
//! (the result level of a total: [`result_level`], [`Opposition`]), 004-M5 with A3 (success levels,
//! their caps by [`CharacterType`], and failure levels mirrored: [`TestResult`]) and 004-M7 with A4
//! (the Proficiency Crisis: [`CrisisTrigger`], [`TestDice::crisis_probability`]); the exact
//! distribution of results ([`TestDice::outcome_distribution`]) and the roll ([`test()`]); 004-M6 (the
//! effects of success levels and their failure inversions as data: [`LEVEL_EFFECTS`]; the opponent's
//! success levels acting instead of yours: [`suffered_failure_levels`]) and 004-M8 (the other ways to
//! pay a loss, as data: [`LossPayment`]). The character with Sway, Chi and Yarn balances is the
//! stateful game [`T13Game`]. Picking effects, and M7's advice that effects should not cancel, stay the
//! referee's and players' choices rather than dice.
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use omen_rules::t13::{self, DiceSpec, Difficulty, ResultLevel, T13Options, TestDice};
//!
//! let limits = Limits::default();
//! // A Boon d6, a Descendant d10 and 2d8 of Proficiency against difficulty 6.
//! let spec = DiceSpec { boon: Some(6), descendant: Some(10), proficiency: 2, ..DiceSpec::default() };
//! let dice = TestDice::new(spec, &limits)?;
//! let options = T13Options::default();
//! // A crisis when either d8 shows 1 or 8: 1 − (6/8)², exactly.
//! assert_eq!(dice.crisis_probability(&options, &limits)?.to_string(), "7/16");
//! // Given dice: 4 + 7 + 3 + 5 = 19 > 3 · 6, a Superior Success with one extra level.
//! let roll = t13::test(&dice, Difficulty::new(6)?, &options, &mut ScriptedDice::new(vec![4, 7, 3, 5]))?;
//! assert_eq!((roll.total, roll.result.level), (19, ResultLevel::SuperiorSuccess));
//! assert_eq!(roll.result.success_levels, 3);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod description;
mod game;
mod rules;

pub use description::T13;
pub use game::{BoughtDieRequest, T13Action, T13Game, T13State};
pub use rules::*;
