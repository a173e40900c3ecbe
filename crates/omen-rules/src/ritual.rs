//! Seed 000 (`000_a60612f38c616a78.txt`), "Lore Revisited": deciphering rituals with a Lore check and
//! performing them with an Essence check, all on d6.
//!
//! Implements `seed-spec.md` items 000-M1..M5 with A1 and A2 (the Lore check: [`LoreCheck`]), 000-M9..M11
//! with A9..A11 (the Essence check and the pairs-for-7 shortcut: [`EssenceCheck`],
//! [`check_pair_shortcut`]) and 000-M12/M13 (the seed's Appendix C and D programs' output:
//! [`lore_table`], [`essence_table`]), and the character's ritual state as pure transitions
//! ([`RitualState`]): 000-S1 with M6 (deciphering), M7 with A4..A6 (the end-of-session re-roll and Lore
//! progression), M8 with A7 (memorising) and S2 with A8 (repeated attempts until a full night's sleep).
//! The ritualist as a stateful game, Essence checks included, is [`RitualGame`].

mod checks;
mod description;
mod game;
mod rules;
mod state;
mod tables;

pub use checks::{EssenceInputs, LoreInputs};
pub use description::Ritual;
pub use game::{RitualAction, RitualGame, RitualSheet};
pub use rules::*;
pub use state::*;
