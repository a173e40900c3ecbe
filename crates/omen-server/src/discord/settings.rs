//! How the Discord face is configured: the application's public key and id, where Discord's API is,
//! and the bounds of the endpoint. Plain data, below everything that reads it (the server's
//! [`crate::Config`] holds one when the face is on).

use std::time::Duration;

/// Discord's API, as `omen serve` talks to it unless told another base (a test's stand-in).
pub const DEFAULT_API_BASE: &str = "https://discord.com/api/v10";

/// The Discord face of `omen serve`: on when the application's public key is given.
#[derive(Clone, Debug)]
pub struct DiscordConfig {
    /// The application's Ed25519 public key (the developer portal's "Public Key", 64 hex digits):
    /// every interaction must be signed by it.
    pub public_key: [u8; 32],
    /// The application's id: the webhook URLs of deferred answers name it.
    pub application_id: String,
    /// Discord's API base URL, without a trailing slash (default [`DEFAULT_API_BASE`]).
    pub api_base: String,
    /// How far an interaction's timestamp may be from the server's clock (default 5 minutes): an
    /// older signed request is a replay. Interaction ids seen within it are refused a second time.
    pub timestamp_window: Duration,
    /// Interactions one Discord user may send per minute (default 30), in bursts of a third.
    pub per_user_per_minute: u32,
    /// Interactions one Discord server (guild) may send per minute (default 300), in bursts of a
    /// third: one busy server cannot take the endpoint from the others.
    pub per_guild_per_minute: u32,
    /// Deferred answers being worked on at once (default 64); past it an interaction is answered
    /// at once that the server is busy.
    pub max_deferred: usize,
    /// The bot's token: with it, the dice of private and blind rolls are posted to the game
    /// master's channel a campaign names (`/omen gm-channel`). Without it they go to the roller
    /// alone (and the game master reads them in the log).
    pub bot_token: Option<BotToken>,
}

/// A bot token, kept out of `Debug` output (a configuration is logged at start).
#[derive(Clone)]
pub struct BotToken(String);

impl BotToken {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for BotToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BotToken(…)")
    }
}

impl DiscordConfig {
    /// The face for the application whose public key is `public_key` (hex) and id `application_id`,
    /// with the default bounds and Discord's own API.
    ///
    /// # Errors
    /// A key that is not 64 hex digits, an id that is not a Discord id (1 to 20 digits).
    pub fn new(public_key: &str, application_id: &str) -> Result<Self, String> {
        let public_key = parse_key(public_key.trim())?;
        let application_id = application_id.trim();
        if application_id.is_empty()
            || application_id.len() > 20
            || !application_id.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(
                "the Discord application id is 1 to 20 digits (the developer portal's \"Application ID\")"
                    .to_string(),
            );
        }
        Ok(DiscordConfig {
            public_key,
            application_id: application_id.to_string(),
            api_base: DEFAULT_API_BASE.to_string(),
            timestamp_window: Duration::from_secs(300),
            per_user_per_minute: 30,
            per_guild_per_minute: 300,
            max_deferred: 64,
            bot_token: None,
        })
    }

    /// The same face talking to the API at `base` (e.g. a local stand-in in tests).
    pub fn with_api_base(mut self, base: &str) -> Self {
        self.api_base = base.trim_end_matches('/').to_string();
        self
    }

    /// The same face posting to game masters' channels as the bot whose token is `token`.
    ///
    /// # Errors
    /// An empty token, or one with characters that cannot go in an HTTP header.
    pub fn with_bot_token(mut self, token: &str) -> Result<Self, String> {
        let token = token.trim();
        if token.is_empty() || token.len() > 200 || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(
                "the Discord bot token is the developer portal's \"Token\" (printable characters, no spaces)"
                    .to_string(),
            );
        }
        self.bot_token = Some(BotToken(token.to_string()));
        Ok(self)
    }
}

fn parse_key(hex: &str) -> Result<[u8; 32], String> {
    let refused = || {
        "the Discord public key is 64 hex digits (the developer portal's \"Public Key\")"
            .to_string()
    };
    // `from_str_radix` alone would take a sign (`+f`).
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(refused());
    }
    let mut key = [0u8; 32];
    for (byte, pair) in key.iter_mut().zip(hex.as_bytes().chunks(2)) {
        let text = std::str::from_utf8(pair).map_err(|_| refused())?;
        *byte = u8::from_str_radix(text, 16).map_err(|_| refused())?;
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_64_hex_digits_and_an_id_digits() {
        let key = "00".repeat(31) + "ff";
        let config = DiscordConfig::new(&key, "123").unwrap();
        assert_eq!(config.public_key[31], 0xff);
        assert_eq!(config.api_base, DEFAULT_API_BASE);
        assert!(DiscordConfig::new(&key[1..], "123").is_err());
        assert!(DiscordConfig::new(&("zz".repeat(32)), "123").is_err());
        assert!(DiscordConfig::new(&key, "12a").is_err());
        let local = config.with_api_base("http://127.0.0.1:9/api/");
        assert_eq!(local.api_base, "http://127.0.0.1:9/api");
        let bot = local.clone().with_bot_token(" secret.token ").unwrap();
        assert_eq!(bot.bot_token.as_ref().unwrap().expose(), "secret.token");
        assert!(!format!("{bot:?}").contains("secret"));
        assert!(local.clone().with_bot_token("two words").is_err());
        assert!(local.with_bot_token("").is_err());
    }
}
