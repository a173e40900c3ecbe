//! A character's summary over the API: the rule set's reading of the sheet for people (seed 003's
//! rating names, 003-D1, and the personality's Asset and Flaw, 003-D6), beside the stored form in
//! every character response, documented in the OpenAPI document, and never where the caller may not
//! see the state it reads.

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::campaigns::{campaign, invite};
use crate::{get, post};

/// A REBEL of Gryffindor: FITNESS 3, WILLPOWER 7, the other aspects 1; BRAWL 2; ELEMENTAL 1.
pub(crate) fn rebel_sheet() -> Value {
    json!({ "sheet": {
        "personality": "REBEL", "house": "GRYFFINDOR",
        "aspects": { "FITNESS": 3, "CHARM": 1, "INTELLIGENCE": 1, "PRECISION": 1,
                     "DECEPTION": 1, "WILLPOWER": 7, "VITALITY": 1, "INSIGHT": 1,
                     "PERCEPTION": 1 },
        "abilities": { "BRAWL": 2 },
        "affinities": { "ELEMENTAL": 1 }
    }})
}

/// What the seed's tables say of that sheet, as the summary must show it: 003-D1's scale names
/// 1 Beginner, 2 Novice, 3 Average and 7 Ascendant; 003-D6's REBEL has the Asset DISTINCTIVENESS and
/// the Flaw LACK OF RESPECT.
const SHOWN: &[&str] = &[
    "FITNESS 3 (Average)",
    "WILLPOWER 7 (Ascendant)",
    "CHARM 1 (Beginner)",
    "BRAWL 2 (Novice)",
    "ELEMENTAL 1 (Beginner)",
    "DISTINCTIVENESS",
    "LACK OF RESPECT",
];

async fn character(app: &Router, token: &str, name: &str) -> Value {
    let answer = get(
        app,
        &format!("/api/v1/campaigns/Tak/characters/{name}"),
        Some(token),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.json());
    answer.json()
}

async fn listed(app: &Router, token: &str, name: &str) -> Value {
    let list = get(app, "/api/v1/campaigns/Tak/characters", Some(token))
        .await
        .json();
    list.as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no {name} in {list}"))
}

fn assert_reads_the_rebel(summary: &Value) {
    let text = summary["text"].as_str().expect("the summary's text");
    for shown in SHOWN {
        assert!(text.contains(shown), "{shown} not in {text}");
    }
    let personality = &summary["value"]["personality"];
    assert_eq!(personality["name"], "REBEL", "{summary}");
    assert_eq!(personality["house"], "GRYFFINDOR", "{summary}");
    assert_eq!(personality["asset"], "DISTINCTIVENESS", "{summary}");
    assert_eq!(personality["flaw"], "LACK OF RESPECT", "{summary}");
}

#[tokio::test]
async fn an_hprpg_characters_summary_reaches_the_game_master_and_its_player() {
    let (app, gm) = campaign().await;
    let made = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Mira", "rule_set": "hprpg", "sheet": rebel_sheet() }),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    assert_reads_the_rebel(&made.json()["summary"]);
    let player = invite(&app, &gm, "player", Some("Mira")).await;
    let observer = invite(&app, &gm, "observer", None).await;

    let for_gm = character(&app, &gm, "Mira").await;
    assert_reads_the_rebel(&for_gm["summary"]);
    // hprpg keeps nothing for the game master, so everyone reads the same summary, in the list too.
    for token in [&player, &observer] {
        assert_eq!(
            character(&app, token, "Mira").await["summary"],
            for_gm["summary"]
        );
        assert_eq!(
            listed(&app, token, "Mira").await["summary"],
            for_gm["summary"]
        );
    }
}

