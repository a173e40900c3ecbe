//! The roll log: entries, their hash chain, and the check that finds an altered, removed, reordered or
//! cut-off entry.

use crate::db::{Conn, Row, ToParam, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::dice::RolledDie;
use crate::error::StoreError;
use crate::key::{self, Key, fingerprint};
use crate::visibility::Visibility;

mod check;

pub(crate) use check::{Expected, LiveCharacter, check_chain, check_characters, revealed_sequence};

/// The `previous_hash` of a campaign's first entry.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

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
}

fn version_one() -> u32 {
    1
}

/// The format version of entries that record a visibility or an actor; plain public entries are
/// still written as version 2, so their form is unchanged.
pub(crate) const VISIBILITY_VERSION: u32 = 3;

impl LogEntry {
    /// SHA-256, in lower-case hex, of the compact JSON array `["omen-log-v2", sequence, previous_hash,
    /// time, campaign_uid, campaign, character_uid, character, action, inputs, seed, seed_proof,
    /// dice_given, dice, result, state_before, state_after, summary, public_key]` (version 1 entries:
    /// `["omen-log-v1", sequence, previous_hash, time, campaign, character, action, inputs, seed, dice,
    /// result, state_before, state_after, summary]`). Objects are written with their keys sorted, so
    /// the form does not depend on how the JSON was stored.
    pub fn compute_hash(&self) -> String {
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
            return crate::key::hex(&Sha256::digest(canonical.to_string().as_bytes()));
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
            return crate::key::hex(&Sha256::digest(canonical.to_string().as_bytes()));
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
        let digest = Sha256::digest(canonical.to_string().as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl LogEntry {
    /// What a hidden entry hides: `[inputs, seed, seed_proof, dice_given, dice, result, state_before,
    /// state_after, summary]`.
    fn content(&self) -> Value {
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
    pub fn compute_commitment(&self, salt: &str) -> String {
        let canonical = json!(["omen-commit-v1", salt, self.content()]);
        crate::key::hex(&Sha256::digest(canonical.to_string().as_bytes()))
    }

    /// Whether the entry's content was hidden when it was made.
    pub fn is_hidden(&self) -> bool {
        self.commitment.is_some()
    }
}

/// A campaign's chain head: the last entry written, kept in a row of its own and signed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainHead {
    pub sequence: u64,
    pub hash: String,
    #[serde(default)]
    pub signature: Option<String>,
}

impl ChainHead {
    /// The receipt a player keeps: `SEQUENCE:HASH` with the hash's first 32 hex digits (128 bits).
    pub fn receipt(&self) -> String {
        format!(
            "{}:{}",
            self.sequence,
            &self.hash[..self.hash.len().min(32)]
        )
    }
}

/// A receipt read back: an entry's number and the start of its hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Receipt {
    pub sequence: u64,
    pub hash_prefix: String,
}

impl std::str::FromStr for Receipt {
    type Err = StoreError;

    /// `SEQUENCE:HASH`, the hash cut to at least 16 hex digits.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || {
            StoreError::Invalid(format!(
                "`{text}` is not a receipt; give one as `omen log head` prints it, e.g. 12:3f9a1c2b7d4e5f60a1b2c3d4e5f60718"
            ))
        };
        let (sequence, hash) = text.trim().split_once(':').ok_or_else(bad)?;
        let sequence: u64 = sequence.parse().map_err(|_| bad())?;
        let hash = hash.to_ascii_lowercase();
        if sequence == 0
            || hash.len() < 16
            || hash.len() > 64
            || !hash.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(bad());
        }
        Ok(Receipt {
            sequence,
            hash_prefix: hash,
        })
    }
}

/// What is wrong with one entry (or, without a sequence number, with the log as a whole).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogProblem {
    pub sequence: Option<u64>,
    pub problem: String,
}

impl LogProblem {
    pub(crate) fn entry(sequence: u64, problem: impl Into<String>) -> Self {
        LogProblem {
            sequence: Some(sequence),
            problem: problem.into(),
        }
    }
}

impl std::fmt::Display for LogProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.sequence {
            Some(sequence) => write!(f, "entry {sequence}: {}", self.problem),
            None => write!(f, "{}", self.problem),
        }
    }
}

