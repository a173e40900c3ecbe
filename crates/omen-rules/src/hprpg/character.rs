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

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

pub use super::feat::Feat;
use super::names::normalize;
pub use super::names::{NameError, lookup};
use super::resources::{Resource, feat_data};
use crate::vocabulary::stateful::Problems;

// ---------------------------------------------------------------------------------------------------
// Ratings (003-D1, A2).

/// The highest rating a sheet stores (003-D1, A2).
pub const MAX_RATING: u32 = 7;

/// The default advancement cap: ratings above it draw a warning, not an error (003-A2).
pub const DEFAULT_ADVANCEMENT_CAP: u32 = 7;

/// The names of the ratings 0..=7 (003-D1). One dot is one d12.
pub const RATING_NAMES: [&str; 8] = [
    "Useless",
    "Beginner",
    "Novice",
    "Average",
    "Adept",
    "Expert",
    "Master",
    "Ascendant",
];

/// The name of a rating of `dots`, for 0..=7 (003-D1).
pub fn rating_name(dots: u32) -> Option<&'static str> {
    RATING_NAMES.get(dots as usize).copied()
}

// ---------------------------------------------------------------------------------------------------
// Aspects (003-D2).

seed_names! {
    /// An aspect's type: the grid's column (003-D2).
    pub enum AspectType ("aspect type") {
        Physical = "PHYSICAL";
        Social = "SOCIAL";
        Mental = "MENTAL";
    }
}

seed_names! {
    /// An aspect's method: the grid's row (003-D2).
    pub enum Method ("aspect method") {
        Project = "PROJECT";
        Manipulate = "MANIPULATE";
        Absorb = "ABSORB";
    }
}

seed_names! {
    /// The nine aspects (003-D2), row by row of the grid. The seed once writes FIRMNESS (and once
    /// FTNESS) for FITNESS (003-A21).
    pub enum Aspect ("aspect") {
        Fitness = "FITNESS" | "FIRMNESS" | "FTNESS";
        Charm = "CHARM";
        Intelligence = "INTELLIGENCE";
        Precision = "PRECISION";
        Deception = "DECEPTION";
        Willpower = "WILLPOWER";
        Vitality = "VITALITY";
        Insight = "INSIGHT";
        Perception = "PERCEPTION";
    }
}

/// The 3×3 grid of aspects (003-D2): rows PROJECT, MANIPULATE, ABSORB; columns PHYSICAL, SOCIAL,
/// MENTAL.
pub const ASPECT_GRID: [[Aspect; 3]; 3] = [
    [Aspect::Fitness, Aspect::Charm, Aspect::Intelligence],
    [Aspect::Precision, Aspect::Deception, Aspect::Willpower],
    [Aspect::Vitality, Aspect::Insight, Aspect::Perception],
];

impl Aspect {
    fn position(self) -> (usize, usize) {
        let index = self as usize;
        (index / 3, index % 3)
    }

    /// The aspect's column (003-D2).
    pub fn aspect_type(self) -> AspectType {
        AspectType::ALL[self.position().1]
    }

    /// The aspect's row (003-D2).
    pub fn method(self) -> Method {
        Method::ALL[self.position().0]
    }
}

/// Every aspect starts at this rating (003-D2).
pub const ASPECT_BASELINE: u32 = 1;

/// Dots to spend on the aspects of the first, second and third ranked type (003-D2).
pub const ASPECT_BUDGETS: [u32; 3] = [7, 5, 3];

/// The most dots spent on one aspect at creation; bonuses may exceed it (003-D2).
pub const ASPECT_ALLOCATION_CAP: u32 = 3;

// ---------------------------------------------------------------------------------------------------
// Abilities (003-D3).

seed_names! {
    /// The three kinds of ability (003-D3); the seed once calls KNOWLEDGE "LEARNED" (003-A21). The
    /// kind decides a zero-dot check (003-M6).
    pub enum AbilityType ("ability type") {
        Innate = "INNATE";
        Practical = "PRACTICAL";
        Knowledge = "KNOWLEDGE" | "LEARNED";
    }
}

seed_names! {
    /// The 30 standard abilities (003-D3), ten of each type in the seed's order.
    pub enum Ability ("ability") {
        Alertness = "ALERTNESS";
        Bravery = "BRAVERY";
        Conviction = "CONVICTION";
        Eloquence = "ELOQUENCE";
        Intimidation = "INTIMIDATION";
        Kindness = "KINDNESS";
        Kinship = "KINSHIP";
        Logic = "LOGIC";
        Speed = "SPEED";
        Strength = "STRENGTH";
        Acrobatics = "ACROBATICS";
        Brawl = "BRAWL";
        Covert = "COVERT";
        Craft = "CRAFT";
        Imbue = "IMBUE";
        Marksmanship = "MARKSMANSHIP";
        Performance = "PERFORMANCE";
        Pilot = "PILOT";
        Skirmish = "SKIRMISH";
        Survival = "SURVIVAL";
        Arcane = "ARCANE";
        General = "GENERAL";
        History = "HISTORY";
        Investigation = "INVESTIGATION";
        Medicine = "MEDICINE";
        Muggle = "MUGGLE";
        Nature = "NATURE";
        Science = "SCIENCE";
        Technology = "TECHNOLOGY";
        World = "WORLD";
    }
}

impl Ability {
    /// The ability's type (003-D3).
    pub fn ability_type(self) -> AbilityType {
        AbilityType::ALL[self as usize / 10]
    }

    /// The ten standard abilities of `kind`, in the seed's order.
    pub fn of_type(kind: AbilityType) -> impl Iterator<Item = Ability> {
        Ability::ALL
            .iter()
            .copied()
            .filter(move |a| a.ability_type() == kind)
    }
}

/// Dots to spend on the abilities of the first, second and third ranked type (003-D3).
pub const ABILITY_BUDGETS: [u32; 3] = [12, 8, 4];

/// The most dots spent on one standard ability at creation; bonuses may exceed it (003-D3, D4).
pub const ABILITY_ALLOCATION_CAP: u32 = 3;

// ---------------------------------------------------------------------------------------------------
// Affinities (003-D5).