#[tokio::test]
async fn a_rule_set_without_a_summary_answers_null_and_a_withheld_state_withholds_it() {
    let (app, gm) = campaign().await;
    for (name, rule_set, sheet) in [
        ("Mira", "hprpg", rebel_sheet()),
        ("Ayla", "luck", json!({ "intrinsic": [] })),
        ("Plain", "none", json!({})),
    ] {
        let made = post(
            &app,
            "/api/v1/campaigns/Tak/characters",
            Some(&gm),
            json!({ "name": name, "rule_set": rule_set, "sheet": sheet }),
        )
        .await;
        assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    }
    let player = invite(&app, &gm, "player", Some("Mira")).await;
    for token in [&gm, &player] {
        for name in ["Ayla", "Plain"] {
            let shown = character(&app, token, name).await;
            assert_eq!(shown["summary"], Value::Null, "{shown}");
        }
    }

    // A blind roll for Mira: her state now follows a roll her player may not see, so the summary,
    // read from that state, goes with it until the reveal; the game master still reads it.
    let rolled = post(
        &app,
        "/api/v1/campaigns/Tak/rolls",
        Some(&gm),
        json!({ "expression": "1d6", "character": "Mira", "visibility": "blind" }),
    )
    .await;
    assert_eq!(rolled.status, StatusCode::OK, "{}", rolled.json());
    let withheld = character(&app, &player, "Mira").await;
    assert_eq!(withheld["state_withheld"], true, "{withheld}");
    assert_eq!(withheld["summary"], Value::Null, "{withheld}");
    assert_eq!(listed(&app, &player, "Mira").await["summary"], Value::Null);
    assert_reads_the_rebel(&character(&app, &gm, "Mira").await["summary"]);
}

#[tokio::test]
async fn the_openapi_document_describes_every_field_of_a_character_response() {
    let (app, gm) = campaign().await;
    let made = post(
        &app,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Mira", "rule_set": "hprpg", "sheet": rebel_sheet() }),
    )
    .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    let document = get(&app, "/api/v1/openapi.json", None).await.json();
    let schema = &document["components"]["schemas"]["CharacterBody"];
    let properties = schema["properties"].as_object().expect("its properties");
    let shown = character(&app, &gm, "Mira").await;
    for key in shown.as_object().unwrap().keys() {
        assert!(properties.contains_key(key), "{key} is not in {schema}");
    }
    let summary = &document["components"]["schemas"]["CharacterSummary"];
    for key in ["text", "value"] {
        assert!(summary["properties"].get(key).is_some(), "{summary}");
    }
    let route = &document["paths"]["/api/v1/campaigns/{campaign}/characters/{character}"]["get"];
    let body = &route["responses"]["200"]["content"]["application/json"]["schema"]["$ref"];
    assert_eq!(body, "#/components/schemas/CharacterBody");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_table_pages_character_card_shows_the_summary() {
    use crate::browser::{driver, open_table, server_and_api, session, wait_for};

    let Some(driver) = driver() else { return };
    let (address, api) = server_and_api().await;
    let made = post(&api, "/api/v1/campaigns", None, json!({ "name": "Tak" })).await;
    let gm = made.json()["game_master"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let created = post(
        &api,
        "/api/v1/campaigns/Tak/characters",
        Some(&gm),
        json!({ "name": "Mira", "rule_set": "hprpg", "sheet": rebel_sheet() }),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.json());
    let player = invite(&api, &gm, "player", Some("Mira")).await;

    let browser = session(&driver).await;
    open_table(&browser.client, address, &player).await;
    let summary = wait_for(
        &browser.client,
        "article.sheet[aria-label='Mira'] .sheet-summary",
    )
    .await
    .text()
    .await
    .unwrap();
    for shown in SHOWN {
        assert!(summary.contains(shown), "{shown} not in {summary}");
    }
    // Its lines stay lines (aspects, abilities, …), as `omen char show` prints them.
    let aspects = summary
        .lines()
        .find(|line| line.contains("FITNESS 3 (Average)"))
        .unwrap();
    assert!(!aspects.contains("BRAWL"), "{summary}");
}
