//! `omen hprpg` calculators without a rule-set analysis yet: Appendix 10 as the seed rounds it, and
//! character creation.

use std::io::Write;

use clap::{Args, Subcommand, ValueEnum};
use omen_rules::hprpg::character::CreationChoices;
use omen_rules::hprpg::table;
use serde_json::Value;

#[derive(Debug, Subcommand)]
pub enum HprpgCommand {
    /// The outcome table of Appendix 10 for a DV and catastrophe range: dice 0..14 against
    /// catastrophe, failure, 1..6 and 7+ net successes.
    #[command(
        after_help = "Examples:\n  omen hprpg table --dv 8\n  omen hprpg table --dv 10 --catastrophe-range 3 --format json"
    )]
    Table(TableArgs),
    /// Character creation: the finished sheet from the player's choices, or every rule
    /// the choices break, listed at once. Store it with `omen char new NAME --rules hprpg --sheet
    /// '{"create": CHOICES}'`.
    #[command(
        after_help = "Examples:\n  omen rules hprpg --example -o rook.json\n  omen hprpg create --choices @rook.json\n  omen hprpg create --choices @rook.json --format json"
    )]
    Create(CreateArgs),
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The choices: JSON text or @FILE, e.g. {"personality": "REBEL", "archetype": "WARRIOR",
    /// "aspect_ranking": ["PHYSICAL", "MENTAL", "SOCIAL"], "aspects": {"FITNESS": 3, …},
    /// "ability_ranking": [...], "abilities": {...}, "archetype_abilities": {...},
    /// "capability_choices": [...], "fortitude": 3, "health": 5}.
    #[arg(long, value_name = "JSON")]
    pub choices: String,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = crate::args::RollFormat::Text)]
    pub format: crate::args::RollFormat,
}

fn create(args: &CreateArgs) -> anyhow::Result<bool> {
    let choices = match crate::act::json_argument(&args.choices).and_then(|mut value| {
        // `omen rules hprpg --example` prints the sheet form `{"create": CHOICES}`: take it as is.
        if let Some(object) = value.as_object_mut()
            && object.len() == 1
            && let Some(inner) = object.remove("create")
        {
            value = inner;
        }
        omen_rules::schema_check::decode::<CreationChoices>(&value)
            .map_err(|e| format!("invalid creation choices: {e}"))
    }) {
        Ok(choices) => choices,
        Err(message) => {
            crate::fit::error(message);
            return Ok(false);
        }
    };
    match omen_rules::hprpg::character::create(&choices) {
        Ok(created) => {
            // stdout carries the sheet alone, so it can be piped into `omen char new`; warnings go
            // to stderr (in JSON they are a field of the answer).
            let strict = crate::diagnostics::strict() && !created.warnings.is_empty();
            if args.format == crate::args::RollFormat::Text || strict {
                for warning in &created.warnings {
                    eprintln!("warning: {warning}");
                }
            }
            if strict {
                eprintln!("error: warnings are errors under --strict; no result was printed");
                return Ok(false);
            }
            // The ratings' names and the personality's Asset and Flaw (003-D1, D6) are for the
            // player reading along: on stderr in text, beside the sheet in JSON.
            let summary = omen_rules::hprpg::summary::SheetSummary::of(&created.sheet);
            if args.format == crate::args::RollFormat::Text {
                eprint!("{}", crate::fit::wrap(&summary.text(), crate::fit::width()));
            }
            let text = format!("{:#}\n", serde_json::to_value(&created.sheet)?);
            let mut json = serde_json::to_value(&created)?;
            json["summary"] = serde_json::to_value(&summary)?;
            show(args.format, &text, &json)
        }
        Err(problems) => {
            crate::fit::error(problems);
            Ok(false)
        }
    }
}

/// Prints an analysis: text, or its JSON.
fn show(format: crate::args::RollFormat, text: &str, json: &Value) -> anyhow::Result<bool> {
    let mut out = crate::output::result();
    match format {
        crate::args::RollFormat::Text => {
            out.write_all(crate::fit::wrap(text, crate::fit::width()).as_bytes())?
        }
        crate::args::RollFormat::Json => writeln!(out, "{json}")?,
    }
    Ok(true)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// Percentages rounded as the seed rounds them (2 significant figures); the table to read.
    #[value(alias = "text")]
    Markdown,
    /// Exact fractions, one row per line, for a spreadsheet.
    Csv,
    /// Exact fractions.
    Json,
}

#[derive(Debug, Args)]
pub struct TableArgs {
    /// The difficulty value (DV), 2..12; raised above the catastrophe range as the rules say.
    #[arg(long, value_name = "D")]
    pub dv: i64,
    /// The top of the catastrophe range (1 for 1-1, 3 for a Broken Wand's 1-3).
    #[arg(long, value_name = "X", default_value_t = 1)]
    pub catastrophe_range: i64,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = TableFormat::Markdown)]
    pub format: TableFormat,
}

/// Runs an hprpg command; `Ok(false)` means bad input, already reported.
pub fn run(command: &HprpgCommand) -> anyhow::Result<bool> {
    match command {
        HprpgCommand::Create(args) => create(args),
        HprpgCommand::Table(args) => match table(args.dv, args.catastrophe_range) {
            Ok(t) => {
                let text = match args.format {
                    TableFormat::Markdown => {
                        crate::fit::markdown_tables(&t.markdown(), crate::fit::width())
                    }
                    TableFormat::Json => format!("{}\n", t.to_json()),
                    TableFormat::Csv => {
                        let json: Value = serde_json::from_str(&t.to_json())?;
                        let mut columns = vec!["dice"];
                        columns.extend(omen_rules::hprpg::TABLE_COLUMNS);
                        crate::tables::Table::from_json(&json, &columns).csv()
                    }
                };
                crate::output::result().write_all(text.as_bytes())?;
                Ok(true)
            }
            Err(error) => {
                crate::fit::error(error);
                Ok(false)
            }
        },
    }
}
