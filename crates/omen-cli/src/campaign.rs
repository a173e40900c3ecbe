//! Campaigns that remember: `omen campaign`, `omen char`, `omen log`, `omen save`, `omen saved`,
//! `omen export` and `omen import`, and the `--char` form of every game action. The storage, the
//! transactions and the log's hash chain are omen-store's; this reads arguments and prints.
//!
//! The database is `--db PATH`, else `$OMEN_DB`, else `omen.db` in the platform data directory; its
//! signing key is `--key PATH`, else `$OMEN_KEY`, else the database's path with `.key` appended. A
//! command that names no campaign uses the database's only campaign, and says so when there are several.
//! Commands that only read (`campaign list|show`, `char list|show`, `log`, `saved list`, `export`)
//! never create a directory, a database or a key. Stored text is escaped on its way to a terminal
//! ([`crate::escape`]).

use std::collections::BTreeMap;
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, Subcommand};
use omen_core::Limits;
use omen_rules::Part;
use omen_rules::stateful::Game;
use omen_store::{Dice, LogFilter, Member, Role, SavedRoll, Store, StoreError, Viewer, Visibility};
use serde::Serialize;
use serde_json::{Value, json};

use crate::act::{Holder, action_name};
use crate::diagnostics::{Input, Style, render_diagnostics};
use crate::escape;
use crate::json_input::{json_argument, read_text_at_most};
pub use crate::log_args::{LogArgs, LogCommand, LogFilterArgs};
use crate::shared_args::{
    DialectArg, InputArgs, RollFormat, ScriptArgs, ViewArg, VisibilityArg, parse_param,
};
pub use crate::store_access::{DbArgs, open, open_read};
use crate::store_access::{open_to_create, open_write};
use crate::words::count;

#[derive(Debug, Args)]
pub struct CampaignArgs {
    #[command(subcommand)]
    pub command: CampaignCommand,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Subcommand)]
pub enum CampaignCommand {
    /// Create a campaign.
    #[command(
        after_help = "Examples:\n  omen campaign new Ravenloft\n  omen campaign new Ravenloft --db table.db"
    )]
    New {
        /// The new campaign's name.
        name: String,
    },
    /// List the campaigns.
    #[command(after_help = "Examples:\n  omen campaign list\n  omen campaign list --format json")]
    List,
    /// Show a campaign: its characters, saved rolls, log length and public key.
    #[command(
        after_help = "Examples:\n  omen campaign show\n  omen campaign show Ravenloft --format json"
    )]
    Show {
        /// The campaign (may be left out when the database holds one campaign).
        name: Option<String>,
    },
    /// Rename a campaign.
    #[command(after_help = "Examples:\n  omen campaign rename Ravenloft Barovia")]
    Rename {
        /// The campaign's name now.
        name: String,
        /// Its new name.
        new_name: String,
    },
    /// Change a campaign's settings: the dice notation its rolls and saved rolls are typed in.
    #[command(after_help = "Examples:\n  omen campaign set Ravenloft --dialect roll20")]
    Set {
        /// The campaign.
        name: String,
        /// The dialect `omen roll` and `omen save` read in this campaign unless `--dialect` says
        /// otherwise (see docs/dialects.md).
        #[arg(
            long,
            value_name = "NAME",
            value_parser = clap::builder::PossibleValuesParser::new(omen_lang::syntax::Dialect::names())
        )]
        dialect: String,
    },
    /// Delete a campaign with its characters, saved rolls and log (asks to confirm).
    #[command(
        after_help = "Examples:\n  omen campaign delete Ravenloft\n  omen campaign delete Ravenloft --yes"
    )]
    Delete {
        /// The campaign to delete.
        name: String,
        /// Delete without asking.
        #[arg(long)]
        yes: bool,
    },
    /// Invite a member: prints a token, once, for the member to sign in with (only its hash is
    /// kept). Logged, without the token.
    #[command(
        after_help = "Examples:\n  omen campaign invite Ravenloft --role gm\n  omen campaign invite Ravenloft --role player --char Jane --char Bruce\n  omen campaign invite Ravenloft --role observer"
    )]
    Invite {
        /// The campaign the member joins.
        campaign: String,
        /// gm does everything; player acts for the characters named with --char; observer reads.
        #[arg(long, value_enum, ignore_case = true)]
        role: RoleArg,
        /// A character the player owns (repeat for several).
        #[arg(long = "char", value_name = "NAME")]
        characters: Vec<String>,
    },
    /// List a campaign's invites (never their tokens).
    #[command(after_help = "Examples:\n  omen campaign invites Ravenloft")]
    Invites {
        /// The campaign whose invites to list.
        campaign: String,
    },
    /// Revoke an invite by its number (from `omen campaign invites`): its token stops working.
    #[command(
        after_help = "Examples:\n  omen campaign invites Ravenloft\n  omen campaign revoke Ravenloft 2"
    )]
    Revoke {
        /// The campaign the invite belongs to.
        campaign: String,
        /// The invite's number, as `omen campaign invites` lists it.
        id: i64,
    },
}

