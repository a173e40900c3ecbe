//! The actions of seed 003's game, as JSON spells them, and what each does.

use serde::{Deserialize, Serialize};

use super::state::DeliveryKind;
use crate::hprpg::character::{Aspect, Discipline, Feat};
use crate::hprpg::resources::FortitudeSpend;
use crate::hprpg::{DifficultyAboveTwelve, IntractabilityFloor, OptionalSuccesses};
use crate::vocabulary::stateful::ActionInfo;

pub(super) fn one() -> i64 {
    1
}

pub(super) fn one_u32() -> u32 {
    1
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
    Check(CheckAction),
    /// A casting (003-M15..M19, M23): may leave a casting waiting for a catch-cast (003-S2).
    Cast(CastAction),
    /// The next catch-cast of the waiting casting (003-M19, S2).
    CatchCast(CatchCastAction),
    /// Gives up the waiting casting (a casting failure, 003-M17).
    AbandonCasting,
    /// Reduces the waiting casting's targets or area within its delivery (003-M17): the spell takes
    /// effect at once if the successes gathered meet the new requirement, else it keeps waiting.
    ReduceCasting(ReduceCastingAction),
    /// Resisting a spell (003-M20, M24): RAGE costs dice.
    Resist(ResistAction),
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

/// The fields of the action `check` ([`HprpgAction::Check`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckAction {
    /// The aspect, e.g. FITNESS.
    #[serde(default)]
    pub aspect: Option<Aspect>,
    /// A standard, archetype or custom ability.
    #[serde(default)]
    pub ability: Option<String>,
    /// An affinity instead of an ability, e.g. HEXES.
    #[serde(default)]
    pub affinity: Option<Discipline>,
    /// The difficulty value, 2 to 12 (4 very easy, 6 easy, 8 standard, 10 hard, 12 very hard).
    #[schemars(extend("x-cli-flag" = "dv"))]
    pub difficulty: i64,
    /// Bonus dice (situational, help).
    #[schemars(extend("x-cli-flag" = "bonus"))]
    #[serde(default)]
    pub bonus_dice: u32,
    /// Penalty dice.
    #[schemars(extend("x-cli-flag" = "penalty"))]
    #[serde(default)]
    pub penalty_dice: u32,
    /// Dice at or below this are catastrophes (3 for a Broken Wand's castings).
    #[serde(default = "one")]
    pub catastrophe_range: i64,
    /// Intractable difficulty: successes absorbed before catastrophes cancel the rest.
    #[serde(default)]
    pub intractability: i64,
    /// Automatic successes bought with FORTITUDE, 1 point each (003-A13).
    #[serde(default)]
    pub fortitude_successes: u32,
    /// Automatic successes a ritual grants (003-M21).
    #[serde(default)]
    pub ritual_successes: u32,
    /// Feats that apply (the GM decides which do).
    #[serde(default)]
    #[schemars(extend("x-cli-flag" = "feat"))]
    pub feats: Vec<Feat>,
    /// The GM allows an aspect-only roll for a KNOWLEDGE ability of 0 dots (003-M6).
    #[serde(default)]
    pub aspect_only_knowledge: bool,
    /// A rage-fuelled weapon attack (003-M24): 2 damage per net success plus the feats' extra
    /// damage (SAVAGE ATTACKER), and the check is this turn's use of RAGE.
    #[serde(default)]
    pub rage_attack: bool,
    #[serde(default)]
    pub difficulty_above_twelve: DifficultyAboveTwelve,
    #[serde(default)]
    pub intractability_floor: IntractabilityFloor,
}

