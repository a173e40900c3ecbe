//! A character sheet as people read it (003-D1, D6): every rating with its name (Useless … Ascendant)
//! next to its dots, and the personality's Asset, Flaw and Nourishment, as JSON and as text. The sheet
//! itself stays the stored form; this is the view the CLI and the server show beside it.

use std::fmt::Write as _;

use serde::Serialize;

use super::character::{Ability, AbilityType, Aspect, CharacterSheet, Discipline, rating_name};

/// One rating: its dots and their name (003-D1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rated {
    pub name: String,
    pub dots: u32,
    /// Useless (0) … Ascendant (7); none above 7, which no sheet may store.
    pub rating: Option<&'static str>,
    /// An ability's type (INNATE, PRACTICAL, KNOWLEDGE); none for aspects and affinities.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<AbilityType>,
}

impl Rated {
    fn new(name: impl Into<String>, dots: u32, kind: Option<AbilityType>) -> Rated {
        Rated {
            name: name.into(),
            dots,
            rating: rating_name(dots),
            kind,
        }
    }

    fn text(&self) -> String {
        format!(
            "{} {} ({})",
            self.name,
            self.dots,
            self.rating.unwrap_or("above the scale")
        )
    }
}

/// A personality as the sheet shows it (003-D6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PersonalitySummary {
    pub name: &'static str,
    pub house: Option<&'static str>,
    pub asset: &'static str,
    pub flaw: &'static str,
    /// When FORTITUDE is regained (003-M23).
    pub nourishment: &'static str,
}

/// The sheet as people read it: all nine aspects, the abilities with dots (standard, archetype and
/// custom) and the affinities with dots, each with its rating's name, and the personality.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SheetSummary {
    pub aspects: Vec<Rated>,
    pub abilities: Vec<Rated>,
    pub affinities: Vec<Rated>,
    pub personality: Option<PersonalitySummary>,
}

impl SheetSummary {
    /// The summary of `sheet`.
    pub fn of(sheet: &CharacterSheet) -> SheetSummary {
        let aspects = Aspect::ALL
            .iter()
            .map(|&aspect| Rated::new(aspect.name(), sheet.aspect(aspect), None))
            .collect();
        // An ability absent or at 0 is left out (30 standard abilities would bury the rest); its 0
        // is Useless, as the scale says.
        let mut abilities: Vec<Rated> = sheet
            .abilities
            .iter()
            .filter(|(_, dots)| **dots > 0)
            .map(|(name, &dots)| {
                let kind = sheet.ability(name).ok().map(|rating| rating.kind);
                Rated::new(name.clone(), dots, kind)
            })
            .collect();
        abilities.sort_by_key(|rated| {
            Ability::parse(&rated.name).map_or(usize::MAX, |a| {
                Ability::ALL
                    .iter()
                    .position(|b| *b == a)
                    .unwrap_or(usize::MAX)
            })
        });
        abilities.extend(
            sheet
                .custom_abilities
                .iter()
                .map(|(name, custom)| Rated::new(name.clone(), custom.dots, Some(custom.kind))),
        );
        let affinities = Discipline::ALL
            .iter()
            .map(|&discipline| (discipline, sheet.affinity(discipline)))
            .filter(|(_, dots)| *dots > 0)
            .map(|(discipline, dots)| Rated::new(discipline.name(), dots, None))
            .collect();
        let personality = sheet.personality.map(|personality| {
            let data = personality.data();
            PersonalitySummary {
                name: personality.name(),
                house: data.house.map(|house| house.name()),
                asset: data.asset,
                flaw: data.flaw,
                nourishment: data.nourishment,
            }
        });
        SheetSummary {
            aspects,
            abilities,
            affinities,
            personality,
        }
    }

    /// The summary as lines of text: `aspects: FITNESS 3 (Average), …`.
    pub fn text(&self) -> String {
        let join = |rated: &[Rated]| {
            if rated.is_empty() {
                "none".to_string()
            } else {
                rated.iter().map(Rated::text).collect::<Vec<_>>().join(", ")
            }
        };
        let mut text = String::new();
        let _ = writeln!(text, "aspects: {}", join(&self.aspects));
        let _ = writeln!(text, "abilities: {}", join(&self.abilities));
        let _ = writeln!(text, "affinities: {}", join(&self.affinities));
        if let Some(personality) = &self.personality {
            let house = personality
                .house
                .map_or(String::new(), |house| format!(" of {house}"));
            let _ = writeln!(
                text,
                "personality: {}{house}; asset {}, flaw {}; FORTITUDE returns when {}",
                personality.name, personality.asset, personality.flaw, personality.nourishment
            );
        }
        text
    }
}
