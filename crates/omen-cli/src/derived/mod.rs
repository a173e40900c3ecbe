//! `omen GAME ACTION` and `omen GAME ANALYSIS`, built at run time from the rule sets' own
//! descriptions: the JSON Schema of a game's actions ([`omen_rules::stateful::Game::schemas`]) and of
//! each analysis's inputs ([`omen_rules::analysis::Analysis`]). A field's doc comment is its flag's
//! help, its default and bounds the flag's, and a rule set may give a field a hint for the command
//! line (see [`schema`]). Nothing here names a game: a game added to the registry, an action or an
//! analysis added to a game, gets its subcommand with no change to this crate.
//!
//! A game's subcommands are built only when the game is the one named on the command line (clap
//! defers them), so `omen prob 3d6` describes no game; completions and the manual page build them all.

#[cfg(test)]
mod audit;
pub mod command;
pub mod schema;
pub mod values;

use std::cell::RefCell;
use std::io::Write;
use std::sync::Mutex;

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use omen_core::Limits;
use omen_rules::analysis::{Analysis, AnalysisTable, Answer};
use serde_json::Value;

use crate::tables::{Table, TableFormat};

/// The action schemas read so far, one per game: read once per process (every game's only when
/// building everything).
static SCHEMAS: Mutex<Vec<(String, &'static Value)>> = Mutex::new(Vec::new());

thread_local! {
    /// The game whose subcommands this thread is building: clap builds a deferred subcommand on
    /// the thread that parses, and only the game given is built (all of them, one after the other,
    /// for completions and the manual page).
    static CURRENT: RefCell<String> = const { RefCell::new(String::new()) };
}

/// `game`'s action schema, made once per process (it lives as long as the process, as the command
/// line built from it does).
fn action_schema(game: &str) -> &'static Value {
    let mut schemas = SCHEMAS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, root)) = schemas.iter().find(|(name, _)| name == game) {
        return root;
    }
    let root = omen_rules::stateful::game(game).map_or(Value::Null, |g| g.action_schema());
    let root: &'static Value = Box::leak(Box::new(root));
    schemas.push((game.to_string(), root));
    root
}

/// Adds one subcommand per registered game; `full` builds each game's subcommands at once (for
/// completions and the manual page), else only for the game given.
pub fn add_games(mut command: Command, full: bool) -> Command {
    for rules in omen_rules::registry() {
        let game = Command::new(rules.name())
            .about(rules.description())
            .subcommand_required(true)
            .arg_required_else_help(true);
        command = command.subcommand(if full {
            build_game(game, true)
        } else {
            game.defer(build)
        });
    }
    command
}

/// Whether `name` is a game's subcommand.
pub fn is_game(name: &str) -> bool {
    omen_rules::find(name).is_some()
}

/// The game now being built.
fn current_game() -> String {
    CURRENT.with(|current| current.borrow().clone())
}

/// Builds `command` now when building everything, else when clap reaches it.
fn now_or_deferred(command: Command, eager: bool, build: fn(Command) -> Command) -> Command {
    if eager {
        build(command)
    } else {
        command.defer(build)
    }
}

/// The game's subcommands when clap reaches the game.
fn build(command: Command) -> Command {
    build_game(command, false)
}

/// A game's subcommands: its actions, then its analyses. Each gets its name and help here, its flags
/// when it is the one given (or at once when `eager`).
fn build_game(command: Command, eager: bool) -> Command {
    let name = command.get_name().to_string();
    let mut command = command;
    CURRENT.with(|current| current.replace(name.clone()));
    let root = action_schema(&name);
    let rules = omen_rules::find(&name);
    let analyses = rules.map(|rules| rules.analyses()).unwrap_or_default();
    // The one subcommand given is all clap shows the help of: the others need their names alone,
    // which spares the start-up of `omen GAME ACTION` the help of every other action. A word that
    // names none of them (a typo, `help`, no word) gets every subcommand's help, for the list.
    let given = (!eager).then(|| word_after(&name)).flatten();
    let given = given.filter(|word| {
        schema::action_commands(root).any(|c| c == word) || analyses.iter().any(|a| a.name == word)
    });
    // Named by its hint alone where it has one (`omen ritual perform` is the action `essence`): the
    // action's own name may be another subcommand's (the Essence check).
    if let Some(word) = &given {
        for action in schema::action_commands(root) {
            let mut sub = Command::new(action.to_string());
            if action == word {
                sub = sub.about(schema::action_help(root, action).unwrap_or_default());
            }
            command = command.subcommand(now_or_deferred(sub, eager, action_flags));
        }
    } else {
        for action in schema::action_names(root) {
            let sub = Command::new(action.command.clone()).about(action.help.unwrap_or_default());
            command = command.subcommand(now_or_deferred(sub, eager, action_flags));
        }
    }
    for analysis in analyses {
        let mut sub = Command::new(analysis.name);
        if given.as_deref().is_none_or(|word| word == analysis.name) {
            sub = sub.about(schema::without_spec_ids(analysis.summary));
        }
        command = command.subcommand(now_or_deferred(sub, eager, analysis_flags));
    }
    command
}

