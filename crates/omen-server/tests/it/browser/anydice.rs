//! The calculator with the AnyDice dialect: a program typed over several lines (Enter starts a new
//! line, Ctrl+Enter calculates), one column per `output` named as the program names it, and a
//! permalink that holds the whole program; no Roll button while the dialect is AnyDice, since the
//! server rolls only dice expressions. The expected table is enumerated here.

use fantoccini::Locator;

use super::{CONTROL, ENTER, click, expected_columns, press, server, session, table};
use super::{driver, type_keys, wait_for};

const PROGRAM: &str = "output 1d4 named \"one\"\noutput 2d4 named \"two\"";

/// `d4` and `2d4`, outcome by outcome (1 to 8), as fraction and percentage cells.
fn expected_table() -> Vec<Vec<String>> {
    expected_columns(&[(1, 4), (2, 4)], 1..=8)
}

/// Whether the first row's Roll button and the note on rolling AnyDice programs are shown: the
/// server refuses `/roll` for AnyDice, so the page must not offer it.
async fn roll_offered(client: &fantoccini::Client) -> (bool, bool) {
    let shown = |selector: &'static str| async move {
        client
            .find(Locator::Css(selector))
            .await
            .expect(selector)
            .is_displayed()
            .await
            .expect("displayed")
    };
    (
        shown("#expression-list .expression .roll").await,
        shown("#roll-note").await,
    )
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
    let menu = client
        .find(Locator::Id("dialect"))
        .await
        .expect("the dialect menu");
    wait_for(client, "#expression-1").await;
    assert_eq!(roll_offered(client).await, (true, false), "Omen rolls");
    menu.select_by_value("anydice")
        .await
        .expect("AnyDice is offered");
    // No Roll button for a program, and a note saying what rolls one instead.
    assert_eq!(
        roll_offered(client).await,
        (false, true),
        "AnyDice has no Roll"
    );
    click(client, "#add-expression").await;
    let second_roll = client
        .find(Locator::Css(
            "#expression-list .expression:nth-child(2) .roll",
        ))
        .await
        .expect("the new row's Roll");
    assert!(
        !second_roll.is_displayed().await.expect("displayed"),
        "a row added under AnyDice has no Roll either"
    );
    click(client, "#expression-list .expression:nth-child(2) .remove").await;
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
    assert_eq!(
        roll_offered(client).await,
        (false, true),
        "the permalink's AnyDice page has no Roll"
    );
    // Back to Omen's notation: the Roll button returns, the note goes.
    client
        .find(Locator::Id("dialect"))
        .await
        .expect("the menu")
        .select_by_value("omen")
        .await
        .expect("Omen");
    assert_eq!(
        roll_offered(client).await,
        (true, false),
        "Omen rolls again"
    );
    second.client.close().await.expect("close");
}
