//! Stateful actions from the command line: one runner for every game's actions.
//!
//! An action applies to a character held in one of three places:
//!
//! * `--char NAME [--campaign C]`: a character in the campaign database (`--db`, else `$OMEN_DB`, else the
//!   platform data directory). The action is one transaction: state read, dice rolled, new state and log
//!   entry written, or nothing changes.
//! * `--state FILE`: a JSON state file (`{"rules", "version", "state"}`), created from `--sheet` when it does
//!   not exist and replaced atomically after the action, so a failed write leaves the old file whole.
//! * neither: a one-off character made from `--sheet` (JSON text or `@FILE`; default `{}`), shown after.
//!
//! `--odds` prints the exact odds of the action from the current state and rolls nothing.

mod holder;
mod odds_text;
mod state_file;

use std::io::Write;

use clap::Args;
use omen_core::{Limits, RecordingDice};
use omen_rules::Part;
use omen_rules::stateful::{self, ActionError, Game};
use serde_json::{Value, json};

pub use self::holder::{Holder, RollSource, Seen, action_name};
use self::state_file::{
    envelope, load_state_file, lock_state_file, new_character, write_atomically,
};
use crate::json_input::json_argument;
use crate::shared_args::RollFormat;

/// `omen act RULES ACTION`: an action as JSON, for scripts and for actions without their own flags.
#[derive(Debug, Args)]
pub struct ActArgs {
    #[arg(value_name = "RULES", help = format!(
        "The rule set: {}.",
        crate::shared_args::rule_set_names(true)
    ))]
    pub rules: String,
    /// The action: JSON text with an "action" field, or @FILE.
    #[arg(value_name = "ACTION")]
    pub action: String,
    #[command(flatten)]
    pub holder: Holder,
}

pub fn act(args: &ActArgs, limits: &Limits) -> anyhow::Result<bool> {
    match json_argument(&args.action) {
        Ok(action) => run(&args.rules, action, &args.holder, limits),
        Err(message) => fail(message),
    }
}

fn print(format: RollFormat, text: &str, report: &Value) -> anyhow::Result<()> {
    let mut out = crate::output::result();
    match format {
        RollFormat::Text => {
            out.write_all(crate::fit::wrap(text, crate::fit::width()).as_bytes())?
        }
        RollFormat::Json => writeln!(out, "{report}")?,
    }
    Ok(())
}

fn fail(message: impl std::fmt::Display) -> anyhow::Result<bool> {
    crate::fit::error(message);
    Ok(false)
}

/// Runs `action` of `game_name` for the holder; `false` when the input was bad (reported on stderr).
pub fn run(
    game_name: &str,
    action: Value,
    holder: &Holder,
    limits: &Limits,
) -> anyhow::Result<bool> {
    let Some(game) = stateful::game(game_name) else {
        let names: Vec<&str> = stateful::games().iter().map(|g| g.name()).collect();
        return fail(format!(
            "no game `{game_name}` keeps character state; choose one of: {}",
            names.join(", ")
        ));
    };
    let mut action = action;
    if let Some(rules) = omen_rules::find(game_name)
        && let Err(error) = omen_rules::set_options(rules, &mut action, &holder.options)
    {
        return fail(error);
    }
    if holder.character.is_some() {
        return crate::campaign::act(game, action, holder, limits);
    }
    let sheet = match &holder.sheet {
        Some(text) => match json_argument(text) {
            Ok(sheet) => Some(sheet),
            Err(message) => return fail(message),
        },
        None => None,
    };
    // Held until the new state is in place: concurrent updates of one file queue instead of racing.
    let _lock = match holder.state.as_deref().map(lock_state_file).transpose() {
        Ok(lock) => lock,
        Err(error) => return fail(format!("cannot lock the state file: {error}")),
    };
    let (state, created) = match &holder.state {
        Some(path) => match load_state_file(game, path, sheet.as_ref()) {
            Ok(loaded) => loaded,
            Err(message) => return fail(message),
        },
        None => match new_character(game, sheet.as_ref(), None) {
            Ok(state) => (state, true),
            Err(message) => return fail(message),
        },
    };
    let character = Character { state, created };
    if holder.odds {
        return match game.odds(&character.state, &action, limits) {
            Ok(odds) => print_odds(game, &character, &action, &odds, holder),
            Err(error) => fail(error),
        };
    }
    apply(game, &character, &action, holder, limits)
}

