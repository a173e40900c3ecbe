//! `/odds` in Discord: the exact table in the message and the chart as a PNG attached to it, sent
//! as Discord takes files (`multipart/form-data`, `payload_json` and `files[0]`, the embed showing
//! `attachment://odds.png`), read back by the stand-in's own form parser.

use serde_json::json;

use super::discord::{AYLA_USER, Table, ephemeral, text_of};

/// A PNG file's first eight bytes (the PNG specification, 5.2).
const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The width and height in a PNG's header chunk: after the signature, the chunk's length and its
/// type `IHDR`, two big-endian 32-bit numbers.
fn dimensions(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[12..16], b"IHDR");
    let number = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (number(16), number(20))
}

#[tokio::test]
async fn odds_attach_a_png_chart_to_the_table() {
    let table = Table::new().await;
    table.seated().await;
    let odds = table.command(
        AYLA_USER,
        "odds",
        json!([{ "name": "expression", "type": 3, "value": "2d6" }]),
    );
    assert_eq!(table.send(&odds).await.json()["data"]["flags"], 64);
    let calls = table.delivered(&odds, 1).await;
    let edit = &calls[0];
    assert_eq!(edit.method, "PATCH");
    // The interaction's webhook is named by its token alone; no bot token goes with it.
    assert_eq!(edit.authorization, None);
    let message = &edit.body;
    assert!(ephemeral(message), "{message}");
    // 2d6: 7 comes 6 ways in 36 (1/6), 7 or more 21 ways (7/12).
    assert!(
        text_of(message).contains("       7             1/6            7/12"),
        "{message}"
    );
    assert_eq!(
        message["embeds"][0]["image"]["url"], "attachment://odds.png",
        "{message}"
    );
    assert_eq!(message["attachments"][0]["id"], 0);
    assert_eq!(message["attachments"][0]["filename"], "odds.png");
    let [file] = &edit.files[..] else {
        panic!("one file, not {:?}", edit.files.len());
    };
    assert_eq!(
        (
            file.name.as_str(),
            file.filename.as_deref(),
            file.content_type.as_deref()
        ),
        ("files[0]", Some("odds.png"), Some("image/png"))
    );
    assert_eq!(&file.bytes[..8], SIGNATURE);
    assert_eq!(dimensions(&file.bytes), (960, 600));
    // Eleven bars on white: far smaller than the raw 960 × 600 × 3 bytes, and more than a blank
    // image's few hundred.
    let size = file.bytes.len();
    assert!((2_000..400_000).contains(&size), "{size} bytes");
    // The PNG ends with its IEND chunk: nothing was cut off at the part's boundary.
    assert_eq!(&file.bytes[size - 8..size - 4], b"IEND");
}

#[tokio::test]
async fn odds_of_labels_are_the_table_alone() {
    let table = Table::new().await;
    table.seated().await;
    let odds = table.command(
        AYLA_USER,
        "odds",
        json!([{ "name": "expression", "type": 3, "value": r#"if d2 = 1 then "hit" else "miss""# }]),
    );
    table.send(&odds).await;
    let calls = table.delivered(&odds, 1).await;
    let message = &calls[0].body;
    assert!(text_of(message).contains("1/2"), "{message}");
    assert!(calls[0].files.is_empty());
    assert!(message.get("embeds").is_none(), "{message}");
}
