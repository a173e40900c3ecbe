//! A message with files, as Discord takes one: `multipart/form-data` with the message's JSON in a
//! part named `payload_json` and each file in a part named `files[N]`, which the message's
//! `attachments` (and an embed's `attachment://NAME`) refer to. Plain data.

use serde_json::{Value, json};

/// A file sent with a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    /// The file's name, which `attachment://` refers to: letters, digits, `.`, `_`, `-` only, so it
    /// needs no quoting in a part's header.
    pub filename: &'static str,
    pub content_type: &'static str,
    pub description: String,
    pub bytes: Vec<u8>,
}

/// `message` with `files` listed in its `attachments` (ids by position, as `files[N]` names them).
pub(crate) fn with_attachments(message: &Value, files: &[Attachment]) -> Value {
    let mut message = message.clone();
    message["attachments"] = files
        .iter()
        .enumerate()
        .map(|(id, file)| {
            json!({ "id": id, "filename": file.filename, "description": file.description })
        })
        .collect();
    message
}

/// The form's body and its `content-type` header (with the boundary).
pub(crate) fn form(message: &Value, files: &[Attachment]) -> (String, Vec<u8>) {
    let payload = with_attachments(message, files).to_string();
    let boundary = boundary(&payload, files);
    let mut body = Vec::new();
    let mut part = |headers: String, content: &[u8]| {
        body.extend_from_slice(format!("--{boundary}\r\n{headers}\r\n\r\n").as_bytes());
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    };
    part(
        "Content-Disposition: form-data; name=\"payload_json\"\r\nContent-Type: application/json"
            .to_string(),
        payload.as_bytes(),
    );
    for (index, file) in files.iter().enumerate() {
        part(
            format!(
                "Content-Disposition: form-data; name=\"files[{index}]\"; filename=\"{}\"\r\nContent-Type: {}",
                file.filename, file.content_type
            ),
            &file.bytes,
        );
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// A boundary that occurs in no part (a PNG's bytes could hold any text): the first of a few
/// candidates that none contains. The 32-bit counter in it cannot run out before a part of 4 GiB
/// would have to hold every candidate.
fn boundary(payload: &str, files: &[Attachment]) -> String {
    let contains =
        |haystack: &[u8], needle: &[u8]| haystack.windows(needle.len()).any(|w| w == needle);
    (0u32..)
        .map(|n| format!("omen-part-{n:08x}"))
        .find(|candidate| {
            !contains(payload.as_bytes(), candidate.as_bytes())
                && files
                    .iter()
                    .all(|f| !contains(&f.bytes, candidate.as_bytes()))
        })
        .unwrap_or_else(|| "omen-part".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_holds_the_payload_then_each_file() {
        let file = Attachment {
            filename: "odds.png",
            content_type: "image/png",
            description: "chart".to_string(),
            bytes: b"\x89PNG".to_vec(),
        };
        let message = json!({ "content": "hi" });
        let payload = with_attachments(&message, std::slice::from_ref(&file));
        assert_eq!(
            payload,
            json!({ "content": "hi",
                    "attachments": [{ "id": 0, "filename": "odds.png", "description": "chart" }] })
        );
        let (content_type, body) = form(&message, &[file]);
        assert_eq!(
            content_type,
            "multipart/form-data; boundary=omen-part-00000000"
        );
        let expected = format!(
            "--omen-part-00000000\r\n\
             Content-Disposition: form-data; name=\"payload_json\"\r\n\
             Content-Type: application/json\r\n\r\n\
             {payload}\r\n\
             --omen-part-00000000\r\n\
             Content-Disposition: form-data; name=\"files[0]\"; filename=\"odds.png\"\r\n\
             Content-Type: image/png\r\n\r\n"
        );
        let mut want = expected.into_bytes();
        want.extend_from_slice(b"\x89PNG\r\n--omen-part-00000000--\r\n");
        assert_eq!(body, want, "{}", String::from_utf8_lossy(&body));
    }

    #[test]
    fn a_file_holding_the_boundary_gets_another() {
        let file = Attachment {
            filename: "odds.png",
            content_type: "image/png",
            description: String::new(),
            bytes: b"xx--omen-part-00000000xx".to_vec(),
        };
        let (content_type, _) = form(&json!({}), &[file]);
        assert!(
            content_type.ends_with("omen-part-00000001"),
            "{content_type}"
        );
    }
}
