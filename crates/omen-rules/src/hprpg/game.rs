//! Seed 003's characters as a stateful game (003-S1, S2, S3 and the mechanics that change them):
//! checks, castings with catch-casting kept in the state, resisting, FORTITUDE, health, RAGE,
//! sustained spells, feats with daily uses. Each action is a pure function: state in, dice from the
//! source, new state out; on an error nothing changes.
//!
//! The sheet that makes a character ([`HprpgSheet`]) is either the player's creation choices
//! (`{"create": {…}}`, checked by [`super::character::create`]) or a finished sheet (`{"sheet": {…}}`,
//! e.g. an advanced character copied from paper, checked by [`super::character::validate`]).
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use serde_json::json;
//!
//! let hprpg = omen_rules::stateful::game("hprpg").expect("hprpg keeps state");
//! let aspects = json!({"FITNESS": 1, "CHARM": 1, "INTELLIGENCE": 3, "PRECISION": 1, "DECEPTION": 1,
//!     "WILLPOWER": 3, "VITALITY": 1, "INSIGHT": 1, "PERCEPTION": 1});
//! let state = hprpg.new_character(&json!({"sheet": {
//!     "aspects": aspects, "affinities": {"ELEMENTAL": 3},
//!     "fortitude": {"current": 2, "max": 2}, "health": {"current": 5, "max": 5}}}))?;
//! // Jane's fire bolt (003-M22): TRIA with Affinity 3 is DV 8; 7 dice; net 3 pays 2 for RANGED and
//! // 1 for OVERPOWER: POWER 4.
//! let cast = json!({"action": "cast", "discipline": "ELEMENTAL", "level": 3, "aspect": "WILLPOWER",
//!     "bonus_dice": 1, "delivery": "ranged", "optional": {"overpower": 1}});
//! let dice = vec![1, 4, 5, 8, 8, 9, 11];
//! let applied = hprpg.apply(&state, &cast, &mut ScriptedDice::new(dice), &Limits::default())?;
//! assert_eq!(applied.result["net"], 3);
//! assert_eq!(applied.result["spell"]["power"], 4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use omen_core::{DieSource, Distribution, Limits};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use thiserror::Error;

use super::character::{
    self, Aspect, CharacterSheet, DEFAULT_ADVANCEMENT_CAP, Discipline, Feat, NameError,
    SustainedSpell,
};
use super::resources::{
    self, CheckAdjustment, FortitudeSpend, ResourceError, TwoRolls, apply_feats, feat_data,
    keep_better_distribution, use_feat,
};
pub use super::sheet::HprpgSheet;
use super::state_version;
use super::summary::SheetSummary;
use super::zero_dots::{self, StoredRoll, ZeroDots};
use super::{
    CastSpell, CastingOutcome, CatchCastOutcome, CatchCasting, Check, CheckRoll, Delivery,
    DifficultyAboveTwelve, HprpgError, HprpgOptions, IntractabilityFloor, OptionalSuccesses,
    casting_difficulty, casting_pool, given_difficulty, level_fortitude, optional_cap, pool_size,
    resist_difficulty, resist_nullifies, resisted_power, spend_optional,
};
use crate::vocabulary::stateful::{self, ActionError, ActionInfo, Problems, Stateful};

/// Why an action of the game was refused; nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum HprpgGameError {
    #[error("a check needs an aspect, an ability or an affinity; name at least one")]
    NothingToRoll,
    #[error(
        "a check uses an ability or an affinity, not both; drop one of `{ability}` and {affinity}"
    )]
    AbilityAndAffinity {
        ability: String,
        affinity: Discipline,
    },
    #[error(
        "{0} is a KNOWLEDGE ability with 0 dots, so the check is impossible (003-M6); set \
         aspect_only_knowledge if the GM allows an aspect-only roll"
    )]
    KnowledgeWithoutDots(String),
    #[error("a casting is waiting for its catch-cast; catch-cast or abandon-casting first")]
    CastingPending,
    #[error(
        "a reduction keeps the spell's kind (003-M17): the casting was delivered by {was}, not \
         {asked}; reduce its {was} targets or area instead"
    )]
    ReduceOtherDelivery { was: String, asked: String },
    #[error(
        "the waiting casting was left by an older version and does not record its delivery; name \
         it: delivery wandtip, ranged or mass"
    )]
    ReduceUnknownDelivery,
    #[error(
        "the waiting casting requires {required} successes, which a {delivery} delivery cannot \
         (RANGED costs 2 per target, MASS at least 4); name the casting's own delivery"
    )]
    ReduceUnfitDelivery { delivery: String, required: u64 },
    #[error(
        "a reduction must require fewer successes than the casting's {current}, not {asked}; \
         keep fewer targets or a smaller area"
    )]
    NotAReduction { current: u64, asked: u64 },
    #[error(
        "a SELF casting has nothing to reduce, and a reduction cannot turn a spell into SELF \
         (003-M17); name WANDTIP, RANGED or MASS"
    )]
    ReduceToSelf,
    #[error("a reduction keeps at least 1 target; to give the spell up, abandon-casting")]
    ReduceToNoTargets,
    #[error(
        "{feat} has numbers, so it is used through the action it changes ({how}), not use-feat"
    )]
    FeatWithNumbers { feat: Feat, how: &'static str },
    #[error("no casting is waiting for a catch-cast; cast a spell first")]
    NoCasting,
    #[error(
        "UNWAVERING FOCUS rerolls the last check's dice, and there is none; roll a check first"
    )]
    NoLastCheck,
    #[error("the last check was already rerolled; roll a new check first")]
    AlreadyRerolled,
    #[error("the last check has no catastrophe dice to reroll")]
    NothingToReroll,
    #[error("a spell called `{0}` is already sustained; give the new one another name")]
    AlreadySustained(String),
    #[error("no sustained spell called `{name}`; the sustained spells are: {active}")]
    NotSustained { name: String, active: String },
    #[error("a sustained spell needs a name; name it so it can be ended later")]
    UnnamedSpell,
    #[error(
        "a MASS delivery requires at least 4 successes (003-M17), not {0}; ask for 4 or more, or \
         deliver by WANDTIP or RANGED"
    )]
    MassBelowFour(u32),
    #[error(
        "{effect} of {count} asked for, above its cap of {cap} for a level-{level} spell (2 × level, 1 \
         for NIHIL); ask for at most {cap}"
    )]
    OptionalCap {
        effect: &'static str,
        count: u64,
        cap: u64,
        level: u32,
    },
    /// Every problem of an action, listed at once.
    #[error("{0}")]
    Several(Problems),
    #[error(transparent)]
    Name(#[from] NameError),
    #[error(transparent)]
    Resource(#[from] ResourceError),
    #[error(transparent)]
    Rules(#[from] HprpgError),
}

fn fail(error: impl Into<HprpgGameError>) -> ActionError {
    match error.into() {
        HprpgGameError::Rules(HprpgError::Core(core))
        | HprpgGameError::Resource(ResourceError::Rules(HprpgError::Core(core))) => {
            ActionError::Dice(core)
        }
        HprpgGameError::Several(problems) => ActionError::Invalid(problems),
        other => ActionError::rules(other),
    }
}

// ---------------------------------------------------------------------------------------------------
// State.

fn default_cap() -> u32 {
    DEFAULT_ADVANCEMENT_CAP
}

/// The parameters of a rolled check, kept so a later action can roll it again (a catch-cast,
/// UNWAVERING FOCUS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    pub dice: u64,
    /// The effective DV (already clamped).
    pub difficulty: i64,
    pub catastrophe_range: i64,
    #[serde(default)]
    pub intractability: u64,
    #[serde(default)]
    pub automatic_successes: u64,
    #[serde(default)]
    pub intractability_floor: IntractabilityFloor,
}

impl CheckSpec {
    fn of(check: &Check) -> CheckSpec {
        CheckSpec {
            dice: check.dice as u64,
            difficulty: check.difficulty,
            catastrophe_range: check.catastrophe_range,
            intractability: check.intractability,
            automatic_successes: check.automatic_successes,
            intractability_floor: check.floor,
        }
    }

    /// The check again.
    ///
    /// # Errors
    /// As [`Check::new`].
    pub fn check(&self, limits: &Limits) -> Result<Check, HprpgError> {
        let options = HprpgOptions {
            difficulty_above_twelve: DifficultyAboveTwelve::Clamp,
            intractability_floor: self.intractability_floor,
        };
        let intractability = i64::try_from(self.intractability).unwrap_or(i64::MAX);
        Ok(Check::new(
            self.dice,
            self.difficulty,
            self.catastrophe_range,
            intractability,
            &options,
            limits,
        )?
        .with_automatic_successes(self.automatic_successes))
    }
}

/// A casting cast but short of its requirement, waiting for catch-casts (003-S2, M19).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PendingCasting {
    pub discipline: Discipline,
    pub level: u32,
    /// The original casting check: each catch-cast rolls it with 1 die fewer per catch-cast.
    pub casting: CheckSpec,
    pub progress: CatchCasting,
    /// How the optional successes are to be spent when the spell takes effect.
    #[serde(default)]
    pub optional: OptionalSuccesses,
    /// Extra damage from feats (NYMPH'S FURY, SAVAGE ATTACKER).
    #[serde(default)]
    pub extra_damage: u32,
    /// The name to sustain the spell under when it takes effect.
    #[serde(default)]
    pub sustain: Option<String>,
    /// How the spell is delivered (003-M17), which a reduction of targets or area must keep. Recorded
    /// by the cast since state version 2; a casting left waiting by version 1 has it only once a
    /// reduction named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<DeliveryKind>,
}

