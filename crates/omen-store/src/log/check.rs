//! The check of a log: its chain, each entry's signature, seed and commitments, its reveals, and its
//! characters against the log.

use std::collections::HashMap;

use serde_json::Value;

use super::{
    ChainHead, DRAW_VERSION, GENESIS_HASH, LogEntry, LogProblem, RawEntry, VISIBILITY_VERSION,
};
use crate::audience::Visibility;
use crate::key::{self, fingerprint};

/// The kinds of entry that put a campaign under a key: `migrate` (an old, unsigned log re-anchored)
/// and `import` (a log signed elsewhere, carried on under this database's key).
fn is_anchor(entry: &LogEntry) -> bool {
    matches!(
        entry.inputs.get("kind").and_then(Value::as_str),
        Some("migrate" | "import")
    )
}

/// What a log is checked against besides itself.
pub(crate) struct Expected<'a> {
    /// The campaign's identity and public key as its row holds them.
    pub campaign_uid: Option<&'a str>,
    pub public_key: Option<&'a str>,
    /// The public key of the local key file, when there is one: the key that should sign now.
    pub local_key: Option<&'a str>,
    /// The uid of each live character row, by row id.
    pub character_uids: &'a HashMap<i64, String>,
}

/// The outcome of [`check_chain`].
pub(crate) struct ChainCheck {
    pub problems: Vec<LogProblem>,
    pub entries: Vec<LogEntry>,
    pub unsigned: u64,
    /// The key that signs the campaign now, by the log.
    pub public_key: Option<String>,
}

