//! Two steps on every answer's way: the `Host` check, which keeps a web page on another site from
//! reaching a server on 127.0.0.1 or a home network through a name it controls (DNS rebinding),
//! and the headers that keep API answers out of caches and content sniffing.
//!
//! A request over a socket ([`crate::serve`]) is answered when its `Host` is a localhost name
//! (`localhost`, `*.localhost`: a browser resolves these to this machine only), the IP address the
//! connection reached on this machine, or one of [`crate::Config::public_names`] (`*` accepts any).
//! A rebinding page's requests carry its own name, so they are refused with 421. A request without
//! `Host` (HTTP/1.0; no browser sends one) and a request not over a socket (a test's `oneshot`)
//! are not checked.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::{ApiError, Problem};
use crate::net::LocalAddress;

/// The names a server answers to besides localhost and its own address, lower case, without a
/// trailing dot.
#[derive(Clone, Debug, Default)]
pub(crate) struct Names {
    any: bool,
    names: Vec<String>,
}

impl Names {
    pub(crate) fn new(public_names: &[String]) -> Arc<Self> {
        Arc::new(Names {
            any: public_names.iter().any(|n| n == "*"),
            names: public_names.iter().map(|n| normalise(n)).collect(),
        })
    }

    fn accepts(&self, name: &str, local: IpAddr) -> bool {
        if self.any || name == "localhost" || name.ends_with(".localhost") {
            return true;
        }
        if let Ok(ip) = name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        {
            return ip.to_canonical() == local.to_canonical();
        }
        self.names.iter().any(|n| n == name)
    }
}

fn normalise(name: &str) -> String {
    name.trim().trim_end_matches('.').to_ascii_lowercase()
}

/// The host part of a `Host` value: without its port, brackets kept for IPv6.
fn host_part(value: &str) -> &str {
    if value.starts_with('[') {
        return value.find(']').map_or(value, |end| &value[..=end]);
    }
    value.rsplit_once(':').map_or(value, |(host, _)| host)
}

/// Refuses a request whose `Host` names a server this is not (see the module's documentation).
pub(crate) async fn check_host(
    State(names): State<Arc<Names>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(LocalAddress(local)) = request.extensions().get::<LocalAddress>().copied() else {
        return next.run(request).await;
    };
    let given = request
        .uri()
        .authority()
        .map(|a| a.as_str().to_string())
        .or_else(|| {
            request
                .headers()
                .get(header::HOST)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        });
    let Some(given) = given else {
        return next.run(request).await;
    };
    let name = normalise(host_part(given.trim()));
    if names.accepts(&name, local) {
        return next.run(request).await;
    }
    let shown: String = name.chars().take(100).collect();
    ApiError::new(
        StatusCode::MISDIRECTED_REQUEST,
        Problem::new(
            "unknown-host",
            format!("this server does not answer to the name `{shown}`"),
        )
        .with_help(format!(
            "open it as localhost or by its address; to serve it under this name, start it with \
             `omen serve --public-name {shown}`"
        )),
    )
    .into_response()
}

/// `X-Content-Type-Options: nosniff` on every answer, and `Cache-Control: no-store` on the API's:
/// an answer may hold a campaign's log or a token, which no shared or browser cache should keep.
/// The page's assets keep their own caching (revalidated with their ETag).
pub(crate) async fn protective_headers(request: Request, next: Next) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if api {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts(names: &[&str], host: &str, local: &str) -> bool {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        Names::new(&names).accepts(&normalise(host_part(host)), local.parse().unwrap())
    }

    #[test]
    fn localhost_the_reached_address_and_the_configured_names_are_accepted() {
        assert!(accepts(&[], "localhost:8080", "127.0.0.1"));
        assert!(accepts(&[], "LOCALHOST.", "127.0.0.1"));
        assert!(accepts(&[], "table.localhost:8080", "127.0.0.1"));
        assert!(accepts(&[], "127.0.0.1:8080", "127.0.0.1"));
        assert!(accepts(&[], "[::1]:8080", "::1"));
        assert!(accepts(&[], "192.168.1.10", "192.168.1.10"));
        assert!(accepts(
            &["omen.example.org"],
            "Omen.Example.org:443",
            "10.0.0.2"
        ));
        assert!(accepts(&["*"], "anything.example", "10.0.0.2"));
    }

    #[test]
    fn other_names_and_other_addresses_are_refused() {
        assert!(!accepts(&[], "evil.example:8080", "127.0.0.1"));
        assert!(!accepts(&[], "localhost.evil.example", "127.0.0.1"));
        assert!(!accepts(&[], "10.0.0.3", "127.0.0.1"));
        assert!(!accepts(&["omen.example.org"], "evil.example", "10.0.0.2"));
        assert!(!accepts(&[], "", "127.0.0.1"));
    }
}