/// The last check rolled, for UNWAVERING FOCUS (003-M25).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LastCheck {
    pub check: CheckSpec,
    /// Every die of the kept roll.
    pub dice: Vec<i64>,
    #[serde(default)]
    pub rerolled: bool,
}

/// What the game remembers about a character: the sheet (003-S1, S3), a casting waiting for its
/// catch-cast (003-S2), the last check (for UNWAVERING FOCUS) and the advancement cap (003-A2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HprpgState {
    pub sheet: CharacterSheet,
    #[serde(default)]
    pub casting: Option<PendingCasting>,
    #[serde(default)]
    pub last_check: Option<LastCheck>,
    #[serde(default = "default_cap")]
    pub advancement_cap: u32,
    /// The format of this state ([`super::state_version`]): written in the state because a logged
    /// action records its state but no version, and a replayed action must behave as it did then.
    /// Left out for version 1.
    #[serde(
        default = "state_version::first",
        skip_serializing_if = "state_version::is_first"
    )]
    pub version: u32,
}

impl HprpgState {
    /// This character's roll of an aspect and an ability when someone else asks for it (contests,
    /// working together, a sneak): the pool and the zero-dot rules of a plain check (003-M6).
    ///
    /// # Errors
    /// As [`zero_dots::stored_roll`].
    pub fn roll_of(&self, aspect: &str, ability: &str) -> Result<StoredRoll, String> {
        zero_dots::stored_roll(&self.sheet, aspect, ability)
    }

    /// Passive Perception's two ratings (003-M14): PERCEPTION and ALERTNESS dots.
    pub fn perception_ratings(&self) -> (u32, u32) {
        let alertness = self.sheet.ability("ALERTNESS").map_or(0, |a| a.dots);
        (self.sheet.aspect(Aspect::Perception), alertness)
    }

