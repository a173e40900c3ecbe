//! The command line: what `omen` accepts, as clap derives.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Args, Parser, Subcommand, ValueEnum};
use omen_lang::Value;

pub use crate::file_format::{PlotFormat, ProbFormat};
use crate::shared_args::{DialectArg, InputArgs, LimitArgs, ScriptArgs, parse_param};

/// Roll dice and compute exact odds from one dice notation.
// No bare `about`: it would take the package description, whose Markdown backticks land in the
// man page's NAME line.
#[derive(Debug, Parser)]
#[command(
    name = "omen",
    version,
    subcommand_required = true,
    after_help = "\
Synopsis:
  omen roll (EXPR | -f FILE) [--seed N | --dice V,V,...] [--format text|json] [--param NAME=VALUE]... [LIMITS]
  omen prob (EXPR [EXPR]... | -f FILE) [--format text|markdown|csv|json] [--view eq|ge|le|gt|lt] [--param NAME=VALUE|A..B]...
  omen plot (EXPR [EXPR]... | -f FILE) [--view eq|ge|le|gt|lt] [--format svg|png] -o FILE.svg
  (`-f -` reads the script from stdin; `omen roll --help` and `omen prob --help` list the limits)
  omen GAME ACTION [FLAGS] [--char NAME | --state FILE | --sheet JSON] [--odds] [--seed N | --dice V,...]
  (a game action applies to a stored character, a state file or a one-off character)

Exit codes: 0 success, 1 internal error, 2 bad input (parse, check or evaluation error, an unreadable \
file, or bad flags)."
)]
pub struct Cli {
    /// A built-in command; `None` for a game's (`omen GAME …`), which [`crate::derived`] builds from
    /// the rule sets and runs from the matches.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Write the result to FILE instead of stdout; FILE is replaced only when the command succeeds.
    #[arg(short = 'o', long = "output", value_name = "FILE", global = true)]
    pub output: Option<PathBuf>,
    /// Treat warnings as errors: print them, print no result, and exit 2 (for scripts).
    #[arg(long, global = true)]
    pub strict: bool,
    /// Colour errors and warnings: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, value_enum, ignore_case = true, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless the NO_COLOR environment variable is set.
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to colour, given whether stderr is a terminal and the value of NO_COLOR.
    pub fn colour(self, terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            // https://no-color.org: set and not empty means no colour.
            ColorChoice::Auto => terminal && no_color.is_none_or(|v| v.is_empty()),
        }
    }
}

/// A subcommand's arguments (or its own subcommands), added to the command line's description only
/// when that subcommand is the one given: clap builds a command's arguments when it parses them, so
/// `omen prob 3d6` no longer describes the other commands and their hundreds of flags before it
/// starts (that was most of a small command's time). Help is the same; completions and the manual
/// page use [`full_command`].
#[derive(Debug)]
pub struct Deferred<T>(pub T);

/// Set once a command needs the whole tree as it stands before parsing (completions and the manual
/// page walk it; clap derives their `help` subcommand tree and argument order from it).
static BUILD_IN_FULL: AtomicBool = AtomicBool::new(false);

/// The whole command line, every subcommand's arguments added at once.
pub fn full_command() -> clap::Command {
    BUILD_IN_FULL.store(true, Ordering::Relaxed);
    crate::derived::add_games(<Cli as clap::CommandFactory>::command(), true)
}

/// The command line as `omen` parses it: the built-in commands, and a subcommand per game whose own
/// subcommands are built when it is the one given.
pub fn command() -> clap::Command {
    crate::derived::add_games(<Cli as clap::CommandFactory>::command(), false)
}

impl<T> std::ops::Deref for Deferred<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }
}

impl<T: Args> Args for Deferred<T> {
    fn augment_args(command: clap::Command) -> clap::Command {
        if BUILD_IN_FULL.load(Ordering::Relaxed) {
            return T::augment_args(command);
        }
        command.defer(|command| keep_texts(command, T::augment_args))
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        if BUILD_IN_FULL.load(Ordering::Relaxed) {
            return T::augment_args_for_update(command);
        }
        command.defer(|command| keep_texts(command, T::augment_args_for_update))
    }

    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}

