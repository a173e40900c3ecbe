//! Discord's API as Omen calls it: a deferred answer's edit and follow-ups through the
//! interaction's webhook, and, with a bot token, the command definitions and the posts to a game
//! master's channel.
//!
//! The client is hyper's own HTTP/1 connection (hyper and hyper-util are the server's already) over
//! tokio-rustls with the Mozilla roots (already built for PostgreSQL's TLS): one request per
//! connection, which is all a deferred answer needs, and no new crate in the build.

use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::Value;

use super::multipart::Attachment;

/// A call to Discord that takes longer is given up.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The most of an answer read (Discord's answers to these calls are a message or a list of
/// commands).
const MAX_ANSWER: usize = 1 << 20;

/// Discord's API at a base URL (`https://discord.com/api/v10`, or a test's stand-in over plain
/// HTTP).
#[derive(Clone, Debug)]
pub struct DiscordApi {
    base: String,
    application_id: String,
}

/// What Discord answered: the status and the body.
#[derive(Clone, Debug)]
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

impl DiscordApi {
    pub fn new(base: &str, application_id: &str) -> Self {
        DiscordApi {
            base: base.trim_end_matches('/').to_string(),
            application_id: application_id.to_string(),
        }
    }

    /// Edits the message a deferred answer promised, with `files` attached (none: a JSON body;
    /// some: a `multipart/form-data` one, as Discord takes files).
    ///
    /// # Errors
    /// As [`DiscordApi::call`]; a token with characters Discord's never have.
    pub async fn edit_original(
        &self,
        token: &str,
        message: &Value,
        files: &[Attachment],
    ) -> Result<Answer, String> {
        let url = format!(
            "{}/webhooks/{}/{}/messages/@original",
            self.base,
            self.application_id,
            checked_token(token)?
        );
        self.call_with(Request::new("PATCH", &url, message, files))
            .await
    }

    /// Sends a follow-up message to the interaction (ephemeral when its flags say so).
    ///
    /// # Errors
    /// As [`DiscordApi::edit_original`].
    pub async fn follow_up(&self, token: &str, message: &Value) -> Result<Answer, String> {
        let url = format!(
            "{}/webhooks/{}/{}",
            self.base,
            self.application_id,
            checked_token(token)?
        );
        self.call("POST", &url, None, message).await
    }

    /// Posts `message` to channel `channel` as the bot (the game master's channel: an interaction's
    /// webhook answers in the interaction's own channel only).
    ///
    /// # Errors
    /// As [`DiscordApi::call`]; a channel id that is not digits.
    pub async fn post_to_channel(
        &self,
        bot_token: &str,
        channel: &str,
        message: &Value,
    ) -> Result<Answer, String> {
        if channel.is_empty() || channel.len() > 20 || !channel.bytes().all(|b| b.is_ascii_digit())
        {
            return Err("a Discord channel id is 1 to 20 digits".to_string());
        }
        let url = format!("{}/channels/{channel}/messages", self.base);
        let authorization = format!("Bot {}", bot_token.trim());
        self.call("POST", &url, Some(&authorization), message).await
    }

    /// Replaces the application's global commands with `commands` (a bot token's call).
    ///
    /// # Errors
    /// As [`DiscordApi::call`].
    pub async fn put_commands(&self, bot_token: &str, commands: &Value) -> Result<Answer, String> {
        let url = format!(
            "{}/applications/{}/commands",
            self.base, self.application_id
        );
        let authorization = format!("Bot {}", bot_token.trim());
        self.call("PUT", &url, Some(&authorization), commands).await
    }

    /// One JSON request to `url`.
    ///
    /// # Errors
    /// A URL that is not `http://` or `https://`, a connection, TLS or HTTP failure, or no answer
    /// within 10 s, in words.
    pub async fn call(
        &self,
        method: &str,
        url: &str,
        authorization: Option<&str>,
        body: &Value,
    ) -> Result<Answer, String> {
        let mut request = Request::new(method, url, body, &[]);
        request.authorization = authorization.map(str::to_string);
        self.call_with(request).await
    }

    async fn call_with(&self, request: Request) -> Result<Answer, String> {
        let (method, url) = (request.method.clone(), request.url.clone());
        tokio::time::timeout(CALL_TIMEOUT, send(request))
            .await
            .map_err(|_| format!("{method} {}: no answer within 10 s", shown(&url)))?
    }
}

/// One request to Discord: JSON, or a form when files go with the message.
struct Request {
    method: String,
    url: String,
    authorization: Option<String>,
    content_type: String,
    body: Bytes,
}

