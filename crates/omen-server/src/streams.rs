//! The event streams a server holds open, counted by who holds them (an invite, a client network)
//! against their caps, and what they hold in memory. Part of the server's state, below the stream
//! handler ([`crate::events`]).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use omen_store::Member;

use crate::error::{ApiError, Problem};

/// Event streams one invite (its bearer token and every session opened with it) may hold open.
pub const STREAMS_PER_MEMBER: usize = 8;

/// Event streams one client address may hold open.
pub const STREAMS_PER_ADDRESS: usize = 32;

/// Who holds streams: an invite, or a client address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Holder {
    Member(String, i64),
    Address(IpAddr),
}

/// The open streams of a server, counted by who holds them, and what they hold in memory.
#[derive(Debug, Default)]
pub(crate) struct Streams {
    held: Mutex<HashMap<Holder, usize>>,
    pub(crate) entries: AtomicU64,
    pub(crate) bytes: AtomicU64,
}

/// A stream's places in [`Streams`]: given back when the stream ends.
pub(crate) struct Seats {
    streams: Arc<Streams>,
    holders: Vec<Holder>,
}

impl Drop for Seats {
    fn drop(&mut self) {
        let mut held = self.streams.held.lock().unwrap_or_else(|p| p.into_inner());
        for holder in &self.holders {
            if let Some(count) = held.get_mut(holder) {
                *count -= 1;
                if *count == 0 {
                    held.remove(holder);
                }
            }
        }
    }
}

fn too_many(what: &str, limit: usize) -> ApiError {
    let mut error = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        Problem::new(
            "too-many-streams",
            format!("this {what} already holds {limit} event streams"),
        )
        .with_help("close a stream (another tab of the table page) and try again"),
    );
    error.retry_after = Some(5);
    error
}

impl Streams {
    /// A seat for a stream of `member` from `address`, or 429 when either holds its share.
    pub(crate) fn seat(
        self: &Arc<Self>,
        member: &Member,
        address: Option<IpAddr>,
    ) -> Result<Seats, ApiError> {
        let member = Holder::Member(member.campaign.clone(), member.invite_id);
        let address = address.map(|ip| Holder::Address(client_network(ip)));
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if held.get(&member).copied().unwrap_or(0) >= STREAMS_PER_MEMBER {
            return Err(too_many("invite", STREAMS_PER_MEMBER));
        }
        if let Some(address) = &address
            && held.get(address).copied().unwrap_or(0) >= STREAMS_PER_ADDRESS
        {
            return Err(too_many("client address", STREAMS_PER_ADDRESS));
        }
        let holders: Vec<Holder> = std::iter::once(member).chain(address).collect();
        for holder in &holders {
            *held.entry(holder.clone()).or_insert(0) += 1;
        }
        Ok(Seats {
            streams: self.clone(),
            holders,
        })
    }
}

/// A client's network as the caps count it: an IPv4 address, or an IPv6 address's /64 (one
/// machine is given a whole /64).
fn client_network(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => {
            let mut segments = v6.segments();
            segments[4..].fill(0);
            IpAddr::V6(segments.into())
        }
    }
}
