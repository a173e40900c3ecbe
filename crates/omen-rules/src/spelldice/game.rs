//! Seed 001's magic-users as a stateful game: the spell dice left today, the penalties of the armour
//! worn, the damage taken from life-energy dice and the table's rule options, kept between casts
//! (001-M1, S1, M5, M7).

use omen_core::{DieSource, Distribution, Limits};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    CastRequest, CastResult, Caster, LifeDamage, LifeDiceUse, Penalties, RemovalFaces,
    RemovalTiming, SpellDiceError, SpellDiceOptions, SpellLevel, cast, cast_distribution,
    request_problems,
};
use crate::vocabulary::stateful::{self, ActionError, ActionInfo, Problems, Stateful};

/// Seed 001's magic-users: level, spell dice left, armour and encumbrance penalties, life-energy
/// damage taken and the table's rule options.
///
/// ```
/// use omen_core::{Limits, ScriptedDice};
/// use serde_json::json;
///
/// let spells = omen_rules::stateful::game("spelldice").expect("spelldice keeps state");
/// let caster = spells.new_character(&json!({ "level": 3 }))?;
/// // The seed's example: 2, 4, 5 against 9 succeeds, and the 2 leaves the pool.
/// let cast = json!({ "action": "cast", "spell_level": 2, "spell_dice": 3 });
/// let applied = spells.apply(&caster, &cast, &mut ScriptedDice::new(vec![2, 4, 5]), &Limits::default())?;
/// assert_eq!((applied.result["result"].as_str(), applied.state["pool"].as_u64()), (Some("success"), Some(4)));
/// // Two dice against 8: a catastrophe needs two 1s and a failure, 1/36.
/// let odds = spells.odds(&caster, &json!({ "action": "cast", "spell_dice": 2 }), &Limits::default())?;
/// assert_eq!(odds["catastrophe"]["fraction"], "1/36");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SpellDiceGame;

/// A magic-user as the game keeps it. JSON:
/// `{"level": 3, "pool": 4, "penalties": {"armour": 1}, "life_damage_taken": 0, "rules": {}}`; every
/// field but `level` and `pool` is optional.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpellDiceState {
    /// Magic-user level, 1 or more (001-M1).
    pub level: i64,
    /// Spell dice left today, at most 2 + level (001-M1, S1).
    pub pool: usize,
    /// Armour and encumbrance penalties subtracted from every cast's total (001-M7).
    #[serde(default)]
    pub penalties: Penalties,
    /// Damage dealt by life-energy dice and not yet healed (001-M5): paid in hit points, so whatever
    /// restores hit points restores it.
    #[serde(default)]
    pub life_damage_taken: i64,
    /// The table's choice of rules (removal faces, the author's variant, life-energy readings).
    #[serde(default)]
    pub rules: SpellDiceOptions,
}

impl SpellDiceState {
    /// The spell dice as the module's [`Caster`].
    ///
    /// # Errors
    /// [`SpellDiceError::Level`], [`SpellDiceError::PoolTooLarge`].
    pub fn caster(&self, limits: &Limits) -> Result<Caster, SpellDiceError> {
        Caster::with_pool(self.level, self.pool, limits)
    }
}

/// A new magic-user. JSON: `{"level": 3}` (a full pool), or with `pool`, `penalties` and `rules`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = serde_json::json!({"level": 3, "pool": 5, "penalties": {"armour": 1, "encumbrance": 0}, "rules": {"life_damage": "face", "life_dice_use": "when-depleted", "removal_faces": 2, "removal_timing": "always"}}))]
pub struct SpellDiceSheet {
    pub level: i64,
    /// Spell dice left; a full pool of 2 + level when absent.
    #[serde(default)]
    pub pool: Option<usize>,
    #[serde(default)]
    pub penalties: Penalties,
    #[serde(default)]
    pub rules: SpellDiceOptions,
}

