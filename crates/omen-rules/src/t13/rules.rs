//! Seed 004's tests: the d20, Proficiency dice, crises and levels.

use std::fmt;

use omen_core::{CoreError, Die, DieSource, Distribution, Limits, Probability};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The seed document this module implements.
pub const SEED_FILE: &str = "004_f53bc2b95be51b74.txt";

/// Proficiency dice are d8 (004-M1).
pub const PROFICIENCY_SIDES: i64 = 8;

/// The most Proficiency dice one test may roll (004-M1: "up to 4d8").
pub const MAX_PROFICIENCY_DICE: usize = 4;

/// Why a T13 test or computation was refused. Messages are lower case and say how to fix the input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum T13Error {
    #[error(
        "{0} proficiency dice is more than the 4 a test may roll; roll at most 4d8 of proficiency"
    )]
    TooManyProficiencyDice(usize),
    #[error(
        "unknown purchase kind {0:?}; use facet, skill, talent, power, trophy, superskill (monolith, \
         location), real-estate (pact) or artefact (province)"
    )]
    UnknownPurchase(String),
    #[error("unknown currency {0:?}; pay in sway, chi or yarn")]
    UnknownCurrency(String),
    #[error("the {die} die has {sides} sides; a die needs at least one side")]
    NoSides { die: &'static str, sides: i64 },
    #[error(
        "difficulty {0} is below 1; the result table compares with multiples of a positive difficulty"
    )]
    Difficulty(i64),
    #[error(
        "the opponent's total {0} is below 1 and cannot play the difficulty; decide the test by \
         comparing totals, or set a difficulty of 1 or more"
    )]
    OpponentTotal(i64),
    #[error(transparent)]
    Core(#[from] CoreError),
}

// ---------------------------------------------------------------------------------------------------
// Options (004-A4) and the registry entry.

/// What makes a Proficiency Crisis (004-M7, A4).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum CrisisTrigger {
    /// Any single Proficiency d8 showing 1 or 8. The spec's resolution.
    #[default]
    AnyDie,
    /// Every Proficiency die showing 8, or every one showing 1.
    AllDice,
}

impl CrisisTrigger {
    pub const ALL: [CrisisTrigger; 2] = [CrisisTrigger::AnyDie, CrisisTrigger::AllDice];

    /// The option value as listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            CrisisTrigger::AnyDie => "any-die",
            CrisisTrigger::AllDice => "all-dice",
        }
    }

    /// Whether these proficiency dice make a crisis; no proficiency dice never do.
    pub fn triggered(self, proficiency: &[i64]) -> bool {
        let extreme = |d: &i64| *d == 1 || *d == PROFICIENCY_SIDES;
        match self {
            CrisisTrigger::AnyDie => proficiency.iter().any(extreme),
            CrisisTrigger::AllDice => {
                !proficiency.is_empty()
                    && (proficiency.iter().all(|&d| d == 1)
                        || proficiency.iter().all(|&d| d == PROFICIENCY_SIDES))
            }
        }
    }
}

/// The readings this rule set lets the table choose; `Default` is the spec's resolutions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct T13Options {
    pub crisis_trigger: CrisisTrigger,
}

// ---------------------------------------------------------------------------------------------------
// The dice of a test (004-M1, M2, D1, A5, A6).

/// What a bought die adds to the pool, one row of the Sway table (004-D1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PurchaseKind {
    Facet,
    Skill,
    Talent,
    Power,
    /// A Trophy (skill, talent or power).
    Trophy,
    /// A Superskill, a Monolith (skill, talent or power) or a Location.
    Superskill,
    /// Real Estate or a Pact.
    RealEstate,
    /// An Artefact or a Province.
    Artefact,
}

impl PurchaseKind {
    /// The table's rows, cheapest first.
    pub const ALL: [PurchaseKind; 8] = [
        PurchaseKind::Facet,
        PurchaseKind::Skill,
        PurchaseKind::Talent,
        PurchaseKind::Power,
        PurchaseKind::Trophy,
        PurchaseKind::Superskill,
        PurchaseKind::RealEstate,
        PurchaseKind::Artefact,
    ];

