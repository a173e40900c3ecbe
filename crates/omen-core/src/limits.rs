//! Limits that keep every request bounded in time and memory.
//!
//! Each limit is checked before the work starts where the cost can be known up front (dice counts,
//! sides, depth, a pool's state count), and by the work budget during the work everywhere else, so an
//! over-limit request is refused quickly instead of hanging or exhausting memory.

use crate::cancel::Cancel;
use crate::error::CoreError;

/// The documented limits. `Limits::default()` holds the defaults the CLI uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Dice in one pool (`NdX`: N). Default 10,000.
    pub max_dice: u64,
    /// Sides of one die (`dX`: X), and faces of a custom die. Default 1,000,000.
    pub max_sides: u64,
    /// Extra dice one die may add by exploding (the last roll is not exploded again). Default 20.
    pub explode_depth: u64,
    /// The highest `explode_depth` that may be asked for. Default 1,000.
    pub max_explode_depth: u64,
    /// Distinct outcomes of any one distribution. Default 1,000,000.
    pub max_outcomes: u64,
    /// States a dynamic program may hold at once (pool DP sums, tracked multisets). Default 20,000,000.
    pub max_states: u64,
    /// States of one Markov chain (solved exactly by elimination, so cubic in this). Default 500.
    pub max_chain_states: u64,
    /// Nested calls of user functions in the language (recursion depth). Default 200.
    pub max_call_depth: u64,
    /// Work of one computation, in 64-bit limb multiply-adds (a multiply of two big weights costs the
    /// product of their lengths in limbs); the sampler pays [`SAMPLE_STEP_COST`] per step and
    /// [`SAMPLE_DIE_COST`] per die. Default 1,000,000,000: about two seconds at worst.
    pub work_budget: u64,
    /// Steps one sampled process may take (`after`'s n, or the steps before `absorb` settles).
    /// Default 100,000.
    pub max_process_steps: u64,
    /// Bytes of rendered output (a distribution's table or JSON, a roll's transcript). Default 64 MiB:
    /// `1000d6` as JSON (22 MB) fits. A roll's tree stops growing where its JSON transcript would
    /// pass this (each node counted at about the fewest bytes it prints), so it is never held
    /// whole first.
    pub max_output: u64,
    /// Stops the computation when tripped from another thread, or at its deadline: every charge of the
    /// work budget checks it. Not a limit on what is allowed, so it never makes two `Limits` unequal.
    pub cancel: Cancel,
}

/// What the sampler pays from the work budget for each node it evaluates: about what the exact engine
/// pays for the same wall time, so one budget bounds both interpreters (calibrated in bench/).
pub const SAMPLE_STEP_COST: u64 = 300;

/// What the sampler pays for each die it rolls (rerolled and exploded ones included).
pub const SAMPLE_DIE_COST: u64 = 250;

/// The highest value each limit flag accepts: past these, one request could need more memory than a
/// server has (a pool of `max_dice` dice is allocated up front; states and outcomes are held at once)
/// or more time than anyone waits.
#[derive(Clone, Copy, Debug)]
pub struct Ceilings;

impl Ceilings {
    pub const EXPLODE_DEPTH: u64 = 1_000;
    pub const MAX_DICE: u64 = 1_000_000;
    pub const MAX_SIDES: u64 = 10_000_000;
    pub const MAX_OUTCOMES: u64 = 10_000_000;
    pub const MAX_STATES: u64 = 200_000_000;
    pub const MAX_CHAIN_STATES: u64 = 5_000;
    pub const MAX_CALL_DEPTH: u64 = 10_000;
    pub const WORK_BUDGET: u64 = 1_000_000_000_000;
    pub const MAX_PROCESS_STEPS: u64 = 10_000_000;
    pub const MAX_OUTPUT: u64 = 1 << 30;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_dice: 10_000,
            max_sides: 1_000_000,
            explode_depth: 20,
            max_explode_depth: 1_000,
            max_outcomes: 1_000_000,
            max_states: 20_000_000,
            max_chain_states: 500,
            max_call_depth: 200,
            work_budget: 1_000_000_000,
            max_process_steps: 100_000,
            max_output: 64 << 20,
            cancel: Cancel::default(),
        }
    }
}

impl Limits {
    /// # Errors
    /// `TooManyDice` or `NegativeDice` when `count` is outside `0..=max_dice`.
    pub fn check_dice(&self, count: i64) -> Result<usize, CoreError> {
        if count < 0 {
            return Err(CoreError::NegativeDice(count));
        }
        if count as u64 > self.max_dice {
            return Err(CoreError::TooManyDice {
                count,
                limit: self.max_dice,
            });
        }
        Ok(count as usize)
    }

