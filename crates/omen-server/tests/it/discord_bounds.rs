//! The Discord endpoint is bounded like every route: its body, the rates of one Discord user and
//! one server, and the work of what it defers; and what each member sees of a private roll.

use axum::http::StatusCode;
use serde_json::json;

use super::config;
use super::discord::{AYLA_USER, CATO_USER, GM_USER, STRANGER, Table, ephemeral, now, text_of};

#[tokio::test]
async fn a_body_past_the_servers_limit_is_refused_before_its_signature_is_checked() {
    let table = Table::new().await;
    // 64 KiB is the server's limit; Discord's interactions are a few KiB.
    let body =
        json!({ "id": "1", "type": 1, "token": "t", "padding": "x".repeat(70 << 10) }).to_string();
    let at = now();
    let answer = table.raw(&body, &at, &table.sign(&at, &body)).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn one_user_past_their_burst_is_told_to_wait_and_others_are_not() {
    let table = Table::new().await;
    // 30 a minute in bursts of 10: ten at once pass (to the seat check: the channel is unbound),
    // the eleventh waits for the next token: a token every 2 s, so 2 s at most (1 s once the ten
    // took over a second, on a slow machine).
    let start = std::time::Instant::now();
    for _ in 0..10 {
        let answer = table
            .send(&table.command(STRANGER, "log", json!([])))
            .await
            .json();
        assert!(
            text_of(&answer["data"]).contains("bound to no campaign"),
            "{answer}"
        );
    }
    let answer = table
        .send(&table.command(STRANGER, "log", json!([])))
        .await
        .json();
    let said = text_of(&answer["data"]);
    assert!(start.elapsed().as_secs() < 2, "too slow to tell");
    assert!(
        said == "Too many commands at once: try again in 2 s."
            || said == "Too many commands at once: try again in 1 s.",
        "{said}"
    );
    assert!(ephemeral(&answer["data"]));
    let other = table
        .send(&table.command(AYLA_USER, "log", json!([])))
        .await
        .json();
    assert!(
        text_of(&other["data"]).contains("bound to no campaign"),
        "{other}"
    );
}

#[tokio::test]
async fn one_server_past_its_burst_is_told_to_wait() {
    let table = Table::new().await;
    // 300 a minute (5 a second) in bursts of 100: ten users' ten each pass; then, from users
    // with full buckets of their own, the server waits once the tokens it gained meanwhile are
    // spent: at most one more for each 0.2 s the hundred took.
    let start = std::time::Instant::now();
    for user in 0..10 {
        let user = format!("51000000000000000{user}");
        for _ in 0..10 {
            let answer = table
                .send(&table.command(&user, "log", json!([])))
                .await
                .json();
            assert!(
                !text_of(&answer["data"]).starts_with("Too many"),
                "{answer}"
            );
        }
    }
    let gained = (start.elapsed().as_secs_f64() * 5.0).floor() as usize + 1;
    let mut extra = 0;
    loop {
        let user = format!("5200000000000{extra:05}");
        let answer = table
            .send(&table.command(&user, "log", json!([])))
            .await
            .json();
        if text_of(&answer["data"]).starts_with("Too many commands") {
            break;
        }
        extra += 1;
        assert!(
            extra <= gained,
            "{extra} more passed after {:?}",
            start.elapsed()
        );
    }
}

#[tokio::test]
async fn deferred_work_keeps_the_servers_work_budget() {
    let mut config = config();
    config.limits.work_budget = 1_000;
    let table = Table::with(config).await;
    table.seated().await;
    let odds = table.command(
        CATO_USER,
        "odds",
        json!([{ "name": "expression", "type": 3, "value": "20d20" }]),
    );
    assert_eq!(table.send(&odds).await.json()["data"]["flags"], 64);
    let said = text_of(&table.delivered(&odds, 1).await[0].body).to_string();
    assert!(said.starts_with("Refused:"), "{said}");
    assert!(!said.contains("P(="), "{said}");
}

/// A private roll: the channel gets the commitment, the roller and the game master the dice, the
/// other player nothing more than the channel.
#[tokio::test]
async fn a_private_roll_shows_its_dice_to_the_roller_and_the_game_master_only() {
    let table = Table::new().await;
    table.seated().await;
    let roll = table.command(
        AYLA_USER,
        "roll",
        json!([
            { "name": "expression", "type": 3, "value": "2d6" },
            { "name": "visibility", "type": 3, "value": "private" },
        ]),
    );
    table.send(&roll).await;
    let calls = table.delivered(&roll, 2).await;
    let (placeholder, to_roller) = (&calls[0].body, &calls[1].body);
    assert!(
        text_of(placeholder).contains("private, commitment `"),
        "{placeholder}"
    );
    assert!(!text_of(placeholder).contains("d6="), "{placeholder}");
    assert!(
        ephemeral(to_roller) && text_of(to_roller).contains("2d6 = "),
        "{to_roller}"
    );
    let show = placeholder["components"][0]["components"][0]["custom_id"]
        .as_str()
        .unwrap();
    let gm = table.send(&table.click(GM_USER, show)).await.json();
    assert!(
        ephemeral(&gm["data"]) && text_of(&gm["data"]).contains("2d6 = "),
        "{gm}"
    );
    let cato = table.send(&table.click(CATO_USER, show)).await.json();
    assert!(text_of(&cato["data"]).contains("commitment"), "{cato}");
    assert!(!text_of(&cato["data"]).contains("d6="), "{cato}");
    // The faces the roller saw sum to the total they were told (`2d6 = N · dice d6=a d6=b`).
    let said = text_of(to_roller);
    let total: i64 = said
        .split("2d6 = ")
        .nth(1)
        .unwrap()
        .split('`')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let faces: i64 = said
        .split("d6=")
        .skip(1)
        .map(|f| f.split(' ').next().unwrap().parse::<i64>().unwrap())
        .sum();
    assert_eq!(total, faces);
}

#[tokio::test]
async fn a_receipt_is_checked_against_the_log() {
    let table = Table::new().await;
    table.seated().await;
    let verify = table.command(CATO_USER, "verify", json!([]));
    table.send(&verify).await;
    let said = text_of(&table.delivered(&verify, 1).await[0].body).to_string();
    let receipt = said
        .split("Receipt to keep: `")
        .nth(1)
        .unwrap()
        .split('`')
        .next()
        .unwrap()
        .to_string();
    for (given, expected) in [
        (receipt.clone(), "holds"),
        (
            format!("{}:{}", receipt.split(':').next().unwrap(), "00000000"),
            "FAILS",
        ),
        ("9999:0123456789abcdef".to_string(), "FAILS"),
    ] {
        let check = table.command(
            CATO_USER,
            "verify",
            json!([{ "name": "receipt", "type": 3, "value": given }]),
        );
        table.send(&check).await;
        let said = text_of(&table.delivered(&check, 1).await[0].body).to_string();
        assert!(
            said.contains(&format!("Receipt `{given}` {expected}")),
            "{said}"
        );
    }
}
