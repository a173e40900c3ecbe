//! Who may see a roll, and the log as each viewer may see it.
//!
//! A roll is public, private (the roller and the game master), blind (the game master only; the
//! roller sees that it happened) or self (the roller only), as Foundry VTT offers them. A hidden roll
//! is in the chain from the moment it is made: its content (inputs, seed and its proof, dice, result,
//! states and summary) is committed by the SHA-256 of the content and a random 256-bit salt, and the
//! entry's hash covers the commitment instead of the content, so the chain verifies for everyone
//! without it. The game master reveals it later with a logged `reveal` entry that gives the salt,
//! after which anyone can check the content against the commitment.
//!
//! [`Store::log_for`] lists the log as a [`Viewer`] may see it: an entry the viewer may not see keeps
//! its place, time, character, action, visibility, commitment, hash and signature, and loses all of
//! its content, replaced by the same fixed text whatever the roll was (no dice count, die size or
//! content size shows through). A non-game-master also loses what the rule set keeps for the game
//! master ([`omen_rules::GameMasterOnly`]) from every entry's action, sheet, states, result and odds.

use std::collections::HashSet;

use omen_rules::{GameMasterOnly, Part, View};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::StoreError;
use crate::log::{self, Chain, Draft, LogEntry};
use crate::members::{Member, Role};
use crate::store::{LogFilter, Store, campaign_id};

/// Who may see a roll.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Everyone.
    #[default]
    Public,
    /// The roller and the game master.
    Private,
    /// The game master only; the roller sees that a roll happened.
    Blind,
    /// The roller only.
    #[serde(rename = "self")]
    SelfOnly,
}

impl Visibility {
    pub const ALL: [Visibility; 4] = [
        Visibility::Public,
        Visibility::Private,
        Visibility::Blind,
        Visibility::SelfOnly,
    ];

    /// `public`, `private`, `blind` or `self`.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Private => "private",
            Visibility::Blind => "blind",
            Visibility::SelfOnly => "self",
        }
    }

    pub fn is_public(&self) -> bool {
        *self == Visibility::Public
    }
}

impl std::fmt::Display for Visibility {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Visibility {
    type Err = StoreError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Visibility::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| {
                StoreError::Invalid(format!(
                    "`{text}` is not a visibility; choose public, private, blind or self"
                ))
            })
    }
}

/// Who makes an entry: the game master, or the member an invite let in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Actor {
    GameMaster,
    /// A member, by invite number.
    Member(i64),
}

impl Actor {
    /// `gm` or `member:ID`: how an entry records its actor.
    pub fn as_text(&self) -> String {
        match self {
            Actor::GameMaster => "gm".to_string(),
            Actor::Member(id) => format!("member:{id}"),
        }
    }

    /// The actor of a member.
    pub fn of(member: &Member) -> Actor {
        Actor::Member(member.invite_id)
    }
}

/// How an action or a roll is logged: who may see it and who made it. The default is a public entry
/// with no actor recorded, as [`Store::act`] and [`Store::roll`] write.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryOptions {
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default)]
    pub actor: Option<Actor>,
}

impl EntryOptions {
    pub fn new(visibility: Visibility, actor: Option<Actor>) -> Self {
        EntryOptions { visibility, actor }
    }

    pub(crate) fn apply(&self, draft: &mut Draft) {
        draft.visibility = self.visibility;
        draft.actor = self.actor.as_ref().map(Actor::as_text);
    }
}

/// Who is looking at the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Viewer {
    /// The game master at the database: everything but others' self-only rolls.
    GameMaster,
    /// A member, as [`Store::authenticate`] let them in (a game-master member sees what the game
    /// master sees).
    Member(Member),
}

impl Viewer {
    fn is_game_master(&self) -> bool {
        match self {
            Viewer::GameMaster => true,
            Viewer::Member(member) => member.role == Role::GameMaster,
        }
    }

    fn actor(&self) -> String {
        match self {
            Viewer::GameMaster => Actor::GameMaster.as_text(),
            Viewer::Member(member) => Actor::of(member).as_text(),
        }
    }
}

/// What a viewer needs to decide, entry by entry: the characters it owns (by identity) and the
/// entries revealed so far (by campaign identity and number).
struct Sight {
    game_master: bool,
    actor: String,
    owned: HashSet<String>,
    revealed: HashSet<(Option<String>, u64)>,
}

