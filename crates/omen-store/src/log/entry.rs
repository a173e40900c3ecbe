//! One entry of the roll log and what is computed from it alone: its hash, its commitments, the
//! request its draw binds. Below the chain that writes entries and the checks that read them.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::audience::Visibility;
use crate::dice::RolledDie;
use crate::draw::{self, Draw};

/// One entry of a campaign's roll log: a roll, an action, or a change to a character.
///
/// `inputs` says what kind of entry it is (`"kind"`: `create`, `action`, `edit`, `rename`, `delete`
/// or `expression`) and holds everything needed to recompute it: the rule set and the action, the
/// expression and its parameters. `dice` holds every die rolled, seeded or not, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// 1, 2, 3, … within the campaign.
    pub sequence: u64,
    /// RFC 3339, UTC, milliseconds.
    pub time: String,
    /// The campaign's name when the entry was written.
    pub campaign: String,
    /// The character's name when the entry was written.
    pub character: Option<String>,
    /// The action's name (`roll`, `add-modifier`, …), or `create`, `edit`, `rename`, `delete`,
    /// `expression`.
    pub action: String,
    pub inputs: Value,
    pub seed: Option<u64>,
    pub dice: Vec<RolledDie>,
    pub result: Value,
    pub state_before: Option<Value>,
    pub state_after: Option<Value>,
    /// One line for people.
    pub summary: String,
    pub previous_hash: String,
    /// SHA-256 (hex) of the entry's canonical form: see [`LogEntry::compute_hash`].
    pub hash: String,
    /// 1 for entries written before logs were signed (hashed only), 2 for signed ones.
    #[serde(default = "version_one")]
    pub version: u32,
    /// The campaign's identity (its name may change).
    #[serde(default)]
    pub campaign_uid: Option<String>,
    /// The character's identity (its name may change).
    #[serde(default)]
    pub character_uid: Option<String>,
    /// The dice were entered by hand (`--dice`), not derived from the log: a replay of dice rolled
    /// elsewhere, marked as such.
    #[serde(default)]
    pub dice_given: bool,
    /// The key's signature of the entry's place in the chain; the seed is derived from it, so no one
    /// chooses a logged roll's seed.
    #[serde(default)]
    pub seed_proof: Option<String>,
    /// The Ed25519 public key (hex) that signs the entry.
    #[serde(default)]
    pub public_key: Option<String>,
    /// The signature (hex) of the hash by `public_key`.
    #[serde(default)]
    pub signature: Option<String>,
    /// Who may see the entry's content (version 3; public before).
    #[serde(default, skip_serializing_if = "Visibility::is_public")]
    pub visibility: Visibility,
    /// Who made the entry: `gm`, or `member:ID` (version 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// A hidden entry's commitment: SHA-256 (hex) of its content and `salt` (see
    /// [`LogEntry::compute_commitment`]). The entry's hash covers it instead of the content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// The random salt (256 bits, hex) of a hidden entry's commitment: the game master's until the
    /// entry is revealed, so a small space of outcomes cannot be tried one by one against the
    /// commitment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salt: Option<String>,
    /// Set on an entry as a viewer sees it ([`crate::Store::log_for`]) when something was withheld:
    /// a hidden entry's content (its commitment still checks the chain), or fields the rule set keeps
    /// for the game master (its hash then cannot be recomputed from what is shown).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
    /// The commitment of the draw the entry took (version 4): published, as the entry before named
    /// it, before any request for this entry arrived. See [`crate::draw`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_commitment: Option<String>,
    /// The commitment of the next entry's draw (version 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_draw_commitment: Option<String>,
    /// The draw's secret and the entropy it was mixed with (version 4 entries rolled with a seed):
    /// part of the content, so hidden with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<Draw>,
    /// When the rule set keeps part of the entry for the game master (version 4): SHA-256 (hex) of
    /// the full content and `gm_salt` (see [`LogEntry::compute_gm_commitment`]). The hash covers it
    /// and `player_view` instead of the full content, so a player checks the hash of what they see
    /// and has nothing to try guesses of the hidden part against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gm_commitment: Option<String>,
    /// The random salt (256 bits, hex) of `gm_commitment`: the game master's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gm_salt: Option<String>,
    /// The content as a player sees it, `[inputs, seed, dice_given, dice, result, state_before,
    /// state_after, summary, draw]`, when `gm_commitment` is set: the game master's copy keeps it
    /// so the hash can be recomputed; a player's copy holds it as its content instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_view: Option<Value>,
    /// Set on a viewer's copy of an entry part of which the rule set keeps for the game master
    /// (version 4, with `redacted`): what is shown is what the hash covers, so the viewer checks it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sealed: bool,
}