/// The result of checking a campaign's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    pub campaign: String,
    /// Entries found.
    pub entries: u64,
    pub head: Option<ChainHead>,
    /// The public key (hex) that signs the campaign's entries now, and its fingerprint.
    pub public_key: Option<String>,
    pub fingerprint: Option<String>,
    /// Whether the local key file was there to compare with the campaign's key.
    pub key_file_checked: bool,
    /// Entries written before logs were signed (hashed only), re-anchored by a `migrate` entry.
    pub unsigned_entries: u64,
    /// Every problem found, in log order; empty when the log is intact.
    pub problems: Vec<LogProblem>,
}

impl VerifyReport {
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// A new entry before it has a place in the chain.
pub(crate) struct Draft {
    pub character_id: Option<i64>,
    pub character_uid: Option<String>,
    pub character: Option<String>,
    pub action: String,
    pub inputs: Value,
    /// The seed and its proof, from [`Chain::derive_seed`].
    pub seed: Option<(u64, String)>,
    pub dice_given: bool,
    pub dice: Vec<RolledDie>,
    pub result: Value,
    pub state_before: Option<Value>,
    pub state_after: Option<Value>,
    pub summary: String,
    pub visibility: Visibility,
    pub actor: Option<String>,
}

impl Draft {
    /// An entry that rolls nothing.
    pub(crate) fn plain(
        character_id: Option<i64>,
        character_uid: Option<String>,
        character: Option<String>,
        action: &str,
        inputs: Value,
        summary: String,
    ) -> Draft {
        Draft {
            character_id,
            character_uid,
            character,
            action: action.to_string(),
            inputs,
            seed: None,
            dice_given: false,
            dice: Vec::new(),
            result: Value::Null,
            state_before: None,
            state_after: None,
            summary,
            visibility: Visibility::Public,
            actor: None,
        }
    }
}

pub(crate) fn head(conn: &Conn<'_>, campaign_id: i64) -> Result<Option<ChainHead>, StoreError> {
    conn.query_opt(
        "SELECT sequence, hash, signature FROM chain_head WHERE campaign_id = ?1",
        params![campaign_id],
        |row| {
            Ok(ChainHead {
                sequence: row.get::<i64>(0)? as u64,
                hash: row.get(1)?,
                signature: row.get(2)?,
            })
        },
    )
}

fn text(value: &Value) -> String {
    value.to_string()
}

fn optional_text(value: &Option<Value>) -> Option<String> {
    value.as_ref().map(Value::to_string)
}

/// Writes one finished entry (hashed and signed) and moves the chain head to it, signing the head
/// with `key` when given (an import keeps the exported head's signature until its own anchor entry).
/// The caller holds the write transaction.
pub(crate) fn insert(
    conn: &Conn<'_>,
    campaign_id: i64,
    character_id: Option<i64>,
    entry: &LogEntry,
    head_signature: Option<String>,
) -> Result<(), StoreError> {
    // An entry of a version before visibilities is written in the columns that version knows (the
    // others keep their defaults): a migration that re-anchors a log runs before the later columns
    // exist.
    let visibility_columns = entry.version >= VISIBILITY_VERSION
        || entry.visibility != Visibility::Public
        || entry.actor.is_some()
        || entry.commitment.is_some()
        || entry.salt.is_some();
    let columns = "campaign_id, sequence, time, campaign, character_id, character, action,
             inputs, seed, dice, result, state_before, state_after, summary, previous_hash, hash,
             version, campaign_uid, character_uid, dice_given, seed_proof, public_key, signature";
    let mut values: Vec<crate::db::Param> = vec![
        campaign_id.to_param(),
        (entry.sequence as i64).to_param(),
        entry.time.clone().to_param(),
        entry.campaign.clone().to_param(),
        character_id.to_param(),
        entry.character.clone().to_param(),
        entry.action.clone().to_param(),
        text(&entry.inputs).to_param(),
        entry.seed.map(|s| s.to_string()).to_param(),
        serde_json::to_string(&entry.dice)?.to_param(),
        text(&entry.result).to_param(),
        optional_text(&entry.state_before).to_param(),
        optional_text(&entry.state_after).to_param(),
        entry.summary.clone().to_param(),
        entry.previous_hash.clone().to_param(),
        entry.hash.clone().to_param(),
        i64::from(entry.version).to_param(),
        entry.campaign_uid.clone().to_param(),
        entry.character_uid.clone().to_param(),
        entry.dice_given.to_param(),
        entry.seed_proof.clone().to_param(),
        entry.public_key.clone().to_param(),
        entry.signature.clone().to_param(),
    ];
    let columns = if visibility_columns {
        values.extend([
            entry.visibility.as_str().to_string().to_param(),
            entry.actor.clone().to_param(),
            entry.commitment.clone().to_param(),
            entry.salt.clone().to_param(),
        ]);
        format!("{columns}, visibility, actor, commitment, salt")
    } else {
        columns.to_string()
    };
    let placeholders = vec!["?"; values.len()].join(", ");
    conn.execute(
        &format!("INSERT INTO roll_log ({columns}) VALUES ({placeholders})"),
        &values,
    )?;
    conn.execute(
        "INSERT INTO chain_head (campaign_id, sequence, hash, signature) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (campaign_id) DO UPDATE SET sequence = excluded.sequence, hash = excluded.hash,
             signature = excluded.signature",
        params![
            campaign_id,
            entry.sequence as i64,
            entry.hash,
            head_signature
        ],
    )?;
    crate::pg::announce(conn, campaign_id, entry.sequence)?;
    Ok(())
}

/// A campaign's chain, open for appending with its key: the key must be the campaign's own.
pub(crate) struct Chain<'a> {
    pub campaign_id: i64,
    pub campaign: String,
    pub uid: String,
    pub key: &'a Key,
    /// The next entry's number and the hash it follows: read once the campaign's row is locked
    /// (nothing else moves the head until the transaction ends), moved on by each append.
    next: std::cell::RefCell<(u64, String)>,
}

