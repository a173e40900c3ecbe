//! Seed 003's ratings, aspects, abilities, disciplines, capabilities and species as data (003-D1,
//! D2, D3, D5, D7, A2, A21).

use crate::hprpg::names::{NameError, nearest};

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
