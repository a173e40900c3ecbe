//! `GET /api/v1/campaigns/{campaign}/events`: server-sent events of new log entries. Each event's id
//! is the entry's sequence number, so a client that reconnects with `Last-Event-ID` (browsers send
//! it by themselves) gets exactly the entries after the last one it saw. A first connection starts
//! after the current head, or after `?after=N` (list the log up to N, then follow it from there).
//!
//! A stream wakes when this process writes to its campaign, and on PostgreSQL also when any
//! process does (the store's notifications, see `omen_store::Store::listen`); either way it reads
//! the new entries from the database, so what it sends does not depend on who wrote them.
//!
//! # Bounds
//!
//! * A stream holds at most one page of entries ([`PAGE_ENTRIES`] entries, [`PAGE_BYTES`] bytes of
//!   JSON, or one entry if that alone is larger) and reads the next page only when it has sent the
//!   last: a stream from `?after=0` on a long log, or a client that stops reading, costs one page.
//! * Streams at once: [`crate::Config::max_event_streams`] in all (then 503),
//!   [`crate::STREAMS_PER_MEMBER`] per invite and [`crate::STREAMS_PER_ADDRESS`] per client address (an IPv6
//!   client by its /64), then 429: one token, or one machine minting campaigns, cannot take every
//!   stream.
//! * A stream lives as long as the credential that opened it: before it reads new entries, and at
//!   least every [`RECHECK`], it asks the database whether its bearer token or session is still
//!   valid, and ends when the invite has been revoked, the session logged out or expired.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::{ConnectInfo, State};
use axum::http::{Extensions, HeaderMap};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use omen_store::{LogFilter, Member, Viewer};
use serde::Deserialize;
use tokio::sync::{OwnedSemaphorePermit, broadcast, watch};
use utoipa::IntoParams;

use crate::AppState;
use crate::auth::{Caller, Credential, Need, authorise, credential};
use crate::error::{ApiError, ErrorBody, PathParams, QueryParams};
use crate::streams::Seats;

/// Entries a stream reads from the database at once, at most.
pub const PAGE_ENTRIES: usize = 64;

/// Bytes of entries (as JSON) a stream holds at once, at most, unless one entry alone is larger.
pub const PAGE_BYTES: usize = 256 << 10;

/// How often an idle stream checks that its credential is still valid.
pub const RECHECK: Duration = Duration::from_secs(30);

/// Where to start when the request carries no `Last-Event-ID`.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Send the entries after this sequence number first (default: the current head).
    pub after: Option<u64>,
}

impl AppState {
    /// Entries and bytes of JSON every open event stream holds in memory, waiting to be sent.
    pub fn event_backlog(&self) -> (u64, u64) {
        let streams = &self.inner.streams;
        (
            streams.entries.load(Ordering::Relaxed),
            streams.bytes.load(Ordering::Relaxed),
        )
    }
}

struct Follow {
    state: AppState,
    campaign: String,
    member: Member,
    credential: Credential,
    last: u64,
    /// Entries read and not yet sent, as JSON text: one page at most.
    pending: VecDeque<(u64, String)>,
    pending_bytes: usize,
    notices: broadcast::Receiver<crate::Notice>,
    shutdown: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
    _seats: Seats,
}

/// What a stream's read found.
enum Read {
    /// The credential still lets the member in; the next page (maybe empty).
    Page(Vec<(u64, String)>),
    /// The invite was revoked, the session ended or expired: the stream ends.
    Ended,
}

impl Follow {
    /// Checks the credential, then reads the next page of entries after `self.last`, redacted: by
    /// their sequence numbers (never the entries before them), at most [`PAGE_ENTRIES`] and about
    /// [`PAGE_BYTES`]. False when the credential no longer lets the member in.
    async fn fetch(&mut self) -> Result<bool, ApiError> {
        let (campaign, member, last) = (self.campaign.clone(), self.member.clone(), self.last);
        let credential = self.credential.clone();
        let read = self
            .state
            .inner
            .db
            .with(move |store| {
                let current = match &credential {
                    Credential::Bearer(token) => store.authenticate(token)?,
                    Credential::Session(id) => store.session(id)?.map(|(member, _)| member),
                };
                if current.is_none_or(|m| m.invite_id != member.invite_id) {
                    return Ok(Read::Ended);
                }
                let filter = LogFilter {
                    campaign: Some(campaign),
                    ..LogFilter::default()
                };
                let viewer = Viewer::Member(member);
                let listed = store.log_page_for(&filter, Some(last), PAGE_ENTRIES, &viewer)?;
                let mut page = Vec::new();
                let mut bytes = 0;
                for entry in listed {
                    if bytes >= PAGE_BYTES {
                        break;
                    }
                    let text = serde_json::to_string(&entry).unwrap_or_default();
                    bytes += text.len();
                    page.push((entry.sequence, text));
                }
                Ok(Read::Page(page))
            })
            .await?;
        match read {
            Read::Page(page) => {
                let bytes: usize = page.iter().map(|(_, text)| text.len()).sum();
                self.hold(page.len() as i64, bytes as i64);
                self.pending_bytes += bytes;
                self.pending.extend(page);
                Ok(true)
            }
            Read::Ended => Ok(false),
        }
    }

