//! Discord's interaction payloads as it documents them (only the fields Omen reads), and the
//! answers Omen gives: a message, a deferral, a pong. Plain data.

use serde::Deserialize;
use serde_json::{Value, json};

/// Interaction types.
pub(crate) const PING: u8 = 1;
pub(crate) const APPLICATION_COMMAND: u8 = 2;
pub(crate) const MESSAGE_COMPONENT: u8 = 3;
pub(crate) const AUTOCOMPLETE: u8 = 4;

/// Answer types.
const PONG: u8 = 1;
const CHANNEL_MESSAGE: u8 = 4;
const DEFERRED_CHANNEL_MESSAGE: u8 = 5;
const AUTOCOMPLETE_RESULT: u8 = 8;

/// Discord's most choices in an autocomplete answer, and longest choice name.
pub(crate) const MAX_CHOICES: usize = 25;
const MAX_CHOICE: usize = 100;

/// A message only its recipient sees.
pub(crate) const EPHEMERAL: u64 = 1 << 6;

/// Discord's longest message content.
const MAX_CONTENT: usize = 2000;

/// An interaction, as Discord sends it.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Interaction {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: u8,
    #[serde(default)]
    pub data: Option<Data>,
    #[serde(default)]
    pub guild_id: Option<String>,
    #[serde(default)]
    pub channel_id: Option<String>,
    /// The invoking member, in a server.
    #[serde(default)]
    pub member: Option<GuildMember>,
    /// The invoking user, in a direct message.
    #[serde(default)]
    pub user: Option<User>,
    /// The token of the interaction's webhook (valid 15 minutes).
    #[serde(default)]
    pub token: String,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct GuildMember {
    pub user: User,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct User {
    pub id: String,
}

/// A command's or a component's data.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct Data {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub options: Vec<CommandOption>,
    #[serde(default)]
    pub custom_id: Option<String>,
}

/// One option given to a command; a subcommand holds its own options.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct CommandOption {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: u8,
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default)]
    pub options: Vec<CommandOption>,
    /// The option being typed, in an autocomplete interaction.
    #[serde(default)]
    pub focused: bool,
}

impl Interaction {
    /// The Discord user who acted.
    pub fn user_id(&self) -> Option<&str> {
        self.member
            .as_ref()
            .map(|m| m.user.id.as_str())
            .or(self.user.as_ref().map(|u| u.id.as_str()))
    }

    pub fn command_name(&self) -> &str {
        self.data
            .as_ref()
            .and_then(|d| d.name.as_deref())
            .unwrap_or_default()
    }

    /// The command's options, or its subcommand's name and options.
    pub fn options(&self) -> (Option<&str>, &[CommandOption]) {
        let options = self.data.as_ref().map_or(&[][..], |d| &d.options[..]);
        match options {
            // Types 1 and 2: a subcommand (or group) with its own options.
            [sub] if sub.kind == 1 || sub.kind == 2 => (Some(&sub.name), &sub.options),
            _ => (None, options),
        }
    }

    pub fn custom_id(&self) -> &str {
        self.data
            .as_ref()
            .and_then(|d| d.custom_id.as_deref())
            .unwrap_or_default()
    }
}

/// Option `name`'s value as text (numbers as written).
pub(crate) fn text(options: &[CommandOption], name: &str) -> Option<String> {
    let value = options.iter().find(|o| o.name == name)?.value.as_ref()?;
    match value {
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Option `name`'s value as JSON.
pub(crate) fn value<'a>(options: &'a [CommandOption], name: &str) -> Option<&'a Value> {
    options.iter().find(|o| o.name == name)?.value.as_ref()
}

/// An autocomplete answer: `names` as choices (at most [`MAX_CHOICES`]; a name longer than
/// Discord takes is left out rather than cut, since a cut name would name nothing).
pub(crate) fn choices(names: &[String]) -> Value {
    let choices: Vec<Value> = names
        .iter()
        .filter(|name| !name.is_empty() && name.chars().count() <= MAX_CHOICE)
        .take(MAX_CHOICES)
        .map(|name| json!({ "name": name, "value": name }))
        .collect();
    json!({ "type": AUTOCOMPLETE_RESULT, "data": { "choices": choices } })
}

pub(crate) fn pong() -> Value {
    json!({ "type": PONG })
}

/// A message's body: its content cut to Discord's length, mentions never pinging anyone (a name
/// or an expression could hold `@everyone`), and its buttons.
pub(crate) fn message(content: &str, ephemeral: bool, buttons: &[Value]) -> Value {
    let mut body = json!({
        "content": clip(content),
        "allowed_mentions": { "parse": [] },
    });
    if ephemeral {
        body["flags"] = json!(EPHEMERAL);
    }
    if !buttons.is_empty() {
        body["components"] = json!([{ "type": 1, "components": buttons }]);
    } else {
        body["components"] = json!([]);
    }
    body
}

/// An answer that is a message now.
pub(crate) fn reply(content: &str, ephemeral: bool) -> Value {
    json!({ "type": CHANNEL_MESSAGE, "data": message(content, ephemeral, &[]) })
}

/// An answer that promises a message (shown as "thinking…"), edited through the webhook later.
pub(crate) fn deferred(ephemeral: bool) -> Value {
    let flags = if ephemeral { EPHEMERAL } else { 0 };
    json!({ "type": DEFERRED_CHANNEL_MESSAGE, "data": { "flags": flags } })
}

/// A button that sends `custom_id` back (at most 100 characters, as Discord requires).
pub(crate) fn button(label: &str, custom_id: &str, primary: bool) -> Value {
    json!({
        "type": 2,
        "style": if primary { 1 } else { 2 },
        "label": label,
        "custom_id": custom_id.chars().take(100).collect::<String>(),
    })
}

fn clip(content: &str) -> String {
    if content.chars().count() <= MAX_CONTENT {
        return content.to_string();
    }
    let mut cut: String = content.chars().take(MAX_CONTENT - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subcommand_carries_its_own_options() {
        let interaction: Interaction = serde_json::from_value(json!({
            "id": "1", "type": 2, "token": "t",
            "member": { "user": { "id": "42" } },
            "data": { "name": "omen", "options": [
                { "name": "link", "type": 1, "options": [{ "name": "token", "type": 3, "value": "x" }] }
            ] }
        }))
        .unwrap();
        assert_eq!(interaction.user_id(), Some("42"));
        let (sub, options) = interaction.options();
        assert_eq!(sub, Some("link"));
        assert_eq!(text(options, "token").as_deref(), Some("x"));
    }

    #[test]
    fn a_long_message_is_cut_to_discords_length() {
        let body = message(&"x".repeat(5000), true, &[]);
        assert_eq!(body["content"].as_str().unwrap().chars().count(), 2000);
        assert_eq!(body["flags"], 64);
        assert_eq!(body["allowed_mentions"]["parse"], json!([]));
    }
}