    /// The row's name as listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            PurchaseKind::Facet => "facet",
            PurchaseKind::Skill => "skill",
            PurchaseKind::Talent => "talent",
            PurchaseKind::Power => "power",
            PurchaseKind::Trophy => "trophy",
            PurchaseKind::Superskill => "superskill",
            PurchaseKind::RealEstate => "real-estate",
            PurchaseKind::Artefact => "artefact",
        }
    }

    /// The row a name or any of the row's other names picks (`monolith` and `location` are
    /// [`PurchaseKind::Superskill`], `pact` is [`PurchaseKind::RealEstate`], `province` is
    /// [`PurchaseKind::Artefact`]); case and `-`/`_`/space are ignored.
    ///
    /// # Errors
    /// [`T13Error::UnknownPurchase`] for any other name.
    pub fn from_name(name: &str) -> Result<Self, T13Error> {
        let key: String = name
            .trim()
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .flat_map(char::to_lowercase)
            .collect();
        Ok(match key.as_str() {
            "facet" => PurchaseKind::Facet,
            "skill" => PurchaseKind::Skill,
            "talent" => PurchaseKind::Talent,
            "power" => PurchaseKind::Power,
            "trophy" => PurchaseKind::Trophy,
            "superskill" | "monolith" | "location" => PurchaseKind::Superskill,
            "realestate" | "pact" => PurchaseKind::RealEstate,
            "artefact" | "artifact" | "province" => PurchaseKind::Artefact,
            _ => return Err(T13Error::UnknownPurchase(name.to_string())),
        })
    }

    /// The price of one die of this kind in `currency` (004-D1).
    pub fn cost(self, currency: Currency) -> u32 {
        let (sway, chi, yarn) = match self {
            PurchaseKind::Facet => (2, 1, 1),
            PurchaseKind::Skill => (4, 2, 1),
            PurchaseKind::Talent => (10, 5, 2),
            PurchaseKind::Power => (14, 7, 2),
            PurchaseKind::Trophy => (16, 8, 3),
            PurchaseKind::Superskill => (24, 12, 4),
            PurchaseKind::RealEstate => (32, 16, 5),
            PurchaseKind::Artefact => (42, 21, 6),
        };
        match currency {
            Currency::Sway => sway,
            Currency::Chi => chi,
            Currency::Yarn => yarn,
        }
    }
}

/// What a bought die is paid in; any one of the three at the listed price (004-A6).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Currency {
    #[default]
    Sway,
    Chi,
    Yarn,
}

impl Currency {
    pub const ALL: [Currency; 3] = [Currency::Sway, Currency::Chi, Currency::Yarn];

    pub fn name(self) -> &'static str {
        match self {
            Currency::Sway => "sway",
            Currency::Chi => "chi",
            Currency::Yarn => "yarn",
        }
    }

    /// # Errors
    /// [`T13Error::UnknownCurrency`] for anything but `sway`, `chi` or `yarn` (any case).
    pub fn from_name(name: &str) -> Result<Self, T13Error> {
        Currency::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| T13Error::UnknownCurrency(name.to_string()))
    }
}

/// One die bought into the pool (004-M2): what it comes from, its size (004-A5) and how it is paid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoughtDie {
    pub kind: PurchaseKind,
    pub sides: i64,
    pub currency: Currency,
}

impl BoughtDie {
    /// A bought die from names, as a user types them.
    ///
    /// # Errors
    /// [`T13Error::UnknownPurchase`], [`T13Error::UnknownCurrency`].
    pub fn from_names(kind: &str, sides: i64, currency: &str) -> Result<Self, T13Error> {
        Ok(BoughtDie {
            kind: PurchaseKind::from_name(kind)?,
            sides,
            currency: Currency::from_name(currency)?,
        })
    }

    /// Its price in its currency.
    pub fn cost(&self) -> u32 {
        self.kind.cost(self.currency)
    }
}

