//! The roll log: entries, their hash chain, and the check that finds an altered, removed, reordered or
//! cut-off entry.

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::dice::RolledDie;
use crate::error::StoreError;

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
}

impl LogEntry {
    /// SHA-256, in lower-case hex, of the compact JSON array `["omen-log-v1", sequence, previous_hash,
    /// time, campaign, character, action, inputs, seed, dice, result, state_before, state_after,
    /// summary]`. Objects are written with their keys sorted, so the form does not depend on how the
    /// JSON was stored.
    pub fn compute_hash(&self) -> String {
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

/// A campaign's chain head: the last entry written, kept in a row of its own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainHead {
    pub sequence: u64,
    pub hash: String,
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

/// The result of checking a campaign's hash chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    pub campaign: String,
    /// Entries found.
    pub entries: u64,
    pub head: Option<ChainHead>,
    /// Every problem found, in log order; empty when the chain is intact.
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
    pub character: Option<String>,
    pub action: String,
    pub inputs: Value,
    pub seed: Option<u64>,
    pub dice: Vec<RolledDie>,
    pub result: Value,
    pub state_before: Option<Value>,
    pub state_after: Option<Value>,
    pub summary: String,
}

pub(crate) fn head(conn: &Connection, campaign_id: i64) -> Result<Option<ChainHead>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT sequence, hash FROM chain_head WHERE campaign_id = ?1",
            [campaign_id],
            |row| {
                Ok(ChainHead {
                    sequence: row.get::<_, i64>(0)? as u64,
                    hash: row.get(1)?,
                })
            },
        )
        .optional()?)
}

fn text(value: &Value) -> String {
    value.to_string()
}

fn optional_text(value: &Option<Value>) -> Option<String> {
    value.as_ref().map(Value::to_string)
}

/// Writes one finished entry (its hash already computed) and moves the chain head to it. The caller
/// holds the write transaction.
pub(crate) fn insert(
    conn: &Connection,
    campaign_id: i64,
    character_id: Option<i64>,
    entry: &LogEntry,
) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO roll_log (campaign_id, sequence, time, campaign, character_id, character, action,
             inputs, seed, dice, result, state_before, state_after, summary, previous_hash, hash)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        params![
            campaign_id,
            entry.sequence as i64,
            entry.time,
            entry.campaign,
            character_id,
            entry.character,
            entry.action,
            text(&entry.inputs),
            entry.seed.map(|s| s.to_string()),
            serde_json::to_string(&entry.dice)?,
            text(&entry.result),
            optional_text(&entry.state_before),
            optional_text(&entry.state_after),
            entry.summary,
            entry.previous_hash,
            entry.hash,
        ],
    )?;
    conn.execute(
        "INSERT INTO chain_head (campaign_id, sequence, hash) VALUES (?1, ?2, ?3)
         ON CONFLICT (campaign_id) DO UPDATE SET sequence = excluded.sequence, hash = excluded.hash",
        params![campaign_id, entry.sequence as i64, entry.hash],
    )?;
    Ok(())
}

/// Appends `draft` after the campaign's chain head. The caller holds the write transaction.
pub(crate) fn append(
    conn: &Connection,
    campaign_id: i64,
    campaign: &str,
    draft: Draft,
) -> Result<LogEntry, StoreError> {
    let (sequence, previous_hash) = match head(conn, campaign_id)? {
        Some(head) => (head.sequence + 1, head.hash),
        None => (1, GENESIS_HASH.to_string()),
    };
    let mut entry = LogEntry {
        sequence,
        time: crate::time::now(),
        campaign: campaign.to_string(),
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
    };
    entry.hash = entry.compute_hash();
    insert(conn, campaign_id, draft.character_id, &entry)?;
    Ok(entry)
}

/// The columns of `roll_log` that make a [`LogEntry`], in order, for `SELECT`.
pub(crate) const ENTRY_COLUMNS: &str = "l.sequence, l.time, l.campaign, l.character, l.action, \
     l.inputs, l.seed, l.dice, l.result, l.state_before, l.state_after, l.summary, l.previous_hash, l.hash";

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
}

impl RawEntry {
    pub(crate) fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self> {
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
        })
    }
}