seed_names! {
    /// The seven schools of magic (003-D5).
    pub enum School ("school") {
        Charms = "CHARMS";
        Divination = "DIVINATION";
        Illusion = "ILLUSION";
        Malediction = "MALEDICTION";
        Recuperation = "RECUPERATION";
        Transfiguration = "TRANSFIGURATION";
        DarkArts = "DARK ARTS";
    }
}

seed_names! {
    /// The 14 disciplines, each an affinity (003-D5), two per school in the seed's order. Aliases are
    /// the seed's other spellings (003-A21).
    pub enum Discipline ("affinity") {
        Elemental = "ELEMENTAL";
        Kinetic = "KINETIC" | "KINESIS";
        Cerebral = "CEREBRAL" | "TELEPATHY";
        Temporal = "TEMPORAL";
        Bewitchment = "BEWITCHMENT";
        Psionic = "PSIONIC" | "PSIONICS";
        Hexes = "HEXES";
        Curses = "CURSES";
        Healing = "HEALING";
        Warding = "WARDING" | "WARDS";
        Alteration = "ALTERATION";
        Conjuration = "CONJURATION" | "CONJURATATION";
        Necromancy = "NECROMANCY";
        Occultism = "OCCULTISM";
    }
}

impl Discipline {
    /// The discipline's school (003-D5).
    pub fn school(self) -> School {
        School::ALL[self as usize / 2]
    }

    /// The aspect(s) a casting uses unless the caster's description suggests another (003-D5, M16);
    /// two where the seed gives a choice (CEREBRAL: INSIGHT or PERCEPTION; BEWITCHMENT: CHARM or
    /// DECEPTION).
    pub fn default_aspects(self) -> &'static [Aspect] {
        match self {
            Discipline::Elemental
            | Discipline::Psionic
            | Discipline::Hexes
            | Discipline::Necromancy => &[Aspect::Willpower],
            Discipline::Kinetic | Discipline::Alteration => &[Aspect::Precision],
            Discipline::Cerebral => &[Aspect::Insight, Aspect::Perception],
            Discipline::Temporal
            | Discipline::Curses
            | Discipline::Warding
            | Discipline::Conjuration => &[Aspect::Intelligence],
            Discipline::Bewitchment => &[Aspect::Charm, Aspect::Deception],
            Discipline::Healing => &[Aspect::Insight],
            Discipline::Occultism => &[Aspect::Charm],
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Capabilities: what a bonus dot can go to.

/// An aspect, a standard ability or an affinity: anything a capability bonus can raise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Capability {
    Aspect(Aspect),
    Ability(Ability),
    Affinity(Discipline),
}

impl Capability {
    /// The capability's canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Aspect(a) => a.name(),
            Capability::Ability(a) => a.name(),
            Capability::Affinity(d) => d.name(),
        }
    }

    fn all() -> impl Iterator<Item = Capability> + Clone {
        Aspect::ALL
            .iter()
            .map(|&a| Capability::Aspect(a))
            .chain(Ability::ALL.iter().map(|&a| Capability::Ability(a)))
            .chain(Discipline::ALL.iter().map(|&d| Capability::Affinity(d)))
    }

    /// The aspect, standard ability or affinity called `text` (aliases accepted, 003-A21).
    ///
    /// # Errors
    /// [`NameError`] with the nearest capability, or all of them.
    pub fn parse(text: &str) -> Result<Capability, NameError> {
        if let Ok(a) = Aspect::parse(text) {
            return Ok(Capability::Aspect(a));
        }
        if let Ok(a) = Ability::parse(text) {
            return Ok(Capability::Ability(a));
        }
        if let Ok(d) = Discipline::parse(text) {
            return Ok(Capability::Affinity(d));
        }
        nearest(text, "capability", Capability::all().map(Capability::name))
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

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

const fn fixed(capability: Capability, dots: u32) -> CapabilityRow {
    CapabilityRow {
        target: BonusTarget::Fixed(capability),
        dots: Some(dots),
    }
}

const fn unread(capability: Capability) -> CapabilityRow {
    CapabilityRow {
        target: BonusTarget::Fixed(capability),
        dots: None,
    }
}

use Ability as Ab;
use Aspect as As;
use Capability::{Ability as CAb, Affinity as CAf, Aspect as CAs};
use Discipline as Di;

const HEXES_WARDING: &[Capability] = &[CAf(Di::Hexes), CAf(Di::Warding)];
const WARDING_HEXES: &[Capability] = &[CAf(Di::Warding), CAf(Di::Hexes)];
const WEAPONS: &[Capability] = &[CAb(Ab::Brawl), CAb(Ab::Skirmish), CAb(Ab::Marksmanship)];
const WEAPONS_AGAIN: &[Capability] = &[CAb(Ab::Skirmish), CAb(Ab::Marksmanship), CAb(Ab::Brawl)];
const MALEDICTIONS: &[Capability] = &[CAf(Di::Hexes), CAf(Di::Curses), CAf(Di::Warding)];
const MALEDICTIONS_AGAIN: &[Capability] = &[CAf(Di::Warding), CAf(Di::Hexes), CAf(Di::Curses)];
const ELEMENTAL_TEMPORAL: &[Capability] = &[CAf(Di::Elemental), CAf(Di::Temporal)];
const CHARM_DECEPTION: &[Capability] = &[CAs(As::Charm), CAs(As::Deception)];
const DECEPTION_CHARM: &[Capability] = &[CAs(As::Deception), CAs(As::Charm)];

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

// ---------------------------------------------------------------------------------------------------
// Personalities and houses (003-D6, A10).

seed_names! {
    /// The four Hogwarts houses (003-D6).
    pub enum House ("house") {
        Gryffindor = "GRYFFINDOR";
        Hufflepuff = "HUFFLEPUFF";
        Ravenclaw = "RAVENCLAW";
        Slytherin = "SLYTHERIN";
    }
}

impl House {
    /// The capability every personality of the house raises by one dot: the House dot (003-D6).
    pub fn capability(self) -> Capability {
        match self {
            House::Gryffindor => CAb(Ab::Bravery),
            House::Hufflepuff => CAb(Ab::Kindness),
            House::Ravenclaw => CAs(As::Intelligence),
            House::Slytherin => CAb(Ab::Eloquence),
        }
    }
}

seed_names! {
    /// The personalities (003-D6): four per house, then five of no house.
    pub enum Personality ("personality") {
        Champion = "CHAMPION";
        Rebel = "REBEL";
        Sportsman = "SPORTSMAN";
        Trickster = "TRICKSTER";
        Adjudicator = "ADJUDICATOR";
        Caregiver = "CAREGIVER";
        Idealist = "IDEALIST";
        Labourer = "LABOURER";
        Educator = "EDUCATOR";
        Geek = "GEEK";
        Perfectionist = "PERFECTIONIST";
        Prodigy = "PRODIGY";
        Aspirant = "ASPIRANT";
        Leader = "LEADER";
        Peacock = "PEACOCK";
        Schemer = "SCHEMER";
        Atrocity = "ATROCITY";
        Acolyte = "ACOLYTE";
        Innocent = "INNOCENT";
        Loner = "LONER";
        Preserver = "PRESERVER";
    }
}

/// Where a personality's bonus dot goes (003-D6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PersonalityBonus {
    Fixed(Capability),
    /// A KNOWLEDGE ability of the player's choice (GEEK).
    AnyKnowledge,
    /// A standard ability tied to the character's story, of the player's choice; the text says which.
    Field(&'static str),
}

/// A personality's data (003-D6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PersonalityData {
    pub personality: Personality,
    pub house: Option<House>,
    /// Two dots; the first is the House dot for a house's personality (003-A10).
    pub bonuses: [PersonalityBonus; 2],
    pub asset: &'static str,
    pub flaw: &'static str,
    /// When FORTITUDE is regained (003-M23).
    pub nourishment: &'static str,
}

