//! The `--char` form of every game action: the character's state read, the dice rolled, the new
//! state and the log entry written in one transaction of the campaign database.

use omen_core::Limits;
use omen_rules::Part;
use omen_rules::stateful::Game;
use omen_store::Dice;
use serde_json::{Value, json};

use super::shared::{attempt, campaign_name, fail, hidden_note, print};
use crate::act::{Holder, Seen, action_name};
use crate::escape;
use crate::shared_args::VisibilityArg;
use crate::store_access::open;

/// The `--char` form of a game action: one transaction in the campaign database.
pub fn act(
    game: &dyn Game,
    action: Value,
    holder: &Holder,
    limits: &Limits,
) -> anyhow::Result<bool> {
    let mut store = attempt!(open(&holder.db));
    let campaign = attempt!(campaign_name(&store, &holder.campaign));
    let name = holder.character.as_deref().unwrap_or_default();
    let character = attempt!(store.character(&campaign, name));
    if character.rule_set == omen_store::PLAIN {
        return fail(format!(
            "{} is a plain character (no rule set), so it takes no {} actions; roll for it with `omen roll EXPR --char {}`",
            escape::line(name),
            game.name(),
            escape::line(name)
        ));
    }
    if character.rule_set != game.name() {
        return fail(format!(
            "{name} plays {}, not {}; use `omen {} …` for this character",
            character.rule_set,
            game.name(),
            character.rule_set
        ));
    }
    let seen = Seen::of(game.name(), holder.view);
    if holder.odds {
        let odds = attempt!(store.odds(&campaign, name, &action, limits));
        let text = format!(
            "odds of {} for {name}:{}",
            action_name(&action),
            seen.odds_text(&odds)
        );
        return print(
            holder.source.format,
            &text,
            &json!({
                "action": seen.show(Part::Action, &action),
                "odds": seen.show(Part::Odds, &odds),
            }),
        );
    }
    let dice = match (&holder.source.dice, holder.source.seed) {
        (Some(values), _) => Dice::Given(values.clone()),
        (None, seed) => seed.map_or(Dice::Derived, Dice::Seed),
    };
    let options = VisibilityArg::options(holder.visibility);
    let request = omen_store::ActionRequest::new(&campaign, name, &action)
        .with_dice(dice)
        .with_limits(limits.clone())
        .with_options(options);
    let mut entry = attempt!(store.perform(request));
    // The log keeps everything; what is printed is what the view may see.
    entry.summary = seen.summary(&action, &entry.result, &entry.summary);
    entry.result = seen.show(Part::Result, &entry.result);
    if let Some(given) = entry.inputs.get_mut("action") {
        *given = seen.show(Part::Action, given);
    }
    entry.state_before = entry.state_before.map(|s| seen.show(Part::State, &s));
    entry.state_after = entry.state_after.map(|s| seen.show(Part::State, &s));
    let mut text = format!("{}: {}\n", escape::line(name), escape::line(&entry.summary));
    if !entry.dice.is_empty() {
        let faces: Vec<i64> = entry.dice.iter().map(|d| d.face).collect();
        let given = if entry.dice_given {
            " (given by hand, marked in the log)"
        } else {
            ""
        };
        text.push_str(&format!("dice: {faces:?}{given}\n"));
    }
    if let Some(seed) = entry.seed.filter(|_| !entry.dice.is_empty()) {
        text.push_str(&format!("seed: {seed}\n"));
    }
    text.push_str(&format!(
        "logged as entry {}{}\n",
        entry.sequence,
        hidden_note(&entry, &campaign)
    ));
    print(holder.source.format, &text, &entry)
}