fn version_one() -> u32 {
    1
}

/// The format version of entries that record a visibility or an actor; plain public entries are
/// still written as version 2, so their form is unchanged.
pub(crate) const VISIBILITY_VERSION: u32 = 3;

/// The format version of entries that take a draw ([`crate::draw`]) and seal what the rule set keeps
/// for the game master: every entry written now.
pub(crate) const DRAW_VERSION: u32 = 4;

/// SHA-256, in lower-case hex, of `canonical` as compact JSON (objects with sorted keys): the form
/// of every hash and commitment of an entry.
fn sha256_hex(canonical: &Value) -> String {
    crate::key::hex(&Sha256::digest(canonical.to_string().as_bytes()))
}

impl LogEntry {
    /// SHA-256, in lower-case hex, of the compact JSON array `["omen-log-v2", sequence, previous_hash,
    /// time, campaign_uid, campaign, character_uid, character, action, inputs, seed, seed_proof,
    /// dice_given, dice, result, state_before, state_after, summary, public_key]` (version 1 entries:
    /// `["omen-log-v1", sequence, previous_hash, time, campaign, character, action, inputs, seed, dice,
    /// result, state_before, state_after, summary]`). Objects are written with their keys sorted, so
    /// the form does not depend on how the JSON was stored.
    pub fn compute_hash(&self) -> String {
        if self.version >= DRAW_VERSION {
            // A hidden entry's content is replaced by its commitment; the game master's part of it
            // by the game-master commitment.
            let content = match &self.commitment {
                Some(_) => Value::Null,
                None => self.shown_content(),
            };
            let canonical = json!([
                "omen-log-v4",
                self.sequence,
                self.previous_hash,
                self.time,
                self.campaign_uid,
                self.campaign,
                self.character_uid,
                self.character,
                self.action,
                self.visibility,
                self.actor,
                self.commitment,
                self.draw_commitment,
                self.next_draw_commitment,
                self.gm_commitment,
                content,
                self.public_key,
            ]);
            return sha256_hex(&canonical);
        }
        if self.version >= VISIBILITY_VERSION {
            // A hidden entry's content is replaced by its commitment.
            let content = match &self.commitment {
                Some(_) => Value::Null,
                None => self.content(),
            };
            let canonical = json!([
                "omen-log-v3",
                self.sequence,
                self.previous_hash,
                self.time,
                self.campaign_uid,
                self.campaign,
                self.character_uid,
                self.character,
                self.action,
                self.visibility,
                self.actor,
                self.commitment,
                content,
                self.public_key,
            ]);
            return sha256_hex(&canonical);
        }
        if self.version >= 2 {
            let canonical = json!([
                "omen-log-v2",
                self.sequence,
                self.previous_hash,
                self.time,
                self.campaign_uid,
                self.campaign,
                self.character_uid,
                self.character,
                self.action,
                self.inputs,
                self.seed,
                self.seed_proof,
                self.dice_given,
                self.dice,
                self.result,
                self.state_before,
                self.state_after,
                self.summary,
                self.public_key,
            ]);
            return sha256_hex(&canonical);
        }
        let canonical = json!([
            "omen-log-v1",
            self.sequence,
            self.previous_hash,
            self.time,
            self.campaign,
            self.character,
            self.action,
            self.inputs,
            self.seed,
            self.dice,
            self.result,
            self.state_before,
            self.state_after,
            self.summary,
        ]);
        sha256_hex(&canonical)
    }
}

impl LogEntry {
    /// What a hidden entry hides: `[inputs, seed, seed_proof, dice_given, dice, result, state_before,
    /// state_after, summary]`.
    pub(crate) fn content(&self) -> Value {
        if self.version >= DRAW_VERSION {
            return json!([
                self.inputs,
                self.seed,
                self.dice_given,
                self.dice,
                self.result,
                self.state_before,
                self.state_after,
                self.summary,
                self.draw,
            ]);
        }
        json!([
            self.inputs,
            self.seed,
            self.seed_proof,
            self.dice_given,
            self.dice,
            self.result,
            self.state_before,
            self.state_after,
            self.summary,
        ])
    }

