//! The calculator from the keyboard alone, in a real browser.

use super::*;

/// The calculator from the keyboard alone: Tab reaches the first expression, Enter calculates, the
/// roll and add buttons answer Space and Enter, and in a script Enter starts a new line while
/// Ctrl+Enter calculates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn the_calculator_works_from_the_keyboard_alone() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let session = session(&driver).await;
    let client = &session.client;
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("the page");
    wait_for(client, "#expression-1").await;
    let mut path = Vec::new();
    while path.last().map(String::as_str) != Some("expression-1") {
        assert!(
            path.len() < 10,
            "Tab never reached the expression: {path:?}"
        );
        press(client, &[TAB]).await;
        path.push(focused(client).await);
    }
    assert_eq!(path, ["Calculator", "Seed games", "expression-1"]);

    // The page starts with `2d6`: select it and type over it.
    press(client, &[CONTROL, 'a']).await;
    type_keys(client, "3d4").await;
    assert_eq!(value_of(client, "expression-1").await, "3d4");
    press(client, &[ENTER]).await;
    let outcomes: Vec<String> = (3..=12).map(|n: u64| n.to_string()).collect();
    wait_for_outcomes(client, "#odds", &outcomes).await;
    assert_eq!(table(client, "#odds").await, expected_sum(3, 4, 0));

    // The expression's own buttons come next: Space rolls it.
    press(client, &[TAB]).await;
    assert_eq!(focused(client).await, "Roll expression 1");
    press(client, &[SPACE]).await;
    wait_for(client, ".roll-card").await;
    press(client, &[TAB]).await;
    assert_eq!(focused(client).await, "Remove expression 1");
    press(client, &[TAB]).await;
    assert_eq!(focused(client).await, "add-expression");
    press(client, &[ENTER]).await;
    assert_eq!(focused(client).await, "expression-2");

    // A script: Enter starts a new line and calculates nothing; Ctrl+Enter calculates.
    type_keys(client, "let a = d4;").await;
    press(client, &[ENTER]).await;
    type_keys(client, "a + 1").await;
    assert_eq!(value_of(client, "expression-2").await, "let a = d4;\na + 1");
    assert_eq!(
        client
            .find_all(Locator::Css("#odds thead th"))
            .await
            .expect("headers")
            .len(),
        3,
        "Enter in a script calculated"
    );
    press(client, &[CONTROL, ENTER]).await;
    wait_until(
        client,
        "return String(document.querySelectorAll('#odds thead th').length);",
        |n| n == "5",
    )
    .await;
    // 3d4 beside d4 + 1: each of 2 to 5 is a quarter.
    let rows = table(client, "#odds").await;
    for row in &rows {
        let outcome: u64 = row[0].parse().expect("an outcome");
        let want = if (2..=5).contains(&outcome) {
            "1/4"
        } else {
            ""
        };
        assert_eq!(row[3], want, "{row:?}");
    }
    session.client.close().await.expect("close");
}
