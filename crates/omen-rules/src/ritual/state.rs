//! The character's ritual state and Lore progression (000-S1, M6..M8, S2, A2..A8).

use std::collections::{BTreeMap, BTreeSet};

use num_traits::{One, Zero};
use omen_core::{DieSource, Limits, Probability};
use serde::{Deserialize, Serialize};

use super::rules::*;

// ---------------------------------------------------------------------------------------------------
// The character's ritual state and Lore progression (000-S1, M6..M8, S2, A2..A8).

/// Whether 000-M8's optional rule of recording and memorising is in play: with it on, performing a
/// ritual says where it is read from, and that must hold it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum RecordingRule {
    /// The optional rule is not used: performing does not ask where the ritual is read from.
    #[default]
    Off,
    /// Performing reads the ritual from memory, the character's notes or the source.
    On,
}

impl RecordingRule {
    pub const ALL: [RecordingRule; 2] = [RecordingRule::Off, RecordingRule::On];

    /// The option value as listings spell it.
    pub fn name(self) -> &'static str {
        match self {
            RecordingRule::Off => "off",
            RecordingRule::On => "on",
        }
    }
}

/// Where a ritual is read from when it is performed under 000-M8's optional rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ReadFrom {
    /// Memorised: the first memorised ritual is free, each further one took a remembering check.
    Memory,
    /// The character's own notes: no Lore check.
    Notes,
    /// The source itself, which needs a new decipher check of the ritual this session.
    Source,
}

impl ReadFrom {
    /// The name as JSON and messages spell it.
    pub fn name(self) -> &'static str {
        match self {
            ReadFrom::Memory => "memory",
            ReadFrom::Notes => "notes",
            ReadFrom::Source => "source",
        }
    }
}

/// Why a Lore check was made: both kinds go into the session's log (000-M7, M8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LoreCheckPurpose {
    Decipher,
    Memorise,
    /// Any other Lore check the GM calls for; it counts for the session's re-roll all the same.
    Check,
}

/// One Lore check of the session, as the end-of-session re-roll needs it (000-S1, A4).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionLoreCheck {
    pub ritual: String,
    pub purpose: LoreCheckPurpose,
    pub difficulty: Difficulty,
    /// The pool it was made with (may be 0 or less: two dice, the lower counts).
    pub pool: i64,
}

impl SessionLoreCheck {
    /// Difficulty-1 checks succeed without a roll, so they cannot be the session's re-roll (000-A4).
    pub fn rolled(&self) -> bool {
        !self.difficulty.is_automatic()
    }
}

/// A character's rituals (000-S1): Lore, the known / used / unknown lists, the rituals memorised (M8),
/// this session's Lore checks (M7) and the attempts per ritual since the last full night's sleep (S2).
/// Every transition takes the state by reference and returns a new one, so a refused or failed call
/// leaves the caller's state as it was.
///
/// Every field has a default, so saved state that lacks one (an older save, a hand-written file) loads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct RitualState {
    /// Starts at 0 for a character who has never performed a ritual.
    pub lore: i64,
    /// Deciphered successfully (the +1 of 000-A2); a ritual stays known once deciphered.
    pub known: BTreeSet<String>,
    /// Performed successfully (the +2 of 000-A2, A3).
    pub used: BTreeSet<String>,
    /// Failed deciphering; refused until Lore increases (000-M6).
    pub unknown: BTreeSet<String>,
    /// Memorised (000-M8); the first one is free.
    pub memorised: BTreeSet<String>,
    /// Copied into the character's own notes (000-M8's optional recording rule): performing from
    /// them needs no Lore check. Left out of the JSON while empty, so older saves keep their shape.
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    pub notes: BTreeSet<String>,
    /// Lore checks made this session, in order.
    pub session_checks: Vec<SessionLoreCheck>,
    /// Attempts at each ritual since all ritualists last had a full night's sleep (000-S2).
    pub attempts: BTreeMap<String, u32>,
    /// The character's own Essence, when the table tracks it: what the character adds to an Essence
    /// pool as the Ritual Leader. A plain integer defined outside the seed (000-A11).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub essence: Option<i64>,
}

