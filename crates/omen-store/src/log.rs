//! The roll log: entries, their hash chain, and the check that finds an altered, removed, reordered or
//! cut-off entry.

use crate::db::{Conn, Row, ToParam, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::audience::Visibility;
use crate::dice::RolledDie;
use crate::draw::{self, Draw, Pending};
use crate::error::StoreError;
use crate::key::{self, Key, fingerprint};
use crate::viewer::{Actor, EntryOptions};

mod check;
mod entry;
mod game_master;

pub use entry::LogEntry;
pub(crate) use entry::{DRAW_VERSION, VISIBILITY_VERSION};
pub(crate) use game_master::{rules_of, without_game_master_fields};

pub(crate) use check::{
    Expected, LiveCharacter, check_chain, check_characters, draw_link_problem, revealed_sequence,
};

/// The `previous_hash` of a campaign's first entry.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

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
    /// The seed, from the draw ([`Chain::draw`]).
    pub seed: Option<u64>,
    /// The draw the seed came from.
    pub draw: Option<Draw>,
    pub dice_given: bool,
    pub dice: Vec<RolledDie>,
    pub result: Value,
    pub state_before: Option<Value>,
    pub state_after: Option<Value>,
    pub summary: String,
    pub visibility: Visibility,
    pub actor: Option<String>,
}

// How a request's options mark its entry: beside the draft they fill in, since the options
// themselves are plain data below the log.
impl EntryOptions {
    pub(crate) fn apply(&self, draft: &mut Draft) {
        draft.visibility = self.visibility;
        draft.actor = self.actor.as_ref().map(Actor::as_text);
    }
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
            draw: None,
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
    // Likewise the columns of draws, which a re-anchoring migration may write before they exist.
    let columns = if entry.version >= DRAW_VERSION {
        values.extend([
            entry.draw_commitment.clone().to_param(),
            entry.next_draw_commitment.clone().to_param(),
            entry
                .draw
                .as_ref()
                .map(serde_json::to_string)
                .transpose()?
                .to_param(),
            entry.gm_commitment.clone().to_param(),
            entry.gm_salt.clone().to_param(),
            optional_text(&entry.player_view).to_param(),
        ]);
        format!(
            "{columns}, draw_commitment, next_draw_commitment, draw, gm_commitment, gm_salt, player_view"
        )
    } else {
        columns
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
    crate::channel::announce(conn, campaign_id, entry.sequence)?;
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
    /// The pending draw of the next entry; none while a migration re-anchors a log written before
    /// draws (its entries are written in the form of their schema version).
    pending: std::cell::RefCell<Option<Pending>>,
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
        let chain = Chain::open_undrawn(conn, campaign, key)?;
        let next = chain.next().0;
        // The draw published for the next entry; a campaign without one (written before draws, or
        // whose pending row was lost) gets one now, which the caller could not have seen: its
        // secret is still unknown to every caller, and a caller who names the commitment it saw is
        // refused.
        let pending = match draw::stored(conn, chain.campaign_id)? {
            Some(pending) if pending.sequence == next => pending,
            _ => {
                let pending = Pending::new(key, &chain.uid, next)?;
                draw::store(conn, chain.campaign_id, &pending)?;
                pending
            }
        };
        *chain.pending.borrow_mut() = Some(pending);
        Ok(chain)
    }

