//! Everything the routes share: the store, the pools, the cache, the event channel. Below every
//! route, which takes it as axum's state; the crate root builds the router over it.

use std::io::Write as _;
use std::num::NonZeroUsize;
use std::sync::Arc;

use omen_core::Limits;
use omen_store::Store;
use tokio::sync::{Semaphore, broadcast, watch};

use crate::client::current_cancel;
use crate::config::Config;
use crate::fair::Shares;
use crate::odds::OddsCache;
use crate::streams::Streams;
use crate::work::{Compute, Database};

/// A new log entry, announced to the event streams of its campaign: by this process when it wrote
/// it, or by the database's notification when any process did (PostgreSQL, [`omen_store::Store::listen`]).
#[derive(Clone, Debug)]
pub(crate) struct Notice {
    /// The campaign, or none for every campaign (the listener reconnected: entries may have gone
    /// unannounced).
    pub campaign: Option<String>,
    /// The entry's sequence number when known: a stream that has already read it stays asleep.
    pub sequence: Option<u64>,
}

pub(crate) struct Inner {
    pub config: Config,
    pub db: Database,
    pub compute: Compute,
    pub cache: Arc<OddsCache>,
    pub notices: broadcast::Sender<Notice>,
    pub event_streams: Arc<Semaphore>,
    /// The event streams by who holds them ([`Streams`]): the per-invite and per-address caps.
    pub streams: Arc<Streams>,
    /// Exact distributions of logged expressions, shared by fairness reports.
    pub fairness_cache: Arc<omen_store::FairnessCache>,
    pub shutdown: watch::Sender<bool>,
    /// Follows the entries other processes write (PostgreSQL); stops when the state is dropped.
    _listener: Option<omen_store::LogListener>,
}

impl Inner {
    pub(crate) fn cache_handle(&self) -> Arc<OddsCache> {
        self.cache.clone()
    }
}

/// Everything the routes share: the store, the pools, the cache, the event channel.
#[derive(Clone)]
pub struct AppState {
    pub(crate) inner: Arc<Inner>,
}

impl AppState {
    pub fn new(store: Store, config: Config) -> Self {
        let entries = NonZeroUsize::new(config.cache_entries).unwrap_or(NonZeroUsize::MIN);
        let (notices, _) = broadcast::channel(1024);
        let listener = listen(&store, notices.clone());
        AppState {
            inner: Arc::new(Inner {
                _listener: listener,
                db: Database::new(store, config.queue_timeout),
                compute: Compute::new(
                    Shares::new(config.compute_threads, config.computations_per_client),
                    config.queue_timeout,
                ),
                cache: Arc::new(std::sync::Mutex::new(lru::LruCache::new(entries))),
                notices,
                event_streams: Arc::new(Semaphore::new(config.max_event_streams)),
                streams: Arc::default(),
                fairness_cache: Arc::new(omen_store::FairnessCache::new()),
                shutdown: watch::channel(false).0,
                config,
            }),
        }
    }

    /// Ends every event stream, so a graceful shutdown does not wait for clients that never leave.
    pub fn begin_shutdown(&self) {
        self.inner.shutdown.send_replace(true);
    }

    /// The limits of a computation for the request being served: the server's, with the request's
    /// cancellation handle, so the computation stops when the request times out or goes away.
    /// Every computation a request starts takes its limits from here.
    pub(crate) fn limits(&self) -> Limits {
        let mut limits = self.inner.config.limits.clone();
        if let Some(cancel) = current_cancel() {
            limits.cancel = cancel;
        }
        limits
    }

    pub(crate) fn announce(&self, campaign: &str) {
        // No receiver is not an error: nobody is listening.
        let _ = self.inner.notices.send(Notice {
            campaign: Some(campaign.to_string()),
            sequence: None,
        });
    }
}

/// Wakes the event streams when any process writes to the log (PostgreSQL's notifications): the
/// streams then read the new entries from the database and redact them for their viewers, as they
/// do for this process's own writes. Nothing on SQLite, where this process is the only writer.
fn listen(store: &Store, notices: broadcast::Sender<Notice>) -> Option<omen_store::LogListener> {
    let listening = store.listen(move |signal| {
        let notice = match signal {
            omen_store::LogSignal::Appended { campaign, sequence } => Notice {
                campaign: Some(campaign),
                sequence: Some(sequence),
            },
            omen_store::LogSignal::Resync => Notice {
                campaign: None,
                sequence: None,
            },
            omen_store::LogSignal::Interrupted { error, retry_in } => {
                // Said where `omen serve` says everything: the operator should know.
                // A closed stderr must not take the listener down with a panic.
                let _ = writeln!(
                    std::io::stderr(),
                    "warning: the live log misses other servers' entries until it reconnects (in {retry_in:?}): {error}"
                );
                return;
            }
            _ => return,
        };
        let _ = notices.send(notice);
    });
    match listening {
        Ok(listener) => listener,
        Err(error) => {
            let _ = writeln!(
                std::io::stderr(),
                "warning: the live log will miss other servers' entries: {error}"
            );
            None
        }
    }
}
