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
//! And since a character's state carries a roll's outcome on (a streak, a balance), the states of a
//! character's later entries are withheld from a viewer who may not see one of its earlier hidden
//! rolls, until that roll is revealed. (A character's live state, [`Store::character`], is not a
//! listing: whoever shows it to a viewer must apply the same rule.)

use std::collections::HashSet;

use crate::db::{Conn, Param, params};
use serde::Serialize;
use serde_json::{Value, json};

use crate::audience::Visibility;
use crate::error::{Missing, StoreError};
use crate::log::{self, Chain, Draft, LogEntry, without_game_master_fields};
use crate::store::{LogFilter, Store, campaign_id};
use crate::viewer::Viewer;

/// What a viewer needs to decide, entry by entry: the characters it owns (by identity) and the
/// entries revealed so far (by campaign identity and number).
pub(crate) struct Sight {
    pub(crate) game_master: bool,
    actor: String,
    owned: HashSet<String>,
    revealed: HashSet<(Option<String>, u64)>,
    /// The campaign's hidden entries.
    hidden: Vec<HiddenMark>,
}

/// The entries revealed so far, of one campaign (by row id) or of all: read through the log's primary
/// key when the campaign is known.
fn revealed_entries(
    conn: &Conn<'_>,
    campaign_id: Option<i64>,
) -> Result<HashSet<(Option<String>, u64)>, StoreError> {
    let mut sql = "SELECT l.campaign_uid, l.inputs FROM roll_log AS l
         WHERE l.action = 'reveal' AND l.version >= 2"
        .to_string();
    if campaign_id.is_some() {
        sql.push_str(" AND l.campaign_id = ?1");
    }
    let parameters: Vec<Param> = campaign_id.into_iter().map(Param::Integer).collect();
    let rows = conn.query_map(&sql, &parameters, |row| {
        Ok((row.get::<Option<String>>(0)?, row.get::<String>(1)?))
    })?;
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

fn owned_characters(conn: &Conn<'_>, viewer: &Viewer) -> Result<HashSet<String>, StoreError> {
    let Viewer::Member(member) = viewer else {
        return Ok(HashSet::new());
    };
    let id = campaign_id(conn, &member.campaign)?;
    let mut owned = HashSet::new();
    for name in &member.characters {
        let uid: Option<Option<String>> = conn.query_opt(
            "SELECT uid FROM character WHERE campaign_id = ?1 AND name = ?2",
            params![id, name],
            |row| row.get(0),
        )?;
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

/// A hidden entry as the listing needs it: whose it is and who may see it.
struct HiddenMark {
    campaign_uid: Option<String>,
    sequence: u64,
    character_uid: Option<String>,
    visibility: Visibility,
    actor: Option<String>,
}

fn hidden_entries(
    conn: &Conn<'_>,
    campaign_id: Option<i64>,
) -> Result<Vec<HiddenMark>, StoreError> {
    let mut sql = "SELECT l.campaign_uid, l.sequence, l.character_uid, l.visibility, l.actor
         FROM roll_log AS l WHERE l.commitment IS NOT NULL"
        .to_string();
    if campaign_id.is_some() {
        sql.push_str(" AND l.campaign_id = ?1");
    }
    let parameters: Vec<Param> = campaign_id.into_iter().map(Param::Integer).collect();
    let rows = conn.query_map(&sql, &parameters, |row| {
        Ok((
            row.get::<Option<String>>(0)?,
            row.get::<i64>(1)?,
            row.get::<Option<String>>(2)?,
            row.get::<String>(3)?,
            row.get::<Option<String>>(4)?,
        ))
    })?;
    Ok(rows
        .into_iter()
        .filter_map(
            |(campaign_uid, sequence, character_uid, visibility, actor)| {
                Some(HiddenMark {
                    campaign_uid,
                    sequence: sequence.max(0) as u64,
                    character_uid,
                    visibility: visibility.parse().ok()?,
                    actor,
                })
            },
        )
        .collect())
}

impl Sight {
    /// Whether the viewer may see the content of an entry with these marks.
    fn may_see(
        &self,
        campaign_uid: &Option<String>,
        sequence: u64,
        character_uid: Option<&String>,
        visibility: Visibility,
        actor: Option<&str>,
    ) -> bool {
        let revealed = self.revealed.contains(&(campaign_uid.clone(), sequence));
        let roller = actor == Some(self.actor.as_str())
            || character_uid.is_some_and(|uid| self.owned.contains(uid));
        revealed
            || match visibility {
                Visibility::Public => true,
                Visibility::Private => self.game_master || roller,
                Visibility::Blind => self.game_master,
                Visibility::SelfOnly => roller,
            }
    }

    /// Whether a hidden entry the viewer may not see came before `sequence` for this character: its
    /// states after that carry the hidden roll's outcome on (a streak, a balance), so they go too.
    fn follows_unseen(&self, entry: &LogEntry) -> bool {
        let Some(character) = &entry.character_uid else {
            return false;
        };
        self.hidden.iter().any(|mark| {
            mark.sequence < entry.sequence
                && mark.character_uid.as_ref() == Some(character)
                && mark.campaign_uid == entry.campaign_uid
                && !self.may_see(
                    &mark.campaign_uid,
                    mark.sequence,
                    mark.character_uid.as_ref(),
                    mark.visibility,
                    mark.actor.as_deref(),
                )
        })
    }

    pub(crate) fn see(&self, entry: LogEntry) -> LogEntry {
        let revealed = self
            .revealed
            .contains(&(entry.campaign_uid.clone(), entry.sequence));
        let visible = self.may_see(
            &entry.campaign_uid,
            entry.sequence,
            entry.character_uid.as_ref(),
            entry.visibility,
            entry.actor.as_deref(),
        );
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
            entry.draw = None;
            entry.gm_salt = None;
            entry.player_view = None;
            entry.redacted = true;
            return entry;
        }
        if !self.game_master {
            entry = match entry.player_view.take() {
                // Sealed when it was written: the player's view is what its hash covers, so a
                // player checks the hash, and the game master's part stays behind its salted
                // commitment.
                Some(view) if entry.gm_commitment.is_some() => {
                    entry.show_only(&view);
                    entry.redacted = true;
                    entry.sealed = true;
                    entry
                }
                _ => without_game_master_fields(entry),
            };
            entry.gm_salt = None;
        }
        if self.follows_unseen(&entry) {
            let edited = entry.inputs.get("state").is_some_and(|s| !s.is_null());
            if entry.state_before.is_some() || entry.state_after.is_some() || edited {
                entry.state_before = None;
                entry.state_after = None;
                if let Some(state) = entry.inputs.get_mut("state") {
                    *state = Value::Null;
                }
                entry.redacted = true;
                entry.sealed = false;
            }
        }
        if !revealed && !self.game_master {
            // Only a reveal gives the salt out: with it and the content, the small space of outcomes
            // could be tried against the commitment by anyone the roller shows the entry to.
            entry.salt = None;
        }
        entry
    }
}

impl Store {
    /// What `viewer` may see of `campaign` (of every campaign when `None`).
    pub(crate) fn sight(
        &self,
        viewer: &Viewer,
        campaign: Option<&str>,
    ) -> Result<Sight, StoreError> {
        self.read(|conn| {
            let id = campaign.map(|name| campaign_id(conn, name)).transpose()?;
            Ok(Sight {
                game_master: viewer.is_game_master(),
                actor: viewer.actor(),
                owned: owned_characters(conn, viewer)?,
                revealed: revealed_entries(conn, id)?,
                hidden: hidden_entries(conn, id)?,
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
        self.listing_for(filter, None, viewer)
    }

    /// [`Store::log_for`] of the entries numbered after `after` only: what a stream that resumes
    /// from its last event reads, without reading the entries before it.
    ///
    /// # Errors
    /// As [`Store::log`].
    pub fn log_for_after(
        &self,
        filter: &LogFilter,
        after: u64,
        viewer: &Viewer,
    ) -> Result<Vec<LogEntry>, StoreError> {
        self.listing_for(filter, Some(after), viewer)
    }

    fn listing_for(
        &self,
        filter: &LogFilter,
        after: Option<u64>,
        viewer: &Viewer,
    ) -> Result<Vec<LogEntry>, StoreError> {
        let mut filter = filter.clone();
        if let Viewer::Member(member) = viewer {
            filter.campaign = Some(member.campaign.clone());
        }
        let sight = self.sight(viewer, filter.campaign.as_deref())?;
        Ok(self
            .log_after(&filter, after)?
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
        // The entry's campaign by its identity (its name may have changed since).
        let campaign: Option<String> = match &entry.campaign_uid {
            Some(uid) => self.read(|conn| {
                conn.query_opt(
                    "SELECT name FROM campaign WHERE uid = ?1",
                    params![uid],
                    |row| row.get(0),
                )
            })?,
            None => None,
        };
        Ok(self.sight(viewer, campaign.as_deref())?.see(entry))
    }

    /// Reveals hidden entry `sequence` of `campaign` as the game master at the database (see
    /// [`Store::reveal_as`]): any hidden entry but a member's `self` roll, which is its roller's alone.
    ///
    /// # Errors
    /// As [`Store::reveal_as`].
    pub fn reveal(&mut self, campaign: &str, sequence: u64) -> Result<LogEntry, StoreError> {
        self.reveal_as(campaign, sequence, &Viewer::GameMaster)
    }

    /// Reveals hidden entry `sequence` of `campaign` on behalf of `viewer`: a logged entry that gives
    /// the salt of its commitment, after which everyone sees the entry and can check its content
    /// against the commitment it was logged with. Returns the `reveal` entry, whose actor is `viewer`.
    ///
    /// Only someone who may see an entry may reveal it: a `self` roll is seen by its roller alone, so
    /// only its roller reveals it (the game master cannot, since the game master never saw it and a
    /// reveal would publish it for them); the game master reveals every other hidden entry; a member
    /// who is not the game master reveals only their own `self` rolls.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown campaign or entry, [`StoreError::Conflict`] for an
    /// entry that is not hidden or was revealed already, [`StoreError::Forbidden`] for one that is
    /// not `viewer`'s to reveal, or a member of another campaign (nothing is logged, and the message
    /// holds nothing of the entry but its number and visibility).
    pub fn reveal_as(
        &mut self,
        campaign: &str,
        sequence: u64,
        viewer: &Viewer,
    ) -> Result<LogEntry, StoreError> {
        if let Viewer::Member(member) = viewer
            && member.campaign != campaign
        {
            return Err(StoreError::Forbidden(format!(
                "this invite is for `{}`, not `{campaign}`",
                member.campaign
            )));
        }
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
                    return Err(StoreError::Conflict(format!(
                        "entry {sequence} of `{campaign}` was revealed already, by entry {}",
                        entry.sequence
                    )));
                }
                if entry.sequence == sequence {
                    target = Some((entry, character_id));
                }
            }
            let Some((target, character_id)) = target else {
                return Err(StoreError::NotFound(Missing::Entry {
                    campaign: campaign.to_string(),
                    sequence,
                }));
            };
            let (Some(commitment), Some(salt)) = (&target.commitment, &target.salt) else {
                return Err(StoreError::Conflict(format!(
                    "entry {sequence} of `{campaign}` is {}, not hidden: there is nothing to reveal",
                    target.visibility
                )));
            };
            may_reveal(viewer, &owned_characters(conn, viewer)?, &target).map_err(|why| {
                StoreError::Forbidden(format!("entry {sequence} of `{campaign}` {why}"))
            })?;
            // Linked to the character when it is still there, under its name now.
            let character: Option<String> = match character_id {
                Some(id) => conn
                    .query_opt("SELECT name FROM character WHERE id = ?1", params![id], |row| {
                        row.get(0)
                    })
                    ?,
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
            draft.actor = Some(viewer.actor());
            chain.append(conn, draft)
        })
    }
}

/// Whether `viewer` may reveal hidden entry `target`, or why not (in words that follow "entry N of
/// `campaign`"). The roller is who the log's listing shows a `self` roll to (see `Sight::may_see`):
/// the entry's actor, or the owner of its character.
fn may_reveal(viewer: &Viewer, owned: &HashSet<String>, target: &LogEntry) -> Result<(), String> {
    let roller = target.actor.as_deref() == Some(viewer.actor().as_str())
        || target
            .character_uid
            .as_ref()
            .is_some_and(|uid| owned.contains(uid));
    match (target.visibility, viewer.is_game_master()) {
        (Visibility::SelfOnly, _) if roller => Ok(()),
        (Visibility::SelfOnly, _) => Err(
            "is a `self` roll, seen by its roller alone: only its roller may reveal it".to_string(),
        ),
        (_, true) => Ok(()),
        (visibility, false) => Err(format!(
            "is a {visibility} roll: only the game master may reveal it (a player reveals only their own `self` rolls)"
        )),
    }
}

/// What a viewer's own check of the log found: [`verify_view`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ViewReport {
    /// Entries checked.
    pub entries: u64,
    /// Entries whose hash was recomputed from what the viewer sees (hidden ones from their
    /// commitment).
    pub hashes_checked: u64,
    /// Entries whose hash could not be recomputed, since fields the rule set keeps for the game
    /// master were withheld: only their place in the chain and their signature are checked.
    pub content_withheld: u64,
    /// Entries holding fields the rule set keeps for the game master, sealed (version 4): their hash
    /// was recomputed from what the viewer sees, while the fields stay behind a salted commitment.
    pub sealed: u64,
    /// Hidden entries shown with their salt (revealed ones; every one for the game master) whose
    /// content was checked against their commitment.
    pub commitments_checked: u64,
    pub problems: Vec<log::LogProblem>,
}

impl ViewReport {
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks a whole log as a viewer received it ([`Store::log_for`] with no filter, or an export for
/// a viewer) against the campaign's public key, without the database: every link, every signature,
/// every hash that can be recomputed from what is shown (a hidden entry's from its commitment,
/// without its content), and every revealed entry's content against its commitment. This is what
/// lets a player check the game master's log without seeing its hidden rolls.
pub fn verify_view(entries: &[LogEntry], public_key: &str) -> ViewReport {
    let mut problems = Vec::new();
    let mut previous = log::GENESIS_HASH.to_string();
    let mut report = ViewReport {
        entries: entries.len() as u64,
        hashes_checked: 0,
        content_withheld: 0,
        sealed: 0,
        commitments_checked: 0,
        problems: Vec::new(),
    };
    let mut last_key = None;
    let mut published = None;
    for (index, entry) in entries.iter().enumerate() {
        let sequence = entry.sequence;
        let mut problem = |text: &str| problems.push(log::LogProblem::entry(sequence, text));
        if sequence != index as u64 + 1 {
            problem(
                "it is not where its number says: the listing is filtered, or entries were removed",
            );
        }
        if entry.previous_hash != previous {
            problem(
                "it does not follow the entry before it: an entry was removed, inserted or reordered",
            );
        }
        if entry.version >= 2 {
            let signed = match (&entry.public_key, &entry.signature) {
                (Some(key), Some(signature)) => {
                    crate::key::verify(key, &crate::key::entry_message(&entry.hash), signature)
                }
                _ => false,
            };
            if !signed {
                problem("its signature does not verify");
            }
            last_key = entry.public_key.clone();
        }
        if !entry.redacted || entry.commitment.is_some() || entry.sealed {
            report.hashes_checked += 1;
            report.sealed += u64::from(entry.sealed);
            if entry.compute_hash() != entry.hash {
                problem("what it shows does not match its hash: it was altered");
            }
        } else {
            report.content_withheld += 1;
        }
        if let (Some(commitment), Some(salt), false) =
            (&entry.commitment, &entry.salt, entry.redacted)
        {
            report.commitments_checked += 1;
            if entry.compute_commitment(salt) != *commitment {
                problem(
                    "its revealed content does not open its commitment: it was altered after the roll",
                );
            }
        }
        if let Some(text) = log::draw_link_problem(entry, &mut published) {
            problem(text);
        }
        if (!entry.redacted || entry.sealed)
            && let Some(text) = entry.draw_problem()
        {
            problem(&text);
        }
        previous = entry.hash.clone();
    }
    if let Some(key) = last_key
        && key != public_key
    {
        problems.push(log::LogProblem {
            sequence: None,
            problem: format!(
                "the log is signed with key {}, not the campaign's key {}",
                crate::key::fingerprint(&key),
                crate::key::fingerprint(public_key)
            ),
        });
    }
    report.problems = problems;
    report
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