    /// A state around a sheet, with nothing pending.
    pub fn new(sheet: CharacterSheet) -> HprpgState {
        HprpgState {
            sheet,
            casting: None,
            last_check: None,
            advancement_cap: DEFAULT_ADVANCEMENT_CAP,
            version: state_version::CURRENT,
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// Actions.

fn one() -> i64 {
    1
}

fn one_u32() -> u32 {
    1
}

/// How a spell reaches its targets (003-M17), as JSON spells it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum DeliveryKind {
    /// SELF.
    #[default]
    #[serde(rename = "self")]
    Caster,
    Wandtip,
    Ranged,
    Mass,
}

/// What can happen to a character. JSON: `{"action": "check", "aspect": "PERCEPTION", "ability":
/// "ALERTNESS", "difficulty": 8}`; fields are snake_case, names of capabilities any case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
#[schemars(example = serde_json::json!({"action": "check", "aspect": "PERCEPTION", "ability": "ALERTNESS", "difficulty": 8}))]
#[schemars(example = serde_json::json!({"action": "cast", "discipline": "HEXES", "level": 1}))]
#[schemars(example = serde_json::json!({"action": "resist", "aspect": "FITNESS", "ability": "BRAWL", "level": 2, "power": 3}))]
pub enum HprpgAction {
    /// A check (003-M1..M9, M21, M25): aspect + ability (or affinity) dots ± dice against a DV.
    Check {
        /// The aspect, e.g. FITNESS.
        #[serde(default)]
        aspect: Option<Aspect>,
        /// A standard, archetype or custom ability.
        #[serde(default)]
        ability: Option<String>,
        /// An affinity instead of an ability, e.g. HEXES.
        #[serde(default)]
        affinity: Option<Discipline>,
        /// The difficulty value, 2 to 12 (4 very easy, 6 easy, 8 standard, 10 hard, 12 very hard).
        #[schemars(extend("x-cli-flag" = "dv"))]
        difficulty: i64,
        /// Bonus dice (situational, help).
        #[schemars(extend("x-cli-flag" = "bonus"))]
        #[serde(default)]
        bonus_dice: u32,
        /// Penalty dice.
        #[schemars(extend("x-cli-flag" = "penalty"))]
        #[serde(default)]
        penalty_dice: u32,
        /// Dice at or below this are catastrophes (3 for a Broken Wand's castings).
        #[serde(default = "one")]
        catastrophe_range: i64,
        /// Intractable difficulty: successes absorbed before catastrophes cancel the rest.
        #[serde(default)]
        intractability: i64,
        /// Automatic successes bought with FORTITUDE, 1 point each (003-A13).
        #[serde(default)]
        fortitude_successes: u32,
        /// Automatic successes a ritual grants (003-M21).
        #[serde(default)]
        ritual_successes: u32,
        /// Feats that apply (the GM decides which do).
        #[serde(default)]
        #[schemars(extend("x-cli-flag" = "feat"))]
        feats: Vec<Feat>,
        /// The GM allows an aspect-only roll for a KNOWLEDGE ability of 0 dots (003-M6).
        #[serde(default)]
        aspect_only_knowledge: bool,
        /// A rage-fuelled weapon attack (003-M24): 2 damage per net success plus the feats' extra
        /// damage (SAVAGE ATTACKER), and the check is this turn's use of RAGE.
        #[serde(default)]
        rage_attack: bool,
        #[serde(default)]
        difficulty_above_twelve: DifficultyAboveTwelve,
        #[serde(default)]
        intractability_floor: IntractabilityFloor,
    },
    /// A casting (003-M15..M19, M23): may leave a casting waiting for a catch-cast (003-S2).
    Cast {
        /// The discipline (affinity), e.g. ELEMENTAL.
        discipline: Discipline,
        /// The spell level, 0 (NIHIL) to 7 (SUMNUS).
        level: u32,
        /// The casting aspect; default the discipline's (the better rated of two).
        #[serde(default)]
        aspect: Option<Aspect>,
        #[serde(default)]
        delivery: DeliveryKind,
        /// The number of targets (more than one for a ranged or mass spell).
        #[serde(default = "one_u32")]
        targets: u32,
        /// MASS only: the successes the GM requires (at least 4).
        #[serde(default)]
        required: Option<u32>,
        /// Bonus dice (situational, help).
        #[schemars(extend("x-cli-flag" = "bonus"))]
        #[serde(default)]
        bonus_dice: u32,
        /// Penalty dice.
        #[schemars(extend("x-cli-flag" = "penalty"))]
        #[serde(default)]
        penalty_dice: u32,
        /// Dice at or below this are catastrophes (3 for a Broken Wand's castings).
        #[serde(default = "one")]
        catastrophe_range: i64,
        /// Intractable difficulty: successes absorbed before catastrophes cancel the rest.
        #[serde(default)]
        intractability: i64,
        /// How to spend the optional successes; if fewer come up, OVERPOWER is filled first, then
        /// DEFY, then EXTEND.
        #[serde(default)]
        optional: OptionalSuccesses,
        /// Automatic successes bought with FORTITUDE, 1 point each.
        #[serde(default)]
        fortitude_successes: u32,
        /// Automatic successes a ritual grants.
        #[serde(default)]
        ritual_successes: u32,
        /// A feat that applies, one per feat (the GM decides which do), e.g. AMBUSH.
        #[schemars(extend("x-cli-flag" = "feat"))]
        #[serde(default)]
        feats: Vec<Feat>,
        /// FURIOUS SPELLCASTER: RAGE dots replace the Affinity's dice (3 a day).
        #[serde(default)]
        furious: bool,
        /// Keep the spell up under this name once it takes effect (concentration, 003-M16).
        #[serde(default)]
        sustain: Option<String>,
        #[serde(default)]
        difficulty_above_twelve: DifficultyAboveTwelve,
        #[serde(default)]
        intractability_floor: IntractabilityFloor,
    },
    /// The next catch-cast of the waiting casting (003-M19, S2).
    CatchCast {
        /// At once, as an extra action for 1 FORTITUDE (else on the next turn).
        #[serde(default)]
        extra_action: bool,
        /// Replaces the optional-success allocation given with the cast.
        #[serde(default)]
        optional: Option<OptionalSuccesses>,
    },
    /// Gives up the waiting casting (a casting failure, 003-M17).
    AbandonCasting,
    /// Reduces the waiting casting's targets or area within its delivery (003-M17): the spell takes
    /// effect at once if the successes gathered meet the new requirement, else it keeps waiting.
    ReduceCasting {
        /// The casting's delivery (WANDTIP, RANGED or MASS); a reduction cannot change it. Left
        /// out, the one the waiting casting recorded when it was cast.
        #[serde(default)]
        delivery: Option<DeliveryKind>,
        /// WANDTIP and RANGED: the targets kept (at least 1).
        #[serde(default = "one_u32")]
        targets: u32,
        /// MASS only: the smaller area's requirement (at least 4).
        #[serde(default)]
        required: Option<u32>,
    },
    /// Resisting a spell (003-M20, M24): RAGE costs dice.
    Resist {
        /// The resist aspect, e.g. FITNESS.
        aspect: Aspect,
        /// The resist ability (e.g. a custom DODGE or BLOCK).
        ability: String,
        /// The incoming spell's level.
        level: u32,
        /// The incoming spell's DEFY.
        #[serde(default)]
        defy: u64,
        /// The incoming spell's POWER.
        power: u64,
        /// Bonus dice (situational, help).
        #[schemars(extend("x-cli-flag" = "bonus"))]
        #[serde(default)]
        bonus_dice: u32,
        /// Penalty dice.
        #[schemars(extend("x-cli-flag" = "penalty"))]
        #[serde(default)]
        penalty_dice: u32,
        /// Dice at or below this are catastrophes (3 for a Broken Wand's castings).
        #[serde(default = "one")]
        catastrophe_range: i64,
        /// Automatic successes bought with FORTITUDE, 1 point each.
        #[serde(default)]
        fortitude_successes: u32,
        /// A feat that applies, one per feat (the GM decides which do), e.g. AMBUSH.
        #[schemars(extend("x-cli-flag" = "feat"))]
        #[serde(default)]
        feats: Vec<Feat>,
        #[serde(default)]
        difficulty_above_twelve: DifficultyAboveTwelve,
        #[serde(default)]
        intractability_floor: IntractabilityFloor,
    },
    /// Spends FORTITUDE on something the GM adjudicates (003-M23), 1 point per `count`.
    SpendFortitude {
        spend: FortitudeSpend,
        /// How many times to spend it.
        #[serde(default = "one_u32")]
        count: u32,
    },
    /// Regains FORTITUDE (the personality's Nourishment, 003-M23), never above the maximum.
    RegainFortitude {
        /// FORTITUDE points regained.
        points: u32,
    },
    /// Takes levels of harm (003-A14).
    TakeHarm {
        /// Levels of harm taken.
        levels: u32,
    },
    /// Heals levels of health, never above the maximum.
    Heal {
        /// Levels of harm healed.
        levels: u32,
    },
    /// ORGANIC REPOSE: 1 FORTITUDE for 3 levels of health, once a day (003-M25).
    OrganicRepose,
    /// UNWAVERING FOCUS: 1 FORTITUDE to reroll the last check's catastrophe dice, once a day
    /// (003-M25).
    UnwaveringFocus,
    /// Starts sustaining a spell (a die of concentration on every casting, 003-M16).
    Sustain {
        /// The name the sustained spell is kept under.
        spell: String,
        /// The spell's discipline, e.g. ELEMENTAL; left out, the one it was cast with.
        #[serde(default)]
        discipline: Option<Discipline>,
        /// The spell's level, 0 to 7; left out, the one it was cast at.
        #[serde(default)]
        level: Option<u32>,
    },
    /// Stops sustaining a spell.
    EndSustain {
        /// The sustained spell's name.
        spell: String,
    },
    /// A turn using RAGE: one more die lost on Resist checks (003-M24, S3).
    RageTurn,
    /// A turn without RAGE: the penalty resets (003-M24, S3).
    CalmTurn,
    /// A new day: the daily feat uses reset (003-S1, M25).
    NewDay,
    /// Uses a feat without numbers that the GM adjudicates (MESMERISING PRESENCE, LIE DETECTOR, …),
    /// recording its daily use where it has a limit (003-S1, M25).
    UseFeat {
        /// The feat, e.g. "MESMERISING PRESENCE".
        feat: Feat,
    },
    /// SPEED's extra movement per combat round: 1 m per dot (003-M25).
    Movement,
    /// Galleons come in (ONE FOR YOU, TWO FOR ME adds one, 003-M25).
    GainGalleons {
        /// Galleons gained.
        amount: u64,
    },
}

const HPRPG_ACTIONS: &[ActionInfo] = &[
    ActionInfo {
        name: "check",
        spec_items: &[
            "003-M1", "003-M3", "003-M4", "003-M5", "003-M6", "003-M7", "003-M8", "003-M9",
            "003-M21", "003-M24", "003-M25", "003-A4", "003-A5", "003-A13", "003-A20",
        ],
        summary: "a check of aspect + ability (or affinity) dots against a DV, with feats, FORTITUDE \
                  and ritual successes; a rage attack deals 2 damage per success",
        rolls: true,
    },
    ActionInfo {
        name: "cast",
        spec_items: &[
            "003-M15", "003-M16", "003-M17", "003-M18", "003-M19", "003-M23", "003-A12", "003-A16",
        ],
        summary: "a casting: DV 8 + level − Affinity, concentration, FORTITUDE above the Affinity; a \
                  casting short of its requirement waits for a catch-cast",
        rolls: true,
    },
    ActionInfo {
        name: "catch-cast",
        spec_items: &["003-M19", "003-A15"],
        summary: "the next catch-cast of the waiting casting, 1 die fewer each time",
        rolls: true,
    },
    ActionInfo {
        name: "abandon-casting",
        spec_items: &["003-M17"],
        summary: "give up the casting waiting for a catch-cast",
        rolls: false,
    },
    ActionInfo {
        name: "reduce-casting",
        spec_items: &["003-M17", "003-M18"],
        summary: "reduce the waiting casting's targets or area (same delivery); it takes effect at \
                  once if the successes gathered now suffice",
        rolls: false,
    },
    ActionInfo {
        name: "resist",
        spec_items: &["003-M20", "003-M24", "003-A18", "003-A19"],
        summary: "resist a spell: DV 8 + level + DEFY − resist dots, −1 die per turn of RAGE; each \
                  net success lowers POWER",
        rolls: true,
    },
    ActionInfo {
        name: "spend-fortitude",
        spec_items: &["003-M23", "003-A12", "003-A13"],
        summary: "spend FORTITUDE, 1 point each",
        rolls: false,
    },
    ActionInfo {
        name: "regain-fortitude",
        spec_items: &["003-M23"],
        summary: "regain FORTITUDE (Nourishment), up to the maximum",
        rolls: false,
    },
    ActionInfo {
        name: "take-harm",
        spec_items: &["003-A14"],
        summary: "take levels of harm",
        rolls: false,
    },
    ActionInfo {
        name: "heal",
        spec_items: &["003-A14"],
        summary: "heal levels of health, up to the maximum",
        rolls: false,
    },
    ActionInfo {
        name: "organic-repose",
        spec_items: &["003-M23", "003-M25"],
        summary: "ORGANIC REPOSE: 1 FORTITUDE for 3 health, once a day",
        rolls: false,
    },
    ActionInfo {
        name: "unwavering-focus",
        spec_items: &["003-M23", "003-M25"],
        summary: "UNWAVERING FOCUS: 1 FORTITUDE to reroll the last check's catastrophe dice, once a \
                  day",
        rolls: true,
    },
    ActionInfo {
        name: "sustain",
        spec_items: &["003-M16", "003-S1"],
        summary: "start sustaining a spell (−1 die on every casting)",
        rolls: false,
    },
    ActionInfo {
        name: "end-sustain",
        spec_items: &["003-M16", "003-S1"],
        summary: "stop sustaining a spell",
        rolls: false,
    },
    ActionInfo {
        name: "rage-turn",
        spec_items: &["003-M24"],
        summary: "a turn using RAGE: −1 more die on Resist checks",
        rolls: false,
    },
    ActionInfo {
        name: "calm-turn",
        spec_items: &["003-M24"],
        summary: "a turn without RAGE: the Resist penalty resets",
        rolls: false,
    },
    ActionInfo {
        name: "new-day",
        spec_items: &["003-S1", "003-M25"],
        summary: "a new day: daily feat uses reset",
        rolls: false,
    },
    ActionInfo {
        name: "use-feat",
        spec_items: &["003-S1", "003-M25"],
        summary: "use a feat the GM adjudicates (MESMERISING PRESENCE once a day), recording its \
                  daily use",
        rolls: false,
    },
    ActionInfo {
        name: "movement",
        spec_items: &["003-M25"],
        summary: "SPEED's extra movement: 1 m per dot per combat round",
        rolls: false,
    },
    ActionInfo {
        name: "gain-galleons",
        spec_items: &["003-S1", "003-M25"],
        summary: "Galleons come in (ONE FOR YOU, TWO FOR ME adds one)",
        rolls: false,
    },
];

// ---------------------------------------------------------------------------------------------------
// Preparing the rolls: the same code for `apply` and `odds`, so the odds are those of the roll.

/// A check ready to roll, and the state once its costs are paid.
struct Prepared {
    check: Check,
    keep_better: bool,
    after: HprpgState,
    info: Value,
}

/// Collects every problem of an action before anything is rolled.
#[derive(Default)]
struct Collect(Problems);

impl Collect {
    fn keep<T, E: Into<HprpgGameError>>(&mut self, result: Result<T, E>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.0.push(error.into().to_string());
                None
            }
        }
    }

    fn finish(self) -> Result<(), HprpgGameError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(HprpgGameError::Several(self.0))
        }
    }
}

/// Checks each feat (one with a check effect, taken, a use left today), counts its use and adds up
/// the adjustments of those that pass.
/// The check a preparation ends in, once every problem met on the way has been reported: the last
/// step shared by checks and casts.
fn finish_check(
    mut collect: Collect,
    pool: u64,
    difficulty: i64,
    (catastrophe_range, intractability): (i64, i64),
    automatic: u64,
    options: &HprpgOptions,
    limits: &Limits,
) -> Result<Check, HprpgGameError> {
    let check = collect.keep(Check::new(
        pool,
        difficulty,
        catastrophe_range,
        intractability,
        options,
        limits,
    ));
    collect.finish()?;
    let check = check.ok_or(HprpgGameError::NothingToRoll)?;
    Ok(check.with_automatic_successes(automatic))
}

fn take_feats(state: &mut HprpgState, feats: &[Feat], collect: &mut Collect) -> CheckAdjustment {
    let mut usable = Vec::new();
    for &feat in feats {
        let applies = collect.keep(apply_feats(&[feat])).is_some();
        if let Some(uses) = collect.keep(use_feat(&state.sheet.feats, &state.sheet.feat_uses, feat))
        {
            state.sheet.feat_uses = uses;
            if applies {
                usable.push(feat);
            }
        }
    }
    apply_feats(&usable).unwrap_or_default()
}

