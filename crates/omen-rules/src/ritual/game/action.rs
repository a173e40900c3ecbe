//! What a ritualist is made from and what one can do, as JSON spells them.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::ritual::{
    Difficulty, FamiliarityBonuses, LoreCheck, LoreModifiers, ReadFrom, RecordingRule,
    RepeatCounting, RitualOptions, SessionReroll, ShortcutThreshold,
};
use crate::vocabulary::stateful::ActionInfo;

/// A new ritualist. Every field is optional: a character who has never performed a ritual starts at
/// Lore 0 with empty lists (000-S1). JSON: `{"lore": 2, "essence": 3, "known": ["Ward"]}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(example = serde_json::json!({"lore": 2, "essence": 3, "known": ["Binding of Nine", "Ward"], "memorised": ["Ward"], "unknown": ["Call of the Deep"], "used": []}))]
pub struct RitualSheet {
    pub lore: i64,
    /// The character's own Essence as Ritual Leader (000-A11), if the table tracks it.
    pub essence: Option<i64>,
    pub known: BTreeSet<String>,
    pub used: BTreeSet<String>,
    pub unknown: BTreeSet<String>,
    pub memorised: BTreeSet<String>,
    /// Rituals in the character's own notes (000-M8's optional recording rule).
    pub notes: BTreeSet<String>,
}

