//! Actions and rolls written to a campaign's log: their dice drawn ([`crate::draw`]) or given, and a
//! request refused after it drew dice logged as a `refused` entry, so that no refusal shows a caller
//! dice that the log does not hold.

use std::collections::BTreeMap;

use omen_core::Limits;
use serde_json::{Value, json};

use crate::db::{Conn, params};
use crate::dice::{Dice, Recording, RolledDie};
use crate::draw::{self, Draw};
use crate::error::StoreError;
use crate::log::{Chain, Draft, LogEntry};
use crate::request::ActionRequest;
use crate::roll::{self, ExpressionRoll, RollRecord};
use crate::store::{CharacterRow, PLAIN, Store, character_in, game, parse};
use crate::viewer::EntryOptions;

/// The dice an entry rolls with: drawn (a seed and its draw) or given at the table.
struct Resolved {
    dice: Dice,
    seed: Option<u64>,
    draw: Option<Draw>,
    given: bool,
}

impl Resolved {
    /// Whether dice drawn with this resolution are secret until logged.
    fn drawn(&self) -> bool {
        self.draw.is_some()
    }
}

fn chosen_seed() -> StoreError {
    StoreError::Invalid(
        "a campaign's rolls take their seed from its log, so no seed can be chosen; leave --seed out, or give dice rolled at the table with --dice (logged as given)".to_string(),
    )
}

/// What `options` asks of the draw: the commitment the caller saw must still be the next entry's.
fn check_commitment(chain: &Chain<'_>, options: &EntryOptions) -> Result<(), StoreError> {
    match &options.commitment {
        Some(given) if *given != chain.commitment() => Err(StoreError::Moved {
            given: given.clone(),
            current: chain.commitment(),
        }),
        _ => Ok(()),
    }
}

/// The dice for `request`: drawn with the caller's entropy, or given (logged as given).
fn resolve_dice(
    chain: &Chain<'_>,
    dice: Dice,
    options: &EntryOptions,
    request: &Value,
) -> Result<Resolved, StoreError> {
    match dice {
        Dice::Derived => {
            check_commitment(chain, options)?;
            let (seed, draw) = chain.draw(options.entropy.as_deref(), request)?;
            Ok(Resolved {
                dice: Dice::Seed(seed),
                seed: Some(seed),
                draw: Some(draw),
                given: false,
            })
        }
        Dice::Given(values) => Ok(Resolved {
            dice: Dice::Given(values),
            seed: None,
            draw: None,
            given: true,
        }),
        Dice::Seed(_) => Err(chosen_seed()),
    }
}

/// What the seed of a request binds (see [`draw::request`]).
fn request_of(
    action: &str,
    character: Option<&CharacterRow>,
    options: &EntryOptions,
    inputs: &Value,
) -> Value {
    draw::request(
        action,
        character.and_then(|row| row.uid.as_deref()),
        options.visibility.as_str(),
        options
            .actor
            .as_ref()
            .map(|actor| actor.as_text())
            .as_deref(),
        inputs,
    )
}

/// A request refused after it drew dice, as its entry holds it.
struct Refusal<'a> {
    character: Option<&'a CharacterRow>,
    action: &'a str,
    inputs: Value,
    state_before: Option<Value>,
    drawn: Vec<RolledDie>,
    error: StoreError,
}

/// Logs `refusal` and gives the error the caller gets: the refusal, naming its entry.
fn log_refusal(
    conn: &Conn<'_>,
    chain: &Chain<'_>,
    refusal: Refusal<'_>,
    resolved: &Resolved,
    options: &EntryOptions,
) -> Result<StoreError, StoreError> {
    let message = refusal.error.to_string();
    let mut draft = Draft {
        character_id: refusal.character.map(|row| row.id),
        character_uid: refusal.character.and_then(|row| row.uid.clone()),
        character: refusal.character.map(|row| row.name.clone()),
        // The request's name, which a hidden entry shows: a refusal looks like its request to
        // whoever may not see the content; the content says it was refused.
        action: refusal.action.to_string(),
        inputs: json!({
            "kind": "refused",
            "action": refusal.action,
            "request": refusal.inputs,
        }),
        // An attempt refused before it drew dice took no seed.
        seed: resolved.seed.filter(|_| !refusal.drawn.is_empty()),
        draw: resolved.draw.clone().filter(|_| !refusal.drawn.is_empty()),
        dice_given: resolved.given && !refusal.drawn.is_empty(),
        dice: refusal.drawn,
        result: json!({ "error": message }),
        state_before: refusal.state_before,
        state_after: None,
        summary: format!("refused after it drew dice: {message}"),
        visibility: options.visibility,
        actor: None,
    };
    options.apply(&mut draft);
    let entry = chain.append(conn, draft)?;
    Ok(StoreError::Refused {
        sequence: entry.sequence,
        visibility: entry.visibility,
        error: Box::new(refusal.error),
    })
}