/// The word after `game` on this process's command line: the subcommand the user named, if any.
fn word_after(game: &str) -> Option<String> {
    let mut words = std::env::args_os().skip(1).skip_while(|word| word != game);
    words.next();
    words.next().and_then(|word| word.into_string().ok())
}

/// An action's flags: the runner's (see [`crate::act::Holder`]) and one per field, and its examples.
fn action_flags(command: Command) -> Command {
    let game = current_game();
    let root = action_schema(&game);
    let Some(action) = schema::action_of(root, command.get_name()) else {
        return command;
    };
    let prefix = format!("omen {game} {} --state character.json", action.command);
    let mut text = command::examples(
        &prefix,
        &action.fields,
        &schema::action_examples(root, &action.name),
        command::HOLDER_FLAGS,
    );
    let rolls = omen_rules::stateful::game(&game)
        .is_some_and(|g| g.actions().iter().any(|a| a.name == action.name && a.rolls));
    if rolls {
        let first = text.lines().nth(1).unwrap_or_default().to_string();
        text.push_str(&format!("\n{first} --odds"));
    }
    // The runner's flags set the command's texts from their own doc comment: the action's win.
    let about = command.get_about().cloned().unwrap_or_default();
    let command = command::add_fields(command, &action.fields, command::HOLDER_FLAGS);
    crate::act::Holder::augment_args(command)
        .about(about)
        .after_help(text)
}

/// An analysis's flags: one per input, `--format`, and its examples.
fn analysis_flags(command: Command) -> Command {
    let game = current_game();
    let Some(analysis) = omen_rules::find(&game).and_then(|rules| {
        rules
            .analyses()
            .iter()
            .find(|a| a.name == command.get_name())
    }) else {
        return command;
    };
    let root = (analysis.inputs)();
    let fields = schema::object_fields(&root, &root, 0).unwrap_or_default();
    let examples = root
        .get("examples")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| e.as_object().cloned())
        .collect::<Vec<_>>();
    let text = command::examples(
        &format!("omen {game} {}", analysis.name),
        &fields,
        &examples,
        command::ANALYSIS_FLAGS,
    );
    command::add_fields(command.after_help(text), &fields, command::ANALYSIS_FLAGS).arg(
        Arg::new("format")
            .long("format")
            .value_name("FORMAT")
            .help("How to print the result.")
            .value_parser(clap::builder::EnumValueParser::<TableFormat>::new())
            .ignore_case(true)
            .default_value("text"),
    )
}

/// Runs `omen GAME …`; `Ok(false)` means bad input, already reported.
///
/// # Errors
/// Writing the result failed.
pub fn run(game: &str, matches: &ArgMatches, limits: &Limits) -> anyhow::Result<bool> {
    let Some((name, given)) = matches.subcommand() else {
        return Ok(false);
    };
    if omen_rules::stateful::game(game).is_some()
        && let Some(action) = schema::action_of(action_schema(game), name)
    {
        let mut object = match values::object(given, &action.fields) {
            Ok(object) => object,
            Err(message) => return fail(message),
        };
        object.insert("action".into(), Value::from(action.name));
        let holder = crate::act::Holder::from_arg_matches(given)?;
        return crate::act::run(game, Value::Object(object), &holder, limits);
    }
    let analysis =
        omen_rules::find(game).and_then(|rules| rules.analyses().iter().find(|a| a.name == name));
    match analysis {
        Some(analysis) => run_analysis(analysis, given, limits),
        None => fail(format!("{game} has no subcommand `{name}`")),
    }
}

fn run_analysis(analysis: &Analysis, given: &ArgMatches, limits: &Limits) -> anyhow::Result<bool> {
    let root = (analysis.inputs)();
    let fields = schema::object_fields(&root, &root, 0).unwrap_or_default();
    let mut inputs = match values::object(given, &fields) {
        Ok(inputs) => inputs,
        Err(message) => return fail(message),
    };
    // A roll not given a seed gets one picked now, which the answer shows so it can be replayed.
    for (name, property) in root["properties"].as_object().into_iter().flatten() {
        if property.get("x-cli-fresh-seed") == Some(&Value::Bool(true))
            && !inputs.contains_key(name)
        {
            inputs.insert(name.clone(), Value::from(crate::seed::fresh_seed()));
        }
    }
    let inputs = Value::Object(inputs);
    let format = given
        .get_one::<TableFormat>("format")
        .copied()
        .unwrap_or(TableFormat::Text);
    let answer = match analysis.answer {
        Some(answer) => answer(&inputs, limits),
        None => (analysis.run)(&inputs, limits).map(Answer::tables),
    };
    let answer = match answer {
        Ok(answer) => answer,
        Err(message) => return fail(message),
    };
    if !warn(&answer, format) {
        return Ok(false);
    }
    let mut out = crate::output::result();
    let text = render(&answer, format, crate::fit::width());
    out.write_all(text.as_bytes())?;
    Ok(true)
}