/// Checks a log's chain: numbering without gaps, each entry's link to the one before, its hash, its
/// signature and key, its seed's derivation, its identities, and the last entry against the signed
/// chain head.
pub(crate) fn check_chain(
    entries: Vec<RawEntry>,
    head: Option<&ChainHead>,
    expected: &Expected<'_>,
) -> ChainCheck {
    let mut problems = Vec::new();
    let mut parsed = Vec::new();
    let mut expected_sequence = 1u64;
    let mut previous_hash = GENESIS_HASH.to_string();
    let mut unsigned = 0u64;
    // The key entries are signed with, once the first signed entry is seen.
    let mut current_key: Option<String> = None;
    // The draw commitment the entry before published for the next one.
    let mut published: Option<String> = None;
    for raw in entries {
        let sequence = raw.sequence();
        if sequence > expected_sequence {
            let missing = if sequence == expected_sequence + 1 {
                format!("entry {expected_sequence} is missing")
            } else {
                format!(
                    "entries {expected_sequence} to {} are missing",
                    sequence - 1
                )
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
        let character_id = raw.character_id;
        match raw.parse() {
            Ok(entry) => {
                if entry.compute_hash() != entry.hash {
                    problems.push(LogProblem::entry(
                        sequence,
                        "its contents do not match its hash: it was altered or moved",
                    ));
                }
                check_entry(
                    &entry,
                    character_id,
                    expected,
                    &mut current_key,
                    &mut unsigned,
                    &mut problems,
                );
                if let Some(problem) = draw_link_problem(&entry, &mut published) {
                    problems.push(LogProblem::entry(sequence, problem));
                }
                parsed.push(entry);
            }
            Err(problem) => problems.push(LogProblem::entry(sequence, problem)),
        }
        previous_hash = stored_hash;
        expected_sequence = sequence + 1;
    }
    check_reveals(&parsed, &mut problems);
    let last = expected_sequence - 1;
    problems.extend(head_problem(
        head,
        last,
        &previous_hash,
        current_key.as_deref(),
        expected,
    ));
    key_problems(
        current_key.as_deref(),
        expected,
        !parsed.is_empty(),
        &mut problems,
    );
    ChainCheck {
        problems,
        entries: parsed,
        unsigned,
        public_key: current_key,
    }
}

/// The chain head against the log's last entry `last` (whose hash is `previous_hash`) and the key the
/// log is signed with: a head removed, pointing past the end or before it, naming another entry,
/// or not signed by that key.
fn head_problem(
    head: Option<&ChainHead>,
    last: u64,
    previous_hash: &str,
    current_key: Option<&str>,
    expected: &Expected<'_>,
) -> Option<LogProblem> {
    match head {
        None if last > 0 => Some(LogProblem {
            sequence: None,
            problem: "the log has entries but no chain head: the head row was removed".to_string(),
        }),
        None => None,
        Some(head) if head.sequence > last => Some(LogProblem {
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
        Some(head) if head.sequence < last => Some(LogProblem {
            sequence: Some(head.sequence + 1),
            problem: format!(
                "the chain head names entry {} but the log goes on to entry {last}: entries were added outside omen",
                head.sequence
            ),
        }),
        Some(head) if head.hash != previous_hash => Some(LogProblem {
            sequence: Some(last),
            problem: "the last entry is not the one the chain head names: it was replaced"
                .to_string(),
        }),
        Some(head) => {
            let (key, uid) = (current_key?, expected.campaign_uid?);
            let signed = head.signature.as_deref().is_some_and(|signature| {
                key::verify(
                    key,
                    &key::head_message(uid, head.sequence, &head.hash),
                    signature,
                )
            });
            (!signed).then(|| LogProblem {
            sequence: Some(head.sequence),
            problem: "the chain head's signature does not verify: the head was moved or rewritten without the key (entries after it may have been cut off)".to_string(),
        })
        }
    }
}

/// The key the log is signed with (`current_key`) against the campaign's and the local key file's;
/// a log with entries and no signature at all was stripped.
fn key_problems(
    current_key: Option<&str>,
    expected: &Expected<'_>,
    any_entries: bool,
    problems: &mut Vec<LogProblem>,
) {
    match (current_key, expected.public_key) {
    (Some(key), Some(campaign_key)) if key != campaign_key => problems.push(LogProblem {
        sequence: None,
        problem: format!(
            "the campaign's public key (fingerprint {}) is not the one its log is signed with ({}): the key was replaced",
            fingerprint(campaign_key),
            fingerprint(key)
        ),
    }),
    (None, _) if any_entries => problems.push(LogProblem {
        sequence: None,
        problem: "no entry of the log is signed: its signatures were stripped (an old log is re-anchored by a signed migration entry)".to_string(),
    }),
    _ => {}
}
    if let (Some(key), Some(local)) = (current_key, expected.local_key)
        && key != local
    {
        problems.push(LogProblem {
        sequence: None,
        problem: format!(
            "the log is signed with key {}, not with the key in your key file ({}): it was re-signed by someone else, or you are using another database's key",
            fingerprint(key),
            fingerprint(local)
        ),
    });
    }
}

/// The sequence number a `reveal` entry names, if it is one.
pub(crate) fn revealed_sequence(entry: &LogEntry) -> Option<u64> {
    (entry.inputs.get("kind").and_then(Value::as_str) == Some("reveal"))
        .then(|| entry.inputs.get("sequence").and_then(Value::as_u64))
        .flatten()
}

/// Every `reveal` entry names an earlier hidden entry, revealed once, with the salt that opens its
/// commitment: the revealed content is the content committed to when the roll was made.
fn check_reveals(entries: &[LogEntry], problems: &mut Vec<LogProblem>) {
    let mut revealed = std::collections::HashSet::new();
    for reveal in entries {
        if reveal.inputs.get("kind").and_then(Value::as_str) != Some("reveal") {
            continue;
        }
        let mut problem = |text: &str| problems.push(LogProblem::entry(reveal.sequence, text));
        let Some(sequence) = revealed_sequence(reveal) else {
            problem("it reveals no entry (its inputs name no sequence number)");
            continue;
        };
        let Some(target) = entries
            .iter()
            .find(|e| e.sequence == sequence && e.sequence < reveal.sequence)
        else {
            problem("it reveals an entry that does not come before it");
            continue;
        };
        let Some(commitment) = &target.commitment else {
            problem("it reveals an entry that was not hidden");
            continue;
        };
        if !revealed.insert(sequence) {
            problem("it reveals an entry revealed before");
        }
        if reveal.inputs.get("commitment").and_then(Value::as_str) != Some(commitment.as_str()) {
            problem("the commitment it names is not the revealed entry's");
        }
        match reveal.inputs.get("salt").and_then(Value::as_str) {
            Some(salt) if target.compute_commitment(salt) == *commitment => {}
            Some(_) => problem(
                "the revealed entry's content does not open its commitment with the revealed salt: the content was altered after the roll",
            ),
            None => problem("it gives no salt to check the revealed entry with"),
        }
    }
}

/// Whether `entry` took the draw the entry before it published (`published`, moved on to the one
/// `entry` publishes): a draw taken from anywhere else could have been chosen after the request.
pub(crate) fn draw_link_problem(
    entry: &LogEntry,
    published: &mut Option<String>,
) -> Option<&'static str> {
    if entry.version < DRAW_VERSION {
        *published = None;
        return None;
    }
    let before = std::mem::replace(published, entry.next_draw_commitment.clone());
    if is_anchor(entry) {
        // An import carries the log on under another database's key, whose pending draw the
        // exporting database kept: the anchor starts a new line of draws.
        return None;
    }
    match (&entry.draw_commitment, &entry.next_draw_commitment) {
        (Some(taken), Some(_)) => before
            .is_some_and(|before| before != *taken)
            .then_some("the draw commitment it took is not the one the entry before it published: its draw was swapped after the commitment was public"),
        _ => Some("it names no draw commitments, which every entry of its version does: they were removed"),
    }
}

/// The checks of one parsed entry beyond its hash and link.
fn check_entry(
    entry: &LogEntry,
    character_id: Option<i64>,
    expected: &Expected<'_>,
    current_key: &mut Option<String>,
    unsigned: &mut u64,
    problems: &mut Vec<LogProblem>,
) {
    let sequence = entry.sequence;
    let mut problem = |text: String| problems.push(LogProblem::entry(sequence, text));
    if entry.version < 2 {
        if current_key.is_some() {
            problem(
                "it is unsigned, yet it comes after signed entries: it was added or rewritten without the key"
                    .to_string(),
            );
        } else {
            *unsigned += 1;
        }
        return;
    }
    let Some(public_key) = entry.public_key.as_deref() else {
        problem("it names no public key: it was altered".to_string());
        return;
    };
    let signed = entry.signature.as_deref().is_some_and(|signature| {
        key::verify(public_key, &key::entry_message(&entry.hash), signature)
    });
    if !signed {
        problem(
            "its signature does not verify: it was altered, or signed by someone without the key"
                .to_string(),
        );
    }
    match current_key.as_deref() {
        Some(key) if key != public_key && !is_anchor(entry) => problem(format!(
            "it is signed with another key ({}) than the entries before it ({}): it was signed by someone else",
            fingerprint(public_key),
            fingerprint(key)
        )),
        None if *unsigned > 0 && !is_anchor(entry) => problem(
            "it is the first signed entry but does not re-anchor the unsigned ones before it: the log was spliced"
                .to_string(),
        ),
        _ => {}
    }
    *current_key = Some(public_key.to_string());
    if entry.campaign_uid.as_deref() != expected.campaign_uid {
        problem(
            "it belongs to another campaign (its campaign identity differs): it was moved here"
                .to_string(),
        );
    }
    if entry.version >= DRAW_VERSION {
        if let Some(text) = entry.draw_problem() {
            problem(text);
        }
        if let (Some(gm_commitment), Some(gm_salt)) = (&entry.gm_commitment, &entry.gm_salt)
            && entry.compute_gm_commitment(gm_salt) != *gm_commitment
        {
            problem(
                "what it keeps for the game master does not match its commitment: it was altered"
                    .to_string(),
            );
        }
    }
    if let Some(text) = seed_problem(entry, public_key) {
        problem(text);
    }
    if entry.dice_given && entry.seed.is_some() {
        problem("it is marked as given dice yet records a seed".to_string());
    }
    if let Some(text) = visibility_problem(entry) {
        problem(text);
    }
    if let Some(text) = link_problem(entry, character_id, expected) {
        problem(text);
    }
}

/// A pre-draw entry's seed against its proof: derived for its place in the log, or chosen.
fn seed_problem(entry: &LogEntry, public_key: &str) -> Option<String> {
    match (entry.seed, entry.seed_proof.as_deref()) {
        _ if entry.version >= DRAW_VERSION => None,
        (Some(seed), Some(proof)) => {
            let uid = entry.campaign_uid.as_deref().unwrap_or_default();
            let message = key::seed_message(uid, entry.sequence, &entry.previous_hash);
            if !key::verify(public_key, &message, proof) {
                Some("its seed proof is not the key's signature of its place in the log: the seed was chosen, not derived".to_string())
            } else if key::seed_from_proof(proof) != seed {
                Some(format!(
                    "its seed {seed} is not the one derived for its place in the log ({}): the roll was redone with a chosen seed",
                    key::seed_from_proof(proof)
                ))
            } else {
                None
            }
        }
        (Some(seed), None) => Some(format!(
            "its seed {seed} has no proof: the seed was chosen, not derived"
        )),
        (None, _) if !entry.dice.is_empty() && !entry.dice_given => Some(
            "it rolled dice with neither a derived seed nor a mark that they were given by hand"
                .to_string(),
        ),
        (None, _) => None,
    }
}

/// An entry's visibility against its version and its commitment.
fn visibility_problem(entry: &LogEntry) -> Option<String> {
    if entry.version < VISIBILITY_VERSION {
        let marked = entry.visibility != Visibility::Public
            || entry.actor.is_some()
            || entry.commitment.is_some();
        marked.then(|| {
        format!(
            "it is marked {} but its version ({}) hashes no visibility: the mark was added outside omen",
            entry.visibility, entry.version
        )
    })
    } else {
        match (&entry.commitment, entry.visibility) {
            (Some(_), Visibility::Public) => {
                Some("it is public yet commits to hidden content".to_string())
            }
            (None, visibility) if visibility != Visibility::Public => Some(format!(
                "it is {visibility} but commits to nothing: its content was made public outside omen"
            )),
            (Some(commitment), _) => {
                let salt = entry.salt.as_ref()?;
                (entry.compute_commitment(salt) != *commitment).then(|| {
                "its hidden content does not match its commitment: it was altered after the roll"
                    .to_string()
            })
            }
            (None, _) => None,
        }
    }
}

/// An entry's character identity against the character its row is linked to.
fn link_problem(
    entry: &LogEntry,
    character_id: Option<i64>,
    expected: &Expected<'_>,
) -> Option<String> {
    let id = character_id?;
    match (expected.character_uids.get(&id), &entry.character_uid) {
        (Some(linked), Some(written)) if linked != written => Some(format!(
            "it is linked to another character than the one it was written for (`{}`): it was re-linked",
            entry.character.as_deref().unwrap_or("?")
        )),
        (Some(_), None) => {
            Some("it is linked to a character but names none: it was re-linked".to_string())
        }
        _ => None,
    }
}

/// A live character row as the state check needs it.
pub(crate) struct LiveCharacter {
    pub uid: Option<String>,
    pub name: String,
    pub state: String,
}

/// A character's (by uid) last entry with a state, whether it was deleted, and its last name.
struct Last {
    sequence: u64,
    name: Option<String>,
    state: Option<Value>,
    deleted: bool,
}

/// Each character's last entry in `entries`, by identity: from the entries that name it and the
/// snapshots of the anchors (migrations, imports) that list it.
fn last_entries(entries: &[LogEntry]) -> HashMap<String, Last> {
    let mut last: HashMap<String, Last> = HashMap::new();
    for entry in entries {
        if is_anchor(entry)
            && let Some(snapshot) = entry.inputs.get("characters").and_then(Value::as_array)
        {
            for character in snapshot {
                if let Some(uid) = character.get("uid").and_then(Value::as_str) {
                    last.insert(
                        uid.to_string(),
                        Last {
                            sequence: entry.sequence,
                            name: character
                                .get("name")
                                .and_then(Value::as_str)
                                .map(str::to_string),
                            state: character.get("state").cloned(),
                            deleted: false,
                        },
                    );
                }
            }
        }
        let Some(uid) = &entry.character_uid else {
            continue;
        };
        let record = last.entry(uid.clone()).or_insert(Last {
            sequence: entry.sequence,
            name: None,
            state: None,
            deleted: false,
        });
        record.sequence = entry.sequence;
        record.name = entry.character.clone();
        record.deleted = entry.action == "delete";
        if let Some(state) = &entry.state_after {
            record.state = Some(state.clone());
        }
    }
    last
}

/// Checks that the characters and the log agree: every character's stored state is the state after
/// its last entry, every character has entries, and none the log deleted is still there. Each
/// disagreement names the character.
pub(crate) fn check_characters(
    entries: &[LogEntry],
    characters: &[LiveCharacter],
) -> Vec<LogProblem> {
    let last = last_entries(entries);
    let mut problems = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for character in characters {
        let name = &character.name;
        let Some(uid) = &character.uid else {
            problems.push(LogProblem {
                sequence: None,
                problem: format!("character `{name}` has no identity: it was added outside omen"),
            });
            continue;
        };
        seen.insert(uid.clone());
        let Some(record) = last.get(uid) else {
            problems.push(LogProblem {
                sequence: None,
                problem: format!(
                    "character `{name}` has no log entry: it was added, or its identity changed, outside omen"
                ),
            });
            continue;
        };
        if record.deleted {
            problems.push(LogProblem::entry(
                record.sequence,
                format!("character `{name}` was deleted by this entry, yet is still there"),
            ));
            continue;
        }
        if record.name.as_deref() != Some(name.as_str()) {
            problems.push(LogProblem::entry(
                record.sequence,
                format!(
                    "character `{name}` is called `{}` in its last entry: it was renamed without an entry",
                    record.name.as_deref().unwrap_or("?")
                ),
            ));
        }
        let stored: Option<Value> = serde_json::from_str(&character.state).ok();
        if stored.is_none() || stored != record.state {
            problems.push(LogProblem::entry(
                record.sequence,
                format!(
                    "character `{name}`'s state is not the state after its last entry: it was changed without a log entry"
                ),
            ));
        }
    }
    let mut gone: Vec<(&String, &Last)> = last
        .iter()
        .filter(|(uid, record)| !record.deleted && !seen.contains(*uid))
        .collect();
    gone.sort_by_key(|(_, record)| record.sequence);
    for (_, record) in gone {
        problems.push(LogProblem::entry(
            record.sequence,
            format!(
                "character `{}` is gone from the database without a delete entry",
                record.name.as_deref().unwrap_or("?")
            ),
        ));
    }
    problems
}
