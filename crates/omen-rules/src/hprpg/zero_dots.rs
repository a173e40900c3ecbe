//! The zero-dot rules of a check (003-M6): a KNOWLEDGE ability at 0 dots cannot be rolled (unless the
//! GM allows an aspect-only roll), a PRACTICAL one at 0 dots adds 2 to the DV, an INNATE one at 0 costs
//! nothing. One function decides them for a character's own check and for the rolls others make of a
//! stored character (contests, working together, a sneak against Passive Perception), so the two
//! cannot drift apart.

use serde::Serialize;

use super::character::{AbilityRating, AbilityType, Aspect, CharacterSheet};

/// What an ability's dots do to a check (003-M6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZeroDots {
    /// The ability has dots, or is INNATE: the check is ordinary.
    Ordinary,
    /// A KNOWLEDGE ability at 0 dots: no check.
    Impossible,
    /// A KNOWLEDGE ability at 0 dots that the GM lets the aspect roll alone.
    AspectOnly,
    /// A PRACTICAL ability at 0 dots: DV + 2.
    PracticalPlusTwo,
}

/// The DV a PRACTICAL ability at 0 dots adds (003-M6).
pub const PRACTICAL_DIFFICULTY: i64 = 2;

impl ZeroDots {
    /// The rule for a check with `rating`; `aspect_only_knowledge` is the GM allowing an aspect-only
    /// roll of a KNOWLEDGE ability at 0 dots.
    pub fn of(rating: &AbilityRating, aspect_only_knowledge: bool) -> ZeroDots {
        match (rating.dots, rating.kind) {
            (0, AbilityType::Knowledge) if aspect_only_knowledge => ZeroDots::AspectOnly,
            (0, AbilityType::Knowledge) => ZeroDots::Impossible,
            (0, AbilityType::Practical) => ZeroDots::PracticalPlusTwo,
            _ => ZeroDots::Ordinary,
        }
    }

    /// What the rule adds to the DV.
    pub fn difficulty_change(self) -> i64 {
        match self {
            ZeroDots::PracticalPlusTwo => PRACTICAL_DIFFICULTY,
            _ => 0,
        }
    }

    /// The rule's name in results (`zero_dot_rule`), none for an ordinary check.
    pub fn name(self) -> Option<&'static str> {
        match self {
            ZeroDots::Ordinary | ZeroDots::Impossible => None,
            ZeroDots::AspectOnly => Some("aspect-only"),
            ZeroDots::PracticalPlusTwo => Some("practical-plus-two"),
        }
    }
}

/// A stored character's side of a roll someone else asks for (a contest, working together, a sneak):
/// the pool of its aspect and ability dots and what the zero-dot rules do to the DV.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredRoll {
    /// Aspect + ability dots (003-M1).
    pub pool: u64,
    /// Added to the DV the side rolls against (2 for a PRACTICAL ability at 0 dots).
    pub difficulty_change: i64,
    /// `practical-plus-two` when the rule applied.
    pub zero_dot_rule: Option<&'static str>,
    /// The ability as found (canonical name, type, dots); none for a pool given as a number.
    pub ability: Option<AbilityRating>,
}

/// The roll of `sheet`'s `aspect` + `ability` in a check someone else asks for, with the zero-dot
/// rules of a plain check (003-M6).
///
/// # Errors
/// An unknown aspect or ability (with the nearest name), or a KNOWLEDGE ability at 0 dots, which
/// cannot be rolled.
pub fn stored_roll(
    sheet: &CharacterSheet,
    aspect: &str,
    ability: &str,
) -> Result<StoredRoll, String> {
    let aspect = Aspect::parse(aspect).map_err(|e| e.to_string())?;
    let rating = sheet.ability(ability).map_err(|e| e.to_string())?;
    let rule = ZeroDots::of(&rating, false);
    if rule == ZeroDots::Impossible {
        return Err(format!(
            "{} is a KNOWLEDGE ability with 0 dots, so the check is impossible (003-M6); if the GM \
             allows an aspect-only roll, give that side's pool as a number instead",
            rating.name
        ));
    }
    Ok(StoredRoll {
        pool: u64::from(sheet.aspect(aspect)) + u64::from(rating.dots),
        difficulty_change: rule.difficulty_change(),
        zero_dot_rule: rule.name(),
        ability: Some(rating),
    })
}