fn spend_fortitude(
    state: &mut HprpgState,
    spend: FortitudeSpend,
    count: u32,
) -> Result<u32, HprpgGameError> {
    let cost = spend.cost(count);
    state.sheet.fortitude = state.sheet.fortitude.spend(cost)?;
    Ok(cost)
}

/// What joins the aspect's dots in a check's pool.
enum Second<'a> {
    Nothing,
    Ability(&'a str),
    Affinity(Discipline),
    /// A resist ability's dots: the zero-dot rules of checks do not apply to resisting (003-A18).
    Resist(u32),
}

impl<'a> Second<'a> {
    fn of(
        ability: Option<&'a str>,
        affinity: Option<Discipline>,
    ) -> Result<Second<'a>, HprpgGameError> {
        match (ability, affinity) {
            (Some(ability), Some(affinity)) => Err(HprpgGameError::AbilityAndAffinity {
                ability: ability.to_string(),
                affinity,
            }),
            (Some(ability), None) => Ok(Second::Ability(ability)),
            (None, Some(affinity)) => Ok(Second::Affinity(affinity)),
            (None, None) => Ok(Second::Nothing),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn prepare_check(
    state: &HprpgState,
    aspect: Option<Aspect>,
    second: Second<'_>,
    difficulty: i64,
    dice: (u32, u32),
    catastrophe_range: i64,
    intractability: i64,
    successes: (u32, u32),
    feats: &[Feat],
    aspect_only_knowledge: bool,
    options: &HprpgOptions,
    limits: &Limits,
) -> Result<Prepared, HprpgGameError> {
    let mut after = state.clone();
    let mut collect = Collect::default();
    let sheet = &state.sheet;
    if aspect.is_none() && matches!(second, Second::Nothing) {
        return Err(HprpgGameError::NothingToRoll);
    }
    let aspect_dots = aspect.map_or(0, |a| sheet.aspect(a));
    let mut zero_dots = ZeroDots::Ordinary;
    let second_dots = match second {
        Second::Ability(name) => match collect.keep(sheet.ability(name)) {
            Some(rating) => {
                zero_dots = ZeroDots::of(&rating, aspect_only_knowledge);
                if zero_dots == ZeroDots::Impossible {
                    collect.keep::<(), _>(Err(HprpgGameError::KnowledgeWithoutDots(
                        rating.name.clone(),
                    )));
                }
                rating.dots
            }
            None => 0,
        },
        Second::Affinity(discipline) => sheet.affinity(discipline),
        Second::Resist(dots) => dots,
        Second::Nothing => 0,
    };
    let adjustment = take_feats(&mut after, feats, &mut collect);
    let (fortitude_successes, ritual_successes) = successes;
    let fortitude = collect
        .keep(spend_fortitude(
            &mut after,
            FortitudeSpend::AutomaticSuccess,
            fortitude_successes,
        ))
        .unwrap_or(0);
    let pool = pool_size(
        aspect_dots,
        second_dots,
        dice.0.saturating_add(adjustment.bonus_dice),
        dice.1.saturating_add(adjustment.penalty_dice),
    );
    let given = adjustment.fixed_difficulty.unwrap_or(difficulty);
    let difficulty = given
        .saturating_add(adjustment.difficulty_change)
        .saturating_add(zero_dots.difficulty_change());
    let automatic = resources::granted_successes(
        fortitude_successes,
        ritual_successes,
        adjustment.automatic_successes,
    );
    let check = finish_check(
        collect,
        pool,
        difficulty,
        (catastrophe_range, intractability),
        automatic,
        options,
        limits,
    )?;
    let mut info = json!({
        "pool": pool,
        "difficulty": check.difficulty(),
        "intractability": check.intractability(),
        "automatic_successes": automatic,
        "fortitude_spent": fortitude,
        "zero_dot_rule": zero_dots.name(),
        "extra_damage": adjustment.extra_damage,
    });
    // Only with DRYAD'S EMBRACE, so that every other check's result (and a logged one replayed)
    // keeps its shape.
    if let Some(per_success) = adjustment.growth_per_success {
        info["growth_per_success"] = json!(per_success);
    }
    Ok(Prepared {
        check,
        keep_better: adjustment.keep_better_of_two,
        after,
        info,
    })
}

/// The aspect of a casting: the given one, or the discipline's default (the better rated of two,
/// the first on a tie).
fn casting_aspect(sheet: &CharacterSheet, discipline: Discipline, given: Option<Aspect>) -> Aspect {
    given.unwrap_or_else(|| {
        let defaults = discipline.default_aspects();
        let mut best = defaults[0];
        for &aspect in &defaults[1..] {
            if sheet.aspect(aspect) > sheet.aspect(best) {
                best = aspect;
            }
        }
        best
    })
}

/// The delivery asked for. A MASS requirement below the rule's 4 is refused rather than raised, so
/// a player never casts against a requirement they did not ask for.
fn delivery(
    kind: DeliveryKind,
    targets: u32,
    required: Option<u32>,
) -> Result<Delivery, HprpgGameError> {
    Ok(match kind {
        DeliveryKind::Caster => Delivery::Caster,
        DeliveryKind::Wandtip => Delivery::Wandtip { targets },
        DeliveryKind::Ranged => Delivery::Ranged { targets },
        DeliveryKind::Mass => match required.unwrap_or(4) {
            required if required < 4 => return Err(HprpgGameError::MassBelowFour(required)),
            required => Delivery::Mass { required },
        },
    })
}

fn check_allocation(level: u32, optional: OptionalSuccesses) -> Result<(), HprpgGameError> {
    super::check_level(level)?;
    let cap = optional_cap(level);
    for (effect, count) in [
        ("overpower", optional.overpower),
        ("defy", optional.defy),
        ("extend", optional.extend),
    ] {
        if count > cap {
            return Err(HprpgGameError::OptionalCap {
                effect,
                count,
                cap,
                level,
            });
        }
    }
    Ok(())
}

/// The allocation that fits `available` optional successes: OVERPOWER first, then DEFY, then EXTEND.
fn fit_allocation(requested: OptionalSuccesses, available: u64) -> OptionalSuccesses {
    let overpower = requested.overpower.min(available);
    let left = available - overpower;
    let defy = requested.defy.min(left);
    let left = left - defy;
    OptionalSuccesses {
        overpower,
        defy,
        extend: requested.extend.min(left),
    }
}

struct PreparedCast {
    check: Check,
    keep_better: bool,
    after: HprpgState,
    required: u64,
    extra_damage: u32,
    info: Value,
}

#[allow(clippy::too_many_arguments)]
fn prepare_cast(
    state: &HprpgState,
    discipline: Discipline,
    level: u32,
    aspect: Option<Aspect>,
    delivery_kind: (DeliveryKind, u32, Option<u32>),
    dice: (u32, u32),
    catastrophe_range: i64,
    intractability: i64,
    optional: OptionalSuccesses,
    successes: (u32, u32),
    feats: &[Feat],
    furious: bool,
    sustain: Option<&str>,
    options: &HprpgOptions,
    limits: &Limits,
) -> Result<PreparedCast, HprpgGameError> {
    let mut collect = Collect::default();
    if state.casting.is_some() {
        collect.keep::<(), _>(Err(HprpgGameError::CastingPending));
    }
    if let Some(name) = sustain {
        // A clashing name is refused before any dice are rolled, not after the spell is cast.
        collect.keep(add_sustained(&mut state.clone(), name, None, None));
    }
    // An impossible level makes every later figure meaningless: refuse it alone.
    let level_cost = level_fortitude(level, state.sheet.affinity(discipline))?;
    collect.keep(check_allocation(level, optional));
    let mut after = state.clone();
    let sheet = &state.sheet;
    let affinity = sheet.affinity(discipline);
    let adjustment = take_feats(&mut after, feats, &mut collect);
    let dice_from = if furious {
        if let Some(uses) = collect.keep(use_feat(
            &after.sheet.feats,
            &after.sheet.feat_uses,
            Feat::FuriousSpellcaster,
        )) {
            after.sheet.feat_uses = uses;
        }
        // A FURIOUS SPELLCASTER cast is the turn's use of RAGE by itself (003-M24, S3).
        after.sheet.rage_turns = resources::rage_turn(state.sheet.rage_turns);
        sheet.ability("RAGE").map_or(0, |rating| rating.dots)
    } else {
        affinity
    };
    let (fortitude_successes, ritual_successes) = successes;
    let fortitude = FortitudeSpend::SpellLevel
        .cost(level_cost)
        .saturating_add(FortitudeSpend::AutomaticSuccess.cost(fortitude_successes));
    if let Some(left) = collect.keep(after.sheet.fortitude.spend(fortitude)) {
        after.sheet.fortitude = left;
    }
    let aspect = casting_aspect(sheet, discipline, aspect);
    let sustained = u32::try_from(sheet.sustained_spells.len()).unwrap_or(u32::MAX);
    let pool = casting_pool(
        dice_from,
        sheet.aspect(aspect),
        dice.0.saturating_add(adjustment.bonus_dice),
        dice.1.saturating_add(adjustment.penalty_dice),
        sustained,
    );
    let difficulty = adjustment
        .fixed_difficulty
        .unwrap_or(casting_difficulty(level, affinity)?)
        .saturating_add(adjustment.difficulty_change);
    let automatic = resources::granted_successes(
        fortitude_successes,
        ritual_successes,
        adjustment.automatic_successes,
    );
    let check = finish_check(
        collect,
        pool,
        difficulty,
        (catastrophe_range, intractability),
        automatic,
        options,
        limits,
    )?;
    let required = delivery(delivery_kind.0, delivery_kind.1, delivery_kind.2)?.required();
    let info = json!({
        "aspect": aspect,
        "pool": pool,
        "difficulty": check.difficulty(),
        "concentration_penalty": sustained,
        "automatic_successes": automatic,
        "fortitude_spent": fortitude,
        "required": required,
    });
    Ok(PreparedCast {
        check,
        keep_better: adjustment.keep_better_of_two,
        after,
        required,
        extra_damage: adjustment.extra_damage,
        info,
    })
}

fn roll_prepared(
    check: &Check,
    keep_better: bool,
    source: &mut dyn DieSource,
) -> Result<(CheckRoll, Option<TwoRolls>), HprpgError> {
    if keep_better {
        let rolls = resources::roll_keep_better(check, source)?;
        Ok((rolls.kept_roll().clone(), Some(rolls)))
    } else {
        Ok((check.roll(source)?, None))
    }
}

fn nets_of(
    check: &Check,
    keep_better: bool,
    limits: &Limits,
) -> Result<Distribution<i64>, HprpgError> {
    if keep_better {
        keep_better_distribution(check, limits)
    } else {
        check.net_distribution(limits)
    }
}

fn dice_text(roll: &CheckRoll) -> String {
    roll.dice
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join("-")
}

fn counted(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

fn roll_summary(check: &Check, roll: &CheckRoll) -> String {
    format!(
        "{}d12 vs DV {}: {} → {}, {}, net {} ({})",
        check.dice(),
        check.difficulty(),
        dice_text(roll),
        counted(roll.successes, "success", "successes"),
        counted(roll.catastrophes, "catastrophe", "catastrophes"),
        roll.net,
        roll.degree
    )
}

fn merge(mut base: Value, extra: Value) -> Value {
    if let (Value::Object(base), Value::Object(extra)) = (&mut base, extra) {
        base.extend(extra);
    }
    base
}

/// Takes effect: spends the optional successes and keeps the spell up if asked to.
fn take_effect(
    after: &mut HprpgState,
    discipline: Discipline,
    level: u32,
    optional: u64,
    requested: OptionalSuccesses,
    extra_damage: u32,
    sustain: Option<&str>,
) -> Result<(CastSpell, u64), HprpgGameError> {
    let spell = spend_optional(level, optional, fit_allocation(requested, optional))?;
    if let Some(name) = sustain {
        add_sustained(after, name, Some(discipline), Some(level))?;
    }
    Ok((spell, spell.power + u64::from(extra_damage)))
}

fn add_sustained(
    after: &mut HprpgState,
    name: &str,
    discipline: Option<Discipline>,
    level: Option<u32>,
) -> Result<(), HprpgGameError> {
    if name.trim().is_empty() {
        return Err(HprpgGameError::UnnamedSpell);
    }
    if after.sheet.sustained_spells.iter().any(|s| s.name == name) {
        return Err(HprpgGameError::AlreadySustained(name.to_string()));
    }
    if let Some(level) = level {
        level_fortitude(level, 0)?;
    }
    after.sheet.sustained_spells.push(SustainedSpell {
        name: name.to_string(),
        discipline,
        level,
    });
    Ok(())
}

fn outcome_name(outcome: &CastingOutcome) -> &'static str {
    match outcome {
        CastingOutcome::Catastrophe => "catastrophe",
        CastingOutcome::Failure => "failure",
        CastingOutcome::Short { .. } => "short",
        CastingOutcome::Cast { .. } => "cast",
    }
}

/// What a casting's net comes to, for the odds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
enum CastingResult {
    Catastrophe,
    Failure,
    Short,
    Cast,
}

fn casting_result(net: i64, required: u64) -> CastingResult {
    match CastingOutcome::of(net, required) {
        CastingOutcome::Catastrophe => CastingResult::Catastrophe,
        CastingOutcome::Failure => CastingResult::Failure,
        CastingOutcome::Short { .. } => CastingResult::Short,
        CastingOutcome::Cast { .. } => CastingResult::Cast,
    }
}

fn apply_action(
    state: &HprpgState,
    action: &HprpgAction,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<(Value, HprpgState, String), HprpgGameError> {
    match action {
        HprpgAction::Check { rage_attack, .. } => {
            let Prepared {
                check,
                keep_better,
                mut after,
                info,
            } = prepare_check_action(state, action, limits)?;
            let extra_damage = info["extra_damage"].as_u64().unwrap_or(0);
            let (roll, rolls) = roll_prepared(&check, keep_better, source)?;
            after.last_check = Some(LastCheck {
                check: CheckSpec::of(&check),
                dice: roll.dice.clone(),
                rerolled: false,
            });
            let mut summary = roll_summary(&check, &roll);
            let rage_damage = rage_attack.then(|| {
                // The attack is the turn's use of RAGE by itself (003-M24, S3).
                after.sheet.rage_turns = resources::rage_turn(state.sheet.rage_turns);
                if roll.net >= 1 {
                    resources::rage_damage(roll.net).saturating_add(extra_damage)
                } else {
                    0
                }
            });
            if let Some(damage) = rage_damage {
                summary.push_str(&format!(
                    "; RAGE attack: {damage} damage, RAGE used {} turn(s) running",
                    after.sheet.rage_turns
                ));
            }
            // DRYAD'S EMBRACE: the plant grows by the net successes (003-M25); a failed check
            // grows nothing.
            let growth = info["growth_per_success"]
                .as_u64()
                .map(|per| per.saturating_mul(u64::try_from(roll.net.max(0)).unwrap_or(0)));
            if let Some(centimetres) = growth {
                summary.push_str(&format!("; DRYAD'S EMBRACE: {centimetres} cm of growth"));
            }
            let automatic = automatic_success_note(&check);
            if let Some(note) = &automatic {
                summary.push_str(&format!("; {note}"));
            }
            if let HprpgAction::Check { feats, .. } = action {
                append_archetype_warnings(&mut summary, state, feats);
            }
            let mut result = merge(
                info,
                json!({
                    "roll": roll,
                    "rolls": rolls,
                    "net": roll.net,
                    "degree": roll.degree,
                    "automatic_success": automatic,
                    "rage_damage": rage_damage,
                    "rage_turns": after.sheet.rage_turns,
                }),
            );
            if let Some(centimetres) = growth {
                result["growth_centimetres"] = json!(centimetres);
            }
            Ok((result, after, summary))
        }
        HprpgAction::Cast {
            discipline,
            level,
            delivery: kind,
            optional,
            sustain,
            ..
        } => {
            let PreparedCast {
                check,
                keep_better,
                mut after,
                required,
                extra_damage,
                info,
            } = prepare_cast_action(state, action, limits)?;
            let (roll, rolls) = roll_prepared(&check, keep_better, source)?;
            after.last_check = None;
            let outcome = CastingOutcome::of(roll.net, required);
            let mut result = merge(
                info,
                json!({
                    "roll": roll,
                    "rolls": rolls,
                    "net": roll.net,
                    "outcome": outcome_name(&outcome),
                }),
            );
            let tail = match outcome {
                CastingOutcome::Cast {
                    optional: available,
                } => {
                    let (spell, damage) = take_effect(
                        &mut after,
                        *discipline,
                        *level,
                        available,
                        *optional,
                        extra_damage,
                        sustain.as_deref(),
                    )?;
                    result["spell"] = json!(spell);
                    result["damage"] = json!(damage);
                    format!("cast with POWER {}", spell.power)
                }
                CastingOutcome::Short { net, required } => {
                    let progress = CatchCasting::after(roll.net, required)?;
                    after.casting = Some(PendingCasting {
                        discipline: *discipline,
                        level: *level,
                        casting: CheckSpec::of(&check),
                        progress,
                        optional: *optional,
                        extra_damage,
                        sustain: sustain.clone(),
                        // A state of version 1 did not record it, and its replayed log must not.
                        delivery: (state.version >= state_version::RECORDS_DELIVERY)
                            .then_some(*kind),
                    });
                    result["catch_casting"] = json!(progress);
                    format!("short ({net} of {required}): catch-cast or abandon")
                }
                CastingOutcome::Failure => "the casting fails".to_string(),
                CastingOutcome::Catastrophe => "the casting fails catastrophically".to_string(),
            };
            let mut summary = format!(
                "{} {}: {}; {tail}",
                discipline,
                super::SPELL_LEVELS
                    .get(*level as usize)
                    .copied()
                    .unwrap_or("?"),
                roll_summary(&check, &roll)
            );
            if let HprpgAction::Cast { feats, furious, .. } = action {
                let mut used = feats.clone();
                if *furious {
                    used.push(Feat::FuriousSpellcaster);
                }
                append_archetype_warnings(&mut summary, state, &used);
            }
            Ok((result, after, summary))
        }
        HprpgAction::CatchCast {
            extra_action,
            optional,
        } => {
            let pending = state.casting.clone().ok_or(HprpgGameError::NoCasting)?;
            let requested = optional.unwrap_or(pending.optional);
            check_allocation(pending.level, requested)?;
            let mut after = state.clone();
            let fortitude = if *extra_action {
                spend_fortitude(&mut after, FortitudeSpend::ExtraAction, 1)?
            } else {
                0
            };
            let casting = pending.casting.check(limits)?;
            let caught = pending.progress.catch_cast(&casting, source)?;
            after.last_check = None;
            let mut result = json!({
                "dice": catch_cast_check(&casting, &pending.progress).dice(),
                "fortitude_spent": fortitude,
                "roll": caught.roll,
                "net": caught.roll.net,
            });
            let tail = match caught.outcome {
                CatchCastOutcome::Failed { catastrophe } => {
                    after.casting = None;
                    result["outcome"] = json!(if catastrophe {
                        "catastrophe"
                    } else {
                        "failure"
                    });
                    "the casting fails".to_string()
                }
                CatchCastOutcome::Continue(next) => {
                    if let Some(casting) = after.casting.as_mut() {
                        casting.progress = next;
                        casting.optional = requested;
                    }
                    result["outcome"] = json!("short");
                    result["catch_casting"] = json!(next);
                    format!("still short ({} of {})", next.accumulated, next.required)
                }
                CatchCastOutcome::Cast {
                    optional: available,
                } => {
                    after.casting = None;
                    let (spell, damage) = take_effect(
                        &mut after,
                        pending.discipline,
                        pending.level,
                        available,
                        requested,
                        pending.extra_damage,
                        pending.sustain.as_deref(),
                    )?;
                    result["outcome"] = json!("cast");
                    result["spell"] = json!(spell);
                    result["damage"] = json!(damage);
                    format!("cast with POWER {}", spell.power)
                }
            };
            let summary = format!(
                "catch-cast {}: {} → net {}; {tail}",
                pending.progress.catch_casts + 1,
                dice_text(&caught.roll),
                caught.roll.net
            );
            Ok((result, after, summary))
        }
        HprpgAction::ReduceCasting {
            delivery: kind,
            targets,
            required,
        } => reduce_casting(state, *kind, *targets, *required),
        HprpgAction::AbandonCasting => {
            if state.casting.is_none() {
                return Err(HprpgGameError::NoCasting);
            }
            let mut after = state.clone();
            after.casting = None;
            Ok((
                json!({ "abandoned": true }),
                after,
                "the casting is abandoned".to_string(),
            ))
        }
        HprpgAction::Resist { power, .. } => {
            let (prepared, penalty) = prepare_resist_action(state, action, limits)?;
            let Prepared {
                check,
                keep_better,
                mut after,
                info,
            } = prepared;
            let (roll, rolls) = roll_prepared(&check, keep_better, source)?;
            after.last_check = None;
            let left = resisted_power(*power, roll.net);
            let nullified = resist_nullifies(*power, roll.net);
            let summary = format!(
                "resist: {}; POWER {power} → {left}{}",
                roll_summary(&check, &roll),
                if nullified { ": nullified" } else { "" }
            );
            let result = merge(
                info,
                json!({
                    "rage_penalty": penalty,
                    "roll": roll,
                    "rolls": rolls,
                    "net": roll.net,
                    "degree": roll.degree,
                    "power": left,
                    "nullified": nullified,
                }),
            );
            Ok((result, after, summary))
        }
        HprpgAction::SpendFortitude { spend, count } => {
            let mut after = state.clone();
            let cost = spend_fortitude(&mut after, *spend, *count)?;
            Ok((
                json!({ "spent": cost, "fortitude": after.sheet.fortitude }),
                after.clone(),
                format!(
                    "spent {cost} FORTITUDE ({} left)",
                    after.sheet.fortitude.current
                ),
            ))
        }
        HprpgAction::RegainFortitude { points } => {
            let mut after = state.clone();
            after.sheet.fortitude = state.sheet.fortitude.regain(*points);
            let gained = after.sheet.fortitude.current - state.sheet.fortitude.current;
            let nourishment = state
                .sheet
                .personality
                .map(|personality| personality.data().nourishment);
            Ok((
                json!({ "regained": gained, "fortitude": after.sheet.fortitude,
                        "nourishment": nourishment }),
                after.clone(),
                format!(
                    "regained {gained} FORTITUDE ({} of {})",
                    after.sheet.fortitude.current, after.sheet.fortitude.max
                ),
            ))
        }
        HprpgAction::TakeHarm { levels } => {
            let mut after = state.clone();
            let (health, unabsorbed) = state.sheet.health.lose(*levels);
            after.sheet.health = health;
            Ok((
                json!({ "health": health, "unabsorbed": unabsorbed, "down": health.current == 0 }),
                after,
                format!(
                    "took {levels} harm: health {} of {}",
                    health.current, health.max
                ),
            ))
        }
        HprpgAction::Heal { levels } => {
            let mut after = state.clone();
            after.sheet.health = state.sheet.health.regain(*levels);
            Ok((
                json!({ "health": after.sheet.health }),
                after.clone(),
                format!(
                    "healed: health {} of {}",
                    after.sheet.health.current, after.sheet.health.max
                ),
            ))
        }
        HprpgAction::OrganicRepose => {
            let mut after = state.clone();
            after.sheet.feat_uses = use_feat(
                &state.sheet.feats,
                &state.sheet.feat_uses,
                Feat::OrganicRepose,
            )?;
            let data = feat_data(Feat::OrganicRepose);
            spend_fortitude(&mut after, FortitudeSpend::OrganicRepose, 1)?;
            let health = match data.effect {
                resources::FeatEffect::Heal { health } => health,
                _ => 0,
            };
            after.sheet.health = after.sheet.health.regain(health);
            Ok((
                json!({ "health": after.sheet.health, "fortitude": after.sheet.fortitude }),
                after.clone(),
                format!(
                    "ORGANIC REPOSE: health {} of {}",
                    after.sheet.health.current, after.sheet.health.max
                ),
            ))
        }
        HprpgAction::UnwaveringFocus => {
            let (last, check) = focus_target(state, limits)?;
            let mut after = state.clone();
            after.sheet.feat_uses = use_feat(
                &state.sheet.feats,
                &state.sheet.feat_uses,
                Feat::UnwaveringFocus,
            )?;
            spend_fortitude(&mut after, FortitudeSpend::UnwaveringFocus, 1)?;
            let before = check.score_dice(&last.dice);
            let roll = resources::reroll_catastrophes(&check, &before, source)?;
            after.last_check = Some(LastCheck {
                check: last.check,
                dice: roll.dice.clone(),
                rerolled: true,
            });
            let summary = format!(
                "UNWAVERING FOCUS: {} → {}",
                dice_text(&before),
                roll_summary(&check, &roll)
            );
            Ok((
                json!({ "before": before, "roll": roll, "net": roll.net, "degree": roll.degree }),
                after,
                summary,
            ))
        }
        HprpgAction::Sustain {
            spell,
            discipline,
            level,
        } => {
            let mut after = state.clone();
            add_sustained(&mut after, spell, *discipline, *level)?;
            let count = after.sheet.sustained_spells.len();
            Ok((
                json!({ "sustained": count }),
                after,
                format!("sustaining {spell}: −{count} dice on every casting"),
            ))
        }
        HprpgAction::EndSustain { spell } => {
            let mut after = state.clone();
            after.sheet.sustained_spells.retain(|s| &s.name != spell);
            if after.sheet.sustained_spells.len() == state.sheet.sustained_spells.len() {
                let active = state
                    .sheet
                    .sustained_spells
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>();
                return Err(HprpgGameError::NotSustained {
                    name: spell.clone(),
                    active: if active.is_empty() {
                        "none".to_string()
                    } else {
                        active.join(", ")
                    },
                });
            }
            let count = after.sheet.sustained_spells.len();
            Ok((
                json!({ "sustained": count }),
                after,
                format!("{spell} ends: {count} spell(s) still sustained"),
            ))
        }
        HprpgAction::RageTurn => {
            let mut after = state.clone();
            after.sheet.rage_turns = resources::rage_turn(state.sheet.rage_turns);
            let penalty = resources::rage_resist_penalty(after.sheet.rage_turns);
            Ok((
                json!({ "rage_turns": after.sheet.rage_turns, "resist_penalty": penalty }),
                after,
                format!("RAGE: −{penalty} dice on Resist checks"),
            ))
        }
        HprpgAction::CalmTurn => {
            let mut after = state.clone();
            after.sheet.rage_turns = resources::calm_turn(state.sheet.rage_turns);
            Ok((
                json!({ "rage_turns": 0, "resist_penalty": 0 }),
                after,
                "a turn without RAGE: no Resist penalty".to_string(),
            ))
        }
        HprpgAction::NewDay => {
            let mut after = state.clone();
            after.sheet.feat_uses.clear();
            Ok((
                json!({ "feat_uses": {} }),
                after,
                "a new day: daily feats are available again".to_string(),
            ))
        }
        HprpgAction::UseFeat { feat } => {
            let data = feat_data(*feat);
            if data.effect != resources::FeatEffect::Narrative {
                let how = match data.effect {
                    resources::FeatEffect::Heal { .. } => "organic-repose",
                    resources::FeatEffect::RerollCatastrophes => "unwavering-focus",
                    resources::FeatEffect::ExtraGalleons { .. } => "gain-galleons",
                    resources::FeatEffect::RageForAffinity => "cast with furious",
                    _ => "a check or cast naming it among its feats",
                };
                return Err(HprpgGameError::FeatWithNumbers { feat: *feat, how });
            }
            let mut after = state.clone();
            after.sheet.feat_uses = use_feat(&state.sheet.feats, &state.sheet.feat_uses, *feat)?;
            let used = after.sheet.feat_uses.get(feat).copied();
            let mut summary = match (used, data.per_day) {
                (Some(used), Some(per_day)) => {
                    format!("{feat}: used {used} of {per_day} today ({})", data.when)
                }
                _ => format!("{feat}: used ({})", data.when),
            };
            append_archetype_warnings(&mut summary, state, std::slice::from_ref(feat));
            Ok((
                json!({ "feat": feat, "uses_today": used, "per_day": data.per_day }),
                after,
                summary,
            ))
        }
        HprpgAction::Movement => {
            let dots = state.sheet.ability("SPEED").map_or(0, |rating| rating.dots);
            let metres = resources::speed_movement(dots);
            Ok((
                json!({ "speed": dots, "extra_metres_per_round": metres }),
                state.clone(),
                format!("SPEED {dots}: +{metres} m of movement per combat round"),
            ))
        }
        HprpgAction::GainGalleons { amount } => {
            let mut after = state.clone();
            let gained =
                resources::galleons_gained(*amount, state.sheet.has_feat(Feat::OneForYouTwoForMe));
            after.sheet.galleons = state.sheet.galleons.saturating_add(gained);
            Ok((
                json!({ "gained": gained, "galleons": after.sheet.galleons }),
                after.clone(),
                format!("gained {gained} Galleons ({} in all)", after.sheet.galleons),
            ))
        }
    }
}

fn delivery_name(kind: DeliveryKind) -> String {
    match kind {
        DeliveryKind::Caster => "SELF",
        DeliveryKind::Wandtip => "WANDTIP",
        DeliveryKind::Ranged => "RANGED",
        DeliveryKind::Mass => "MASS",
    }
    .to_string()
}

/// The waiting casting once its targets or area are reduced (003-M17), before it takes effect: the
/// new requirement, checked to be a reduction within the casting's delivery.
fn reduced_casting(
    state: &HprpgState,
    kind: Option<DeliveryKind>,
    targets: u32,
    required: Option<u32>,
) -> Result<PendingCasting, HprpgGameError> {
    let mut pending = state.casting.clone().ok_or(HprpgGameError::NoCasting)?;
    // 003-M17: the reduction keeps the casting's delivery, so the one recorded is the default.
    let kind = kind
        .or(pending.delivery)
        .ok_or(HprpgGameError::ReduceUnknownDelivery)?;
    let current = pending.progress.required;
    match (kind, pending.delivery) {
        (DeliveryKind::Caster, _) => return Err(HprpgGameError::ReduceToSelf),
        (_, Some(was)) if was != kind => {
            return Err(HprpgGameError::ReduceOtherDelivery {
                was: delivery_name(was),
                asked: delivery_name(kind),
            });
        }
        // Before a first reduction the state knows only the requirement; it must be one this
        // delivery can ask for.
        (DeliveryKind::Ranged, None) if current % 2 != 0 => {
            return Err(HprpgGameError::ReduceUnfitDelivery {
                delivery: delivery_name(kind),
                required: current,
            });
        }
        (DeliveryKind::Mass, None) if current < 4 => {
            return Err(HprpgGameError::ReduceUnfitDelivery {
                delivery: delivery_name(kind),
                required: current,
            });
        }
        _ => {}
    }
    if targets == 0 && kind != DeliveryKind::Mass {
        return Err(HprpgGameError::ReduceToNoTargets);
    }
    let asked = delivery(kind, targets, required)?.required();
    if asked >= current {
        return Err(HprpgGameError::NotAReduction { current, asked });
    }
    pending.progress.required = asked;
    pending.delivery = Some(kind);
    Ok(pending)
}

fn reduce_casting(
    state: &HprpgState,
    kind: Option<DeliveryKind>,
    targets: u32,
    required: Option<u32>,
) -> Result<(Value, HprpgState, String), HprpgGameError> {
    let pending = reduced_casting(state, kind, targets, required)?;
    let progress = pending.progress;
    let mut after = state.clone();
    let mut result = json!({ "required": progress.required, "accumulated": progress.accumulated });
    let summary = if progress.accumulated >= progress.required {
        after.casting = None;
        let (spell, damage) = take_effect(
            &mut after,
            pending.discipline,
            pending.level,
            progress.accumulated - progress.required,
            pending.optional,
            pending.extra_damage,
            pending.sustain.as_deref(),
        )?;
        result["outcome"] = json!("cast");
        result["spell"] = json!(spell);
        result["damage"] = json!(damage);
        format!(
            "reduced to {} required: {} gathered, cast with POWER {}",
            progress.required, progress.accumulated, spell.power
        )
    } else {
        result["outcome"] = json!("short");
        result["catch_casting"] = json!(progress);
        after.casting = Some(pending);
        format!(
            "reduced to {} required: still short ({} of {}); catch-cast or abandon",
            progress.required, progress.accumulated, progress.required
        )
    };
    Ok((result, after, summary))
}

/// Feats of `feats` that are not among the character's archetype's feats (003-D4): allowed, since the
/// GM may grant any feat, but said, so a slip in the sheet does not pass unnoticed.
pub fn off_archetype_feats(sheet: &CharacterSheet, feats: &[Feat]) -> Vec<String> {
    let Some(archetype) = sheet.archetype else {
        return Vec::new();
    };
    feats
        .iter()
        .filter(|feat| !archetype.data().feats.contains(feat))
        .map(|feat| {
            format!(
                "{feat} is not a {archetype} feat (003-D4); it applies because the sheet has it, \
                 if the GM allowed it"
            )
        })
        .collect()
}

/// Adds the warnings of [`off_archetype_feats`] to a summary (the result JSON keeps its shape).
fn append_archetype_warnings(summary: &mut String, state: &HprpgState, feats: &[Feat]) {
    for warning in off_archetype_feats(&state.sheet, feats) {
        summary.push_str(&format!("; warning: {warning}"));
    }
}

/// The check an action `check` makes, for [`apply_action`] and [`odds_of`] alike.
fn prepare_check_action(
    state: &HprpgState,
    action: &HprpgAction,
    limits: &Limits,
) -> Result<Prepared, HprpgGameError> {
    let HprpgAction::Check {
        aspect,
        ability,
        affinity,
        difficulty,
        bonus_dice,
        penalty_dice,
        catastrophe_range,
        intractability,
        fortitude_successes,
        ritual_successes,
        feats,
        aspect_only_knowledge,
        difficulty_above_twelve,
        intractability_floor,
        ..
    } = action
    else {
        return Err(HprpgGameError::NothingToRoll);
    };
    let options = HprpgOptions {
        difficulty_above_twelve: *difficulty_above_twelve,
        intractability_floor: *intractability_floor,
    };
    prepare_check(
        state,
        *aspect,
        Second::of(ability.as_deref(), *affinity)?,
        given_difficulty(*difficulty)?,
        (*bonus_dice, *penalty_dice),
        *catastrophe_range,
        *intractability,
        (*fortitude_successes, *ritual_successes),
        feats,
        *aspect_only_knowledge,
        &options,
        limits,
    )
}

/// The resist check an action `resist` makes, with its RAGE penalty, for [`apply_action`] and
/// [`odds_of`] alike.
fn prepare_resist_action(
    state: &HprpgState,
    action: &HprpgAction,
    limits: &Limits,
) -> Result<(Prepared, u32), HprpgGameError> {
    let HprpgAction::Resist {
        aspect,
        ability,
        level,
        defy,
        bonus_dice,
        penalty_dice,
        catastrophe_range,
        fortitude_successes,
        feats,
        difficulty_above_twelve,
        intractability_floor,
        ..
    } = action
    else {
        return Err(HprpgGameError::NothingToRoll);
    };
    let options = HprpgOptions {
        difficulty_above_twelve: *difficulty_above_twelve,
        intractability_floor: *intractability_floor,
    };
    prepare_resist(
        state,
        *aspect,
        ability,
        *level,
        *defy,
        (*bonus_dice, *penalty_dice),
        *catastrophe_range,
        *fortitude_successes,
        feats,
        &options,
        limits,
    )
}

/// The cast an action `cast` makes, for [`apply_action`] and [`odds_of`] alike.
fn prepare_cast_action(
    state: &HprpgState,
    action: &HprpgAction,
    limits: &Limits,
) -> Result<PreparedCast, HprpgGameError> {
    let HprpgAction::Cast {
        discipline,
        level,
        aspect,
        delivery,
        targets,
        required,
        bonus_dice,
        penalty_dice,
        catastrophe_range,
        intractability,
        optional,
        fortitude_successes,
        ritual_successes,
        feats,
        furious,
        sustain,
        difficulty_above_twelve,
        intractability_floor,
    } = action
    else {
        return Err(HprpgGameError::NothingToRoll);
    };
    let options = HprpgOptions {
        difficulty_above_twelve: *difficulty_above_twelve,
        intractability_floor: *intractability_floor,
    };
    prepare_cast(
        state,
        *discipline,
        *level,
        *aspect,
        (*delivery, *targets, *required),
        (*bonus_dice, *penalty_dice),
        *catastrophe_range,
        *intractability,
        *optional,
        (*fortitude_successes, *ritual_successes),
        feats,
        *furious,
        sustain.as_deref(),
        &options,
        limits,
    )
}

#[allow(clippy::too_many_arguments)]
fn prepare_resist(
    state: &HprpgState,
    aspect: Aspect,
    ability: &str,
    level: u32,
    defy: u64,
    dice: (u32, u32),
    catastrophe_range: i64,
    fortitude_successes: u32,
    feats: &[Feat],
    options: &HprpgOptions,
    limits: &Limits,
) -> Result<(Prepared, u32), HprpgGameError> {
    let rating = state.sheet.ability(ability)?;
    let difficulty = resist_difficulty(level, defy, rating.dots)?;
    let penalty = resources::rage_resist_penalty(state.sheet.rage_turns);
    let mut prepared = prepare_check(
        state,
        Some(aspect),
        Second::Resist(rating.dots),
        difficulty,
        (dice.0, dice.1.saturating_add(penalty)),
        catastrophe_range,
        0,
        (fortitude_successes, 0),
        feats,
        false,
        options,
        limits,
    )?;
    prepared.info["resist_ability"] = json!(rating.name);
    Ok((prepared, penalty))
}

/// The check the next catch-cast rolls: the casting with 1 die fewer per catch-cast (003-M19, A15).
fn catch_cast_check(casting: &Check, progress: &CatchCasting) -> Check {
    let k = usize::try_from(progress.catch_casts + 1).unwrap_or(usize::MAX);
    casting.with_dice(casting.dice().saturating_sub(k))
}

fn focus_target(state: &HprpgState, limits: &Limits) -> Result<(LastCheck, Check), HprpgGameError> {
    let last = state
        .last_check
        .clone()
        .ok_or(HprpgGameError::NoLastCheck)?;
    if last.rerolled {
        return Err(HprpgGameError::AlreadyRerolled);
    }
    let check = last.check.check(limits)?;
    if !last.dice.iter().any(|&d| d <= check.catastrophe_range()) {
        return Err(HprpgGameError::NothingToReroll);
    }
    Ok((last, check))
}

/// 003-M8: a pool larger than the DV may succeed without a roll, at the GM's word, outside combat
/// and where failure is not dire. The check is still rolled; the note says the GM could skip it.
fn automatic_success_note(check: &Check) -> Option<String> {
    let pool = u64::try_from(check.dice()).unwrap_or(u64::MAX);
    super::automatic_success_allowed(pool, check.difficulty()).then(|| {
        format!(
            "pool {pool} > DV {}: outside combat, and where failure is not dire, the GM may grant \
             the success without a roll (003-M8)",
            check.difficulty()
        )
    })
}

fn odds_of(
    state: &HprpgState,
    action: &HprpgAction,
    limits: &Limits,
) -> Result<Value, ActionError> {
    let nets_json = |nets: &Distribution<i64>| {
        json!({
            "net": stateful::distribution_json(nets),
            "degree": stateful::distribution_json(&resources::degrees(nets)),
        })
    };
    match action {
        HprpgAction::Check { .. } => {
            let prepared = prepare_check_action(state, action, limits).map_err(fail)?;
            let nets = nets_of(&prepared.check, prepared.keep_better, limits).map_err(fail)?;
            let mut odds = merge(prepared.info, nets_json(&nets));
            odds["automatic_success"] = json!(automatic_success_note(&prepared.check));
            Ok(odds)
        }
        HprpgAction::Cast { .. } => {
            let prepared = prepare_cast_action(state, action, limits).map_err(fail)?;
            let nets = nets_of(&prepared.check, prepared.keep_better, limits).map_err(fail)?;
            let required = prepared.required;
            let outcomes = nets.map(|&net| casting_result(net, required));
            let completion = if prepared.keep_better {
                Value::Null
            } else {
                stateful::probability_json(
                    &super::completion_probability(&prepared.check, required, limits)
                        .map_err(fail)?,
                )
            };
            Ok(merge(
                prepared.info,
                json!({
                    "net": stateful::distribution_json(&nets),
                    "outcome": stateful::distribution_json(&outcomes),
                    "takes_effect_with_catch_casting": completion,
                }),
            ))
        }
        HprpgAction::CatchCast { .. } => {
            let pending = state
                .casting
                .clone()
                .ok_or(HprpgGameError::NoCasting)
                .map_err(fail)?;
            let casting = pending.casting.check(limits).map_err(fail)?;
            let next = catch_cast_check(&casting, &pending.progress);
            let nets = next.net_distribution(limits).map_err(fail)?;
            let completion = pending
                .progress
                .completion_probability(&casting, limits)
                .map_err(fail)?;
            Ok(json!({
                "dice": next.dice(),
                "difficulty": next.difficulty(),
                "progress": pending.progress,
                "net": stateful::distribution_json(&nets),
                "takes_effect": stateful::probability_json(&completion),
            }))
        }
        HprpgAction::ReduceCasting {
            delivery: kind,
            targets,
            required,
        } => {
            // No dice now; the odds are those of the spell taking effect after the reduction, at
            // once or by catch-casting until it does or fails.
            let pending = reduced_casting(state, *kind, *targets, *required).map_err(fail)?;
            let progress = pending.progress;
            let takes_effect = if progress.accumulated >= progress.required {
                <omen_core::Probability as num_traits::One>::one()
            } else {
                let casting = pending.casting.check(limits).map_err(fail)?;
                progress
                    .completion_probability(&casting, limits)
                    .map_err(fail)?
            };
            Ok(json!({
                "required": progress.required,
                "accumulated": progress.accumulated,
                "takes_effect": stateful::probability_json(&takes_effect),
            }))
        }
        HprpgAction::Resist { power, .. } => {
            let (prepared, penalty) = prepare_resist_action(state, action, limits).map_err(fail)?;
            let nets = nets_of(&prepared.check, prepared.keep_better, limits).map_err(fail)?;
            let power = *power;
            let left = nets.map(|&net| resisted_power(power, net));
            let nullified = nets.probability_where(|&net| resist_nullifies(power, net));
            Ok(merge(
                prepared.info,
                json!({
                    "rage_penalty": penalty,
                    "net": stateful::distribution_json(&nets),
                    "power": stateful::distribution_json(&left),
                    "nullified": stateful::probability_json(&nullified),
                }),
            ))
        }
        HprpgAction::UnwaveringFocus => {
            let (last, check) = focus_target(state, limits).map_err(fail)?;
            let before = check.score_dice(&last.dice);
            let nets =
                resources::reroll_distribution_given(&check, &before, limits).map_err(fail)?;
            Ok(merge(json!({ "before": before.net }), nets_json(&nets)))
        }
        _ => Err(ActionError::Malformed {
            what: "action",
            message:
                "only check, cast, catch-cast, reduce-casting, resist and unwavering-focus have \
                      odds"
                    .to_string(),
        }),
    }
}

// ---------------------------------------------------------------------------------------------------
// The game.

/// Seed 003's characters, served by [`crate::vocabulary::stateful::game`] as `"hprpg"`.
#[derive(Clone, Copy, Debug, Default)]
pub struct HprpgGame;

impl Stateful for HprpgGame {
    const NAME: &'static str = "hprpg";
    const VERSION: u32 = state_version::CURRENT;
    type Sheet = HprpgSheet;
    type State = HprpgState;
    type Action = HprpgAction;

    fn actions() -> &'static [ActionInfo] {
        HPRPG_ACTIONS
    }

    fn create(sheet: HprpgSheet) -> Result<HprpgState, Problems> {
        match sheet {
            HprpgSheet::Create(choices) => {
                let created = character::create(&choices)?;
                let mut state = HprpgState::new(created.sheet);
                state.advancement_cap = choices.advancement_cap;
                Ok(state)
            }
            HprpgSheet::Sheet(sheet) => {
                let state = HprpgState::new(*sheet);
                Self::validate(&state).into_result(state)
            }
        }
    }

    fn warnings(sheet: &HprpgSheet) -> Vec<String> {
        super::sheet::sheet_warnings(sheet)
    }

    fn upgrade(version: u32, state: Value) -> Result<Value, Problems> {
        state_version::upgrade(version, state)
    }

    fn validate(state: &HprpgState) -> Problems {
        let mut problems = character::validate(&state.sheet, state.advancement_cap).problems;
        problems.0.extend(state_version::problem(state.version));
        if let Some(casting) = &state.casting {
            let progress = casting.progress;
            if progress.accumulated == 0 || progress.accumulated >= progress.required {
                problems.push(format!(
                    "the waiting casting has {} of {} successes; a catch-cast needs at least 1 and \
                     fewer than required, so remove the casting",
                    progress.accumulated, progress.required
                ));
            }
            if casting.level > super::MAX_SPELL_LEVEL {
                problems.push(format!(
                    "the waiting casting has level {}, above SUMNUS (7); use 0..7",
                    casting.level
                ));
            }
            if !(0..=super::MAX_CATASTROPHE_RANGE).contains(&casting.casting.catastrophe_range) {
                problems.push("the waiting casting's catastrophe range is outside 0..11; fix it");
            }
        }
        if let Some(last) = &state.last_check
            && last.dice.iter().any(|d| !(1..=super::SIDES).contains(d))
        {
            problems.push("the last check holds a die outside 1..12; remove last_check");
        }
        problems
    }

    fn summary(state: &HprpgState) -> Option<(String, Value)> {
        let summary = SheetSummary::of(&state.sheet);
        Some((summary.text(), json!(summary)))
    }

    fn apply(
        state: &HprpgState,
        action: &HprpgAction,
        source: &mut dyn DieSource,
        limits: &Limits,
    ) -> Result<(Value, HprpgState, String), ActionError> {
        let (result, after, summary) = apply_action(state, action, source, limits).map_err(fail)?;
        Self::validate(&after).into_result(())?;
        Ok((result, after, summary))
    }

    fn odds(
        state: &HprpgState,
        action: &HprpgAction,
        limits: &Limits,
    ) -> Result<Value, ActionError> {
        odds_of(state, action, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hprpg::Degree;

    #[test]
    fn fit_allocation_fills_overpower_then_defy_then_extend() {
        let asked = OptionalSuccesses {
            overpower: 2,
            defy: 2,
            extend: 2,
        };
        assert_eq!(
            fit_allocation(asked, 3),
            OptionalSuccesses {
                overpower: 2,
                defy: 1,
                extend: 0
            }
        );
        assert_eq!(fit_allocation(asked, 9), asked);
    }

    #[test]
    fn degree_names_serialise_in_results() {
        assert_eq!(json!(Degree::Good), json!("good"));
    }
}