/// A member's role, as `--role` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RoleArg {
    /// The game master: everything.
    Gm,
    /// A player: acts for the characters they own.
    Player,
    /// An observer: reads only.
    Observer,
}

impl From<RoleArg> for Role {
    fn from(role: RoleArg) -> Role {
        match role {
            RoleArg::Gm => Role::GameMaster,
            RoleArg::Player => Role::Player,
            RoleArg::Observer => Role::Observer,
        }
    }
}

#[derive(Debug, Args)]
pub struct CharArgs {
    #[command(subcommand)]
    pub command: CharCommand,
    /// The campaign (may be left out when the database holds one campaign).
    #[arg(long, value_name = "NAME", global = true)]
    pub campaign: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Subcommand)]
pub enum CharCommand {
    /// Create a character bound to a rule set, from its sheet (checked: every problem is listed), or a
    /// plain character bound to none, for ordinary rolls logged under its name.
    #[command(
        after_help = "Examples:\n  omen char new Jane --rules hprpg --sheet @jane.json\n  omen rules luck --example > lucky.json && omen char new Lucky --rules luck --sheet @lucky.json\n  omen char new Bob"
    )]
    New {
        /// The character's name, unique in the campaign.
        name: String,
        /// The rule set: ritual, spelldice, luck, hprpg or t13; none (the default) for a plain
        /// character.
        #[arg(long, value_name = "RULES", default_value = omen_store::PLAIN)]
        rules: String,
        /// The sheet: JSON text, or @FILE [default: {}].
        #[arg(long, value_name = "JSON")]
        sheet: Option<String>,
    },
    /// List the campaign's characters.
    #[command(
        after_help = "Examples:\n  omen char list\n  omen char list --campaign Ravenloft --format json"
    )]
    List,
    /// Show a character's rule set and state.
    #[command(after_help = "Examples:\n  omen char show Jane\n  omen char show Jane --format json")]
    Show {
        /// The character.
        name: String,
    },
    /// Replace a character's state (JSON text or @FILE), checked by its rule set and logged.
    #[command(
        after_help = "Examples:\n  omen char show Jane --format json > jane.json\n  omen char edit Jane --state @jane-state.json"
    )]
    Edit {
        /// The character.
        name: String,
        /// The new state: JSON text, or @FILE (`omen rules GAME --schema` describes it).
        #[arg(long, value_name = "JSON")]
        state: String,
    },
    /// Rename a character.
    #[command(after_help = "Examples:\n  omen char rename Jane Janet")]
    Rename {
        /// The character's name now.
        name: String,
        /// Its new name.
        new_name: String,
    },
    /// Delete a character (asks to confirm); its log entries stay.
    #[command(after_help = "Examples:\n  omen char delete Jane\n  omen char delete Jane --yes")]
    Delete {
        /// The character to delete.
        name: String,
        /// Delete without asking.
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Debug, Args)]
pub struct SaveArgs {
    /// The saved roll's name (used as `omen roll @NAME`).
    pub name: String,
    /// The expression or script (or -f FILE).
    #[arg(required_unless_present = "file")]
    pub expression: Option<String>,
    /// Read the script from FILE.
    #[arg(short = 'f', long, value_name = "FILE", conflicts_with = "expression")]
    pub file: Option<PathBuf>,
    /// Default parameter values, NAME=VALUE (a `--param` at roll time overrides them).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// A line saying what the roll is for.
    #[arg(long, value_name = "TEXT")]
    pub description: Option<String>,
    /// Replace a saved roll of the same name.
    #[arg(long)]
    pub replace: bool,
    /// The campaign (may be left out when the database holds one campaign).
    #[arg(long, value_name = "NAME")]
    pub campaign: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct SavedArgs {
    #[command(subcommand)]
    pub command: SavedCommand,
    /// The campaign (may be left out when the database holds one campaign).
    #[arg(long, value_name = "NAME", global = true)]
    pub campaign: Option<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Subcommand)]
