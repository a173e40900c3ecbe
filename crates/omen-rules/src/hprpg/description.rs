//! Seed 003 as the registry lists it: its spec items, mechanics, options, tables, analyses and game.

use super::appendix::{APPENDIX_10, appendix_10};
use super::game::HprpgGame;
use super::rules::SEED_FILE;
use super::{calculators, creation, seed_table};
use crate::vocabulary::stateful::{Game, serve};
use crate::{Description, Mechanic, ReferenceTable, RuleOption, RuleSet};

/// Seed 003 in the registry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hprpg;

const SPEC_ITEMS: &[&str] = &[
    "003-M1", "003-M2", "003-M3", "003-M4", "003-M5", "003-M6", "003-M7", "003-M8", "003-M9",
    "003-M10", "003-M11", "003-M12", "003-M13", "003-M14", "003-M15", "003-M16", "003-M17",
    "003-M18", "003-M19", "003-M20", "003-M21", "003-M22", "003-S1", "003-M23", "003-M24",
    "003-M25", "003-D1", "003-D2", "003-D3", "003-D4", "003-D5", "003-D6", "003-D7", "003-A1",
    "003-A2", "003-A3", "003-A4", "003-A5", "003-A6", "003-A7", "003-A8", "003-A9", "003-A10",
    "003-A11", "003-A12", "003-A13", "003-A14", "003-A15", "003-A16", "003-A17", "003-A18",
    "003-A19", "003-A20", "003-A21", "003-A22",
];

const MECHANICS: &[Mechanic] = &[
    Mechanic {
        name: "pool",
        spec_items: &["003-M1"],
        summary: "aspect dots + ability (or affinity) dots + bonus dice − penalty dice, at least 0 d12",
    },
    Mechanic {
        name: "difficulty",
        spec_items: &["003-M2", "003-M4", "003-A3", "003-A4"],
        summary: "effective DV = clamp(DV, max(2, X + 1), 12); as an option each point above 12 becomes \
                  a point of intractability",
    },
    Mechanic {
        name: "check",
        spec_items: &[
            "003-M3", "003-M5", "003-M6", "003-M7", "003-A1", "003-A5", "003-A8",
        ],
        summary: "each d12 ≥ DV a success S, each ≤ X a catastrophe C; net = max(S − I, 0) − C; net < 0 \
                  catastrophic failure, 0 failure, 1 marginal … ≥ 7 legendary; a zero pool rolls 2d12 \
                  and scores the lower as one die",
    },
    Mechanic {
        name: "automatic-successes",
        spec_items: &["003-M8", "003-M9", "003-A13"],
        summary: "a pool above the DV may succeed unrolled (GM); FORTITUDE, rituals and feats add \
                  automatic successes to S before intractability and catastrophes",
    },
    Mechanic {
        name: "contest",
        spec_items: &["003-M11", "003-A6"],
        summary: "margin = instigator's net − resistor's, each floored at 0 (option: signed); > 0 \
                  success of that degree, 0 status quo, < 0 failure",
    },
    Mechanic {
        name: "working-together",
        spec_items: &["003-M12", "003-A7"],
        summary: "every helper rolls; all successes and catastrophes are pooled and the net taken on \
                  the pool",
    },
    Mechanic {
        name: "passive-perception",
        spec_items: &["003-M14"],
        summary: "PERCEPTION + ALERTNESS dots is the DV of sneak checks; failure or catastrophe reveals \
                  the sneaker",
    },
    Mechanic {
        name: "spellcasting",
        spec_items: &[
            "003-M15", "003-M16", "003-M17", "003-M18", "003-M22", "003-A12", "003-A16", "003-A17",
        ],
        summary: "DV = 8 + level − Affinity; 1 FORTITUDE per level above Affinity; net ≥ 1 casts, \
                  required successes (WANDTIP 1, RANGED 2 per target, MASS 4+) come first, the rest \
                  buy OVERPOWER, DEFY, EXTEND up to 2 × level each (1 for NIHIL); POWER = level + \
                  OVERPOWER",
    },
    Mechanic {
        name: "catch-casting",
        spec_items: &["003-M19", "003-A15"],
        summary: "a cast short of its requirement may keep fewer targets or a smaller area (same \
                  delivery, MASS still 4+), taking effect once the net meets it, or catch-cast with \
                  1 die fewer each time, adding the net until the requirement is met; any net ≤ 0 \
                  ends the casting",
    },
    Mechanic {
        name: "character",
        spec_items: &[
            "003-S1", "003-D1", "003-D2", "003-D3", "003-D4", "003-D5", "003-D6", "003-D7",
            "003-A2", "003-A9", "003-A10", "003-A11", "003-A14", "003-A21",
        ],
        summary: "9 aspects (1 + 7/5/3 by ranked type, +3 at most each), 30 abilities (12/8/4, 3 at \
                  most), archetype abilities (1 each + 3 free, 4 at most) and bonuses, personality \
                  dots (House first), ratings 0..7 with a warning above the advancement cap",
    },
    Mechanic {
        name: "resources",
        spec_items: &[
            "003-M13", "003-M21", "003-M23", "003-M24", "003-M25", "003-A20",
        ],
        summary: "1 FORTITUDE per level above Affinity, extra action, automatic success, reroll or \
                  heal; rituals grant automatic successes; RAGE −1 Resist die per consecutive turn; \
                  feats as data (RAPID REFLEXES keeps the better net of two rolls, SPEED +1 m a \
                  round per dot); daily uses kept (MESMERISING PRESENCE once a day); a feat outside \
                  the archetype warns",
    },
    Mechanic {
        name: "resist",
        spec_items: &["003-M20", "003-A18", "003-A19"],
        summary: "resist DV = 8 + spell level + DEFY − resist-ability dots; each net success lowers \
                  POWER by 1, 0 nullifies",
    },
];

