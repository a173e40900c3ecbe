//! A whole campaign as one JSON document: characters, saved rolls and the log with its hashes, so an
//! import is the same campaign, its chain still verifying.

use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Existing, StoreError};
use crate::log::{self, ChainHead, LogEntry, RawEntry};
use crate::store::{SavedRoll, Store, campaign_id, character_rows, check_name, game, saved_rolls};

/// The `format` field of an export.
pub const EXPORT_FORMAT: &str = "omen-campaign";
/// The version of the export format written now.
pub const EXPORT_VERSION: u32 = 1;

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
            let created: String =
                conn.query_row("SELECT created FROM campaign WHERE id = ?1", [id], |row| {
                    row.get(0)
                })?;
            let characters = character_rows(conn, id)?
                .into_iter()
                .map(|row| {
                    Ok(ExportedCharacter {
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
                    Ok((RawEntry::from_row(row)?, row.get::<_, Option<String>>(14)?))
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
                },
                characters,
                saved_rolls: saved_rolls(conn, id)?,
                log,
                head: log::head(conn, id)?,
            };
            Ok(serde_json::to_value(export)?)
        })
    }

    /// Imports a campaign exported by [`Store::export_campaign`], under its own name or `as_name`. The
    /// log keeps its entries and hashes as they are; it must verify, and every character must load.
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
        for character in &export.characters {
            check_name("character", &character.name)?;
            game(&character.rule_set)?
                .load(character.state_version, &character.state)
                .map_err(|error| invalid(format!("character `{}`: {error}", character.name)))?;
        }
        let raw: Vec<RawEntry> = export
            .log
            .iter()
            .map(|e| RawEntry::from(&e.entry))
            .collect();
        let (problems, _) = log::check_chain(raw, export.head.as_ref());
        if !problems.is_empty() {
            let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
            return Err(invalid(format!(
                "its log does not verify:\n  - {}",
                problems.join("\n  - ")
            )));
        }
        self.write(|conn| {
            if campaign_id(conn, &name).is_ok() {
                return Err(StoreError::AlreadyExists(Existing::Campaign { name: name.clone() }));
            }
            conn.execute(
                "INSERT INTO campaign (name, created) VALUES (?1, ?2)",
                params![name, export.campaign.created],
            )?;
            let id = conn.last_insert_rowid();
            let mut ids = std::collections::HashMap::new();
            for c in &export.characters {
                if ids.contains_key(&c.name) {
                    return Err(invalid(format!("character `{}` is listed twice", c.name)));
                }
                conn.execute(
                    "INSERT INTO character (campaign_id, name, rule_set, sheet, state, state_version, created, updated)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![id, c.name, c.rule_set, c.sheet.to_string(), c.state.to_string(), c.state_version, c.created, c.updated],
                )?;
                ids.insert(c.name.clone(), conn.last_insert_rowid());
            }
            for saved in &export.saved_rolls {
                check_name("saved roll", &saved.name)?;
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
                log::insert(conn, id, character_id, &exported.entry)?;
            }
            Ok(())
        })?;
        self.campaign(&name)
    }
}