impl<T: Subcommand> Subcommand for Deferred<T> {
    fn augment_subcommands(command: clap::Command) -> clap::Command {
        if BUILD_IN_FULL.load(Ordering::Relaxed) {
            return T::augment_subcommands(command);
        }
        command.defer(|command| keep_texts(command, T::augment_subcommands))
    }

    fn augment_subcommands_for_update(command: clap::Command) -> clap::Command {
        if BUILD_IN_FULL.load(Ordering::Relaxed) {
            return T::augment_subcommands_for_update(command);
        }
        command.defer(|command| keep_texts(command, T::augment_subcommands_for_update))
    }

    fn has_subcommand(name: &str) -> bool {
        T::has_subcommand(name)
    }
}

/// Adds the deferred arguments, keeping the texts the variant gave its command: without the
/// deferral they were added first and the variant's texts set after, so the variant's win.
fn keep_texts(
    command: clap::Command,
    augment: fn(clap::Command) -> clap::Command,
) -> clap::Command {
    let about = command.get_about().cloned();
    let long_about = command.get_long_about().cloned();
    let before_help = command.get_before_help().cloned();
    let before_long_help = command.get_before_long_help().cloned();
    let after_help = command.get_after_help().cloned();
    let after_long_help = command.get_after_long_help().cloned();
    let mut command = augment(command);
    if let Some(text) = about {
        command = command.about(text);
    }
    if let Some(text) = long_about {
        command = command.long_about(text);
    }
    if let Some(text) = before_help {
        command = command.before_help(text);
    }
    if let Some(text) = before_long_help {
        command = command.before_long_help(text);
    }
    if let Some(text) = after_help {
        command = command.after_help(text);
    }
    if let Some(text) = after_long_help {
        command = command.after_long_help(text);
    }
    command
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Roll an expression or script once and show every die.
    #[command(
        after_help = ROLL_EXAMPLES,
        after_long_help = format!("{ROLL_EXAMPLES}\n\n{ROLL_LEGEND}")
    )]
    Roll(Deferred<RollArgs>),
    /// Compute the exact distribution of an expression or script.
    #[command(after_help = PROB_EXAMPLES)]
    Prob(Deferred<ProbArgs>),
    /// Draw distributions as an SVG or PNG chart: bars for one, lines for several.
    #[command(after_help = PLOT_EXAMPLES)]
    Plot(Deferred<PlotArgs>),
    /// Print the Omen notation of an AnyDice program's outputs, where one exists.
    #[command(after_help = crate::anydice_prob::TRANSLATE_EXAMPLES)]
    Translate(Deferred<crate::anydice_prob::TranslateArgs<InputArgs>>),
    /// Campaigns: new, list, show, rename, delete.
    Campaign(Deferred<crate::campaign::CampaignArgs>),
    /// A campaign's characters, each bound to a rule set: new, list, show, edit, rename, delete.
    Char(Deferred<crate::campaign::CharArgs>),
    /// The roll log: list and filter, verify the hash chain, replay from the recorded dice, statistics.
    Log(Deferred<crate::log_args::LogArgs>),
    /// Save a named, parameterised roll in a campaign, for `omen roll @NAME`.
    #[command(
        after_help = "Examples:\n  omen save fireball 8d6 --description \"a level 3 fireball\"\n  omen save check 'param dice = 3; (dice)d12>=8' --param dice=5\n  omen roll @fireball"
    )]
    Save(Deferred<crate::campaign::SaveArgs>),
    /// List or delete a campaign's saved rolls.
    Saved(Deferred<crate::campaign::SavedArgs>),
    /// Export a whole campaign as JSON.
    #[command(
        after_help = "Examples:\n  omen export Ravenloft -o ravenloft.json\n  omen export --db table.db > backup.json"
    )]
    Export(Deferred<crate::campaign::ExportArgs>),
    /// Import a campaign written by `omen export`.
    #[command(
        after_help = "Examples:\n  omen import ravenloft.json\n  omen import ravenloft.json --as \"Ravenloft copy\" --db other.db"
    )]
    Import(Deferred<crate::campaign::ImportArgs>),
    /// Whole databases: move one to another engine (SQLite, PostgreSQL).
    #[command(
        subcommand,
        after_help = "Examples:\n  omen db migrate --from omen.db --to postgres://omen@db.example/omen"
    )]
    Db(Deferred<crate::database::DbCommand>),
    /// Print omen serve's Discord slash commands, or send them to Discord
    #[command(
        subcommand,
        after_help = "Examples:\n  omen discord register > commands.json\n  omen discord register --application-id ID --bot-token TOKEN"
    )]
    Discord(Deferred<crate::discord::DiscordCommand>),
    /// List the seed games: their mechanics, options, reference tables and character actions.
    #[command(
        after_help = "Examples:\n  omen rules\n  omen rules hprpg --example -o rook.json\n  omen rules luck --schema\n  omen rules t13 --detail"
    )]
    Rules(Deferred<crate::rules::RulesArgs>),
    /// Any game action given as JSON, e.g. omen act luck '{"action":"roll","event_modifier":-5}'
    /// (`omen rules` lists each game's actions).
    #[command(
        after_help = "Examples:\n  omen act luck '{\"action\":\"roll\",\"event_modifier\":-5}' --char Ayla\n  omen act t13 '{\"action\":\"gain\",\"chi\":2}' --state vex.json --odds\n  omen act spelldice @cast.json --sheet '{\"level\":3}'"
    )]
    Act(Deferred<crate::act::ActArgs>),
    /// Serve the HTTP API for a whole table on the campaign database (until Ctrl-C or SIGTERM).
    #[command(
        after_help = "Examples:\n  omen serve\n  omen serve --bind 127.0.0.1:0 --db table.db\n  omen serve --work-budget 10000000 --rate-limit 20"
    )]
    Serve(Deferred<crate::serve::ServeArgs>),
    /// Print shell completions for bash, zsh, fish, elvish or PowerShell (its help says where to put them)
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(Deferred<CompletionsArgs>),
    /// Print the manual page (roff): omen man > omen.1 && man ./omen.1
    #[command(after_help = "Examples:\n  omen man > omen.1 && man ./omen.1")]
    Man,
}

