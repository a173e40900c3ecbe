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

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use omen_core::{ChaChaDice, DieSource, Limits, RecordingDice, ScriptedDice};
use omen_rules::stateful::{self, ActionError, Game};
use omen_rules::{GameMasterOnly, Part, View};
use serde_json::{Value, json};

use crate::args::RollFormat;

/// Whose state an action reads and writes, where its dice come from, and how to print.
#[derive(Clone, Debug, Args)]
pub struct Holder {
    /// The character in the campaign database whose state the action reads and updates.
    #[arg(long = "char", value_name = "NAME", conflicts_with_all = ["state", "sheet"])]
    pub character: Option<String>,
    /// The campaign of --char (may be left out when the database holds one campaign).
    #[arg(long, value_name = "NAME", requires = "character")]
    pub campaign: Option<String>,
    /// The campaign database: a SQLite file (a path or sqlite://PATH) or a PostgreSQL database
    /// (postgres://USER@HOST/DB) [default: $OMEN_DB, else omen.db in the platform data directory].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// A JSON state file instead of a database: created from --sheet if missing, updated in place.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// The sheet of a new character: JSON text, or @FILE.
    #[arg(long, value_name = "JSON")]
    pub sheet: Option<String>,
    /// Print the exact odds of the action from the character's current state; roll nothing.
    #[arg(long, conflicts_with_all = ["seed", "dice"])]
    pub odds: bool,
    /// A rule option for this action, NAME=VALUE (repeat for each); `omen rules` lists each game's
    /// options, their choices and the actions they apply to.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// Who reads the answer: gm sees everything; player does not see what the rule set keeps for the
    /// game master (luck's hidden modifiers), in text, JSON and the summary alike.
    #[arg(long, value_enum, ignore_case = true, default_value_t = ViewArg::Gm)]
    pub view: ViewArg,
    /// Who may see the logged action (with --char): public, private (the character's player and the
    /// game master), blind (the game master only) or self (the player only); see `omen log reveal`.
    #[arg(
        long,
        value_enum,
        ignore_case = true,
        value_name = "WHO",
        requires = "character"
    )]
    pub visibility: Option<crate::args::VisibilityArg>,
    #[command(flatten)]
    pub source: RollSource,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ViewArg {
    /// The game master: everything.
    Gm,
    /// A player: without the fields the rule set declares game-master-only.
    Player,
}

impl ViewArg {
    pub fn view(self) -> View {
        match self {
            ViewArg::Gm => View::GameMaster,
            ViewArg::Player => View::Player,
        }
    }
}

/// What `view` may see of an answer of `game`: the rule set's one declaration applied.
pub struct Seen {
    hidden: &'static GameMasterOnly,
    view: View,
}

impl Seen {
    pub fn of(game: &str, view: ViewArg) -> Seen {
        Seen {
            hidden: omen_rules::find(game).map_or(&const { GameMasterOnly::NOTHING }, |rules| {
                rules.game_master_only()
            }),
            view: view.view(),
        }
    }

    pub fn show(&self, part: Part, value: &Value) -> Value {
        self.hidden.show(self.view, part, value)
    }

    pub fn summary(&self, action: &Value, result: &Value, summary: &str) -> String {
        self.hidden
            .summary(self.view, action_name(action), result, summary)
    }

    /// Odds as text, or a note that nothing of them is for this view.
    pub fn odds_text(&self, odds: &Value) -> String {
        let shown = self.show(Part::Odds, odds);
        if shown.as_object().is_some_and(serde_json::Map::is_empty) {
            " hidden from this view (they depend on what the game master keeps)\n".to_string()
        } else {
            odds_text(&shown)
        }
    }
}

/// Where the dice come from, and how to print.
#[derive(Clone, Debug, Args)]
pub struct RollSource {
    /// Seed for the roller (ChaCha20); without it one is picked and shown.
    #[arg(long, value_name = "N", conflicts_with = "dice")]
    pub seed: Option<u64>,
    /// Use these dice values, in order, instead of random ones, e.g. --dice 2,5,1.
    #[arg(
        long,
        value_name = "VALUES",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub dice: Option<Vec<i64>>,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = RollFormat::Text)]
    pub format: RollFormat,
}

