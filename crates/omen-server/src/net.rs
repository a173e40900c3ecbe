//! The server's own accept loop, in place of `axum::serve`, for what that does not bound: how long a
//! client may take to send a request's head and how long a connection may sit idle between
//! requests, the size of a head, and connections per client and in all (each is a descriptor, and
//! a process without descriptors can answer no one).
//!
//! A connection is closed when it has been reading a request's head (or sent nothing since it
//! opened) for longer than [`Config::header_timeout`], or has been idle between requests for
//! longer than [`Config::idle_timeout`]. A request being answered (an event stream included) is
//! neither: the request timeout bounds the one, the stream's own rules the other.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ConnectInfo;
use axum::http::{Request, Response};
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tower::ServiceExt;

use crate::client::{ClientKey, client_key};
use crate::{AppState, Config};

/// The address a connection reached on this machine: the `Host` check accepts it as a name.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LocalAddress(pub IpAddr);

/// Descriptors kept for everything but client connections: the database's handles and files, the
/// listener, standard streams, refusals in progress.
pub const RESERVED_DESCRIPTORS: u64 = 128;

/// Connections being refused (answered and closed) at once; past it, closed without an answer.
const REFUSALS_AT_ONCE: usize = 32;

/// Raises this process's soft limit on open descriptors to its hard limit (capped at 1,048,576),
/// so that connections, not the limit a shell happened to set, are what the server's own bound
/// counts. Returns the soft limit in force afterwards, or `None` where it cannot be read.
pub fn raise_descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let limit = getrlimit(Resource::Nofile);
        let wanted = limit.maximum.unwrap_or(u64::MAX).min(1 << 20);
        if limit.current.is_some_and(|current| current < wanted) {
            let raised = Rlimit {
                current: Some(wanted),
                maximum: limit.maximum,
            };
            // Refused (a system whose hard limit is not really usable): keep the soft one.
            let _ = setrlimit(Resource::Nofile, raised);
        }
        getrlimit(Resource::Nofile).current
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The connections this process may hold: `configured`, and below its descriptor limit by
/// [`RESERVED_DESCRIPTORS`] so that a full house still leaves room for the database.
pub fn connection_limit(configured: usize) -> usize {
    #[cfg(unix)]
    let soft = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    #[cfg(not(unix))]
    let soft: Option<u64> = None;
    let below = soft.map_or(usize::MAX, |soft| {
        usize::try_from(soft.saturating_sub(RESERVED_DESCRIPTORS).max(16)).unwrap_or(usize::MAX)
    });
    configured.min(below).max(1)
}

/// Open connections, in all and per client.
struct Connections {
    limit: usize,
    per_client: usize,
    open: Mutex<(usize, std::collections::HashMap<ClientKey, usize>)>,
}

/// Why a connection was not taken.
#[derive(Clone, Copy, Debug)]
enum Refusal {
    /// The client has its share of connections: 429.
    Client,
    /// The server has all it may hold: 503.
    Full,
}

/// An open connection's place, given back on drop.
struct Slot {
    connections: Arc<Connections>,
    key: ClientKey,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.connections.lock();
        open.0 = open.0.saturating_sub(1);
        if let Some(count) = open.1.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.1.remove(&self.key);
            }
        }
    }
}

impl Connections {
    fn lock(&self) -> MutexGuard<'_, (usize, std::collections::HashMap<ClientKey, usize>)> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn admit(self: &Arc<Self>, key: ClientKey) -> Result<Slot, Refusal> {
        let mut open = self.lock();
        let mine = open.1.get(&key).copied().unwrap_or(0);
        if mine >= self.per_client {
            return Err(Refusal::Client);
        }
        if open.0 >= self.limit {
            return Err(Refusal::Full);
        }
        open.0 += 1;
        *open.1.entry(key).or_insert(0) += 1;
        Ok(Slot {
            connections: self.clone(),
            key,
        })
    }
}

/// Where a connection is: reading a request's head since `since`, answering requests, or idle
/// since `since`.
struct Activity {
    state: Mutex<ActivityState>,
}

struct ActivityState {
    answering: usize,
    reading_head: bool,
    since: Instant,
}

