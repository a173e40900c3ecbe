//! What the campaign commands share: the campaign named (or the database's only one), a confirmed
//! deletion, the viewer `--view` names, and the answer printed or the error reported.

use std::io::{self, BufRead, IsTerminal, Write};

use omen_store::{Member, Role, Store, Viewer, Visibility};
use serde::Serialize;

use crate::diagnostics::{Input, Style, render_diagnostics};
use crate::escape;
use crate::shared_args::{RollFormat, ViewArg};

/// Refuses an expression that does not compile, its errors drawn under it on stderr.
pub fn refuse_expression(
    expression: &str,
    errors: &[omen_lang::Diagnostic],
) -> anyhow::Result<bool> {
    let input = Input {
        text: expression,
        file: None,
    };
    eprint!("{}", render_diagnostics(Style::Text, input, errors, &[]));
    Ok(false)
}

pub fn fail(message: impl std::fmt::Display) -> anyhow::Result<bool> {
    // Messages name what the user typed or the database holds: escaped, their own line breaks kept.
    crate::fit::error(escape::lines(&message.to_string()));
    Ok(false)
}

pub fn print(format: RollFormat, text: &str, json: &impl Serialize) -> anyhow::Result<bool> {
    let mut out = crate::output::result();
    match format {
        RollFormat::Text => {
            out.write_all(crate::fit::wrap(text, crate::fit::width()).as_bytes())?
        }
        RollFormat::Json => writeln!(out, "{}", serde_json::to_string(json)?)?,
    }
    Ok(true)
}

/// The campaign named, or the database's only one.
pub fn campaign_name(store: &Store, named: &Option<String>) -> Result<String, String> {
    if let Some(name) = named {
        return Ok(name.clone());
    }
    let campaigns = store.campaigns().map_err(|e| e.to_string())?;
    match campaigns.as_slice() {
        [only] => Ok(only.name.clone()),
        [] => {
            Err("the database holds no campaign; create one with `omen campaign new NAME`".into())
        }
        many => Err(format!(
            "the database holds {} campaigns ({}); choose one with --campaign",
            many.len(),
            many.iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Asks the person at the terminal to type `name` to confirm; refuses without a terminal.
pub fn confirmed(what: &str, name: &str, yes: bool) -> Result<bool, String> {
    if yes {
        return Ok(true);
    }
    if !io::stdin().is_terminal() {
        return Err(format!(
            "deleting {what} `{name}` needs confirmation; add --yes to delete without asking"
        ));
    }
    eprint!("delete {what} `{name}`? type its name to confirm: ");
    let mut answer = String::new();
    io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| e.to_string())?;
    Ok(answer.trim() == name)
}

/// The value of a step that may fail, or the command ends with its error reported (`Ok(false)`).
macro_rules! attempt {
    ($e:expr) => {
        match $e {
            Ok(value) => value,
            Err(error) => return $crate::campaign::shared::fail(error),
        }
    };
}
pub(crate) use attempt;

/// The viewer `--view` and `--as-char` name: the game master, or a player known by the characters
/// they own (an observer without any); `None` for the database's whole content.
pub fn viewer(campaign: &str, view: Option<ViewArg>, characters: &[String]) -> Option<Viewer> {
    match view? {
        ViewArg::Gm => Some(Viewer::GameMaster),
        ViewArg::Player => Some(Viewer::Member(Member {
            campaign: campaign.to_string(),
            role: if characters.is_empty() {
                Role::Observer
            } else {
                Role::Player
            },
            characters: characters.to_vec(),
            // No invite: the player is known by the characters they own.
            invite_id: 0,
        })),
    }
}

/// What a logged entry's visibility means for the table, after "logged as entry N".
pub fn hidden_note(entry: &omen_store::LogEntry, campaign: &str) -> String {
    let who = match entry.visibility {
        Visibility::Public => return String::new(),
        Visibility::Private => "the roller and the game master",
        Visibility::Blind => "the game master",
        Visibility::SelfOnly => "the roller",
    };
    format!(
        " ({}: only {who} see{} it until `omen log reveal {} {}`)",
        entry.visibility,
        if entry.visibility == Visibility::Private {
            ""
        } else {
            "s"
        },
        escape::line(campaign),
        entry.sequence
    )
}
