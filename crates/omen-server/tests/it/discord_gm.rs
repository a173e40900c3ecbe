//! The game master's channel: the campaign's game master names one with `/omen gm-channel`, and
//! the dice of every private and blind roll are posted there by the bot, while the channel the
//! roll was made in gets exactly the placeholder and its commitment.

use std::time::Duration;

use serde_json::{Value, json};

use super::discord::{
    AYLA_USER, BOT_TOKEN, CATO_USER, CHANNEL, GM_CHANNEL, GM_USER, Recorded, Table, ephemeral,
    text_of,
};

fn name_channel(table: &Table, user: &str, channel: Option<&str>) -> Value {
    let options = match channel {
        Some(channel) => json!([{ "name": "channel", "type": 7, "value": channel }]),
        None => json!([]),
    };
    table.subcommand(user, "omen", "gm-channel", options)
}

/// The bot's posts to `channel` so far.
fn posts_to(table: &Table, channel: &str) -> Vec<Recorded> {
    let path = format!("/api/v10/channels/{channel}/messages");
    table
        .calls
        .lock()
        .unwrap()
        .iter()
        .filter(|call| call.path == path)
        .cloned()
        .collect()
}

/// The bot's posts to `channel`, once there are `count`.
async fn posted(table: &Table, channel: &str, count: usize) -> Vec<Recorded> {
    for _ in 0..500 {
        let posts = posts_to(table, channel);
        if posts.len() >= count {
            return posts;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("fewer than {count} posts to channel {channel}");
}

fn roll(table: &Table, user: &str, expression: &str, visibility: &str) -> Value {
    table.command(
        user,
        "roll",
        json!([
            { "name": "expression", "type": 3, "value": expression },
            { "name": "visibility", "type": 3, "value": visibility },
        ]),
    )
}

/// The last entry of the log as the game master reads it through the API.
async fn last_entry(table: &Table) -> Value {
    let log = super::get(
        &table.app,
        "/api/v1/campaigns/Tak/log?last=1",
        Some(&table.gm),
    )
    .await;
    log.json()[0].clone()
}

#[tokio::test]
async fn only_the_game_master_names_a_channel_and_never_the_played_one() {
    let table = Table::new().await;
    table.seated().await;
    let refused = table
        .send(&name_channel(&table, CATO_USER, Some(GM_CHANNEL)))
        .await
        .json();
    assert!(
        text_of(&refused["data"]).contains("only the game master"),
        "{refused}"
    );
    let refused = table
        .send(&name_channel(&table, GM_USER, Some(CHANNEL)))
        .await
        .json();
    assert!(
        text_of(&refused["data"]).contains("players play `Tak` in that channel"),
        "{refused}"
    );
    let named = table
        .send(&name_channel(&table, GM_USER, Some(GM_CHANNEL)))
        .await
        .json();
    assert!(ephemeral(&named["data"]), "{named}");
    assert!(
        text_of(&named["data"]).contains(&format!("<#{GM_CHANNEL}>")),
        "{named}"
    );
    assert!(table.calls.lock().unwrap().is_empty(), "nothing was posted");
}

#[tokio::test]
async fn a_blind_rolls_dice_go_to_the_game_masters_channel_and_the_channel_gets_the_commitment_alone()
 {
    let table = Table::new().await;
    table.seated().await;
    table
        .send(&name_channel(&table, GM_USER, Some(GM_CHANNEL)))
        .await;
    let blind = roll(&table, AYLA_USER, "1d20", "blind");
    assert_eq!(table.send(&blind).await.json()["data"]["flags"], 0);
    let calls = table.delivered(&blind, 2).await;
    let posts = posted(&table, GM_CHANNEL, 1).await;
    // What was logged, as the game master reads it through the API.
    let entry = last_entry(&table).await;
    let sequence = entry["sequence"].as_u64().unwrap();
    let commitment = entry["commitment"].as_str().unwrap();
    let hash = &entry["hash"].as_str().unwrap()[..16];
    let face = entry["dice"][0]["face"].as_i64().unwrap();
    assert!((1..=20).contains(&face), "{entry}");
    // The channel: the placeholder, its commitment and the buttons, and nothing else. The summary
    // is the store's own words for a blind roll.
    let placeholder = format!(
        "**#{sequence}** · `a blind roll: only the game master sees it until it is revealed` · blind, commitment `{commitment}`"
    );
    let button = |label: &str, what: &str| json!({ "type": 2, "style": 2, "label": label, "custom_id": format!("{what}:{sequence}:{hash}") });
    let expected = json!({
        "content": placeholder,
        "allowed_mentions": { "parse": [] },
        "components": [{ "type": 1, "components": [button("Show me", "show"), button("Reveal", "reveal")] }],
    });
    assert_eq!(calls[0].body, expected);
    // Byte for byte: the JSON as sent, with nothing beside it (no file, no other key).
    assert_eq!(String::from_utf8_lossy(&calls[0].raw), expected.to_string());
    assert!(calls[0].files.is_empty());
    // The roller: the same, to them alone.
    assert!(ephemeral(&calls[1].body));
    assert_eq!(
        text_of(&calls[1].body),
        format!("Only you see this: {placeholder}")
    );
    // The game master's channel: the dice, posted by the bot.
    let [post] = &posts[..] else {
        panic!("one post, not {}", posts.len());
    };
    assert_eq!(post.method, "POST");
    assert_eq!(
        post.authorization.as_deref(),
        Some(format!("Bot {BOT_TOKEN}").as_str())
    );
    assert!(!ephemeral(&post.body));
    let said = text_of(&post.body);
    assert!(
        said.starts_with(&format!(
            "For the game master, from <#{CHANNEL}>: **#{sequence}**"
        )),
        "{said}"
    );
    assert!(said.contains(&format!("1d20 = {face}")), "{said}");
    assert!(said.contains(&format!("dice d20={face}")), "{said}");
    assert_eq!(post.body["allowed_mentions"], json!({ "parse": [] }));
    // The bot posts nowhere else: not in the channel the table plays in.
    assert!(posts_to(&table, CHANNEL).is_empty());
}

#[tokio::test]
async fn a_private_roll_goes_to_the_game_masters_channel_and_a_public_one_does_not() {
    let table = Table::new().await;
    table.seated().await;
    table
        .send(&name_channel(&table, GM_USER, Some(GM_CHANNEL)))
        .await;
    let private = roll(&table, CATO_USER, "2d6", "private");
    table.send(&private).await;
    let calls = table.delivered(&private, 2).await;
    let posts = posted(&table, GM_CHANNEL, 1).await;
    let entry = last_entry(&table).await;
    let total = entry["result"].as_i64().unwrap();
    let summary = format!("2d6 = {total}");
    // The roller sees their dice; the channel does not; the game master's channel does.
    assert!(text_of(&calls[1].body).contains(&summary), "{calls:?}");
    assert!(!calls[0].body.to_string().contains(&summary));
    assert!(text_of(&posts[0].body).contains(&summary), "{posts:?}");
    let public = roll(&table, CATO_USER, "2d6", "public");
    table.send(&public).await;
    table.delivered(&public, 1).await;
    // Naming none stops the posts.
    table.send(&name_channel(&table, GM_USER, None)).await;
    let blind = roll(&table, AYLA_USER, "1d20", "blind");
    table.send(&blind).await;
    table.delivered(&blind, 2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(posts_to(&table, GM_CHANNEL).len(), 1);
}
