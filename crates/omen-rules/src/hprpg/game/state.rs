//! What the game remembers about a character (003-S1, S2, S3).

use omen_core::Limits;
use serde::{Deserialize, Serialize};

use crate::hprpg::character::{Aspect, CharacterSheet, DEFAULT_ADVANCEMENT_CAP, Discipline};
use crate::hprpg::state_version;
use crate::hprpg::zero_dots::{self, StoredRoll};
use crate::hprpg::{
    CatchCasting, Check, DifficultyAboveTwelve, HprpgError, HprpgOptions, IntractabilityFloor,
    OptionalSuccesses,
};

pub(super) fn default_cap() -> u32 {
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
    pub(super) fn of(check: &Check) -> CheckSpec {
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