impl Request {
    fn new(method: &str, url: &str, message: &Value, files: &[Attachment]) -> Self {
        let (content_type, body) = if files.is_empty() {
            (
                "application/json".to_string(),
                message.to_string().into_bytes(),
            )
        } else {
            super::multipart::form(message, files)
        };
        Request {
            method: method.to_string(),
            url: url.to_string(),
            authorization: None,
            content_type,
            body: Bytes::from(body),
        }
    }
}

/// An interaction token as Discord makes them: letters, digits, `.`, `_` and `-`. Anything else
/// would change the URL's path.
fn checked_token(token: &str) -> Result<&str, String> {
    let fits = !token.is_empty()
        && token.len() <= 1000
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    fits.then_some(token)
        .ok_or_else(|| "the interaction's token has characters Discord's do not".to_string())
}

/// The URL without its path (which holds the interaction's token), for messages.
fn shown(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split('/').next().unwrap_or_default();
    format!("{}://{host}/…", url.split("://").next().unwrap_or("http"))
}

struct Target<'a> {
    tls: bool,
    host: &'a str,
    port: u16,
    path: &'a str,
}

fn target(url: &str) -> Result<Target<'_>, String> {
    let (tls, rest) = if let Some(rest) = url.strip_prefix("https://") {
        (true, rest)
    } else if let Some(rest) = url.strip_prefix("http://") {
        (false, rest)
    } else {
        return Err(format!("{}: not an http:// or https:// URL", shown(url)));
    };
    let (authority, path) = rest.find('/').map_or((rest, "/"), |at| rest.split_at(at));
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || port.parse::<u16>().is_ok() => (
            host,
            port.parse()
                .map_err(|_| format!("{}: a port is a number", shown(url)))?,
        ),
        _ => (authority, if tls { 443 } else { 80 }),
    };
    Ok(Target {
        tls,
        host: host.trim_start_matches('[').trim_end_matches(']'),
        port,
        path,
    })
}

async fn send(request: Request) -> Result<Answer, String> {
    let Request {
        method,
        url,
        authorization,
        content_type,
        body,
    } = request;
    let target = target(&url)?;
    let failed = |what: &dyn std::fmt::Display| format!("{method} {}: {what}", shown(&url));
    let tcp = tokio::net::TcpStream::connect((target.host, target.port))
        .await
        .map_err(|e| failed(&e))?;
    let mut request = hyper::Request::builder()
        .method(method.as_str())
        .uri(target.path)
        .header("host", target.host)
        .header("content-type", content_type)
        .header(
            "user-agent",
            "DiscordBot (https://example.invalid/omen, 0.1)",
        );
    if let Some(authorization) = authorization {
        request = request.header("authorization", authorization);
    }
    let request = request.body(Full::new(body)).map_err(|e| failed(&e))?;
    let response = if target.tls {
        let stream = tls_connector()
            .map_err(|e| failed(&e))?
            .connect(server_name(target.host)?, tcp)
            .await
            .map_err(|e| failed(&e))?;
        exchange(TokioIo::new(stream), request).await
    } else {
        exchange(TokioIo::new(tcp), request).await
    }
    .map_err(|e| failed(&e))?;
    Ok(response)
}

async fn exchange<T>(io: T, request: hyper::Request<Full<Bytes>>) -> Result<Answer, String>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| e.to_string())?;
    let driver = tokio::spawn(connection);
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = Limited::new(response.into_body(), MAX_ANSWER)
        .collect()
        .await
        .map_err(|e| e.to_string())?
        .to_bytes()
        .to_vec();
    driver.abort();
    Ok(Answer { status, body })
}

fn server_name(host: &str) -> Result<rustls::pki_types::ServerName<'static>, String> {
    rustls::pki_types::ServerName::try_from(host.to_string())
        .map_err(|_| format!("`{host}` is not a name TLS can check"))
}

fn tls_connector() -> Result<tokio_rustls::TlsConnector, String> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_splits_into_host_port_and_path() {
        let t = target("http://127.0.0.1:8123/api/webhooks/1/x").unwrap();
        assert_eq!(
            (t.tls, t.host, t.port, t.path),
            (false, "127.0.0.1", 8123, "/api/webhooks/1/x")
        );
        let t = target("https://discord.com/api/v10").unwrap();
        assert_eq!(
            (t.tls, t.host, t.port, t.path),
            (true, "discord.com", 443, "/api/v10")
        );
        assert!(target("ftp://x").is_err());
    }

    #[test]
    fn a_token_cannot_change_the_path() {
        assert!(checked_token("aW50ZXJhY3Rpb24.abc_-").is_ok());
        assert!(checked_token("../../applications").is_err());
        assert!(checked_token("").is_err());
        assert_eq!(
            shown("https://discord.com/api/webhooks/1/secret"),
            "https://discord.com/…"
        );
    }
}