    /// The commitment of the entry's content with `salt`: SHA-256, in lower-case hex, of the compact
    /// JSON `["omen-commit-v1", salt, [inputs, seed, seed_proof, dice_given, dice, result,
    /// state_before, state_after, summary]]` (objects with sorted keys). Anyone given the content and
    /// the salt (after a reveal) can recompute it and compare it with the commitment the chain holds.
    /// Version 4 entries commit `["omen-commit-v2", salt, content as a player sees it]` (see
    /// [`LogEntry::player_view`]).
    pub fn compute_commitment(&self, salt: &str) -> String {
        if self.version >= DRAW_VERSION {
            let canonical = json!(["omen-commit-v2", salt, self.shown_content()]);
            return sha256_hex(&canonical);
        }
        let canonical = json!(["omen-commit-v1", salt, self.content()]);
        sha256_hex(&canonical)
    }

    /// The commitment of the full content with the game master's salt: SHA-256, in lower-case hex,
    /// of the compact JSON `["omen-gm-v1", gm_salt, content]` (version 4).
    pub fn compute_gm_commitment(&self, gm_salt: &str) -> String {
        let canonical = json!(["omen-gm-v1", gm_salt, self.content()]);
        sha256_hex(&canonical)
    }

    /// The content the hash and the commitment cover: the player's view when part of it is the game
    /// master's, the content otherwise (a player's copy already holds the view as its content).
    fn shown_content(&self) -> Value {
        match (&self.gm_commitment, &self.player_view) {
            (Some(_), Some(view)) => view.clone(),
            _ => self.content(),
        }
    }

    /// Replaces the content with `view` (as [`LogEntry::content`] lists it, version 4): a player's
    /// copy of an entry part of which is the game master's.
    pub(crate) fn show_only(&mut self, view: &Value) {
        let part = |index: usize| view.get(index).cloned().unwrap_or(Value::Null);
        let optional = |index: usize| Some(part(index)).filter(|value| !value.is_null());
        self.inputs = part(0);
        self.seed = part(1).as_u64();
        self.dice_given = part(2).as_bool().unwrap_or(false);
        self.dice = serde_json::from_value(part(3)).unwrap_or_default();
        self.result = part(4);
        self.state_before = optional(5);
        self.state_after = optional(6);
        self.summary = part(7).as_str().unwrap_or_default().to_string();
        self.draw = serde_json::from_value(part(8)).ok().flatten();
        self.player_view = None;
        self.gm_salt = None;
    }

    /// What the entry's request asked, as its draw's seed binds it (see [`draw::request`]): a
    /// `refused` entry's request is the one it names.
    pub(crate) fn draw_request(&self) -> Value {
        let (action, inputs) = match self.inputs.get("kind").and_then(Value::as_str) {
            Some("refused") => (
                self.inputs
                    .get("action")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
                self.inputs.get("request").unwrap_or(&Value::Null),
            ),
            _ => (self.action.as_str(), &self.inputs),
        };
        draw::request(
            action,
            self.character_uid.as_deref(),
            self.visibility.as_str(),
            self.actor.as_deref(),
            inputs,
        )
    }

    /// What is wrong with the entry's draw, as far as its content shows it: the secret must open
    /// the commitment the entry took, and give its seed.
    pub(crate) fn draw_problem(&self) -> Option<String> {
        let commitment = self.draw_commitment.as_deref()?;
        if self.gm_commitment.is_some() && self.gm_salt.is_none() && self.draw.is_none() {
            // A player's copy of a sealed entry: the draw is the game master's.
            return None;
        }
        match (&self.draw, self.seed) {
            (Some(draw), Some(seed)) => {
                if draw::commitment_of(&draw.secret) != commitment {
                    return Some("its draw's secret does not open the commitment published before it: the secret was changed after the fact".to_string());
                }
                let uid = self.campaign_uid.as_deref().unwrap_or_default();
                let derived = draw::seed(
                    uid,
                    self.sequence,
                    &self.previous_hash,
                    draw,
                    &self.draw_request(),
                );
                (derived != seed).then(|| format!(
                    "its seed {seed} is not the one its draw gives ({derived}): the roll was redone with a chosen seed"
                ))
            }
            (Some(_), None) => Some("it records a draw but no seed".to_string()),
            (None, Some(seed)) => Some(format!(
                "its seed {seed} comes from no draw: the seed was chosen"
            )),
            (None, None) if !self.dice.is_empty() && !self.dice_given => Some(
                "it rolled dice with neither a draw nor a mark that they were given by hand"
                    .to_string(),
            ),
            (None, _) => None,
        }
    }

    /// Whether the entry's content was hidden when it was made.
    pub fn is_hidden(&self) -> bool {
        self.commitment.is_some()
    }
}