    /// [`Chain::open`] with no draw: for the migration that re-anchors logs written before signing,
    /// which runs before the tables of draws exist.
    pub(crate) fn open_undrawn(
        conn: &Conn<'_>,
        campaign: &str,
        key: &'a Key,
    ) -> Result<Self, StoreError> {
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
            pending: std::cell::RefCell::new(None),
        })
    }

    /// The next entry's number and the hash it follows.
    fn next(&self) -> (u64, String) {
        self.next.borrow().clone()
    }

    /// The commitment of the next entry's draw, as published.
    pub(crate) fn commitment(&self) -> String {
        self.pending
            .borrow()
            .as_ref()
            .map(|pending| pending.commitment.clone())
            .unwrap_or_default()
    }

    /// The next entry's draw with `entropy` (the server's when `None`), and the seed it gives
    /// `request` (see [`draw::request`]).
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for entropy of the wrong form.
    pub(crate) fn draw(
        &self,
        entropy: Option<&str>,
        request: &Value,
    ) -> Result<(u64, Draw), StoreError> {
        let draw = match self.pending.borrow().as_ref() {
            Some(pending) => pending.draw(self.key, &self.uid, entropy)?,
            None => {
                return Err(StoreError::Corrupt(
                    "a log being re-anchored takes no draws".to_string(),
                ));
            }
        };
        let (sequence, previous_hash) = self.next();
        let seed = draw::seed(&self.uid, sequence, &previous_hash, &draw, request);
        Ok((seed, draw))
    }

    /// Appends `draft` after the chain head, hashed and signed, and signs the new head.
    pub(crate) fn append(&self, conn: &Conn<'_>, draft: Draft) -> Result<LogEntry, StoreError> {
        let (sequence, previous_hash) = self.next();
        let drawing = self.pending.borrow().is_some();
        let next_pending = drawing
            .then(|| Pending::new(self.key, &self.uid, sequence + 1))
            .transpose()?;
        let mut entry = LogEntry {
            sequence,
            time: crate::time::now(),
            campaign: self.campaign.clone(),
            character: draft.character,
            action: draft.action,
            inputs: draft.inputs,
            seed: draft.seed,
            dice: draft.dice,
            result: draft.result,
            state_before: draft.state_before,
            state_after: draft.state_after,
            summary: draft.summary,
            previous_hash,
            hash: String::new(),
            version: DRAW_VERSION,
            campaign_uid: Some(self.uid.clone()),
            character_uid: draft.character_uid,
            dice_given: draft.dice_given,
            seed_proof: None,
            public_key: Some(self.key.public()),
            signature: None,
            visibility: draft.visibility,
            actor: draft.actor,
            commitment: None,
            salt: None,
            redacted: false,
            draw_commitment: drawing.then(|| self.commitment()),
            next_draw_commitment: next_pending.as_ref().map(|next| next.commitment.clone()),
            draw: draft.draw,
            gm_commitment: None,
            gm_salt: None,
            player_view: None,
            sealed: false,
        };
        if drawing {
            seal_game_master_part(&mut entry)?;
        } else if entry.visibility != Visibility::Public || entry.actor.is_some() {
            entry.version = VISIBILITY_VERSION;
        } else {
            entry.version = 2;
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
        if let Some(next_pending) = &next_pending {
            draw::store(conn, self.campaign_id, next_pending)?;
        }
        *self.next.borrow_mut() = (sequence + 1, entry.hash.clone());
        *self.pending.borrow_mut() = next_pending;
        Ok(entry)
    }
}

/// Seals what the entry's rule set keeps for the game master: the player's view becomes what the
/// hash covers, and the full content is committed with a salt of its own (see
/// [`LogEntry::gm_commitment`]). The draw goes with the game master's part: with it, whoever sees
/// the request could roll the hidden dice again.
fn seal_game_master_part(entry: &mut LogEntry) -> Result<(), StoreError> {
    let viewed = without_game_master_fields(entry.clone());
    if !viewed.redacted {
        return Ok(());
    }
    let mut view = viewed;
    view.draw = None;
    view.seed = None;
    let gm_salt = key::hex(&key::random::<32>()?);
    entry.player_view = Some(view.content());
    entry.gm_commitment = Some(entry.compute_gm_commitment(&gm_salt));
    entry.gm_salt = Some(gm_salt);
    Ok(())
}

/// The columns of `roll_log` that make a [`LogEntry`], in order, for `SELECT`, then `character_id`.
pub(crate) const ENTRY_COLUMNS: &str = "l.sequence, l.time, l.campaign, l.character, l.action, \
     l.inputs, l.seed, l.dice, l.result, l.state_before, l.state_after, l.summary, l.previous_hash, l.hash, \
     l.version, l.campaign_uid, l.character_uid, l.dice_given, l.seed_proof, l.public_key, l.signature, \
     l.visibility, l.actor, l.commitment, l.salt, l.draw_commitment, l.next_draw_commitment, l.draw, \
     l.gm_commitment, l.gm_salt, l.player_view, l.character_id";

/// How many columns [`ENTRY_COLUMNS`] selects.
pub(crate) const ENTRY_COLUMN_COUNT: usize = 32;

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
    draw_commitment: Option<String>,
    next_draw_commitment: Option<String>,
    draw: Option<String>,
    gm_commitment: Option<String>,
    gm_salt: Option<String>,
    player_view: Option<String>,
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
            draw_commitment: row.get(25)?,
            next_draw_commitment: row.get(26)?,
            draw: row.get(27)?,
            gm_commitment: row.get(28)?,
            gm_salt: row.get(29)?,
            player_view: row.get(30)?,
            character_id: row.get(31)?,
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
            draw_commitment: self.draw_commitment,
            next_draw_commitment: self.next_draw_commitment,
            draw: self.draw.map(|t| json("draw", &t)).transpose()?,
            gm_commitment: self.gm_commitment,
            gm_salt: self.gm_salt,
            player_view: optional("player view", self.player_view)?,
            sealed: false,
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
            draw_commitment: entry.draw_commitment.clone(),
            next_draw_commitment: entry.next_draw_commitment.clone(),
            draw: entry
                .draw
                .as_ref()
                .map(|draw| serde_json::to_string(draw).expect("a draw serialises")),
            gm_commitment: entry.gm_commitment.clone(),
            gm_salt: entry.gm_salt.clone(),
            player_view: optional_text(&entry.player_view),
            character_id: None,
        }
    }
}
