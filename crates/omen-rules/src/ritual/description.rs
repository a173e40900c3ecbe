//! Seed 000 as the registry lists it.

use super::game::RitualGame;
use super::rules::{SEED_FILE, essence_table, lore_table};
use super::{checks, tables};
use crate::vocabulary::stateful::{Game, serve};
use crate::{Description, Mechanic, ReferenceTable, RuleOption, RuleSet};

/// Seed 000 in the registry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ritual;

const SPEC_ITEMS: &[&str] = &[
    "000-M1", "000-M2", "000-M3", "000-M4", "000-M5", "000-M6", "000-S1", "000-M7", "000-M8",
    "000-M9", "000-S2", "000-M10", "000-M11", "000-M12", "000-M13", "000-A1", "000-A2", "000-A3",
    "000-A4", "000-A5", "000-A6", "000-A7", "000-A8", "000-A9", "000-A10", "000-A11",
];

const MECHANICS: &[Mechanic] = &[
    Mechanic {
        name: "lore check",
        spec_items: &[
            "000-M1", "000-M2", "000-M3", "000-M4", "000-M5", "000-A1", "000-A2",
        ],
        summary: "pool = lore + modifiers; difficulty 1 succeeds without a roll; a pool of 1 or more \
                  rolls that many d6 and keeps the highest, a pool of 0 or less rolls 2d6 and keeps \
                  the lower; success when the kept die meets the difficulty (1..6)",
    },
    Mechanic {
        name: "deciphering and lists",
        spec_items: &["000-M6", "000-S1", "000-A2", "000-A3"],
        summary: "a Lore check on a ritual: success adds it to the known rituals, failure to the \
                  unknown ones, which cannot be deciphered again until Lore rises; performed rituals \
                  are the used ones (+2)",
    },
    Mechanic {
        name: "lore progression",
        spec_items: &["000-M7", "000-A4", "000-A5", "000-A6"],
        summary: "at the end of a session with a rolled Lore check, the player may re-roll the most \
                  difficult one; if it fails, Lore rises by 1 and the unknown rituals are cleared",
    },
    Mechanic {
        name: "memorising",
        spec_items: &["000-M8", "000-A7"],
        summary: "one known ritual is memorised free; each further one needs a Lore check with the same \
                  pool rule; a known ritual may be copied into the character's notes, and with the \
                  recording option a performance reads it from memory, the notes (no check) or the \
                  source (a new decipher check)",
    },
    Mechanic {
        name: "essence check",
        spec_items: &["000-M9", "000-S2", "000-M10", "000-A8", "000-A11"],
        summary: "pool = leader + assistants + time and place + relics + offerings − repeated attempts \
                  − other penalties (at least 0); roll the pool of d6 and sum; the highest threshold \
                  the total meets takes effect, below the lowest the ritual fails",
    },
    Mechanic {
        name: "pairs for 7",
        spec_items: &["000-M11", "000-A9", "000-A10"],
        summary: "replace pairs of essence dice by 7 each; at least 5 dice must still be rolled unless \
                  7 per pair already reaches the threshold of the desired effect",
    },
];

const OPTIONS: &[RuleOption] = &[
    RuleOption {
        name: "familiarity-bonuses",
        spec_item: "000-A2",
        summary: "whether +1 (deciphered before) and +2 (performed before) add up or only the larger \
                  counts",
        choices: &["stack", "larger-only"],
        default: "stack",
        actions: &["lore-check", "decipher", "memorise", "lore"],
    },
    RuleOption {
        name: "shortcut-threshold",
        spec_item: "000-A9",
        summary: "whether 7 per replaced pair must meet or strictly exceed the desired threshold to \
                  roll fewer than 5 dice",
        choices: &["meets", "exceeds"],
        default: "meets",
        actions: &["essence"],
    },
    RuleOption {
        name: "repeat-counting",
        spec_item: "000-A8",
        summary: "whether the repeat-attempt penalty counts attempts at the same ritual or at any \
                  ritual since everyone last slept",
        choices: &["per-ritual", "global"],
        default: "per-ritual",
        actions: &["essence"],
    },
    RuleOption {
        name: "recording-and-memorising",
        spec_item: "000-M8",
        summary: "the optional rule of recording and memorising: performing a ritual says where it \
                  is read from (memory, the character's notes, or the source after a new decipher \
                  check) and is refused if that does not hold it",
        choices: &["off", "on"],
        default: "off",
        actions: &["essence"],
    },
];

const TABLES: &[ReferenceTable] = &[
    ReferenceTable {
        name: "lore",
        spec_items: &["000-M5"],
        summary: "P(lore check succeeds) for pools 0..12 and difficulties 2..6, as Appendix C prints it",
        render: lore_table,
    },
    ReferenceTable {
        name: "essence",
        spec_items: &["000-M12", "000-M13"],
        summary: "P(essence total ≥ TN) for 1..24 dice and TN in steps of 3, as Appendix D prints it",
        render: essence_table,
    },
];

static DESCRIPTION: Description = Description {
    name: "ritual",
    seed_file: SEED_FILE,
    description: "Lore and Essence: decipher rituals with the highest of a d6 pool, perform them with the sum of one",
    spec_items: SPEC_ITEMS,
    mechanics: MECHANICS,
    options: OPTIONS,
    tables: TABLES,
    game_master_only: crate::GameMasterOnly::NOTHING,
};

impl RuleSet for Ritual {
    fn describe(&self) -> &'static Description {
        &DESCRIPTION
    }

    fn analyses(&self) -> &'static [crate::analysis::Analysis] {
        &[
            tables::LORE_TABLE,
            tables::ESSENCE_TABLE,
            checks::LORE,
            checks::ESSENCE,
        ]
    }

    fn game(&self) -> Option<&'static dyn Game> {
        Some(serve::<RitualGame>())
    }
}