const OPTIONS: &[RuleOption] = &[
    RuleOption {
        name: "difficulty-above-twelve",
        spec_item: "003-A4",
        summary: "whether a difficulty above 12 is only clamped to 12 or also turns each point above 12 \
                  into a point of intractability",
        choices: &["clamp", "intractability"],
        default: "clamp",
        actions: &["check", "cast", "resist"],
    },
    RuleOption {
        name: "intractability-floor",
        spec_item: "003-A5",
        summary: "whether the successes left after intractability stop at 0 (net = max(S − I, 0) − C) \
                  or go negative (net = S − I − C)",
        choices: &["floor", "no-floor"],
        default: "floor",
        actions: &["check", "cast", "resist"],
    },
    RuleOption {
        name: "contest-nets",
        spec_item: "003-A6",
        summary: "whether a contest's margin takes each side's net floored at 0 (a side below 0 \
                  still suffers its own catastrophe) or the signed nets",
        choices: &["floor", "signed"],
        default: "floor",
        actions: &["contest"],
    },
];

const TABLES: &[ReferenceTable] = &[ReferenceTable {
    name: "outcomes",
    spec_items: &["003-M10", "003-A22"],
    summary: "Appendix 10: the chance of each outcome for 0 to 14 dice against DV 4, 6, 8, 10, 12 with \
              catastrophe ranges 1-1, 1-2, 1-3, in percent to 2 significant figures",
    render: appendix_10,
}];

static DESCRIPTION: Description = Description {
    name: "hprpg",
    seed_file: SEED_FILE,
    description: "Harry Potter RPG: a pool of d12, successes at or above the DV less catastrophes in the \
         catastrophe range, read as a degree from catastrophic failure to legendary",
    spec_items: SPEC_ITEMS,
    mechanics: MECHANICS,
    options: OPTIONS,
    tables: TABLES,
    game_master_only: crate::GameMasterOnly::NOTHING,
};

impl RuleSet for Hprpg {
    fn describe(&self) -> &'static Description {
        &DESCRIPTION
    }

    fn analyses(&self) -> &'static [crate::analysis::Analysis] {
        ANALYSES
    }

    fn game(&self) -> Option<&'static dyn Game> {
        Some(serve::<HprpgGame>())
    }
}

pub(crate) const ANALYSES: &[crate::analysis::Analysis] = &[
    APPENDIX_10,
    calculators::CONTEST,
    calculators::TEAMWORK,
    calculators::PERCEPTION,
    seed_table::SEED_TABLE,
    creation::CREATE,
];