/// Says the answer's warnings and notes on stderr (text only: in JSON they are fields of the
/// answer); `false` when `--strict` makes the warnings errors, and nothing is printed.
fn warn(answer: &Answer, format: TableFormat) -> bool {
    let strict = crate::diagnostics::strict() && !answer.warnings.is_empty();
    if format != TableFormat::Json || strict {
        for warning in &answer.warnings {
            eprintln!("warning: {warning}");
        }
    }
    if strict {
        eprintln!("error: warnings are errors under --strict; no result was printed");
        return false;
    }
    if let Some(notes) = answer
        .notes
        .as_deref()
        .filter(|_| format == TableFormat::Text)
    {
        eprint!("{}", crate::fit::wrap(notes, crate::fit::width()));
    }
    true
}

/// An answer in `format`: the analysis's own text, markdown or JSON where it has them, else its
/// tables (CSV is always the tables: exact fractions for a spreadsheet).
fn render(answer: &Answer, format: TableFormat, width: usize) -> String {
    let tables = &answer.tables;
    match format {
        TableFormat::Json => match &answer.json {
            Some(json) => format!("{json}\n"),
            None => format!("{}\n", serde_json::json!({ "tables": tables })),
        },
        TableFormat::Csv => tables
            .iter()
            .map(|t| exact(table(t)).csv())
            .collect::<Vec<_>>()
            .join("\n"),
        TableFormat::Text if answer.text.is_some() => {
            crate::fit::wrap(answer.text.as_deref().unwrap_or_default(), width)
        }
        TableFormat::Text | TableFormat::Markdown if answer.markdown.is_some() => {
            crate::fit::markdown_tables(answer.markdown.as_deref().unwrap_or_default(), width)
        }
        TableFormat::Markdown => {
            let markdown = tables
                .iter()
                .map(|t| {
                    let table = table(t).markdown();
                    if t.caption.is_empty() {
                        return table;
                    }
                    let caption = crate::fit::wrap(&t.caption, width);
                    format!("{}\n\n{table}", caption.trim_end())
                })
                .collect::<Vec<_>>()
                .join("\n");
            crate::fit::markdown_tables(&markdown, width)
        }
        TableFormat::Text => tables
            .iter()
            .map(|t| text_table(t, width))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// A table to read: the caption, then the columns aligned when they fit the width, else each row
/// as its label and its other cells named by their headings, wrapped under the label.
fn text_table(table: &AnalysisTable, width: usize) -> String {
    let mut text = if table.caption.is_empty() {
        String::new()
    } else {
        crate::fit::wrap(&format!("{}:\n", table.caption), width)
    };
    let mut widths: Vec<usize> = table.columns.iter().map(|c| c.chars().count()).collect();
    for row in &table.rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:<w$}"))
            .collect();
        format!("  {}", padded.join("  ").trim_end())
    };
    let total = 2 + widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
    if total <= width {
        text.push_str(&line(&table.columns));
        text.push('\n');
        for row in &table.rows {
            text.push_str(&line(row));
            text.push('\n');
        }
        return text;
    }
    for row in &table.rows {
        let rest: Vec<String> = table.columns[1..]
            .iter()
            .zip(&row[1..])
            .map(|(heading, cell)| format!("{heading} {cell}"))
            .collect();
        let entry = format!("  {}: {}\n", row[0], rest.join(", "));
        text.push_str(&crate::fit::wrap_under(&entry, width, Some(4)));
    }
    text
}

/// CSV is for a spreadsheet: a probability cell `1/36 (2.78%)` keeps its exact fraction alone.
fn exact(mut table: Table) -> Table {
    for cell in table.rows.iter_mut().flatten() {
        if let Some((fraction, rest)) = cell.split_once(" (")
            && rest.ends_with("%)")
            && fraction.chars().all(|c| c.is_ascii_digit() || c == '/')
        {
            *cell = fraction.to_string();
        }
    }
    table
}

fn table(table: &AnalysisTable) -> Table {
    Table {
        heading: table.columns.clone(),
        rows: table.rows.clone(),
    }
}

fn fail(message: impl std::fmt::Display) -> anyhow::Result<bool> {
    crate::fit::error(message);
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::schema::without_spec_ids;

    #[test]
    fn spec_ids_leave_everyday_help() {
        assert_eq!(
            without_spec_ids("A check (003-M1..M9, M21): aspect + ability (or affinity) dots."),
            "A check: aspect + ability (or affinity) dots."
        );
        assert_eq!(
            without_spec_ids("000-M8's optional recording rule; with it on"),
            "optional recording rule; with it on"
        );
    }
}
