//! `GET /api/v1/campaigns/{campaign}/events`: server-sent events of new log entries. Each event's id
//! is the entry's sequence number, so a client that reconnects with `Last-Event-ID` (browsers send
//! it by themselves) gets exactly the entries after the last one it saw. A first connection starts
//! after the current head, or after `?after=N` (list the log up to N, then follow it from there).
//!
//! A stream wakes when this process writes to its campaign, and on PostgreSQL also when any
//! process does (the store's notifications, see `omen_store::Store::listen`); either way it reads
//! the new entries from the database, so what it sends does not depend on who wrote them.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use omen_store::{LogFilter, Viewer};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, broadcast, watch};
use utoipa::IntoParams;

use crate::AppState;
use crate::auth::{Caller, Need, authorise};
use crate::error::{ApiError, ErrorBody, PathParams, QueryParams};

/// Where to start when the request carries no `Last-Event-ID`.
#[derive(Clone, Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Send the entries after this sequence number first (default: the current head).
    pub after: Option<u64>,
}

struct Follow {
    state: AppState,
    campaign: String,
    member: omen_store::Member,
    last: u64,
    pending: VecDeque<(u64, Value)>,
    notices: broadcast::Receiver<crate::Notice>,
    shutdown: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
}

impl Follow {
    /// The entries after `self.last`, redacted: read from the database once each, by their
    /// sequence numbers (never the entries before them), so a stream that resumes after a long gap
    /// costs the entries it missed and no more. They are held until sent, as a log listing of the
    /// same entries would be.
    async fn fetch(&mut self) -> Result<(), ApiError> {
        let (campaign, member, last) = (self.campaign.clone(), self.member.clone(), self.last);
        let entries = self
            .state
            .inner
            .db
            .with(move |store| {
                let filter = LogFilter {
                    campaign: Some(campaign),
                    ..LogFilter::default()
                };
                let listed = store.log_for_after(&filter, last, &Viewer::Member(member))?;
                Ok(listed
                    .into_iter()
                    .map(|entry| {
                        let sequence = entry.sequence;
                        (sequence, serde_json::to_value(entry).unwrap_or_default())
                    })
                    .collect::<Vec<_>>())
            })
            .await?;
        self.pending.extend(entries);
        Ok(())
    }

    /// The next event, waiting for a new entry when there is none; `None` when the server shuts
    /// down.
    async fn next(&mut self) -> Option<Event> {
        loop {
            if let Some((sequence, entry)) = self.pending.pop_front() {
                self.last = sequence;
                return Some(
                    Event::default()
                        .id(sequence.to_string())
                        .event("entry")
                        .json_data(entry)
                        .unwrap_or_else(|_| Event::default().comment("unprintable entry")),
                );
            }
            if *self.shutdown.borrow() {
                return None;
            }
            if self.fetch().await.is_err() {
                // The database is busy: try again shortly rather than end the stream.
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
            if !self.pending.is_empty() {
                continue;
            }
            loop {
                tokio::select! {
                    notice = self.notices.recv() => match notice {
                        Ok(notice) if notice.campaign.as_ref().is_some_and(|c| *c != self.campaign) => continue,
                        // An entry this stream has already read (announced twice: by the process that
                        // wrote it and by the database's notification).
                        Ok(notice) if notice.sequence.is_some_and(|s| s <= self.last) => continue,
                        // Lagged: some notices were missed; the fetch finds what they announced.
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => break,
                        Err(broadcast::error::RecvError::Closed) => return None,
                    },
                    changed = self.shutdown.changed() => {
                        if changed.is_err() || *self.shutdown.borrow() {
                            return None;
                        }
                    }
                }
            }
        }
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
        ("Last-Event-ID" = Option<u64>, Header, description = "resume after this sequence number"),
        EventsQuery,
    ),
    responses(
        (status = 200, description = "a stream of `entry` events (`text/event-stream`), each with its sequence number as id", content_type = "text/event-stream", body = String),
        (status = 400, description = "a malformed Last-Event-ID or query", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "a token of another campaign", body = ErrorBody),
        (status = 404, description = "no such campaign", body = ErrorBody),
        (status = 503, description = "too many event streams are open; see Retry-After", body = ErrorBody),
    )
)]
pub async fn events(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
    QueryParams(query): QueryParams<EventsQuery>,
    headers: HeaderMap,
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
        last: resume.unwrap_or(head),
        pending: VecDeque::new(),
        notices,
        _permit: permit,
    };
    let stream = futures_util::stream::unfold(follow, |mut follow| async move {
        let event = follow.next().await?;
        Some((Ok(event), follow))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