/// A campaign's row id, identity and public key, by name (the last two are absent only in rows
/// altered outside omen).
pub(crate) fn campaign_identity(
    conn: &Conn<'_>,
    campaign: &str,
) -> Result<(i64, Option<String>, Option<String>), StoreError> {
    identity(conn, campaign, "")
}

/// [`campaign_identity`], the row locked until the transaction ends when `lock` says so (on
/// PostgreSQL: every writer of one campaign's log waits here for the one before it).
fn identity(
    conn: &Conn<'_>,
    campaign: &str,
    lock: &str,
) -> Result<(i64, Option<String>, Option<String>), StoreError> {
    conn.query_opt(
        &format!("SELECT id, uid, public_key FROM campaign WHERE name = ?1{lock}"),
        params![campaign],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?
    .ok_or_else(|| StoreError::campaign(campaign))
}

impl<'a> Chain<'a> {
    /// The chain of `campaign`, checked against `key`. The caller holds the write transaction; the
    /// campaign's row stays locked until it ends, so appends to one log take turns and every entry
    /// follows the head the one before it left (no lost update, no gap in the numbers).
    pub(crate) fn open(conn: &Conn<'_>, campaign: &str, key: &'a Key) -> Result<Self, StoreError> {
        let (campaign_id, uid, public_key): (i64, Option<String>, Option<String>) =
            identity(conn, campaign, conn.for_update())?;
        let (Some(uid), Some(public_key)) = (uid, public_key) else {
            return Err(StoreError::Corrupt(format!(
                "campaign `{campaign}` has no identity or public key: its rows were altered outside omen"
            )));
        };
        if public_key != key.public() {
            return Err(StoreError::Key {
                path: key.path.clone().unwrap_or_default(),
                message: format!(
                    "is not the key of campaign `{campaign}` (whose key has fingerprint {}; this one has {}), so nothing can be added to its log; restore the campaign's key file from your backup or give it with --key or OMEN_KEY",
                    fingerprint(&public_key),
                    fingerprint(&key.public())
                ),
            });
        }
        // A statement of its own, after the lock: on PostgreSQL each statement reads the data
        // committed when it starts, so this one sees the head the previous writer left (a join in
        // the locking statement would read it as it was before that writer committed).
        let next = match head(conn, campaign_id)? {
            Some(head) => (head.sequence + 1, head.hash),
            None => (1, GENESIS_HASH.to_string()),
        };
        Ok(Chain {
            campaign_id,
            campaign: campaign.to_string(),
            uid,
            key,
            next: std::cell::RefCell::new(next),
        })
    }

    /// The next entry's number and the hash it follows.
    fn next(&self) -> (u64, String) {
        self.next.borrow().clone()
    }

    /// The seed of the next entry and its proof: the key's signature of the campaign, the entry's
    /// number and the hash before it. Ed25519 signs deterministically, so the same place always gives
    /// the same seed; a different seed takes a different place, that is another logged entry.
    pub(crate) fn derive_seed(&self) -> (u64, String) {
        let (sequence, previous_hash) = self.next();
        let proof = self
            .key
            .sign(&key::seed_message(&self.uid, sequence, &previous_hash));
        (key::seed_from_proof(&proof), proof)
    }

    /// Appends `draft` after the chain head, hashed and signed, and signs the new head.
    pub(crate) fn append(&self, conn: &Conn<'_>, draft: Draft) -> Result<LogEntry, StoreError> {
        let (sequence, previous_hash) = self.next();
        let (seed, seed_proof) = match draft.seed {
            Some((seed, proof)) => (Some(seed), Some(proof)),
            None => (None, None),
        };
        let mut entry = LogEntry {
            sequence,
            time: crate::time::now(),
            campaign: self.campaign.clone(),
            character: draft.character,
            action: draft.action,
            inputs: draft.inputs,
            seed,
            dice: draft.dice,
            result: draft.result,
            state_before: draft.state_before,
            state_after: draft.state_after,
            summary: draft.summary,
            previous_hash,
            hash: String::new(),
            version: 2,
            campaign_uid: Some(self.uid.clone()),
            character_uid: draft.character_uid,
            dice_given: draft.dice_given,
            seed_proof,
            public_key: Some(self.key.public()),
            signature: None,
            visibility: draft.visibility,
            actor: draft.actor,
            commitment: None,
            salt: None,
            redacted: false,
        };
        if entry.visibility != Visibility::Public || entry.actor.is_some() {
            entry.version = VISIBILITY_VERSION;
        }
        if entry.visibility != Visibility::Public {
            let salt = key::hex(&key::random::<32>()?);
            entry.commitment = Some(entry.compute_commitment(&salt));
            entry.salt = Some(salt);
        }
        entry.hash = entry.compute_hash();
        entry.signature = Some(self.key.sign(&key::entry_message(&entry.hash)));
        let head_signature = self
            .key
            .sign(&key::head_message(&self.uid, sequence, &entry.hash));
        insert(
            conn,
            self.campaign_id,
            draft.character_id,
            &entry,
            Some(head_signature),
        )?;
        *self.next.borrow_mut() = (sequence + 1, entry.hash.clone());
        Ok(entry)
    }
}

/// The columns of `roll_log` that make a [`LogEntry`], in order, for `SELECT`, then `character_id`.
pub(crate) const ENTRY_COLUMNS: &str = "l.sequence, l.time, l.campaign, l.character, l.action, \
     l.inputs, l.seed, l.dice, l.result, l.state_before, l.state_after, l.summary, l.previous_hash, l.hash, \
     l.version, l.campaign_uid, l.character_uid, l.dice_given, l.seed_proof, l.public_key, l.signature, \
     l.visibility, l.actor, l.commitment, l.salt, l.character_id";

/// How many columns [`ENTRY_COLUMNS`] selects.
pub(crate) const ENTRY_COLUMN_COUNT: usize = 26;

/// A row as stored, before its JSON is parsed: verify reports a damaged row instead of failing.
pub(crate) struct RawEntry {
    sequence: i64,
    time: String,
    campaign: String,
    character: Option<String>,
    action: String,
    inputs: String,
    seed: Option<String>,
    dice: String,
    result: String,
    state_before: Option<String>,
    state_after: Option<String>,
    summary: String,
    previous_hash: String,
    hash: String,
    version: u32,
    campaign_uid: Option<String>,
    character_uid: Option<String>,
    dice_given: bool,
    seed_proof: Option<String>,
    public_key: Option<String>,
    signature: Option<String>,
    visibility: String,
    actor: Option<String>,
    commitment: Option<String>,
    salt: Option<String>,
    /// The live character row it is linked to (not hashed: cleared when the character is deleted).
    pub(crate) character_id: Option<i64>,
}

impl RawEntry {
    pub(crate) fn from_row(row: &Row) -> Result<Self, StoreError> {
        Ok(RawEntry {
            sequence: row.get(0)?,
            time: row.get(1)?,
            campaign: row.get(2)?,
            character: row.get(3)?,
            action: row.get(4)?,
            inputs: row.get(5)?,
            seed: row.get(6)?,
            dice: row.get(7)?,
            result: row.get(8)?,
            state_before: row.get(9)?,
            state_after: row.get(10)?,
            summary: row.get(11)?,
            previous_hash: row.get(12)?,
            hash: row.get(13)?,
            version: row.get(14)?,
            campaign_uid: row.get(15)?,
            character_uid: row.get(16)?,
            dice_given: row.get(17)?,
            seed_proof: row.get(18)?,
            public_key: row.get(19)?,
            signature: row.get(20)?,
            visibility: row.get(21)?,
            actor: row.get(22)?,
            commitment: row.get(23)?,
            salt: row.get(24)?,
            character_id: row.get(25)?,
        })
    }

    pub(crate) fn sequence(&self) -> u64 {
        self.sequence.max(0) as u64
    }

    /// The entry, or what about the row cannot be read.
    pub(crate) fn parse(self) -> Result<LogEntry, String> {
        fn json<T: serde::de::DeserializeOwned>(column: &str, text: &str) -> Result<T, String> {
            serde_json::from_str(text)
                .map_err(|error| format!("its {column} is not valid JSON ({error})"))
        }
        let optional = |column: &str, text: Option<String>| -> Result<Option<Value>, String> {
            text.map(|t| json(column, &t)).transpose()
        };
        let sequence = self.sequence();
        let seed = match self.seed {
            Some(seed) => Some(
                seed.parse::<u64>()
                    .map_err(|_| format!("its seed `{seed}` is not a number"))?,
            ),
            None => None,
        };
        let visibility: Visibility = self
            .visibility
            .parse()
            .map_err(|_| format!("its visibility `{}` is unknown", self.visibility))?;
        Ok(LogEntry {
            sequence,
            time: self.time,
            campaign: self.campaign,
            character: self.character,
            action: self.action,
            inputs: json("inputs", &self.inputs)?,
            seed,
            dice: json("dice", &self.dice)?,
            result: json("result", &self.result)?,
            state_before: optional("state before", self.state_before)?,
            state_after: optional("state after", self.state_after)?,
            summary: self.summary,
            previous_hash: self.previous_hash,
            hash: self.hash,
            version: self.version,
            campaign_uid: self.campaign_uid,
            character_uid: self.character_uid,
            dice_given: self.dice_given,
            seed_proof: self.seed_proof,
            public_key: self.public_key,
            signature: self.signature,
            visibility,
            actor: self.actor,
            commitment: self.commitment,
            salt: self.salt,
            redacted: false,
        })
    }
}

/// Every entry of a campaign, in sequence order, as stored.
pub(crate) fn raw_entries(conn: &Conn<'_>, campaign_id: i64) -> Result<Vec<RawEntry>, StoreError> {
    conn.query_map(
        &format!(
            "SELECT {ENTRY_COLUMNS} FROM roll_log AS l WHERE l.campaign_id = ?1 ORDER BY l.sequence"
        ),
        params![campaign_id],
        RawEntry::from_row,
    )
}

impl From<&LogEntry> for RawEntry {
    fn from(entry: &LogEntry) -> Self {
        RawEntry {
            sequence: entry.sequence as i64,
            time: entry.time.clone(),
            campaign: entry.campaign.clone(),
            character: entry.character.clone(),
            action: entry.action.clone(),
            inputs: text(&entry.inputs),
            seed: entry.seed.map(|s| s.to_string()),
            dice: serde_json::to_string(&entry.dice).expect("dice serialise"),
            result: text(&entry.result),
            state_before: optional_text(&entry.state_before),
            state_after: optional_text(&entry.state_after),
            summary: entry.summary.clone(),
            previous_hash: entry.previous_hash.clone(),
            hash: entry.hash.clone(),
            version: entry.version,
            campaign_uid: entry.campaign_uid.clone(),
            character_uid: entry.character_uid.clone(),
            dice_given: entry.dice_given,
            seed_proof: entry.seed_proof.clone(),
            public_key: entry.public_key.clone(),
            signature: entry.signature.clone(),
            visibility: entry.visibility.as_str().to_string(),
            actor: entry.actor.clone(),
            commitment: entry.commitment.clone(),
            salt: entry.salt.clone(),
            character_id: None,
        }
    }
}