impl Store {
    /// The commitment of the draw the campaign's next entry will take: what a caller reads before
    /// it sends a roll or an action (with fresh entropy, and this commitment to be sure the draw is
    /// the one it saw). A campaign without a published draw gets one now.
    ///
    /// # Errors
    /// [`StoreError::NotFound`], [`StoreError::Key`] when a draw must be made without the key.
    pub fn next_draw_commitment(&mut self, campaign: &str) -> Result<String, StoreError> {
        if let Some(published) = self.published_draw_commitment(campaign)? {
            return Ok(published);
        }
        let key = self.signing_key()?;
        self.write(|conn| Ok(Chain::open(conn, campaign, &key)?.commitment()))
    }

    /// [`Store::next_draw_commitment`] as it stands, without making one: `None` when the campaign
    /// has published none for its next entry yet.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn published_draw_commitment(&self, campaign: &str) -> Result<Option<String>, StoreError> {
        self.read(|conn| {
            let id = crate::store::campaign_id(conn, campaign)?;
            let next = crate::log::head(conn, id)?.map_or(1, |head| head.sequence + 1);
            Ok(draw::stored(conn, id)?
                .filter(|pending| pending.sequence == next)
                .map(|pending| pending.commitment))
        })
    }

    /// [`Store::act`] as a request, with a visibility, an actor and the caller's entropy: a hidden
    /// action's content is committed in the log and kept for the game master (see
    /// [`crate::Visibility`]). An action the rule set refuses after it drew dice is logged as a
    /// `refused` entry, with the dice it drew, and the error names that entry.
    ///
    /// # Errors
    /// As [`Store::act`]; [`StoreError::Moved`] when the commitment the request names is no longer
    /// the next entry's; [`StoreError::Refused`] for a refusal after a draw (logged).
    pub fn perform(&mut self, request: ActionRequest<'_>) -> Result<LogEntry, StoreError> {
        let ActionRequest {
            campaign,
            character,
            action,
            dice,
            limits,
            options,
        } = request;
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let row = character_in(conn, &chain, character)?;
            if row.rule_set == PLAIN {
                return Err(StoreError::Invalid(format!(
                    "{} is a plain character (no rule set), so it takes no actions; roll for it with `omen roll EXPR --campaign {campaign} --char {}`",
                    row.name, row.name
                )));
            }
            let game = game(&row.rule_set)?;
            let before = game.load(row.state_version, &parse("state", &row.state)?)?;
            let name = action
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("action")
                .to_string();
            let inputs = json!({ "kind": "action", "rule_set": row.rule_set, "action": action });
            let request = request_of(&name, Some(&row), &options, &inputs);
            let resolved = resolve_dice(&chain, dice, &options, &request)?;
            let mut source = Recording::new(&resolved.dice);
            let applied = match game.apply(&before, action, &mut source, &limits) {
                Ok(applied) => applied,
                Err(error)
                    if (resolved.drawn() && !source.rolled().is_empty()) || options.log_refusals =>
                {
                    let refusal = Refusal {
                        character: Some(&row),
                        action: &name,
                        inputs,
                        state_before: Some(before),
                        drawn: source.rolled(),
                        error: error.into(),
                    };
                    return Ok(Err(log_refusal(conn, &chain, refusal, &resolved, &options)?));
                }
                Err(error) => return Err(error.into()),
            };
            if !source.unused().is_empty() {
                let unused: Vec<String> = source.unused().iter().map(i64::to_string).collect();
                return Err(StoreError::Invalid(format!(
                    "{} given dice value(s) left unused: {}; give exactly the dice the action rolls",
                    unused.len(),
                    unused.join(", ")
                )));
            }
            let rolled = source.rolled();
            let mut draft = Draft {
                character_id: Some(row.id),
                character_uid: row.uid.clone(),
                character: Some(row.name.clone()),
                action: name,
                inputs,
                // A roll that rolled nothing needs no seed.
                seed: resolved.seed.filter(|_| !rolled.is_empty()),
                draw: resolved.draw.clone().filter(|_| !rolled.is_empty()),
                dice_given: resolved.given && !rolled.is_empty(),
                dice: rolled,
                result: applied.result,
                state_before: Some(before),
                state_after: Some(applied.state.clone()),
                summary: applied.summary,
                visibility: options.visibility,
                actor: None,
            };
            options.apply(&mut draft);
            let entry = chain.append(conn, draft)?;
            conn.execute(
                "UPDATE character SET state = ?1, state_version = ?2, updated = ?3 WHERE id = ?4",
                params![applied.state.to_string(), game.state_version(), entry.time, row.id],
            )?;
            Ok(Ok(entry))
        })?
    }

    /// Rolls `expression` with `dice` and logs it (see [`Store::submit_roll`]); a roll that fails
    /// after it drew dice is logged as a `refused` entry.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn roll_logged(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        expression: &str,
        params: &BTreeMap<String, Value>,
        saved: Option<String>,
        dice: &Dice,
        limits: &Limits,
        options: &EntryOptions,
    ) -> Result<(LogEntry, ExpressionRoll), StoreError> {
        // Compile errors first, before the key is needed: they draw nothing.
        roll::check_expression(expression, params, limits)?;
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let row = character
                .map(|name| character_in(conn, &chain, name))
                .transpose()?;
            let inputs =
                expression_inputs(expression, params, saved.as_deref(), limits.explode_depth);
            let request = request_of("expression", row.as_ref(), options, &inputs);
            let resolved = resolve_dice(&chain, dice.clone(), options, &request)?;
            let (rolled, drawn) = roll::roll_drawing(expression, params, &resolved.dice, limits);
            let mut rolled = match rolled {
                Ok(rolled) => rolled,
                Err(error) if resolved.drawn() && !drawn.is_empty() => {
                    let refusal = Refusal {
                        character: row.as_ref(),
                        action: "expression",
                        inputs,
                        state_before: None,
                        drawn,
                        error,
                    };
                    return Ok(Err(log_refusal(conn, &chain, refusal, &resolved, options)?));
                }
                Err(error) => return Err(error),
            };
            rolled.record.saved_roll = saved;
            let entry = append_roll(
                conn,
                &chain,
                row.as_ref(),
                &rolled.record,
                &resolved,
                options,
            )?;
            Ok(Ok((entry, rolled)))
        })?
    }

    /// Logs a roll of an expression or script (from [`crate::roll_expression`]), optionally for a
    /// character, as given dice: a campaign's seeds come from its draws, which no roll made outside
    /// it can know. The record is rolled again from its dice first: a record whose dice do not give
    /// its result is refused, and so is one that names a seed.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for a record that does not roll to its result or whose seed was chosen,
    /// [`StoreError::NotFound`].
    pub fn log_roll(
        &mut self,
        campaign: &str,
        character: Option<&str>,
        entry: RollRecord,
    ) -> Result<LogEntry, StoreError> {
        roll::recheck(&entry, &Limits::default()).map_err(|problem| {
            StoreError::Invalid(format!("the roll cannot be logged: {problem}"))
        })?;
        if entry.seed.is_some() {
            return Err(chosen_seed());
        }
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let row = character
                .map(|name| character_in(conn, &chain, name))
                .transpose()?;
            let resolved = Resolved {
                dice: Dice::Given(entry.dice.iter().map(|die| die.face).collect()),
                seed: None,
                draw: None,
                given: !entry.dice.is_empty(),
            };
            append_roll(
                conn,
                &chain,
                row.as_ref(),
                &entry,
                &resolved,
                &EntryOptions::default(),
            )
        })
    }
}

