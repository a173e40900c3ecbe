//! Where the work runs: off the async threads, on threads whose stack fits the deepest walk the
//! language admits, behind semaphores (the database) or client-by-client shares (computations,
//! [`crate::fair`]) that bound how much runs at once and how long a request queues.

use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use omen_store::{Store, StoreError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

use crate::client::{current_cancel, current_client};
use crate::error::ApiError;
use crate::fair::{FairShare, Shares};

/// The stacks a worker thread is started with, largest first: [`omen_lang::STACK_BYTES`], or, where
/// an address-space limit (`ulimit -v`) refuses that reservation, a stack that still holds the
/// deepest admitted walk (about 27 MiB measured; see the CLI's `worker` module, whose test runs those
/// walks on it under a 512 MiB limit).
const STACK_SIZES: [usize; 2] = [omen_lang::STACK_BYTES, 64 << 20];

/// Runs `work` on a thread of its own with [`STACK_SIZES`] of stack (reserved, not used, until a
/// program goes that deep), so no admitted program overflows a stack and the async threads are
/// never blocked. A panic is an internal error, not a dead server.
pub(crate) async fn on_worker<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    on_worker_with(start_thread, work).await
}

/// A way to start a thread with a stack of the given size: [`start_thread`], or in tests one that
/// fails as the system does when it has no threads or address space left.
type Start = fn(usize, Box<dyn FnOnce() + Send>) -> std::io::Result<()>;

fn start_thread(stack: usize, job: Box<dyn FnOnce() + Send>) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("omen-work".to_string())
        .stack_size(stack)
        .spawn(job)
        .map(drop)
}

/// [`on_worker`] with threads started by `start`.
async fn on_worker_with<T: Send + 'static>(
    start: Start,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    let (sender, receiver) = oneshot::channel();
    // A refused spawn hands its closure back to no one: the work waits in a slot that the thread
    // that does start takes it from.
    let slot = Arc::new(Mutex::new(Some((work, sender))));
    let mut refused = None;
    for size in STACK_SIZES {
        let taken = Arc::clone(&slot);
        let started = start(
            size,
            Box::new(move || {
                let job = taken.lock().unwrap_or_else(|e| e.into_inner()).take();
                if let Some((work, sender)) = job {
                    let outcome = panic::catch_unwind(AssertUnwindSafe(work));
                    // The request may have timed out and gone; the result is then dropped.
                    let _ = sender.send(outcome);
                }
            }),
        );
        match started {
            Ok(()) => {
                refused = None;
                break;
            }
            Err(error) => refused = Some(error),
        }
    }
    if let Some(error) = refused {
        // The system is out of threads or address space for now (`ulimit -u`, `ulimit -v`, many
        // requests at once): the server is overloaded, not broken, and the client may try again.
        tracing::warn!("cannot start a worker thread: {error}");
        return Err(ApiError::no_thread());
    }
    match receiver.await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(_)) | Err(_) => Err(ApiError::internal(
            "the computation failed unexpectedly; this is a bug in omen",
        )),
    }
}

/// A bounded pool: at most `permits` jobs at once; a job that waits longer than `queue_timeout` for
/// its turn is refused with 503 and `Retry-After`.
pub(crate) struct Pool {
    permits: Arc<Semaphore>,
    queue_timeout: Duration,
    what: &'static str,
}

impl Pool {
    pub(crate) fn new(permits: usize, queue_timeout: Duration, what: &'static str) -> Self {
        Pool {
            permits: Arc::new(Semaphore::new(permits.max(1))),
            queue_timeout,
            what,
        }
    }

    async fn permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        let retry = self.queue_timeout.as_secs().max(1);
        match tokio::time::timeout(self.queue_timeout, self.permits.clone().acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_)) | Err(_) => Err(ApiError::busy(self.what, retry)),
        }
    }

    /// Runs `work` on a worker thread once the pool has room. The permit is held by the thread, so
    /// a request that times out does not free room its computation still uses (the work budget
    /// bounds how long that is).
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let permit = self.permit().await?;
        on_worker(move || {
            let _permit = permit;
            work()
        })
        .await
    }
}

/// The computation pool: [`crate::fair`]'s threads, shared client by client (the client of the
/// request being served, [`crate::client::current_client`]).
pub(crate) struct Compute {
    share: Arc<FairShare>,
    queue_timeout: Duration,
}

impl Compute {
    pub(crate) fn new(shares: Shares, queue_timeout: Duration) -> Self {
        Compute {
            share: FairShare::new(shares),
            queue_timeout,
        }
    }

    /// Runs `work` on a worker thread once the request's client has its turn. The thread keeps
    /// the permit until `work` returns, which is soon after the request times out or goes away
    /// when `work` computes with [`crate::AppState::limits`] (its cancellation handle is tripped).
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let permit = self
            .share
            .acquire(current_client(), self.queue_timeout)
            .await?;
        // A request past its deadline while it waited starts nothing (one that went away no
        // longer polls this).
        if current_cancel().is_some_and(|cancel| cancel.check_with_clock().is_err()) {
            return Err(ApiError::timeout());
        }
        on_worker(move || {
            let _permit = permit;
            work()
        })
        .await
    }
}