/// What a magic-user can do. JSON: `{"action": "cast", "spell_level": 2, "spell_dice": 3}`.
///
/// The rule options of a cast default to the character's `rules`; the penalties to the character's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
#[schemars(example = serde_json::json!({"action": "cast", "spell_level": 1, "spell_dice": 3}))]
pub enum SpellDiceAction {
    /// Casts a spell (001-M2..M7): commits spell dice (and life-energy dice), rolls, removes the dice
    /// showing removal faces.
    Cast {
        /// 1 to 9; level-agnostic spells are level 1 (target 8).
        #[serde(default = "agnostic")]
        spell_level: i64,
        /// Spell dice committed from the pool.
        #[serde(default)]
        spell_dice: usize,
        /// Life-energy dice committed (each costs hit points).
        #[serde(default)]
        life_dice: usize,
        #[serde(default)]
        penalties: Option<Penalties>,
        /// The highest face that removes a die (the scarcity knob).
        #[serde(default)]
        removal_faces: Option<i64>,
        /// `always` (the seed) or `success-or-catastrophe` (the author's variant).
        #[serde(default)]
        removal_timing: Option<RemovalTiming>,
        #[serde(default)]
        life_damage: Option<LifeDamage>,
        #[serde(default)]
        life_dice_use: Option<LifeDiceUse>,
    },
    /// A restful night's sleep: every spell die comes back (001-S1).
    Sleep {},
    /// Hit points restored: life-energy damage healed, all of it when `amount` is absent (001-M5).
    Heal {
        /// Hit points restored; left out, all life-energy damage.
        #[serde(default)]
        amount: Option<i64>,
    },
}

fn agnostic() -> i64 {
    SpellLevel::AGNOSTIC.value()
}

const SPELLDICE_ACTIONS: &[ActionInfo] = &[
    ActionInfo {
        name: "cast",
        spec_items: &[
            "001-M2", "001-M3", "001-M4", "001-M5", "001-M6", "001-M7", "001-A1", "001-A3",
            "001-A4",
        ],
        summary: "commit spell (or life-energy) dice to a spell: success, catastrophe or empowerment; \
                  dice showing 1-2 leave the pool",
        rolls: true,
    },
    ActionInfo {
        name: "sleep",
        spec_items: &["001-M1"],
        summary: "a restful night's sleep: every spell die recovered",
        rolls: false,
    },
    ActionInfo {
        name: "heal",
        spec_items: &["001-M5"],
        summary: "hit points restored: life-energy damage healed",
        rolls: false,
    },
];

/// A cast as the action asks for it, checked with every problem listed.
struct CastPlan {
    caster: Caster,
    request: CastRequest,
    options: SpellDiceOptions,
}

fn plan(
    state: &SpellDiceState,
    action: &SpellDiceAction,
    limits: &Limits,
) -> Result<CastPlan, ActionError> {
    let SpellDiceAction::Cast {
        spell_level,
        spell_dice,
        life_dice,
        penalties,
        removal_faces,
        removal_timing,
        life_damage,
        life_dice_use,
    } = action
    else {
        return Err(ActionError::Malformed {
            what: "action",
            message: "only a cast rolls dice, so only a cast has odds".to_string(),
        });
    };
    let mut problems = Problems::new();
    let level = SpellLevel::new(*spell_level)
        .map_err(|e| problems.push(e.to_string()))
        .unwrap_or(SpellLevel::AGNOSTIC);
    let faces = match removal_faces {
        None => state.rules.removal_faces,
        Some(highest) => RemovalFaces::up_to(*highest)
            .map_err(|e| problems.push(e.to_string()))
            .unwrap_or_default(),
    };
    let options = SpellDiceOptions {
        removal_faces: faces,
        removal_timing: removal_timing.unwrap_or(state.rules.removal_timing),
        life_damage: life_damage.unwrap_or(state.rules.life_damage),
        life_dice_use: life_dice_use.unwrap_or(state.rules.life_dice_use),
    };
    let caster = state.caster(limits).map_err(ActionError::rules)?;
    let request = CastRequest {
        spell_level: level,
        spell_dice: *spell_dice,
        life_dice: *life_dice,
        penalties: penalties.unwrap_or(state.penalties),
    };
    for problem in request_problems(&caster, &request, &options) {
        problems.push(problem.to_string());
    }
    problems
        .into_result(CastPlan {
            caster,
            request,
            options,
        })
        .map_err(Into::into)
}

fn dice_error(error: SpellDiceError) -> ActionError {
    match error {
        SpellDiceError::Core(core) => ActionError::Dice(core),
        other => ActionError::rules(other),
    }
}

fn with_caster(state: &SpellDiceState, caster: &Caster) -> SpellDiceState {
    SpellDiceState {
        pool: caster.pool(),
        ..state.clone()
    }
}

impl Stateful for SpellDiceGame {
    const NAME: &'static str = "spelldice";
    const VERSION: u32 = 1;
    type Sheet = SpellDiceSheet;
    type State = SpellDiceState;
    type Action = SpellDiceAction;