const PLOT_EXAMPLES: &str = "\
Examples:
  omen plot 3d6 -o 3d6.svg
  omen plot 3d6 2d10 4d6kh3 --view ge -o compare.svg
  omen plot -f examples/003_check.omen --param dice=1..6 -o check.png
  omen plot 2d20kh1 --format png > advantage.png";

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["expression", "file"])))]
pub struct PlotArgs {
    /// The dice expression or script, e.g. "4d6kh3"; `@NAME` is a saved roll.
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expression: Option<String>,
    /// More expressions, drawn as more lines.
    #[arg(value_name = "MORE", requires = "expression")]
    pub more: Vec<String>,
    /// Read the script from FILE (UTF-8) instead of EXPR; `-` reads standard input.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Which probability to draw: P(=), P(≥), P(≤), P(>) or P(<).
    #[arg(long, value_enum, ignore_case = true, default_value_t = crate::compare::View::Eq)]
    pub view: crate::compare::View,
    /// The image format [default: from the -o file's extension, else svg].
    #[arg(long, value_enum, ignore_case = true)]
    pub format: Option<PlotFormat>,
    /// Set a script parameter; a range `A..B` draws one line per value.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_prob_param)]
    pub params: Vec<ProbParam>,
    #[command(flatten)]
    pub dialect: DialectArg,
    #[command(flatten)]
    pub approximate: crate::anydice_prob::ApproximateArg,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// The campaign whose saved roll `@NAME` names.
    #[arg(long, value_name = "NAME", help_heading = "Campaign")]
    pub campaign: Option<String>,
    /// The campaign database: a SQLite file (a path or sqlite://PATH) or a PostgreSQL database
    /// (postgres://USER@HOST/DB) [default: $OMEN_DB, else omen.db in the platform data directory].
    #[arg(long, value_name = "PATH", help_heading = "Campaign")]
    pub db: Option<PathBuf>,
}

