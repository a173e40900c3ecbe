//! Who a request comes from, for the shares each client gets (connections, computations): its
//! address, with an IPv6 client counted by its /64 prefix, since one host gets a whole /64 and could
//! otherwise take a new share per address. And the request's cancellation handle, tripped when the
//! request ends for any reason (answered, timed out, its client gone), so that no computation
//! outlives its request.

use std::future::Future;
use std::net::{IpAddr, Ipv6Addr};

use omen_core::Cancel;

/// The client a share is counted for: its address or /64 prefix, or none when the server does not
/// know it (a test's `oneshot`, a listener without addresses); all such requests share one share.
pub(crate) type ClientKey = Option<IpAddr>;

/// The key of `address`: IPv4 (also when mapped into IPv6) as it is, IPv6 by its /64 prefix.
pub(crate) fn client_key(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(Ipv6Addr::from(prefix))
        }
        v4 => v4,
    }
}

/// What the handlers of one request share without passing it along.
#[derive(Clone, Debug)]
pub(crate) struct RequestScope {
    pub client: ClientKey,
    /// Tripped when the request's handling ends or is dropped, and past the request timeout.
    pub cancel: Cancel,
}

tokio::task_local! {
    /// The request this task serves: set around every request by [`in_request`], read by the
    /// computation pool (the client) and by [`crate::AppState::limits`] (the handle).
    static REQUEST: RequestScope;
}

/// Trips the request's handle when the request's future ends or is dropped (a timeout drops it,
/// and so does a client that goes away).
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Runs `work` (a request's handling) in `scope`; its computations are cancelled when it ends.
pub(crate) async fn in_request<F: Future>(scope: RequestScope, work: F) -> F::Output {
    let _cancel_on_drop = CancelOnDrop(scope.cancel.clone());
    REQUEST.scope(scope, work).await
}

/// The client of the request being served, if any.
pub(crate) fn current_client() -> ClientKey {
    REQUEST.try_with(|scope| scope.client).ok().flatten()
}

/// The cancellation handle of the request being served, if any.
pub(crate) fn current_cancel() -> Option<Cancel> {
    REQUEST.try_with(|scope| scope.cancel.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_dropped_part_way_trips_its_handle() {
        let cancel = Cancel::new();
        let scope = RequestScope {
            client: None,
            cancel: cancel.clone(),
        };
        let request = in_request(scope, async {
            assert!(current_cancel().is_some_and(|c| !c.is_cancelled()));
            std::future::pending::<()>().await
        });
        // A timeout drops the request's future part way.
        let _ = tokio::time::timeout(std::time::Duration::from_millis(1), request).await;
        assert!(cancel.is_cancelled());
    }

    #[test]
    fn an_ipv6_host_is_one_client_across_its_slash_64() {
        let one: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let other: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let elsewhere: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(one), client_key(other));
        assert_ne!(client_key(one), client_key(elsewhere));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(client_key(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
    }
}