const fn personality(
    personality: Personality,
    house: Option<House>,
    bonuses: [PersonalityBonus; 2],
    asset: &'static str,
    flaw: &'static str,
    nourishment: &'static str,
) -> PersonalityData {
    PersonalityData {
        personality,
        house,
        bonuses,
        asset,
        flaw,
        nourishment,
    }
}

use super::names::{edit_distance, nearest};
use PersonalityBonus::{Field, Fixed};

/// Every personality's data, in [`Personality::ALL`] order (003-D6).
pub const PERSONALITIES: [PersonalityData; 21] = [
    personality(
        Personality::Champion,
        Some(House::Gryffindor),
        [Fixed(CAb(Ab::Bravery)), Fixed(CAb(Ab::Conviction))],
        "SACRIFICES",
        "INFLEXIBILITY",
        "you give up an opportunity, or risk yourself, in order to help another",
    ),
    personality(
        Personality::Rebel,
        Some(House::Gryffindor),
        [Fixed(CAb(Ab::Bravery)), Fixed(CAs(As::Willpower))],
        "DISTINCTIVENESS",
        "LACK OF RESPECT",
        "you defy authority in some meaningful fashion",
    ),
    personality(
        Personality::Sportsman,
        Some(House::Gryffindor),
        [Fixed(CAb(Ab::Bravery)), Fixed(CAs(As::Fitness))],
        "TEAMWORK",
        "OVERCONFIDENCE",
        "you work with your allies to push yourself beyond your normal limits",
    ),
    personality(
        Personality::Trickster,
        Some(House::Gryffindor),
        [Fixed(CAb(Ab::Bravery)), Fixed(CAb(Ab::Covert))],
        "JOY",
        "EXCESSION",
        "you perform a prank, or elicit a laugh from one of your allies",
    ),
    personality(
        Personality::Adjudicator,
        Some(House::Hufflepuff),
        [Fixed(CAb(Ab::Kindness)), Fixed(CAb(Ab::Logic))],
        "HONESTY",
        "STUBBORNNESS",
        "you resolve a dispute or disagreement without things getting out of hand",
    ),
    personality(
        Personality::Caregiver,
        Some(House::Hufflepuff),
        [Fixed(CAb(Ab::Kindness)), Fixed(CAs(As::Insight))],
        "COMPASSION",
        "OVERPROTECTIVE",
        "you protect another, or nurture them and help them through life",
    ),
    personality(
        Personality::Idealist,
        Some(House::Hufflepuff),
        [Fixed(CAb(Ab::Kindness)), Fixed(CAs(As::Willpower))],
        "IMAGINATION",
        "NAIVETY",
        "you live out your ideal in some significant way, or convince another to do the same",
    ),
    personality(
        Personality::Labourer,
        Some(House::Hufflepuff),
        [Fixed(CAb(Ab::Kindness)), Fixed(CAs(As::Vitality))],
        "PERSEVERANCE",
        "INFLEXIBILITY",
        "you complete a difficult task through perseverance and force of will",
    ),
    personality(
        Personality::Educator,
        Some(House::Ravenclaw),
        [Fixed(CAs(As::Intelligence)), Fixed(CAb(Ab::Eloquence))],
        "PATIENCE",
        "PATRONISING",
        "you see someone benefit in some discernable way from the knowledge or skills you have \
         imparted to them",
    ),
    personality(
        Personality::Geek,
        Some(House::Ravenclaw),
        [Fixed(CAs(As::Intelligence)), PersonalityBonus::AnyKnowledge],
        "PASSION",
        "OBSESSION",
        "you learn something new about one of your areas of interest",
    ),
    personality(
        Personality::Perfectionist,
        Some(House::Ravenclaw),
        [Fixed(CAs(As::Intelligence)), Fixed(CAs(As::Precision))],
        "ATTENTION TO DETAIL",
        "FEAR OF FAILURE",
        "you complete a significant accomplishment without a single flaw",
    ),
    personality(
        Personality::Prodigy,
        Some(House::Ravenclaw),
        [
            Fixed(CAs(As::Intelligence)),
            Field("a field related to your prodigy field, such as LOGIC, PERFORMANCE or CRAFT"),
        ],
        "EXCELLENCE",
        "DISDAIN",
        "you are able to display your prodigious abilities to an admiring audience",
    ),
    personality(
        Personality::Aspirant,
        Some(House::Slytherin),
        [
            Fixed(CAb(Ab::Eloquence)),
            Field("a field associated with your end goal, such as IMBUE or PILOT"),
        ],
        "PURPOSE",
        "HUBRIS",
        "you are able to do, create or display something which will last the test of time, and \
         make a name for yourself",
    ),
    personality(
        Personality::Leader,
        Some(House::Slytherin),
        [Fixed(CAb(Ab::Eloquence)), Fixed(CAs(As::Charm))],
        "CONFIDENCE",
        "INTOLERANCE",
        "you guide a group to follow a plan to complete a task",
    ),
    personality(
        Personality::Peacock,
        Some(House::Slytherin),
        [Fixed(CAb(Ab::Eloquence)), Fixed(CAb(Ab::Craft))],
        "ARTISTRY",
        "HEDONISM",
        "you become the centre of attention through some great or outrageous action",
    ),
    personality(
        Personality::Schemer,
        Some(House::Slytherin),
        [Fixed(CAb(Ab::Eloquence)), Fixed(CAb(Ab::Alertness))],
        "FORSIGHT",
        "SELFISHNESS",
        "you hatch and execute a plan, scheme or con",
    ),
    personality(
        Personality::Atrocity,
        None,
        [Fixed(CAs(As::Willpower)), Fixed(CAb(Ab::Conviction))],
        "POWER",
        "LACK OF RESTRAINT",
        "you inflict some unspeakably terrible act on a victim",
    ),
    personality(
        Personality::Acolyte,
        None,
        [
            Fixed(CAb(Ab::Conviction)),
            Field("a field associated with the being you have dedicated yourself to serve"),
        ],
        "DEDICATION",
        "FANATACISM",
        "you perform a significant act in service of your master",
    ),
    personality(
        Personality::Innocent,
        None,
        [Fixed(CAb(Ab::Kindness)), Fixed(CAs(As::Insight))],
        "PURITY",
        "IMMATURITY",
        "you feel loved, cared for and protected",
    ),
    personality(
        Personality::Loner,
        None,
        [Fixed(CAs(As::Willpower)), Fixed(CAb(Ab::Alertness))],
        "SELF-RELIANCE",
        "SOCIAL INEPTITUDE",
        "you solve a problem or complete a difficult action without the help of others",
    ),
    personality(
        Personality::Preserver,
        None,
        [Fixed(CAb(Ab::Conviction)), Fixed(CAb(Ab::History))],
        "CONNECTION TO THE PAST",
        "INFLEXIBILITY",
        "you preserve the status quo by using traditional methods, or convince others to do the same",
    ),
];

