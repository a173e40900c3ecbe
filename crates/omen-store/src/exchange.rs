//! A whole campaign as one JSON document: characters, saved rolls, the log with its hashes and
//! signatures, and the public key that verifies them, so an import is the same campaign, its chain
//! checked against that key before anything is written, then carried on under the importing
//! database's key from a signed `import` entry.

use crate::db::{Conn, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Existing, StoreError};
use crate::key::Key;
use crate::log::rules_of;
use crate::log::{self, ChainHead, LogEntry, RawEntry};
use crate::store::{SavedRoll, Store, campaign_id, character_rows, check_name, game, saved_rolls};
use crate::viewer::{Role, Viewer};
use crate::visibility::Sight;
use omen_rules::{Part, View};

/// The `format` field of an export.
pub const EXPORT_FORMAT: &str = "omen-campaign";
/// The version of the export format written now.
pub const EXPORT_VERSION: u32 = 2;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Export {
    format: String,
    version: u32,
    campaign: ExportedCampaign,
    characters: Vec<ExportedCharacter>,
    saved_rolls: Vec<SavedRoll>,
    log: Vec<ExportedEntry>,
    head: Option<ChainHead>,
    /// Set on a viewer's copy ([`Store::export_campaign_for`]): what was withheld makes it a record
    /// to read, not a campaign to import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    redacted_for: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportedCampaign {
    name: String,
    created: String,
    /// The campaign's identity, which its entries name (version 2).
    #[serde(default)]
    uid: Option<String>,
    /// The Ed25519 public key (hex) its log is signed with now, and its fingerprint (version 2).
    #[serde(default)]
    public_key: Option<String>,
    #[serde(default)]
    fingerprint: Option<String>,
    /// The dice notation its rolls are typed in (Omen's when left out, and left out when Omen's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dialect: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportedCharacter {
    name: String,
    rule_set: String,
    sheet: Value,
    /// As stored, at `state_version`: an export does not upgrade.
    state: Value,
    state_version: u32,
    created: String,
    updated: String,
    #[serde(default)]
    uid: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct ExportedEntry {
    #[serde(flatten)]
    entry: LogEntry,
    /// The character the entry belongs to, by its name now (it may have been renamed since).
    linked_character: Option<String>,
}

fn invalid(message: impl std::fmt::Display) -> StoreError {
    StoreError::BadExport(format!("not a usable omen campaign export: {message}"))
}

/// A check of the export's own data that failed, as the export's fault: its name or rule set is
/// refused as the export's, not as the caller's request.
fn unusable(error: StoreError) -> StoreError {
    match error {
        StoreError::Invalid(message) => invalid(message),
        StoreError::NotFound(missing) => invalid(missing),
        other => other,
    }
}

impl Store {
    /// The whole campaign as JSON: `{"format": "omen-campaign", "version": 1, "campaign", "characters",
    /// "saved_rolls", "log", "head"}`.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::Corrupt`] for rows that cannot be read.
    pub fn export_campaign(&self, name: &str) -> Result<Value, StoreError> {
        self.export(name, None)
    }

    /// The campaign as `viewer` may see it: its log as [`Store::log_for`] lists it, and for anyone but
    /// the game master its characters' sheets and states without what the rule sets keep for the game
    /// master. Marked `redacted_for` (`gm`, `player` or `observer`); [`Store::import_campaign`] refuses
    /// it, since what was withheld cannot be verified.
    ///
    /// # Errors
    /// As [`Store::export_campaign`].
    pub fn export_campaign_for(&self, name: &str, viewer: &Viewer) -> Result<Value, StoreError> {
        let sight = self.sight(viewer, Some(name))?;
        let role = match viewer {
            Viewer::GameMaster => Role::GameMaster,
            Viewer::Member(member) => member.role,
        };
        let mut export = self.export(name, Some(&sight))?;
        export["redacted_for"] = serde_json::json!(role);
        Ok(export)
    }

    fn export(&self, name: &str, sight: Option<&Sight>) -> Result<Value, StoreError> {
        let player = sight.is_some_and(|sight| !sight.game_master);
        self.read(|conn| {
            let id = campaign_id(conn, name)?;
            let (created, uid, public_key, dialect): (
                String,
                Option<String>,
                Option<String>,
                String,
            ) = conn
                .query_opt(
                    "SELECT created, uid, public_key, dialect FROM campaign WHERE id = ?1",
                    params![id],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
                )?
                .ok_or_else(|| StoreError::campaign(name))?;
            let characters = character_rows(conn, id)?
                .into_iter()
                .map(|row| {
                    let mut sheet: Value = serde_json::from_str(&row.sheet)?;
                    let mut state: Value = serde_json::from_str(&row.state)?;
                    if player {
                        let hidden = rules_of(Some(&row.rule_set));
                        sheet = hidden.show(View::Player, Part::Sheet, &sheet);
                        state = hidden.show(View::Player, Part::State, &state);
                    }
                    Ok(ExportedCharacter {
                        uid: row.uid,
                        sheet,
                        state,
                        name: row.name,
                        rule_set: row.rule_set,
                        state_version: row.state_version,
                        created: row.created,
                        updated: row.updated,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            let rows = conn.query_map(
                &format!(
                    "SELECT {}, h.name FROM roll_log AS l LEFT JOIN character AS h ON h.id = l.character_id
                     WHERE l.campaign_id = ?1 ORDER BY l.sequence",
                    log::ENTRY_COLUMNS
                ),
                params![id],
                |row| {
                    Ok((
                        RawEntry::from_row(row)?,
                        row.get::<Option<String>>(log::ENTRY_COLUMN_COUNT)?,
                    ))
                },
            )?;
            let log = rows
                .into_iter()
                .map(|(raw, linked_character)| {
                    let sequence = raw.sequence();
                    let entry = raw.parse().map_err(|problem| {
                        StoreError::Corrupt(format!("log entry {sequence}: {problem}"))
                    })?;
                    let entry = match sight {
                        Some(sight) => sight.see(entry),
                        None => entry,
                    };
                    Ok(ExportedEntry {
                        entry,
                        linked_character,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            let export = Export {
                format: EXPORT_FORMAT.to_string(),
                version: EXPORT_VERSION,
                campaign: ExportedCampaign {
                    name: name.to_string(),
                    created,
                    fingerprint: public_key.as_deref().map(crate::key::fingerprint),
                    uid,
                    public_key,
                    dialect: (dialect != "omen").then_some(dialect),
                },
                characters,
                saved_rolls: saved_rolls(conn, id)?,
                log,
                head: log::head(conn, id)?,
                redacted_for: None,
            };
            Ok(serde_json::to_value(export)?)
        })
    }

    /// Imports a campaign exported by [`Store::export_campaign`], under its own name or `as_name`.
    /// Before anything is written, the log is checked as `omen log verify` checks it, against the
    /// public key the export carries: every hash, signature, seed and link, and every character's
    /// state against its last entry. Names, times, sheets and states, and saved rolls (which must
    /// compile, as `omen save` requires) are checked too. The entries keep their hashes and signatures;
    /// a signed `import` entry then carries the campaign on under this database's key.
    ///
    /// # Errors
    /// [`StoreError::AlreadyExists`] when the name is taken, [`StoreError::Invalid`] for an `as_name`
    /// that is not a name, [`StoreError::BadExport`] for a document that is not an export, whose log
    /// does not verify, or whose names, times, rule sets, sheets, states or saved rolls are refused.
    pub fn import_campaign(
        &mut self,
        export: &Value,
        as_name: Option<&str>,
    ) -> Result<crate::Campaign, StoreError> {
        let export = read_export(export)?;
        let name = as_name.unwrap_or(&export.campaign.name).to_string();
        check_name("campaign", &name).map_err(|error| match as_name {
            Some(_) => error,
            None => unusable(error),
        })?;
        check_export_contents(&export)?;
        verify_export_log(&export)?;
        let key = self.signing_key()?;
        self.write(|conn| insert_import(conn, &export, &name, &key))?;
        self.campaign(&name)
    }
}

/// The export's document, refused when it is not an export this build reads: another format, a
/// viewer's redacted copy, or a newer version.
fn read_export(export: &Value) -> Result<Export, StoreError> {
    let export: Export = serde_json::from_value(export.clone()).map_err(invalid)?;
    if export.format != EXPORT_FORMAT {
        return Err(invalid(format!(
            "its format is `{}`, not `{EXPORT_FORMAT}`",
            export.format
        )));
    }
    if let Some(viewer) = &export.redacted_for {
        return Err(invalid(format!(
            "it is a {viewer}'s view of a campaign, with what they may not see withheld, so it cannot be verified or imported; import the game master's export (`omen export`)"
        )));
    }
    if export.version > EXPORT_VERSION {
        return Err(invalid(format!(
            "its version {} is newer than this build of omen reads ({EXPORT_VERSION}); upgrade omen",
            export.version
        )));
    }
    Ok(export)
}

/// The export's names, times, rule sets, sheets, states and saved rolls, each as this database
/// would accept it.
fn check_export_contents(export: &Export) -> Result<(), StoreError> {
    crate::time::normalize_time(&export.campaign.created)
        .map_err(|_| invalid("the campaign's creation time is not a time"))?;
    let mut uids = std::collections::HashSet::new();
    for character in &export.characters {
        check_name("character", &character.name).map_err(unusable)?;
        for time in [&character.created, &character.updated] {
            crate::time::normalize_time(time).map_err(|_| {
                invalid(format!(
                    "character `{}` has a time that is not a time",
                    character.name
                ))
            })?;
        }
        if let Some(uid) = &character.uid
            && (!uids.insert(uid.clone()) || crate::key::unhex(uid).is_none_or(|b| b.len() != 16))
        {
            return Err(invalid(format!(
                "character `{}` has an unusable or repeated identity",
                character.name
            )));
        }
        if character.rule_set == crate::store::PLAIN {
            continue;
        }
        let game = game(&character.rule_set).map_err(unusable)?;
        game.new_character(&character.sheet)
            .map_err(|error| invalid(format!("character `{}`'s sheet: {error}", character.name)))?;
        game.load(character.state_version, &character.state)
            .map_err(|error| invalid(format!("character `{}`: {error}", character.name)))?;
    }
    for saved in &export.saved_rolls {
        check_name("saved roll", &saved.name).map_err(unusable)?;
        crate::roll::check_expression(
            &saved.expression,
            &saved.params,
            &omen_core::Limits::default(),
        )
        .map_err(|error| {
            invalid(format!(
                "saved roll `{}` does not compile: {error}",
                saved.name
            ))
        })?;
    }
    for exported in &export.log {
        crate::time::normalize_time(&exported.entry.time).map_err(|_| {
            invalid(format!(
                "log entry {}'s time is not a time",
                exported.entry.sequence
            ))
        })?;
    }
    Ok(())
}

/// The export's log against its hashes, signatures and head, and its characters against the log
/// (a version 1 export has no signatures: its hash chain is all there is).
fn verify_export_log(export: &Export) -> Result<(), StoreError> {
    let signed = export.version >= 2;
    let raw: Vec<RawEntry> = export
        .log
        .iter()
        .map(|e| RawEntry::from(&e.entry))
        .collect();
    let no_links = std::collections::HashMap::new();
    let check = log::check_chain(
        raw,
        export.head.as_ref(),
        &log::Expected {
            campaign_uid: export.campaign.uid.as_deref(),
            public_key: export.campaign.public_key.as_deref(),
            local_key: None,
            character_uids: &no_links,
        },
    );
    let mut problems = check.problems;
    if !signed {
        // A version 1 export has no signatures to check: its hash chain is all there is, and the
        // import entry re-anchors it as a migration does.
        problems.retain(|p| p.sequence.is_some());
    } else {
        let live: Vec<log::LiveCharacter> = export
            .characters
            .iter()
            .map(|c| log::LiveCharacter {
                uid: c.uid.clone(),
                name: c.name.clone(),
                state: c.state.to_string(),
            })
            .collect();
        problems.extend(log::check_characters(&check.entries, &live));
    }
    if !problems.is_empty() {
        let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
        return Err(invalid(format!(
            "its log does not verify:\n  - {}",
            problems.join("\n  - ")
        )));
    }
    Ok(())
}

/// Writes the checked export as campaign `name`, and the signed `import` entry that carries its log
/// on under `key`.
fn insert_import(
    conn: &Conn<'_>,
    export: &Export,
    name: &str,
    key: &Key,
) -> Result<(), StoreError> {
    if campaign_id(conn, name).is_ok() {
        return Err(StoreError::AlreadyExists(Existing::Campaign {
            name: name.to_string(),
        }));
    }
    let uid = match &export.campaign.uid {
        Some(uid) => uid.clone(),
        None => crate::key::new_uid()?,
    };
    let dialect = export.campaign.dialect.as_deref().unwrap_or("omen");
    if omen_lang::syntax::Dialect::named(dialect).is_none() {
        return Err(invalid(format!("unknown dialect `{dialect}`")));
    }
    let id = conn.insert(
        "INSERT INTO campaign (name, created, uid, public_key, dialect) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![name, export.campaign.created, uid, key.public(), dialect],
    )?;
    let (ids, snapshot) = insert_characters(conn, id, &export.characters)?;
    let mut saved_names = std::collections::HashSet::new();
    for saved in &export.saved_rolls {
        // Checked before the insert: a failed statement would end a PostgreSQL transaction.
        if !saved_names.insert(saved.name.as_str()) {
            return Err(invalid(format!(
                "saved roll `{}` is listed twice",
                saved.name
            )));
        }
        conn.execute(
            "INSERT INTO saved_roll (campaign_id, name, expression, params, description)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                id,
                saved.name,
                saved.expression,
                serde_json::to_string(&saved.params)?,
                saved.description
            ],
        )?;
    }
    for exported in &export.log {
        let character_id = match &exported.linked_character {
            Some(linked) => Some(*ids.get(linked).ok_or_else(|| {
                invalid(format!(
                    "log entry {} belongs to `{linked}`, who is not among its characters",
                    exported.entry.sequence
                ))
            })?),
            None => None,
        };
        log::insert(conn, id, character_id, &exported.entry, None)?;
    }
    let chain = log::Chain::open(conn, name, key)?;
    chain.append(
        conn,
        log::Draft::plain(
            None,
            None,
            None,
            "import",
            serde_json::json!({
                "kind": "import",
                "public_key": key.public(),
                "imported_public_key": export.campaign.public_key,
                "imported_head": export.head.as_ref().map(|h| serde_json::json!({ "sequence": h.sequence, "hash": h.hash })),
                "characters": snapshot,
            }),
            format!(
                "imported {} entries signed by {}; carried on under key {}",
                export.log.len(),
                export.campaign.public_key.as_deref().map_or("no key".to_string(), crate::key::fingerprint),
                crate::key::fingerprint(&key.public())
            ),
        ),
    )?;
    Ok(())
}

/// The export's characters, inserted into campaign `id`: their ids by name, and the snapshot the
/// import entry records.
fn insert_characters(
    conn: &Conn<'_>,
    id: i64,
    characters: &[ExportedCharacter],
) -> Result<(std::collections::HashMap<String, i64>, Vec<Value>), StoreError> {
    let mut ids = std::collections::HashMap::new();
    let mut snapshot = Vec::new();
    for c in characters {
        if ids.contains_key(&c.name) {
            return Err(invalid(format!("character `{}` is listed twice", c.name)));
        }
        let character_uid = match &c.uid {
            Some(uid) => uid.clone(),
            None => crate::key::new_uid()?,
        };
        let character_id = conn.insert(
            "INSERT INTO character (campaign_id, name, rule_set, sheet, state, state_version, created, updated, uid)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![id, c.name, c.rule_set, c.sheet.to_string(), c.state.to_string(), c.state_version, c.created, c.updated, character_uid],
        )?;
        ids.insert(c.name.clone(), character_id);
        snapshot.push(serde_json::json!({
            "uid": character_uid, "name": c.name, "rule_set": c.rule_set,
            "state_version": c.state_version, "state": c.state,
        }));
    }
    Ok((ids, snapshot))
}