/// The fields of the action `cast` ([`HprpgAction::Cast`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CastAction {
    /// The discipline (affinity), e.g. ELEMENTAL.
    pub discipline: Discipline,
    /// The spell level, 0 (NIHIL) to 7 (SUMNUS).
    pub level: u32,
    /// The casting aspect; default the discipline's (the better rated of two).
    #[serde(default)]
    pub aspect: Option<Aspect>,
    #[serde(default)]
    pub delivery: DeliveryKind,
    /// The number of targets (more than one for a ranged or mass spell).
    #[serde(default = "one_u32")]
    pub targets: u32,
    /// MASS only: the successes the GM requires (at least 4).
    #[serde(default)]
    pub required: Option<u32>,
    /// Bonus dice (situational, help).
    #[schemars(extend("x-cli-flag" = "bonus"))]
    #[serde(default)]
    pub bonus_dice: u32,
    /// Penalty dice.
    #[schemars(extend("x-cli-flag" = "penalty"))]
    #[serde(default)]
    pub penalty_dice: u32,
    /// Dice at or below this are catastrophes (3 for a Broken Wand's castings).
    #[serde(default = "one")]
    pub catastrophe_range: i64,
    /// Intractable difficulty: successes absorbed before catastrophes cancel the rest.
    #[serde(default)]
    pub intractability: i64,
    /// How to spend the optional successes; if fewer come up, OVERPOWER is filled first, then
    /// DEFY, then EXTEND.
    #[serde(default)]
    pub optional: OptionalSuccesses,
    /// Automatic successes bought with FORTITUDE, 1 point each.
    #[serde(default)]
    pub fortitude_successes: u32,
    /// Automatic successes a ritual grants.
    #[serde(default)]
    pub ritual_successes: u32,
    /// A feat that applies, one per feat (the GM decides which do), e.g. AMBUSH.
    #[schemars(extend("x-cli-flag" = "feat"))]
    #[serde(default)]
    pub feats: Vec<Feat>,
    /// FURIOUS SPELLCASTER: RAGE dots replace the Affinity's dice (3 a day).
    #[serde(default)]
    pub furious: bool,
    /// Keep the spell up under this name once it takes effect (concentration, 003-M16).
    #[serde(default)]
    pub sustain: Option<String>,
    #[serde(default)]
    pub difficulty_above_twelve: DifficultyAboveTwelve,
    #[serde(default)]
    pub intractability_floor: IntractabilityFloor,
}

/// The fields of the action `catch-cast` ([`HprpgAction::CatchCast`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatchCastAction {
    /// At once, as an extra action for 1 FORTITUDE (else on the next turn).
    #[serde(default)]
    pub extra_action: bool,
    /// Replaces the optional-success allocation given with the cast.
    #[serde(default)]
    pub optional: Option<OptionalSuccesses>,
}

/// The fields of the action `reduce-casting` ([`HprpgAction::ReduceCasting`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReduceCastingAction {
    /// The casting's delivery (WANDTIP, RANGED or MASS); a reduction cannot change it. Left
    /// out, the one the waiting casting recorded when it was cast.
    #[serde(default)]
    pub delivery: Option<DeliveryKind>,
    /// WANDTIP and RANGED: the targets kept (at least 1).
    #[serde(default = "one_u32")]
    pub targets: u32,
    /// MASS only: the smaller area's requirement (at least 4).
    #[serde(default)]
    pub required: Option<u32>,
}

/// The fields of the action `resist` ([`HprpgAction::Resist`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResistAction {
    /// The resist aspect, e.g. FITNESS.
    pub aspect: Aspect,
    /// The resist ability (e.g. a custom DODGE or BLOCK).
    pub ability: String,
    /// The incoming spell's level.
    pub level: u32,
    /// The incoming spell's DEFY.
    #[serde(default)]
    pub defy: u64,
    /// The incoming spell's POWER.
    pub power: u64,
    /// Bonus dice (situational, help).
    #[schemars(extend("x-cli-flag" = "bonus"))]
    #[serde(default)]
    pub bonus_dice: u32,
    /// Penalty dice.
    #[schemars(extend("x-cli-flag" = "penalty"))]
    #[serde(default)]
    pub penalty_dice: u32,
    /// Dice at or below this are catastrophes (3 for a Broken Wand's castings).
    #[serde(default = "one")]
    pub catastrophe_range: i64,
    /// Automatic successes bought with FORTITUDE, 1 point each.
    #[serde(default)]
    pub fortitude_successes: u32,
    /// A feat that applies, one per feat (the GM decides which do), e.g. AMBUSH.
    #[schemars(extend("x-cli-flag" = "feat"))]
    #[serde(default)]
    pub feats: Vec<Feat>,
    #[serde(default)]
    pub difficulty_above_twelve: DifficultyAboveTwelve,
    #[serde(default)]
    pub intractability_floor: IntractabilityFloor,
}

pub(super) const HPRPG_ACTIONS: &[ActionInfo] = &[
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
