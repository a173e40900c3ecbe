//! The roller's part in a Discord roll's draw, as the API's clients and the table page take theirs
//! (the README's trust model): the draw's secret is committed before any request arrives, so no
//! roller can foresee it; the roller's own `entropy` is mixed in after, so the server, which knows
//! the secret, did not choose the roll either; and the `commitment` the roller read (`/log` ends
//! with the next one) makes sure no entry took that draw first. A command without entropy takes the
//! server's, and the entry says so, as an API request without entropy does. A button (Again) carries
//! nothing typed, so it always takes the server's.
//!
//! `/verify entry:N` then shows one entry's draw as its viewer may see it, with the checks a member
//! can repeat by hand.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::interaction::{CommandOption, text};
use super::render::code;

/// What the roller brings to the draw: both optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RollerDraw {
    pub entropy: Option<String>,
    pub commitment: Option<String>,
}

impl RollerDraw {
    /// The `entropy` and `commitment` options, as typed, checked as the store checks them: the
    /// API withholds the words of a refusal from a player, so the face says what is wrong before
    /// anything is asked. A commitment is compared in lower case, as it is published.
    pub(crate) fn from_options(options: &[CommandOption]) -> Result<Self, String> {
        let entropy = text(options, "entropy");
        if let Some(entropy) = &entropy {
            omen_store::draw::check_entropy(entropy).map_err(|e| e.to_string())?;
        }
        let commitment = text(options, "commitment").map(|c| c.trim().to_ascii_lowercase());
        if let Some(commitment) = &commitment
            && (commitment.len() != 64 || !commitment.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return Err(
                "the commitment is 64 hex digits, as `/log` shows the next draw's".to_string(),
            );
        }
        Ok(RollerDraw {
            entropy,
            commitment,
        })
    }
}

/// A Discord hint after the API's refusal of kind `kind`: the API's own names `omen log head`.
pub(crate) fn hint(kind: &str) -> Option<&'static str> {
    (kind == "moved-on").then_some(
        "`/log` shows the next draw's commitment: roll again naming that one, with fresh entropy",
    )
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One entry's draw as its viewer sees it, and what can be checked of it: that the entry before it
/// published the commitment it took, that its secret opens that commitment (by hand: `printf %s
/// SECRET | sha256sum`), whose entropy it was, and whether the log's verification (which
/// recomputes the seed from the draw and the request) found a problem with it.
pub(crate) fn draw_check(entry: &Value, before: Option<&Value>, verifies: bool) -> String {
    let sequence = entry["sequence"].as_u64().unwrap_or_default();
    let Some(commitment) = entry["draw_commitment"].as_str() else {
        return format!("Entry {sequence} took no draw (it rolled no dice, or predates draws).");
    };
    let mut lines = vec![format!("Entry {sequence} took draw {}.", code(commitment))];
    match before.and_then(|b| b["next_draw_commitment"].as_str()) {
        Some(published) if published == commitment => lines.push(format!(
            "✓ entry {} published it before anyone asked for entry {sequence}.",
            sequence.saturating_sub(1)
        )),
        Some(published) => lines.push(format!(
            "✗ entry {} published {} instead.",
            sequence.saturating_sub(1),
            code(published)
        )),
        None if sequence == 1 => lines.push("It is the log's first entry.".to_string()),
        None => {}
    }
    let draw = &entry["draw"];
    match (draw["secret"].as_str(), draw["entropy"].as_str()) {
        (Some(secret), Some(entropy)) => {
            let opens = sha256_hex(secret) == commitment;
            let mark = if opens { "✓" } else { "✗" };
            lines.push(format!(
                "{mark} its secret {} {} the commitment (`printf %s SECRET | sha256sum`).",
                code(secret),
                if opens { "opens" } else { "does not open" }
            ));
            let whose = match draw["entropy_from"].as_str() {
                Some("caller") => "the roller's own: the server did not choose this roll",
                _ => "the server's: the roller gave none",
            };
            lines.push(format!("Entropy {} — {whose}.", code(entropy)));
            if let Some(seed) = entry["seed"].as_u64() {
                lines.push(format!(
                    "Seed {seed}: `--seed {seed}` draws the same dice, in order."
                ));
            }
        }
        // A sealed entry's seed binds its whole request, the game master's values included: with
        // the secret and the entropy, guesses of those values could be tested against the seed,
        // so the store keeps the draw with them.
        _ if entry["sealed"] == true => lines.push(
            "Its secret and entropy are kept with the part of it the rule set keeps for the game master: the log's verification checks them."
                .to_string(),
        ),
        _ => lines.push(
            "Its secret and entropy are hidden with its content until the game master reveals it."
                .to_string(),
        ),
    }
    lines.push(if verifies {
        format!("✓ the log's verification recomputes entry {sequence}'s seed from its draw and finds nothing wrong.")
    } else {
        format!("✗ the log's verification finds a problem with entry {sequence}.")
    });
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn typed(name: &str, value: &str) -> CommandOption {
        CommandOption {
            name: name.to_string(),
            kind: 3,
            value: Some(json!(value)),
            options: Vec::new(),
            focused: false,
        }
    }

    #[test]
    fn entropy_and_a_commitment_are_checked_before_anything_is_asked() {
        let upper = ABC.to_uppercase();
        let draw =
            RollerDraw::from_options(&[typed("entropy", "eight-ch"), typed("commitment", &upper)])
                .unwrap();
        assert_eq!(draw.entropy.as_deref(), Some("eight-ch"));
        assert_eq!(draw.commitment.as_deref(), Some(ABC));
        // Seven characters, a space, 129 characters: the store's bounds.
        for entropy in ["seven-c", "has space", &"x".repeat(129)] {
            let refused = RollerDraw::from_options(&[typed("entropy", entropy)]).unwrap_err();
            assert!(refused.contains("8 to 128"), "{refused}");
        }
        let refused = RollerDraw::from_options(&[typed("commitment", &ABC[1..])]).unwrap_err();
        assert!(refused.contains("64 hex digits"), "{refused}");
        assert_eq!(RollerDraw::from_options(&[]), Ok(RollerDraw::default()));
    }

    /// SHA-256 of the three bytes `abc` is the FIPS 180-2 example's digest.
    const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    #[test]
    fn a_revealed_draw_is_checked_against_the_commitment_before_it() {
        let before = json!({ "sequence": 4, "next_draw_commitment": ABC });
        let entry = json!({
            "sequence": 5, "draw_commitment": ABC, "seed": 17,
            "draw": { "secret": "abc", "entropy": "dice-for-ayla", "entropy_from": "caller" },
        });
        let text = draw_check(&entry, Some(&before), true);
        assert!(text.contains("✓ entry 4 published it"), "{text}");
        assert!(text.contains("`abc` opens the commitment"), "{text}");
        assert!(text.contains("the roller's own"), "{text}");
        assert!(!text.contains('✗'), "{text}");
        let forged = json!({
            "sequence": 5, "draw_commitment": ABC,
            "draw": { "secret": "abd", "entropy": "e", "entropy_from": "server" },
        });
        let text = draw_check(&forged, Some(&before), false);
        assert!(text.contains("does not open"), "{text}");
        assert!(text.contains("the server's"), "{text}");
    }

    #[test]
    fn a_hidden_or_sealed_draw_says_so() {
        let mut entry = json!({ "sequence": 2, "draw_commitment": ABC, "redacted": true });
        let text = draw_check(&entry, None, true);
        assert!(text.contains("hidden with its content"), "{text}");
        entry["sealed"] = json!(true);
        let text = draw_check(&entry, None, true);
        assert!(text.contains("kept with the part"), "{text}");
    }
}