    fn actions() -> &'static [ActionInfo] {
        SPELLDICE_ACTIONS
    }

    fn create(sheet: SpellDiceSheet) -> Result<SpellDiceState, Problems> {
        let full = usize::try_from(sheet.level.max(0))
            .unwrap_or(usize::MAX)
            .saturating_add(super::BASE_POOL);
        let state = SpellDiceState {
            level: sheet.level,
            pool: sheet.pool.unwrap_or(full),
            penalties: sheet.penalties,
            life_damage_taken: 0,
            rules: sheet.rules,
        };
        Self::validate(&state).into_result(state)
    }

    fn validate(state: &SpellDiceState) -> Problems {
        let mut problems = Problems::new();
        if let Err(error) = state.caster(&Limits::default()) {
            problems.push(error.to_string());
        }
        if let Err(error) = state.penalties.total() {
            problems.push(error.to_string());
        }
        if state.life_damage_taken < 0 {
            problems.push(format!(
                "life-energy damage taken {} is negative; give the damage not yet healed, 0 or more",
                state.life_damage_taken
            ));
        }
        problems
    }

    fn apply(
        state: &SpellDiceState,
        action: &SpellDiceAction,
        source: &mut dyn DieSource,
        limits: &Limits,
    ) -> Result<(Value, SpellDiceState, String), ActionError> {
        match action {
            SpellDiceAction::Cast { .. } => {
                let plan = plan(state, action, limits)?;
                let done =
                    cast(&plan.caster, &plan.request, &plan.options, source).map_err(dice_error)?;
                let outcome = &done.outcome;
                let mut after = with_caster(state, &done.state);
                after.life_damage_taken =
                    after.life_damage_taken.saturating_add(outcome.life_damage);
                let result = json!({
                    "spell_dice": outcome.spell_dice,
                    "life_dice": outcome.life_dice,
                    "total": outcome.total,
                    "target": outcome.target,
                    "result": outcome.result,
                    "removed": outcome.removed,
                    "life_damage": outcome.life_damage,
                    "pool": done.state.pool(),
                    "can_reach": done.state.can_reach(outcome.target),
                });
                let mut summary = format!(
                    "{:?} = {} against {}: {}; spell dice lost {}, left {}",
                    done.dice,
                    outcome.total,
                    outcome.target,
                    outcome.result,
                    outcome.removed,
                    done.state.pool()
                );
                if !outcome.life_dice.is_empty() {
                    summary.push_str(&format!("; {} life damage", outcome.life_damage));
                }
                Ok((result, after, summary))
            }
            SpellDiceAction::Sleep {} => {
                let caster = state.caster(limits).map_err(dice_error)?.rest();
                let recovered = caster.pool() - state.pool;
                let summary = format!(
                    "a restful night's sleep: {recovered} spell dice recovered, {} in the pool",
                    caster.pool()
                );
                Ok((
                    json!({ "recovered": recovered, "pool": caster.pool() }),
                    with_caster(state, &caster),
                    summary,
                ))
            }
            SpellDiceAction::Heal { amount } => {
                let healed = match amount {
                    None => state.life_damage_taken,
                    Some(amount) if *amount < 0 => {
                        return Err(Problems(vec![format!(
                            "healing {amount} is negative; give the hit points restored"
                        )])
                        .into());
                    }
                    Some(amount) => (*amount).min(state.life_damage_taken),
                };
                let after = SpellDiceState {
                    life_damage_taken: state.life_damage_taken - healed,
                    ..state.clone()
                };
                let summary = format!(
                    "{healed} life-energy damage healed, {} left",
                    after.life_damage_taken
                );
                Ok((
                    json!({ "healed": healed, "life_damage_taken": after.life_damage_taken }),
                    after,
                    summary,
                ))
            }
        }
    }

    fn odds(
        state: &SpellDiceState,
        action: &SpellDiceAction,
        limits: &Limits,
    ) -> Result<Value, ActionError> {
        let plan = plan(state, action, limits)?;
        let outcomes = cast_distribution(&plan.caster, &plan.request, &plan.options, limits)
            .map_err(dice_error)?;
        let probability = |result: CastResult| {
            stateful::probability_json(&outcomes.probability_where(|o| o.result == result))
        };
        let removed: Distribution<usize> = outcomes.map(|o| o.removed);
        let life_damage: Distribution<i64> = outcomes.map(|o| o.life_damage);
        Ok(json!({
            "target": plan.request.spell_level.target(),
            "penalty": plan.request.penalties.total().map_err(dice_error)?,
            "success": stateful::probability_json(&outcomes.probability_where(|o| o.result.is_success())),
            "catastrophe": probability(CastResult::Catastrophe),
            "failure": probability(CastResult::Failure),
            "empowered": probability(CastResult::Empowered),
            "removed": stateful::distribution_json(&removed),
            "life_damage": stateful::distribution_json(&life_damage),
            "outcomes": stateful::distribution_json(&outcomes),
        }))
    }
}
