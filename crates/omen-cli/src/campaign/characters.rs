//! `omen char`: a campaign's characters, each bound to a rule set (or to none).

use omen_store::Store;
use serde_json::json;

use super::args::{CharArgs, CharCommand};
use super::shared::{attempt, campaign_name, confirmed, fail, print};
use crate::escape;
use crate::json_input::json_argument;
use crate::shared_args::RollFormat;
use crate::store_access::{open_read, open_write};

pub fn character(args: &CharArgs) -> anyhow::Result<bool> {
    let mut store = match &args.command {
        CharCommand::List | CharCommand::Show { .. } => {
            attempt!(open_read(&args.db.db, &args.db.key))
        }
        _ => attempt!(open_write(&args.db)),
    };
    let format = args.db.format;
    let campaign = attempt!(campaign_name(&store, &args.campaign));
    match &args.command {
        CharCommand::New { name, rules, sheet } => {
            let sheet = match sheet {
                Some(text) => attempt!(json_argument(text)),
                None => json!({}),
            };
            let created = attempt!(store.create_character(&campaign, name, rules, &sheet));
            print(
                format,
                &format!(
                    "{} ({}) joins `{}`\nstate: {}\n",
                    escape::line(&created.name),
                    escape::line(&created.rule_set),
                    escape::line(&campaign),
                    escape::line(&created.state.to_string())
                ),
                &created,
            )
        }
        CharCommand::List => {
            let characters = attempt!(store.characters(&campaign));
            let mut text = String::new();
            for c in &characters {
                text.push_str(&format!(
                    "{} ({})\n",
                    escape::line(&c.name),
                    escape::line(&c.rule_set)
                ));
            }
            if characters.is_empty() {
                text.push_str(&format!(
                    "no characters in `{}`; add one with `omen char new NAME --rules RULES`\n",
                    escape::line(&campaign)
                ));
            }
            print(format, &text, &characters)
        }
        CharCommand::Show { name } => show(&store, format, &campaign, name),
        CharCommand::Edit { name, state } => {
            let state = attempt!(json_argument(state));
            let c = attempt!(store.set_state(&campaign, name, &state));
            print(
                format,
                &format!(
                    "{} updated (a game-master edit, logged)\nstate: {}\n",
                    escape::line(&c.name),
                    escape::line(&c.state.to_string())
                ),
                &c,
            )
        }
        CharCommand::Rename { name, new_name } => {
            attempt!(store.rename_character(&campaign, name, new_name));
            print(
                format,
                &format!(
                    "`{}` is now `{}`\n",
                    escape::line(name),
                    escape::line(new_name)
                ),
                &json!({ "renamed": name, "to": new_name }),
            )
        }
        CharCommand::Delete { name, yes } => {
            attempt!(store.character(&campaign, name));
            if !attempt!(confirmed("character", name, *yes)) {
                return fail("not confirmed; nothing was deleted");
            }
            attempt!(store.delete_character(&campaign, name));
            print(
                format,
                &format!(
                    "`{}` deleted from `{}`\n",
                    escape::line(name),
                    escape::line(&campaign)
                ),
                &json!({ "deleted": name }),
            )
        }
    }
}

/// `omen char show`: the character's rule set and state, and the rule set's reading of it.
fn show(store: &Store, format: RollFormat, campaign: &str, name: &str) -> anyhow::Result<bool> {
    let c = attempt!(store.character(campaign, name));
    // The rule set's reading of the state for people (rating names, …), after the state.
    let summary = omen_rules::stateful::game(&c.rule_set).and_then(|g| g.summary(&c.state));
    let text = format!(
        "{} ({}, state version {})\n{}\n{}",
        escape::line(&c.name),
        escape::line(&c.rule_set),
        c.state_version,
        escape::lines(&format!("{:#}", c.state)),
        summary
            .as_ref()
            .map_or(String::new(), |(text, _)| escape::lines(text).into_owned())
    );
    let mut json = serde_json::to_value(&c)?;
    if let Some((_, summary)) = summary {
        json["summary"] = summary;
    }
    print(format, &text, &json)
}
