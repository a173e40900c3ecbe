//! Seed 000's ritualists as a stateful game: Lore, the ritual lists, the session's Lore checks and the
//! attempts since the last full night's sleep, kept between actions (000-S1, S2).

use std::collections::BTreeSet;

use num_traits::{One, Zero};
use omen_core::{DieSource, Limits, Probability};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    Difficulty, EssenceCheck, EssenceContributions, EssenceOutcome, FamiliarityBonuses, LoreCheck,
    LoreCheckPurpose, LoreDice, LoreModifiers, LoreRoll, ReadFrom, RecordingRule, RepeatCounting,
    RitualError, RitualOptions, RitualState, SessionLoreCheck, SessionReroll, ShortcutThreshold,
};
use crate::vocabulary::stateful::{self, ActionError, ActionInfo, Problems, Stateful};

/// Seed 000's characters: Lore, the known / used / unknown / memorised rituals, this session's Lore
/// checks and the attempts at each ritual since the last full night's sleep.
///
/// ```
/// use omen_core::{Limits, ScriptedDice};
/// use serde_json::json;
///
/// let ritual = omen_rules::stateful::game("ritual").expect("ritual keeps state");
/// let state = ritual.new_character(&json!({ "lore": 2, "essence": 3 }))?;
/// // Two Lore dice against difficulty 4: the highest, 5, deciphers the ritual.
/// let decipher = json!({ "action": "decipher", "ritual": "Ward", "difficulty": 4 });
/// let applied = ritual.apply(&state, &decipher, &mut ScriptedDice::new(vec![5, 1]), &Limits::default())?;
/// assert_eq!(applied.state["known"], json!(["Ward"]));
/// // Performing it: the character's Essence of 3 and an assistant's 2 make five dice, which reach 9
/// // 99.28 % of the time, as Appendix B prints.
/// let perform = json!({ "action": "essence", "ritual": "Ward", "assistants": [2], "thresholds": [9, 15] });
/// let odds = ritual.odds(&applied.state, &perform, &Limits::default())?;
/// assert_eq!(odds["thresholds"][0]["fraction"], "965/972");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct RitualGame;

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