pub enum SavedCommand {
    /// List the campaign's saved rolls.
    #[command(
        after_help = "Examples:\n  omen saved list\n  omen saved list --campaign Ravenloft --format json"
    )]
    List,
    /// Delete a saved roll.
    #[command(after_help = "Examples:\n  omen saved delete attack")]
    Delete {
        /// The saved roll's name.
        name: String,
    },
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The campaign to export (may be left out when the database holds one campaign).
    pub campaign: Option<String>,
    /// Export what this viewer may see: gm, or player (hidden rolls and game-master-only fields
    /// withheld). Such a copy is for reading: import refuses it.
    #[arg(long, value_enum, ignore_case = true)]
    pub view: Option<ViewArg>,
    /// With --view player: the player of this character (repeat for each); else an observer.
    #[arg(long = "as-char", value_name = "NAME", requires = "view")]
    pub as_characters: Vec<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A file written by `omen export` (`-` for stdin).
    pub file: PathBuf,
    /// Import under this name instead of the exported one.
    #[arg(long = "as", value_name = "NAME")]
    pub as_name: Option<String>,
    /// The most bytes of the export read; a larger file is refused before it is parsed (at most
    /// 1 GiB).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_IMPORT,
          value_parser = clap::value_parser!(u64).range(1..=(1 << 30)))]
    pub max_input: u64,
    #[command(flatten)]
    pub db: DbArgs,
}

/// Refuses an expression that does not compile, its errors drawn under it on stderr.
fn refuse_expression(expression: &str, errors: &[omen_lang::Diagnostic]) -> anyhow::Result<bool> {
    let input = Input {
        text: expression,
        file: None,
    };
    eprint!("{}", render_diagnostics(Style::Text, input, errors, &[]));
    Ok(false)
}

fn fail(message: impl std::fmt::Display) -> anyhow::Result<bool> {
    // Messages name what the user typed or the database holds: escaped, their own line breaks kept.
    crate::fit::error(escape::lines(&message.to_string()));
    Ok(false)
}