impl RollSource {
    /// The dice source that `--dice` or `--seed` ask for (a fresh seed when neither is given), and the
    /// seed when one was used.
    pub fn dice_source(&self) -> (Box<dyn DieSource>, Option<u64>) {
        match (&self.dice, self.seed) {
            (Some(values), _) => (Box::new(ScriptedDice::new(values.clone())), None),
            (None, seed) => {
                let seed = seed.unwrap_or_else(crate::fresh_seed);
                (Box::new(ChaChaDice::from_seed(seed)), Some(seed))
            }
        }
    }
}

/// `omen act RULES ACTION`: an action as JSON, for scripts and for actions without their own flags.
#[derive(Debug, Args)]
pub struct ActArgs {
    /// The rule set: ritual, spelldice, luck, hprpg or t13.
    #[arg(value_name = "RULES")]
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

/// A state file's contents: the rule set, the state's version, the state.
fn envelope(game: &dyn Game, state: &Value) -> Value {
    json!({ "rules": game.name(), "version": game.state_version(), "state": state })
}

/// The most bytes read from a JSON file given as `@FILE`, a `--state` file or a sheet: far more than
/// any character needs, and little enough that `@/dev/zero` is refused at once. (`omen import` has its
/// own flag, `--max-input`.) serde_json refuses nesting deeper than 128 on its own.
pub const MAX_JSON_FILE: u64 = 16 << 20;

/// Reads a UTF-8 file (`-` is stdin) of at most `limit` bytes, without reading more than one byte past
/// it.
///
/// # Errors
/// The file cannot be read, is longer than `limit` (the message names `flag` as the way to raise it)
/// or is not UTF-8.
pub fn read_text_at_most(path: &Path, limit: u64, flag: &str) -> Result<String, String> {
    use std::io::Read;
    let name = path.display();
    let mut bytes = Vec::new();
    let read = if path.as_os_str() == "-" {
        io::stdin().lock().take(limit + 1).read_to_end(&mut bytes)
    } else {
        fs::File::open(path).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
    };
    read.map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "{name} is larger than {limit} bytes (the limit); {flag}"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name} is not UTF-8 text: invalid byte at offset {}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Reads JSON given as text or as `@FILE`.
pub fn json_argument(text: &str) -> Result<Value, String> {
    let (origin, content) = match text.strip_prefix('@') {
        Some(path) => (
            path.to_string(),
            read_text_at_most(
                Path::new(path),
                MAX_JSON_FILE,
                "a character or action is far smaller; check the file",
            )?,
        ),
        None => ("the argument".to_string(), text.to_string()),
    };
    serde_json::from_str(&content)
        .map_err(|e| format!("{origin} is not valid JSON: {e}; give an object like {{\"key\": 1}}"))
}

/// Writes `contents` to `path` through a temporary file in the same directory and a rename, so a reader
/// (or a crash) sees the old file or the new one, never half of one.
pub fn write_atomically(path: &Path, contents: &str) -> io::Result<()> {
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = directory.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = fs::File::create(&temporary)?;
        file.write_all(contents.as_bytes())?;
        file.sync_all()?;
        fs::rename(&temporary, path)?;
        // The rename lives in the directory: syncing it makes the new file survive a crash. Best
        // effort: the new state is in place by now, so a failure here is no failed write.
        #[cfg(unix)]
        if let Ok(dir) = fs::File::open(directory) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// The lock that serialises updates of one state file between processes: an exclusive advisory lock
/// (the standard library's `File::lock`, `flock` on Unix) on `.NAME.lock` beside it, held from
/// reading the state to renaming the new one into place. The lock file is the only file left beside
/// the state; the state itself cannot carry the lock, since each update replaces it.
pub struct StateLock {
    _file: fs::File,
}

/// Waits for the lock of the state file `path`, then removes the temporary files a process killed in
/// the middle of a write left behind (no other writer can be writing one while the lock is held).
pub fn lock_state_file(path: &Path) -> io::Result<StateLock> {
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(directory.join(format!(".{name}.lock")))?;
    file.lock()?;
    let stale = format!(".{name}.");
    if let Ok(entries) = fs::read_dir(directory) {
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let file_name = file_name.to_string_lossy();
            if let Some(middle) = file_name
                .strip_prefix(&stale)
                .and_then(|rest| rest.strip_suffix(".tmp"))
                && middle.bytes().all(|b| b.is_ascii_digit())
            {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    Ok(StateLock { _file: file })
}

/// A new character from `--sheet`; without one, from the empty sheet when the game allows it, else an
/// error saying a sheet is needed (rather than the sheet's shape error about an empty object).
fn new_character(
    game: &dyn Game,
    sheet: Option<&Value>,
    missing: Option<&Path>,
) -> Result<Value, String> {
    match sheet {
        Some(sheet) => game.new_character(sheet).map_err(|e| e.to_string()),
        None => game.new_character(&json!({})).map_err(|_| {
            let whose = missing.map_or(String::new(), |path| {
                format!("{} does not exist yet, so ", path.display())
            });
            format!(
                "{whose}a new {} character needs a sheet: give --sheet JSON (or @FILE); \
                 `omen rules` lists what a sheet holds",
                game.name()
            )
        }),
    }
}

fn load_state_file(
    game: &dyn Game,
    path: &Path,
    sheet: Option<&Value>,
) -> Result<(Value, bool), String> {
    if !path.exists() {
        return Ok((new_character(game, sheet, Some(path))?, true));
    }
    // The file's character is the one acted for: a sheet given too would be dropped unseen.
    if sheet.is_some() {
        return Err(format!(
            "--sheet makes a new character, but {} already holds one; drop --sheet to act for it, \
             or give another --state file for a new character",
            path.display()
        ));
    }
    let text = read_text_at_most(
        path,
        MAX_JSON_FILE,
        "a state file is far smaller; check the path",
    )?;
    let file: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a state file: {e}", path.display()))?;
    let rules = file.get("rules").and_then(Value::as_str).unwrap_or("");
    if rules != game.name() {
        return Err(format!(
            "{} holds a `{rules}` character, not a `{}` one; use another --state file",
            path.display(),
            game.name()
        ));
    }
    let version = file
        .get("version")
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("{} has no state version", path.display()))?;
    let state = game
        .load(version, file.get("state").unwrap_or(&Value::Null))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((state, false))
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

pub fn odds_text(odds: &Value) -> String {
    let mut text = String::from("\n");
    render_odds(odds, "  ", &mut text);
    text
}

/// A probability as the rule sets give it, `{fraction, percent}`.
fn probability(value: &Value) -> Option<(&str, f64)> {
    let map = value.as_object()?;
    let fraction = map.get("fraction")?.as_str()?;
    Some((fraction, map.get("percent")?.as_f64()?))
}

/// A distribution as the rule sets give it: a list of `{outcome, fraction, percent}`.
fn distribution(value: &Value) -> Option<Vec<(String, &str, f64)>> {
    let items = value.as_array()?;
    if items.is_empty() {
        return None;
    }
    items
        .iter()
        .map(|item| {
            let (fraction, percent) = probability(item)?;
            Some((outcome_label(item.get("outcome")?), fraction, percent))
        })
        .collect()
}

/// Odds JSON for people: plain values as aligned `name  value` lines (absent ones left out), each
/// distribution as a table with aligned fraction and percent columns and a sentence naming its most
/// likely outcome, nested objects indented under their name.
fn render_odds(value: &Value, indent: &str, out: &mut String) {
    let Some(map) = value.as_object() else {
        out.push_str(&format!("{indent}{}\n", plain(value)));
        return;
    };
    let width = map
        .iter()
        .filter(|(_, v)| is_plain(v))
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    for (key, item) in map.iter().filter(|(_, v)| is_plain(v)) {
        out.push_str(&format!("{indent}{key:<width$}  {}\n", plain(item)));
    }
    for (key, item) in map.iter().filter(|(_, v)| !is_plain(v) && !v.is_null()) {
        if let Some(rows) = distribution(item) {
            out.push('\n');
            render_distribution(key, &rows, indent, out);
        } else if item.is_object() {
            out.push_str(&format!("{indent}{key}:\n"));
            render_odds(item, &format!("{indent}  "), out);
        } else if let Some(items) = item.as_array() {
            out.push_str(&format!("{indent}{key}:\n"));
            for element in items {
                render_odds(element, &format!("{indent}  "), out);
            }
        }
    }
}

/// A value printed on one line: a probability as `fraction ≈ percent`, anything else as JSON.
fn plain(value: &Value) -> String {
    match probability(value) {
        Some((fraction, percent)) => {
            format!("{fraction} ≈ {}", crate::float::percent(fraction, percent))
        }
        None => match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        },
    }
}

/// Whether a value is shown on one line rather than as a table or a nested block.
fn is_plain(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Object(_) => probability(value).is_some(),
        Value::Array(items) => items.iter().all(|i| !i.is_object() && !i.is_array()),
        _ => true,
    }
}

fn render_distribution(name: &str, rows: &[(String, &str, f64)], indent: &str, out: &mut String) {
    let label = rows
        .iter()
        .map(|r| r.0.chars().count())
        .max()
        .unwrap_or(0)
        .max(name.chars().count());
    let fraction = rows
        .iter()
        .map(|r| r.1.chars().count())
        .max()
        .unwrap_or(0)
        .max(1);
    out.push_str(&format!(
        "{indent}{name:<label$}  {:>fraction$}  {:>7}\n",
        "P", "%"
    ));
    for (outcome, p, percent) in rows {
        let percent = crate::float::percent(p, *percent);
        out.push_str(&format!(
            "{indent}{outcome:<label$}  {p:>fraction$}  {percent:>7}\n"
        ));
    }
    // The first of the most likely outcomes, in the order the rule set lists them.
    let mut likeliest = &rows[0];
    for row in rows {
        if row.2 > likeliest.2 {
            likeliest = row;
        }
    }
    out.push_str(&format!(
        "{indent}most likely: {} ({:.2}%)\n",
        likeliest.0, likeliest.2
    ));
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
    let seen = Seen::of(game_name, holder.view);
    if holder.odds {
        return match game.odds(&state, &action, limits) {
            Ok(odds) => {
                let mut text =
                    format!("odds of {}:{}", action_name(&action), seen.odds_text(&odds));
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
                        "action": seen.show(Part::Action, &action),
                        "odds": seen.show(Part::Odds, &odds),
                    }),
                )?;
                Ok(true)
            }
            Err(error) => fail(error),
        };
    }
    let (mut source, seed) = holder.source.dice_source();
    let mut recorder = RecordingDice::new(source.as_mut());
    let applied = match game.apply(&state, &action, &mut recorder, limits) {
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
    let summary = seen.summary(&action, &applied.result, &applied.summary);
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
        "action": seen.show(Part::Action, &action),
        "seed": seed,
        "dice": dice,
        "result": seen.show(Part::Result, &applied.result),
        "summary": summary,
        "state_before": seen.show(Part::State, &state),
        "state_after": state_after,
    });
    print(holder.source.format, &text, &report)?;
    Ok(true)
}

/// An outcome as a table row's label: `good`, `3`, `success marginal`, `reached 15`.
fn outcome_label(outcome: &Value) -> String {
    match outcome {
        Value::String(text) => text.clone(),
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| format!("{key} {}", outcome_label(value)))
            .collect::<Vec<_>>()
            .join(", "),
        Value::Array(items) => items
            .iter()
            .map(outcome_label)
            .collect::<Vec<_>>()
            .join(" "),
        other => other.to_string(),
    }
}

pub fn action_name(action: &Value) -> &str {
    action.get("action").and_then(Value::as_str).unwrap_or("?")
}

/// An action error for people: given dice that ran out say how to fix that.
pub fn describe(error: &ActionError) -> String {
    match error {
        ActionError::Dice(core) => format!("{core}; give one value per die the action rolls"),
        other => other.to_string(),
    }
}
