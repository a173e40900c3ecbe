//! `omen rules`: the registered seed games, their mechanics, options, reference tables and the actions
//! of their characters.

use std::io::Write;

use clap::Args;
use omen_rules::{RuleSet, registry};
use serde::Serialize;

use crate::shared_args::RollFormat;

// No doc comment: clap would make it the command's about, over the one `Command::Rules` gives.
#[derive(Debug, Args)]
pub struct RulesArgs {
    #[arg(value_name = "GAME", help = format!(
        "One game only: {}.",
        crate::shared_args::rule_set_names(false)
    ))]
    pub game: Option<String>,
    /// Print the JSON Schemas of the game's sheet (with creation choices), state and actions.
    #[arg(long, requires = "game", conflicts_with = "example")]
    pub schema: bool,
    /// Print a complete, valid sheet (and creation choices) to start a character from.
    #[arg(long, requires = "game")]
    pub example: bool,
    /// For designers: the seed file and the spec items each mechanic, option and action implements.
    #[arg(long)]
    pub detail: bool,
    /// How to print the listing.
    #[arg(long, value_enum, ignore_case = true, default_value_t = RollFormat::Text)]
    pub format: RollFormat,
}

#[derive(Serialize)]
struct Listing<'a> {
    name: &'a str,
    seed_file: &'a str,
    description: &'a str,
    spec_items: &'a [&'a str],
    mechanics: &'a [omen_rules::Mechanic],
    options: &'a [omen_rules::RuleOption],
    tables: Vec<&'a str>,
    /// The fields only the game master sees (`--view player` hides them).
    game_master_only: &'a omen_rules::GameMasterOnly,
    /// The actions a character of this game can take (`omen GAME ACTION`), when it keeps state.
    actions: &'a [omen_rules::stateful::ActionInfo],
    /// The version of the saved state format.
    #[serde(skip_serializing_if = "Option::is_none")]
    state_version: Option<u32>,
}

fn listing(rules: &'static dyn RuleSet) -> Listing<'static> {
    let game = omen_rules::stateful::game(rules.name());
    Listing {
        name: rules.name(),
        seed_file: rules.seed_file(),
        description: rules.description(),
        spec_items: rules.spec_items(),
        mechanics: rules.mechanics(),
        options: rules.options(),
        tables: rules.tables().iter().map(|t| t.name).collect(),
        game_master_only: rules.game_master_only(),
        actions: game.map_or(&[], |g| g.actions()),
        state_version: game.map(|g| g.state_version()),
    }
}

/// Prints the registered rule sets, or one game's schemas or example; `Ok(false)` for an unknown game.
pub fn run(args: &RulesArgs) -> anyhow::Result<bool> {
    let rule_sets: Vec<&'static dyn RuleSet> = match &args.game {
        Some(name) => match omen_rules::find(name) {
            Some(found) => vec![found],
            None => {
                let known: Vec<&str> = registry().iter().map(|r| r.name()).collect();
                eprintln!(
                    "error: no game `{}`; the games are {}",
                    crate::escape::line(name),
                    known.join(", ")
                );
                return Ok(false);
            }
        },
        None => registry().to_vec(),
    };
    if args.schema || args.example {
        return sheet(args, rule_sets[0]);
    }
    let mut out = crate::output::result();
    let all: Vec<Listing> = rule_sets.iter().map(|r| listing(*r)).collect();
    if args.format == RollFormat::Json {
        writeln!(out, "{}", serde_json::to_string(&all)?)?;
        return Ok(true);
    }
    let detail = args.detail;
    // Built whole, then wrapped to the terminal: the summaries are long prose.
    let mut text = Vec::new();
    for game in &all {
        describe(game, detail, &mut text)?;
        writeln!(text)?;
    }
    if !detail {
        writeln!(
            text,
            "(`omen rules --detail` adds the seed files and the spec items each part implements)"
        )?;
    }
    out.write_all(
        crate::fit::wrap(&String::from_utf8_lossy(&text), crate::fit::width()).as_bytes(),
    )?;
    Ok(true)
}

/// `omen rules GAME --schema` or `--example`: the JSON Schemas of the game's sheet, state and
/// actions, or a complete sheet to start a character from.
fn sheet(args: &RulesArgs, rules: &dyn RuleSet) -> anyhow::Result<bool> {
    let Some(game) = omen_rules::stateful::game(rules.name()) else {
        eprintln!(
            "error: `{}` keeps no characters, so it has no sheet",
            rules.name()
        );
        return Ok(false);
    };
    let schemas = game.schemas();
    let printed = if args.schema {
        schemas
    } else {
        // The first example the sheet's schema carries: creation choices, or a sheet.
        schemas["sheet"]["examples"][0].clone()
    };
    writeln!(
        crate::output::result(),
        "{}",
        serde_json::to_string_pretty(&printed)?
    )?;
    Ok(true)
}

/// One game's lines of the listing: its mechanics, options, hidden fields, tables and actions.
fn describe(game: &Listing, detail: bool, text: &mut Vec<u8>) -> std::io::Result<()> {
    // Spec item ids and seed file names are for designers: shown with --detail only.
    let items = |ids: &[&str]| {
        if detail {
            format!(" [{}]", ids.join(", "))
        } else {
            String::new()
        }
    };
    if detail {
        writeln!(
            text,
            "{} (seed {}): {}",
            game.name, game.seed_file, game.description
        )?;
    } else {
        writeln!(text, "{}: {}", game.name, game.description)?;
    }
    for m in game.mechanics {
        writeln!(
            text,
            "  mechanic {}: {}{}",
            m.name,
            m.summary,
            items(m.spec_items)
        )?;
    }
    for o in game.options {
        let item = if detail {
            format!(" ({})", o.spec_item)
        } else {
            String::new()
        };
        writeln!(
            text,
            "  option {}{}: {}; choices {}, default {}; --option {}=VALUE on {}",
            o.name,
            item,
            o.summary,
            o.choices.join(" | "),
            o.default,
            o.name,
            o.actions.join(", ")
        )?;
    }
    let hidden = game.game_master_only;
    if hidden.hides_anything() {
        let parts = [
            ("action", hidden.action),
            ("sheet", hidden.sheet),
            ("state", hidden.state),
            ("result", hidden.result),
            ("odds", hidden.odds),
        ];
        let listed: Vec<String> = parts
            .iter()
            .filter(|(_, paths)| !paths.is_empty())
            .map(|(part, paths)| format!("{part} {}", paths.join(", ")))
            .collect();
        writeln!(
            text,
            "  game-master-only (hidden from --view player): {}",
            listed.join("; ")
        )?;
    }
    for t in &game.tables {
        writeln!(text, "  table {t}")?;
    }
    for a in game.actions {
        writeln!(
            text,
            "  action {}: {}{}",
            a.name,
            a.summary,
            items(a.spec_items)
        )?;
    }
    if game.state_version.is_some() {
        writeln!(
            text,
            "  characters: `omen rules {} --example` prints a sheet to start from, --schema its \
             JSON Schema",
            game.name
        )?;
    }
    Ok(())
}