/// The price of a pool's bought dice, per currency.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct Cost {
    pub sway: u64,
    pub chi: u64,
    pub yarn: u64,
}

/// The dice a test asks for, unvalidated: the free dice (each optional, 004-M1), the bought ones
/// (004-M2) and a signed modifier such as a handicap (004-A2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiceSpec {
    /// Sides of the Boon die, if one is rolled.
    pub boon: Option<i64>,
    /// Sides of the Descendant die, if one is rolled.
    pub descendant: Option<i64>,
    /// Proficiency d8s, 0 to 4.
    pub proficiency: usize,
    pub bought: Vec<BoughtDie>,
    /// Added to the dice's sum; negative for handicaps and penalties.
    pub modifier: i64,
}

/// A validated pool of dice for a test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestDice {
    spec: DiceSpec,
}

impl TestDice {
    /// # Errors
    /// [`T13Error::TooManyProficiencyDice`] above 4; [`T13Error::NoSides`] for a die of fewer than one
    /// side; [`CoreError::TooManySides`] and [`CoreError::TooManyDice`] (as [`T13Error::Core`]) beyond
    /// `limits`.
    pub fn new(spec: DiceSpec, limits: &Limits) -> Result<Self, T13Error> {
        if spec.proficiency > MAX_PROFICIENCY_DICE {
            return Err(T13Error::TooManyProficiencyDice(spec.proficiency));
        }
        let sized = spec
            .boon
            .map(|s| ("boon", s))
            .into_iter()
            .chain(spec.descendant.map(|s| ("descendant", s)))
            .chain(spec.bought.iter().map(|b| ("bought", b.sides)));
        for (die, sides) in sized {
            if sides < 1 {
                return Err(T13Error::NoSides { die, sides });
            }
            limits.check_sides(sides)?;
        }
        let count = spec.proficiency
            + spec.bought.len()
            + usize::from(spec.boon.is_some())
            + usize::from(spec.descendant.is_some());
        limits.check_dice(i64::try_from(count).unwrap_or(i64::MAX))?;
        Ok(TestDice { spec })
    }

    pub fn spec(&self) -> &DiceSpec {
        &self.spec
    }

    /// What the bought dice cost, each in its own currency.
    pub fn cost(&self) -> Cost {
        let mut cost = Cost::default();
        for die in &self.spec.bought {
            let price = u64::from(die.cost());
            match die.currency {
                Currency::Sway => cost.sway += price,
                Currency::Chi => cost.chi += price,
                Currency::Yarn => cost.yarn += price,
            }
        }
        cost
    }