/// The state after deciphering, with the check as made and the dice (000-M6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deciphering {
    pub state: RitualState,
    pub check: LoreCheck,
    pub roll: LoreRoll,
}

/// The state after a Lore check that is logged but moves no ritual (000-M1..M5, M7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checking {
    pub state: RitualState,
    pub check: LoreCheck,
    pub roll: LoreRoll,
}

/// The state after trying to memorise a ritual (000-M8, A7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Memorising {
    pub state: RitualState,
    /// `None` for the free first ritual.
    pub check: Option<LoreCheck>,
    pub roll: Option<LoreRoll>,
    pub memorised: bool,
}

/// The player's choice at the end of a session (000-A6).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum SessionReroll {
    /// Re-roll the most difficult check of the session (a failure raises Lore).
    #[default]
    Reroll,
    /// Skip it; the log still resets.
    Decline,
}

/// The state after the end of a session (000-M7, A4..A6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionEnd {
    pub state: RitualState,
    /// The check re-rolled and its dice; `None` when declined or when no check was rolled this session.
    pub reroll: Option<(SessionLoreCheck, LoreRoll)>,
    pub lore_gained: bool,
}

fn ritual_name(ritual: &str) -> Result<String, RitualError> {
    let name = ritual.trim();
    if name.is_empty() {
        return Err(RitualError::EmptyRitualName);
    }
    Ok(name.to_string())
}

impl RitualState {
    /// A character with `lore` and empty lists.
    ///
    /// # Errors
    /// [`RitualError::NegativeLore`].
    pub fn new(lore: i64) -> Result<Self, RitualError> {
        if lore < 0 {
            return Err(RitualError::NegativeLore(lore));
        }
        Ok(RitualState {
            lore,
            ..RitualState::default()
        })
    }

    /// `circumstances` with the familiarity flags taken from the lists (000-A2): deciphered before =
    /// in `known`, performed before = in `used`. The caller's familiarity flags are ignored.
    pub fn modifiers_for(&self, ritual: &str, circumstances: &LoreModifiers) -> LoreModifiers {
        let name = ritual.trim();
        LoreModifiers {
            deciphered_before: self.known.contains(name),
            performed_before: self.used.contains(name),
            ..*circumstances
        }
    }

    /// The Lore check this character would make for `ritual` (000-M1, M2, A2, A7).
    ///
    /// # Errors
    /// [`RitualError::EmptyRitualName`]; those of [`LoreCheck::new`].
    pub fn lore_check(
        &self,
        ritual: &str,
        difficulty: Difficulty,
        circumstances: &LoreModifiers,
        options: &RitualOptions,
        limits: &Limits,
    ) -> Result<LoreCheck, RitualError> {
        ritual_name(ritual)?;
        let modifiers = self.modifiers_for(ritual, circumstances);
        LoreCheck::new(self.lore, difficulty, &modifiers, options, limits)
    }

    fn logged(&self, ritual: String, purpose: LoreCheckPurpose, check: &LoreCheck) -> Self {
        let mut state = self.clone();
        state.session_checks.push(SessionLoreCheck {
            ritual,
            purpose,
            difficulty: check.difficulty(),
            pool: check.pool(),
        });
        state
    }