    /// Counts what the stream holds in the server's totals.
    fn hold(&self, entries: i64, bytes: i64) {
        let streams = &self.state.inner.streams;
        let add = |counter: &AtomicU64, by: i64| {
            if by >= 0 {
                counter.fetch_add(by as u64, Ordering::Relaxed);
            } else {
                counter.fetch_sub(by.unsigned_abs(), Ordering::Relaxed);
            }
        };
        add(&streams.entries, entries);
        add(&streams.bytes, bytes);
    }

    /// The next event, waiting for a new entry when there is none; `None` when the server shuts
    /// down or the stream's credential no longer lets its member in.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some((sequence, entry)) = self.pending.pop_front() {
                self.last = sequence;
                self.pending_bytes -= entry.len();
                self.hold(-1, -(entry.len() as i64));
                return Some(
                    Event::default()
                        .id(sequence.to_string())
                        .event("entry")
                        .data(entry),
                );
            }
            if *self.shutdown.borrow() {
                return None;
            }
            match self.fetch().await {
                Ok(false) => return None,
                Ok(true) => {}
                Err(_) => {
                    // The database is busy: try again shortly rather than end the stream.
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                }
            }
            if !self.pending.is_empty() {
                continue;
            }
            self.wait().await?;
        }
    }

    /// Sleeps until a new entry of the campaign is announced or it is time to check the
    /// credential again; `None` when the server shuts down.
    async fn wait(&mut self) -> Option<()> {
        let recheck = tokio::time::sleep(RECHECK);
        tokio::pin!(recheck);
        loop {
            tokio::select! {
                notice = self.notices.recv() => match notice {
                    Ok(notice) if notice.campaign.as_ref().is_some_and(|c| *c != self.campaign) => continue,
                    // An entry this stream has already read (announced twice: by the process that
                    // wrote it and by the database's notification).
                    Ok(notice) if notice.sequence.is_some_and(|s| s <= self.last) => continue,
                    // Lagged: some notices were missed; the fetch finds what they announced.
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => return Some(()),
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                () = &mut recheck => return Some(()),
                changed = self.shutdown.changed() => {
                    if changed.is_err() || *self.shutdown.borrow() {
                        return None;
                    }
                }
            }
        }
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        self.hold(-(self.pending.len() as i64), -(self.pending_bytes as i64));
    }
}

/// New log entries as they are written, each as the caller may see it.
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}/events",
    tag = "campaigns",
    security(("bearer" = [])),
    params(
        ("campaign" = String, Path),
        ("Last-Event-ID" = Option<u64>, Header, nullable = false, description = "resume after this sequence number"),
        EventsQuery,
    ),
    responses(
        (status = 200, description = "a stream of `entry` events (`text/event-stream`), each with its sequence number as id; it ends when the invite is revoked or the session ends", content_type = "text/event-stream", body = Object),
        (status = 400, description = "a malformed Last-Event-ID or query", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "a token of another campaign", body = ErrorBody),
        (status = 404, description = "no such campaign", body = ErrorBody),
        (status = 429, description = "this invite or this client address holds its share of event streams; see Retry-After", body = ErrorBody),
        (status = 503, description = "too many event streams are open; see Retry-After", body = ErrorBody),
    )
)]
pub async fn events(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
    QueryParams(query): QueryParams<EventsQuery>,
    headers: HeaderMap,
    extensions: Extensions,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    authorise(&member, &campaign, Need::Read)?;
    let resume = match headers.get("last-event-id") {
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| ApiError::bad_request("Last-Event-ID is not a sequence number"))?,
        ),
        None => query.after,
    };
    // The extractor let the caller in with this very credential.
    let credential = credential(&headers).ok_or_else(ApiError::unauthorized)?;
    let address = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    let seats = state.inner.streams.seat(&member, address)?;
    let permit = state
        .inner
        .event_streams
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::busy("event streams", 5))?;
    // Subscribed before the head is read, so no entry written in between goes unannounced.
    let notices = state.inner.notices.subscribe();
    let c = campaign.clone();
    let head = state
        .inner
        .db
        .with(move |store| {
            store.campaign(&c)?;
            store.head(&c)
        })
        .await?
        .map_or(0, |h| h.sequence);
    let follow = Follow {
        shutdown: state.inner.shutdown.subscribe(),
        state,
        campaign,
        member,
        credential,
        last: resume.unwrap_or(head),
        pending: VecDeque::new(),
        pending_bytes: 0,
        notices,
        _permit: permit,
        _seats: seats,
    };
    let stream = futures_util::stream::unfold(follow, |mut follow| async move {
        let event = follow.next().await?;
        Some((Ok(event), follow))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
