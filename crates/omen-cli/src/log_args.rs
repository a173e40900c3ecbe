//! The arguments of `omen log` and its subcommands: every subcommand takes the campaign
//! positionally or with `--campaign`. Also the checks of them clap cannot make: one campaign
//! however often it is named, the entry number of `reveal`, a slip of a subcommand's name.

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
    pub view: Option<crate::shared_args::ViewArg>,
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
        one_campaign(&named)
    }
}

/// The campaign named in up to three places (after `log`, after its subcommand, `--campaign`):
/// none, or one name however often it is given; two different names are refused rather than one
/// of them chosen.
pub fn one_campaign(named: &[Option<&String>]) -> Result<Option<String>, String> {
    let mut names = named.iter().flatten();
    let Some(first) = names.next() else {
        return Ok(None);
    };
    match names.find(|other| other != &first) {
        Some(other) => Err(format!(
            "two campaigns named, `{}` and `{}`; name one, positionally or with --campaign",
            crate::escape::line(first),
            crate::escape::line(other)
        )),
        None => Ok(Some((*first).clone())),
    }
}

/// The entry number of `omen log reveal [CAMPAIGN] SEQUENCE`: the last word.
pub fn entry_number(words: &[String]) -> Result<u64, String> {
    let last = words.last().map(String::as_str).unwrap_or_default();
    last.parse().map_err(|_| {
        format!(
            "`{}` is not an entry number; write `omen log reveal [CAMPAIGN] SEQUENCE`, the number as `omen log` lists it",
            crate::escape::line(last)
        )
    })
}

/// The `omen log` subcommand `word` is a slip for (at most two letters off), if any.
pub fn log_subcommand_like(word: &str) -> Option<&'static str> {
    const SUBCOMMANDS: [&str; 7] = [
        "list", "verify", "head", "replay", "stats", "fairness", "reveal",
    ];
    let word = word.to_lowercase();
    SUBCOMMANDS
        .into_iter()
        .find(|name| edit_distance(&word, name) <= 2)
}

/// Levenshtein distance, for short words.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_of_a_log_subcommand_is_named() {
        assert_eq!(log_subcommand_like("verfy"), Some("verify"));
        assert_eq!(log_subcommand_like("Stat"), Some("stats"));
        assert_eq!(log_subcommand_like("Ravenloft"), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn one_campaign_however_often_it_is_named() {
        let tak = "Tak".to_string();
        let other = "Ravenloft".to_string();
        assert_eq!(one_campaign(&[None, None, None]), Ok(None));
        assert_eq!(
            one_campaign(&[Some(&tak), None, Some(&tak)]),
            Ok(Some(tak.clone()))
        );
        let two = one_campaign(&[None, Some(&tak), Some(&other)]).unwrap_err();
        assert!(two.contains("`Tak` and `Ravenloft`"), "{two}");
    }

    #[test]
    fn the_entry_number_is_the_last_word() {
        assert_eq!(entry_number(&["Tak".into(), "17".into()]), Ok(17));
        assert_eq!(entry_number(&["17".into()]), Ok(17));
        assert!(entry_number(&["Tak".into()]).is_err());
    }
}
