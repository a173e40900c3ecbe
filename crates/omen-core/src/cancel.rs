//! Stopping a computation from outside: a flag another thread trips, and an optional deadline.
//!
//! The work budget bounds how much a computation may do; this bounds how long anyone still wants it.
//! A server gives each request a [`Cancel`] in its [`Limits`](crate::Limits) and trips it when the
//! request times out or its client goes away; the computation then stops at its next charge of the
//! budget (every loop that can be long pays the budget, and paying checks the flag) with
//! [`CoreError::Cancelled`], within about a millisecond of work.
//!
//! ```
//! use omen_core::{Cancel, CoreError, Limits};
//!
//! let cancel = Cancel::new();
//! let limits = Limits { cancel: cancel.clone(), ..Limits::default() };
//! let mut budget = limits.budget();
//! assert!(budget.spend(10).is_ok());
//! cancel.cancel(); // from any thread holding a clone
//! assert_eq!(budget.spend(10), Err(CoreError::Cancelled));
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::error::CoreError;

/// A cancellation handle: cheap to clone (one shared flag), tripped once by any clone, never reset.
///
/// It rides in [`Limits`](crate::Limits) so that every function that already takes limits and a budget
/// stops on it without a new parameter. Two handles always compare equal: `Limits` are compared for
/// what they allow (their numbers), and a handle is not a limit on that.
#[derive(Clone, Debug, Default)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl Cancel {
    /// A handle that is not tripped and has no deadline.
    pub fn new() -> Self {
        Cancel::default()
    }

    /// The same flag, with a wall-clock deadline after which charges of the budget fail with
    /// [`CoreError::DeadlinePassed`]. The clock is read about once per millisecond of charged work.
    #[must_use]
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Trips the flag: every computation holding a clone stops at its next charge of the budget.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    /// Whether the flag has been tripped.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// The deadline, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// # Errors
    /// `Cancelled` once the flag is tripped.
    pub fn check(&self) -> Result<(), CoreError> {
        if self.is_cancelled() {
            return Err(CoreError::Cancelled);
        }
        Ok(())
    }

    /// # Errors
    /// `Cancelled` once the flag is tripped, `DeadlinePassed` once the deadline is behind us.
    pub fn check_with_clock(&self) -> Result<(), CoreError> {
        self.check()?;
        match self.deadline {
            Some(deadline) if Instant::now() >= deadline => Err(CoreError::DeadlinePassed),
            _ => Ok(()),
        }
    }
}

impl PartialEq for Cancel {
    fn eq(&self, _: &Cancel) -> bool {
        true
    }
}

impl Eq for Cancel {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_clone_trips_the_shared_flag() {
        let cancel = Cancel::new();
        let other = cancel.clone();
        assert_eq!(cancel.check(), Ok(()));
        std::thread::spawn(move || other.cancel()).join().unwrap();
        assert_eq!(cancel.check(), Err(CoreError::Cancelled));
    }

    #[test]
    fn a_deadline_in_the_past_has_passed() {
        let past = Cancel::new().with_deadline(Instant::now());
        assert_eq!(past.check(), Ok(()), "the flag alone is not tripped");
        assert_eq!(past.check_with_clock(), Err(CoreError::DeadlinePassed));
        let future = Cancel::new().with_deadline(Instant::now() + Duration::from_secs(3600));
        assert_eq!(future.check_with_clock(), Ok(()));
    }
}
