//! The seed games' pages in a real browser: every rule set's page is accessible, and each computes
//! what its seed asks for.

use super::*;

/// Opens the seed games' page at `fragment` and waits for it to draw what the rule set offers.
async fn open_game(client: &Client, address: SocketAddr, name: &str) -> Value {
    let rules = crate::get(&crate::app(), &format!("/api/v1/rules/{name}"), None)
        .await
        .json();
    // A fresh load for each game (a fragment change alone is handled by the page, but a test of
    // the page's first drawing wants the drawing from scratch).
    client.goto("about:blank").await.expect("a blank page");
    client
        .goto(&format!("http://{address}/games#game={name}"))
        .await
        .expect("the games page");
    wait_for(client, &format!("#game option[value={name}]")).await;
    if !rules["analyses"].as_array().expect("analyses").is_empty() {
        wait_for(client, ".analysis-output table").await;
    }
    if rules["schemas"].is_object() {
        wait_for(client, "#sheet-problems p").await;
    }
    rules
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn every_seed_game_has_a_page_from_its_rule_set_that_axe_finds_accessible() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let browser = session(&driver).await;
    let client = &browser.client;
    for rules in omen_rules::seed_games() {
        let name = rules.name();
        let described = open_game(client, address, name).await;
        let heading = client
            .find(Locator::Id("description"))
            .await
            .expect("description")
            .text()
            .await
            .expect("text");
        assert!(
            heading.starts_with(rules.description()),
            "{heading:?} vs {:?}",
            rules.description()
        );
        // One section per analysis, one disclosure per reference table.
        let analyses = client
            .find_all(Locator::Css("#analyses .analysis"))
            .await
            .expect("analyses");
        assert_eq!(analyses.len(), rules.analyses().len(), "{name}");
        let tables = client
            .find_all(Locator::Css("#tables details"))
            .await
            .expect("tables");
        assert_eq!(tables.len(), rules.tables().len(), "{name}");
        if described["schemas"].is_object() {
            // The example sheet of the schema is valid; the odds of its first rolling action show.
            let verdict = wait_for(client, "#sheet-problems p").await;
            assert!(
                verdict.text().await.expect("text").starts_with('✓'),
                "{name}: {:?}",
                client
                    .find(Locator::Id("sheet-problems"))
                    .await
                    .expect("problems")
                    .text()
                    .await
            );
            let odds = wait_for(client, "#odds > *").await;
            save_screenshot(client, &format!("games-{name}.png")).await;
            assert_eq!(
                odds.attr("class").await.expect("class").as_deref(),
                Some("odds-card"),
                "{name}: {}",
                odds.text().await.expect("text")
            );
        }
        assert_accessible(client, &format!("the {name} page")).await;
        save_screenshot(client, &format!("games-{name}.png")).await;
    }
    browser.client.close().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_seed_games_pages_compute_what_the_seeds_ask_for() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let browser = session(&driver).await;
    let client = &browser.client;
    let app = crate::app();

    // 002: the luck calculator at +12. Bad is 1..10−12 (empty), good 41−12 = 29..50 (22 faces),
    // no event the 28 faces left.
    open_game(client, address, "luck").await;
    let modifier = input_in(client, "", "Modifier").await;
    modifier.clear().await.expect("clear");
    modifier.send_keys("12").await.expect("type");
    let ranges = wait_until(
        client,
        "return [...document.querySelectorAll('.analysis-output table')[0].querySelectorAll('tbody tr')]
             .map((r) => r.innerText.replace(/\\s+/g, ' ')).join(' | ');",
        |t| t.contains("none"),
    )
    .await;
    assert_eq!(
        ranges,
        "bad luck none 0 (0.00%) | no event 1–28 14/25 (56.00%) | good luck 29–50 11/25 (44.00%)"
    );
    assert_eq!(
        fragment_value(
            client.current_url().await.expect("url").as_str(),
            "a.calculator"
        ),
        json!({"modifier": 12})
    );

    // 003: a sheet that breaks two rules lists both at once, as the server finds them.
    open_game(client, address, "hprpg").await;
    let brawl = input_in(client, "Abilities", "BRAWL").await;
    brawl.clear().await.expect("clear");
    brawl.send_keys("6").await.expect("type");
    let fitness = input_in(client, "Aspects", "FITNESS").await;
    fitness.clear().await.expect("clear");
    fitness.send_keys("7").await.expect("type");
    // The page's list, once it is for the sheet with both changes, is the server's list.
    let mut matched = None;
    for _ in 0..100 {
        let url = client.current_url().await.expect("url").to_string();
        let sheet = fragment_value(&url, "sheet");
        if sheet["create"]["aspects"]["FITNESS"] == 7 && sheet["create"]["abilities"]["BRAWL"] == 6
        {
            let answer = crate::post(
                &app,
                "/api/v1/rules/hprpg/sheets",
                None,
                json!({ "sheet": sheet }),
            )
            .await;
            assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
            let expected: Vec<Value> = answer.json()["errors"]
                .as_array()
                .expect("errors")
                .iter()
                .map(|e| e["message"].clone())
                .collect();
            let shown = client
                .execute(
                    "return [...document.querySelectorAll('#sheet-problems li')].map((li) => li.innerText);",
                    vec![],
                )
                .await
                .expect("problems");
            if shown == json!(expected) {
                matched = Some(expected);
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let problems = matched.expect("the page lists the server's problems with the sheet");
    assert!(problems.len() >= 2, "every problem at once: {problems:?}");
    let verdict = client
        .find(Locator::Css("#sheet-problems p"))
        .await
        .expect("verdict")
        .text()
        .await
        .expect("text");
    assert_eq!(
        verdict,
        format!("✗ {} problems with the sheet:", problems.len())
    );
    assert_accessible(client, "the hprpg page with problems").await;

    // 000: Appendix A as a table; one die succeeds against difficulty t with (7 − t)/6.
    open_game(client, address, "ritual").await;
    click(client, "#tables details:first-of-type summary").await;
    wait_for(client, "#tables details:first-of-type table").await;
    let lore = table(client, "#tables details:first-of-type table").await;
    assert_eq!(lore.len(), 13, "pools 0..12");
    assert_eq!(
        lore[1],
        ["1d", "83.33%", "66.67%", "50.00%", "33.33%", "16.67%"]
    );

    // 001: the exhaustion analysis: level 1, target 8, base rule: commit-all 185/1188 ≈ 15.57 %,
    // commit-minimum 128/363 ≈ 35.26 %.
    open_game(client, address, "spelldice").await;
    let exhaustion = client
        .find(Locator::XPath(
            "//details[starts-with(normalize-space(summary), 'exhaustion')]/summary",
        ))
        .await
        .expect("the exhaustion table");
    exhaustion.click().await.expect("open");
    wait_for(client, "#tables details[open] table").await;
    let rows = table(client, "#tables details[open] table").await;
    let cell = |strategy: &str| {
        rows.iter()
            .find(|r| r[..4] == ["1", "1", "base", strategy])
            .map(|r| r[4].clone())
            .unwrap_or_else(|| panic!("{strategy}: {rows:?}"))
    };
    assert_eq!(cell("all"), "15.57%");
    assert_eq!(cell("minimum"), "35.26%");

    // 004: the Dice Test odds of the example action show the server's exact levels.
    open_game(client, address, "t13").await;
    let card = wait_for(client, "#odds .odds-card").await;
    let url = client.current_url().await.expect("url").to_string();
    let odds = crate::post(
        &app,
        "/api/v1/rules/t13/odds",
        None,
        json!({ "sheet": fragment_value(&url, "sheet"), "action": fragment_value(&url, "action") }),
    )
    .await
    .json();
    let text = card.text().await.expect("text");
    let mut fractions = Vec::new();
    collect_fractions(&odds, &mut fractions);
    assert!(fractions.len() >= 3, "{odds}");
    for fraction in fractions {
        assert!(text.contains(&fraction), "{fraction} missing from {text}");
    }
    save_screenshot(client, "games-t13-odds.png").await;
    browser.client.close().await.expect("close");
}

fn collect_fractions(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(f)) = map.get("fraction") {
                into.push(f.clone());
            }
            map.values().for_each(|v| collect_fractions(v, into));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_fractions(v, into)),
        _ => {}
    }
}