fn revealed_entries(conn: &Connection) -> Result<HashSet<(Option<String>, u64)>, StoreError> {
    let mut statement = conn.prepare(
        "SELECT l.campaign_uid, l.inputs FROM roll_log AS l WHERE l.action = 'reveal' AND l.version >= 2",
    )?;
    let rows = statement
        .query_map([], |row| {
            Ok((row.get::<_, Option<String>>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows
        .into_iter()
        .filter_map(|(uid, inputs)| {
            let inputs: Value = serde_json::from_str(&inputs).ok()?;
            (inputs.get("kind")? == "reveal")
                .then(|| Some((uid, inputs.get("sequence")?.as_u64()?)))
                .flatten()
        })
        .collect())
}

fn owned_characters(conn: &Connection, viewer: &Viewer) -> Result<HashSet<String>, StoreError> {
    let Viewer::Member(member) = viewer else {
        return Ok(HashSet::new());
    };
    let id = campaign_id(conn, &member.campaign)?;
    let mut owned = HashSet::new();
    for name in &member.characters {
        let uid: Option<Option<String>> = conn
            .query_row(
                "SELECT uid FROM character WHERE campaign_id = ?1 AND name = ?2",
                params![id, name],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(Some(uid)) = uid {
            owned.insert(uid);
        }
    }
    Ok(owned)
}

/// The fixed text of a hidden entry a viewer may not see: the same for every roll of its kind.
fn hidden_summary(visibility: Visibility) -> String {
    match visibility {
        Visibility::Blind => "a blind roll: only the game master sees it until it is revealed",
        Visibility::Private => {
            "a private roll: only the roller and the game master see it until it is revealed"
        }
        Visibility::SelfOnly => "a self roll: only the roller sees it until it is revealed",
        Visibility::Public => "an entry hidden from this view",
    }
    .to_string()
}

fn rules_of(rule_set: Option<&str>) -> &'static GameMasterOnly {
    rule_set
        .and_then(omen_rules::find)
        .map_or(&const { GameMasterOnly::NOTHING }, |rules| {
            rules.game_master_only()
        })
}

/// Removes from `entry` what its rule set keeps for the game master; marks it redacted when anything
/// was removed.
fn without_game_master_fields(mut entry: LogEntry) -> LogEntry {
    let before = serde_json::to_value(&entry).ok();
    let view = View::Player;
    let kind = entry
        .inputs
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let rule_set = entry
        .inputs
        .get("rule_set")
        .and_then(Value::as_str)
        .map(str::to_string);
    let hidden = rules_of(rule_set.as_deref());
    let show = |part: Part, value: &Value| hidden.show(view, part, value);
    match kind.as_str() {
        "action" => {
            if let Some(action) = entry.inputs.get_mut("action") {
                *action = show(Part::Action, action);
            }
            entry.summary = hidden.summary(view, &entry.action, &entry.result, &entry.summary);
            entry.result = show(Part::Result, &entry.result);
            if let Some(odds) = entry.result.get_mut("odds") {
                *odds = show(Part::Odds, odds);
            }
        }
        "create" => {
            if let Some(sheet) = entry.inputs.get_mut("sheet") {
                *sheet = show(Part::Sheet, sheet);
            }
        }
        "edit" => {
            if let Some(state) = entry.inputs.get_mut("state") {
                *state = show(Part::State, state);
            }
        }
        "migrate" | "import" => {
            if let Some(characters) = entry
                .inputs
                .get_mut("characters")
                .and_then(Value::as_array_mut)
            {
                for character in characters {
                    let hidden = rules_of(character.get("rule_set").and_then(Value::as_str));
                    if let Some(state) = character.get_mut("state") {
                        *state = hidden.show(view, Part::State, state);
                    }
                }
            }
        }
        _ => {}
    }
    entry.state_before = entry.state_before.map(|s| show(Part::State, &s));
    entry.state_after = entry.state_after.map(|s| show(Part::State, &s));
    if serde_json::to_value(&entry).ok() != before {
        entry.redacted = true;
    }
    entry
}

impl Sight {
    fn see(&self, entry: LogEntry) -> LogEntry {
        let revealed = self
            .revealed
            .contains(&(entry.campaign_uid.clone(), entry.sequence));
        let roller = entry.actor.as_deref() == Some(self.actor.as_str())
            || entry
                .character_uid
                .as_ref()
                .is_some_and(|uid| self.owned.contains(uid));
        let visible = revealed
            || match entry.visibility {
                Visibility::Public => true,
                Visibility::Private => self.game_master || roller,
                Visibility::Blind => self.game_master,
                Visibility::SelfOnly => roller,
            };
        let mut entry = entry;
        if !visible {
            // Everything the commitment covers goes, replaced by the same text for every roll.
            entry.inputs = json!({ "kind": "hidden" });
            entry.seed = None;
            entry.seed_proof = None;
            entry.dice_given = false;
            entry.dice = Vec::new();
            entry.result = Value::Null;
            entry.state_before = None;
            entry.state_after = None;
            entry.summary = hidden_summary(entry.visibility);
            entry.salt = None;
            entry.redacted = true;
            return entry;
        }
        if !revealed && !self.game_master {
            // Only a reveal gives the salt out: with it and the content, the small space of outcomes
            // could be tried against the commitment by anyone the roller shows the entry to.
            entry.salt = None;
        }
        if self.game_master {
            entry
        } else {
            without_game_master_fields(entry)
        }
    }
}

impl Store {
    fn sight(&self, viewer: &Viewer) -> Result<Sight, StoreError> {
        self.read(|conn| {
            Ok(Sight {
                game_master: viewer.is_game_master(),
                actor: viewer.actor(),
                owned: owned_characters(conn, viewer)?,
                revealed: revealed_entries(conn)?,
            })
        })
    }

    /// The log entries `filter` selects, as `viewer` may see them (see the module's documentation).
    /// A member sees only their own campaign's log, whatever the filter names.
    ///
    /// # Errors
    /// As [`Store::log`].
    pub fn log_for(
        &self,
        filter: &LogFilter,
        viewer: &Viewer,
    ) -> Result<Vec<LogEntry>, StoreError> {
        let mut filter = filter.clone();
        if let Viewer::Member(member) = viewer {
            filter.campaign = Some(member.campaign.clone());
        }
        let sight = self.sight(viewer)?;
        Ok(self
            .log(&filter)?
            .into_iter()
            .map(|entry| sight.see(entry))
            .collect())
    }

    /// One entry (as an action or a roll returned it) as `viewer` may see it: what a server answers
    /// the member who made it.
    ///
    /// # Errors
    /// SQLite's errors; [`StoreError::NotFound`] for a member's campaign that is gone.
    pub fn entry_for(&self, entry: LogEntry, viewer: &Viewer) -> Result<LogEntry, StoreError> {
        Ok(self.sight(viewer)?.see(entry))
    }

    /// Reveals hidden entry `sequence` of `campaign`: a logged game-master entry that gives the salt
    /// of its commitment, after which everyone sees the entry and can check its content against the
    /// commitment it was logged with. Returns the `reveal` entry.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown campaign or entry, [`StoreError::Invalid`] for an entry
    /// that is not hidden or was revealed already.
    pub fn reveal(&mut self, campaign: &str, sequence: u64) -> Result<LogEntry, StoreError> {
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let raw = log::raw_entries(conn, chain.campaign_id)?;
            let mut target = None;
            for raw in raw {
                let character_id = raw.character_id;
                let entry = raw
                    .parse()
                    .map_err(|problem| StoreError::Corrupt(format!("a log entry: {problem}")))?;
                if log::revealed_sequence(&entry) == Some(sequence) {
                    return Err(StoreError::Invalid(format!(
                        "entry {sequence} of `{campaign}` was revealed already, by entry {}",
                        entry.sequence
                    )));
                }
                if entry.sequence == sequence {
                    target = Some((entry, character_id));
                }
            }
            let Some((target, character_id)) = target else {
                return Err(StoreError::Invalid(format!(
                    "`{campaign}` has no entry {sequence}; `omen log` lists them"
                )));
            };
            let (Some(commitment), Some(salt)) = (&target.commitment, &target.salt) else {
                return Err(StoreError::Invalid(format!(
                    "entry {sequence} of `{campaign}` is {}, not hidden: there is nothing to reveal",
                    target.visibility
                )));
            };
            // Linked to the character when it is still there, under its name now.
            let character: Option<String> = match character_id {
                Some(id) => conn
                    .query_row("SELECT name FROM character WHERE id = ?1", [id], |row| {
                        row.get(0)
                    })
                    .optional()?,
                None => None,
            };
            let mut draft = Draft::plain(
                character_id.filter(|_| character.is_some()),
                target.character_uid.clone().filter(|_| character.is_some()),
                character,
                "reveal",
                json!({
                    "kind": "reveal",
                    "sequence": sequence,
                    "visibility": target.visibility,
                    "commitment": commitment,
                    "salt": salt,
                }),
                format!("revealed {} entry {sequence}", target.visibility),
            );
            draft.actor = Some(Actor::GameMaster.as_text());
            chain.append(conn, draft)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibilities_read_and_write_the_same_names() {
        for visibility in Visibility::ALL {
            assert_eq!(
                visibility.as_str().parse::<Visibility>().unwrap(),
                visibility
            );
            assert_eq!(
                serde_json::to_value(visibility).unwrap(),
                json!(visibility.as_str())
            );
        }
        assert!("secret".parse::<Visibility>().is_err());
    }
}