    /// The sides of every die that is not a proficiency die, in rolling order: Boon, Descendant, bought.
    fn other_dice(&self) -> impl Iterator<Item = i64> + '_ {
        self.spec
            .boon
            .into_iter()
            .chain(self.spec.descendant)
            .chain(self.spec.bought.iter().map(|b| b.sides))
    }

    /// The exact distribution of the total R: every die plus the modifier (004-M3).
    ///
    /// # Errors
    /// [`T13Error::Core`] when the computation exceeds `limits` or a total overflows.
    pub fn total_distribution(&self, limits: &Limits) -> Result<Distribution<i64>, T13Error> {
        let mut budget = limits.budget();
        let d8 = Distribution::die(PROFICIENCY_SIDES)?;
        let mut total = d8.sum_of(self.spec.proficiency, limits, &mut budget)?;
        for sides in self.other_dice() {
            total = total.add(&Distribution::die(sides)?, limits, &mut budget)?;
        }
        let modifier = self.spec.modifier;
        Ok(total.try_map(|&r| r.checked_add(modifier).ok_or(CoreError::Overflow))?)
    }

    /// P(Proficiency Crisis), exactly (004-M7, A4): with n proficiency d8, 1 − (6/8)ⁿ for any die,
    /// 2/8ⁿ for all dice (0 with no proficiency dice).
    ///
    /// # Errors
    /// [`T13Error::Core`] when the computation exceeds `limits`.
    pub fn crisis_probability(
        &self,
        options: &T13Options,
        limits: &Limits,
    ) -> Result<Probability, T13Error> {
        Ok(self
            .proficiency_distribution(options, limits)?
            .probability_where(|&(_, crisis)| crisis))
    }

    /// The joint distribution of the proficiency dice's sum and whether they make a crisis.
    fn proficiency_distribution(
        &self,
        options: &T13Options,
        limits: &Limits,
    ) -> Result<Distribution<(i64, bool)>, T13Error> {
        // The state (sum, any die extreme, all at max, all at min) is enough for either trigger.
        let d8 = Distribution::die(PROFICIENCY_SIDES)?;
        let mut budget = limits.budget();
        let mut state = Distribution::constant((0i64, false, true, true));
        for _ in 0..self.spec.proficiency {
            state = state.combine(&d8, &mut budget, |&(sum, any, max, min), &face| {
                Ok((
                    sum + face,
                    any || face == 1 || face == PROFICIENCY_SIDES,
                    max && face == PROFICIENCY_SIDES,
                    min && face == 1,
                ))
            })?;
        }
        let dice = self.spec.proficiency;
        let trigger = options.crisis_trigger;
        Ok(state.map(|&(sum, any, max, min)| {
            let crisis = match trigger {
                CrisisTrigger::AnyDie => any,
                CrisisTrigger::AllDice => dice > 0 && (max || min),
            };
            (sum, crisis)
        }))
    }

    /// The exact joint distribution of the total R and whether the proficiency dice make a crisis.
    ///
    /// # Errors
    /// [`T13Error::Core`] when the computation exceeds `limits` or a total overflows.
    pub fn total_and_crisis_distribution(
        &self,
        options: &T13Options,
        limits: &Limits,
    ) -> Result<Distribution<(i64, bool)>, T13Error> {
        let mut budget = limits.budget();
        let mut others = Distribution::constant(self.spec.modifier);
        for sides in self.other_dice() {
            others = others.add(&Distribution::die(sides)?, limits, &mut budget)?;
        }
        Ok(self.proficiency_distribution(options, limits)?.combine(
            &others,
            &mut budget,
            |&(sum, crisis), &rest| {
                let total = sum.checked_add(rest).ok_or(CoreError::Overflow)?;
                Ok((total, crisis))
            },
        )?)
    }

    /// The exact distribution of the result of an opposed test in which the opponent rolls too
    /// (004-M3, A7): the opponent's total, itself a distribution, plays the difficulty. An opponent's
    /// total below 1 plays 1, the least the table orders levels by (as in
    /// [`opponent_success_levels`]).
    ///
    /// # Errors
    /// [`T13Error::Core`] when the computation exceeds `limits` or a total overflows.
    pub fn opposed_outcome_distribution(
        &self,
        opponent: &Distribution<i64>,
        options: &T13Options,
        limits: &Limits,
    ) -> Result<Distribution<TestResult>, T13Error> {
        let mut budget = limits.budget();
        let ours = self.total_and_crisis_distribution(options, limits)?;
        Ok(
            ours.combine(opponent, &mut budget, |&(total, crisis), &theirs| {
                Ok(TestResult::new(total, Difficulty(theirs.max(1)), crisis))
            })?,
        )
    }

    /// The exact distribution of the result (level, level count, crisis) against `opposition`.
    ///
    /// # Errors
    /// [`T13Error::Core`] when the computation exceeds `limits` or a total overflows.
    pub fn outcome_distribution(
        &self,
        opposition: Difficulty,
        options: &T13Options,
        limits: &Limits,
    ) -> Result<Distribution<TestResult>, T13Error> {
        let mut budget = limits.budget();
        let mut others = Distribution::constant(self.spec.modifier);
        for sides in self.other_dice() {
            others = others.add(&Distribution::die(sides)?, limits, &mut budget)?;
        }
        let joint = self.proficiency_distribution(options, limits)?.combine(
            &others,
            &mut budget,
            |&(sum, crisis), &rest| {
                let total = sum.checked_add(rest).ok_or(CoreError::Overflow)?;
                Ok(TestResult::new(total, opposition, crisis))
            },
        )?;
        Ok(joint)
    }

    /// The exact distribution of the result level alone against `opposition` (004-M4).
    ///
    /// # Errors
    /// [`T13Error::Core`] when the computation exceeds `limits` or a total overflows.
    pub fn level_distribution(
        &self,
        opposition: Difficulty,
        limits: &Limits,
    ) -> Result<Distribution<ResultLevel>, T13Error> {
        Ok(self
            .total_distribution(limits)?
            .map(|&r| result_level(r, opposition)))
    }
}

