//! The store's campaigns and characters: made, listed, renamed, edited, deleted, each change logged.

use omen_lang::syntax::Dialect;
use serde_json::{Value, json};

use super::{
    Campaign, Character, PLAIN, Store, campaign_id, character_exists, character_rows, check_name,
    find_character, game, omen_dialect, parse,
};
use crate::db::{Row, params};
use crate::error::{Existing, StoreError};
use crate::log::{Chain, Draft};

impl Store {
    // -----------------------------------------------------------------------------------------------
    // Campaigns.

    /// # Errors
    /// [`StoreError::Invalid`] for an unusable name, [`StoreError::AlreadyExists`] for a taken one.
    pub fn create_campaign(&mut self, name: &str) -> Result<Campaign, StoreError> {
        check_name("campaign", name)?;
        let key = self.signing_key()?;
        self.write(|conn| {
            if campaign_id(conn, name).is_ok() {
                return Err(StoreError::AlreadyExists(Existing::Campaign {
                    name: name.to_string(),
                }));
            }
            let created = crate::time::now();
            conn.execute(
                "INSERT INTO campaign (name, created, uid, public_key) VALUES (?1, ?2, ?3, ?4)",
                params![name, created, crate::key::new_uid()?, key.public()],
            )?;
            Ok(Campaign {
                name: name.to_string(),
                created,
                characters: 0,
                log_entries: 0,
                dialect: omen_dialect(),
            })
        })
    }

    const CAMPAIGN_QUERY: &str = "SELECT c.name, c.created,
            (SELECT count(*) FROM character AS h WHERE h.campaign_id = c.id),
            (SELECT count(*) FROM roll_log AS l WHERE l.campaign_id = c.id),
            c.dialect
         FROM campaign AS c";

    fn campaign_row(row: &Row) -> Result<Campaign, StoreError> {
        Ok(Campaign {
            name: row.get(0)?,
            created: row.get(1)?,
            characters: row.get::<i64>(2)? as u64,
            log_entries: row.get::<i64>(3)? as u64,
            dialect: row.get(4)?,
        })
    }

    /// Sets the dice notation `campaign`'s rolls are typed in.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a name that is no dialect, [`StoreError::NotFound`].
    pub fn set_campaign_dialect(
        &mut self,
        campaign: &str,
        dialect: &str,
    ) -> Result<(), StoreError> {
        let dialect = omen_lang::syntax::Dialect::named(dialect).ok_or_else(|| {
            let names: Vec<&str> = omen_lang::syntax::Dialect::names().collect();
            StoreError::Invalid(format!(
                "unknown dialect `{dialect}`; the dialects are {}",
                names.join(", ")
            ))
        })?;
        self.write(|conn| {
            let id = campaign_id(conn, campaign)?;
            conn.execute(
                "UPDATE campaign SET dialect = ?1 WHERE id = ?2",
                params![dialect.name, id],
            )?;
            Ok(())
        })
    }