impl Personality {
    /// The personality's data (003-D6).
    pub fn data(self) -> &'static PersonalityData {
        &PERSONALITIES[self as usize]
    }

    /// The personality's house, if it has one.
    pub fn house(self) -> Option<House> {
        self.data().house
    }
}

// ---------------------------------------------------------------------------------------------------
// Species (003-D7).

seed_names! {
    /// The playable species and subspecies (003-D7). The seed gives names only, no numbers.
    pub enum Species ("species") {
        Human = "HUMAN";
        Muggle = "MUGGLE";
        Muggleborn = "MUGGLEBORN";
        Halfblood = "HALFBLOOD";
        Pureblood = "PUREBLOOD";
        Imp = "IMP";
        Leprechaun = "LEPRECHAUN";
        HouseElf = "HOUSE-ELF";
        Goblin = "GOBLIN";
        Veela = "VEELA";
        Werewolf = "WEREWOLF";
        Vampire = "VAMPIRE";
        HalfGiant = "HALF-GIANT";
        Centaur = "CENTAUR";
    }
}

impl Species {
    /// The species a subspecies belongs to (HUMAN for MUGGLE … PUREBLOOD, IMP for LEPRECHAUN and
    /// HOUSE-ELF); `None` for a species.
    pub fn parent(self) -> Option<Species> {
        match self {
            Species::Muggle | Species::Muggleborn | Species::Halfblood | Species::Pureblood => {
                Some(Species::Human)
            }
            Species::Leprechaun | Species::HouseElf => Some(Species::Imp),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// The character sheet (003-S1, S3, A14).

/// An ability the GM granted beyond the standard and archetype ones (003-S1, A21), such as the resist
/// abilities DODGE and BLOCK the seed uses but never lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CustomAbility {
    /// Decides what a zero-dot check does (003-M6).
    #[serde(rename = "type")]
    pub kind: AbilityType,
    pub dots: u32,
}

/// A self-sustaining spell the character keeps up: each costs a die of concentration on every casting
/// (003-M16).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SustainedSpell {
    pub name: String,
    #[serde(default)]
    pub discipline: Option<Discipline>,
    #[serde(default)]
    pub level: Option<u32>,
}

/// A character (003-S1): capabilities, resources and the state that persists between actions.
/// Every field has a default, so a sheet saved before a field existed still loads.
///
/// JSON: names are the canonical upper-case names (aliases are accepted on input):
/// `{"aspects": {"FITNESS": 2, …}, "abilities": {"BRAWL": 1, "RAGE": 2}, "custom_abilities":
/// {"DODGE": {"type": "INNATE", "dots": 3}}, "affinities": {"HEXES": 3}, "fortitude": {"current": 3,
/// "max": 3}, "health": {"current": 5, "max": 5}, "personality": "REBEL", "house": "GRYFFINDOR",
/// "archetype": "WARRIOR", "species": "HALFBLOOD", "feats": ["DUELIST"], "galleons": 20,
/// "sustained_spells": [{"name": "shield"}], "feat_uses": {"FURIOUS SPELLCASTER": 1},
/// "rage_turns": 0}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CharacterSheet {
    pub species: Option<Species>,
    pub personality: Option<Personality>,
    pub house: Option<House>,
    pub archetype: Option<Archetype>,
    /// All nine aspects (003-D2).
    pub aspects: BTreeMap<Aspect, u32>,
    /// Standard and archetype abilities by canonical name; an absent one has 0 dots.
    pub abilities: BTreeMap<String, u32>,
    /// Abilities the GM granted (DODGE, BLOCK, "Juggle"), by name.
    pub custom_abilities: BTreeMap<String, CustomAbility>,
    /// An absent affinity has 0 dots.
    pub affinities: BTreeMap<Discipline, u32>,
    /// FORTITUDE points (003-M23, A14): spent and regained.
    pub fortitude: Resource,
    /// Levels of health (003-A14): harm lowers it.
    pub health: Resource,
    pub feats: Vec<Feat>,
    pub galleons: u64,
    /// Active self-sustaining spells (003-M16).
    pub sustained_spells: Vec<SustainedSpell>,
    /// Uses today of the feats with a daily limit (003-S1, M25); reset each day.
    pub feat_uses: BTreeMap<Feat, u32>,
    /// Consecutive turns of RAGE so far: the dice lost on every Resist check (003-S3, M24).
    pub rage_turns: u32,
}

