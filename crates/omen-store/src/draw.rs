//! Dice no one can foresee or choose: the commit–reveal draw behind every seeded entry (version 4).
//!
//! Before each entry, a campaign holds a *pending draw*: a random nonce, from which the key derives
//! the draw's secret, and its commitment (the SHA-256 of the secret), which anyone may read before
//! they ask for anything. A request brings entropy of its own (the page and the API's clients send
//! fresh random bytes by default; a request without any gets the server's). The entry's seed is
//! the SHA-256 of the campaign, the entry's place in the chain, the secret, the entropy and the
//! request itself, so:
//! - no caller can foresee a roll: the secret is unknown until the entry that uses it is written;
//! - the key's holder cannot choose one: the secret was fixed by the commitment before the
//!   caller's entropy arrived (a caller who names the commitment it saw is refused if it moved);
//! - two different requests at one place draw unrelated dice, and a request refused after it drew
//!   dice is logged (see [`crate::Store::submit_roll`]), so a refusal never previews a roll.
//!
//! Each entry records the commitment it took and the next one, and (in its content, hidden with
//! it when the entry is hidden) the secret and the entropy: after the entry is shown, anyone checks
//! `SHA-256(secret) = commitment` and recomputes the seed, and with it every die.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::db::{Conn, params};
use crate::error::StoreError;
use crate::key::{self, Key};

/// Who gave an entry's entropy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntropyFrom {
    /// The request brought it: the caller knows the roll was not chosen for them.
    Caller,
    /// The request brought none, so the server drew it: a caller then trusts the server not to have
    /// tried entropies until a roll suited it.
    Server,
}

/// The revealed half of an entry's draw: its secret and the entropy it was mixed with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draw {
    /// 64 hex digits; its SHA-256 (of the hex text) is the entry's `draw_commitment`.
    pub secret: String,
    pub entropy: String,
    pub entropy_from: EntropyFrom,
}

/// The most characters a caller's entropy may have.
pub const MAX_ENTROPY: usize = 128;

/// The fewest: less could be guessed, though a guess would not foresee a roll without the secret.
pub const MIN_ENTROPY: usize = 8;

/// Checks a caller's entropy: 8 to 128 visible ASCII characters (hex or base64 from a random
/// source is what clients send).
///
/// # Errors
/// [`StoreError::Invalid`] naming what is wrong.
pub fn check_entropy(entropy: &str) -> Result<(), StoreError> {
    let length = entropy.chars().count();
    if !(MIN_ENTROPY..=MAX_ENTROPY).contains(&length)
        || !entropy.bytes().all(|b| b.is_ascii_graphic())
    {
        return Err(StoreError::Invalid(format!(
            "the entropy must be {MIN_ENTROPY} to {MAX_ENTROPY} visible ASCII characters (this has {length}); send fresh random bytes in hex, e.g. 32 bytes as 64 hex digits"
        )));
    }
    Ok(())
}

/// The commitment to a secret: SHA-256, in lower-case hex, of the secret's hex text. By hand:
/// `printf %s SECRET | sha256sum`.
pub fn commitment_of(secret: &str) -> String {
    key::hex(&Sha256::digest(secret.as_bytes()))
}

/// The seed an entry's draw gives: the first eight bytes (big-endian) of the SHA-256 of the text
/// `omen-draw-v1\n{campaign uid}\n{sequence}\n{previous hash}\n{secret}\n{entropy}\n{request}`,
/// where `request` is the SHA-256 (hex) of the compact JSON `[action, character uid, visibility,
/// actor, inputs]` (objects with sorted keys): what the request asked, so two requests at one place
/// draw unrelated dice.
pub fn seed(
    campaign_uid: &str,
    sequence: u64,
    previous_hash: &str,
    draw: &Draw,
    request: &Value,
) -> u64 {
    let request = key::hex(&Sha256::digest(request.to_string().as_bytes()));
    let text = format!(
        "omen-draw-v1\n{campaign_uid}\n{sequence}\n{previous_hash}\n{}\n{}\n{request}",
        draw.secret, draw.entropy
    );
    let digest = Sha256::digest(text.as_bytes());
    u64::from_be_bytes(digest[..8].try_into().expect("eight bytes"))
}

/// What a request asks, as its seed binds it: see [`seed`].
pub(crate) fn request(
    action: &str,
    character_uid: Option<&str>,
    visibility: &str,
    actor: Option<&str>,
    inputs: &Value,
) -> Value {
    json!([action, character_uid, visibility, actor, inputs])
}

/// A campaign's pending draw: the nonce its secret comes from and the commitment published for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pending {
    pub sequence: u64,
    pub nonce: String,
    pub commitment: String,
}

/// The secret of the draw at `sequence` with `nonce`: the SHA-256 of the key's signature of them, so
/// whoever writes the database but lacks the key cannot compute it, and the nonce (random, new for
/// each entry) keeps it unknown to everyone until the entry is written.
pub(crate) fn secret(key: &Key, campaign_uid: &str, sequence: u64, nonce: &str) -> String {
    let signature =
        key.sign(format!("omen-draw-secret-v1\n{campaign_uid}\n{sequence}\n{nonce}").as_bytes());
    key::hex(&Sha256::digest(signature.as_bytes()))
}

