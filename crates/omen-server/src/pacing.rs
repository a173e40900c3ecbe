//! How long an answer about a hidden roll takes: not as long as its dice took.
//!
//! A blind roll's roller is told that it happened, not how; but the time the answer took followed
//! the roll's own work (3,001 dice answered in 20–45 ms, one die in 3–18 ms, told apart 23 times in
//! 24). An answer whose entry the caller may not see is therefore held until the next whole
//! [`QUANTUM`] since the request began, at least one: every roll that fits in a quantum answers in
//! the same time, and a roll must take a whole quantum longer to move its answer at all.

use std::time::{Duration, Instant};

/// The step answers about hidden rolls are rounded up to.
pub(crate) const QUANTUM: Duration = Duration::from_millis(250);

/// When an answer begun at `start` and ready after `elapsed` may leave: the next whole quantum.
pub(crate) fn release_after(elapsed: Duration) -> Duration {
    let quanta = elapsed.as_nanos() / QUANTUM.as_nanos() + 1;
    QUANTUM * u32::try_from(quanta).unwrap_or(u32::MAX)
}

/// `answer`, held until its release time when it is about a roll the caller may not see: every
/// answer of a `blind` request, and a successful one that `hidden` says shows no roll.
pub(crate) async fn paced<T, E>(
    blind: bool,
    answer: impl Future<Output = Result<T, E>>,
    hidden: impl FnOnce(&T) -> bool,
) -> Result<T, E> {
    let start = Instant::now();
    let answer = answer.await;
    let held = match &answer {
        Ok(shown) => blind || hidden(shown),
        Err(_) => blind,
    };
    if held {
        tokio::time::sleep_until((start + release_after(start.elapsed())).into()).await;
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_leave_on_the_next_whole_quantum() {
        let ms = Duration::from_millis;
        assert_eq!(release_after(ms(0)), ms(250));
        assert_eq!(release_after(ms(3)), ms(250));
        assert_eq!(release_after(ms(45)), ms(250));
        assert_eq!(release_after(ms(249)), ms(250));
        assert_eq!(release_after(ms(250)), ms(500));
        assert_eq!(release_after(ms(1_100)), ms(1_250));
    }
}
