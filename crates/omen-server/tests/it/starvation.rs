//! Issue 23, holes 3, 4 and 5 from the attacker's side: a client that opens event streams and
//! never reads, lists the log, asks for the fairness report of an expensive campaign, or keeps a
//! stream open after it lost its invite or session. Bounds are checked by counts and sizes.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::{Answer, call, config, get, post, state_with};

/// Campaign `name` and its game master's token.
async fn campaign(app: &Router, name: &str) -> String {
    let made = post(app, "/api/v1/campaigns", None, json!({ "name": name })).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string()
}

/// An invite of `role` to `Tak`: its token and its id.
async fn invite(app: &Router, gm: &str, role: &str) -> (String, i64) {
    let made = post(
        app,
        "/api/v1/campaigns/Tak/invites",
        Some(gm),
        json!({ "role": role }),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    let body = made.json();
    (
        body["token"].as_str().unwrap().to_string(),
        body["invite"]["id"].as_i64().unwrap(),
    )
}

async fn roll(app: &Router, gm: &str, expression: &str) {
    let rolled = post(
        app,
        "/api/v1/campaigns/Tak/rolls",
        Some(gm),
        json!({ "expression": expression }),
    )
    .await;
    assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
}

/// An event stream's request: a bearer token or a session cookie, and the client's address when
/// given (as `omen serve` records it).
fn stream_request(
    campaign: &str,
    credential: &Credential<'_>,
    address: Option<SocketAddr>,
    after: Option<u64>,
) -> Request<Body> {
    let uri = match after {
        Some(after) => format!("/api/v1/campaigns/{campaign}/events?after={after}"),
        None => format!("/api/v1/campaigns/{campaign}/events"),
    };
    let mut request = Request::get(uri);
    request = match credential {
        Credential::Bearer(token) => request.header("authorization", format!("Bearer {token}")),
        Credential::Cookie(session) => request.header("cookie", format!("omen_session={session}")),
    };
    let mut request = request.body(Body::empty()).unwrap();
    if let Some(address) = address {
        request.extensions_mut().insert(ConnectInfo(address));
    }
    request
}

enum Credential<'a> {
    Bearer(&'a str),
    Cookie(&'a str),
}

/// Opens a stream: its status and, when open, its body (read only when the test reads it).
async fn open(app: &Router, request: Request<Body>) -> (StatusCode, Body) {
    let response = app.clone().oneshot(request).await.unwrap();
    (response.status(), response.into_body())
}

/// The stream's next `entry` event's data, or `None` when the stream ends. Keep-alive comments
/// are skipped; a guard of a minute fails a stream that neither sends nor ends.
async fn next_entry(body: &mut Body) -> Option<Value> {
    let mut text = String::new();
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(60), body.frame())
            .await
            .expect("the stream neither sent an entry nor ended");
        let frame = match frame {
            None => return None,
            Some(frame) => frame.expect("a frame"),
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        text.push_str(&String::from_utf8_lossy(&data));
        while let Some(end) = text.find("\n\n") {
            let event: String = text.drain(..end + 2).collect();
            if event.lines().any(|line| line == "event: entry") {
                let data: String = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data: "))
                    .collect();
                return Some(serde_json::from_str(&data).expect("an entry's JSON"));
            }
        }
    }
}

#[tokio::test]
async fn a_stream_from_zero_holds_a_bounded_backlog() {
    let state = state_with(config());
    let app = omen_server::app(state.clone());
    let gm = campaign(&app, "Tak").await;
    // 200 entries of a hundred dice each: about 2 MB of log.
    for _ in 0..200 {
        roll(&app, &gm, "100d20").await;
    }
    let all = get(&app, "/api/v1/campaigns/Tak/log?limit=1000", Some(&gm)).await;
    let entries = all.json().as_array().unwrap().len() as u64;
    assert!(entries >= 200, "{entries}");
    let largest = all
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.to_string().len() as u64)
        .max()
        .unwrap();
    // Four clients stream the log from the start and read one entry each, then stop reading.
    let mut bodies = Vec::new();
    for _ in 0..4 {
        let (status, mut body) = open(
            &app,
            stream_request("Tak", &Credential::Bearer(&gm), None, Some(0)),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(next_entry(&mut body).await.unwrap()["sequence"], 1);
        bodies.push(body);
    }
    let (held, bytes) = state.event_backlog();
    let page = omen_server::STREAM_PAGE_ENTRIES as u64;
    let page_bytes = omen_server::STREAM_PAGE_BYTES as u64;
    assert!(held <= 4 * page, "{held} entries held for 4 streams");
    assert!(
        held < 4 * (entries - 1),
        "{held} entries held: the whole log"
    );
    assert!(
        bytes <= 4 * (page_bytes + largest),
        "{bytes} bytes held for 4 streams"
    );
    // A stream that reads on gets every entry in order, a page at a time.
    let mut body = bodies.pop().unwrap();
    for sequence in 2..=entries {
        assert_eq!(next_entry(&mut body).await.unwrap()["sequence"], sequence);
    }
    drop(body);
    drop(bodies);
    assert_eq!(state.event_backlog(), (0, 0), "closed streams hold nothing");
}

#[tokio::test]
async fn a_stream_closes_when_its_invite_is_revoked() {
    let app = omen_server::app(state_with(config()));
    let gm = campaign(&app, "Tak").await;
    let (observer, id) = invite(&app, &gm, "observer").await;
    let (status, mut body) = open(
        &app,
        stream_request("Tak", &Credential::Bearer(&observer), None, None),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    roll(&app, &gm, "1d20").await;
    assert!(next_entry(&mut body).await.is_some(), "the stream works");
    let revoked = call(
        &app,
        Method::DELETE,
        &format!("/api/v1/campaigns/Tak/invites/{id}"),
        Some(&gm),
        None,
    )
    .await;
    assert_eq!(revoked.status, StatusCode::NO_CONTENT);
    roll(&app, &gm, "1d20").await;
    assert_eq!(
        next_entry(&mut body).await,
        None,
        "a revoked invite's stream ends"
    );
}

/// Opens a session with `token`: the cookie's value and its CSRF token.
async fn session(app: &Router, token: &str) -> (String, String) {
    let opened = post(app, "/api/v1/session", None, json!({ "token": token })).await;
    assert_eq!(opened.status, StatusCode::CREATED);
    let cookie = opened.headers["set-cookie"].to_str().unwrap().to_string();
    let value = cookie
        .split(';')
        .next()
        .unwrap()
        .strip_prefix("omen_session=")
        .unwrap()
        .to_string();
    (value, opened.json()["csrf"].as_str().unwrap().to_string())
}

#[tokio::test]
async fn a_stream_closes_when_its_session_logs_out() {
    let app = omen_server::app(state_with(config()));
    let gm = campaign(&app, "Tak").await;
    let (observer, _) = invite(&app, &gm, "observer").await;
    let (cookie, csrf) = session(&app, &observer).await;
    let (status, mut body) = open(
        &app,
        stream_request("Tak", &Credential::Cookie(&cookie), None, None),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let request = Request::delete("/api/v1/session")
        .header("cookie", format!("omen_session={cookie}"))
        .header("x-omen-csrf", csrf)
        .body(Body::empty())
        .unwrap();
    let out = app.clone().oneshot(request).await.unwrap();
    assert_eq!(out.status(), StatusCode::NO_CONTENT);
    // Ended by the logout itself, before any new entry.
    assert_eq!(
        next_entry(&mut body).await,
        None,
        "a logged-out stream ends"
    );
    // The bearer token itself still streams: only the session ended.
    let (status, _) = open(
        &app,
        stream_request("Tak", &Credential::Bearer(&observer), None, None),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_stream_closes_when_its_session_expires() {
    let app = omen_server::app(state_with(omen_server::Config {
        session_lifetime: Duration::from_secs(1),
        ..config()
    }));
    let gm = campaign(&app, "Tak").await;
    let (observer, _) = invite(&app, &gm, "observer").await;
    let (cookie, _) = session(&app, &observer).await;
    let (status, mut body) = open(
        &app,
        stream_request("Tak", &Credential::Cookie(&cookie), None, None),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // Past the session's end, a new entry is not sent: the stream ends instead.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    roll(&app, &gm, "1d20").await;
    assert_eq!(
        next_entry(&mut body).await,
        None,
        "an expired session's stream ends"
    );
}

#[tokio::test]
async fn one_token_cannot_hold_every_stream() {
    let app = omen_server::app(state_with(omen_server::Config {
        max_event_streams: 16,
        ..config()
    }));
    let gm = campaign(&app, "Tak").await;
    let (observer, _) = invite(&app, &gm, "observer").await;
    let mut held = Vec::new();
    let mut refused = None;
    for _ in 0..16 {
        let (status, body) = open(
            &app,
            stream_request("Tak", &Credential::Bearer(&observer), None, None),
        )
        .await;
        if status == StatusCode::OK {
            held.push(body);
        } else {
            refused = Some(status);
            break;
        }
    }
    assert_eq!(held.len(), omen_server::STREAMS_PER_MEMBER);
    assert_eq!(refused, Some(StatusCode::TOO_MANY_REQUESTS));
    // The game master still gets a stream.
    let (status, _gm_stream) = open(
        &app,
        stream_request("Tak", &Credential::Bearer(&gm), None, None),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // A stream closed gives its seat back.
    held.pop();
    let (status, _) = open(
        &app,
        stream_request("Tak", &Credential::Bearer(&observer), None, None),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn one_address_cannot_hold_every_stream() {
    let app = omen_server::app(state_with(config()));
    let attacker: SocketAddr = "198.51.100.7:40000".parse().unwrap();
    let neighbour: SocketAddr = "[2001:db8::1]:40000".parse().unwrap();
    // Anyone may create campaigns: one machine makes enough to hold every stream by its invites.
    let mut held = Vec::new();
    let mut refused = None;
    'campaigns: for n in 0..8 {
        let name = format!("Camp{n}");
        let gm = campaign(&app, &name).await;
        for _ in 0..omen_server::STREAMS_PER_MEMBER {
            let (status, body) = open(
                &app,
                stream_request(&name, &Credential::Bearer(&gm), Some(attacker), None),
            )
            .await;
            if status != StatusCode::OK {
                refused = Some(status);
                break 'campaigns;
            }
            held.push(body);
        }
    }
    assert_eq!(held.len(), omen_server::STREAMS_PER_ADDRESS);
    assert_eq!(refused, Some(StatusCode::TOO_MANY_REQUESTS));
    // Another client is not refused.
    let gm = campaign(&app, "Tak").await;
    let (status, _) = open(
        &app,
        stream_request("Tak", &Credential::Bearer(&gm), Some(neighbour), None),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_log_listing_is_a_bounded_page() {
    let app = omen_server::app(state_with(config()));
    let gm = campaign(&app, "Tak").await;
    for _ in 0..250 {
        roll(&app, &gm, "1d6").await;
    }
    let first = get(&app, "/api/v1/campaigns/Tak/log", Some(&gm)).await;
    assert_eq!(first.status, StatusCode::OK);
    let page = first.json();
    assert_eq!(
        page.as_array().unwrap().len(),
        omen_server::LOG_PAGE_DEFAULT
    );
    // The next page, as the Link header says, and no further one after a short page.
    let next = link(&first).expect("a link to the next page");
    let second = get(&app, &next, Some(&gm)).await;
    let rest = second.json();
    let sequences: Vec<u64> = page
        .as_array()
        .unwrap()
        .iter()
        .chain(rest.as_array().unwrap())
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    let total = sequences.len() as u64;
    assert!(total > 250, "{total}");
    assert_eq!(sequences, (1..=total).collect::<Vec<_>>());
    assert_eq!(link(&second), None);
    // A page is never longer than the ceiling, and a limit past it is refused.
    let at_most = get(&app, "/api/v1/campaigns/Tak/log?limit=1000", Some(&gm)).await;
    assert_eq!(at_most.status, StatusCode::OK);
    for limit in ["0", "1001", "1000000"] {
        let refused = get(
            &app,
            &format!("/api/v1/campaigns/Tak/log?limit={limit}"),
            Some(&gm),
        )
        .await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "limit={limit}");
    }
    // Filters carry over to the next page; `last` picks from the end.
    let rolls = get(
        &app,
        "/api/v1/campaigns/Tak/log?action=expression&limit=3",
        Some(&gm),
    )
    .await;
    assert!(link(&rolls).unwrap().contains("action=expression"));
    let last = get(&app, "/api/v1/campaigns/Tak/log?last=2", Some(&gm)).await;
    let last: Vec<u64> = last
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(last, [total - 1, total]);
}

/// The `rel="next"` target of an answer's `Link` header.
fn link(answer: &Answer) -> Option<String> {
    let value = answer.headers.get("link")?.to_str().ok()?;
    let target = value.strip_prefix('<')?.split_once('>')?.0;
    value.contains("rel=\"next\"").then(|| target.to_string())
}

fn reason(mechanic: &Value) -> &str {
    mechanic["verdict"]["reason"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn the_fairness_report_spends_a_bounded_budget() {
    // The campaign: sixteen rolls of an expression whose distribution takes more work than
    // one computation of the server may spend.
    let app = omen_server::app(state_with(config()));
    let gm = campaign(&app, "Tak").await;
    for _ in 0..16 {
        roll(&app, &gm, "(400d100)>=20000").await;
    }
    let report = get(&app, "/api/v1/campaigns/Tak/fairness", Some(&gm)).await;
    assert_eq!(report.status, StatusCode::OK);
    let report = report.json();
    let mechanic = &report["whole"]["mechanics"][0];
    assert_eq!(mechanic["rolls"], 16);
    assert!(
        reason(mechanic).starts_with("not checked: over the budget"),
        "{mechanic}"
    );
    // The dice themselves are still tested, with what the test can see.
    let d100 = &report["whole"]["dice"][0];
    assert_eq!(d100["rolled"], 6400);
    assert!(d100["power"][0]["text"].as_str().unwrap().starts_with(
        "with 6400 rolls of d% this test tells a fair die from one that never shows 100"
    ));
}

#[tokio::test]
async fn the_fairness_report_releases_the_database() {
    // A database in memory has one handle. While a fairness report computes (six distinct
    // expressions that each take a good part of a computation's budget), the log is listed.
    let app = omen_server::app(state_with(config()));
    let gm = campaign(&app, "Tak").await;
    for k in 0..6 {
        roll(&app, &gm, &format!("(250d100)>={}", 12000 + k)).await;
    }
    let report = {
        let app = app.clone();
        let gm = gm.clone();
        tokio::spawn(async move { get(&app, "/api/v1/campaigns/Tak/fairness", Some(&gm)).await })
    };
    // Let the report take the handle and start computing.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut listed_while_computing = 0;
    while !report.is_finished() {
        let listed = get(&app, "/api/v1/campaigns/Tak/log?limit=1", Some(&gm)).await;
        assert_eq!(listed.status, StatusCode::OK, "{}", listed.json());
        if !report.is_finished() {
            listed_while_computing += 1;
        }
    }
    assert_eq!(report.await.unwrap().status, StatusCode::OK);
    assert!(
        listed_while_computing > 0,
        "the log could not be listed while the report computed"
    );
}
