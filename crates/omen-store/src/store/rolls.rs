//! The store's actions and rolls, and the rolls a campaign saves by name.

use std::collections::BTreeMap;

use omen_core::Limits;
use omen_lang::syntax::Dialect;
use serde_json::Value;

use super::{SavedRoll, Store, campaign_id, check_name, find_character, game, parse, saved_rolls};
use crate::db::params;
use crate::dice::Dice;
use crate::error::{Existing, Missing, StoreError};
use crate::log::LogEntry;
use crate::request::{ActionRequest, RollRequest, Rollable};
use crate::roll;

impl Store {
    // -----------------------------------------------------------------------------------------------
    // Actions and rolls.

    /// Applies a rule-set action to a character in one transaction: reads the state, rolls, writes the
    /// new state and the log entry, or changes nothing. Concurrent writers queue; none is lost.
    ///
    /// # Errors
    /// [`StoreError::Rules`] for an action the rule set refuses (dice that do not fit included),
    /// [`StoreError::Invalid`] for given dice the action did not use, [`StoreError::NotFound`],
    /// [`StoreError::Busy`], [`StoreError::ReadOnly`], [`StoreError::DiskFull`].
    pub fn act(
        &mut self,
        campaign: &str,
        character: &str,
        action: &Value,
        dice: Dice,
        limits: &Limits,
    ) -> Result<LogEntry, StoreError> {
        self.perform(
            ActionRequest::new(campaign, character, action)
                .with_dice(dice)
                .with_limits(limits.clone()),
        )
    }

    /// The exact odds of `action` for a character as it stands, without rolling.
    ///
    /// # Errors
    /// [`StoreError::Rules`] (an action that rolls nothing has no odds), [`StoreError::NotFound`].
    pub fn odds(
        &self,
        campaign: &str,
        character: &str,
        action: &Value,
        limits: &Limits,
    ) -> Result<Value, StoreError> {
        let row = self.read(|conn| find_character(conn, campaign, character))?;
        let game = game(&row.rule_set)?;
        let state = game.load(row.state_version, &parse("state", &row.state)?)?;
        Ok(game.odds(&state, action, limits)?)
    }

    /// Rolls an expression or script and logs it in one go, optionally for a character: what
    /// `omen roll --campaign` does. `dice` is [`Dice::Derived`] (the seed the log gives) or
    /// [`Dice::Given`] (logged as given).
    ///
    /// # Errors
    /// [`StoreError::Language`] when it does not compile or cannot be rolled, [`StoreError::Invalid`]
    /// for a chosen seed, as [`Store::log_roll`] otherwise. Nothing is logged on error.
    pub fn roll(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        expression: &str,
        params: &BTreeMap<String, Value>,
        dice: &Dice,
        limits: &Limits,
    ) -> Result<(LogEntry, roll::ExpressionRoll), StoreError> {
        self.submit_roll(
            RollRequest::expression(campaign, expression)
                .for_character(character)
                .with_params(params.clone())
                .with_dice(dice.clone())
                .with_limits(limits.clone()),
        )
    }

    /// [`Store::roll`] with `expression` read in `dialect`, or (`None`) in the campaign's dialect. A
    /// roll typed in another dialect than Omen's is logged in Omen's notation (its reading), so that
    /// the log replays it the same; the warnings are those of reading it as typed.
    ///
    /// # Errors
    /// As [`Store::roll`].
    #[allow(clippy::too_many_arguments)]
    pub fn roll_in_dialect(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        expression: &str,
        dialect: Option<&'static Dialect>,
        params: &BTreeMap<String, Value>,
        dice: &Dice,
        limits: &Limits,
    ) -> Result<(LogEntry, roll::ExpressionRoll), StoreError> {
        self.submit_roll(
            RollRequest::expression(campaign, expression)
                .in_dialect(dialect)
                .for_character(character)
                .with_params(params.clone())
                .with_dice(dice.clone())
                .with_limits(limits.clone()),
        )
    }

    /// Rolls a saved roll, its default parameters overridden by `params`, and logs it.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown saved roll, as [`Store::roll`] otherwise.
    pub fn roll_saved(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        name: &str,
        params: &BTreeMap<String, Value>,
        dice: &Dice,
        limits: &Limits,
    ) -> Result<(LogEntry, roll::ExpressionRoll), StoreError> {
        self.submit_roll(
            RollRequest::saved(campaign, name)
                .for_character(character)
                .with_params(params.clone())
                .with_dice(dice.clone())
                .with_limits(limits.clone()),
        )
    }

