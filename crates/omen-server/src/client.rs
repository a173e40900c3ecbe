//! Who a request comes from, for the shares each client gets (connections, computations): its
//! address, with an IPv6 client counted by its /64 prefix, since one host gets a whole /64 and could
//! otherwise take a new share per address.

use std::future::Future;
use std::net::{IpAddr, Ipv6Addr};

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

tokio::task_local! {
    /// The client of the request this task serves: set around every request by [`as_client`], read
    /// by the computation pool, so no handler has to pass it along.
    static CLIENT: ClientKey;
}

/// Runs `work` (a request's handling) as `client`'s.
pub(crate) async fn as_client<F: Future>(client: ClientKey, work: F) -> F::Output {
    CLIENT.scope(client, work).await
}

/// The client of the request being served, if any.
pub(crate) fn current_client() -> ClientKey {
    CLIENT.try_with(|client| *client).ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

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
