//! Omen's seed rule sets: one module per seed game, all listed in one [`registry`] behind the
//! [`RuleSet`] trait. Every probability is exact (a fraction from `omen-core`), every roll takes its dice
//! from an injected [`omen_core::DieSource`] and returns them, so a seed's worked example can be replayed
//! with [`omen_core::ScriptedDice`]. No I/O.
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use omen_rules::ritual::{Difficulty, LoreCheck, LoreModifiers, RitualOptions};
//!
//! let limits = Limits::default();
//! // Lore 2, deciphering a ritual of difficulty 5 that the character has deciphered before: 3 dice.
//! let modifiers = LoreModifiers { deciphered_before: true, ..LoreModifiers::default() };
//! let check = LoreCheck::new(2, Difficulty::new(5)?, &modifiers, &RitualOptions::default(), &limits)?;
//! assert_eq!(check.pool(), 3);
//! // P(highest of 3d6 ≥ 5) = 1 − (4/6)³, exactly.
//! assert_eq!(check.success_probability(&limits)?.to_string(), "19/27");
//! // The same check with given dice: the highest die counts.
//! let roll = check.roll(&mut ScriptedDice::new(vec![2, 5, 1]))?;
//! assert_eq!((roll.dice, roll.result, roll.success), (vec![2, 5, 1], Some(5), true));
//!
//! // Every rule set describes itself as data.
//! let ritual = omen_rules::find("ritual").expect("registered");
//! assert_eq!(ritual.seed_file(), "000_a60612f38c616a78.txt");
//! assert!(ritual.spec_items().contains(&"000-M5"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Adding a seed game is one module (`pub mod luck;` with a unit struct implementing [`RuleSet`]) and one
//! line in [`registry`].

pub mod hprpg;
pub mod luck;
pub mod render;
pub mod ritual;
pub mod spelldice;
pub mod stateful;
pub mod t13;

use serde::Serialize;

/// One seed game's rules, described as data for listings (`omen rules`) and implemented by its module.
///
/// The descriptions are `'static` data so a listing needs no computation; the module's own types and
/// functions do the work.
pub trait RuleSet: Sync {
    /// Everything the rule set says about itself, as constant data.
    fn describe(&self) -> &'static Description;

    /// The short lower-case name used to pick the rule set, e.g. `ritual`.
    fn name(&self) -> &'static str {
        self.describe().name
    }

    /// The seed document's file name, e.g. `000_a60612f38c616a78.txt`.
    fn seed_file(&self) -> &'static str {
        self.describe().seed_file
    }

    /// One line saying what the game's dice do.
    fn description(&self) -> &'static str {
        self.describe().description
    }

    /// The spec items implemented, as in `seed-spec.md` (e.g. `000-M1`), in spec order.
    fn spec_items(&self) -> &'static [&'static str] {
        self.describe().spec_items
    }

    /// The mechanics, each with the spec items it covers.
    fn mechanics(&self) -> &'static [Mechanic] {
        self.describe().mechanics
    }

    /// The named options: every rule whose seed text allows another plausible reading.
    fn options(&self) -> &'static [RuleOption] {
        self.describe().options
    }

    /// Reference tables the module can print, such as a seed's appendix.
    fn tables(&self) -> &'static [ReferenceTable] {
        self.describe().tables
    }

    /// The seed's tag in the spec (`000`): the file name up to the first underscore.
    fn tag(&self) -> &'static str {
        let file = self.seed_file();
        file.split('_').next().unwrap_or(file)
    }
}

/// What a rule set says about itself: one constant per module, so a listing needs no computation and
/// every module describes itself the same way.
#[derive(Debug)]
pub struct Description {
    pub name: &'static str,
    pub seed_file: &'static str,
    pub description: &'static str,
    pub spec_items: &'static [&'static str],
    pub mechanics: &'static [Mechanic],
    pub options: &'static [RuleOption],
    pub tables: &'static [ReferenceTable],
}

/// One mechanic of a rule set, for listings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mechanic {
    /// A short name, e.g. `lore check`.
    pub name: &'static str,
    /// The spec items it implements.
    pub spec_items: &'static [&'static str],
    /// One line: inputs, dice and result.
    pub summary: &'static str,
}

/// A named option: one reading of an unclear rule, chosen by the spec's resolution unless changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RuleOption {
    /// The option's name, e.g. `familiarity-bonuses`.
    pub name: &'static str,
    /// The spec item (an ambiguity, `A`) whose resolution it configures.
    pub spec_item: &'static str,
    /// What the choices decide.
    pub summary: &'static str,
    /// The possible values, the default among them.
    pub choices: &'static [&'static str],
    /// The spec's resolution.
    pub default: &'static str,
}

/// A table a rule set can print exactly as its seed prints it.
#[derive(Clone, Copy, Debug)]
pub struct ReferenceTable {
    /// The table's name, e.g. `lore`.
    pub name: &'static str,
    /// The spec items whose reference output it is.
    pub spec_items: &'static [&'static str],
    /// What the table shows.
    pub summary: &'static str,
    /// Renders the table, newline-terminated lines.
    pub render: fn() -> String,
}

/// Every seed game, in seed order. A new game is one line here.
static REGISTRY: &[&dyn RuleSet] = &[
    &ritual::Ritual,
    &spelldice::SpellDice,
    &luck::Luck,
    &hprpg::Hprpg,
    &t13::T13,
];

/// The registered rule sets, in seed order.
pub fn registry() -> &'static [&'static dyn RuleSet] {
    REGISTRY
}

/// The rule set called `name` (as [`RuleSet::name`] spells it), if registered.
pub fn find(name: &str) -> Option<&'static dyn RuleSet> {
    REGISTRY.iter().copied().find(|rules| rules.name() == name)
}
