//! Dice no one can foresee, over the API and from the attacker's side: the preview through a
//! refusal that the issue reported, a blind refusal, a stale commitment, and the head that publishes
//! the next draw.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::{app, get, luck_table, post};

/// Draws two d20, then fails quoting them (`no arm of this match matches 713`).
const PREVIEW: &str = "let a = 1d20; let b = 1d20; match a*100+b { 0 => 1 }";

async fn gm_log(app: &axum::Router, gm: &str) -> Vec<Value> {
    get(app, "/api/v1/campaigns/Tak/log", Some(gm))
        .await
        .json()
        .as_array()
        .unwrap()
        .clone()
}

fn faces(entry: &Value) -> Vec<i64> {
    entry["dice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["face"].as_i64().unwrap())
        .collect()
}

/// The reproduction of the report: a player's refused script quoted two d20, nothing was logged, and
/// the game master's next blind `2d20` showed them. Now the refusal is an entry of its own, with
/// the dice it quotes, and the game master's roll takes the next, unrelated draw.
#[tokio::test]
async fn a_player_cannot_preview_the_next_entry_through_a_refusal() {
    let app = app();
    let (gm, player) = luck_table(&app, &["Ayla"], &json!({})).await;
    let refused = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&player),
        json!({ "expression": PREVIEW, "entropy": "player-entropy-0001" }),
    )
    .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    let body = refused.json().to_string();
    let preview = gm_log(&app, &gm).await.pop().unwrap();
    assert_eq!(preview["inputs"]["kind"], "refused");
    let quoted = faces(&preview);
    assert!(
        body.contains(&format!("matches {}", quoted[0] * 100 + quoted[1])),
        "{body}"
    );
    assert!(
        body.contains(&format!("logged as entry {}", preview["sequence"])),
        "{body}"
    );
    let blind = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&gm),
        json!({ "expression": "2d20", "visibility": "blind" }),
    )
    .await;
    assert_eq!(blind.status, StatusCode::OK, "{}", blind.json());
    let rolled = gm_log(&app, &gm).await.pop().unwrap();
    assert_ne!(rolled["draw_commitment"], preview["draw_commitment"]);
    assert_eq!(rolled["draw_commitment"], preview["next_draw_commitment"]);
    assert_ne!(rolled["draw"]["secret"], preview["draw"]["secret"]);
    // The player sees their refused attempt in the log, dice and all.
    let seen = get(&app, "/api/v1/campaigns/Tak/log", Some(&player))
        .await
        .json();
    let mine = seen
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["sequence"] == preview["sequence"])
        .unwrap();
    assert_eq!(faces(mine), quoted);
}

/// A blind attempt is the game master's to see: its refusal quotes the roller no dice.
#[tokio::test]
async fn a_blind_refusal_quotes_no_dice_to_its_roller() {
    let app = app();
    let (gm, player) = luck_table(&app, &["Ayla"], &json!({})).await;
    let refused = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&player),
        json!({ "expression": PREVIEW, "visibility": "blind" }),
    )
    .await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    let body = refused.json().to_string();
    assert!(!body.contains("matches"), "{body}");
    let preview = gm_log(&app, &gm).await.pop().unwrap();
    assert_eq!(preview["inputs"]["kind"], "refused");
    assert_eq!(preview["visibility"], "blind");
    let quoted = faces(&preview);
    let combined = (quoted[0] * 100 + quoted[1]).to_string();
    assert!(!body.contains(&combined), "{body}");
}

/// The head publishes the next entry's draw; a request that names it takes it, one that names a
/// draw already taken is refused with 409 and nothing is logged.
#[tokio::test]
async fn a_request_naming_a_taken_draw_is_refused() {
    let app = app();
    let (gm, player) = luck_table(&app, &["Ayla"], &json!({})).await;
    let head = get(&app, "/api/v1/campaigns/Tak/head", Some(&player))
        .await
        .json();
    let published = head["next_draw_commitment"].as_str().unwrap().to_string();
    assert_eq!(published.len(), 64);
    let roll = |commitment: &str| {
        json!({
            "expression": "d20",
            "entropy": "0123456789abcdef0123456789abcdef",
            "commitment": commitment,
        })
    };
    let first = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&player),
        roll(&published),
    )
    .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.json());
    let entry = &first.json()["entry"];
    assert_eq!(entry["draw_commitment"], published.as_str());
    assert_eq!(entry["draw"]["entropy_from"], "caller");
    let count = gm_log(&app, &gm).await.len();
    let again = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&player),
        roll(&published),
    )
    .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert_eq!(again.kind(), "moved-on");
    assert_eq!(gm_log(&app, &gm).await.len(), count);
    let short = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&player),
        json!({ "expression": "d20", "entropy": "short" }),
    )
    .await;
    assert_eq!(short.status, StatusCode::BAD_REQUEST);
}

/// The report's reading of a blind-cast pool: after a blind cast, a player tried casts and read the
/// pool from which were refused (422) and which were not (200). Now the character's actions are
/// blind until the game master reveals that cast, and a refusal is logged as a blind entry and
/// answered as an accepted blind action is: the same status and the same fields.
#[tokio::test]
async fn after_a_blind_cast_a_refusal_answers_as_an_accepted_action() {
    let mut answers = Vec::new();
    for (attempt, dice) in [("refused", 6), ("accepted", 1)] {
        let app = app();
        let made = post(&app, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
        let gm = made.json()["game_master"]["token"]
            .as_str()
            .unwrap()
            .to_string();
        let sheet = json!({ "level": 3, "pool": 5 });
        let created = post(
            &app,
            "/api/v1/campaigns/Tak/characters",
            Some(&gm),
            json!({ "name": "Mira", "rule_set": "spelldice", "sheet": sheet }),
        )
        .await;
        assert_eq!(created.status, StatusCode::CREATED, "{}", created.json());
        let invited = post(
            &app,
            "/api/v1/campaigns/Tak/invites",
            Some(&gm),
            json!({ "role": "player", "character": "Mira" }),
        )
        .await;
        let player = invited.json()["token"].as_str().unwrap().to_string();
        let cast = |spell_dice: i64, visibility: &str| {
            json!({
                "action": { "action": "cast", "spell_level": 1, "spell_dice": spell_dice },
                "visibility": visibility,
            })
        };
        let path = "/api/v1/campaigns/Tak/characters/Mira/actions";
        let blind = post(&app, path, Some(&player), cast(5, "blind")).await;
        assert_eq!(blind.status, StatusCode::OK, "{}", blind.json());
        // Six dice from a pool of at most five is refused; one die is cast.
        let probe = post(&app, path, Some(&player), cast(dice, "public")).await;
        assert_eq!(probe.status, StatusCode::OK, "{attempt}: {}", probe.json());
        let entry = probe.json()["entry"].clone();
        assert_eq!(entry["visibility"], "blind", "{attempt}: {entry}");
        assert_eq!(entry["redacted"], true, "{attempt}: {entry}");
        let logged = gm_log(&app, &gm).await.pop().unwrap();
        let kind = if attempt == "refused" {
            "refused"
        } else {
            "action"
        };
        assert_eq!(logged["inputs"]["kind"], kind, "{logged}");
        answers.push(entry);
    }
    let shown = |entry: &Value| {
        let mut keys: Vec<String> = entry.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        (
            keys,
            entry["action"].clone(),
            entry["summary"].clone(),
            entry["dice"].clone(),
            entry["result"].clone(),
            entry["inputs"].clone(),
        )
    };
    assert_eq!(shown(&answers[0]), shown(&answers[1]));
}