impl Activity {
    fn new() -> Arc<Self> {
        Arc::new(Activity {
            state: Mutex::new(ActivityState {
                answering: 0,
                // A new connection is reading its first head: sending nothing is no way to stay.
                reading_head: true,
                since: Instant::now(),
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, ActivityState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Bytes arrived: an idle connection starts a request's head.
    fn received(&self) {
        let mut state = self.lock();
        if state.answering == 0 && !state.reading_head {
            state.reading_head = true;
            state.since = Instant::now();
        }
    }

    fn answer(self: &Arc<Self>) -> Answering {
        let mut state = self.lock();
        state.answering += 1;
        state.reading_head = false;
        Answering(self.clone())
    }

    /// When the connection is to be closed if nothing changes; none while it is answering.
    fn deadline(&self, header_timeout: Duration, idle_timeout: Duration) -> Option<Instant> {
        let state = self.lock();
        if state.answering > 0 {
            return None;
        }
        let timeout = if state.reading_head {
            header_timeout
        } else {
            idle_timeout
        };
        Some(state.since + timeout)
    }
}

/// A request being answered, until its answer's body is sent (or dropped).
struct Answering(Arc<Activity>);

impl Drop for Answering {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.answering = state.answering.saturating_sub(1);
        if state.answering == 0 {
            state.since = Instant::now();
        }
    }
}

/// Resolves when the connection has overstayed its head or idle timeout.
async fn watchdog(activity: Arc<Activity>, header_timeout: Duration, idle_timeout: Duration) {
    loop {
        match activity.deadline(header_timeout, idle_timeout) {
            Some(deadline) if deadline <= Instant::now() => return,
            Some(deadline) => tokio::time::sleep_until(deadline).await,
            // Answering: look again later (the answer's end moves the deadline on).
            None => tokio::time::sleep(header_timeout.min(idle_timeout)).await,
        }
    }
}

/// A socket that tells its connection's [`Activity`] when bytes arrive.
struct Watched {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.received();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// An answer's body that keeps its connection "answering" until it is sent.
struct Tracked {
    body: axum::body::Body,
    _answering: Answering,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// One connection's requests, into the router, with what the routes need to know of the
/// connection: the client's address (rate limit, shares) and the local one (the `Host` check).
#[derive(Clone)]
struct ConnectionService {
    router: Router,
    remote: SocketAddr,
    local: Option<IpAddr>,
    activity: Arc<Activity>,
}

impl hyper::service::Service<Request<Incoming>> for ConnectionService {
    type Response = Response<Tracked>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Tracked>, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let answering = self.activity.answer();
        let mut request = request.map(axum::body::Body::new);
        request.extensions_mut().insert(ConnectInfo(self.remote));
        if let Some(local) = self.local {
            request.extensions_mut().insert(LocalAddress(local));
        }
        let router = self.router.clone();
        Box::pin(async move {
            let response = match router.oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            Ok(response.map(|body| Tracked {
                body,
                _answering: answering,
            }))
        })
    }
}

/// How each connection is served.
struct Serving {
    router: Router,
    http: http1::Builder,
    header_timeout: Duration,
    idle_timeout: Duration,
}

impl Serving {
    fn new(router: Router, config: &Config) -> Self {
        let mut http = http1::Builder::new();
        // hyper's own head timeout runs during idle keep-alive time too; the watchdog keeps the
        // two apart.
        http.header_read_timeout(None)
            .max_header_size(config.max_header_bytes);
        Serving {
            router,
            http,
            header_timeout: config.header_timeout,
            idle_timeout: config.idle_timeout,
        }
    }

    async fn connection(
        self: Arc<Self>,
        stream: TcpStream,
        remote: SocketAddr,
        watcher: hyper_util::server::graceful::Watcher,
        slot: Slot,
    ) {
        let _ = stream.set_nodelay(true);
        let activity = Activity::new();
        let service = ConnectionService {
            router: self.router.clone(),
            remote,
            local: stream.local_addr().ok().map(|a| a.ip()),
            activity: activity.clone(),
        };
        let io = TokioIo::new(Watched {
            stream,
            activity: activity.clone(),
        });
        let connection = watcher.watch(self.http.serve_connection(io, service));
        tokio::select! {
            // A client that went away mid-answer is no error of the server's.
            _ = connection => {}
            () = watchdog(activity, self.header_timeout, self.idle_timeout) => {}
        }
        drop(slot);
    }
}

/// Answers a connection that cannot be taken, then closes it: after reading what the client sent
/// (briefly), so that the close does not reset the connection before the answer is read.
async fn refuse(mut stream: TcpStream, refusal: Refusal) {
    let (status, kind, message) = match refusal {
        Refusal::Client => (
            "429 Too Many Requests",
            "too-many-connections",
            "this address has as many connections open as the server allows one client",
        ),
        Refusal::Full => (
            "503 Service Unavailable",
            "busy",
            "the server has as many connections open as it can hold",
        ),
    };
    let body = serde_json::json!({
        "errors": [{"kind": kind, "message": message, "help": "close idle connections or retry later"}],
        "warnings": [],
    })
    .to_string();
    let answer = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         retry-after: 1\r\ncache-control: no-store\r\nx-content-type-options: nosniff\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    );
    let head = async {
        let mut buffer = [0u8; 4096];
        let mut read = 0;
        while read < 16 << 10 {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    read += n;
                    if buffer[..n].windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_millis(250), head).await;
    let answered = async {
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
    };
    let _ = tokio::time::timeout(Duration::from_millis(250), answered).await;
}

/// Errors of one connection that `accept` reports; the listener is fine.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Serves `router` on `listener` until `shutdown` resolves; see [`crate::serve`].
pub(crate) async fn serve(
    listener: TcpListener,
    state: AppState,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let config = &state.inner.config;
    let connections = Arc::new(Connections {
        limit: connection_limit(config.max_connections),
        per_client: config.connections_per_client.max(1),
        open: Mutex::new(Default::default()),
    });
    let serving = Arc::new(Serving::new(router, config));
    let refusals = Arc::new(Semaphore::new(REFUSALS_AT_ONCE));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, remote) = match accepted {
            Ok(accepted) => accepted,
            Err(error) if is_connection_error(&error) => continue,
            Err(_) => {
                // Out of descriptors or memory: the connections closing will make room.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        match connections.admit(Some(client_key(remote.ip()))) {
            Ok(slot) => {
                let watcher = graceful.watcher();
                tokio::spawn(serving.clone().connection(stream, remote, watcher, slot));
            }
            Err(refusal) => {
                if let Ok(permit) = refusals.clone().try_acquire_owned() {
                    tokio::spawn(async move {
                        refuse(stream, refusal).await;
                        drop(permit);
                    });
                }
            }
        }
    }
    drop(listener);
    state.begin_shutdown();
    graceful.shutdown().await;
    Ok(())
}
