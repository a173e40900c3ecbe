//! The archetypes (003-D4, A9, A11).

use super::data::*;
use crate::hprpg::feat::Feat;
use crate::hprpg::names::normalize;

// ---------------------------------------------------------------------------------------------------
// Archetypes (003-D4, A9, A11).

seed_names! {
    /// The archetypes (003-D4); the seed's summary table calls SOPHISTICATE "NOBLE" (003-A11).
    pub enum Archetype ("archetype") {
        Artificer = "ARTIFICER";
        Auror = "AUROR";
        Druid = "DRUID";
        Outlaw = "OUTLAW";
        Scholar = "SCHOLAR";
        Sophisticate = "SOPHISTICATE" | "NOBLE";
        Warrior = "WARRIOR";
    }
}

/// What one row of an archetype's capability table raises (003-D4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BonusTarget {
    /// One named capability.
    Fixed(Capability),
    /// One of these, the player's choice ("HEXES OR WARDING").
    OneOf(&'static [Capability]),
    /// Any KNOWLEDGE ability or any affinity (SCHOLAR).
    AnyKnowledgeOrAffinity,
}

impl BonusTarget {
    /// Whether the player names the capability.
    pub fn is_choice(self) -> bool {
        !matches!(self, BonusTarget::Fixed(_))
    }

    /// Whether `capability` may take this row's bonus.
    pub fn allows(self, capability: Capability) -> bool {
        match self {
            BonusTarget::Fixed(c) => c == capability,
            BonusTarget::OneOf(options) => options.contains(&capability),
            BonusTarget::AnyKnowledgeOrAffinity => match capability {
                Capability::Ability(a) => a.ability_type() == AbilityType::Knowledge,
                Capability::Affinity(_) => true,
                Capability::Aspect(_) => false,
            },
        }
    }

    /// The row as the seed prints it.
    pub fn describe(self) -> String {
        match self {
            BonusTarget::Fixed(c) => c.name().to_string(),
            BonusTarget::OneOf(options) => options
                .iter()
                .map(|c| c.name())
                .collect::<Vec<_>>()
                .join(" OR "),
            BonusTarget::AnyKnowledgeOrAffinity => "ANY KNOWLEDGE OR AFFINITY".to_string(),
        }
    }
}

/// One row of an archetype's capability table (003-D4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapabilityRow {
    pub target: BonusTarget,
    /// The bonus dots, `None` where the seed's count is unreadable (003-A11).
    pub dots: Option<u32>,
}

/// The dots assumed, row by row, where the seed's counts are unreadable: SCHOLAR's pattern
/// (003-A11). Provisional.
pub const PROVISIONAL_BONUS_PATTERN: [u32; 5] = [2, 2, 2, 1, 1];

/// An archetype's data (003-D4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchetypeData {
    pub archetype: Archetype,
    /// The special abilities: INNATE, PRACTICAL, KNOWLEDGE.
    pub abilities: [&'static str; 3],
    /// The capability table; empty where the seed's is (ARTIFICER, OUTLAW: 003-A11).
    pub capabilities: &'static [CapabilityRow],
    /// The feats the archetype may take as it advances (none at creation).
    pub feats: &'static [Feat],
    /// One line from the seed's summary.
    pub summary: &'static str,
}

impl ArchetypeData {
    /// The dots of capability row `row` and whether they are the provisional default (003-A11).
    pub fn row_dots(&self, row: usize) -> (u32, bool) {
        match self.capabilities.get(row).and_then(|r| r.dots) {
            Some(dots) => (dots, false),
            None => (
                PROVISIONAL_BONUS_PATTERN.get(row).copied().unwrap_or(1),
                true,
            ),
        }
    }

    /// Whether any of the capability counts is the provisional default (003-A11).
    pub fn provisional(&self) -> bool {
        self.capabilities.iter().any(|r| r.dots.is_none())
    }

    /// The type of special ability `name` (003-D4: innate, practical, knowledge in that order), if it
    /// is one of this archetype's.
    pub fn ability_type(&self, name: &str) -> Option<AbilityType> {
        let key = normalize(name);
        self.abilities
            .iter()
            .position(|a| normalize(a) == key)
            .map(|i| AbilityType::ALL[i])
    }
}

