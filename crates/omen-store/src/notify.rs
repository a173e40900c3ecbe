//! News of the log across processes. On PostgreSQL every log entry's transaction sends a
//! notification on [`LOG_CHANNEL`] (`pg_notify`, which the database delivers only when the
//! transaction commits, and never for one that rolls back) carrying the campaign's name and the new
//! sequence number, and nothing of the entry itself: whoever may read the channel learns that a
//! campaign moved, not what happened in it. [`Store::listen`] follows the channel on a connection
//! of its own and hands every notification to a callback; the entries themselves are read from the
//! store, as anyone may see them.
//!
//! A notification sent while the listener is not connected is lost (PostgreSQL queues them only
//! for sessions that listen), so each (re)connection is announced as [`LogSignal::Resync`]: read
//! again from the last entry you have. On SQLite (one process) there is nothing to listen to: the
//! process that writes knows.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;
use serde::{Deserialize, Serialize};

use crate::channel::LOG_CHANNEL;
use crate::error::StoreError;
use crate::store::{Backend, Store};

/// What the listener hands to its callback.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogSignal {
    /// An entry was committed: campaign `campaign`'s log now reaches `sequence`.
    Appended { campaign: String, sequence: u64 },
    /// The listener (re)connected, so entries may have been committed unannounced while it was
    /// not: read every followed campaign again from its last known entry.
    Resync,
    /// The connection failed or was lost; the listener tries again after `retry_in`.
    Interrupted { error: String, retry_in: Duration },
}

/// A notification's payload: JSON, so any campaign name travels intact.
#[derive(Debug, Deserialize, Serialize)]
pub(crate) struct Payload {
    pub campaign: String,
    pub sequence: u64,
}

/// The first wait before reconnecting; it doubles on every failure in a row, up to
/// [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
/// The longest wait before reconnecting.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// How often the listener looks up from waiting (to notice that it should stop).
const POLL: Duration = Duration::from_millis(250);
/// How long the connection may stay silent before the listener checks that it is still alive (a
/// peer that vanished without closing the connection sends nothing, not even an error).
const IDLE_CHECK: Duration = Duration::from_secs(10);

/// A listener running on a thread of its own; dropping it stops the thread (within [`POLL`]),
/// without waiting for it.
#[derive(Debug)]
pub struct LogListener {
    stop: Arc<AtomicBool>,
}

impl Drop for LogListener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Store {
    /// Follows the log's notifications from other processes (and this one) on PostgreSQL, handing
    /// each to `deliver` on a thread of its own: first a [`LogSignal::Resync`] once listening, then
    /// [`LogSignal::Appended`] for every committed entry, and after a lost connection a
    /// [`LogSignal::Interrupted`], a reconnection with backoff (0.1 s doubling up to 5 s) and a
    /// `Resync` again. `None` on SQLite, where only this process writes.
    ///
    /// # Errors
    /// [`StoreError::Database`] when the thread cannot be started.
    pub fn listen(
        &self,
        deliver: impl FnMut(LogSignal) + Send + 'static,
    ) -> Result<Option<LogListener>, StoreError> {
        let config = match (&self.backend, &self.listen_config) {
            (Backend::Postgres(_), Some(config)) => config.clone(),
            _ => return Ok(None),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        std::thread::Builder::new()
            .name("omen-listen".to_string())
            .spawn(move || follow(&config, &stopped, deliver))
            .map_err(|error| {
                StoreError::Database(format!("cannot start the log listener: {error}"))
            })?;
        Ok(Some(LogListener { stop }))
    }
}

/// Waits `duration`, looking up every [`POLL`]; false when told to stop meanwhile.
fn pause(duration: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + duration;
    while Instant::now() < end {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(POLL.min(end - Instant::now()));
    }
    !stop.load(Ordering::Relaxed)
}

/// The listener's life: connect, listen, deliver, and on any failure wait and start over.
fn follow(config: &crate::pg::Connector, stop: &AtomicBool, mut deliver: impl FnMut(LogSignal)) {
    let mut backoff = FIRST_BACKOFF;
    while !stop.load(Ordering::Relaxed) {
        let error = match connect(config) {
            Ok(mut client) => {
                backoff = FIRST_BACKOFF;
                deliver(LogSignal::Resync);
                listen_on(&mut client, stop, &mut deliver)
            }
            Err(error) => Some(error),
        };
        let Some(error) = error else { return };
        deliver(LogSignal::Interrupted {
            error,
            retry_in: backoff,
        });
        if !pause(backoff, stop) {
            return;
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// The listener's `application_name`, so an operator can tell its connection from the pool's.
pub const LISTENER_NAME: &str = "omen-listen";

fn connect(config: &crate::pg::Connector) -> Result<postgres::Client, String> {
    let mut client = config
        .connect(Some(LISTENER_NAME))
        .map_err(|error| format!("cannot connect to PostgreSQL: {error}"))?;
    client
        .batch_execute(&format!("LISTEN {LOG_CHANNEL}"))
        .map_err(|error| format!("cannot listen on {LOG_CHANNEL}: {error}"))?;
    Ok(client)
}

/// Delivers notifications until told to stop (`None`) or the connection fails (its error).
fn listen_on(
    client: &mut postgres::Client,
    stop: &AtomicBool,
    deliver: &mut impl FnMut(LogSignal),
) -> Option<String> {
    let mut heard = Instant::now();
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let next = client.notifications().timeout_iter(POLL).next();
        match next {
            Ok(Some(notification)) => {
                heard = Instant::now();
                // A payload of another shape is someone else's use of the channel: not news.
                if let Ok(payload) = serde_json::from_str::<Payload>(notification.payload()) {
                    deliver(LogSignal::Appended {
                        campaign: payload.campaign,
                        sequence: payload.sequence,
                    });
                }
            }
            Ok(None) if client.is_closed() => {
                return Some("the connection to PostgreSQL closed".to_string());
            }
            Ok(None) if heard.elapsed() >= IDLE_CHECK => {
                if let Err(error) = client.is_valid(IDLE_CHECK) {
                    return Some(format!("the connection to PostgreSQL is lost: {error}"));
                }
                heard = Instant::now();
            }
            Ok(None) => {}
            Err(error) => return Some(format!("the connection to PostgreSQL failed: {error}")),
        }
    }
}