/// One of a character's abilities, found by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AbilityRating {
    /// The canonical name (or a custom ability's name as the sheet writes it).
    pub name: String,
    #[serde(rename = "type")]
    pub kind: AbilityType,
    pub dots: u32,
}

impl CharacterSheet {
    /// The aspect's dots (0 when absent).
    pub fn aspect(&self, aspect: Aspect) -> u32 {
        self.aspects.get(&aspect).copied().unwrap_or(0)
    }

    /// The affinity's dots (0 when absent).
    pub fn affinity(&self, discipline: Discipline) -> u32 {
        self.affinities.get(&discipline).copied().unwrap_or(0)
    }

    /// The ability called `name`: standard (aliases accepted), an archetype's, or custom (any case).
    ///
    /// # Errors
    /// [`NameError`] when no ability has that name: the nearest standard, archetype or custom name,
    /// or all of them.
    pub fn ability(&self, name: &str) -> Result<AbilityRating, NameError> {
        let rating = |canonical: &str, kind| AbilityRating {
            name: canonical.to_string(),
            kind,
            dots: self.abilities.get(canonical).copied().unwrap_or(0),
        };
        if let Ok(ability) = Ability::parse(name) {
            return Ok(rating(ability.name(), ability.ability_type()));
        }
        if let Some((_, canonical, kind)) = archetype_ability(name) {
            return Ok(rating(canonical, kind));
        }
        let key = normalize(name);
        if let Some((custom_name, custom)) = self
            .custom_abilities
            .iter()
            .find(|(custom_name, _)| normalize(custom_name) == key)
        {
            return Ok(AbilityRating {
                name: custom_name.clone(),
                kind: custom.kind,
                dots: custom.dots,
            });
        }
        let names: Vec<String> = Ability::ALL
            .iter()
            .map(|a| a.name().to_string())
            .chain(
                ARCHETYPES
                    .iter()
                    .flat_map(|d| d.abilities.iter().map(|a| a.to_string())),
            )
            .chain(self.custom_abilities.keys().cloned())
            .collect();
        let best = names
            .iter()
            .map(|candidate| (edit_distance(&normalize(candidate), &key), candidate))
            .min_by_key(|(distance, _)| *distance);
        match best {
            Some((distance, suggestion)) if distance <= 2 && !key.is_empty() => {
                Err(NameError::Nearest {
                    kind: "ability",
                    name: name.to_string(),
                    suggestion: suggestion.clone(),
                })
            }
            _ => Err(NameError::Unknown {
                kind: "ability",
                name: name.to_string(),
                valid: names.join(", "),
            }),
        }
    }

    /// Whether the character has taken `feat`.
    pub fn has_feat(&self, feat: Feat) -> bool {
        self.feats.contains(&feat)
    }
}

/// Everything wrong with a sheet, and what is merely unusual.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SheetReport {
    /// Broken rules: the sheet cannot be used until they are fixed.
    pub problems: Problems,
    /// Allowed but unusual: ratings above the advancement cap (003-A2), dots left unspent.
    pub warnings: Vec<String>,
}

fn check_rating(what: &str, dots: u32, cap: u32, report: &mut SheetReport) {
    if dots > MAX_RATING {
        report.problems.push(format!(
            "{what} has {dots} dots, above the highest rating {MAX_RATING} (Ascendant); lower it \
             to at most {MAX_RATING}"
        ));
    } else if dots > cap {
        report.warnings.push(format!(
            "{what} has {dots} dots, above the advancement cap of {cap} (003-A2)"
        ));
    }
}

