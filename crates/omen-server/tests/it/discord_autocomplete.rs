//! Autocomplete of `/roll`'s `saved` and `character` and of the rule sets' commands' `character`,
//! in the payload shape Discord documents (interaction type 4, the option being typed marked
//! `focused`): the campaign's names, to seated members only, and a character only to whom may act
//! for it.

use axum::http::Method;
use serde_json::{Value, json};

use super::discord::{AYLA_USER, CATO_USER, GM_USER, STRANGER, Table};

fn typing(table: &Table, user: &str, option: &str, typed: &str) -> Value {
    table.interaction(
        4,
        user,
        json!({ "id": "1", "name": "roll", "type": 1, "options": [
            { "name": "expression", "type": 3, "value": "" },
            { "name": option, "type": 3, "value": typed, "focused": true },
        ] }),
    )
}

#[tokio::test]
async fn roll_suggests_the_campaigns_characters_and_saved_rolls() {
    let table = Table::new().await;
    table.seated().await;
    for name in ["fireball", "firebolt", "misfire"] {
        let saved = super::call(
            &table.app,
            Method::PUT,
            &format!("/api/v1/campaigns/Tak/saved/{name}"),
            Some(&table.gm),
            Some(json!({ "expression": "8d6" })),
        )
        .await;
        assert!(saved.status.is_success(), "{}", saved.json());
    }
    // Those starting with what was typed first, then those containing it.
    let answer = table
        .send(&typing(&table, CATO_USER, "saved", "FIRE"))
        .await
        .json();
    assert_eq!(
        answer,
        json!({ "type": 8, "data": { "choices": [
            { "name": "fireball", "value": "fireball" },
            { "name": "firebolt", "value": "firebolt" },
            { "name": "misfire", "value": "misfire" },
        ] } })
    );
    // Cato's invite names Cato: Ayla, whom the API would refuse him, is not suggested to him.
    let answer = table
        .send(&typing(&table, CATO_USER, "character", "a"))
        .await
        .json();
    assert_eq!(
        answer["data"]["choices"],
        json!([{ "name": "Cato", "value": "Cato" }])
    );
    let answer = table
        .send(&typing(&table, GM_USER, "character", "a"))
        .await
        .json();
    assert_eq!(
        answer["data"]["choices"],
        json!([
            { "name": "Ayla", "value": "Ayla" },
            { "name": "Cato", "value": "Cato" },
        ])
    );
    // An account linked to no invite learns no names.
    let answer = table
        .send(&typing(&table, STRANGER, "character", ""))
        .await
        .json();
    assert_eq!(answer, json!({ "type": 8, "data": { "choices": [] } }));
}

/// The names suggested while `/GAME ACTION character:` is typed by `user`.
async fn suggested(table: &Table, user: &str, game: &str, typed: &str) -> Value {
    let typing = table.interaction(
        4,
        user,
        json!({ "id": "1", "name": game, "type": 1, "options": [
            { "name": "roll", "type": 1, "options": [
                { "name": "character", "type": 3, "value": typed, "focused": true },
            ] },
        ] }),
    );
    table.send(&typing).await.json()["data"]["choices"].clone()
}

/// `/luck roll character:` suggests the luck characters the typist may act for: Ayla to her
/// player and to the game master; nothing to Cato's player (Cato plays no luck, and Ayla is not
/// his), nor to an unlinked account. Cato, a plain character, is suggested to no one there.
#[tokio::test]
async fn a_rule_sets_command_suggests_only_its_characters_one_may_act_for() {
    let table = Table::new().await;
    table.seated().await;
    let ayla = json!([{ "name": "Ayla", "value": "Ayla" }]);
    assert_eq!(suggested(&table, AYLA_USER, "luck", "").await, ayla);
    assert_eq!(suggested(&table, AYLA_USER, "luck", "YL").await, ayla);
    assert_eq!(
        suggested(&table, AYLA_USER, "luck", "cato").await,
        json!([])
    );
    assert_eq!(suggested(&table, GM_USER, "luck", "").await, ayla);
    assert_eq!(suggested(&table, CATO_USER, "luck", "").await, json!([]));
    assert_eq!(suggested(&table, STRANGER, "luck", "").await, json!([]));
    // A command that is no rule set's suggests nothing.
    assert_eq!(
        suggested(&table, GM_USER, "nosuchgame", "").await,
        json!([])
    );
}