    /// Makes and logs the roll `request` describes: an expression (in its dialect, logged in Omen's
    /// notation) or a saved roll (its default parameters under the request's), with a visibility
    /// and an actor.
    ///
    /// # Errors
    /// [`StoreError::Language`] when it does not compile or cannot be rolled, [`StoreError::Invalid`]
    /// for a chosen seed, [`StoreError::NotFound`] for an unknown campaign, character or saved roll.
    /// Nothing is logged on error.
    pub fn submit_roll(
        &mut self,
        request: RollRequest<'_>,
    ) -> Result<(LogEntry, roll::ExpressionRoll), StoreError> {
        let RollRequest {
            campaign,
            character,
            roll,
            params,
            dice,
            limits,
            options,
        } = request;
        let (limits, options) = (&limits, &options);
        let (text, dialect) = match roll {
            Rollable::Saved(name) => {
                let saved = self.saved_roll(campaign, name)?;
                let merged = saved.params_with(&params);
                return self.roll_logged(
                    campaign,
                    character,
                    &saved.expression,
                    &merged,
                    Some(saved.name),
                    &dice,
                    limits,
                    options,
                );
            }
            Rollable::Expression { text, dialect } => (text, dialect),
        };
        let dialect = match dialect {
            Some(dialect) => dialect,
            None => self.campaign_dialect(campaign)?,
        };
        if dialect == <&Dialect>::default() {
            return self.roll_logged(
                campaign, character, text, &params, None, &dice, limits, options,
            );
        }
        let (omen, warnings) = roll::in_omen_notation(text, dialect, &params, limits)?;
        let (entry, mut rolled) = self.roll_logged(
            campaign, character, &omen, &params, None, &dice, limits, options,
        )?;
        rolled.warnings = warnings;
        Ok((entry, rolled))
    }

    // -----------------------------------------------------------------------------------------------
    // Saved rolls.

    /// Saves a named roll after checking that it compiles with its default parameters.
    ///
    /// # Errors
    /// [`StoreError::Language`] with every error of the expression, [`StoreError::AlreadyExists`] when
    /// the name is taken and `replace` is false, [`StoreError::NotFound`].
    pub fn save_roll(
        &mut self,
        campaign: &str,
        saved: &SavedRoll,
        replace: bool,
    ) -> Result<(), StoreError> {
        check_name("saved roll", &saved.name)?;
        roll::check_expression(&saved.expression, &saved.params, &Limits::default())?;
        self.write(|conn| {
            let campaign_id = campaign_id(conn, campaign)?;
            let exists = conn
                .query_opt(
                    "SELECT 1 FROM saved_roll WHERE campaign_id = ?1 AND name = ?2",
                    params![campaign_id, saved.name],
                    |_| Ok(()),
                )?
                .is_some();
            if exists && !replace {
                return Err(StoreError::AlreadyExists(Existing::SavedRoll {
                    campaign: campaign.to_string(),
                    name: saved.name.clone(),
                }));
            }
            conn.execute(
                "INSERT INTO saved_roll (campaign_id, name, expression, params, description)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (campaign_id, name) DO UPDATE SET
                     expression = excluded.expression, params = excluded.params,
                     description = excluded.description",
                params![
                    campaign_id,
                    saved.name,
                    saved.expression,
                    serde_json::to_string(&saved.params)?,
                    saved.description
                ],
            )?;
            Ok(())
        })
    }

    /// A campaign's saved rolls, by name.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn saved_rolls(&self, campaign: &str) -> Result<Vec<SavedRoll>, StoreError> {
        self.read(|conn| {
            let id = campaign_id(conn, campaign)?;
            saved_rolls(conn, id)
        })
    }

    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn saved_roll(&self, campaign: &str, name: &str) -> Result<SavedRoll, StoreError> {
        self.saved_rolls(campaign)?
            .into_iter()
            .find(|saved| saved.name == name)
            .ok_or_else(|| {
                StoreError::NotFound(Missing::SavedRoll {
                    campaign: campaign.to_string(),
                    name: name.to_string(),
                })
            })
    }

    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn delete_saved_roll(&mut self, campaign: &str, name: &str) -> Result<(), StoreError> {
        self.write(|conn| {
            let id = campaign_id(conn, campaign)?;
            let deleted = conn.execute(
                "DELETE FROM saved_roll WHERE campaign_id = ?1 AND name = ?2",
                params![id, name],
            )?;
            if deleted == 0 {
                return Err(StoreError::NotFound(Missing::SavedRoll {
                    campaign: campaign.to_string(),
                    name: name.to_string(),
                }));
            }
            Ok(())
        })
    }
}