    /// Deciphers `ritual` (000-M6): the pool from Lore, `circumstances` and the lists (A2); success adds
    /// it to `known`, failure to `unknown`; the check goes into the session's log. A ritual that stays
    /// known is not taken out of `known` by a later failure.
    ///
    /// # Errors
    /// [`RitualError::UnknownRitual`] for a ritual among the unknown rituals (until Lore increases);
    /// those of [`RitualState::lore_check`] and [`LoreCheck::roll`].
    pub fn decipher(
        &self,
        ritual: &str,
        difficulty: Difficulty,
        circumstances: &LoreModifiers,
        options: &RitualOptions,
        limits: &Limits,
        source: &mut dyn DieSource,
    ) -> Result<Deciphering, RitualError> {
        let name = ritual_name(ritual)?;
        if self.unknown.contains(&name) {
            return Err(RitualError::UnknownRitual {
                ritual: name,
                lore: self.lore,
            });
        }
        let check = self.lore_check(&name, difficulty, circumstances, options, limits)?;
        let roll = check.roll(source)?;
        let mut state = self.logged(name.clone(), LoreCheckPurpose::Decipher, &check);
        if roll.success {
            state.known.insert(name);
        } else {
            state.unknown.insert(name);
        }
        Ok(Deciphering { state, check, roll })
    }

    /// Makes a Lore check about `ritual` that neither deciphers nor memorises it, under `modifiers` as
    /// given (all six of 000-M1, the familiarity ones included) with the zero-pool rule (000-A1). It goes
    /// into the session's log, so it counts for the end-of-session re-roll (000-M7) and moves no ritual
    /// between lists.
    ///
    /// # Errors
    /// [`RitualError::EmptyRitualName`]; those of [`LoreCheck::new`] and [`LoreCheck::roll`].
    pub fn check(
        &self,
        ritual: &str,
        difficulty: Difficulty,
        modifiers: &LoreModifiers,
        options: &RitualOptions,
        limits: &Limits,
        source: &mut dyn DieSource,
    ) -> Result<Checking, RitualError> {
        let name = ritual_name(ritual)?;
        let check = LoreCheck::new(self.lore, difficulty, modifiers, options, limits)?;
        let roll = check.roll(source)?;
        let state = self.logged(name, LoreCheckPurpose::Check, &check);
        Ok(Checking { state, check, roll })
    }

    /// Records a successful performance of `ritual`: it joins `used` (000-A3), worth +2 from now on.
    ///
    /// # Errors
    /// [`RitualError::EmptyRitualName`].
    pub fn mark_performed(&self, ritual: &str) -> Result<Self, RitualError> {
        let name = ritual_name(ritual)?;
        let mut state = self.clone();
        state.used.insert(name);
        Ok(state)
    }

    /// The check the end-of-session re-roll repeats (000-A4): among the checks rolled this session, the
    /// highest difficulty, on a tie the smallest pool (the earliest of equal ones); `None` when no check
    /// was rolled.
    pub fn most_difficult_check(&self) -> Option<&SessionLoreCheck> {
        self.session_checks
            .iter()
            .filter(|check| check.rolled())
            .min_by_key(|check| (std::cmp::Reverse(check.difficulty), check.pool))
    }

    /// Ends the session (000-M7, A4..A6). With [`SessionReroll::Reroll`] and a rolled check this session,
    /// the most difficult one is rolled again with the pool it had; if it fails, Lore rises by 1 and
    /// `unknown` is cleared. The re-roll moves no ritual between lists. The session's log resets either
    /// way.
    ///
    /// # Errors
    /// Those of [`LoreCheck::from_pool`] and [`LoreCheck::roll`].
    pub fn end_session(
        &self,
        choice: SessionReroll,
        limits: &Limits,
        source: &mut dyn DieSource,
    ) -> Result<SessionEnd, RitualError> {
        let mut state = self.clone();
        state.session_checks.clear();
        let hardest = match (choice, self.most_difficult_check()) {
            (SessionReroll::Reroll, Some(hardest)) => hardest.clone(),
            _ => {
                return Ok(SessionEnd {
                    state,
                    reroll: None,
                    lore_gained: false,
                });
            }
        };
        let roll = LoreCheck::from_pool(hardest.pool, hardest.difficulty, limits)?.roll(source)?;
        let lore_gained = !roll.success;
        if lore_gained {
            state.lore = state.lore.saturating_add(1);
            state.unknown.clear();
        }
        Ok(SessionEnd {
            state,
            reroll: Some((hardest, roll)),
            lore_gained,
        })
    }

