//! The character of seed 003: the seed's creation data carried as data (003-D1..D7, A9, A10, A11,
//! A21), the character sheet ([`CharacterSheet`], 003-S1, A14), creation from the player's choices with
//! every broken rule listed at once ([`create`], 003-D2, D3, D4, D6, A2, A9, A10, A11) and the
//! validation of an existing, possibly advanced, sheet ([`validate`]).
//!
//! ```
//! use omen_rules::hprpg::character::{Aspect, AspectType, Discipline, rating_name};
//!
//! assert_eq!(rating_name(5), Some("Expert"));
//! // The seed calls KINETIC also KINESIS (003-A21); either spelling, any case, parses.
//! assert_eq!("kinesis".parse::<Discipline>()?, Discipline::Kinetic);
//! assert_eq!(Aspect::Deception.aspect_type(), AspectType::Social);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod archetypes;
mod create;
mod data;
mod personalities;
mod sheet;

pub use super::feat::Feat;
pub use super::names::{NameError, lookup};
pub use archetypes::*;
pub use create::*;
pub use data::*;
pub use personalities::*;
pub use sheet::*;