// ---------------------------------------------------------------------------------------------------
// Result levels (004-M3, M4, M5, A1..A3, A7).

/// The number a total is compared with: the set difficulty, or in an opposed test the opponent's total
/// (004-A7). Always at least 1, so its multiples order the levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Difficulty(i64);

/// Another name for what a test is rolled against; an opponent's total plays the difficulty.
pub type Opposition = Difficulty;

impl Difficulty {
    /// A difficulty set by the Ref.
    ///
    /// # Errors
    /// [`T13Error::Difficulty`] below 1.
    pub fn new(value: i64) -> Result<Self, T13Error> {
        if value < 1 {
            return Err(T13Error::Difficulty(value));
        }
        Ok(Difficulty(value))
    }

    /// The opponent's total in an opposed test, playing the difficulty (004-A7).
    ///
    /// # Errors
    /// [`T13Error::OpponentTotal`] below 1: the table's multiples of it would not order the levels.
    pub fn opponent_total(total: i64) -> Result<Self, T13Error> {
        if total < 1 {
            return Err(T13Error::OpponentTotal(total));
        }
        Ok(Difficulty(total))
    }

    pub fn value(self) -> i64 {
        self.0
    }
}

impl fmt::Display for Difficulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A row of the result table (004-M4), worst first.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ResultLevel {
    /// R < 0.
    SeriousFailure,
    /// 0 ≤ R < D/2.
    CompleteFailure,
    /// D/2 ≤ R < D.
    ModerateFailure,
    /// R = D: a stalemate.
    Borderline,
    /// D < R ≤ 2D.
    ModerateSuccess,
    /// 2D < R ≤ 3D.
    CompleteSuccess,
    /// R > 3D.
    SuperiorSuccess,
}

impl ResultLevel {
    pub const ALL: [ResultLevel; 7] = [
        ResultLevel::SeriousFailure,
        ResultLevel::CompleteFailure,
        ResultLevel::ModerateFailure,
        ResultLevel::Borderline,
        ResultLevel::ModerateSuccess,
        ResultLevel::CompleteSuccess,
        ResultLevel::SuperiorSuccess,
    ];

    /// The name the seed's table prints.
    pub fn name(self) -> &'static str {
        match self {
            ResultLevel::SeriousFailure => "Serious Failure",
            ResultLevel::CompleteFailure => "Complete Failure",
            ResultLevel::ModerateFailure => "Moderate Failure",
            ResultLevel::Borderline => "Borderline / Stalemate",
            ResultLevel::ModerateSuccess => "Moderate Success",
            ResultLevel::CompleteSuccess => "Complete Success",
            ResultLevel::SuperiorSuccess => "Superior Success",
        }
    }

    /// The equivalent opposite a Proficiency Crisis adds (004-M7); Borderline has none and is itself.
    pub fn opposite(self) -> ResultLevel {
        match self {
            ResultLevel::SeriousFailure => ResultLevel::SuperiorSuccess,
            ResultLevel::CompleteFailure => ResultLevel::CompleteSuccess,
            ResultLevel::ModerateFailure => ResultLevel::ModerateSuccess,
            ResultLevel::Borderline => ResultLevel::Borderline,
            ResultLevel::ModerateSuccess => ResultLevel::ModerateFailure,
            ResultLevel::CompleteSuccess => ResultLevel::CompleteFailure,
            ResultLevel::SuperiorSuccess => ResultLevel::SeriousFailure,
        }
    }

    pub fn is_success(self) -> bool {
        self > ResultLevel::Borderline
    }

    pub fn is_failure(self) -> bool {
        self < ResultLevel::Borderline
    }
}

