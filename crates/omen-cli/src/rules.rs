//! `omen rules`: the registered seed games, their mechanics, options and reference tables.

use std::io::{self, Write};

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
}

fn listing(rules: &'static dyn RuleSet) -> Listing<'static> {
    Listing {
        name: rules.name(),
        seed_file: rules.seed_file(),
        description: rules.description(),
        spec_items: rules.spec_items(),
        mechanics: rules.mechanics(),
        options: rules.options(),
        tables: rules.tables().iter().map(|t| t.name).collect(),
    }
}

/// Prints every registered rule set.
pub fn run(format: RollFormat) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
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
                "  option {} ({}): {}; choices {}, default {}",
                o.name,
                o.spec_item,
                o.summary,
                o.choices.join(" | "),
                o.default
            )?;
        }
        for t in &game.tables {
            writeln!(out, "  table {t}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}
