//! Autocomplete of `/roll`'s `saved` and `character`, in the payload shape Discord documents
//! (interaction type 4, the option being typed marked `focused`): the campaign's names, to seated
//! members only.

use axum::http::Method;
use serde_json::{Value, json};

use super::discord::{CATO_USER, STRANGER, Table};

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
    let answer = table
        .send(&typing(&table, CATO_USER, "character", "a"))
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
