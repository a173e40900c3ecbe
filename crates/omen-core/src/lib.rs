//! Omen's core: exact dice distributions and the source of randomness. No I/O, no text for users
//! beyond error messages.
//!
//! ```
//! use omen_core::{Distribution, Keep, Limits, keep_sum};
//!
//! let limits = Limits::default();
//! let d6 = Distribution::die(6).unwrap();
//! // 4d6, keep the highest 3.
//! let stat = keep_sum(&d6, 4, Keep::Highest(3), &|x| x, &limits, &mut limits.budget()).unwrap();
//! assert_eq!(stat.probability(&18).to_string(), "7/432");
//! ```

// STYLE.md 16: no function over 100 lines; a longer one is split into named steps.
#![deny(clippy::too_many_lines)]

pub mod cancel;
mod dense;
pub mod dice;
pub mod distribution;
pub mod error;
pub mod foundry;
pub mod grouping;
pub mod in_turn;
mod kept;
mod limbs;
pub mod limits;
pub mod markov;
pub mod multiset;
mod part;
pub mod pool;
pub mod roller;
pub mod sets;
pub mod spec;
pub mod symbols;

pub use cancel::Cancel;
pub use dice::{
    ChainElement, Compare, Condition, Die, DieStep, Explosion, any_of, chain_element, chain_sum,
    step_prefixes,
};
pub use distribution::{
    Distribution, Probability, Statistics, Weight, probability_to_f64, ratio_to_f64,
};
pub use error::CoreError;
pub use limits::{Budget, Ceilings, Limits, SAMPLE_DIE_COST, SAMPLE_STEP_COST};
pub use markov::{Absorption, Chain};
pub use pool::{Keep, Unit, binomial_rows, keep_sum, sequential_keep_sum};
pub use roller::{ChaChaDice, DieSource, RecordingDice, RolledFace, ScriptedDice};
pub use sets::{Matching, Unique, matching_sets, unique_sum};
pub use spec::{
    DiceSpec, Exact, Mark, PoolRoll, PoolSpec, REROLL_LIMIT, RolledDie, count_score, select_kept,
};