fn print(format: RollFormat, text: &str, json: &impl Serialize) -> anyhow::Result<bool> {
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
fn confirmed(what: &str, name: &str, yes: bool) -> Result<bool, String> {
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

macro_rules! attempt {
    ($e:expr) => {
        match $e {
            Ok(value) => value,
            Err(error) => return fail(error),
        }
    };
}

pub fn campaign(args: &CampaignArgs) -> anyhow::Result<bool> {
    let mut store = match &args.command {
        CampaignCommand::List | CampaignCommand::Show { .. } | CampaignCommand::Invites { .. } => {
            attempt!(open_read(&args.db.db, &args.db.key))
        }
        CampaignCommand::New { .. } => attempt!(open_to_create(&args.db)),
        _ => attempt!(open_write(&args.db)),
    };
    let format = args.db.format;
    match &args.command {
        CampaignCommand::New { name } => {
            let campaign = attempt!(store.create_campaign(name));
            print(
                format,
                &format!(
                    "campaign `{}` created in {}\n",
                    escape::line(&campaign.name),
                    escape::line(&store.path().display().to_string())
                ),
                &campaign,
            )
        }
        CampaignCommand::List => {
            let campaigns = attempt!(store.campaigns());
            let mut text = String::new();
            for c in &campaigns {
                text.push_str(&format!("{}\n", escape::line(&c.name)));
            }
            if campaigns.is_empty() {
                text.push_str("no campaigns; create one with `omen campaign new NAME`\n");
            }
            print(format, &text, &campaigns)
        }
        CampaignCommand::Show { name } => {
            let name = attempt!(campaign_name(&store, name));
            let campaign = attempt!(store.campaign(&name));
            let characters = attempt!(store.characters(&name));
            let saved = attempt!(store.saved_rolls(&name));
            let entries = attempt!(store.log(&LogFilter {
                campaign: Some(name.clone()),
                ..LogFilter::default()
            }));
            let public_key = attempt!(store.public_key(&name));
            let fingerprint = public_key.as_deref().map(omen_store::fingerprint);
            let head = attempt!(store.head(&name));
            let mut text = format!("campaign `{}`\n", escape::line(&campaign.name));
            text.push_str(&format!("dialect: {}\n", escape::line(&campaign.dialect)));
            text.push_str(&format!("characters ({}):\n", characters.len()));
            for c in &characters {
                text.push_str(&format!(
                    "  {} ({})\n",
                    escape::line(&c.name),
                    escape::line(&c.rule_set)
                ));
            }
            text.push_str(&format!("saved rolls ({}):\n", saved.len()));
            for s in &saved {
                text.push_str(&format!(
                    "  @{} = {}\n",
                    escape::line(&s.name),
                    escape::line(&s.expression)
                ));
            }
            text.push_str(&format!("log entries: {}\n", entries.len()));
            if let Some(head) = &head {
                text.push_str(&format!("log head: {}\n", head.receipt()));
            }
            match (&public_key, &fingerprint) {
                (Some(key), Some(print)) => {
                    text.push_str(&format!("public key: {key}\nfingerprint: {print}\n"))
                }
                _ => text.push_str("public key: none (the campaign is not signed)\n"),
            }
            print(
                format,
                &text,
                &json!({
                    "campaign": campaign, "characters": characters, "saved_rolls": saved,
                    "log_entries": entries.len(), "head": head,
                    "public_key": public_key, "fingerprint": fingerprint,
                }),
            )
        }
        CampaignCommand::Rename { name, new_name } => {
            attempt!(store.rename_campaign(name, new_name));
            print(
                format,
                &format!("campaign `{name}` is now `{new_name}`\n"),
                &json!({ "renamed": name, "to": new_name }),
            )
        }
        CampaignCommand::Set { name, dialect } => {
            attempt!(store.set_campaign_dialect(name, dialect));
            let campaign = attempt!(store.campaign(name));
            print(
                format,
                &format!(
                    "campaign `{}` reads its rolls in the {} dialect\n",
                    escape::line(name),
                    campaign.dialect
                ),
                &campaign,
            )
        }
        CampaignCommand::Delete { name, yes } => {
            attempt!(store.campaign(name));
            if !attempt!(confirmed("campaign", name, *yes)) {
                return fail("not confirmed; nothing was deleted");
            }
            attempt!(store.delete_campaign(name));
            print(
                format,
                &format!("campaign `{name}` deleted\n"),
                &json!({ "deleted": name }),
            )
        }
        CampaignCommand::Invite {
            campaign,
            role,
            characters,
        } => {
            let names: Vec<&str> = characters.iter().map(String::as_str).collect();
            let (invite, token) =
                attempt!(store.create_invite_for(campaign, (*role).into(), &names));
            let owns = if invite.characters.is_empty() {
                String::new()
            } else {
                format!(" owning {}", escape::line(&invite.characters.join(", ")))
            };
            let text = format!(
                "invite {} to `{}`: a {}{owns}\ntoken: {token}\nthis token is shown only now; give it to the member (revoke it with `omen campaign revoke {} {}`)\n",
                invite.id,
                escape::line(campaign),
                invite.role,
                escape::line(campaign),
                invite.id
            );
            print(format, &text, &json!({ "invite": invite, "token": token }))
        }
        CampaignCommand::Invites { campaign } => {
            let invites = attempt!(store.invites(campaign));
            let mut text = String::new();
            for invite in &invites {
                let owns = if invite.characters.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", escape::line(&invite.characters.join(", ")))
                };
                let state = match &invite.revoked {
                    Some(when) => format!("revoked {}", escape::line(when)),
                    None => "active".to_string(),
                };
                text.push_str(&format!(
                    "{:>4}  {:<8}{owns}  created {}  {state}\n",
                    invite.id,
                    invite.role.as_str(),
                    escape::line(&invite.created)
                ));
            }
            if invites.is_empty() {
                text.push_str(&format!(
                    "no invites; make one with `omen campaign invite {} --role gm`\n",
                    escape::line(campaign)
                ));
            }
            print(format, &text, &invites)
        }
        CampaignCommand::Revoke { campaign, id } => {
            let invite = attempt!(store.revoke_invite(campaign, *id));
            print(
                format,
                &format!(
                    "invite {} of `{}` revoked: its token no longer works\n",
                    invite.id,
                    escape::line(campaign)
                ),
                &invite,
            )
        }
    }
}

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
        CharCommand::Show { name } => {
            let c = attempt!(store.character(&campaign, name));
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
    let seen = crate::act::Seen::of(game.name(), holder.view);
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

/// The viewer `--view` and `--as-char` name: the game master, or a player known by the characters
/// they own (an observer without any); `None` for the database's whole content.
fn viewer(campaign: &str, view: Option<ViewArg>, characters: &[String]) -> Option<Viewer> {
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

/// The lines of one section of a fairness report.
fn fairness_text(text: &mut String, section: &omen_store::FairnessSection) {
    let pooled = |fit: &Option<omen_store::Fit>| {
        if fit.as_ref().is_some_and(|f| f.pooled) {
            " [small outcomes pooled]"
        } else {
            ""
        }
    };
    for die in &section.dice {
        let given = if die.given > 0 {
            format!(" ({} given by hand)", die.given)
        } else {
            String::new()
        };
        text.push_str(&format!(
            "  {:<10} {:>6} rolled{given}: {}{}\n",
            escape::line(&die.die),
            die.rolled,
            die.summary,
            pooled(&die.fit)
        ));
        power_lines(text, &die.power);
    }
    for mechanic in &section.mechanics {
        text.push_str(&format!(
            "  {:<10} {:>10}: {}{}\n",
            escape::line(&mechanic.mechanic),
            count(mechanic.rolls, "roll", "rolls"),
            escape::line(&mechanic.summary),
            pooled(&mechanic.fit)
        ));
        power_lines(text, &mechanic.power);
    }
}

/// What a verdict can see, under it: "with 100 rolls of d20 this test tells a fair die from one
/// that never shows 20 only 31 % of the time".
fn power_lines(text: &mut String, power: &[omen_store::Power]) {
    for figure in power {
        text.push_str(&format!("      {}\n", escape::line(&figure.text)));
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

fn filter(store: &Store, args: &LogFilterArgs) -> Result<LogFilter, String> {
    Ok(LogFilter {
        campaign: Some(campaign_name(store, &args.campaign)?),
        character: args.character.clone(),
        action: args.action.clone(),
        since: args.since.clone(),
        until: args.until.clone(),
        last: args.last,
    })
}

pub fn log(args: &LogArgs, limits: &Limits) -> anyhow::Result<bool> {
    let format = args.db.format;
    let named = attempt!(args.campaign());
    if let Some(LogCommand::Reveal { words }) = &args.command {
        let sequence = attempt!(crate::log_args::entry_number(words));
        let mut store = attempt!(open_write(&args.db));
        let campaign = &attempt!(campaign_name(&store, &named));
        let entry = attempt!(store.reveal(campaign, sequence));
        return print(
            format,
            &format!(
                "entry {sequence} of `{}` is revealed (by entry {}): everyone sees it now, and `omen log verify` checks it against its commitment\n",
                escape::line(campaign),
                entry.sequence
            ),
            &entry,
        );
    }
    let store = attempt!(open_read(&args.db.db, &args.db.key));
    // `omen log verfy` reads as a campaign named `verfy`: name the subcommand it resembles.
    if let (None, Some(name)) = (&args.command, &args.campaign)
        && store.campaign(name).is_err()
        && let Some(meant) = crate::log_args::log_subcommand_like(name)
    {
        let name = escape::line(name);
        return fail(format!(
            "no campaign `{name}`; did you mean `omen log {meant}`?"
        ));
    }
    let mut filter_args = args.filter.clone();
    filter_args.campaign = named;
    let filter = attempt!(filter(&store, &filter_args));
    let campaign = filter.campaign.clone().unwrap_or_default();
    if args.view.is_some()
        && matches!(
            args.command,
            Some(LogCommand::Stats { .. } | LogCommand::Replay { .. })
        )
    {
        return fail(
            "--view applies to listing, verify, fairness and export; stats and replay read the whole database, for its owner",
        );
    }
    let list = LogCommand::List { campaign: None };
    match args.command.as_ref().unwrap_or(&list) {
        LogCommand::List { .. } => {
            let entries = match viewer(&campaign, args.view, &args.as_characters) {
                None => attempt!(store.log(&filter)),
                Some(viewer) => attempt!(store.log_for(&filter, &viewer)),
            };
            let mut text = String::new();
            for e in &entries {
                // What an entry is beyond its summary: dice entered by hand, a game master's edit, a
                // re-anchoring under a key, a hidden roll.
                let hidden;
                let mark = match (e.dice_given, e.action.as_str()) {
                    (true, _) => "  [given dice]",
                    (_, "edit") => "  [game-master edit]",
                    (_, "migrate" | "import") => "  [re-anchored]",
                    _ if !e.visibility.is_public() => {
                        hidden = format!("  [{}]", e.visibility);
                        hidden.as_str()
                    }
                    _ => "",
                };
                text.push_str(&format!(
                    "{:>4}  {}  {:<10} {:<14} {}{mark}\n",
                    e.sequence,
                    escape::line(&e.time),
                    escape::line(e.character.as_deref().unwrap_or("-")),
                    escape::line(&e.action),
                    escape::line(&e.summary)
                ));
            }
            if entries.is_empty() {
                text.push_str("no entries\n");
            }
            print(format, &text, &entries)
        }
        LogCommand::Verify { since, .. } => {
            if let Some(viewer) = viewer(&campaign, args.view, &args.as_characters) {
                // The check a viewer can make of what they see, without the database's hidden parts.
                let whole = LogFilter {
                    campaign: Some(campaign.clone()),
                    ..LogFilter::default()
                };
                let entries = attempt!(store.log_for(&whole, &viewer));
                let Some(key) = attempt!(store.public_key(&campaign)) else {
                    return fail(format!(
                        "campaign `{}` has no public key to check its log with",
                        escape::line(&campaign)
                    ));
                };
                let report = omen_store::verify_view(&entries, &key);
                let shown = escape::line(&campaign);
                let mut text = if report.is_ok() {
                    format!(
                        "the log of `{shown}` as this view sees it is intact: {} linked and signed, {} recomputed (hidden rolls from their commitments), {} checked against their commitments\n",
                        count(report.entries, "entry", "entries"),
                        count(report.hashes_checked, "hash", "hashes"),
                        count(
                            report.commitments_checked,
                            "revealed or visible hidden roll",
                            "revealed or visible hidden rolls"
                        )
                    )
                } else {
                    let mut text = format!("the log of `{shown}` does not verify in this view:\n");
                    for p in &report.problems {
                        text.push_str(&format!("  {}\n", escape::line(&p.to_string())));
                    }
                    text
                };
                if report.content_withheld > 0 {
                    text.push_str(&format!(
                        "{} fields kept for the game master: their place and signature are checked, not their content\n",
                        if report.content_withheld == 1 {
                            "1 entry holds".to_string()
                        } else {
                            format!("{} entries hold", report.content_withheld)
                        }
                    ));
                }
                if report.sealed > 0 {
                    text.push_str(&format!(
                        "{} fields kept for the game master, sealed: the hash is checked from what this view shows, the fields stay behind a salted commitment\n",
                        if report.sealed == 1 {
                            "1 entry holds".to_string()
                        } else {
                            format!("{} entries hold", report.sealed)
                        }
                    ));
                }
                text.push_str(&format!(
                    "signed with key {}\n",
                    omen_store::fingerprint(&key)
                ));
                let ok = report.is_ok();
                print(format, &text, &report)?;
                return Ok(ok);
            }
            let report = match since {
                Some(receipt) => {
                    let receipt: omen_store::Receipt = attempt!(receipt.parse());
                    attempt!(store.verify_since(&campaign, &receipt))
                }
                None => attempt!(store.verify(&campaign)),
            };
            let shown = escape::line(&campaign);
            let mut text = if report.problems.is_empty() {
                format!(
                    "the log of `{shown}` is intact: {}, every hash, signature and seed verified, every character's state agrees with its last entry\n",
                    count(report.entries, "entry", "entries")
                )
            } else {
                let mut text = format!("the log of `{shown}` has been tampered with:\n");
                for p in &report.problems {
                    text.push_str(&format!("  {}\n", escape::line(&p.to_string())));
                }
                text
            };
            if let Some(print) = &report.fingerprint {
                let checked = if report.key_file_checked {
                    "the key in your key file"
                } else {
                    "no key file here to compare with: compare the fingerprint with the one you trust"
                };
                text.push_str(&format!("signed with key {print} ({checked})\n"));
            }
            if report.unsigned_entries > 0 {
                text.push_str(&format!(
                    "entries 1 to {} were written before logs were signed: they are vouched for only from the migration entry that re-anchored them\n",
                    report.unsigned_entries
                ));
            }
            if let (Some(receipt), true) = (since, report.problems.is_empty()) {
                text.push_str(&format!(
                    "the log extends your receipt {}\n",
                    escape::line(receipt)
                ));
            }
            let ok = report.problems.is_empty();
            print(format, &text, &report)?;
            Ok(ok)
        }
        LogCommand::Head { .. } => {
            let head = attempt!(store.head(&campaign));
            let next_draw = attempt!(store.published_draw_commitment(&campaign));
            let text = match &head {
                Some(head) => format!("{}\n", head.receipt()),
                None => format!("the log of `{}` is empty\n", escape::line(&campaign)),
            };
            print(
                format,
                &text,
                &json!({
                    "campaign": campaign,
                    "head": head,
                    "receipt": head.as_ref().map(omen_store::ChainHead::receipt),
                    // What the next entry's draw is committed to (see the README's trust model).
                    "next_draw_commitment": next_draw,
                }),
            )
        }
        LogCommand::Replay { .. } => {
            let report = attempt!(store.replay(&campaign, limits));
            let text = if report.problems.is_empty() {
                format!(
                    "replayed {} of `{campaign}`: every result and state is the same\n",
                    count(report.replayed, "entry", "entries")
                )
            } else {
                let mut text = format!(
                    "replayed {} of `{campaign}`; these differ:\n",
                    count(report.replayed, "entry", "entries")
                );
                for problem in &report.problems {
                    text.push_str(&format!("  {}\n", escape::line(&problem.to_string())));
                }
                text
            };
            let ok = report.problems.is_empty();
            print(format, &text, &report)?;
            Ok(ok)
        }
        LogCommand::Stats { .. } => {
            let sessions = attempt!(store.statistics(&filter));
            let mut text = String::new();
            for s in &sessions {
                text.push_str(&format!(
                    "session {} ({} to {}): {}, {}, {}\n",
                    s.session,
                    s.first,
                    s.last,
                    count(s.entries, "entry", "entries"),
                    count(s.rolls, "roll", "rolls"),
                    count(s.dice, "die", "dice")
                ));
                for die in &s.by_die {
                    let faces: Vec<String> = die
                        .faces
                        .iter()
                        .map(|f| format!("{}×{}", f.face, f.count))
                        .collect();
                    let expected = die
                        .expected_mean
                        .map_or(String::new(), |m| format!(" (fair: {m:.2})"));
                    text.push_str(&format!(
                        "  {:<6} {:>5} rolled, mean {:.2}{expected}: {}\n",
                        die.die,
                        die.rolled,
                        die.mean,
                        faces.join(" ")
                    ));
                }
            }
            if sessions.is_empty() {
                text.push_str("no rolls\n");
            }
            print(format, &text, &sessions)
        }
        LogCommand::Fairness { session, .. } => {
            let mut filter = filter;
            if let Some(date) = session {
                let (since, until) = attempt!(omen_store::session_bounds(date));
                filter.since = Some(since);
                filter.until = Some(until);
            }
            let report = match viewer(&campaign, args.view, &args.as_characters) {
                Some(viewer) => attempt!(store.fairness_for(&campaign, &filter, &viewer)),
                None => attempt!(store.fairness(&campaign, &filter)),
            };
            let mut text = format!(
                "fairness of `{}`{}: {}\n",
                escape::line(&campaign),
                session.as_ref().map_or(String::new(), |d| format!(
                    " in session {}",
                    escape::line(d)
                )),
                count(report.whole.rolls, "roll", "rolls")
            );
            fairness_text(&mut text, &report.whole);
            if session.is_none() && report.sessions.len() > 1 {
                for s in &report.sessions {
                    text.push_str(&format!(
                        "session {}: {}\n",
                        s.session,
                        count(s.section.rolls, "roll", "rolls")
                    ));
                    fairness_text(&mut text, &s.section);
                }
            }
            if report.whole.rolls == 0 {
                text.push_str("no rolls to test\n");
            }
            print(format, &text, &report)
        }
        LogCommand::Reveal { .. } => unreachable!("handled before the store is opened to read"),
    }
}

/// `--param NAME=VALUE` values as JSON, read the way the language reads parameter values.
fn json_params(params: &[String]) -> Result<BTreeMap<String, Value>, String> {
    let parsed = params
        .iter()
        .map(|p| parse_param(p))
        .collect::<Result<Vec<_>, String>>()?;
    json_param_values(&parsed)
}

/// Parameter values of the language as the JSON a campaign stores them in.
pub fn json_param_values(
    params: &[(String, omen_lang::Value)],
) -> Result<BTreeMap<String, Value>, String> {
    params
        .iter()
        .map(|(name, value)| {
            let value = serde_json::to_value(value).map_err(|e| e.to_string())?;
            Ok((name.clone(), value))
        })
        .collect()
}

/// The saved roll `name` as a script to compute: its text, with its default parameters under the
/// ones given on the command line.
pub fn saved_input(
    name: &str,
    campaign: &Option<String>,
    db: &Option<PathBuf>,
    given: &ScriptArgs,
) -> Result<(InputArgs, ScriptArgs), String> {
    let store = open_read(db, &None).map_err(|e| e.to_string())?;
    let campaign = campaign_name(&store, campaign)?;
    let saved = store
        .saved_roll(&campaign, name)
        .map_err(|e| e.to_string())?;
    let params = saved
        .params_with(&json_param_values(&given.params)?)
        .iter()
        .map(|(key, value)| Ok((key.clone(), omen_store::param_value(key, value)?)))
        .collect::<Result<Vec<_>, omen_store::StoreError>>()
        .map_err(|e| e.to_string())?;
    Ok((
        InputArgs {
            expression: Some(saved.expression),
            file: None,
        },
        // A saved roll is kept in Omen's own notation.
        ScriptArgs {
            params,
            dialect: DialectArg::omen(),
        },
    ))
}

pub fn save(args: &SaveArgs) -> anyhow::Result<bool> {
    let mut store = attempt!(open_write(&args.db));
    let campaign = attempt!(campaign_name(&store, &args.campaign));
    let expression = match (&args.expression, &args.file) {
        (Some(text), _) => text.clone(),
        (None, Some(path)) => attempt!(
            std::fs::read_to_string(path)
                .map(|text| text.trim_end().to_string())
                .map_err(|e| format!("cannot read {}: {e}", path.display()))
        ),
        (None, None) => return fail("give an expression or -f FILE"),
    };
    let params = attempt!(json_params(&args.params));
    // Saved rolls are kept in Omen's notation: one typed in the campaign's dialect is kept as its
    // reading.
    let dialect = attempt!(store.campaign(&campaign)).dialect;
    let expression = match omen_lang::syntax::Dialect::named(&dialect) {
        Some(dialect) if dialect.name != "omen" => {
            match omen_store::in_omen_notation(&expression, dialect, &params, &Limits::default()) {
                Ok((reading, _)) => reading,
                Err(StoreError::Language(errors)) => {
                    return refuse_expression(&expression, &errors);
                }
                Err(error) => return fail(error),
            }
        }
        _ => expression,
    };
    // A saved roll that does not compile would fail every time it is used: refuse it now, drawn.
    match omen_store::check_expression(&expression, &params, &Limits::default()) {
        Ok(_) => {}
        Err(StoreError::Language(errors)) => return refuse_expression(&expression, &errors),
        Err(error) => return fail(error),
    }
    let saved = SavedRoll {
        name: args.name.trim_start_matches('@').to_string(),
        expression,
        params,
        description: args.description.clone(),
    };
    attempt!(store.save_roll(&campaign, &saved, args.replace));
    print(
        args.db.format,
        &format!(
            "saved @{} in `{}`\n",
            escape::line(&saved.name),
            escape::line(&campaign)
        ),
        &saved,
    )
}

pub fn saved(args: &SavedArgs) -> anyhow::Result<bool> {
    let mut store = match &args.command {
        SavedCommand::List => attempt!(open_read(&args.db.db, &args.db.key)),
        SavedCommand::Delete { .. } => attempt!(open_write(&args.db)),
    };
    let campaign = attempt!(campaign_name(&store, &args.campaign));
    match &args.command {
        SavedCommand::List => {
            let saved = attempt!(store.saved_rolls(&campaign));
            let mut text = String::new();
            for s in &saved {
                let params: Vec<String> = s
                    .params
                    .iter()
                    .map(|(k, v)| format!("{}={}", escape::line(k), escape::line(&v.to_string())))
                    .collect();
                text.push_str(&format!(
                    "@{}  {}",
                    escape::line(&s.name),
                    escape::line(&s.expression)
                ));
                if !params.is_empty() {
                    text.push_str(&format!("  [{}]", params.join(", ")));
                }
                if let Some(d) = &s.description {
                    text.push_str(&format!("  # {}", escape::line(d)));
                }
                text.push('\n');
            }
            if saved.is_empty() {
                text.push_str("no saved rolls; save one with `omen save NAME EXPR`\n");
            }
            print(args.db.format, &text, &saved)
        }
        SavedCommand::Delete { name } => {
            let name = name.trim_start_matches('@');
            attempt!(store.delete_saved_roll(&campaign, name));
            print(
                args.db.format,
                &format!("@{name} deleted from `{campaign}`\n"),
                &json!({ "deleted": name }),
            )
        }
    }
}

pub fn export(args: &ExportArgs) -> anyhow::Result<bool> {
    let store = attempt!(open_read(&args.db.db, &args.db.key));
    let campaign = attempt!(campaign_name(&store, &args.campaign));
    let exported = match viewer(&campaign, args.view, &args.as_characters) {
        Some(viewer) => attempt!(store.export_campaign_for(&campaign, &viewer)),
        None => attempt!(store.export_campaign(&campaign)),
    };
    let text = format!("{exported:#}\n");
    crate::output::result().write_all(text.as_bytes())?;
    if let Some(path) = crate::output::file() {
        eprintln!("exported `{campaign}` to {}", path.display());
    }
    Ok(true)
}

/// `omen import --max-input`'s default: a campaign of tens of thousands of logged rolls fits.
pub const DEFAULT_MAX_IMPORT: u64 = 64 << 20;

pub fn import(args: &ImportArgs) -> anyhow::Result<bool> {
    let text = attempt!(read_text_at_most(
        &args.file,
        args.max_input,
        "raise --max-input if it really is an export"
    ));
    let export: Value = attempt!(
        serde_json::from_str(&text)
            .map_err(|e| format!("{} is not an export: {e}", args.file.display()))
    );
    let mut store = attempt!(open_to_create(&args.db));
    let campaign = attempt!(store.import_campaign(&export, args.as_name.as_deref()));
    // The export's own key vouches for its log: whoever made the file could have signed it with any
    // key, so the fingerprint is what to compare with the one the table trusts.
    let signed_by = export["campaign"]["public_key"].as_str().map_or(
        "no key (an export from before logs were signed)".to_string(),
        |key| format!("key {}", omen_store::fingerprint(key)),
    );
    print(
        args.db.format,
        &format!(
            "imported campaign `{}`; its log verified, signed by {signed_by}: compare that fingerprint with the one you trust\n",
            escape::line(&campaign.name)
        ),
        &campaign,
    )
}
