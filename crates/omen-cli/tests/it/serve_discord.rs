//! `omen serve` with Discord's flags: the binary a group runs answers Discord's signed PING on the
//! interactions endpoint it prints, and refuses a bad signature and a replayed interaction, so the
//! flags reach the gate the server's own tests check in process.

use std::io::BufRead;
use std::process::Stdio;
use std::time::{SystemTime, UNIX_EPOCH};

use ed25519_dalek::{Signer, SigningKey};

use crate::scratch_dir;
use crate::serve::{request_with_headers, spawn_server, terminate};

/// Bytes in lowercase hex, as Discord writes keys and signatures.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Sends `body` to the interactions endpoint with Discord's two headers: a signature (hex) of the
/// timestamp followed by `signed_body`, and the timestamp. Returns the whole answer.
fn interaction(address: &str, key: &SigningKey, body: &str, signed_body: &str) -> String {
    let timestamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        .to_string();
    let signature = key.sign(format!("{timestamp}{signed_body}").as_bytes());
    let headers = format!(
        "x-signature-ed25519: {}\r\nx-signature-timestamp: {timestamp}\r\n",
        hex(&signature.to_bytes())
    );
    request_with_headers(address, "POST", "/discord/interactions", &headers, body)
}

#[cfg(unix)]
#[test]
fn serve_with_discords_flags_answers_a_signed_ping_and_refuses_a_forged_or_replayed_one() {
    let dir = scratch_dir("serve_discord");
    let key = SigningKey::from_bytes(&[7; 32]);
    let public = hex(&key.verifying_key().to_bytes());
    let (db, server_key) = (dir.join("omen.db"), dir.join("omen.key"));
    let (mut server, mut stdout, address) = spawn_server(
        &[
            "--db".as_ref(),
            db.as_os_str(),
            "--key".as_ref(),
            server_key.as_os_str(),
            "--discord-public-key".as_ref(),
            public.as_ref(),
            "--discord-application-id".as_ref(),
            "1234".as_ref(),
            // Never reached: a PING is answered in the reply itself.
            "--discord-api-base".as_ref(),
            "http://127.0.0.1:9/api/v10".as_ref(),
        ],
        Stdio::null(),
    );
    // The endpoint's address is printed for the developer portal.
    let mut printed = String::new();
    for _ in 0..12 {
        if stdout.read_line(&mut printed).unwrap() == 0 {
            break;
        }
        if printed.contains("/discord/interactions") {
            break;
        }
    }
    assert!(
        printed.contains(&format!("Discord: http://{address}/discord/interactions")),
        "{printed}"
    );
    let ping = r#"{"id":"900001","type":1,"application_id":"1234","token":"t","version":1}"#;
    let answered = interaction(&address, &key, ping, ping);
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
    assert!(answered.ends_with(r#"{"type":1}"#), "{answered}");
    // The same interaction sent again, even with a fresh valid signature, is a replay.
    let replayed = interaction(&address, &key, ping, ping);
    assert!(replayed.starts_with("HTTP/1.1 401"), "{replayed}");
    // A signature over another body does not sign this one.
    let other = r#"{"id":"900002","type":1,"application_id":"1234","token":"t","version":1}"#;
    let forged = interaction(&address, &key, other, ping);
    assert!(forged.starts_with("HTTP/1.1 401"), "{forged}");
    // The same body signed by another key.
    let stranger = SigningKey::from_bytes(&[8; 32]);
    let foreign = interaction(&address, &stranger, other, other);
    assert!(foreign.starts_with("HTTP/1.1 401"), "{foreign}");
    assert!(terminate(&mut server).success());
}