impl fmt::Display for ResultLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The level of a total `r` against `opposition` D, compared exactly (004-M4, A1, A2): the boundaries
/// 2D, 3D and D/2 go to the level nearer Borderline, and only R < 0 is a Serious Failure.
pub fn result_level(r: i64, opposition: Difficulty) -> ResultLevel {
    let (r, d) = (i128::from(r), i128::from(opposition.value()));
    if r > 3 * d {
        ResultLevel::SuperiorSuccess
    } else if r > 2 * d {
        ResultLevel::CompleteSuccess
    } else if r > d {
        ResultLevel::ModerateSuccess
    } else if r == d {
        ResultLevel::Borderline
    } else if 2 * r >= d {
        ResultLevel::ModerateFailure
    } else if r >= 0 {
        ResultLevel::CompleteFailure
    } else {
        ResultLevel::SeriousFailure
    }
}

/// Success levels of a total (004-A3): R in (kD, (k+1)D] gives k (1 Moderate, 2 Complete, 3 or more
/// Superior); 0 for R ≤ D. Uncapped.
pub fn success_levels(r: i64, opposition: Difficulty) -> u64 {
    let (r, d) = (i128::from(r), i128::from(opposition.value()));
    if r <= d {
        return 0;
    }
    // ⌈R/D⌉ − 1 = ⌊(R − 1)/D⌋ for integers.
    u64::try_from((r - 1).div_euclid(d)).unwrap_or(u64::MAX)
}

/// Failure levels of a total (004-A3 mirrored): 1 Moderate, 2 Complete; R < 0 is Serious with 3, and
/// each further D below 0 adds one, as each D above 3D adds a success level: R in [−(f−2)D, −(f−3)D)
/// gives f. 0 for R ≥ D.
pub fn failure_levels(r: i64, opposition: Difficulty) -> u64 {
    let level = result_level(r, opposition);
    match level {
        ResultLevel::ModerateFailure => 1,
        ResultLevel::CompleteFailure => 2,
        ResultLevel::SeriousFailure => {
            let (r, d) = (i128::from(r), i128::from(opposition.value()));
            u64::try_from(3 + (-r - 1).div_euclid(d)).unwrap_or(u64::MAX)
        }
        _ => 0,
    }
}

/// How many success levels a character may take (004-M5).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum CharacterType {
    Grunt,
    Mercari,
    #[default]
    Solo,
}

impl CharacterType {
    pub const ALL: [CharacterType; 3] = [
        CharacterType::Grunt,
        CharacterType::Mercari,
        CharacterType::Solo,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CharacterType::Grunt => "grunt",
            CharacterType::Mercari => "mercari",
            CharacterType::Solo => "solo",
        }
    }

    /// The cap on success levels k (004-M5, A3): Grunt 4, Mercari 7, Solo 10.
    pub fn max_success_levels(self) -> u64 {
        match self {
            CharacterType::Grunt => 4,
            CharacterType::Mercari => 7,
            CharacterType::Solo => 10,
        }
    }
}

/// What a total achieved against its opposition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TestResult {
    pub level: ResultLevel,
    /// Success levels k (004-A3), uncapped; 0 unless a success.
    pub success_levels: u64,
    /// Failure levels, mirrored; 0 unless a failure.
    pub failure_levels: u64,
    /// A Proficiency Crisis: the opposite level is taken as well (004-M7).
    pub crisis: bool,
}

