//! The computation pool's share per client: a client (an address, see [`crate::client`]) has at
//! most [`Shares::per_client`] computations running or waiting, and at most
//! [`Shares::running_per_client`] running, so another client always finds a thread that a heavy
//! client cannot take; waiting computations take their turns client by client (round robin), so a
//! new client's computation waits behind at most one computation of each other client, not behind
//! a long queue of one.
//!
//! A computation cannot be stopped part way unless it is told to (cancellation), so what keeps the
//! p99 of small computations is the thread no single client may take, not the order.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::http::StatusCode;
use tokio::sync::oneshot;

use crate::client::ClientKey;
use crate::error::{ApiError, Problem};

/// How the threads are shared.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shares {
    /// Computations at once in all.
    pub threads: usize,
    /// Computations one client may have running or waiting; past it, 429.
    pub per_client: usize,
    /// Computations one client may have running at once.
    pub running_per_client: usize,
}

impl Shares {
    /// `threads` threads, `per_client` computations per client, and every thread but one for any
    /// one client (all of them when there is only one).
    pub(crate) fn new(threads: usize, per_client: usize) -> Self {
        let threads = threads.max(1);
        Shares {
            threads,
            per_client: per_client.max(1),
            running_per_client: threads.saturating_sub(1).max(1),
        }
    }
}

#[derive(Default)]
struct Client {
    running: usize,
    /// Tickets and their wake-ups, in the order they came.
    waiting: VecDeque<(u64, oneshot::Sender<()>)>,
}

#[derive(Default)]
struct Schedule {
    running: usize,
    clients: HashMap<ClientKey, Client>,
    /// The clients with computations waiting, in turn order.
    turns: VecDeque<ClientKey>,
    next_ticket: u64,
}

impl Schedule {
    /// Forgets a client with nothing running or waiting.
    fn tidy(&mut self, key: ClientKey) {
        if self
            .clients
            .get(&key)
            .is_some_and(|c| c.running == 0 && c.waiting.is_empty())
        {
            self.clients.remove(&key);
        }
    }

    /// Gives free threads to waiting computations, one client's turn after another's; a client
    /// at its running share keeps its place for later.
    fn dispatch(&mut self, shares: &Shares) {
        let mut passed = 0;
        while self.running < shares.threads && passed < self.turns.len() {
            let Some(key) = self.turns.pop_front() else {
                break;
            };
            let Some(client) = self.clients.get_mut(&key) else {
                continue;
            };
            if client.running < shares.running_per_client
                && let Some((_, wake)) = client.waiting.pop_front()
            {
                // Granted under the lock: a waiter that has gone by now finds its ticket gone
                // and gives the thread back (see `Waiting`).
                let _ = wake.send(());
                client.running += 1;
                self.running += 1;
                passed = 0;
            } else {
                passed += 1;
            }
            if !client.waiting.is_empty() {
                self.turns.push_back(key);
            }
        }
    }
}

/// A pool's schedule, shared by its permits.
pub(crate) struct FairShare {
    shares: Shares,
    schedule: Mutex<Schedule>,
}

/// A running computation's thread: given back on drop.
pub(crate) struct Permit {
    share: Arc<FairShare>,
    key: ClientKey,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.share.release(self.key);
    }
}

/// A computation waiting for its turn; if it goes (a timeout, a request dropped), its ticket is
/// withdrawn, or the thread it was just given is given back.
struct Waiting {
    share: Arc<FairShare>,
    key: ClientKey,
    ticket: u64,
    granted: bool,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if self.granted {
            return;
        }
        let mut schedule = self.share.lock();
        let withdrawn = schedule.clients.get_mut(&self.key).is_some_and(|client| {
            let before = client.waiting.len();
            client.waiting.retain(|(ticket, _)| *ticket != self.ticket);
            client.waiting.len() < before
        });
        if withdrawn {
            schedule.tidy(self.key);
        } else {
            drop(schedule);
            self.share.release(self.key);
        }
    }
}