/// Every problem with an existing (possibly advanced) sheet, and every warning (003-S1, A2, A14):
/// all nine aspects present, ratings 0..=7 (a warning above `advancement_cap`), ability names known
/// and canonical, resources within 0..=max, the house matching the personality, feats taken once and
/// their daily uses within their limits, sustained spells named with a level 0..=7.
pub fn validate(sheet: &CharacterSheet, advancement_cap: u32) -> SheetReport {
    let mut report = SheetReport::default();
    for &aspect in Aspect::ALL {
        match sheet.aspects.get(&aspect) {
            None => report.problems.push(format!(
                "aspect {aspect} is missing; rate it 0..{MAX_RATING} (1 is the baseline)"
            )),
            Some(&dots) => check_rating(
                &format!("aspect {aspect}"),
                dots,
                advancement_cap,
                &mut report,
            ),
        }
    }
    for (name, &dots) in &sheet.abilities {
        let canonical = Ability::parse(name)
            .map(Ability::name)
            .ok()
            .or_else(|| archetype_ability(name).map(|(_, canonical, _)| canonical));
        match canonical {
            Some(canonical) if canonical == name => {}
            Some(canonical) => report
                .problems
                .push(format!("ability `{name}`: write it as {canonical}")),
            None => report.problems.push(format!(
                "{}; a GM-granted ability belongs in custom_abilities with its type",
                sheet
                    .ability(name)
                    .err()
                    .map_or_else(|| format!("unknown ability `{name}`"), |e| e.to_string())
            )),
        }
        check_rating(
            &format!("ability {name}"),
            dots,
            advancement_cap,
            &mut report,
        );
    }
    for (name, custom) in &sheet.custom_abilities {
        if name.trim().is_empty() {
            report
                .problems
                .push("a custom ability has no name; name it (e.g. DODGE)");
        } else if Ability::parse(name).is_ok() || archetype_ability(name).is_some() {
            report.problems.push(format!(
                "custom ability `{name}` is already a standard or archetype ability; rate it under \
                 abilities"
            ));
        }
        check_rating(
            &format!("ability {name}"),
            custom.dots,
            advancement_cap,
            &mut report,
        );
    }
    for (discipline, &dots) in &sheet.affinities {
        check_rating(
            &format!("affinity {discipline}"),
            dots,
            advancement_cap,
            &mut report,
        );
    }
    for (what, resource) in [("fortitude", sheet.fortitude), ("health", sheet.health)] {
        if resource.current > resource.max {
            report.problems.push(format!(
                "{what} {} is above its maximum {}; lower current or raise max",
                resource.current, resource.max
            ));
        }
    }
    if let (Some(personality), Some(house)) = (sheet.personality, sheet.house)
        && personality.house().is_some_and(|h| h != house)
    {
        report.problems.push(format!(
            "personality {personality} belongs to {}, not {house}; change the house or the \
             personality",
            personality.house().map_or("no house", House::name)
        ));
    }
    let mut seen = BTreeSet::new();
    for &feat in &sheet.feats {
        if !seen.insert(feat) {
            report
                .problems
                .push(format!("feat {feat} is listed twice; list it once"));
        }
    }
    if let Some(archetype) = sheet.archetype {
        for feat in sheet
            .feats
            .iter()
            .filter(|f| !archetype.data().feats.contains(f))
        {
            report.warnings.push(format!(
                "feat {feat} is not a {archetype} feat (003-D4); keep it only if the GM allowed it"
            ));
        }
    }
    for (&feat, &uses) in &sheet.feat_uses {
        match feat_data(feat).per_day {
            None => report.problems.push(format!(
                "feat {feat} has no daily limit, so no uses to count; remove it from feat_uses"
            )),
            Some(limit) if uses > limit => report.problems.push(format!(
                "feat {feat} used {uses} times today, above its {limit} a day; lower it"
            )),
            Some(_) => {}
        }
        if !sheet.has_feat(feat) && uses > 0 {
            report.problems.push(format!(
                "feat {feat} has uses today but is not among the feats; add it or remove the uses"
            ));
        }
    }
    let mut names = BTreeSet::new();
    for spell in &sheet.sustained_spells {
        if !names.insert(spell.name.as_str()) {
            report.problems.push(format!(
                "sustained spell `{}` is listed twice; give each its own name",
                spell.name
            ));
        }
        if spell.name.trim().is_empty() {
            report
                .problems
                .push("a sustained spell has no name; name it so it can be ended");
        }
        if let Some(level) = spell.level
            && level > super::MAX_SPELL_LEVEL
        {
            report.problems.push(format!(
                "sustained spell `{}` has level {level}, above SUMNUS (7); use 0..7",
                spell.name
            ));
        }
    }
    report
}

// ---------------------------------------------------------------------------------------------------
// Creation (003-D2, D3, D4, D6, A2, A9, A10, A11).

fn default_cap() -> u32 {
    DEFAULT_ADVANCEMENT_CAP
}

/// A player's choices at character creation (003-D2..D7): species, personality and archetype, the
/// ranking of aspect and ability types with the dots spent in each, the archetype's choices, and the
/// starting FORTITUDE and health. Every problem is listed at once.
//
// The names are strings here, not the seed's enums, so that `create` can report every misspelt
// name together with the other problems; the schema still offers each field's names (the page's
// menus), and any case or alias is accepted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreationChoices {
    /// The species or subspecies (003-D7); names only, with no effect on the numbers. Optional.
    #[serde(default)]
    #[schemars(with = "Option<Species>")]
    pub species: Option<String>,
    /// The personality, which gives two bonus dots (003-D6).
    #[schemars(with = "Personality", transform = personality_help)]
    pub personality: String,
    /// The capability of a personality's chosen dot (GEEK: a KNOWLEDGE ability; PRODIGY, ASPIRANT,
    /// ACOLYTE: a standard ability).
    #[serde(default)]
    pub personality_choice: Option<String>,
    /// The archetype (003-D4), with its special abilities, bonuses and feats.
    #[schemars(with = "Archetype")]
    pub archetype: String,
    /// The aspect types, most important first (003-D2).
    #[schemars(with = "Vec<AspectType>")]
    pub aspect_ranking: Vec<String>,
    /// Dots added to each aspect above the baseline of 1 (003-D2).
    #[serde(default)]
    pub aspects: BTreeMap<String, u32>,
    /// The ability types, most important first (003-D3).
    #[schemars(with = "Vec<AbilityType>")]
    pub ability_ranking: Vec<String>,
    /// Dots spent on standard abilities (003-D3).
    #[serde(default)]
    pub abilities: BTreeMap<String, u32>,
    /// Free dots added to the archetype's abilities above 1 each (003-D4, A9).
    #[serde(default)]
    pub archetype_abilities: BTreeMap<String, u32>,
    /// One capability per choice row of the archetype's table, in row order (003-D4).
    #[serde(default)]
    pub capability_choices: Vec<String>,
    /// Abilities the GM granted, with their dots.
    #[serde(default)]
    pub custom_abilities: BTreeMap<String, CustomAbility>,
    /// Maximum FORTITUDE (003-A14: set by the table, no formula).
    pub fortitude: u32,
    /// Maximum health levels (003-A14: set by the table, no formula).
    pub health: u32,
    #[serde(default)]
    pub galleons: u64,
    /// Ratings above this draw a warning (003-A2).
    #[serde(default = "default_cap")]
    pub advancement_cap: u32,
}

/// The personality menu's help: each personality's house, Asset and Flaw (003-D6) after the field's
/// own description, so a player chooses knowing them; `x-enum-descriptions` gives the same per value.
fn personality_help(schema: &mut schemars::Schema) {
    let lines: Vec<String> = PERSONALITIES
        .iter()
        .map(|data| {
            let house = data
                .house
                .map_or("no house".to_string(), |h| h.name().to_string());
            format!(
                "{} ({house}): asset {}, flaw {}",
                data.personality.name(),
                data.asset,
                data.flaw
            )
        })
        .collect();
    let described = schema
        .get("description")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_string();
    schema.insert(
        "description".to_string(),
        format!("{described} {}.", lines.join("; ")).trim().into(),
    );
    let per_value: serde_json::Map<String, serde_json::Value> = PERSONALITIES
        .iter()
        .zip(&lines)
        .map(|(data, line)| (data.personality.name().to_string(), line.clone().into()))
        .collect();
    schema.insert("x-enum-descriptions".to_string(), per_value.into());
}