/// What a ritualist can do. JSON: `{"action": "decipher", "ritual": "Ward", "difficulty": 4}`.
///
/// Numbers that the rules restrict (difficulties, Essence values) are plain integers here, so that an
/// action breaking several rules is refused with every problem listed at once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
#[schemars(example = serde_json::json!({"action": "lore-check", "ritual": "Ward", "difficulty": 4}))]
#[schemars(example = serde_json::json!({"action": "decipher", "ritual": "Veil of Ash", "difficulty": 5}))]
#[schemars(example = serde_json::json!({"action": "memorise", "ritual": "Binding of Nine", "difficulty": 3}))]
#[schemars(example = serde_json::json!({"action": "essence", "ritual": "Ward", "leader": 3, "assistants": [2, 1], "time_and_place": 1, "thresholds": [6, 9, 12]}))]
pub enum RitualAction {
    /// A Lore check about a ritual that neither deciphers nor memorises it (000-M1..M5, A1, A2), logged
    /// for the session's re-roll. The familiarity flags default to what the lists say.
    #[schemars(extend("x-cli-command" = "check"))]
    LoreCheck {
        /// The ritual's name, e.g. "Binding of Nine".
        ritual: String,
        /// Ritual Difficulty, 1 (Trivial) to 6 (Very Difficult).
        difficulty: i64,
        /// Inventing the ritual from scratch (−2 dice).
        #[serde(default)]
        inventing: bool,
        /// Modifying a ritual (−1).
        #[serde(default)]
        modifying: bool,
        /// Translated from a language the ritualist does not know well (−1).
        #[serde(default)]
        unfamiliar_language: bool,
        /// Not of the character's Tradition (−1).
        #[serde(default)]
        foreign_tradition: bool,
        /// Count the ritual as deciphered before (+1), or not, whatever the lists say; left out,
        /// the lists decide.
        #[serde(default)]
        deciphered_before: Option<bool>,
        /// Count the ritual as performed before (+2), or not, whatever the lists say; left out,
        /// the lists decide.
        #[serde(default)]
        performed_before: Option<bool>,
        #[serde(default)]
        familiarity_bonuses: FamiliarityBonuses,
    },
    /// Deciphers a ritual (000-M6): success adds it to the known rituals, failure to the unknown ones.
    /// The familiarity bonuses come from the lists (000-A2).
    Decipher {
        /// The ritual's name, e.g. "Binding of Nine".
        ritual: String,
        /// Ritual Difficulty, 1 (Trivial) to 6 (Very Difficult).
        difficulty: i64,
        /// Inventing the ritual from scratch (−2 dice).
        #[serde(default)]
        inventing: bool,
        /// Modifying a ritual (−1).
        #[serde(default)]
        modifying: bool,
        /// Translated from a language the ritualist does not know well (−1).
        #[serde(default)]
        unfamiliar_language: bool,
        /// Not of the character's Tradition (−1).
        #[serde(default)]
        foreign_tradition: bool,
        #[serde(default)]
        familiarity_bonuses: FamiliarityBonuses,
    },
    /// Ends the session (000-M7, A4..A6): re-roll the most difficult check, or decline.
    EndSession {
        #[serde(default)]
        #[schemars(extend("x-cli-switch" = serde_json::json!({"decline": "decline"})))]
        choice: SessionReroll,
    },
    /// Memorises a known ritual (000-M8, A7): the first is free, each further one takes a Lore check.
    Memorise {
        /// The ritual's name, e.g. "Binding of Nine".
        ritual: String,
        /// Ritual Difficulty, 1 (Trivial) to 6 (Very Difficult).
        difficulty: i64,
        /// Inventing the ritual from scratch (−2 dice).
        #[serde(default)]
        inventing: bool,
        /// Modifying a ritual (−1).
        #[serde(default)]
        modifying: bool,
        /// Translated from a language the ritualist does not know well (−1).
        #[serde(default)]
        unfamiliar_language: bool,
        /// Not of the character's Tradition (−1).
        #[serde(default)]
        foreign_tradition: bool,
        #[serde(default)]
        familiarity_bonuses: FamiliarityBonuses,
    },
    /// Performs a ritual with the character as Ritual Leader: an Essence check (000-M9..M11, S2,
    /// A8..A11). The repeated-attempt penalty comes from the attempts recorded since the last full
    /// night's sleep; the attempt is recorded, and a ritual whose total reaches a threshold joins the
    /// used rituals. `leader` defaults to the character's Essence; `desired_threshold` (for replaced
    /// pairs) defaults to the highest threshold, the one that waives the five-dice minimum last.
    #[schemars(extend("x-cli-command" = "perform"))]
    Essence {
        /// The ritual performed, with the character as Ritual Leader.
        ritual: String,
        /// The Leader's Essence; left out, the character's own.
        #[serde(default)]
        leader: Option<i64>,
        /// An Assistant's Essence, one per Assistant.
        #[schemars(extend("x-cli-flag" = "assistant"))]
        #[serde(default)]
        assistants: Vec<i64>,
        /// Essence of the Time and Place.
        #[serde(default)]
        time_and_place: i64,
        /// A Relic's Essence, one per Relic.
        #[schemars(extend("x-cli-flag" = "relic"))]
        #[serde(default)]
        relics: Vec<i64>,
        /// An Offering's Essence, one per Offering.
        #[schemars(extend("x-cli-flag" = "offering"))]
        #[serde(default)]
        offerings: Vec<i64>,
        /// Dice lost to ritual contamination, the GM's ruling and the like.
        #[serde(default)]
        #[schemars(extend("x-cli-flag" = "penalty"))]
        other_penalties: i64,
        /// The thresholds of the ritual, at least one.
        #[schemars(extend("x-cli-flag" = "threshold"))]
        thresholds: Vec<i64>,
        /// Replace this many pairs of dice by 7 each.
        #[serde(default)]
        pairs: usize,
        /// The threshold aimed for when replacing pairs; left out, the highest.
        #[schemars(extend("x-cli-flag" = "desired"))]
        #[serde(default)]
        desired_threshold: Option<i64>,
        #[serde(default)]
        repeat_counting: RepeatCounting,
        #[serde(default)]
        shortcut_threshold: ShortcutThreshold,
        /// 000-M8's optional recording rule; with it on, `read_from` is required.
        #[serde(default)]
        recording_and_memorising: RecordingRule,
        /// Where the ritual is read from (with recording-and-memorising on).
        #[serde(default)]
        read_from: Option<ReadFrom>,
    },
    /// Copies a known ritual into the character's own notes (000-M8's optional rule): time and
    /// materials only, no roll.
    Record {
        /// The known ritual copied into the character's notes.
        ritual: String,
    },
    /// All ritualists had a full night's sleep: the attempt counts reset (000-S2).
    Sleep {},
}

