//! The arguments of `omen log` and its subcommands: every subcommand takes the campaign
//! positionally or with `--campaign`.

use clap::{Args, Subcommand};

use crate::store_access::DbArgs;

#[derive(Debug, Args)]
pub struct LogArgs {
    /// The campaign, as every log subcommand takes it (or --campaign; may be left out when the
    /// database holds one campaign).
    #[arg(id = "log_campaign", value_name = "CAMPAIGN")]
    pub campaign: Option<String>,
    #[command(subcommand)]
    pub command: Option<LogCommand>,
    #[command(flatten)]
    pub filter: LogFilterArgs,
    /// List (or verify) the log as this viewer sees it: gm (everything but players' self rolls) or
    /// player (hidden rolls and the rule sets' game-master-only fields withheld) [default: the whole
    /// database, as stored].
    #[arg(long, value_enum, ignore_case = true, global = true)]
    pub view: Option<crate::act::ViewArg>,
    /// With --view player: the player of this character (repeat for each character they own), who
    /// also sees their private and self rolls; without it, an observer's view.
    #[arg(
        long = "as-char",
        value_name = "NAME",
        requires = "view",
        global = true
    )]
    pub as_characters: Vec<String>,
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Clone, Debug, Args)]
pub struct LogFilterArgs {
    /// The campaign (may be left out when the database holds one campaign).
    #[arg(long, value_name = "NAME", global = true)]
    pub campaign: Option<String>,
    /// Only this character's entries.
    #[arg(long = "char", value_name = "NAME", global = true)]
    pub character: Option<String>,
    /// Only this action's entries (e.g. roll, cast, check).
    #[arg(long, value_name = "ACTION", global = true)]
    pub action: Option<String>,
    /// Only entries at or after this time (RFC 3339, or a date such as 2026-11-23).
    #[arg(long, value_name = "TIME", global = true)]
    pub since: Option<String>,
    /// Only entries before this time (RFC 3339, or a date).
    #[arg(long, value_name = "TIME", global = true)]
    pub until: Option<String>,
    /// Only the last N entries.
    #[arg(long, value_name = "N", global = true)]
    pub last: Option<usize>,
}

#[derive(Debug, Subcommand)]
pub enum LogCommand {
    /// List the entries (the default).
    #[command(
        after_help = "Examples:\n  omen log list --last 20\n  omen log list --char Jane --since 2026-11-23 --format json"
    )]
    List {
        /// The campaign (else --campaign, else the database's only one).
        #[arg(id = "campaign_name", value_name = "CAMPAIGN")]
        campaign: Option<String>,
    },
    /// Check the log: every hash, signature, draw and seed, the signed head, and every character's
    /// state against its last entry. Whatever was changed without the key is named.
    #[command(
        after_help = "Examples:\n  omen log verify\n  omen log verify --since \"$(cat receipt.txt)\""
    )]
    Verify {
        /// The campaign (else --campaign, else the database's only one).
        #[arg(id = "campaign_name", value_name = "CAMPAIGN")]
        campaign: Option<String>,
        /// A receipt from `omen log head`: also prove that the log still extends it, which catches
        /// even a rewrite by someone holding the key.
        #[arg(long, value_name = "RECEIPT")]
        since: Option<String>,
    },
    /// Print the log's head (entry number and hash) as a receipt to keep.
    #[command(
        after_help = "Examples:\n  omen log head\n  omen log head --campaign Ravenloft > receipt.txt"
    )]
    Head {
        /// The campaign (else --campaign, else the database's only one).
        #[arg(id = "campaign_name", value_name = "CAMPAIGN")]
        campaign: Option<String>,
    },
    /// Recompute every entry from its recorded dice and compare results and states.
    #[command(
        after_help = "Examples:\n  omen log replay\n  omen log replay --campaign Ravenloft --format json"
    )]
    Replay {
        /// The campaign (else --campaign, else the database's only one).
        #[arg(id = "campaign_name", value_name = "CAMPAIGN")]
        campaign: Option<String>,
    },
    /// Dice statistics per session.
    #[command(
        after_help = "Examples:\n  omen log stats\n  omen log stats --char Jane --format json"
    )]
    Stats {
        /// The campaign (else --campaign, else the database's only one).
        #[arg(id = "campaign_name", value_name = "CAMPAIGN")]
        campaign: Option<String>,
    },
    /// Are the dice fair? Each die's faces against a fair die's, each expression's results against
    /// its exact distribution and each rule-set action's against the odds it had, by an exact
    /// multinomial test or a G-test with a plain verdict, per session and for the whole campaign.
    #[command(
        after_help = "Examples:\n  omen log fairness Ravenloft\n  omen log fairness Ravenloft --session 2026-11-23 --format json"
    )]
    Fairness {
        /// The campaign (else --campaign, else the database's only one).
        #[arg(id = "campaign_name", value_name = "CAMPAIGN")]
        campaign: Option<String>,
        /// Only this session: a UTC date such as 2026-11-23.
        #[arg(long, value_name = "DATE")]
        session: Option<String>,
    },
    /// Reveal a hidden (private, blind or self) roll: logs the salt of its commitment, after which
    /// everyone sees it and `omen log verify` checks its content against the commitment.
    #[command(
        after_help = "Examples:\n  omen log --view gm\n  omen log reveal Ravenloft 42\n  omen log reveal 42 --campaign Ravenloft"
    )]
    Reveal {
        /// The campaign the roll was made in, then the entry's number as `omen log` lists it; the
        /// number alone takes the campaign from --campaign, else the database's only one.
        #[arg(value_name = "[CAMPAIGN] SEQUENCE", num_args = 1..=2, required = true)]
        words: Vec<String>,
    },
}

impl LogCommand {
    /// The campaign named in the subcommand's own place (before the entry number for `reveal`).
    pub fn campaign(&self) -> Option<&String> {
        match self {
            LogCommand::List { campaign }
            | LogCommand::Verify { campaign, .. }
            | LogCommand::Head { campaign }
            | LogCommand::Replay { campaign }
            | LogCommand::Stats { campaign }
            | LogCommand::Fairness { campaign, .. } => campaign.as_ref(),
            LogCommand::Reveal { words } => words.first().filter(|_| words.len() == 2),
        }
    }
}

impl LogArgs {
    /// The one campaign the command line names: positionally (after `log` or after its
    /// subcommand) or with --campaign, all of which must agree.
    pub fn campaign(&self) -> Result<Option<String>, String> {
        let named = [
            self.campaign.as_ref(),
            self.command.as_ref().and_then(LogCommand::campaign),
            self.filter.campaign.as_ref(),
        ];
        crate::usage::one_campaign(&named)
    }
}