/// The character an action is for: its state, and whether it was made now (from `--sheet`, its
/// state file not written yet).
struct Character {
    state: Value,
    created: bool,
}

/// `--odds`: the exact odds of the action from the character's state, as the view may see them.
fn print_odds(
    game: &dyn Game,
    character: &Character,
    action: &Value,
    odds: &Value,
    holder: &Holder,
) -> anyhow::Result<bool> {
    let seen = Seen::of(game.name(), holder.view);
    let created = character.created;
    let mut text = format!("odds of {}:{}", action_name(action), seen.odds_text(odds));
    // The odds roll nothing, so they write nothing: a missing state file stays missing.
    if let Some(path) = holder.state.as_ref().filter(|_| created) {
        text.push_str(&format!(
            "state: {} not created (odds change nothing); the first action creates it\n",
            path.display()
        ));
    }
    print(
        holder.source.format,
        &text,
        &json!({
            "action": seen.show(Part::Action, action),
            "odds": seen.show(Part::Odds, odds),
        }),
    )?;
    Ok(true)
}

/// The action applied: dice rolled, the state file replaced (when there is one), the answer printed.
fn apply(
    game: &dyn Game,
    character: &Character,
    action: &Value,
    holder: &Holder,
    limits: &Limits,
) -> anyhow::Result<bool> {
    let (state, created) = (&character.state, character.created);
    let seen = Seen::of(game.name(), holder.view);
    let (mut source, seed) = holder.source.dice_source();
    let mut recorder = RecordingDice::new(source.as_mut());
    let applied = match game.apply(state, action, &mut recorder, limits) {
        Ok(applied) => applied,
        Err(error) => return fail(describe(&error)),
    };
    let dice = recorder.faces();
    // As in a campaign: dice given but not rolled mean the list or the action is not what the player
    // meant, so nothing is written.
    if let Some(given) = &holder.source.dice
        && given.len() > dice.len()
    {
        let unused: Vec<String> = given[dice.len()..].iter().map(i64::to_string).collect();
        return fail(format!(
            "{} given dice value(s) left unused: {}; give exactly the dice the action rolls",
            unused.len(),
            unused.join(", ")
        ));
    }
    if let Some(path) = &holder.state {
        let contents = format!("{:#}\n", envelope(game, &applied.state));
        if let Err(error) = write_atomically(path, &contents) {
            return fail(format!(
                "cannot write {}: {error}; the old state is unchanged",
                path.display()
            ));
        }
    }
    let summary = seen.summary(action, &applied.result, &applied.summary);
    let state_after = seen.show(Part::State, &applied.state);
    let mut text = format!("{summary}\n");
    if !dice.is_empty() {
        text.push_str(&format!("dice: {dice:?}\n"));
    }
    if let Some(seed) = seed.filter(|_| !dice.is_empty()) {
        text.push_str(&format!("seed: {seed}\n"));
    }
    match &holder.state {
        Some(path) if created => text.push_str(&format!("state: {} (created)\n", path.display())),
        Some(path) => text.push_str(&format!("state: {}\n", path.display())),
        None => text.push_str(&format!("state after: {state_after}\n")),
    }
    let report = json!({
        "rules": game.name(),
        "action": seen.show(Part::Action, action),
        "seed": seed,
        "dice": dice,
        "result": seen.show(Part::Result, &applied.result),
        "summary": summary,
        "state_before": seen.show(Part::State, state),
        "state_after": state_after,
    });
    print(holder.source.format, &text, &report)?;
    Ok(true)
}

/// An action error for people: given dice that ran out say how to fix that.
pub fn describe(error: &ActionError) -> String {
    match error {
        ActionError::Dice(core) => format!("{core}; give one value per die the action rolls"),
        other => other.to_string(),
    }
}