impl PlotArgs {
    /// The same distributions as `omen prob` with these inputs would compute.
    pub fn as_prob(&self) -> ProbArgs {
        ProbArgs {
            expression: self.expression.clone(),
            more: self.more.clone(),
            file: self.file.clone(),
            format_given: None,
            format: ProbFormat::Text,
            view: self.view,
            transpose: false,
            exact: false,
            decimals: 4,
            params: self.params.clone(),
            dialect: self.dialect.clone(),
            approximate: self.approximate.clone(),
            limits: self.limits.clone(),
            campaign: self.campaign.clone(),
            db: self.db.clone(),
            seed: None,
        }
    }
}

const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  omen completions bash > ~/.local/share/bash-completion/completions/omen
  omen completions zsh > ~/.zfunc/_omen
  omen completions fish > ~/.config/fish/completions/omen.fish";

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum, ignore_case = true)]
    pub shell: clap_complete::Shell,
}

const ROLL_EXAMPLES: &str = "\
Examples:
  omen roll 4d6kh3
  omen roll 'param n = 3; (n)d6kh1' --param n=5 --seed 7
  omen roll -f examples/003_check.omen --param dice=4 --format json
  cat check.omen | omen roll -f -";

const PROB_EXAMPLES: &str = "\
Examples:
  omen prob 2d6
  omen prob '(4d6kh3) >= 15' --format json
  omen prob -f examples/001_exhaustion.omen --param level=2
  cat check.omen | omen prob -f - --format markdown";

/// Shown by `omen roll --help` only: the transcript itself stays free of it.
const ROLL_LEGEND: &str = "\
Transcript marks (after a die's value):
  ~4~        struck: dropped by keep/drop, or replaced by a reroll
  !          exploded: this die added another die (or roll)
  #          met the explode condition, but the depth limit stopped it
  r          rerolled (the die after it replaces it)
  c          clamped by min/max
  *          counted as a success
  f          counted as a failure
  ^          a critical success (cs)
  _          a critical failure (cf)
  =          one of a set of matching dice (m, mt)
  15(6+6+3)  the value, then the rolls that made it (compounded or clamped dice)";

#[derive(Debug, Args)]
pub struct RollArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// --seed (shown when picked, so the roll can be replayed), --dice and --format.
    #[command(flatten)]
    pub source: crate::act::RollSource,
    #[command(flatten)]
    pub script: ScriptArgs,
    // With --dialect anydice: draw from approximate distributions where exact ones run away.
    #[command(flatten)]
    pub approximate: crate::anydice_prob::ApproximateArg,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub campaign: CampaignRollArgs,
}

/// Rolling in a campaign: `@NAME` rolls a saved roll, and the roll is written to the campaign's log.
#[derive(Debug, Args)]
pub struct CampaignRollArgs {
    /// The campaign whose saved rolls `@NAME` names, and whose log records the roll (may be left out
    /// when the database holds one campaign).
    #[arg(long, value_name = "NAME")]
    pub campaign: Option<String>,
    /// The character the roll is for, in the log.
    #[arg(long = "char", value_name = "NAME")]
    pub character: Option<String>,
    /// The campaign database: a SQLite file (a path or sqlite://PATH) or a PostgreSQL database
    /// (postgres://USER@HOST/DB) [default: $OMEN_DB, else omen.db in the platform data directory].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// Who may see the logged roll: public (everyone), private (the roller and the game master),
    /// blind (the game master only), self (the roller only). A hidden roll is committed in the log
    /// and shown later with `omen log reveal`.
    #[arg(long, value_enum, ignore_case = true, value_name = "WHO")]
    pub visibility: Option<crate::shared_args::VisibilityArg>,
}

impl CampaignRollArgs {
    /// Whether the roll goes through a campaign: a saved roll, or a campaign, a character or a
    /// visibility named.
    pub fn wanted(&self, input: &InputArgs) -> bool {
        self.campaign.is_some()
            || self.character.is_some()
            || self.visibility.is_some()
            || input
                .expression
                .as_deref()
                .is_some_and(|e| e.starts_with('@'))
    }
}