pub(super) const RITUAL_ACTIONS: &[ActionInfo] = &[
    ActionInfo {
        name: "lore-check",
        spec_items: &[
            "000-M1", "000-M2", "000-M3", "000-M4", "000-M5", "000-A1", "000-A2", "000-S1",
        ],
        summary: "a Lore check with the six modifiers, logged for the session's re-roll",
        rolls: true,
    },
    ActionInfo {
        name: "decipher",
        spec_items: &["000-M1", "000-M2", "000-M5", "000-M6", "000-A1", "000-A2"],
        summary: "decipher a ritual: success adds it to the known rituals, failure to the unknown ones",
        rolls: true,
    },
    ActionInfo {
        name: "end-session",
        spec_items: &["000-M7", "000-A4", "000-A5", "000-A6"],
        summary: "end the session: re-roll the most difficult check (a failure raises Lore) or decline",
        rolls: true,
    },
    ActionInfo {
        name: "memorise",
        spec_items: &["000-M8", "000-A7"],
        summary: "memorise a known ritual: the first is free, each further one takes a Lore check",
        rolls: true,
    },
    ActionInfo {
        name: "essence",
        spec_items: &[
            "000-M9", "000-M10", "000-M11", "000-S2", "000-A8", "000-A9", "000-A10", "000-A11",
        ],
        summary: "perform a ritual: sum the Essence pool against its thresholds; the attempt is recorded",
        rolls: true,
    },
    ActionInfo {
        name: "record",
        spec_items: &["000-M8"],
        summary: "copy a known ritual into the character's notes (time and materials only); \
                  performing from them needs no Lore check",
        rolls: false,
    },
    ActionInfo {
        name: "sleep",
        spec_items: &["000-S2"],
        summary: "a full night's sleep for all ritualists: repeated-attempt penalties reset",
        rolls: false,
    },
];

/// The six circumstances of a Lore check as an action gives them.
pub(super) struct Circumstances {
    inventing: bool,
    modifying: bool,
    unfamiliar_language: bool,
    foreign_tradition: bool,
}

impl Circumstances {
    pub(super) fn modifiers(
        &self,
        deciphered_before: bool,
        performed_before: bool,
    ) -> LoreModifiers {
        LoreModifiers {
            inventing: self.inventing,
            modifying: self.modifying,
            unfamiliar_language: self.unfamiliar_language,
            foreign_tradition: self.foreign_tradition,
            deciphered_before,
            performed_before,
        }
    }
}

/// The Lore check an action asks for, every rule it breaks listed.
pub(super) struct LoreRequest {
    pub(super) ritual: String,
    pub(super) difficulty: Difficulty,
    pub(super) modifiers: LoreModifiers,
    pub(super) check: LoreCheck,
    pub(super) options: RitualOptions,
}

/// A Lore-check action's inputs, whichever action it is.
pub(super) struct LoreAction<'a> {
    pub(super) ritual: &'a str,
    pub(super) difficulty: i64,
    pub(super) circumstances: Circumstances,
    pub(super) familiarity_bonuses: FamiliarityBonuses,
    pub(super) kind: LoreKind,
}

/// What kind of Lore check an action makes.
pub(super) enum LoreKind {
    Check {
        deciphered_before: Option<bool>,
        performed_before: Option<bool>,
    },
    Decipher,
    Memorise,
}

impl RitualAction {
    /// The Lore check a `lore-check`, `decipher` or `memorise` action asks for; `None` for the others.
    pub(super) fn lore_action(&self) -> Option<LoreAction<'_>> {
        match self {
            RitualAction::LoreCheck {
                ritual,
                difficulty,
                inventing,
                modifying,
                unfamiliar_language,
                foreign_tradition,
                deciphered_before,
                performed_before,
                familiarity_bonuses,
            } => Some(LoreAction {
                ritual,
                difficulty: *difficulty,
                circumstances: Circumstances {
                    inventing: *inventing,
                    modifying: *modifying,
                    unfamiliar_language: *unfamiliar_language,
                    foreign_tradition: *foreign_tradition,
                },
                familiarity_bonuses: *familiarity_bonuses,
                kind: LoreKind::Check {
                    deciphered_before: *deciphered_before,
                    performed_before: *performed_before,
                },
            }),
            RitualAction::Decipher {
                ritual,
                difficulty,
                inventing,
                modifying,
                unfamiliar_language,
                foreign_tradition,
                familiarity_bonuses,
            }
            | RitualAction::Memorise {
                ritual,
                difficulty,
                inventing,
                modifying,
                unfamiliar_language,
                foreign_tradition,
                familiarity_bonuses,
            } => Some(LoreAction {
                ritual,
                difficulty: *difficulty,
                circumstances: Circumstances {
                    inventing: *inventing,
                    modifying: *modifying,
                    unfamiliar_language: *unfamiliar_language,
                    foreign_tradition: *foreign_tradition,
                },
                familiarity_bonuses: *familiarity_bonuses,
                kind: if matches!(self, RitualAction::Decipher { .. }) {
                    LoreKind::Decipher
                } else {
                    LoreKind::Memorise
                },
            }),
            _ => None,
        }
    }
}