    /// # Errors
    /// `NoSides` or `TooManySides` when `sides` is outside `1..=max_sides`.
    pub fn check_sides(&self, sides: i64) -> Result<u64, CoreError> {
        if sides < 1 {
            return Err(CoreError::NoSides(sides));
        }
        if sides as u64 > self.max_sides {
            return Err(CoreError::TooManySides {
                sides,
                limit: self.max_sides,
            });
        }
        Ok(sides as u64)
    }

    /// # Errors
    /// `ExplodeDepth` when the configured depth is above `max_explode_depth`.
    pub fn check_explode_depth(&self) -> Result<u64, CoreError> {
        if self.explode_depth > self.max_explode_depth {
            return Err(CoreError::ExplodeDepth {
                depth: self.explode_depth,
                limit: self.max_explode_depth,
            });
        }
        Ok(self.explode_depth)
    }

    /// # Errors
    /// `TooManyOutcomes` when `count` is above `max_outcomes`.
    pub fn check_outcomes(&self, count: u128) -> Result<(), CoreError> {
        if count > self.max_outcomes as u128 {
            return Err(CoreError::TooManyOutcomes {
                count,
                limit: self.max_outcomes,
            });
        }
        Ok(())
    }

    /// # Errors
    /// `TooManyStates` when `count` is above `max_states`.
    pub fn check_states(&self, count: u128) -> Result<(), CoreError> {
        if count > self.max_states as u128 {
            return Err(CoreError::TooManyStates {
                count,
                limit: self.max_states,
            });
        }
        Ok(())
    }

    /// # Errors
    /// `TooManyProcessSteps` when `steps` is above `max_process_steps`.
    pub fn check_process_steps(&self, steps: u128) -> Result<(), CoreError> {
        if steps > self.max_process_steps as u128 {
            return Err(CoreError::TooManyProcessSteps {
                limit: self.max_process_steps,
            });
        }
        Ok(())
    }

    /// The work budget of one computation, stopped by [`Limits::cancel`] too.
    pub fn budget(&self) -> Budget {
        Budget {
            left: self.work_budget,
            limit: self.work_budget,
            cancel: self.cancel.clone(),
            until_clock: CLOCK_EVERY,
            spent: 0,
        }
    }
}

/// How much work may pass between two readings of the clock when a deadline is set: about a
/// millisecond at the rate the budget is calibrated to (1,000,000,000 in about two seconds).
const CLOCK_EVERY: u64 = 1 << 19;

/// Work left for one computation; every loop that could be long spends from it, and every spending
/// checks the computation's [`Cancel`] handle first.
#[derive(Debug)]
pub struct Budget {
    left: u64,
    limit: u64,
    cancel: Cancel,
    /// Work left before the deadline (if any) is compared with the clock again.
    until_clock: u64,
    spent: u64,
}

impl Budget {
    /// A budget that is never spent and never cancelled.
    pub fn unlimited() -> Self {
        Budget {
            left: u64::MAX,
            limit: u64::MAX,
            cancel: Cancel::default(),
            until_clock: CLOCK_EVERY,
            spent: 0,
        }
    }

    /// The work spent so far by charges that were paid (a refused charge spends nothing, although
    /// it leaves nothing to spend).
    pub fn spent(&self) -> u64 {
        self.spent
    }

    /// Whether the computation should stop now although it has budget left: its handle was tripped or
    /// its deadline passed. Cheap enough to call per element of a long allocation or loop.
    ///
    /// # Errors
    /// `Cancelled` or `DeadlinePassed`.
    pub fn check(&mut self) -> Result<(), CoreError> {
        self.spend(0)
    }

    /// # Errors
    /// `Cancelled` or `DeadlinePassed` when the computation is to stop (checked first, so a cancelled
    /// computation stops even with budget left); `WorkBudget` once the budget is spent.
    pub fn spend(&mut self, steps: u64) -> Result<(), CoreError> {
        self.cancel.check()?;
        if self.cancel.deadline().is_some() {
            match self.until_clock.checked_sub(steps.max(1)) {
                Some(left) => self.until_clock = left,
                None => {
                    self.until_clock = CLOCK_EVERY;
                    self.cancel.check_with_clock()?;
                }
            }
        }
        match self.left.checked_sub(steps) {
            Some(left) => {
                self.left = left;
                self.spent = self.spent.saturating_add(steps);
                Ok(())
            }
            None => {
                self.left = 0;
                Err(CoreError::WorkBudget { limit: self.limit })
            }
        }
    }

    /// Spends a cost given as a (possibly huge) estimate, refusing before any work is done.
    ///
    /// # Errors
    /// `WorkBudget` when the estimate exceeds what is left.
    pub fn spend_estimate(&mut self, steps: u128) -> Result<(), CoreError> {
        self.spend(u64::try_from(steps).unwrap_or(u64::MAX))
    }
}