/// The inputs of an expression entry: everything needed to roll it again.
fn expression_inputs(
    expression: &str,
    params: &BTreeMap<String, Value>,
    saved: Option<&str>,
    explode_depth: u64,
) -> Value {
    json!({
        "kind": "expression",
        "expression": expression,
        "params": params,
        "saved_roll": saved,
        "explode_depth": explode_depth,
    })
}

/// Writes a roll record known to roll to its result into the log.
fn append_roll(
    conn: &Conn<'_>,
    chain: &Chain<'_>,
    character: Option<&CharacterRow>,
    record: &RollRecord,
    resolved: &Resolved,
    options: &EntryOptions,
) -> Result<LogEntry, StoreError> {
    let summary = match &record.saved_roll {
        Some(saved) => format!("{saved}: {} = {}", record.expression, record.result),
        None => format!("{} = {}", record.expression, record.result),
    };
    let rolled = !record.dice.is_empty();
    let mut draft = Draft {
        character_id: character.map(|row| row.id),
        character_uid: character.and_then(|row| row.uid.clone()),
        character: character.map(|row| row.name.clone()),
        action: "expression".to_string(),
        inputs: expression_inputs(
            &record.expression,
            &record.params,
            record.saved_roll.as_deref(),
            record.explode_depth,
        ),
        seed: resolved.seed.filter(|_| rolled),
        draw: resolved.draw.clone().filter(|_| rolled),
        dice_given: resolved.given && rolled,
        dice: record.dice.clone(),
        result: record.result.clone(),
        state_before: None,
        state_after: None,
        summary,
        visibility: options.visibility,
        actor: None,
    };
    options.apply(&mut draft);
    chain.append(conn, draft)
}