/// A character made by [`create`], with what was allowed but unusual.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Created {
    pub sheet: CharacterSheet,
    pub warnings: Vec<String>,
}

fn parse_into<T>(
    parsed: Result<T, NameError>,
    context: &str,
    problems: &mut Problems,
) -> Option<T> {
    parsed
        .map_err(|e| {
            if context.is_empty() {
                problems.push(e.to_string());
            } else {
                problems.push(format!("{context}: {e}"));
            }
        })
        .ok()
}

fn ranking<T: Copy + Ord + std::fmt::Display>(
    names: &[String],
    parse: impl Fn(&str) -> Result<T, NameError>,
    all: &[T],
    what: &str,
    problems: &mut Problems,
) -> Option<Vec<T>> {
    let parsed: Vec<Option<T>> = names
        .iter()
        .map(|n| parse_into(parse(n), what, problems))
        .collect();
    let parsed: Vec<T> = parsed.into_iter().collect::<Option<_>>()?;
    let distinct: BTreeSet<T> = parsed.iter().copied().collect();
    if parsed.len() != all.len() || distinct.len() != all.len() {
        let listed = all.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        problems.push(format!(
            "{what} must rank each of {} exactly once, most important first",
            listed.join(", ")
        ));
        return None;
    }
    Some(parsed)
}

fn bump(sheet: &mut CharacterSheet, capability: Capability, dots: u32) {
    match capability {
        Capability::Aspect(a) => *sheet.aspects.entry(a).or_insert(0) += dots,
        Capability::Ability(a) => *sheet.abilities.entry(a.name().to_string()).or_insert(0) += dots,
        Capability::Affinity(d) => *sheet.affinities.entry(d).or_insert(0) += dots,
    }
}

