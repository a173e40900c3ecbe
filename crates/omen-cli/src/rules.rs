//! `omen rules`: the registered seed games, their mechanics, options, reference tables and the actions
//! of their characters.

use std::io::Write;

use omen_rules::{RuleSet, registry};
use serde::Serialize;

use crate::args::RollFormat;

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

/// Prints every registered rule set.
pub fn run(format: RollFormat) -> anyhow::Result<()> {
    let mut out = crate::output::result();
    let all: Vec<Listing> = registry().iter().map(|r| listing(*r)).collect();
    if format == RollFormat::Json {
        writeln!(out, "{}", serde_json::to_string(&all)?)?;
        return Ok(());
    }
    for game in &all {
        writeln!(
            out,
            "{} (seed {}): {}",
            game.name, game.seed_file, game.description
        )?;
        for m in game.mechanics {
            writeln!(
                out,
                "  mechanic {}: {} [{}]",
                m.name,
                m.summary,
                m.spec_items.join(", ")
            )?;
        }
        for o in game.options {
            writeln!(
                out,
                "  option {} ({}): {}; choices {}, default {}; --option {}=VALUE on {}",
                o.name,
                o.spec_item,
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
                out,
                "  game-master-only (hidden from --view player): {}",
                listed.join("; ")
            )?;
        }
        for t in &game.tables {
            writeln!(out, "  table {t}")?;
        }
        for a in game.actions {
            writeln!(
                out,
                "  action {}: {} [{}]",
                a.name,
                a.summary,
                a.spec_items.join(", ")
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}