/// Dots in each archetype ability at creation before the free dots (003-D4).
pub const ARCHETYPE_ABILITY_BASELINE: u32 = 1;

/// Free dots for the archetype abilities at creation: 3, as every archetype section says, not the 5 of
/// chapter 4 (003-A9).
pub const ARCHETYPE_FREE_DOTS: u32 = 3;

/// The highest rating of an archetype ability at creation (003-D4, A9).
pub const ARCHETYPE_ABILITY_CAP: u32 = 4;

pub(super) const fn fixed(capability: Capability, dots: u32) -> CapabilityRow {
    CapabilityRow {
        target: BonusTarget::Fixed(capability),
        dots: Some(dots),
    }
}

pub(super) const fn unread(capability: Capability) -> CapabilityRow {
    CapabilityRow {
        target: BonusTarget::Fixed(capability),
        dots: None,
    }
}

use Ability as Ab;
use Aspect as As;
use Capability::{Ability as CAb, Affinity as CAf, Aspect as CAs};
use Discipline as Di;

pub(super) const HEXES_WARDING: &[Capability] = &[CAf(Di::Hexes), CAf(Di::Warding)];
pub(super) const WARDING_HEXES: &[Capability] = &[CAf(Di::Warding), CAf(Di::Hexes)];
pub(super) const WEAPONS: &[Capability] =
    &[CAb(Ab::Brawl), CAb(Ab::Skirmish), CAb(Ab::Marksmanship)];
pub(super) const WEAPONS_AGAIN: &[Capability] =
    &[CAb(Ab::Skirmish), CAb(Ab::Marksmanship), CAb(Ab::Brawl)];
pub(super) const MALEDICTIONS: &[Capability] = &[CAf(Di::Hexes), CAf(Di::Curses), CAf(Di::Warding)];
pub(super) const MALEDICTIONS_AGAIN: &[Capability] =
    &[CAf(Di::Warding), CAf(Di::Hexes), CAf(Di::Curses)];
pub(super) const ELEMENTAL_TEMPORAL: &[Capability] = &[CAf(Di::Elemental), CAf(Di::Temporal)];
pub(super) const CHARM_DECEPTION: &[Capability] = &[CAs(As::Charm), CAs(As::Deception)];
pub(super) const DECEPTION_CHARM: &[Capability] = &[CAs(As::Deception), CAs(As::Charm)];