#[derive(Clone, Debug, Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["expression", "file"])))]
pub struct ProbArgs {
    /// The dice expression or script, e.g. "4d6kh3"; `@NAME` is a saved roll.
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expression: Option<String>,
    /// More expressions, compared side by side with the first, one column each.
    #[arg(value_name = "MORE", requires = "expression")]
    pub more: Vec<String>,
    /// Read the script from FILE (UTF-8) instead of EXPR; `-` reads standard input.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// How to print the distribution [default: from the -o file's extension (.csv, .md, .json,
    /// .txt), else text].
    #[arg(long = "format", value_enum, ignore_case = true)]
    pub format_given: Option<ProbFormat>,
    /// The format used: `--format` and `-o`'s extension reconciled (see `file_format`).
    #[arg(skip = ProbFormat::Text)]
    pub format: ProbFormat,
    /// Side by side: which probability each cell shows, P(=), P(≥), P(≤), P(>) or P(<).
    #[arg(long, value_enum, ignore_case = true, default_value_t = crate::compare::View::Eq)]
    pub view: crate::compare::View,
    /// Side by side: one row per expression and one column per outcome.
    #[arg(long)]
    pub transpose: bool,
    /// Text: keep exact fractions however wide they make the table (CSV and JSON always have them).
    #[arg(long)]
    pub exact: bool,
    /// Text: places of the decimals shown for fractions too long for the terminal, and of the
    /// approximations of the statistics.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=30))]
    pub decimals: u8,
    /// Set a script parameter (`param name = default;`): an integer, true/false, or a label; a range
    /// `A..B` of integers (at most 100 values) gives one column per value. Repeat for more.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_prob_param)]
    pub params: Vec<ProbParam>,
    #[command(flatten)]
    pub dialect: DialectArg,
    #[command(flatten)]
    pub approximate: crate::anydice_prob::ApproximateArg,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// The campaign whose saved roll `@NAME` names.
    #[arg(long, value_name = "NAME", help_heading = "Campaign")]
    pub campaign: Option<String>,
    /// The campaign database: a SQLite file (a path or sqlite://PATH) or a PostgreSQL database
    /// (postgres://USER@HOST/DB) [default: $OMEN_DB, else omen.db in the platform data directory].
    #[arg(long, value_name = "PATH", help_heading = "Campaign")]
    pub db: Option<PathBuf>,
    /// Not for prob: its odds are exact, no dice are rolled (seeds belong to `omen roll`).
    #[arg(long, value_name = "N", hide = true)]
    pub seed: Option<String>,
}

impl ProbArgs {
    /// EXPR and MORE, in order.
    pub fn expressions(&self) -> Vec<String> {
        self.expression.iter().chain(&self.more).cloned().collect()
    }
}

/// Most values one `--param NAME=A..B` range may take.
pub const MAX_PARAM_RANGE: i64 = 100;

/// A `--param` of `omen prob`: one value, or a range of integers giving one column each.
#[derive(Clone, Debug, PartialEq)]
pub enum ProbParam {
    One(String, Value),
    Range(String, i64, i64),
}