/// Every entry of a campaign, in sequence order, as stored.
pub(crate) fn raw_entries(
    conn: &Connection,
    campaign_id: i64,
) -> Result<Vec<RawEntry>, StoreError> {
    let mut statement = conn.prepare(&format!(
        "SELECT {ENTRY_COLUMNS} FROM roll_log AS l WHERE l.campaign_id = ?1 ORDER BY l.sequence"
    ))?;
    let rows = statement.query_map([campaign_id], RawEntry::from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Checks a log's chain: numbering without gaps, each entry's link to the one before, each entry's
/// hash against its contents, and the last entry against the chain head.
pub(crate) fn check_chain(
    entries: Vec<RawEntry>,
    head: Option<&ChainHead>,
) -> (Vec<LogProblem>, Vec<LogEntry>) {
    let mut problems = Vec::new();
    let mut parsed = Vec::new();
    let mut expected = 1u64;
    let mut previous_hash = GENESIS_HASH.to_string();
    for raw in entries {
        let sequence = raw.sequence();
        if sequence > expected {
            let missing = if sequence == expected + 1 {
                format!("entry {expected} is missing")
            } else {
                format!("entries {expected} to {} are missing", sequence - 1)
            };
            problems.push(LogProblem::entry(
                sequence,
                format!("{missing}: removed from the log"),
            ));
        }
        let stored_hash = raw.hash.clone();
        if raw.previous_hash != previous_hash {
            problems.push(LogProblem::entry(
                sequence,
                "it does not follow the entry before it (its previous hash differs): an entry was removed, inserted or reordered",
            ));
        }
        match raw.parse() {
            Ok(entry) => {
                if entry.compute_hash() != entry.hash {
                    problems.push(LogProblem::entry(
                        sequence,
                        "its contents do not match its hash: it was altered or moved",
                    ));
                }
                parsed.push(entry);
            }
            Err(problem) => problems.push(LogProblem::entry(sequence, problem)),
        }
        previous_hash = stored_hash;
        expected = sequence + 1;
    }
    let last = expected - 1;
    match head {
        None if last > 0 => problems.push(LogProblem {
            sequence: None,
            problem: "the log has entries but no chain head: the head row was removed".to_string(),
        }),
        None => {}
        Some(head) if head.sequence > last => problems.push(LogProblem {
            sequence: Some(head.sequence),
            problem: if last == 0 {
                format!(
                    "the chain head names entry {} but the log is empty: every entry was removed",
                    head.sequence
                )
            } else {
                format!(
                    "the log ends at entry {last} but its head names entry {}: the entries after {last} were removed",
                    head.sequence
                )
            },
        }),
        Some(head) if head.sequence < last => problems.push(LogProblem {
            sequence: Some(head.sequence + 1),
            problem: format!(
                "the chain head names entry {} but the log goes on to entry {last}: entries were added outside omen",
                head.sequence
            ),
        }),
        Some(head) if head.hash != previous_hash => problems.push(LogProblem {
            sequence: Some(last),
            problem: "the last entry is not the one the chain head names: it was replaced"
                .to_string(),
        }),
        Some(_) => {}
    }
    (problems, parsed)
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
        }
    }
}

/// An entry's columns as SQL values, in [`ENTRY_COLUMNS`] order without `character_id`: for tests that
/// write rows as an older omen did.
#[cfg(test)]
pub(crate) struct RawEntryRow(pub Vec<rusqlite::types::Value>);

#[cfg(test)]
impl From<&LogEntry> for RawEntryRow {
    fn from(entry: &LogEntry) -> Self {
        use rusqlite::types::Value as Sql;
        let raw = RawEntry::from(entry);
        let optional = |text: Option<String>| text.map_or(Sql::Null, Sql::Text);
        RawEntryRow(vec![
            Sql::Integer(raw.sequence),
            Sql::Text(raw.time),
            Sql::Text(raw.campaign),
            optional(raw.character),
            Sql::Text(raw.action),
            Sql::Text(raw.inputs),
            optional(raw.seed),
            Sql::Text(raw.dice),
            Sql::Text(raw.result),
            optional(raw.state_before),
            optional(raw.state_after),
            Sql::Text(raw.summary),
            Sql::Text(raw.previous_hash),
            Sql::Text(raw.hash),
        ])
    }
}