impl FairShare {
    pub(crate) fn new(shares: Shares) -> Arc<Self> {
        Arc::new(FairShare {
            shares,
            schedule: Mutex::new(Schedule::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Schedule> {
        self.schedule.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn release(&self, key: ClientKey) {
        let mut schedule = self.lock();
        if let Some(client) = schedule.clients.get_mut(&key) {
            client.running = client.running.saturating_sub(1);
        }
        schedule.running = schedule.running.saturating_sub(1);
        schedule.tidy(key);
        schedule.dispatch(&self.shares);
    }

    /// A thread for `key`'s computation: at once when one is free and the client is within its
    /// running share, else after its turn; 429 when the client already has its share of
    /// computations running or waiting, 503 after `queue_timeout` without a turn.
    pub(crate) async fn acquire(
        self: &Arc<Self>,
        key: ClientKey,
        queue_timeout: Duration,
    ) -> Result<Permit, ApiError> {
        let (ticket, woken) = {
            let mut schedule = self.lock();
            let threads_free = schedule.running < self.shares.threads;
            let client = schedule.clients.entry(key).or_default();
            if client.running + client.waiting.len() >= self.shares.per_client {
                schedule.tidy(key);
                return Err(too_many(self.shares.per_client));
            }
            if threads_free
                && client.waiting.is_empty()
                && client.running < self.shares.running_per_client
            {
                client.running += 1;
                schedule.running += 1;
                return Ok(self.permit(key));
            }
            let ticket = schedule.next_ticket;
            schedule.next_ticket += 1;
            let (wake, woken) = oneshot::channel();
            let client = schedule.clients.entry(key).or_default();
            client.waiting.push_back((ticket, wake));
            if !schedule.turns.contains(&key) {
                schedule.turns.push_back(key);
            }
            (ticket, woken)
        };
        let mut waiting = Waiting {
            share: self.clone(),
            key,
            ticket,
            granted: false,
        };
        match tokio::time::timeout(queue_timeout, woken).await {
            Ok(Ok(())) => {
                waiting.granted = true;
                Ok(self.permit(key))
            }
            // `waiting` withdraws the ticket, or gives back a thread granted meanwhile.
            Ok(Err(_)) | Err(_) => Err(ApiError::busy(
                "computations",
                queue_timeout.as_secs().max(1),
            )),
        }
    }

    fn permit(self: &Arc<Self>, key: ClientKey) -> Permit {
        Permit {
            share: self.clone(),
            key,
        }
    }

    /// Computations running and waiting for `key`, for tests.
    #[cfg(test)]
    fn load(&self, key: ClientKey) -> (usize, usize) {
        let schedule = self.lock();
        schedule
            .clients
            .get(&key)
            .map_or((0, 0), |c| (c.running, c.waiting.len()))
    }
}

fn too_many(per_client: usize) -> ApiError {
    let mut error = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        Problem::new(
            "too-many-computations",
            format!("this address already has {per_client} computations running or waiting"),
        )
        .with_help("wait for an answer before asking the next question"),
    );
    error.retry_after = Some(1);
    error
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;

    use super::*;

    fn key(text: &str) -> ClientKey {
        Some(text.parse::<IpAddr>().unwrap())
    }

    const WAIT: Duration = Duration::from_secs(30);

    #[tokio::test]
    async fn a_client_past_its_share_is_refused_with_429_and_retry_after() {
        let pool = FairShare::new(Shares::new(2, 3));
        let heavy = key("192.0.2.1");
        let mut held = vec![pool.acquire(heavy, WAIT).await.unwrap()];
        // The second and third wait (one thread is kept for others), the fourth is refused.
        let (p, q) = (pool.clone(), pool.clone());
        let second = tokio::spawn(async move { p.acquire(heavy, WAIT).await.map(|_| ()) });
        let third = tokio::spawn(async move { q.acquire(heavy, WAIT).await.map(|_| ()) });
        while pool.load(heavy) != (1, 2) {
            tokio::task::yield_now().await;
        }
        let refused = pool.acquire(heavy, WAIT).await.err().unwrap();
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(refused.retry_after, Some(1));
        held.clear();
        second.await.unwrap().unwrap();
        third.await.unwrap().unwrap();
        assert_eq!(pool.load(heavy), (0, 0));
    }

    #[tokio::test]
    async fn a_new_client_waits_behind_one_computation_of_each_other_not_behind_their_queue() {
        // Three threads: a client may run two.
        let pool = FairShare::new(Shares::new(3, 8));
        let (heavy, other, late) = (key("192.0.2.1"), key("192.0.2.2"), key("192.0.2.3"));
        let mut heavy_running = vec![
            pool.acquire(heavy, WAIT).await.unwrap(),
            pool.acquire(heavy, WAIT).await.unwrap(),
        ];
        let order = Arc::new(Mutex::new(Vec::new()));
        let queued = |who: ClientKey, name: &'static str| {
            let (pool, order) = (pool.clone(), order.clone());
            tokio::spawn(async move {
                let permit = pool.acquire(who, WAIT).await.unwrap();
                order.lock().unwrap().push(name);
                permit
            })
        };
        // The heavy client queues three more; its share is reached, so they wait.
        let mut heavy_waiting = Vec::new();
        for _ in 0..3 {
            heavy_waiting.push(queued(heavy, "heavy"));
            tokio::task::yield_now().await;
        }
        while pool.load(heavy) != (2, 3) {
            tokio::task::yield_now().await;
        }
        // Another client takes the third thread at once.
        let other_running = pool.acquire(other, WAIT).await.unwrap();
        // A late client must wait (every thread is busy), behind one heavy computation at most.
        let late_waiting = queued(late, "late");
        while pool.load(late) != (0, 1) {
            tokio::task::yield_now().await;
        }
        drop(heavy_running.pop());
        drop(other_running);
        let second = heavy_waiting.remove(0).await.unwrap();
        let late_permit = late_waiting.await.unwrap();
        assert_eq!(*order.lock().unwrap(), ["heavy", "late"]);
        drop((second, late_permit, heavy_running));
        for waiting in heavy_waiting {
            drop(waiting.await.unwrap());
        }
        assert_eq!(pool.lock().running, 0);
    }

    #[tokio::test]
    async fn a_waiter_that_gives_up_leaves_no_trace() {
        let pool = FairShare::new(Shares::new(1, 4));
        let one = key("192.0.2.1");
        let held = pool.acquire(one, WAIT).await.unwrap();
        let refused = pool
            .acquire(one, Duration::from_millis(5))
            .await
            .err()
            .unwrap();
        assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(pool.load(one), (1, 0));
        drop(held);
        assert_eq!(pool.load(one), (0, 0));
        assert_eq!(pool.lock().running, 0);
    }
}