/// The database: a few handles on it ([`Store::try_clone`]), each used by one worker thread at a
/// time, with a bounded queue in front (a permit per handle, so a permit always finds one free).
/// On PostgreSQL the handles share one connection pool and run side by side; writers of one
/// campaign take turns on its row lock. On SQLite (write-ahead logging) readers run side by side
/// on their own connections while writers take turns, one transaction at a time. A database in
/// memory has one handle.
pub(crate) struct Database {
    idle: Arc<Mutex<Vec<Store>>>,
    queue: Pool,
}

/// Handles on a SQLite file: readers beside the one writer, without crowding two cores.
const SQLITE_HANDLES: usize = 4;

impl Database {
    pub(crate) fn new(store: Store, queue_timeout: Duration) -> Self {
        // On PostgreSQL one handle per pooled connection (`OMEN_DB_POOL`): more would wait for a
        // connection, fewer would leave some idle.
        let wanted = store
            .pool_size()
            .map_or(SQLITE_HANDLES, |size| size as usize);
        let mut handles: Vec<Store> = (1..wanted).map_while(|_| store.try_clone().ok()).collect();
        handles.push(store);
        Database {
            queue: Pool::new(handles.len(), queue_timeout, "database work"),
            idle: Arc::new(Mutex::new(handles)),
        }
    }

    /// Runs `work` with a store on a worker thread.
    pub(crate) async fn with<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let idle = self.idle.clone();
        self.queue
            .run(move || {
                // The lock is held only to take and give back a handle. A panic in `work` left no
                // transaction open (both engines roll back on drop), so the handle goes back too,
                // and the panic on to the pool (an internal error).
                let take = || idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
                let mut store = take().expect("a permit always finds an idle handle");
                let answer =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&mut store)));
                idle.lock().unwrap_or_else(|p| p.into_inner()).push(store);
                answer.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .await?
            .map_err(ApiError::from)
    }
}

/// The handles are closed on a thread of their own: PostgreSQL's synchronous client closes its
/// connections by blocking on a runtime of its own, which must not happen on the server's.
impl Drop for Database {
    fn drop(&mut self) {
        let handles = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner()));
        if !handles.is_empty() {
            let _ = std::thread::spawn(move || drop(handles)).join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_saturated_pool_refuses_after_its_queue_timeout_with_retry_after() {
        let pool = Pool::new(1, Duration::from_millis(20), "computations");
        // The one permit is taken: the next job queues, times out, and is told when to come back.
        let held = pool.permits.clone().acquire_owned().await.unwrap();
        let refused = pool.run(|| 1).await.unwrap_err();
        assert_eq!(refused.status, axum::http::StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.retry_after, Some(1));
        assert_eq!(refused.errors[0].kind, "busy");
        drop(held);
        assert_eq!(pool.run(|| 2).await.unwrap(), 2);
    }

    fn no_threads_left(_stack: usize, _job: Box<dyn FnOnce() + Send>) -> std::io::Result<()> {
        // What `pthread_create` answers when the process has no threads or address space left.
        Err(std::io::Error::from(std::io::ErrorKind::WouldBlock))
    }

    /// Regression: under `ulimit -v 524288`, 2 of 8 concurrent computations answered 500 "cannot
    /// start a worker thread"; running out of threads is being busy, not a bug.
    #[tokio::test]
    async fn a_thread_that_cannot_start_is_503_with_retry_after_not_500() {
        let refused = on_worker_with(no_threads_left, || 1).await.unwrap_err();
        assert_eq!(refused.status, axum::http::StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.retry_after, Some(1));
        assert_eq!(refused.errors.len(), 1);
        assert_eq!(refused.errors[0].kind, "busy");
        // The answer as sent: the usual error body, and the header.
        let response = axum::response::IntoResponse::into_response(refused);
        assert_eq!(response.headers()["retry-after"], "1");
        let body = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["errors"][0]["kind"], "busy");
        assert!(
            body["errors"][0]["message"]
                .as_str()
                .unwrap()
                .contains("thread")
        );
        // The first stack refused and the smaller one started: the work runs.
        fn only_small(stack: usize, job: Box<dyn FnOnce() + Send>) -> std::io::Result<()> {
            if stack > 64 << 20 {
                return no_threads_left(stack, job);
            }
            start_thread(stack, job)
        }
        assert_eq!(on_worker_with(only_small, || 2).await.unwrap(), 2);
    }

    #[tokio::test]
    async fn a_panic_in_the_work_is_an_internal_error_not_a_dead_server() {
        let pool = Pool::new(1, Duration::from_secs(1), "computations");
        let failed = pool.run(|| -> u8 { panic!("a bug") }).await.unwrap_err();
        assert_eq!(failed.status, axum::http::StatusCode::INTERNAL_SERVER_ERROR);
        // The permit came back with the thread.
        assert_eq!(pool.run(|| 3).await.unwrap(), 3);
    }
}
