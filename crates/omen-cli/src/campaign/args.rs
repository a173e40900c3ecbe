//! The arguments of `omen campaign`, `omen char`, `omen save`, `omen saved`, `omen export` and
//! `omen import`.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use omen_store::Role;

use crate::shared_args::ViewArg;
use crate::store_access::DbArgs;

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
        #[arg(long, value_name = "RULES", default_value = omen_store::PLAIN, help = format!(
            "The rule set: {}; none (the default) for a plain character.",
            crate::shared_args::rule_set_names(false)
        ))]
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

/// `omen import --max-input`'s default: a campaign of tens of thousands of logged rolls fits.
pub const DEFAULT_MAX_IMPORT: u64 = 64 << 20;
