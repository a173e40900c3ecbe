//! The calculator with the AnyDice dialect: a program typed over several lines (Enter starts a new
//! line, Ctrl+Enter calculates), one column per `output` named as the program names it, and a
//! permalink that holds the whole program. The expected table is enumerated here.

use fantoccini::Locator;

use super::{CONTROL, ENTER, click, expected_columns, press, server, session, table};
use super::{driver, type_keys, wait_for};

const PROGRAM: &str = "output 1d4 named \"one\"\noutput 2d4 named \"two\"";

/// `d4` and `2d4`, outcome by outcome (1 to 8), as fraction and percentage cells.
fn expected_table() -> Vec<Vec<String>> {
    expected_columns(&[(1, 4), (2, 4)], 1..=8)
}

async fn headers(client: &fantoccini::Client) -> Vec<String> {
    let mut names = Vec::new();
    for h in client
        .find_all(Locator::Css("#odds thead th"))
        .await
        .expect("headers")
    {
        names.push(h.text().await.expect("text"));
    }
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    omen_no_browser,
    ignore = "needs Chromium and chromedriver (Debian: apt-get install chromium chromium-driver; .ci/run installs them)"
)]
async fn an_anydice_program_of_two_outputs_is_two_columns_and_its_permalink_holds_it() {
    let Some(driver) = driver() else { return };
    let address = server().await;
    let first = session(&driver).await;
    let client = &first.client;
    client
        .goto(&format!("http://{address}/"))
        .await
        .expect("the page");
    client
        .find(Locator::Id("dialect"))
        .await
        .expect("the dialect menu")
        .select_by_value("anydice")
        .await
        .expect("AnyDice is offered");
    let input = wait_for(client, "#expression-1").await;
    input.clear().await.expect("clear");
    click(client, "#expression-1").await;
    // Typed key by key: Enter between the lines must start a new line, not calculate.
    let (line_one, line_two) = PROGRAM.split_once('\n').unwrap();
    type_keys(client, line_one).await;
    press(client, &[ENTER]).await;
    type_keys(client, line_two).await;
    let typed = input.prop("value").await.expect("value");
    assert_eq!(typed.as_deref(), Some(PROGRAM), "Enter started a new line");
    press(client, &[CONTROL, ENTER]).await;
    wait_for(client, "#odds").await;
    assert_eq!(
        headers(client).await,
        ["outcome", "P(=) one", "%", "P(=) two", "%"]
    );
    assert_eq!(table(client, "#odds").await, expected_table());

    let permalink = client.current_url().await.expect("url").to_string();
    assert!(permalink.contains("dialect=anydice"), "{permalink}");
    first.client.close().await.expect("close");

    // A new browser: the link alone brings back the program, its lines and its two columns.
    let second = session(&driver).await;
    let client = &second.client;
    client.goto(&permalink).await.expect("the permalink");
    wait_for(client, "#odds").await;
    assert_eq!(table(client, "#odds").await, expected_table());
    let restored = client
        .find(Locator::Id("expression-1"))
        .await
        .expect("the input")
        .prop("value")
        .await
        .expect("value");
    assert_eq!(restored.as_deref(), Some(PROGRAM));
    let dialect = client
        .find(Locator::Id("dialect"))
        .await
        .expect("the menu")
        .prop("value")
        .await
        .expect("value");
    assert_eq!(dialect.as_deref(), Some("anydice"));
    second.client.close().await.expect("close");
}