pub(crate) fn parse_prob_param(text: &str) -> Result<ProbParam, String> {
    let (name, value) = parse_param(text)?;
    let range = text.split_once('=').and_then(|(_, v)| {
        let (low, high) = v.trim().split_once("..")?;
        Some((
            low.trim().parse::<i64>().ok()?,
            high.trim().parse::<i64>().ok()?,
        ))
    });
    match range {
        Some((low, high)) if low > high => Err(format!("the range {low}..{high} is empty")),
        Some((low, high)) if high - low >= MAX_PARAM_RANGE => Err(format!(
            "the range {low}..{high} has {} values (limit {MAX_PARAM_RANGE}); narrow it",
            i128::from(high) - i128::from(low) + 1
        )),
        Some((low, high)) => Ok(ProbParam::Range(name, low, high)),
        None => Ok(ProbParam::One(name, value)),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use omen_core::Limits;

    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn limit_flags_reach_the_limits() {
        let cli = Cli::parse_from([
            "omen",
            "prob",
            "1d6!",
            "--explode-depth",
            "3",
            "--max-dice",
            "7",
            "--work-budget",
            "9",
            "--max-chain-states",
            "11",
        ]);
        let Some(Command::Prob(args)) = cli.command else {
            panic!("expected prob");
        };
        let limits = args.limits.to_limits();
        assert_eq!(limits.explode_depth, 3);
        assert_eq!(limits.max_dice, 7);
        assert_eq!(limits.work_budget, 9);
        assert_eq!(limits.max_chain_states, 11);
        assert_eq!(limits.max_sides, Limits::default().max_sides);
    }

    #[test]
    fn negative_dice_values_are_values_not_flags() {
        let cli = Cli::parse_from(["omen", "roll", "4dF", "--dice", "-1,0,1,-1"]);
        let Some(Command::Roll(args)) = cli.command else {
            panic!("expected roll");
        };
        assert_eq!(args.source.dice, Some(vec![-1, 0, 1, -1]));
    }

    #[test]
    fn exactly_one_of_expression_and_file() {
        let cli = Cli::parse_from(["omen", "prob", "-f", "check.omen", "--param", "dv=9"]);
        let Some(Command::Prob(args)) = cli.command else {
            panic!("expected prob");
        };
        assert_eq!(args.file, Some(PathBuf::from("check.omen")));
        assert!(args.expressions().is_empty());
        let cli = Cli::parse_from(["omen", "roll", "--file", "-"]);
        let Some(Command::Roll(args)) = cli.command else {
            panic!("expected roll");
        };
        assert_eq!(args.input.file, Some(PathBuf::from("-")));
        for both_or_neither in [
            &["omen", "prob", "2d6", "-f", "check.omen"][..],
            &["omen", "roll", "-f", "check.omen", "2d6"],
            &["omen", "prob"],
            &["omen", "roll", "--seed", "3"],
        ] {
            let err = Cli::try_parse_from(both_or_neither).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{both_or_neither:?}");
        }
    }

    #[test]
    fn an_expression_may_start_with_a_minus() {
        let cli = Cli::parse_from(["omen", "prob", "-1d6", "--format", "csv"]);
        let Some(Command::Prob(args)) = cli.command else {
            panic!("expected prob");
        };
        assert_eq!(args.expressions(), ["-1d6"]);
        assert_eq!(args.format_given, Some(ProbFormat::Csv));
    }

    #[test]
    fn prob_takes_several_expressions_and_ranges() {
        let cli = Cli::parse_from([
            "omen", "prob", "3d6", "2d10", "--view", "GE", "--param", "n=1..5", "--format", "CSV",
        ]);
        let Some(Command::Prob(args)) = cli.command else {
            panic!("expected prob");
        };
        assert_eq!(args.expressions(), ["3d6", "2d10"]);
        assert_eq!(args.view, crate::compare::View::Ge);
        assert_eq!(args.params, [ProbParam::Range("n".into(), 1, 5)]);
        assert_eq!(
            parse_prob_param("n=3"),
            Ok(ProbParam::One("n".into(), Value::Int(3)))
        );
        assert!(parse_prob_param("n=5..1").is_err());
        assert!(parse_prob_param("n=1..1000").is_err());
    }

    #[test]
    fn formats_are_case_insensitive_and_table_is_text() {
        for name in ["table", "TEXT", "Text"] {
            let cli = Cli::parse_from(["omen", "prob", "2d6", "--format", name]);
            let Some(Command::Prob(args)) = cli.command else {
                panic!("expected prob");
            };
            assert_eq!(args.format_given, Some(ProbFormat::Text));
        }
    }

    #[test]
    fn colour_follows_the_choice_the_terminal_and_no_color() {
        use std::ffi::OsStr;
        assert!(ColorChoice::Auto.colour(true, None));
        assert!(!ColorChoice::Auto.colour(false, None));
        assert!(!ColorChoice::Auto.colour(true, Some(OsStr::new("1"))));
        assert!(ColorChoice::Auto.colour(true, Some(OsStr::new(""))));
        assert!(ColorChoice::Always.colour(false, Some(OsStr::new("1"))));
        assert!(!ColorChoice::Never.colour(true, None));
    }

    #[test]
    fn seed_and_dice_conflict() {
        let err =
            Cli::try_parse_from(["omen", "roll", "1d6", "--seed", "1", "--dice", "3"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }
}

#[cfg(test)]
mod help_audit {
    /// Every argument and subcommand has help text, and every leaf subcommand ends with examples.
    #[test]
    fn every_flag_and_subcommand_is_documented_with_examples() {
        let mut problems = Vec::new();
        walk(&super::full_command(), "omen", &mut problems);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    fn walk(command: &clap::Command, path: &str, problems: &mut Vec<String>) {
        for arg in command.get_arguments() {
            if arg.is_hide_set() || ["help", "version"].contains(&arg.get_id().as_str()) {
                continue;
            }
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                problems.push(format!("{path}: argument `{}` has no help", arg.get_id()));
            }
        }
        for sub in command.get_subcommands() {
            let sub_path = format!("{path} {}", sub.get_name());
            if sub.get_name() == "help" {
                continue;
            }
            if sub.get_about().is_none() && sub.get_long_about().is_none() {
                problems.push(format!("{sub_path}: no help"));
            }
            // Spec item ids (`003-M24`) belong in `omen rules GAME --detail`, not everyday help.
            let texts = [sub.get_about(), sub.get_long_about()]
                .into_iter()
                .flatten()
                .map(ToString::to_string)
                .chain(
                    sub.get_arguments()
                        .filter_map(|a| a.get_help().map(ToString::to_string)),
                );
            for text in texts {
                if has_spec_id(&text) {
                    problems.push(format!("{sub_path}: a spec item id in its help: {text}"));
                }
            }
            let examples = examples(sub);
            if sub.get_subcommands().next().is_none() && examples.is_empty() {
                problems.push(format!("{sub_path}: no examples"));
            }
            for example in examples {
                if let Err(error) = super::command().try_get_matches_from(&example) {
                    problems.push(format!(
                        "{sub_path}: example {example:?} does not parse: {error}"
                    ));
                }
            }
            walk(sub, &sub_path, problems);
        }
    }

    /// The `omen` commands of the "Examples:" section of a command's help, split into words as a
    /// shell would (quotes, pipes, `&&` and `>` redirections).
    fn examples(command: &clap::Command) -> Vec<Vec<String>> {
        let help = command
            .get_after_help()
            .map(ToString::to_string)
            .unwrap_or_default();
        let Some((_, section)) = help.split_once("Examples:") else {
            return Vec::new();
        };
        section
            .lines()
            .filter_map(|line| line.strip_prefix("  "))
            .flat_map(|line| line.split(" && ").map(str::to_string).collect::<Vec<_>>())
            .filter_map(|part| {
                let part = part.rsplit(" | ").next().unwrap_or(&part).to_string();
                let words = shell_words(&part);
                (words.first().map(String::as_str) == Some("omen")).then_some(words)
            })
            .collect()
    }

    /// `000-M8`, `003-A14`, `004-M5..M7`: three digits, a dash, capitals, a digit.
    fn has_spec_id(text: &str) -> bool {
        let bytes = text.as_bytes();
        bytes.windows(6).any(|w| {
            w[..3].iter().all(u8::is_ascii_digit)
                && w[3] == b'-'
                && w[4].is_ascii_uppercase()
                && (w[5].is_ascii_digit() || w[5].is_ascii_uppercase())
        })
    }

    fn shell_words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut word: Option<String> = None;
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                ' ' => words.extend(word.take()),
                '>' if word.is_none() => break,
                '\'' => {
                    let w = word.get_or_insert_with(String::new);
                    w.extend(chars.by_ref().take_while(|&c| c != '\''));
                }
                '"' => {
                    let w = word.get_or_insert_with(String::new);
                    while let Some(c) = chars.next() {
                        match c {
                            '"' => break,
                            '\\' => w.extend(chars.next()),
                            c => w.push(c),
                        }
                    }
                }
                c => word.get_or_insert_with(String::new).push(c),
            }
        }
        words.extend(word);
        words
    }

    #[test]
    fn shell_words_split_like_a_shell() {
        assert_eq!(
            shell_words(r#"omen act luck '{"a":1}' --as "x \"y\"" > out.json"#),
            ["omen", "act", "luck", r#"{"a":1}"#, "--as", r#"x "y""#]
        );
    }
}
