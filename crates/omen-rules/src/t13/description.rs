//! Seed 004 as the registry lists it.

use super::game::T13Game;
use super::rules::SEED_FILE;
use crate::vocabulary::stateful::{Game, serve};
use crate::{Description, Mechanic, RuleOption, RuleSet};

/// Seed 004 in the registry.
#[derive(Clone, Copy, Debug, Default)]
pub struct T13;

const SPEC_ITEMS: &[&str] = &[
    "004-M1", "004-M2", "004-D1", "004-M3", "004-M4", "004-M5", "004-M6", "004-M7", "004-M8",
    "004-A1", "004-A2", "004-A3", "004-A4", "004-A5", "004-A6", "004-A7",
];

const MECHANICS: &[Mechanic] = &[
    Mechanic {
        name: "dice of a test",
        spec_items: &["004-M1", "004-M2", "004-D1", "004-A5", "004-A6"],
        summary: "free: a Boon die, a Descendant die and up to 4d8 of Proficiency; more dice bought at \
                  the Sway/Chi/Yarn price of their kind (Facet 2/1/1 … Artefact 42/21/6), paid in any \
                  one currency; die sizes are inputs",
    },
    Mechanic {
        name: "result level",
        spec_items: &["004-M3", "004-M4", "004-A1", "004-A2", "004-A7"],
        summary: "total R (dice plus signed modifiers) against difficulty D or the opponent's total: \
                  > 3D superior, > 2D complete, > D moderate success, = D borderline, ≥ D/2 moderate \
                  failure, ≥ 0 complete failure, < 0 serious failure",
    },
    Mechanic {
        name: "success levels",
        spec_items: &["004-M5", "004-A3"],
        summary: "R in (kD, (k+1)D] gives k levels, k − 2 of them extra, k capped at 4 (grunt), 7 \
                  (mercari) or 10 (solo); R in [−(f−2)D, −(f−3)D) gives f failure levels, uncapped",
    },
    Mechanic {
        name: "failure levels",
        spec_items: &["004-M6", "004-M8"],
        summary: "failure levels take the success effects inverted (lose Sway/Chi/Yarn, suffer \
                  Fear/Terror/Horror, the opponent or Ref pulls and plays, the Tone set against you); \
                  against an opponent only those beyond the opponent's success levels count; a loss \
                  may be paid in proficiencies, descendants, handicaps or an annex instead",
    },
    Mechanic {
        name: "proficiency crisis",
        spec_items: &["004-M7", "004-A4"],
        summary: "a proficiency d8 at 1 or 8 (or, as an option, all of them at 1 or all at 8) adds the \
                  opposite of the level rolled",
    },
];

const OPTIONS: &[RuleOption] = &[RuleOption {
    name: "crisis-trigger",
    spec_item: "004-A4",
    summary: "whether any single proficiency die at 1 or 8 causes a Proficiency Crisis or only all of \
              them at 1 or all at 8",
    choices: &["any-die", "all-dice"],
    default: "any-die",
    actions: &["test"],
}];

static DESCRIPTION: Description = Description {
    name: "t13",
    seed_file: SEED_FILE,
    description: "T13 Dice Tests: sum Boon, Descendant, Proficiency and bought dice against a difficulty, read \
         the result as levels of success or failure",
    spec_items: SPEC_ITEMS,
    mechanics: MECHANICS,
    options: OPTIONS,
    tables: &[],
    game_master_only: crate::GameMasterOnly::NOTHING,
};

impl RuleSet for T13 {
    fn describe(&self) -> &'static Description {
        &DESCRIPTION
    }

    fn game(&self) -> Option<&'static dyn Game> {
        Some(serve::<T13Game>())
    }
}