impl TestResult {
    /// The result of total `r` against `opposition`, with or without a crisis.
    pub fn new(r: i64, opposition: Difficulty, crisis: bool) -> Self {
        TestResult {
            level: result_level(r, opposition),
            success_levels: success_levels(r, opposition),
            failure_levels: failure_levels(r, opposition),
            crisis,
        }
    }

    /// Success levels a character of `character` type may take: k capped by its type.
    pub fn capped_success_levels(&self, character: CharacterType) -> u64 {
        self.success_levels.min(character.max_success_levels())
    }

    /// Extra Success Level effects a character of `character` type may buy: each capped level above
    /// Complete (004-M5, A3).
    pub fn extra_success_levels(&self, character: CharacterType) -> u64 {
        self.capped_success_levels(character).saturating_sub(2)
    }

    /// Extra failure level effects: each failure level beyond Complete Failure, for any character type.
    pub fn extra_failure_levels(&self) -> u64 {
        self.failure_levels.saturating_sub(2)
    }

    /// The equivalent opposite level a crisis adds, with as many levels as the level rolled (004-M7);
    /// `None` without a crisis or on Borderline.
    pub fn crisis_opposite(&self) -> Option<(ResultLevel, u64)> {
        if !self.crisis || self.level == ResultLevel::Borderline {
            return None;
        }
        let levels = self.success_levels.max(self.failure_levels);
        Some((self.level.opposite(), levels))
    }
}

// ---------------------------------------------------------------------------------------------------
// Level effects and their failure inversions (004-M5, M6), and paying losses (004-M8).

/// One kind of Extra Success Level effect, by character tier, with its failure inversion (004-M5,
/// M6). Effects are the players' and the Ref's choice, so they are data, not dice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LevelEffect {
    /// The kind of effect: "Gain…", "Cause/Negate…", "Pull and Play…", "Dramatic".
    pub kind: &'static str,
    /// What a success level buys for Grunts, Mercari and Solos (all three), for Mercari and Solos,
    /// and for Solos only; `None` where the seed leaves the tier empty.
    pub success: [Option<&'static str>; 3],
    /// What a failure level does instead: the same effect inverted, for any character type.
    pub failure: &'static str,
}

impl LevelEffect {
    /// The success effects a character of `character` type may take (004-M5): Grunts only the first
    /// tier (no Terror, no Chi), Mercari two, Solos all three.
    pub fn success_effects(&self, character: CharacterType) -> Vec<&'static str> {
        let tiers = match character {
            CharacterType::Grunt => 1,
            CharacterType::Mercari => 2,
            CharacterType::Solo => 3,
        };
        self.success.iter().take(tiers).flatten().copied().collect()
    }
}

/// The seed's table of Extra Success Level effects and the Failure Inversion of each (004-M5, M6).
pub const LEVEL_EFFECTS: [LevelEffect; 4] = [
    LevelEffect {
        kind: "Gain…",
        success: [Some("Sway (Yin or Yang)"), Some("Chi"), Some("Yarn")],
        failure: "Lose Sway/Chi/Yarn",
    },
    LevelEffect {
        kind: "Cause/Negate…",
        success: [Some("“Fear”"), Some("“Terror”"), Some("“Horror”")],
        failure: "Suffer Fear/Terror/Horror",
    },
    LevelEffect {
        kind: "Pull and Play…",
        success: [
            Some("An Ordeal card"),
            Some("A Wyrd Tarot card"),
            Some("A Yarn event card"),
        ],
        failure: "Opponent / Ref pulls and plays…",
    },
    LevelEffect {
        kind: "Dramatic",
        success: [Some("Set Tone"), None, None],
        failure: "The Tone is set to the opposite type to the action of the character",
    },
];

/// The opponent's success levels in an opposed test (004-M6, A7): their total against yours playing
/// the difficulty. A total of yours below 1 plays difficulty 1, the least the table orders levels by.
pub fn opponent_success_levels(your_total: i64, opponent_total: i64) -> u64 {
    success_levels(opponent_total, Difficulty(your_total.max(1)))
}