const RITUAL_ACTIONS: &[ActionInfo] = &[
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
struct Circumstances {
    inventing: bool,
    modifying: bool,
    unfamiliar_language: bool,
    foreign_tradition: bool,
}

impl Circumstances {
    fn modifiers(&self, deciphered_before: bool, performed_before: bool) -> LoreModifiers {
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
struct LoreRequest {
    ritual: String,
    difficulty: Difficulty,
    modifiers: LoreModifiers,
    check: LoreCheck,
    options: RitualOptions,
}

/// A Lore-check action's inputs, whichever action it is.
struct LoreAction<'a> {
    ritual: &'a str,
    difficulty: i64,
    circumstances: Circumstances,
    familiarity_bonuses: FamiliarityBonuses,
    kind: LoreKind,
}

/// What kind of Lore check an action makes.
enum LoreKind {
    Check {
        deciphered_before: Option<bool>,
        performed_before: Option<bool>,
    },
    Decipher,
    Memorise,
}

fn dice_error(error: RitualError) -> ActionError {
    match error {
        RitualError::Core(core) => ActionError::Dice(core),
        other => ActionError::rules(other),
    }
}

fn ritual_name(ritual: &str, problems: &mut Problems) -> String {
    let name = ritual.trim().to_string();
    if name.is_empty() {
        problems.push(RitualError::EmptyRitualName.to_string());
    }
    name
}

fn difficulty(value: i64, problems: &mut Problems) -> Option<Difficulty> {
    Difficulty::new(value)
        .map_err(|e| problems.push(e.to_string()))
        .ok()
}

fn lore_request(
    state: &RitualState,
    action: &LoreAction<'_>,
    limits: &Limits,
) -> Result<LoreRequest, ActionError> {
    let LoreAction {
        ritual,
        difficulty: difficulty_value,
        circumstances,
        familiarity_bonuses,
        kind,
    } = action;
    let mut problems = Problems::new();
    let name = ritual_name(ritual, &mut problems);
    let difficulty = difficulty(*difficulty_value, &mut problems);
    match kind {
        LoreKind::Decipher if state.unknown.contains(&name) => {
            problems.push(
                RitualError::UnknownRitual {
                    ritual: name.clone(),
                    lore: state.lore,
                }
                .to_string(),
            );
        }
        LoreKind::Memorise if !name.is_empty() => {
            if !state.known.contains(&name) {
                problems.push(RitualError::NotKnown(name.clone()).to_string());
            } else if state.memorised.contains(&name) {
                problems.push(RitualError::AlreadyMemorised(name.clone()).to_string());
            }
        }
        _ => {}
    }
    let options = RitualOptions {
        familiarity_bonuses: *familiarity_bonuses,
        ..RitualOptions::default()
    };
    let (deciphered, performed) = match kind {
        LoreKind::Check {
            deciphered_before,
            performed_before,
        } => (
            deciphered_before.unwrap_or_else(|| state.known.contains(&name)),
            performed_before.unwrap_or_else(|| state.used.contains(&name)),
        ),
        LoreKind::Decipher | LoreKind::Memorise => {
            (state.known.contains(&name), state.used.contains(&name))
        }
    };
    let modifiers = circumstances.modifiers(deciphered, performed);
    let Some(difficulty) = difficulty else {
        return Err(problems.into());
    };
    let check = LoreCheck::new(state.lore, difficulty, &modifiers, &options, limits)
        .map_err(|e| problems.push(e.to_string()))
        .ok();
    match check {
        Some(check) if problems.is_empty() => Ok(LoreRequest {
            ritual: name,
            difficulty,
            modifiers,
            check,
            options,
        }),
        _ => Err(problems.into()),
    }
}

/// Which die counts and how many are rolled (000-M3, M4, A1).
fn dice_rule(check: &LoreCheck) -> (&'static str, usize) {
    match check.dice() {
        LoreDice::Automatic => ("automatic", 0),
        LoreDice::HighestOf(n) => ("highest", n),
        LoreDice::LowerOfTwo => ("lower-of-two", 2),
    }
}

fn lore_odds(check: &LoreCheck, limits: &Limits) -> Result<Value, ActionError> {
    let success = check.success_probability(limits).map_err(dice_error)?;
    let results = check
        .result_distribution(limits)
        .map_err(dice_error)?
        .map_or(Value::Null, |d| stateful::distribution_json(&d));
    let (rule, dice_rolled) = dice_rule(check);
    Ok(json!({
        "pool": check.pool(),
        "difficulty": check.difficulty().value(),
        "rule": rule,
        "dice_rolled": dice_rolled,
        "success": stateful::probability_json(&success),
        "results": results,
    }))
}

fn roll_json(check: &LoreCheck, roll: &LoreRoll) -> Value {
    json!({
        "pool": check.pool(),
        "difficulty": check.difficulty().value(),
        "dice": roll.dice,
        "result": roll.result,
        "success": roll.success,
    })
}

fn roll_text(roll: &LoreRoll) -> String {
    match roll.result {
        None => "automatic success".to_string(),
        Some(result) => format!(
            "{:?} → {result}: {}",
            roll.dice,
            if roll.success { "success" } else { "failure" }
        ),
    }
}

/// An Essence check as an action asks for it, with the penalty from the recorded attempts.
struct EssenceRequest {
    ritual: String,
    repeated_attempts: i64,
    check: EssenceCheck,
}

fn essence_request(
    state: &RitualState,
    action: &RitualAction,
    limits: &Limits,
) -> Result<EssenceRequest, ActionError> {
    let RitualAction::Essence {
        ritual,
        leader,
        assistants,
        time_and_place,
        relics,
        offerings,
        other_penalties,
        thresholds,
        pairs,
        desired_threshold,
        repeat_counting,
        shortcut_threshold,
        recording_and_memorising,
        read_from,
    } = action
    else {
        return Err(ActionError::Malformed {
            what: "action",
            message: "not an essence check".to_string(),
        });
    };
    let mut problems = Problems::new();
    let name = ritual_name(ritual, &mut problems);
    let leader = match leader.or(state.essence) {
        Some(leader) => leader,
        None => {
            problems.push(
                "the leader's essence is unknown; give `leader` or set the character's essence",
            );
            0
        }
    };
    let contributors = std::iter::once(("leader's", leader))
        .chain(assistants.iter().map(|&v| ("an assistant's", v)))
        .chain(std::iter::once(("time and place", *time_and_place)))
        .chain(relics.iter().map(|&v| ("a relic's", v)))
        .chain(offerings.iter().map(|&v| ("an offering's", v)));
    for (contributor, value) in contributors {
        if value < 0 {
            problems.push(RitualError::NegativeEssence { contributor, value }.to_string());
        }
    }
    if *other_penalties < 0 {
        problems.push(
            RitualError::NegativePenalty {
                penalty: "other",
                value: *other_penalties,
            }
            .to_string(),
        );
    }
    check_read_from(
        state,
        &name,
        *recording_and_memorising,
        *read_from,
        &mut problems,
    );
    let repeated_attempts = state.repeated_attempts(&name, *repeat_counting);
    let contributions = EssenceContributions {
        leader,
        assistants: assistants.clone(),
        time_and_place: *time_and_place,
        relics: relics.clone(),
        offerings: offerings.clone(),
        repeated_attempts,
        other_penalties: *other_penalties,
    };
    let check = if problems.is_empty() {
        EssenceCheck::new(&contributions, thresholds, limits)
    } else {
        // Without a pool the thresholds are still worth checking, so every problem is listed.
        EssenceCheck::from_pool(0, thresholds, limits)
    }
    .map_err(|e| problems.push(e.to_string()))
    .ok();
    // Pairs are judged against the real pool only.
    let sound = problems.is_empty();
    let check = check.and_then(|check| {
        if *pairs == 0 || !sound {
            return Some(check);
        }
        let desired = desired_threshold.unwrap_or_else(|| *check.thresholds().last().unwrap_or(&0));
        let options = RitualOptions {
            shortcut_threshold: *shortcut_threshold,
            ..RitualOptions::default()
        };
        check
            .with_pairs(*pairs, desired, &options)
            .map_err(|e| problems.push(e.to_string()))
            .ok()
    });
    match check {
        Some(check) if problems.is_empty() => Ok(EssenceRequest {
            ritual: name,
            repeated_attempts,
            check,
        }),
        _ => Err(problems.into()),
    }
}

/// 000-M8's optional rule: with it on, a performance names where the ritual is read from, and that
/// must hold it (memory: memorised; notes: recorded; the source: a new decipher check of it this
/// session, successful). With it off, `read_from` would be ignored, so it is refused instead.
fn check_read_from(
    state: &RitualState,
    name: &str,
    rule: RecordingRule,
    read_from: Option<ReadFrom>,
    problems: &mut Problems,
) {
    let Some(read_from) = read_from else {
        if rule == RecordingRule::On {
            problems.push(
                "with recording-and-memorising on, say where the ritual is read from: memory, \
                 notes or source",
            );
        }
        return;
    };
    if rule == RecordingRule::Off {
        problems.push(format!(
            "read_from {} applies only under the optional rule; set the option \
             recording-and-memorising=on or leave read_from out",
            read_from.name()
        ));
        return;
    }
    let deciphered_now = state
        .session_checks
        .iter()
        .any(|check| check.ritual == name && check.purpose == LoreCheckPurpose::Decipher);
    let missing = match read_from {
        ReadFrom::Memory if !state.memorised.contains(name) => Some(
            "is not memorised (a failed remembering check leaves it so); read it from the notes \
             (no check) or from the source after a new decipher check",
        ),
        ReadFrom::Notes if !state.notes.contains(name) => {
            Some("is not in the notes; copy it there first (record) or read it from elsewhere")
        }
        ReadFrom::Source
            if !(deciphered_now && state.known.contains(name) && !state.unknown.contains(name)) =>
        {
            Some(
                "has not been deciphered from the source this session; decipher it again before \
                 reading it from the source",
            )
        }
        _ => None,
    };
    if let Some(missing) = missing {
        problems.push(format!("ritual {name:?} {missing}"));
    }
}

impl RitualAction {
    /// The Lore check a `lore-check`, `decipher` or `memorise` action asks for; `None` for the others.
    fn lore_action(&self) -> Option<LoreAction<'_>> {
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

fn names_problems(what: &str, names: &BTreeSet<String>, problems: &mut Problems) {
    for name in names {
        if name.trim().is_empty() || name.trim() != name {
            problems.push(format!(
                "{what} ritual {name:?} is not a ritual name; give names without surrounding spaces"
            ));
        }
    }
}

fn session_check_json(check: &SessionLoreCheck) -> Value {
    json!({
        "ritual": check.ritual,
        "purpose": check.purpose,
        "difficulty": check.difficulty.value(),
        "pool": check.pool,
    })
}

impl Stateful for RitualGame {
    const NAME: &'static str = "ritual";
    const VERSION: u32 = 1;
    type Sheet = RitualSheet;
    type State = RitualState;
    type Action = RitualAction;

    fn actions() -> &'static [ActionInfo] {
        RITUAL_ACTIONS
    }

    fn create(sheet: RitualSheet) -> Result<RitualState, Problems> {
        let state = RitualState {
            lore: sheet.lore,
            essence: sheet.essence,
            known: sheet.known,
            used: sheet.used,
            unknown: sheet.unknown,
            memorised: sheet.memorised,
            notes: sheet.notes,
            ..RitualState::default()
        };
        Self::validate(&state).into_result(state)
    }

    fn validate(state: &RitualState) -> Problems {
        let mut problems = Problems::new();
        if state.lore < 0 {
            problems.push(RitualError::NegativeLore(state.lore).to_string());
        }
        if let Some(essence) = state.essence.filter(|&e| e < 0) {
            problems.push(format!(
                "the character's essence {essence} is negative; essence is a count of dice"
            ));
        }
        names_problems("known", &state.known, &mut problems);
        names_problems("used", &state.used, &mut problems);
        names_problems("unknown", &state.unknown, &mut problems);
        names_problems("memorised", &state.memorised, &mut problems);
        names_problems("notes", &state.notes, &mut problems);
        for ritual in state.notes.difference(&state.known) {
            problems.push(format!(
                "ritual {ritual:?} in the notes is not among the known rituals; a ritual is deciphered before it is copied"
            ));
        }
        for ritual in state.memorised.difference(&state.known) {
            problems.push(format!(
                "memorised ritual {ritual:?} is not among the known rituals; a ritual is deciphered before it is memorised"
            ));
        }
        for check in &state.session_checks {
            if check.ritual.trim().is_empty() {
                problems.push("a Lore check of this session names no ritual");
            }
        }
        for ritual in state.attempts.keys() {
            if ritual.trim().is_empty() {
                problems.push("attempts are recorded for a ritual with no name");
            }
        }
        problems
    }

    fn apply(
        state: &RitualState,
        action: &RitualAction,
        source: &mut dyn DieSource,
        limits: &Limits,
    ) -> Result<(Value, RitualState, String), ActionError> {
        if let Some(lore) = action.lore_action() {
            let request = lore_request(state, &lore, limits)?;
            // Deciphering and memorising take the familiarity bonuses from the lists themselves.
            let circumstances = lore.circumstances.modifiers(false, false);
            let name = request.ritual.clone();
            return match lore.kind {
                LoreKind::Check { .. } => {
                    let done = state
                        .check(
                            &name,
                            request.difficulty,
                            &request.modifiers,
                            &request.options,
                            limits,
                            source,
                        )
                        .map_err(dice_error)?;
                    let mut result = roll_json(&done.check, &done.roll);
                    result["ritual"] = json!(name);
                    let summary = format!(
                        "Lore check on {name}, pool {}: {}",
                        done.check.pool(),
                        roll_text(&done.roll)
                    );
                    Ok((result, done.state, summary))
                }
                LoreKind::Decipher => {
                    let done = state
                        .decipher(
                            &name,
                            request.difficulty,
                            &circumstances,
                            &request.options,
                            limits,
                            source,
                        )
                        .map_err(dice_error)?;
                    let mut result = roll_json(&done.check, &done.roll);
                    result["ritual"] = json!(name);
                    result["list"] = json!(if done.roll.success {
                        "known"
                    } else {
                        "unknown"
                    });
                    let summary = format!(
                        "deciphering {name}, pool {}: {} ({})",
                        done.check.pool(),
                        roll_text(&done.roll),
                        if done.roll.success {
                            "now known"
                        } else {
                            "unknown until Lore rises"
                        }
                    );
                    Ok((result, done.state, summary))
                }
                LoreKind::Memorise => {
                    let done = state
                        .memorise(
                            &name,
                            request.difficulty,
                            &circumstances,
                            &request.options,
                            limits,
                            source,
                        )
                        .map_err(dice_error)?;
                    let mut result = match (&done.check, &done.roll) {
                        (Some(check), Some(roll)) => roll_json(check, roll),
                        _ => json!({ "free": true }),
                    };
                    result["ritual"] = json!(name);
                    result["memorised"] = json!(done.memorised);
                    let summary = match &done.roll {
                        None => format!("{name} memorised (the first one is free)"),
                        Some(roll) => format!(
                            "remembering {name}: {} ({})",
                            roll_text(roll),
                            if done.memorised {
                                "memorised"
                            } else {
                                "back to the source or the notes"
                            }
                        ),
                    };
                    Ok((result, done.state, summary))
                }
            };
        }
        match action {
            RitualAction::EndSession { choice } => {
                let end = state
                    .end_session(*choice, limits, source)
                    .map_err(dice_error)?;
                let rerolled = end.reroll.as_ref().map_or(Value::Null, |(check, roll)| {
                    let mut value = session_check_json(check);
                    value["dice"] = json!(roll.dice);
                    value["result"] = json!(roll.result);
                    value["success"] = json!(roll.success);
                    value
                });
                let summary = match &end.reroll {
                    None => "session ended without a re-roll".to_string(),
                    Some((check, roll)) => format!(
                        "session re-roll of {} (difficulty {}, pool {}): {}{}",
                        check.ritual,
                        check.difficulty,
                        check.pool,
                        roll_text(roll),
                        if end.lore_gained {
                            format!("; Lore rises to {}", end.state.lore)
                        } else {
                            String::new()
                        }
                    ),
                };
                let result = json!({
                    "rerolled": rerolled,
                    "lore_gained": end.lore_gained,
                    "lore": end.state.lore,
                });
                Ok((result, end.state, summary))
            }
            RitualAction::Essence { .. } => {
                let request = essence_request(state, action, limits)?;
                let roll = request.check.roll(source).map_err(dice_error)?;
                let mut after = state.record_attempt(&request.ritual).map_err(dice_error)?;
                let performed = matches!(roll.outcome, EssenceOutcome::Reached(_));
                if performed {
                    after = after.mark_performed(&request.ritual).map_err(dice_error)?;
                }
                let mut result = json!({
                    "ritual": request.ritual,
                    "pool": request.check.pool(),
                    "repeated_attempts": request.repeated_attempts,
                    "pairs": roll.pairs,
                    "dice": roll.dice,
                    "total": roll.total,
                    "outcome": roll.outcome,
                    "performed": performed,
                });
                let summary = format!(
                    "{} with {} essence dice{}: total {} → {}",
                    request.ritual,
                    request.check.pool(),
                    if roll.pairs > 0 {
                        format!(" ({} pairs for 7)", roll.pairs)
                    } else {
                        String::new()
                    },
                    roll.total,
                    match roll.outcome {
                        EssenceOutcome::Failed => "failed".to_string(),
                        EssenceOutcome::Reached(t) => format!("threshold {t} reached"),
                    }
                );
                // Only under 000-M8's optional rule, so other results keep their shape.
                if let RitualAction::Essence {
                    recording_and_memorising: RecordingRule::On,
                    read_from: Some(read_from),
                    ..
                } = action
                {
                    result["read_from"] = json!(read_from);
                }
                Ok((result, after, summary))
            }
            RitualAction::Record { ritual } => {
                let name = ritual.trim().to_string();
                if name.is_empty() {
                    return Err(ActionError::rules(RitualError::EmptyRitualName));
                }
                if !state.known.contains(&name) {
                    return Err(ActionError::Malformed {
                        what: "ritual",
                        message: format!(
                            "{name:?} is not among the known rituals; decipher it from the source \
                             before copying it into the notes"
                        ),
                    });
                }
                if state.notes.contains(&name) {
                    return Err(ActionError::Malformed {
                        what: "ritual",
                        message: format!("{name:?} is already in the notes; copy another ritual"),
                    });
                }
                let mut after = state.clone();
                after.notes.insert(name.clone());
                let summary = format!(
                    "{name} copied into the notes (time and materials only): performing it from \
                     them needs no Lore check"
                );
                Ok((json!({ "ritual": name, "recorded": true }), after, summary))
            }
            RitualAction::Sleep {} => {
                let cleared: u64 = state.attempts.values().map(|&n| u64::from(n)).sum();
                let summary = format!("a full night's sleep: {cleared} attempt(s) forgotten");
                Ok((
                    json!({ "attempts_cleared": cleared }),
                    state.full_night_sleep(),
                    summary,
                ))
            }
            // Lore checks are answered above.
            _ => Err(ActionError::Malformed {
                what: "action",
                message: "not a ritual action".to_string(),
            }),
        }
    }

    fn odds(
        state: &RitualState,
        action: &RitualAction,
        limits: &Limits,
    ) -> Result<Value, ActionError> {
        if let Some(lore) = action.lore_action() {
            let request = lore_request(state, &lore, limits)?;
            if matches!(lore.kind, LoreKind::Memorise) && state.memorised.is_empty() {
                return Ok(json!({
                    "free": true,
                    "success": stateful::probability_json(&Probability::one()),
                }));
            }
            return lore_odds(&request.check, limits);
        }
        match action {
            RitualAction::EndSession { choice } => {
                let gain = match choice {
                    SessionReroll::Reroll => {
                        state.lore_gain_probability(limits).map_err(dice_error)?
                    }
                    SessionReroll::Decline => Probability::zero(),
                };
                let check = match choice {
                    SessionReroll::Reroll => state
                        .most_difficult_check()
                        .map_or(Value::Null, session_check_json),
                    SessionReroll::Decline => Value::Null,
                };
                Ok(json!({ "check": check, "lore_gain": stateful::probability_json(&gain) }))
            }
            RitualAction::Essence { .. } => {
                let request = essence_request(state, action, limits)?;
                let check = &request.check;
                let thresholds: Vec<Value> = check
                    .threshold_probabilities(limits)
                    .map_err(dice_error)?
                    .iter()
                    .map(|(threshold, p)| {
                        let mut row = stateful::probability_json(p);
                        row["threshold"] = json!(threshold);
                        row
                    })
                    .collect();
                let outcomes = check.outcome_distribution(limits).map_err(dice_error)?;
                Ok(json!({
                    "pool": check.pool(),
                    "repeated_attempts": request.repeated_attempts,
                    "pairs": check.pairs(),
                    "rolled_dice": check.rolled_dice(),
                    "thresholds": thresholds,
                    "outcomes": stateful::distribution_json(&outcomes),
                }))
            }
            _ => Err(ActionError::Malformed {
                what: "action",
                message: "a full night's sleep rolls nothing, so it has no odds".to_string(),
            }),
        }
    }
}
