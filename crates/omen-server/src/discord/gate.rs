//! What an interaction passes before anything reads it: Discord's Ed25519 signature over the
//! timestamp and the raw body, a timestamp within the window, an id not seen before, and the rates
//! of its Discord user and server.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ed25519_dalek::{Signature, VerifyingKey};

use super::settings::DiscordConfig;

/// Interaction ids remembered at once: with a window of 5 minutes, more than 200 interactions a
/// second. Past it, new interactions are refused until old ids expire (the endpoint's memory stays
/// bounded whatever Discord, or a replayer, sends).
const MAX_REMEMBERED: usize = 65_536;

/// Rate buckets kept at once, per kind; full buckets are the first forgotten.
const MAX_BUCKETS: usize = 65_536;

/// Why an interaction is refused at the gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// No signature, or one the application's key did not make over this timestamp and body.
    Signature,
    /// A timestamp outside the window (or not a number): a request recorded and sent again later.
    Stale,
    /// An interaction id already answered.
    Replayed,
    /// Too many ids to remember: refused until old ones expire.
    Full,
}

/// A token bucket per key (a user, a server).
struct Buckets {
    per_second: f64,
    burst: f64,
    buckets: HashMap<String, (f64, Instant)>,
}

impl Buckets {
    fn new(per_minute: u32) -> Self {
        let per_minute = f64::from(per_minute.max(1));
        Buckets {
            per_second: per_minute / 60.0,
            burst: (per_minute / 3.0).max(1.0),
            buckets: HashMap::new(),
        }
    }

    /// Takes a token for `key`, or says how many seconds until one is there.
    fn take(&mut self, key: &str, now: Instant) -> Result<(), u64> {
        if self.buckets.len() >= MAX_BUCKETS && !self.buckets.contains_key(key) {
            let (per_second, burst) = (self.per_second, self.burst);
            self.buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * per_second < burst
            });
        }
        let (tokens, at) = self
            .buckets
            .entry(key.to_string())
            .or_insert((self.burst, now));
        *tokens =
            (*tokens + now.duration_since(*at).as_secs_f64() * self.per_second).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            return Ok(());
        }
        Err(((1.0 - *tokens) / self.per_second).ceil().max(1.0) as u64)
    }
}

/// The gate: the key, the window, the ids seen and the rates.
pub(crate) struct Gate {
    key: Option<VerifyingKey>,
    window: Duration,
    seen: Mutex<HashMap<String, Instant>>,
    users: Mutex<Buckets>,
    guilds: Mutex<Buckets>,
}

impl Gate {
    pub fn new(config: &DiscordConfig) -> Self {
        Gate {
            // A key that is not a point of the curve verifies nothing: every request is refused.
            key: VerifyingKey::from_bytes(&config.public_key).ok(),
            window: config.timestamp_window,
            seen: Mutex::default(),
            users: Mutex::new(Buckets::new(config.per_user_per_minute)),
            guilds: Mutex::new(Buckets::new(config.per_guild_per_minute)),
        }
    }

    /// Checks the signature of `body` sent at `timestamp` and that the timestamp is recent.
    pub fn check(
        &self,
        signature: Option<&[u8]>,
        timestamp: Option<&[u8]>,
        body: &[u8],
    ) -> Result<(), Refused> {
        let (Some(key), Some(signature), Some(timestamp)) = (self.key, signature, timestamp) else {
            return Err(Refused::Signature);
        };
        let signature = decode_signature(signature).ok_or(Refused::Signature)?;
        let mut signed = Vec::with_capacity(timestamp.len() + body.len());
        signed.extend_from_slice(timestamp);
        signed.extend_from_slice(body);
        key.verify_strict(&signed, &signature)
            .map_err(|_| Refused::Signature)?;
        // Checked after the signature: an unsigned request learns nothing about the clock.
        let sent: u64 = std::str::from_utf8(timestamp)
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or(Refused::Stale)?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        if now.abs_diff(sent) > self.window.as_secs() {
            return Err(Refused::Stale);
        }
        Ok(())
    }

    /// Remembers interaction `id`; refused if it was seen within the window. Only signed, recent
    /// interactions get here, so only Discord fills the memory.
    pub fn first_time(&self, id: &str) -> Result<(), Refused> {
        let now = Instant::now();
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        // An id is kept twice the window: a replay must also pass the timestamp check.
        let keep = self.window.saturating_mul(2);
        if seen.len() >= MAX_REMEMBERED {
            seen.retain(|_, at| now.duration_since(*at) < keep);
            if seen.len() >= MAX_REMEMBERED {
                return Err(Refused::Full);
            }
        }
        if seen.insert(id.to_string(), now).is_some() {
            return Err(Refused::Replayed);
        }
        Ok(())
    }

    /// Takes one interaction from the rates of `user` and `guild`, or says how many seconds to
    /// wait.
    pub fn allow(&self, guild: Option<&str>, user: &str) -> Result<(), u64> {
        let now = Instant::now();
        self.users
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take(user, now)?;
        if let Some(guild) = guild {
            self.guilds
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take(guild, now)?;
        }
        Ok(())
    }
}

fn decode_signature(hex: &[u8]) -> Option<Signature> {
    if hex.len() != 128 || !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let mut bytes = [0u8; 64];
    for (byte, pair) in bytes.iter_mut().zip(hex.chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(Signature::from_bytes(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer, SigningKey};

    fn gate() -> (Gate, SigningKey) {
        let signing = SigningKey::from_bytes(&[7; 32]);
        let hex: String = signing
            .verifying_key()
            .to_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let config = DiscordConfig::new(&hex, "1").unwrap();
        (Gate::new(&config), signing)
    }

    fn sign(key: &SigningKey, timestamp: &str, body: &str) -> String {
        let signature = key.sign(format!("{timestamp}{body}").as_bytes());
        signature
            .to_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn now() -> String {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs()
            .to_string()
    }

    #[test]
    fn only_the_signed_timestamp_and_body_pass() {
        let (gate, key) = gate();
        let at = now();
        let signature = sign(&key, &at, "{}");
        let check = |signature: &str, at: &str, body: &str| {
            gate.check(
                Some(signature.as_bytes()),
                Some(at.as_bytes()),
                body.as_bytes(),
            )
        };
        assert_eq!(check(&signature, &at, "{}"), Ok(()));
        assert_eq!(check(&signature, &at, "{} "), Err(Refused::Signature));
        assert_eq!(check(&signature, "1", "{}"), Err(Refused::Signature));
        assert_eq!(check("zz", &at, "{}"), Err(Refused::Signature));
        let old = (at.parse::<u64>().unwrap() - 301).to_string();
        assert_eq!(
            check(&sign(&key, &old, "{}"), &old, "{}"),
            Err(Refused::Stale)
        );
        assert_eq!(
            gate.check(None, Some(at.as_bytes()), b"{}"),
            Err(Refused::Signature)
        );
    }

    #[test]
    fn an_id_is_answered_once() {
        let (gate, _) = gate();
        assert_eq!(gate.first_time("9"), Ok(()));
        assert_eq!(gate.first_time("9"), Err(Refused::Replayed));
        assert_eq!(gate.first_time("10"), Ok(()));
    }

    #[test]
    fn a_user_past_their_burst_waits() {
        let (gate, _) = gate();
        // 30 a minute in bursts of 10: the eleventh at once waits 2 s for the next token.
        for _ in 0..10 {
            assert_eq!(gate.allow(Some("1"), "5"), Ok(()));
        }
        assert_eq!(gate.allow(Some("1"), "5"), Err(2));
        assert_eq!(gate.allow(Some("1"), "6"), Ok(()));
    }
}
