//! Personalities and houses (003-D6, A10).

use super::data::Capability::{Ability as CAb, Aspect as CAs};
use super::data::*;
use super::data::{Ability as Ab, Aspect as As};

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

pub(super) const fn personality(
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