    /// The dialect `campaign`'s rolls are typed in (Omen's own for a name this build does not know).
    pub(super) fn campaign_dialect(&self, campaign: &str) -> Result<&'static Dialect, StoreError> {
        let name = self.campaign(campaign)?.dialect;
        Ok(Dialect::named(&name).unwrap_or_default())
    }

    /// Every campaign, by name.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn campaigns(&self) -> Result<Vec<Campaign>, StoreError> {
        self.read(|conn| {
            conn.query_map(
                &format!("{} ORDER BY c.name", Self::CAMPAIGN_QUERY),
                params![],
                Self::campaign_row,
            )
        })
    }

    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn campaign(&self, name: &str) -> Result<Campaign, StoreError> {
        self.read(|conn| {
            conn.query_opt(
                &format!("{} WHERE c.name = ?1", Self::CAMPAIGN_QUERY),
                params![name],
                Self::campaign_row,
            )?
            .ok_or_else(|| StoreError::campaign(name))
        })
    }

    /// Renames a campaign. Log entries keep the name they were written under.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::AlreadyExists`], [`StoreError::Invalid`].
    pub fn rename_campaign(&mut self, name: &str, new_name: &str) -> Result<(), StoreError> {
        check_name("campaign", new_name)?;
        self.write(|conn| {
            let id = campaign_id(conn, name)?;
            if name != new_name && campaign_id(conn, new_name).is_ok() {
                return Err(StoreError::AlreadyExists(Existing::Campaign {
                    name: new_name.to_string(),
                }));
            }
            conn.execute(
                "UPDATE campaign SET name = ?1 WHERE id = ?2",
                params![new_name, id],
            )?;
            Ok(())
        })
    }

    /// Deletes a campaign with its characters, saved rolls and log.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn delete_campaign(&mut self, name: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            let id = campaign_id(conn, name)?;
            conn.execute("DELETE FROM campaign WHERE id = ?1", params![id])?;
            Ok(())
        })
    }

    // -----------------------------------------------------------------------------------------------
    // Characters.

    /// Creates a character from its sheet, as `rule_set` defines it; logged as `create`. The rule set
    /// `none` makes a plain character, bound to no rule set: it keeps no state (`{}`) and takes no
    /// actions, but its ordinary rolls are logged under its name.
    ///
    /// # Errors
    /// [`StoreError::Rules`] with every problem of the sheet, [`StoreError::NotFound`] for an unknown
    /// campaign or a rule set without stateful characters, [`StoreError::AlreadyExists`].
    pub fn create_character(
        &mut self,
        campaign: &str,
        name: &str,
        rule_set: &str,
        sheet: &Value,
    ) -> Result<Character, StoreError> {
        check_name("character", name)?;
        let (state, state_version) = if rule_set == PLAIN {
            if !sheet.as_object().is_some_and(|o| o.is_empty()) {
                return Err(StoreError::Invalid(
                    "a plain character (no rule set) has no sheet; leave --sheet out, or choose a rule set with --rules".to_string(),
                ));
            }
            (json!({}), 1)
        } else {
            let game = game(rule_set)?;
            (game.new_character(sheet)?, game.state_version())
        };
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            if character_exists(conn, chain.campaign_id, name)? {
                return Err(StoreError::AlreadyExists(Existing::Character {
                    campaign: campaign.to_string(),
                    name: name.to_string(),
                }));
            }
            let now = crate::time::now();
            let uid = crate::key::new_uid()?;
            let id = conn.insert(
                "INSERT INTO character (campaign_id, name, rule_set, sheet, state, state_version, created, updated, uid)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8)",
                params![chain.campaign_id, name, rule_set, sheet.to_string(), state.to_string(), state_version, now, uid],
            )?;
            let mut draft = Draft::plain(
                Some(id),
                Some(uid),
                Some(name.to_string()),
                "create",
                json!({ "kind": "create", "rule_set": rule_set, "sheet": sheet }),
                format!("created {name} ({rule_set})"),
            );
            draft.state_after = Some(state.clone());
            chain.append(conn, draft)?;
            Ok(Character {
                campaign: campaign.to_string(),
                name: name.to_string(),
                rule_set: rule_set.to_string(),
                sheet: sheet.clone(),
                state,
                state_version,
                created: now.clone(),
                updated: now,
            })
        })
    }

    /// A campaign's characters, by name, with their state as stored (see [`Store::character`] for the
    /// state loaded by its rule set).
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown campaign.
    pub fn characters(&self, campaign: &str) -> Result<Vec<Character>, StoreError> {
        self.read(|conn| {
            character_rows(conn, campaign_id(conn, campaign)?)?
                .into_iter()
                .map(|row| {
                    let state = parse("state", &row.state)?;
                    let version = row.state_version;
                    row.into_character(campaign, state, version)
                })
                .collect()
        })
    }

    /// A character, its state loaded by its rule set (an older state version is upgraded).
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; [`StoreError::Rules`] when the stored state no longer loads.
    pub fn character(&self, campaign: &str, name: &str) -> Result<Character, StoreError> {
        let row = self.read(|conn| find_character(conn, campaign, name))?;
        if row.rule_set == PLAIN {
            let (state, version) = (parse("state", &row.state)?, row.state_version);
            return row.into_character(campaign, state, version);
        }
        let game = game(&row.rule_set)?;
        let state = game.load(row.state_version, &parse("state", &row.state)?)?;
        row.into_character(campaign, state, game.state_version())
    }

    /// Replaces a character's state by hand, after its rule set has checked it; logged as `edit`.
    ///
    /// # Errors
    /// [`StoreError::Rules`] with every problem of `state`, [`StoreError::NotFound`].
    pub fn set_state(
        &mut self,
        campaign: &str,
        name: &str,
        state: &Value,
    ) -> Result<Character, StoreError> {
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let row = find_character(conn, campaign, name)?;
            let game = game(&row.rule_set)?;
            let version = game.state_version();
            let after = game.load(version, state)?;
            // The state before is taken as stored: an edit is how a state that no longer loads is fixed.
            let before = parse("state", &row.state)?;
            let now = crate::time::now();
            conn.execute(
                "UPDATE character SET state = ?1, state_version = ?2, updated = ?3 WHERE id = ?4",
                params![after.to_string(), version, now, row.id],
            )?;
            let mut draft = Draft::plain(
                Some(row.id),
                row.uid.clone(),
                Some(row.name.clone()),
                "edit",
                json!({ "kind": "edit", "rule_set": row.rule_set, "state_version": version, "state": state }),
                format!("game-master edit of {name}'s state"),
            );
            draft.state_before = Some(before);
            draft.state_after = Some(after.clone());
            chain.append(conn, draft)?;
            let mut row = row;
            row.updated = now;
            row.into_character(campaign, after, version)
        })
    }

    /// Renames a character; logged as `rename`. Earlier log entries keep the old name.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::AlreadyExists`], [`StoreError::Invalid`].
    pub fn rename_character(
        &mut self,
        campaign: &str,
        name: &str,
        new_name: &str,
    ) -> Result<(), StoreError> {
        check_name("character", new_name)?;
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let row = find_character(conn, campaign, name)?;
            if name == new_name {
                return Ok(());
            }
            if character_exists(conn, row.campaign_id, new_name)? {
                return Err(StoreError::AlreadyExists(Existing::Character {
                    campaign: campaign.to_string(),
                    name: new_name.to_string(),
                }));
            }
            conn.execute(
                "UPDATE character SET name = ?1, updated = ?2 WHERE id = ?3",
                params![new_name, crate::time::now(), row.id],
            )?;
            chain.append(
                conn,
                Draft::plain(
                    Some(row.id),
                    row.uid.clone(),
                    Some(new_name.to_string()),
                    "rename",
                    json!({ "kind": "rename", "from": name, "to": new_name }),
                    format!("renamed {name} to {new_name}"),
                ),
            )?;
            Ok(())
        })
    }

    /// Deletes a character; logged as `delete` with its last state. Its log entries stay.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn delete_character(&mut self, campaign: &str, name: &str) -> Result<(), StoreError> {
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let row = find_character(conn, campaign, name)?;
            let mut draft = Draft::plain(
                Some(row.id),
                row.uid.clone(),
                Some(row.name.clone()),
                "delete",
                json!({ "kind": "delete" }),
                format!("deleted {name}"),
            );
            draft.state_before = Some(parse("state", &row.state)?);
            chain.append(conn, draft)?;
            conn.execute("DELETE FROM character WHERE id = ?1", params![row.id])?;
            Ok(())
        })
    }
}
