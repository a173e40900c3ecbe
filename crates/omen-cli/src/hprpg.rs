//! `omen hprpg create`, the calculator without a rule-set analysis yet: character creation.

use std::io::Write;

use clap::{Args, Subcommand};
use omen_rules::hprpg::character::CreationChoices;
use serde_json::Value;

#[derive(Debug, Subcommand)]
pub enum HprpgCommand {
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

/// Runs an hprpg command; `Ok(false)` means bad input, already reported.
pub fn run(command: &HprpgCommand) -> anyhow::Result<bool> {
    match command {
        HprpgCommand::Create(args) => create(args),
    }
}
