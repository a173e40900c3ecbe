//! A pool walk is paid for before it starts, and used to check its request's cancellation only
//! then: `300d20kh150` ran on for seconds after Ctrl-C in a notebook, or past its request's timeout.
//! Each walk now checks as it goes. Without a check inside, a walk tripped after it has started
//! runs to its end and answers; so each case asserts the answer is the cancellation, whatever the
//! time it takes (no clock is asserted on).

use std::time::Duration;

use omen_core::{Cancel, CoreError, Die, Keep, Limits, keep_sum};

fn cancelled_mid_walk(n: usize, keep: Keep) -> Result<(), CoreError> {
    let cancel = Cancel::new();
    let limits = Limits {
        work_budget: omen_core::Ceilings::WORK_BUDGET,
        cancel: cancel.clone(),
        ..Limits::default()
    };
    let worker = std::thread::spawn(move || {
        let d20 = Die::standard(20, &limits)?.distribution();
        let mut budget = limits.budget();
        keep_sum(&d20, n, keep, &|x| x, &limits, &mut budget).map(|_| ())
    });
    // Long enough for the walk to be priced and started: each takes seconds in all.
    std::thread::sleep(Duration::from_millis(200));
    cancel.cancel();
    worker.join().expect("no panic")
}

#[test]
fn a_keep_walk_paid_up_front_stops_when_cancelled() {
    assert_eq!(
        cancelled_mid_walk(300, Keep::Highest(150)),
        Err(CoreError::Cancelled)
    );
}

#[test]
fn a_drop_walk_paid_up_front_stops_when_cancelled() {
    assert_eq!(
        cancelled_mid_walk(400, Keep::DropLowest(200)),
        Err(CoreError::Cancelled)
    );
}

#[test]
fn a_middle_walk_paid_up_front_stops_when_cancelled() {
    assert_eq!(
        cancelled_mid_walk(200, Keep::Middle(100)),
        Err(CoreError::Cancelled)
    );
}
