//! Seed 001 as the registry lists it.

use super::analyses::{courtney_table, exhaustion_table, extremes_table};
use super::game::SpellDiceGame;
use super::rules::SEED_FILE;
use super::{courtney, exhaustion, odds};
use crate::vocabulary::stateful::{Game, serve};
use crate::{Description, Mechanic, ReferenceTable, RuleOption, RuleSet};

/// Seed 001 in the registry.
#[derive(Clone, Copy, Debug, Default)]
pub struct SpellDice;

const SPEC_ITEMS: &[&str] = &[
    "001-M1", "001-M2", "001-M3", "001-M4", "001-M5", "001-M6", "001-M7", "001-M8", "001-A1",
    "001-A2", "001-A3", "001-A4", "001-A5", "001-D1", "001-A6",
];

const MECHANICS: &[Mechanic] = &[
    Mechanic {
        name: "spell pool",
        spec_items: &["001-M1", "001-A5"],
        summary: "2 + level d6; dice lost during the day come back after a restful night's sleep; a \
                  pool whose every die at 6 falls short of the target cannot cast that spell",
    },
    Mechanic {
        name: "cast",
        spec_items: &[
            "001-M2", "001-M3", "001-M4", "001-M6", "001-M7", "001-A1", "001-A4",
        ],
        summary: "commit 1..pool dice, sum minus penalties ≥ 7 + spell level succeeds; committed \
                  dice showing 1–2 leave the pool; a failure with two 1s is a catastrophe, a success \
                  with two 6s is empowered",
    },
    Mechanic {
        name: "life energy",
        spec_items: &["001-M5", "001-A3"],
        summary: "once the pool is empty, up to level life-energy dice per cast, each dealing its face \
                  in damage to the caster whatever the result; always expended",
    },
    Mechanic {
        name: "analyses",
        spec_items: &["001-M8", "001-A2"],
        summary: "exact odds of extremes, success, catastrophe and empowerment by dice and spell \
                  level; P(pool exhausted before any success) and expected successes per day",
    },
];

const OPTIONS: &[RuleOption] = &[
    RuleOption {
        name: "removal-faces",
        spec_item: "001-M3",
        summary: "committed dice showing 1 up to this face leave the pool (scarcity knob)",
        choices: &["1", "2", "3", "4", "5", "6"],
        default: "2",
        actions: &["cast", "exhaust"],
    },
    RuleOption {
        name: "removal-timing",
        spec_item: "001-A4",
        summary: "whether dice showing removal faces leave after every cast or only after a success \
                  or a catastrophe (the author's fix)",
        choices: &["always", "success-or-catastrophe"],
        default: "always",
        actions: &["cast", "exhaust"],
    },
    RuleOption {
        name: "life-damage",
        spec_item: "001-A3",
        summary: "damage a life-energy die deals: its face or 1",
        choices: &["face", "one"],
        default: "face",
        actions: &["cast"],
    },
    RuleOption {
        name: "life-dice-use",
        spec_item: "001-A3",
        summary: "whether life-energy dice need an empty spell pool or may mix with spell dice",
        choices: &["when-depleted", "mixing"],
        default: "when-depleted",
        actions: &["cast"],
    },
];

static DESCRIPTION: Description = Description {
    name: "spelldice",
    seed_file: SEED_FILE,
    description: "Spell dice: commit d6 from a shrinking pool, sum against 7 + spell level, lose the 1s and 2s",
    spec_items: SPEC_ITEMS,
    mechanics: MECHANICS,
    options: OPTIONS,
    tables: TABLES,
    game_master_only: crate::GameMasterOnly::NOTHING,
};

impl RuleSet for SpellDice {
    fn describe(&self) -> &'static Description {
        &DESCRIPTION
    }

    fn analyses(&self) -> &'static [crate::analysis::Analysis] {
        ANALYSES
    }

    fn game(&self) -> Option<&'static dyn Game> {
        Some(serve::<SpellDiceGame>())
    }
}

const TABLES: &[ReferenceTable] = &[
    ReferenceTable {
        name: "extremes",
        spec_items: &["001-M8", "001-A2"],
        summary: "P(two or more 1s), P(either extreme), P(both) for 1..12 dice, whatever the result",
        render: extremes_table,
    },
    ReferenceTable {
        name: "exhaustion",
        spec_items: &["001-M8", "001-M6"],
        summary: "P(pool exhausted before any success) and expected successes per day for levels \
                  1..5, spell levels up to the level, base rule and variant, commit all, minimum or \
                  optimal",
        render: exhaustion_table,
    },
    ReferenceTable {
        name: "courtney",
        spec_items: &["001-D1", "001-A6"],
        summary: "Courtney's threefold result table, reference data from a different system",
        render: courtney_table,
    },
];

/// The analyses of seed 001.
const ANALYSES: &[crate::analysis::Analysis] = &[
    exhaustion::EXHAUST,
    odds::ODDS,
    odds::EXTREMES,
    courtney::COURTNEY,
];
