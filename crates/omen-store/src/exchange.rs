//! A whole campaign as one JSON document: characters, saved rolls, the log with its hashes and
//! signatures, and the public key that verifies them, so an import is the same campaign, its chain
//! checked against that key before anything is written, then carried on under the importing
//! database's key from a signed `import` entry.

use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Existing, StoreError};
use crate::log::{self, ChainHead, LogEntry, RawEntry};
use crate::store::{SavedRoll, Store, campaign_id, character_rows, check_name, game, saved_rolls};

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
    StoreError::Invalid(format!("not a usable omen campaign export: {message}"))
}

impl Store {
    /// The whole campaign as JSON: `{"format": "omen-campaign", "version": 1, "campaign", "characters",
    /// "saved_rolls", "log", "head"}`.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::Corrupt`] for rows that cannot be read.
    pub fn export_campaign(&self, name: &str) -> Result<Value, StoreError> {
        self.read(|conn| {
            let id = campaign_id(conn, name)?;
            let (created, uid, public_key, dialect): (
                String,
                Option<String>,
                Option<String>,
                String,
            ) = conn
                .query_row(
                    "SELECT created, uid, public_key, dialect FROM campaign WHERE id = ?1",
                    [id],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
                )?;
            let characters = character_rows(conn, id)?
                .into_iter()
                .map(|row| {
                    Ok(ExportedCharacter {
                        uid: row.uid,
                        sheet: serde_json::from_str(&row.sheet)?,
                        state: serde_json::from_str(&row.state)?,
                        name: row.name,
                        rule_set: row.rule_set,
                        state_version: row.state_version,
                        created: row.created,
                        updated: row.updated,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            let mut statement = conn.prepare(&format!(
                "SELECT {}, h.name FROM roll_log AS l LEFT JOIN character AS h ON h.id = l.character_id
                 WHERE l.campaign_id = ?1 ORDER BY l.sequence",
                log::ENTRY_COLUMNS
            ))?;
            let rows = statement
                .query_map([id], |row| {
                    Ok((
                        RawEntry::from_row(row)?,
                        row.get::<_, Option<String>>(log::ENTRY_COLUMN_COUNT)?,
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            let log = rows
                .into_iter()
                .map(|(raw, linked_character)| {
                    let sequence = raw.sequence();
                    let entry = raw.parse().map_err(|problem| {
                        StoreError::Corrupt(format!("log entry {sequence}: {problem}"))
                    })?;
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
    /// [`StoreError::AlreadyExists`] when the name is taken, [`StoreError::Invalid`] for a document
    /// that is not an export or whose log does not verify, [`StoreError::Rules`] for a character whose
    /// state its rule set refuses, [`StoreError::NotFound`] for an unknown rule set.
    pub fn import_campaign(
        &mut self,
        export: &Value,
        as_name: Option<&str>,
    ) -> Result<crate::Campaign, StoreError> {
        let export: Export = serde_json::from_value(export.clone()).map_err(invalid)?;
        if export.format != EXPORT_FORMAT {
            return Err(invalid(format!(
                "its format is `{}`, not `{EXPORT_FORMAT}`",
                export.format
            )));
        }
        if export.version > EXPORT_VERSION {
            return Err(invalid(format!(
                "its version {} is newer than this build of omen reads ({EXPORT_VERSION}); upgrade omen",
                export.version
            )));
        }
        let name = as_name.unwrap_or(&export.campaign.name).to_string();
        check_name("campaign", &name)?;
        crate::time::normalize_time(&export.campaign.created)
            .map_err(|_| invalid("the campaign's creation time is not a time"))?;
        let mut uids = std::collections::HashSet::new();
        for character in &export.characters {
            check_name("character", &character.name)?;
            for time in [&character.created, &character.updated] {
                crate::time::normalize_time(time).map_err(|_| {
                    invalid(format!(
                        "character `{}` has a time that is not a time",
                        character.name
                    ))
                })?;
            }
            if let Some(uid) = &character.uid
                && (!uids.insert(uid.clone())
                    || crate::key::unhex(uid).is_none_or(|b| b.len() != 16))
            {
                return Err(invalid(format!(
                    "character `{}` has an unusable or repeated identity",
                    character.name
                )));
            }
            if character.rule_set == crate::store::PLAIN {
                continue;
            }
            let game = game(&character.rule_set)?;
            game.new_character(&character.sheet).map_err(|error| {
                invalid(format!("character `{}`'s sheet: {error}", character.name))
            })?;
            game.load(character.state_version, &character.state)
                .map_err(|error| invalid(format!("character `{}`: {error}", character.name)))?;
        }
        for saved in &export.saved_rolls {
            check_name("saved roll", &saved.name)?;
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
        let key = self.signing_key()?;
        self.write(|conn| {
            if campaign_id(conn, &name).is_ok() {
                return Err(StoreError::AlreadyExists(Existing::Campaign { name: name.clone() }));
            }
            let uid = match &export.campaign.uid {
                Some(uid) => uid.clone(),
                None => crate::key::new_uid()?,
            };
            let dialect = export.campaign.dialect.as_deref().unwrap_or("omen");
            if omen_lang::syntax::Dialect::named(dialect).is_none() {
                return Err(invalid(format!("unknown dialect `{dialect}`")));
            }
            conn.execute(
                "INSERT INTO campaign (name, created, uid, public_key, dialect) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![name, export.campaign.created, uid, key.public(), dialect],
            )?;
            let id = conn.last_insert_rowid();
            let mut ids = std::collections::HashMap::new();
            let mut snapshot = Vec::new();
            for c in &export.characters {
                if ids.contains_key(&c.name) {
                    return Err(invalid(format!("character `{}` is listed twice", c.name)));
                }
                let character_uid = match &c.uid {
                    Some(uid) => uid.clone(),
                    None => crate::key::new_uid()?,
                };
                conn.execute(
                    "INSERT INTO character (campaign_id, name, rule_set, sheet, state, state_version, created, updated, uid)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![id, c.name, c.rule_set, c.sheet.to_string(), c.state.to_string(), c.state_version, c.created, c.updated, character_uid],
                )?;
                ids.insert(c.name.clone(), conn.last_insert_rowid());
                snapshot.push(serde_json::json!({
                    "uid": character_uid, "name": c.name, "rule_set": c.rule_set,
                    "state_version": c.state_version, "state": c.state,
                }));
            }
            for saved in &export.saved_rolls {
                conn.execute(
                    "INSERT INTO saved_roll (campaign_id, name, expression, params, description)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![id, saved.name, saved.expression, serde_json::to_string(&saved.params)?, saved.description],
                )
                .map_err(|error| match error.sqlite_error_code() {
                    Some(rusqlite::ErrorCode::ConstraintViolation) => {
                        invalid(format!("saved roll `{}` is listed twice", saved.name))
                    }
                    _ => error.into(),
                })?;
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
            let chain = log::Chain::open(conn, &name, &key)?;
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
        })?;
        self.campaign(&name)
    }
}