impl Pending {
    /// A new pending draw for `sequence`.
    pub(crate) fn new(key: &Key, campaign_uid: &str, sequence: u64) -> Result<Self, StoreError> {
        let nonce = key::hex(&key::random::<32>()?);
        let commitment = commitment_of(&secret(key, campaign_uid, sequence, &nonce));
        Ok(Pending {
            sequence,
            nonce,
            commitment,
        })
    }

    /// The draw this pending one gives with `entropy` (the server's when `None`).
    pub(crate) fn draw(
        &self,
        key: &Key,
        campaign_uid: &str,
        entropy: Option<&str>,
    ) -> Result<Draw, StoreError> {
        let (entropy, entropy_from) = match entropy {
            Some(entropy) => {
                check_entropy(entropy)?;
                (entropy.to_string(), EntropyFrom::Caller)
            }
            None => (key::hex(&key::random::<32>()?), EntropyFrom::Server),
        };
        Ok(Draw {
            secret: secret(key, campaign_uid, self.sequence, &self.nonce),
            entropy,
            entropy_from,
        })
    }
}

/// The pending draw stored for `campaign_id`, if any.
pub(crate) fn stored(conn: &Conn<'_>, campaign_id: i64) -> Result<Option<Pending>, StoreError> {
    conn.query_opt(
        "SELECT sequence, nonce, commitment FROM draw_pending WHERE campaign_id = ?1",
        params![campaign_id],
        |row| {
            Ok(Pending {
                sequence: row.get::<i64>(0)?.max(0) as u64,
                nonce: row.get(1)?,
                commitment: row.get(2)?,
            })
        },
    )
}

/// Stores `pending` as the campaign's pending draw, in place of the one before.
pub(crate) fn store(
    conn: &Conn<'_>,
    campaign_id: i64,
    pending: &Pending,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO draw_pending (campaign_id, sequence, nonce, commitment) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (campaign_id) DO UPDATE SET sequence = excluded.sequence,
             nonce = excluded.nonce, commitment = excluded.commitment",
        params![
            campaign_id,
            pending.sequence as i64,
            pending.nonce,
            pending.commitment
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(secret: &str, entropy: &str) -> Draw {
        Draw {
            secret: secret.to_string(),
            entropy: entropy.to_string(),
            entropy_from: EntropyFrom::Caller,
        }
    }

    #[test]
    fn the_commitment_is_the_sha256_of_the_secrets_hex_text() {
        // printf %s abc | sha256sum
        assert_eq!(
            commitment_of("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_seed_is_the_first_eight_bytes_of_the_sha256_of_its_text() {
        let request = json!(["expression", null, "public", null, {"expression": "d6"}]);
        let request_digest = key::hex(&Sha256::digest(request.to_string().as_bytes()));
        let text = format!("omen-draw-v1\nc\n3\nab\ns\ne\n{request_digest}");
        let digest = Sha256::digest(text.as_bytes());
        let expected = u64::from_be_bytes(digest[..8].try_into().unwrap());
        assert_eq!(seed("c", 3, "ab", &draw("s", "e"), &request), expected);
    }

    #[test]
    fn every_part_of_a_draw_changes_the_seed() {
        let request = json!(["expression", null, "public", null, {"expression": "d6"}]);
        let base = seed("c", 3, "ab", &draw("s", "e"), &request);
        assert_ne!(base, seed("c", 3, "ab", &draw("s", "f"), &request));
        assert_ne!(base, seed("c", 3, "ab", &draw("t", "e"), &request));
        assert_ne!(base, seed("c", 4, "ab", &draw("s", "e"), &request));
        assert_ne!(
            base,
            seed(
                "c",
                3,
                "ab",
                &draw("s", "e"),
                &json!(["expression", null, "public", null, {"expression": "d8"}])
            )
        );
    }

    #[test]
    fn a_pending_draw_keeps_its_secret_and_opens_its_commitment() {
        let key = Key::generate().unwrap();
        let pending = Pending::new(&key, "c", 7).unwrap();
        let first = pending.draw(&key, "c", Some("0123456789abcdef")).unwrap();
        assert_eq!(commitment_of(&first.secret), pending.commitment);
        assert_eq!(first.entropy_from, EntropyFrom::Caller);
        let server = pending.draw(&key, "c", None).unwrap();
        assert_eq!(server.secret, first.secret);
        assert_eq!(server.entropy_from, EntropyFrom::Server);
        assert_eq!(server.entropy.len(), 64);
        assert_ne!(
            Pending::new(&key, "c", 7).unwrap().commitment,
            pending.commitment
        );
    }

    #[test]
    fn entropy_is_checked() {
        assert!(check_entropy("0123456789abcdef").is_ok());
        assert!(check_entropy("short").is_err());
        assert!(check_entropy("with a space").is_err());
        assert!(check_entropy(&"a".repeat(MAX_ENTROPY + 1)).is_err());
    }
}
