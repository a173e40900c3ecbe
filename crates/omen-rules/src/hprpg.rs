//! Seed 003 (`003_1702dc698ddb7165.txt`), "Harry Potter RPG": pools of d12 counting successes (a die
//! meeting the difficulty value) against catastrophes (a die in the catastrophe range 1..X).
//!
//! Implements `seed-spec.md` items 003-M1 (the pool: [`pool_size`]), M2, M4, A3 and A4 (the difficulty
//! and its clamp: [`EffectiveDifficulty`], [`DifficultyAboveTwelve`]), M3 and A1 (scoring a die:
//! [`Check::score`]), M5 (the degree of an outcome: [`Degree`]), M6 and A8 (the zero pool: two dice, the
//! lower scored as one), M7 and A5 (intractability: [`Check::net`], [`IntractabilityFloor`]), the exact
//! distributions of net successes and degrees ([`Check::net_distribution`],
//! [`Check::degree_distribution`]), the roll ([`Check::roll`]) and Appendix 10 (003-M10, A22, errata
//! E003-1..5: [`table`], [`Table::markdown`], [`Table::to_json`]) with the zero-pool row the seed
//! lacks; automatic successes (M8, M9, A13: [`automatic_success_allowed`],
//! [`Check::with_automatic_successes`]), contests (M11, A6: [`Contest`], [`ContestNets`]), working
//! together (M12, A7, errata E003-13: [`Teamwork`]), passive perception (M14:
//! [`passive_perception`]), spellcasting (M15..M18, M22, A12, A16, A17: [`casting_difficulty`],
//! [`level_fortitude`], [`casting_pool`], [`Delivery`], [`CastingOutcome`], [`spend_optional`]),
//! resisting (M20, A18, A19: [`resist_difficulty`], [`resisted_power`]) and catch-casting (M19, A15:
//! [`CatchCasting`], [`completion_probability`], exact by recursion on the accumulated successes).
//! The character is in [`character`]: the seed's creation data as data (D1..D7, A9, A10, A11, A21),
//! the sheet (S1, A14), creation and validation (A2). Resources are in [`resources`]: FORTITUDE
//! (M23, A12, A13), rituals' automatic successes (M21), RAGE (M24, S3), the feats (M25, A20) and
//! resource-limited attempts (M13). The stateful game of a character is [`game::HprpgGame`] (S1, S2,
//! S3).
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use omen_rules::hprpg::{Check, Degree, HprpgOptions};
//!
//! let limits = Limits::default();
//! let options = HprpgOptions::default();
//! // Jane's casting (003-M22): 7 dice against DV 8, catastrophe range 1.
//! let check = Check::new(7, 8, 1, 0, &options, &limits)?;
//! let roll = check.roll(&mut ScriptedDice::new(vec![1, 4, 5, 8, 8, 9, 11]))?;
//! assert_eq!((roll.successes, roll.catastrophes, roll.net), (4, 1, 3));
//! assert_eq!(roll.degree, Degree::Good);
//! // One die against DV 12 succeeds 1 time in 12 (errata E003-14), exactly.
//! let one = Check::new(1, 12, 1, 0, &options, &limits)?;
//! assert_eq!(one.net_distribution(&limits)?.probability(&1).to_string(), "1/12");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

/// Declares a closed set of the seed's names (003-D1..D7): the canonical upper-case name, the other
/// spellings the seed uses (003-A21), parsing that ignores case and punctuation, and serde as the
/// canonical name (aliases accepted on input, so hand-written JSON may use either).
macro_rules! seed_names {
    (
        $(#[$meta:meta])*
        $vis:vis enum $ty:ident ($kind:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $name:literal $(| $alias:literal)* ; )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        $vis enum $ty { $( $(#[$vmeta])* $variant, )+ }

        impl $ty {
            /// Every value, in the seed's order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// What a value is, as messages call it.
            pub const KIND: &'static str = $kind;

            /// The canonical name (003-A21).
            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => $name,)+ }
            }

            /// Other spellings the seed uses for the same thing (003-A21).
            pub fn aliases(self) -> &'static [&'static str] {
                match self { $($ty::$variant => &[$($alias),*],)+ }
            }

            /// The value called `text`, ignoring case and punctuation, aliases included.
            ///
            /// # Errors
            /// [`crate::hprpg::names::NameError`] naming the nearest valid name, or listing them
            /// all.
            pub fn parse(text: &str) -> Result<Self, crate::hprpg::names::NameError> {
                crate::hprpg::names::lookup(text, $kind, Self::ALL, Self::name, Self::aliases)
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = crate::hprpg::names::NameError;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Self::parse(text)
            }
        }

        impl ::serde::Serialize for $ty {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }

        impl ::schemars::JsonSchema for $ty {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }

            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                // The names as written; aliases and any case are accepted too, which the
                // extension keywords tell the rule sets' schema check (`schema_check`).
                ::schemars::json_schema!({
                    "type": "string",
                    "enum": Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>(),
                    "x-any-spelling": true,
                    "x-aliases": Self::ALL.iter().flat_map(|v| v.aliases().iter().copied()).collect::<Vec<_>>(),
                })
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <String as ::serde::Deserialize>::deserialize(deserializer)?;
                Self::parse(&text).map_err(::serde::de::Error::custom)
            }
        }
    };
}

mod appendix;
pub mod calculators;
pub mod character;
mod creation;
mod description;
mod feat;
pub mod game;
mod names;
pub mod resources;
mod rules;
mod seed_table;
pub mod sheet;
mod spellcasting;
pub mod state_version;
pub mod summary;
pub mod zero_dots;

pub use appendix::*;
pub use character::{
    Ability, AbilityType, Archetype, Aspect, AspectType, CharacterSheet, CreationChoices,
    Discipline, Feat, House, Personality, Species,
};
pub use creation::CreateInputs;
pub use description::Hprpg;
pub use game::{HprpgAction, HprpgGame, HprpgState};
pub use resources::{FortitudeSpend, Resource, ResourceError};
pub use rules::*;
pub use seed_table::SeedTableInputs;
pub use sheet::HprpgSheet;
pub use spellcasting::*;
