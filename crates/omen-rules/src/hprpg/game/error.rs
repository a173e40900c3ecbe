//! Why an action of seed 003's game was refused.

use thiserror::Error;

use crate::hprpg::HprpgError;
use crate::hprpg::character::{Discipline, Feat, NameError};
use crate::hprpg::resources::ResourceError;
use crate::vocabulary::stateful::{ActionError, Problems};

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

pub(super) fn fail(error: impl Into<HprpgGameError>) -> ActionError {
    match error.into() {
        HprpgGameError::Rules(HprpgError::Core(core))
        | HprpgGameError::Resource(ResourceError::Rules(HprpgError::Core(core))) => {
            ActionError::Dice(core)
        }
        HprpgGameError::Several(problems) => ActionError::Invalid(problems),
        other => ActionError::rules(other),
    }
}