/// The failure levels a character actually suffers (004-M6): against a set difficulty (`None`) all
/// of them; against an opponent the opponent's success levels act instead, so only the failure levels
/// beyond them count.
pub fn suffered_failure_levels(failure_levels: u64, opponent_success_levels: Option<u64>) -> u64 {
    match opponent_success_levels {
        None => failure_levels,
        Some(theirs) => failure_levels.saturating_sub(theirs),
    }
}

/// Another way to pay a loss of Sway, Chi or Yarn, at the Ref's choice (004-M8); its size should
/// reflect the Sway it stands for.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum LossPayment {
    /// Proficiencies lost.
    LostProficiencies,
    /// Descendants lost.
    LostDescendants,
    /// Handicaps increased, decreased, gained or lost.
    ChangedHandicaps,
    /// An Annex lost.
    LostAnnex,
}

impl LossPayment {
    pub const ALL: [LossPayment; 4] = [
        LossPayment::LostProficiencies,
        LossPayment::LostDescendants,
        LossPayment::ChangedHandicaps,
        LossPayment::LostAnnex,
    ];

    /// The value as JSON and listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            LossPayment::LostProficiencies => "lost-proficiencies",
            LossPayment::LostDescendants => "lost-descendants",
            LossPayment::ChangedHandicaps => "changed-handicaps",
            LossPayment::LostAnnex => "lost-annex",
        }
    }

    /// What it means, in the seed's words.
    pub fn description(self) -> &'static str {
        match self {
            LossPayment::LostProficiencies => "lose Proficiencies",
            LossPayment::LostDescendants => "lose Descendants",
            LossPayment::ChangedHandicaps => "increase (or decrease / gain or lose) Handicaps",
            LossPayment::LostAnnex => "lose an Annex",
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// The roll (004-M3, M7).

/// One test as rolled: every die by group, in rolling order (Boon, Descendant, Proficiency, bought).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestRoll {
    pub boon: Option<i64>,
    pub descendant: Option<i64>,
    pub proficiency: Vec<i64>,
    pub bought: Vec<i64>,
    /// The dice's sum plus the modifier.
    pub total: i64,
    pub result: TestResult,
}

impl TestRoll {
    /// Every die, in rolling order.
    pub fn dice(&self) -> Vec<i64> {
        self.boon
            .into_iter()
            .chain(self.descendant)
            .chain(self.proficiency.iter().copied())
            .chain(self.bought.iter().copied())
            .collect()
    }
}

/// Rolls a test of `dice` against `opposition` with dice from `source`: Boon, Descendant, the
/// Proficiency d8s, then the bought dice in order.
///
/// # Errors
/// The source's errors (a [`omen_core::ScriptedDice`] that runs out or shows an impossible face) and
/// [`CoreError::Overflow`], as [`T13Error::Core`].
pub fn test(
    dice: &TestDice,
    opposition: Difficulty,
    options: &T13Options,
    source: &mut dyn DieSource,
) -> Result<TestRoll, T13Error> {
    let mut roll = |sides: i64| source.roll(&Die::Standard(sides.unsigned_abs()));
    let spec = dice.spec();
    let boon = spec.boon.map(&mut roll).transpose()?;
    let descendant = spec.descendant.map(&mut roll).transpose()?;
    let proficiency = (0..spec.proficiency)
        .map(|_| roll(PROFICIENCY_SIDES))
        .collect::<Result<Vec<_>, _>>()?;
    let bought = spec
        .bought
        .iter()
        .map(|b| roll(b.sides))
        .collect::<Result<Vec<_>, _>>()?;
    let total = boon
        .into_iter()
        .chain(descendant)
        .chain(proficiency.iter().copied())
        .chain(bought.iter().copied())
        .try_fold(spec.modifier, i64::checked_add)
        .ok_or(CoreError::Overflow)?;
    let crisis = options.crisis_trigger.triggered(&proficiency);
    Ok(TestRoll {
        boon,
        descendant,
        proficiency,
        bought,
        total,
        result: TestResult::new(total, opposition, crisis),
    })
}