    /// P(the session ends with a Lore gain) if the player takes the re-roll: the chance that the most
    /// difficult check fails again, 0 when no check was rolled (000-M7, A4).
    ///
    /// # Errors
    /// [`RitualError::Core`] when the computation exceeds `limits`.
    pub fn lore_gain_probability(&self, limits: &Limits) -> Result<Probability, RitualError> {
        let Some(hardest) = self.most_difficult_check() else {
            return Ok(Probability::zero());
        };
        let check = LoreCheck::from_pool(hardest.pool, hardest.difficulty, limits)?;
        Ok(Probability::one() - check.success_probability(limits)?)
    }

    /// Tries to memorise a known `ritual` (000-M8, A7): the first ritual memorised is free; each further
    /// one takes a Lore check with the deciphering pool rule (usually +1 for deciphered before), which
    /// goes into the session's log. Failure leaves it unmemorised (back to the source or one's notes).
    ///
    /// # Errors
    /// [`RitualError::NotKnown`], [`RitualError::AlreadyMemorised`]; those of
    /// [`RitualState::lore_check`] and [`LoreCheck::roll`].
    pub fn memorise(
        &self,
        ritual: &str,
        difficulty: Difficulty,
        circumstances: &LoreModifiers,
        options: &RitualOptions,
        limits: &Limits,
        source: &mut dyn DieSource,
    ) -> Result<Memorising, RitualError> {
        let name = ritual_name(ritual)?;
        if !self.known.contains(&name) {
            return Err(RitualError::NotKnown(name));
        }
        if self.memorised.contains(&name) {
            return Err(RitualError::AlreadyMemorised(name));
        }
        if self.memorised.is_empty() {
            let mut state = self.clone();
            state.memorised.insert(name);
            return Ok(Memorising {
                state,
                check: None,
                roll: None,
                memorised: true,
            });
        }
        let check = self.lore_check(&name, difficulty, circumstances, options, limits)?;
        let roll = check.roll(source)?;
        let mut state = self.logged(name.clone(), LoreCheckPurpose::Memorise, &check);
        if roll.success {
            state.memorised.insert(name);
        }
        Ok(Memorising {
            state,
            memorised: roll.success,
            check: Some(check),
            roll: Some(roll),
        })
    }

    /// Forgets a memorised ritual; it stays known (000-M8).
    pub fn forget(&self, ritual: &str) -> Self {
        let mut state = self.clone();
        state.memorised.remove(ritual.trim());
        state
    }

    /// The repeated-attempt penalty the next attempt at `ritual` takes (000-S2, A8): the earlier attempts
    /// since the last full night's sleep at this ritual, or at any ritual under
    /// [`RepeatCounting::Global`]. Feed it to [`EssenceContributions::repeated_attempts`].
    pub fn repeated_attempts(&self, ritual: &str, counting: RepeatCounting) -> i64 {
        let attempts: u64 = match counting {
            RepeatCounting::PerRitual => self
                .attempts
                .get(ritual.trim())
                .map_or(0, |&n| u64::from(n)),
            RepeatCounting::Global => self.attempts.values().map(|&n| u64::from(n)).sum(),
        };
        i64::try_from(attempts).unwrap_or(i64::MAX)
    }

    /// Records an attempt at `ritual` (successful or not) for the repeated-attempt penalty (000-S2).
    ///
    /// # Errors
    /// [`RitualError::EmptyRitualName`].
    pub fn record_attempt(&self, ritual: &str) -> Result<Self, RitualError> {
        let name = ritual_name(ritual)?;
        let mut state = self.clone();
        let count = state.attempts.entry(name).or_insert(0);
        *count = count.saturating_add(1);
        Ok(state)
    }

    /// All ritualists had a full night's sleep: the attempt counts reset (000-S2).
    pub fn full_night_sleep(&self) -> Self {
        RitualState {
            attempts: BTreeMap::new(),
            ..self.clone()
        }
    }
}