/// Every archetype's data, in [`Archetype::ALL`] order (003-D4).
pub const ARCHETYPES: [ArchetypeData; 7] = [
    ArchetypeData {
        archetype: Archetype::Artificer,
        abilities: ["COMPLEXITY", "HACK", "ANALYSE"],
        capabilities: &[],
        feats: &[],
        summary: "a person trained in the delicate arts of creating and producing new items",
    },
    ArchetypeData {
        archetype: Archetype::Auror,
        abilities: ["INTUITION", "INTERROGATE", "TRACKING"],
        capabilities: &[
            fixed(CAs(As::Insight), 2),
            fixed(CAb(Ab::Investigation), 2),
            CapabilityRow {
                target: BonusTarget::OneOf(HEXES_WARDING),
                dots: Some(2),
            },
            fixed(CAs(As::Perception), 1),
            fixed(CAb(Ab::Brawl), 1),
            CapabilityRow {
                target: BonusTarget::OneOf(WARDING_HEXES),
                dots: Some(1),
            },
        ],
        feats: &[
            Feat::Ambush,
            Feat::ColdCases,
            Feat::FamiliarTerrain,
            Feat::LieDetector,
            Feat::RapidReflexes,
            Feat::UnwaveringFocus,
        ],
        summary: "a dedicated warrior-investigator who seeks out evil and brings it to justice",
    },
    ArchetypeData {
        archetype: Archetype::Druid,
        abilities: ["BELONGING", "NURTURE", "COMMUNE"],
        capabilities: &[
            unread(CAs(As::Willpower)),
            unread(CAb(Ab::Kinship)),
            unread(CAb(Ab::Nature)),
            CapabilityRow {
                target: BonusTarget::OneOf(ELEMENTAL_TEMPORAL),
                dots: None,
            },
            unread(CAs(As::Insight)),
        ],
        feats: &[
            Feat::AsteriasEyes,
            Feat::DryadsEmbrace,
            Feat::NaturesCloak,
            Feat::NymphsFury,
            Feat::OrganicRepose,
            Feat::SatyrSpirit,
        ],
        summary: "a person dedicated to some primal aspect of nature",
    },
    ArchetypeData {
        archetype: Archetype::Outlaw,
        abilities: ["SAVVY", "PICKPOCKET", "UNDERWORLD"],
        capabilities: &[],
        feats: &[],
        summary: "someone who works outside the law, employing subterfuge and deception",
    },
    ArchetypeData {
        archetype: Archetype::Scholar,
        abilities: ["EUREKA", "COLLABORATION", "SPECULATION"],
        capabilities: &[
            fixed(CAb(Ab::Investigation), 2),
            fixed(CAs(As::Intelligence), 2),
            CapabilityRow {
                target: BonusTarget::AnyKnowledgeOrAffinity,
                dots: Some(2),
            },
            fixed(CAs(As::Willpower), 1),
            fixed(CAb(Ab::Logic), 1),
        ],
        feats: &[],
        summary: "someone dedicated to knowledge, delving into the inner mysteries of the universe",
    },
    ArchetypeData {
        archetype: Archetype::Sophisticate,
        abilities: ["WEALTH", "INSPIRE", "SOCIETY"],
        capabilities: &[
            unread(CAb(Ab::Eloquence)),
            CapabilityRow {
                target: BonusTarget::OneOf(CHARM_DECEPTION),
                dots: None,
            },
            unread(CAf(Di::Bewitchment)),
            CapabilityRow {
                target: BonusTarget::OneOf(DECEPTION_CHARM),
                dots: None,
            },
            unread(CAf(Di::Cerebral)),
        ],
        feats: &[
            Feat::BurnBook,
            Feat::MesmerisingPresence,
            Feat::OneForYouTwoForMe,
            Feat::UnbreakableVow,
        ],
        summary: "someone who moves in high society, using social graces to achieve their aims",
    },
    ArchetypeData {
        archetype: Archetype::Warrior,
        abilities: ["RAGE", "COMMAND", "TACTICS"],
        capabilities: &[
            CapabilityRow {
                target: BonusTarget::OneOf(WEAPONS),
                dots: Some(2),
            },
            CapabilityRow {
                target: BonusTarget::OneOf(MALEDICTIONS),
                dots: Some(2),
            },
            fixed(CAs(As::Fitness), 2),
            fixed(CAs(As::Perception), 1),
            CapabilityRow {
                target: BonusTarget::OneOf(MALEDICTIONS_AGAIN),
                dots: Some(1),
            },
            CapabilityRow {
                target: BonusTarget::OneOf(WEAPONS_AGAIN),
                dots: Some(1),
            },
        ],
        feats: &[
            Feat::Bloodlust,
            Feat::Duelist,
            Feat::FuriousSpellcaster,
            Feat::HolisticTactics,
            Feat::StudentOfWar,
            Feat::SavageAttacker,
        ],
        summary: "a powerful fighter, trained in all forms of combat",
    },
];

impl Archetype {
    /// The archetype's data (003-D4).
    pub fn data(self) -> &'static ArchetypeData {
        &ARCHETYPES[self as usize]
    }
}

/// The archetype whose special ability is called `name`, with the ability's canonical name and type.
pub fn archetype_ability(name: &str) -> Option<(Archetype, &'static str, AbilityType)> {
    let key = normalize(name);
    ARCHETYPES.iter().find_map(|data| {
        data.abilities
            .iter()
            .position(|a| normalize(a) == key)
            .map(|i| (data.archetype, data.abilities[i], AbilityType::ALL[i]))
    })
}