/// Builds a new character from `choices` (003-D2, D3, D4, D6, A9, A10, A11), or lists every broken
/// rule at once:
/// * aspects: 1 each, then 7 / 5 / 3 dots by the ranked types, at most +3 on one aspect;
/// * abilities: 12 / 8 / 4 dots by the ranked types, at most 3 on one ability;
/// * archetype abilities: 1 each plus 3 free dots (003-A9), none above 4;
/// * the archetype's capability bonuses, one choice per choice row, no capability chosen twice
///   (nor a choice repeating a fixed row's capability, so no capability takes two rows' bonuses);
///   unreadable counts use the provisional pattern 2, 2, 2, 1, 1 (003-A11, with a warning);
/// * the personality's two dots, the House dot first (003-A10);
/// * every final rating at most 7; above `advancement_cap` a warning (003-A2).
///
/// Dots left unspent are a warning, not an error. FORTITUDE and health start full.
///
/// # Errors
/// Every problem found, as [`Problems`].
pub fn create(choices: &CreationChoices) -> Result<Created, Problems> {
    let mut problems = Problems::new();
    let mut warnings = Vec::new();
    let species = choices
        .species
        .as_deref()
        .and_then(|s| parse_into(Species::parse(s), "", &mut problems));
    let personality = parse_into(Personality::parse(&choices.personality), "", &mut problems);
    let archetype = parse_into(Archetype::parse(&choices.archetype), "", &mut problems);

    let mut sheet = CharacterSheet {
        species,
        personality,
        house: personality.and_then(Personality::house),
        archetype,
        fortitude: Resource::full(choices.fortitude),
        health: Resource::full(choices.health),
        galleons: choices.galleons,
        ..CharacterSheet::default()
    };
    for &aspect in Aspect::ALL {
        sheet.aspects.insert(aspect, ASPECT_BASELINE);
    }

    // Aspects (003-D2).
    let aspect_ranking = ranking(
        &choices.aspect_ranking,
        AspectType::parse,
        AspectType::ALL,
        "aspect_ranking",
        &mut problems,
    );
    let mut spent_by_type: BTreeMap<AspectType, u32> = BTreeMap::new();
    for (name, &dots) in &choices.aspects {
        let Some(aspect) = parse_into(Aspect::parse(name), "aspects", &mut problems) else {
            continue;
        };
        if dots > ASPECT_ALLOCATION_CAP {
            problems.push(format!(
                "aspect {aspect}: {dots} dots spent, above the {ASPECT_ALLOCATION_CAP} allowed on \
                 one aspect at creation; spend at most {ASPECT_ALLOCATION_CAP}"
            ));
        }
        *spent_by_type.entry(aspect.aspect_type()).or_insert(0) += dots;
        bump(&mut sheet, Capability::Aspect(aspect), dots);
    }
    if let Some(ranking) = &aspect_ranking {
        for (rank, kind) in ranking.iter().enumerate() {
            let budget = ASPECT_BUDGETS[rank];
            let spent = spent_by_type.get(kind).copied().unwrap_or(0);
            if spent > budget {
                problems.push(format!(
                    "{spent} dots spent on {kind} aspects, ranked #{} with {budget} dots; spend at \
                     most {budget}",
                    rank + 1
                ));
            } else if spent < budget {
                warnings.push(format!(
                    "{} of {budget} {kind} aspect dots unspent",
                    budget - spent
                ));
            }
        }
    }

    // Abilities (003-D3).
    let ability_ranking = ranking(
        &choices.ability_ranking,
        AbilityType::parse,
        AbilityType::ALL,
        "ability_ranking",
        &mut problems,
    );
    let mut spent_by_type: BTreeMap<AbilityType, u32> = BTreeMap::new();
    for (name, &dots) in &choices.abilities {
        let Some(ability) = parse_into(Ability::parse(name), "abilities", &mut problems) else {
            continue;
        };
        if dots > ABILITY_ALLOCATION_CAP {
            problems.push(format!(
                "ability {ability}: {dots} dots spent, above the {ABILITY_ALLOCATION_CAP} allowed \
                 on one ability at creation; spend at most {ABILITY_ALLOCATION_CAP}"
            ));
        }
        *spent_by_type.entry(ability.ability_type()).or_insert(0) += dots;
        bump(&mut sheet, Capability::Ability(ability), dots);
    }
    if let Some(ranking) = &ability_ranking {
        for (rank, kind) in ranking.iter().enumerate() {
            let budget = ABILITY_BUDGETS[rank];
            let spent = spent_by_type.get(kind).copied().unwrap_or(0);
            if spent > budget {
                problems.push(format!(
                    "{spent} dots spent on {kind} abilities, ranked #{} with {budget} dots; spend \
                     at most {budget}",
                    rank + 1
                ));
            } else if spent < budget {
                warnings.push(format!(
                    "{} of {budget} {kind} ability dots unspent",
                    budget - spent
                ));
            }
        }
    }

    // Archetype abilities and capability bonuses (003-D4, A9, A11).
    if let Some(archetype) = archetype {
        let data = archetype.data();
        for ability in data.abilities {
            sheet
                .abilities
                .insert(ability.to_string(), ARCHETYPE_ABILITY_BASELINE);
        }
        let mut free = 0;
        for (name, &dots) in &choices.archetype_abilities {
            let Some(index) = data
                .abilities
                .iter()
                .position(|a| normalize(a) == normalize(name))
            else {
                problems.push(format!(
                    "archetype_abilities: `{name}` is not an ability of {archetype}; use {}",
                    data.abilities.join(", ")
                ));
                continue;
            };
            free += dots;
            let rating = ARCHETYPE_ABILITY_BASELINE + dots;
            if rating > ARCHETYPE_ABILITY_CAP {
                problems.push(format!(
                    "archetype ability {} would have {rating} dots, above the {ARCHETYPE_ABILITY_CAP} \
                     allowed at creation; add at most {}",
                    data.abilities[index],
                    ARCHETYPE_ABILITY_CAP - ARCHETYPE_ABILITY_BASELINE
                ));
            }
            sheet
                .abilities
                .insert(data.abilities[index].to_string(), rating);
        }
        if free > ARCHETYPE_FREE_DOTS {
            problems.push(format!(
                "{free} free dots added to archetype abilities, above the {ARCHETYPE_FREE_DOTS} \
                 allowed (003-A9); add at most {ARCHETYPE_FREE_DOTS}"
            ));
        } else if free < ARCHETYPE_FREE_DOTS {
            warnings.push(format!(
                "{} of {ARCHETYPE_FREE_DOTS} free archetype ability dots unspent",
                ARCHETYPE_FREE_DOTS - free
            ));
        }

        let choice_rows = data
            .capabilities
            .iter()
            .filter(|r| r.target.is_choice())
            .count();
        if choices.capability_choices.len() != choice_rows {
            let rows = data
                .capabilities
                .iter()
                .filter(|r| r.target.is_choice())
                .map(|r| r.target.describe())
                .collect::<Vec<_>>();
            problems.push(format!(
                "{archetype} needs {choice_rows} capability choice(s), {} given; give one per row \
                 in order{}",
                choices.capability_choices.len(),
                if rows.is_empty() {
                    String::new()
                } else {
                    format!(": {}", rows.join("; "))
                }
            ));
        }
        let mut chosen = choices.capability_choices.iter();
        let mut taken: BTreeSet<Capability> = BTreeSet::new();
        for (row, bonus) in data.capabilities.iter().enumerate() {
            let target = match bonus.target {
                BonusTarget::Fixed(c) => Some(c),
                target => chosen.next().and_then(|name| {
                    let capability =
                        parse_into(Capability::parse(name), "capability_choices", &mut problems)?;
                    if target.allows(capability) {
                        Some(capability)
                    } else {
                        problems.push(format!(
                            "capability_choices: {capability} is not a choice of {archetype}'s row \
                             {}; choose from {}",
                            target.describe(),
                            target.describe()
                        ));
                        None
                    }
                }),
            };
            let Some(target) = target else { continue };
            if !taken.insert(target) {
                problems.push(format!(
                    "{target} is chosen twice among {archetype}'s capability bonuses; where a choice \
                     is given you cannot make the same choice twice"
                ));
                continue;
            }
            let (dots, provisional) = data.row_dots(row);
            if provisional {
                warnings.push(format!(
                    "{archetype}'s bonus to {target} is unreadable in the seed; {dots} dot(s) \
                     assumed (provisional, 003-A11)"
                ));
            }
            bump(&mut sheet, target, dots);
        }
    }

    // Personality (003-D6, A10).
    if let Some(personality) = personality {
        let data = personality.data();
        for bonus in data.bonuses {
            let target = match bonus {
                PersonalityBonus::Fixed(c) => Some(c),
                PersonalityBonus::AnyKnowledge | PersonalityBonus::Field(_) => {
                    match choices.personality_choice.as_deref() {
                        None => {
                            problems.push(format!(
                                "personality {personality} gives a dot in {}; name it in \
                                 personality_choice",
                                match bonus {
                                    PersonalityBonus::Field(text) => text,
                                    _ => "a KNOWLEDGE ability of your choice",
                                }
                            ));
                            None
                        }
                        Some(name) => {
                            let ability = parse_into(
                                Ability::parse(name),
                                "personality_choice",
                                &mut problems,
                            );
                            match ability {
                                Some(a)
                                    if bonus == PersonalityBonus::AnyKnowledge
                                        && a.ability_type() != AbilityType::Knowledge =>
                                {
                                    problems.push(format!(
                                        "personality_choice: {a} is not a KNOWLEDGE ability; \
                                         {personality} needs one"
                                    ));
                                    None
                                }
                                other => other.map(Capability::Ability),
                            }
                        }
                    }
                }
            };
            if let Some(target) = target {
                bump(&mut sheet, target, 1);
            }
        }
    }

    for (name, custom) in &choices.custom_abilities {
        sheet.custom_abilities.insert(name.clone(), *custom);
    }

    let report = validate(&sheet, choices.advancement_cap);
    for problem in report.problems.0 {
        problems.push(problem);
    }
    warnings.extend(report.warnings);
    problems.into_result(Created { sheet, warnings })
}
