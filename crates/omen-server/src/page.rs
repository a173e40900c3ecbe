//! The web pages: the calculator at `/` and the seed games at `/games`, each one HTML file and one
//! ES module, with one stylesheet, embedded
//! in the binary at compile time so that `cargo install` gives a server that serves its own page
//! (no build step, nothing fetched from elsewhere).
//!
//! Every answer carries a strict Content-Security-Policy (scripts, styles and requests only from
//! this server; no inline script or style, no frames) and `Cache-Control: no-cache` with an `ETag`:
//! a browser keeps the files and asks again cheaply (304), so a new server version is picked up at
//! the next load without renamed files.

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use sha2::{Digest, Sha256};

use crate::AppState;

/// Scripts, styles, images and requests from this origin only; nothing inline, no plug-ins, no
/// frames, no forms sent anywhere. Blob URLs are images and downloads of exported tables.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// One embedded file: its path on the server, its content type and its bytes.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static str,
}

const ASSETS: &[Asset] = &[
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        body: include_str!("../web/index.html"),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_str!("../web/app.js"),
    },
    Asset {
        path: "/games",
        content_type: "text/html; charset=utf-8",
        body: include_str!("../web/games.html"),
    },
    Asset {
        path: "/games.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_str!("../web/games.js"),
    },
    Asset {
        path: "/forms.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_str!("../web/forms.js"),
    },
    Asset {
        path: "/style.css",
        content_type: "text/css; charset=utf-8",
        body: include_str!("../web/style.css"),
    },
    Asset {
        path: "/table",
        content_type: "text/html; charset=utf-8",
        body: include_str!("../web/table.html"),
    },
    Asset {
        path: "/table.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_str!("../web/table.js"),
    },
    Asset {
        path: "/table.css",
        content_type: "text/css; charset=utf-8",
        body: include_str!("../web/table.css"),
    },
    // The pages name `/favicon.svg`; `/favicon.ico` is where browsers and tools look without
    // being told, so it answers the same drawing rather than 404.
    Asset {
        path: "/favicon.svg",
        content_type: "image/svg+xml",
        body: include_str!("../web/favicon.svg"),
    },
    Asset {
        path: "/favicon.ico",
        content_type: "image/svg+xml",
        body: include_str!("../web/favicon.svg"),
    },
];

fn etag(body: &str) -> String {
    let digest = Sha256::digest(body.as_bytes());
    let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

fn serve(asset: &'static Asset, request: &HeaderMap) -> Response {
    let tag = etag(asset.body);
    let fresh = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"));
    let mut headers = HeaderMap::new();
    let static_header = |value: &'static str| HeaderValue::from_static(value);
    headers.insert(header::CONTENT_TYPE, static_header(asset.content_type));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        static_header(CONTENT_SECURITY_POLICY),
    );
    headers.insert(header::CACHE_CONTROL, static_header("no-cache"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, static_header("nosniff"));
    headers.insert(header::REFERRER_POLICY, static_header("no-referrer"));
    if let Ok(value) = HeaderValue::from_str(&tag) {
        headers.insert(header::ETAG, value);
    }
    if fresh {
        (StatusCode::NOT_MODIFIED, headers).into_response()
    } else {
        (headers, asset.body).into_response()
    }
}

/// The page's routes, merged into [`crate::app`]'s router.
pub(crate) fn routes() -> Router<AppState> {
    ASSETS.iter().fold(Router::new(), |router, asset| {
        router.route(
            asset.path,
            get(move |headers: HeaderMap| async move { serve(asset, &headers) }),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialect_menu_lists_every_dialect_the_language_has() {
        let page = ASSETS[0].body;
        for name in omen_lang::syntax::Dialect::names() {
            assert!(
                page.contains(&format!("<option value=\"{name}\"")),
                "the page's dialect menu lacks `{name}`"
            );
        }
        // And AnyDice's whole programs, which only the odds take (`/api/v1/prob`).
        assert!(page.contains("<option value=\"anydice\""));
        assert_eq!(
            page.matches("<option value=").count(),
            omen_lang::syntax::Dialect::names().count() + 1,
            "the page offers a dialect the language does not have"
        );
    }

    #[test]
    fn the_pages_load_only_their_own_files_and_nothing_inline() {
        for (page, script) in [(ASSETS[0].body, "/app.js"), (ASSETS[2].body, "/games.js")] {
            assert!(page.contains(&format!(
                "<script type=\"module\" src=\"{script}\"></script>"
            )));
            assert!(!page.contains("style=\""), "an inline style breaks the CSP");
            let handler = page
                .split(|c: char| c.is_whitespace())
                .find(|word| word.starts_with("on") && word.contains('='));
            assert_eq!(handler, None, "an inline handler breaks the CSP");
            assert_eq!(page.matches("<script").count(), 1);
        }
    }

    #[test]
    fn the_games_page_names_no_game() {
        // The page is driven by the rule sets: a game's name in its code would be a page written
        // for one game.
        for asset in &ASSETS[2..5] {
            for rules in omen_rules::registry() {
                assert!(
                    !asset.body.contains(&format!("\"{}\"", rules.name())),
                    "{} names `{}`",
                    asset.path,
                    rules.name()
                );
            }
        }
    }

    #[test]
    fn the_table_page_loads_only_its_own_files_and_names_no_game() {
        let asset = |path: &str| ASSETS.iter().find(|a| a.path == path).unwrap().body;
        let page = asset("/table");
        assert!(page.contains("<script type=\"module\" src=\"/table.js\"></script>"));
        assert_eq!(page.matches("<script").count(), 1);
        assert!(!page.contains("style=\""), "an inline style breaks the CSP");
        // The table is driven by the rule sets' schemas and the server's redaction: a game's name or
        // a hidden field's name in its code would be a page that knows what to hide.
        for body in [page, asset("/table.js"), asset("/forms.js")] {
            for rules in omen_rules::registry() {
                assert!(!body.contains(&format!("\"{}\"", rules.name())));
            }
            assert!(!body.contains("intrinsic"));
        }
    }
}
