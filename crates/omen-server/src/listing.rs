//! `GET /api/v1/campaigns/{campaign}/log`: the log a page at a time. A page holds at most `limit`
//! entries ([`DEFAULT_LIMIT`] unless asked, never more than [`MAX_LIMIT`]) and about [`PAGE_BYTES`]
//! of JSON (at least one entry), read from the database by sequence number, so a listing's memory
//! does not grow with the log however many clients list at once. A page that may have more after
//! it says where to go on in a `Link: <…>; rel="next"` header (the same filters, `after` the page's
//! last entry).

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use omen_store::{LogFilter, Viewer};

use crate::AppState;
use crate::auth::{Caller, Need, authorise};
use crate::error::{ApiError, ErrorBody, PathParams, QueryParams};

/// Entries a page holds unless `limit` says otherwise.
pub const DEFAULT_LIMIT: usize = 200;

/// The most entries a page holds.
pub const MAX_LIMIT: usize = 1000;

/// About the most bytes of JSON a page holds: it ends after the entry that reaches this.
pub const PAGE_BYTES: usize = 4 << 20;

/// Entries read from the database at once while a page is filled.
const READ: usize = 64;

crate::filters::log_filter_query! {
    /// Which entries to list: the CLI's `omen log` filters, and where the page starts and how long
    /// it is.
    pub struct LogQuery {
        /// Only entries numbered after this one: where the next page starts (the `Link` header's
        /// `rel="next"` says it).
        #[serde(default, deserialize_with = "crate::filters::sequence")]
        pub after: Option<u64>,
        /// The most entries of this page (default 200).
        #[param(minimum = 1, maximum = 1000)]
        pub limit: Option<usize>,
    }
}

impl LogQuery {
    /// The query of the page after one that ended at `last`.
    fn next(&self, campaign: &str, last: u64, limit: usize) -> String {
        let mut query: Vec<String> = self
            .filter_pairs()
            .into_iter()
            .map(|(name, value)| format!("{name}={}", encode(&value)))
            .collect();
        query.push(format!("after={last}"));
        query.push(format!("limit={limit}"));
        format!(
            "/api/v1/campaigns/{}/log?{}",
            encode(campaign),
            query.join("&")
        )
    }
}

/// Percent-encodes everything but the unreserved characters of RFC 3986.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A page of the campaign's log, filtered, each entry as the caller may see it.
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}/log",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), LogQuery),
    responses(
        (status = 200, description = "the entries, oldest first: at most `limit` of them and about 4 MiB; when more may follow, a `Link` header with `rel=\"next\"` names the next page", body = Vec<Object>,
            headers(("Link" = String, description = "`<URL>; rel=\"next\"`: the next page, when there may be one"))),
        (status = 400, description = "a malformed filter, or a `limit` outside 1–1000", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "a token of another campaign", body = ErrorBody),
        (status = 404, description = "no such campaign", body = ErrorBody),
    )
)]
pub async fn log(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
    QueryParams(query): QueryParams<LogQuery>,
) -> Result<Response, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Read)?;
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be between 1 and {MAX_LIMIT}, not {limit}"
        )));
    }
    let filter = query.filter(&campaign);
    let c = campaign.clone();
    let after = query.after;
    let (entries, full) = state
        .inner
        .db
        .with(move |store| {
            // An unknown campaign is 404, not an empty list.
            store.campaign(&c)?;
            page(store, &filter, after, limit, &Viewer::Member(member))
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    let next = match entries.last() {
        Some((sequence, _)) if full => Some(query.next(&campaign, *sequence, limit)),
        _ => None,
    };
    // The entries are JSON already: joined, not parsed and written again.
    let mut body =
        String::with_capacity(entries.iter().map(|(_, e)| e.len() + 1).sum::<usize>() + 2);
    body.push('[');
    for (at, (_, entry)) in entries.iter().enumerate() {
        if at > 0 {
            body.push(',');
        }
        body.push_str(entry);
    }
    body.push(']');
    let mut response = (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response();
    if let Some(next) = next
        && let Ok(value) = HeaderValue::from_str(&format!("<{next}>; rel=\"next\""))
    {
        response.headers_mut().insert(header::LINK, value);
    }
    Ok(response)
}

/// Up to `limit` entries after `after` as `viewer` sees them, as JSON, read [`READ`] at a time
/// and stopping after the entry that reaches [`PAGE_BYTES`]; and whether more may follow.
fn page(
    store: &omen_store::Store,
    filter: &LogFilter,
    mut after: Option<u64>,
    limit: usize,
    viewer: &Viewer,
) -> Result<(Vec<(u64, String)>, bool), omen_store::StoreError> {
    let mut entries = Vec::new();
    let mut bytes = 0;
    while entries.len() < limit {
        let want = READ.min(limit - entries.len());
        let read = store.log_page_for(filter, after, want, viewer)?;
        let exhausted = read.len() < want;
        for entry in read {
            let text = serde_json::to_string(&entry).unwrap_or_else(|_| "null".to_string());
            bytes += text.len();
            after = Some(entry.sequence);
            entries.push((entry.sequence, text));
            if bytes >= PAGE_BYTES {
                return Ok((entries, true));
            }
        }
        if exhausted {
            return Ok((entries, false));
        }
    }
    Ok((entries, true))
}
