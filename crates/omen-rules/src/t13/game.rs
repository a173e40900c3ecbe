//! Seed 004's characters as a stateful game: Sway, Chi and Yarn balances, the character type and the
//! Proficiency dice, kept between Dice Tests (004-M1, M2, M5, M6, M8).

use omen_core::{DieSource, Limits};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    BoughtDie, CharacterType, Cost, CrisisTrigger, Currency, DiceSpec, Difficulty, LossPayment,
    MAX_PROFICIENCY_DICE, ResultLevel, T13Error, T13Options, TestDice, opponent_success_levels,
    suffered_failure_levels, test,
};
use crate::stateful::{self, ActionError, ActionInfo, Problems, Stateful};

/// Seed 004's characters: type, Sway, Chi and Yarn, and Proficiency dice.
///
/// ```
/// use omen_core::{Limits, ScriptedDice};
/// use serde_json::json;
///
/// let t13 = omen_rules::stateful::game("t13").expect("t13 keeps state");
/// let hero = t13.new_character(&json!({ "sway": 5, "proficiency": 1 }))?;
/// // A Boon d6, the Proficiency d8 and a Skill d6 bought for 4 Sway, against difficulty 4.
/// let test = json!({ "action": "test", "boon": 6, "difficulty": 4,
///                    "bought": [{ "kind": "skill", "sides": 6 }] });
/// let applied = t13.apply(&hero, &test, &mut ScriptedDice::new(vec![3, 5, 2]), &Limits::default())?;
/// assert_eq!(applied.result["level"], "complete-success");
/// assert_eq!(applied.state["sway"], 1);
/// // The same test again would need 4 Sway: it is refused, and nothing changes.
/// assert!(t13.apply(&applied.state, &test, &mut ScriptedDice::new(vec![]), &Limits::default()).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct T13Game;

/// A T13 character as the game keeps it; also its sheet. Every field is optional. JSON:
/// `{"character_type": "mercari", "sway": 12, "chi": 3, "yarn": 1, "proficiency": 2}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(example = serde_json::json!({"character_type": "mercari", "sway": 12, "chi": 3, "yarn": 1, "proficiency": 2}))]
pub struct T13State {
    /// Grunt, Mercari or Solo: caps the success levels (004-M5).
    pub character_type: CharacterType,
    pub sway: u64,
    pub chi: u64,
    pub yarn: u64,
    /// Proficiency d8s the character has, at most 4 (004-M1).
    pub proficiency: usize,
}

/// A die bought into a test (004-M2, D1, A5, A6): what it comes from (`facet`, `skill`, … or another
/// name of the row such as `pact`), its sides, and the currency it is paid in (Sway by default).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoughtDieRequest {
    pub kind: String,
    pub sides: i64,
    #[serde(default)]
    pub currency: Currency,
}

/// What a T13 character can do. JSON:
/// `{"action": "test", "boon": 6, "descendant": 10, "bought": [{"kind": "skill", "sides": 6}], "difficulty": 8}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "kebab-case", deny_unknown_fields)]
pub enum T13Action {
    /// A Dice Test (004-M1..M7): the free dice, the bought ones paid from the balances, against a set
    /// difficulty or an opponent's total (exactly one of the two).
    Test {
        /// Sides of the Boon die, if one is rolled.
        #[serde(default)]
        boon: Option<i64>,
        /// Sides of the Descendant die, if one is rolled.
        #[serde(default)]
        descendant: Option<i64>,
        /// Proficiency d8s to roll; all the character has (at most 4) when absent.
        #[serde(default)]
        proficiency: Option<usize>,
        #[serde(default)]
        bought: Vec<BoughtDieRequest>,
        /// Added to the total: negative for handicaps (004-A2).
        #[serde(default)]
        modifier: i64,
        #[serde(default)]
        difficulty: Option<i64>,
        #[serde(default)]
        opponent_total: Option<i64>,
        #[serde(default)]
        crisis_trigger: CrisisTrigger,
    },
    /// Adds to the balances (success levels spent on Gain…, awards).
    Gain {
        #[serde(default)]
        sway: u64,
        #[serde(default)]
        chi: u64,
        #[serde(default)]
        yarn: u64,
    },
    /// Takes from the balances, never below 0 (failure levels, purchases outside a test). A shortfall
    /// is refused unless `shortfall_paid_as` names another way to pay it (004-M8); paid as lost
    /// proficiencies, the character loses one Proficiency die.
    Spend {
        #[serde(default)]
        sway: u64,
        #[serde(default)]
        chi: u64,
        #[serde(default)]
        yarn: u64,
        #[serde(default)]
        shortfall_paid_as: Option<LossPayment>,
    },
}

const T13_ACTIONS: &[ActionInfo] = &[
    ActionInfo {
        name: "test",
        spec_items: &[
            "004-M1", "004-M2", "004-D1", "004-M3", "004-M4", "004-M5", "004-M6", "004-M7",
            "004-A1", "004-A2", "004-A3", "004-A4", "004-A5", "004-A6", "004-A7",
        ],
        summary: "a Dice Test: free and bought dice (paid from the balances) against a difficulty or \
                  an opponent's total",
        rolls: true,
    },
    ActionInfo {
        name: "gain",
        spec_items: &["004-M5"],
        summary: "add Sway, Chi or Yarn",
        rolls: false,
    },
    ActionInfo {
        name: "spend",
        spec_items: &["004-M6", "004-M8"],
        summary: "take Sway, Chi or Yarn, never below 0; a shortfall may be paid another way",
        rolls: false,
    },
];

fn balance(state: &T13State, currency: Currency) -> u64 {
    match currency {
        Currency::Sway => state.sway,
        Currency::Chi => state.chi,
        Currency::Yarn => state.yarn,
    }
}

fn amount(cost: &Cost, currency: Currency) -> u64 {
    match currency {
        Currency::Sway => cost.sway,
        Currency::Chi => cost.chi,
        Currency::Yarn => cost.yarn,
    }
}

/// Each currency in which `cost` exceeds the balances, as a problem naming the shortfall.
fn shortfalls(state: &T13State, cost: &Cost) -> Vec<(Currency, u64, u64)> {
    Currency::ALL
        .into_iter()
        .filter_map(|currency| {
            let (needed, has) = (amount(cost, currency), balance(state, currency));
            (needed > has).then_some((currency, needed, has))
        })
        .collect()
}

fn short_text(currency: Currency, needed: u64, has: u64) -> String {
    format!(
        "{needed} {} but the character has {has} (short {})",
        currency.name(),
        needed - has
    )
}

/// The balances after paying `cost` (the caller has checked they suffice).
fn paid(state: &T13State, cost: &Cost) -> T13State {
    T13State {
        sway: state.sway.saturating_sub(cost.sway),
        chi: state.chi.saturating_sub(cost.chi),
        yarn: state.yarn.saturating_sub(cost.yarn),
        ..state.clone()
    }
}

/// A test as the action asks for it, checked with every problem listed.
struct TestPlan {
    dice: TestDice,
    opposition: Difficulty,
    opponent_total: Option<i64>,
    options: T13Options,
    cost: Cost,
}

fn plan(state: &T13State, action: &T13Action, limits: &Limits) -> Result<TestPlan, ActionError> {
    let T13Action::Test {
        boon,
        descendant,
        proficiency,
        bought,
        modifier,
        difficulty,
        opponent_total,
        crisis_trigger,
    } = action
    else {
        return Err(ActionError::Malformed {
            what: "action",
            message: "only a test rolls dice, so only a test has odds".to_string(),
        });
    };
    let mut problems = Problems::new();
    let owned = state.proficiency.min(MAX_PROFICIENCY_DICE);
    let proficiency = proficiency.unwrap_or(owned);
    if proficiency > state.proficiency {
        problems.push(format!(
            "the character has {} proficiency dice, not {proficiency}; roll at most {}",
            state.proficiency, owned
        ));
    }
    let mut dice = Vec::new();
    for die in bought {
        match super::PurchaseKind::from_name(&die.kind) {
            Ok(kind) => dice.push(BoughtDie {
                kind,
                sides: die.sides,
                currency: die.currency,
            }),
            Err(error) => problems.push(error.to_string()),
        }
    }
    let opposition = match (difficulty, opponent_total) {
        (Some(d), None) => Difficulty::new(*d)
            .map_err(|e| problems.push(e.to_string()))
            .ok(),
        (None, Some(total)) => Difficulty::opponent_total(*total)
            .map_err(|e| problems.push(e.to_string()))
            .ok(),
        (Some(_), Some(_)) => {
            problems.push("give a difficulty or an opponent's total, not both");
            None
        }
        (None, None) => {
            problems.push("a test needs a difficulty or an opponent's total; give one");
            None
        }
    };
    let spec = DiceSpec {
        boon: *boon,
        descendant: *descendant,
        proficiency,
        bought: dice,
        modifier: *modifier,
    };
    let dice = TestDice::new(spec, limits)
        .map_err(|e| problems.push(e.to_string()))
        .ok();
    let cost = dice.as_ref().map(TestDice::cost).unwrap_or_default();
    for (currency, needed, has) in shortfalls(state, &cost) {
        problems.push(format!(
            "the bought dice cost {}; buy fewer dice or pay in another currency",
            short_text(currency, needed, has)
        ));
    }
    match (dice, opposition) {
        (Some(dice), Some(opposition)) if problems.is_empty() => Ok(TestPlan {
            dice,
            opposition,
            opponent_total: *opponent_total,
            options: T13Options {
                crisis_trigger: *crisis_trigger,
            },
            cost,
        }),
        _ => Err(problems.into()),
    }
}

fn dice_error(error: T13Error) -> ActionError {
    match error {
        T13Error::Core(core) => ActionError::Dice(core),
        other => ActionError::rules(other),
    }
}

fn opposition_json(plan: &TestPlan) -> Value {
    match plan.opponent_total {
        Some(total) => json!({ "opponent_total": total }),
        None => json!({ "difficulty": plan.opposition.value() }),
    }
}

impl Stateful for T13Game {
    const NAME: &'static str = "t13";
    const VERSION: u32 = 1;
    type Sheet = T13State;
    type State = T13State;
    type Action = T13Action;

    fn actions() -> &'static [ActionInfo] {
        T13_ACTIONS
    }

    fn create(sheet: T13State) -> Result<T13State, Problems> {
        Self::validate(&sheet).into_result(sheet)
    }

    fn validate(state: &T13State) -> Problems {
        let mut problems = Problems::new();
        if state.proficiency > MAX_PROFICIENCY_DICE {
            problems.push(format!(
                "{} proficiency dice is more than the 4 a character rolls; give at most 4",
                state.proficiency
            ));
        }
        problems
    }

    fn apply(
        state: &T13State,
        action: &T13Action,
        source: &mut dyn DieSource,
        limits: &Limits,
    ) -> Result<(Value, T13State, String), ActionError> {
        match action {
            T13Action::Test { .. } => {
                let plan = plan(state, action, limits)?;
                let roll =
                    test(&plan.dice, plan.opposition, &plan.options, source).map_err(dice_error)?;
                let after = paid(state, &plan.cost);
                let result = roll.result;
                let opponent_levels = plan
                    .opponent_total
                    .map(|total| opponent_success_levels(roll.total, total));
                let character = state.character_type;
                let crisis_opposite = result.crisis_opposite().map_or(
                    Value::Null,
                    |(level, levels)| json!({ "level": level, "levels": levels }),
                );
                let value = json!({
                    "boon": roll.boon,
                    "descendant": roll.descendant,
                    "proficiency": roll.proficiency,
                    "bought": roll.bought,
                    "total": roll.total,
                    "opposition": opposition_json(&plan),
                    "level": result.level,
                    "success_levels": result.success_levels,
                    "capped_success_levels": result.capped_success_levels(character),
                    "extra_success_levels": result.extra_success_levels(character),
                    "failure_levels": result.failure_levels,
                    "opponent_success_levels": opponent_levels,
                    "failure_levels_suffered": suffered_failure_levels(result.failure_levels, opponent_levels),
                    "crisis": result.crisis,
                    "crisis_opposite": crisis_opposite,
                    "paid": plan.cost,
                });
                let mut summary = format!(
                    "{:?} = {} against {}: {}",
                    roll.dice(),
                    roll.total,
                    plan.opposition,
                    result.level
                );
                if let Some((level, _)) = result.crisis_opposite() {
                    summary.push_str(&format!(", Proficiency Crisis: also {level}"));
                }
                if plan.cost != Cost::default() {
                    summary.push_str(&format!(
                        "; paid {} sway, {} chi, {} yarn",
                        plan.cost.sway, plan.cost.chi, plan.cost.yarn
                    ));
                }
                Ok((value, after, summary))
            }
            T13Action::Gain { sway, chi, yarn } => {
                let mut problems = Problems::new();
                let mut add = |has: u64, more: u64, name: &str| {
                    has.checked_add(more).unwrap_or_else(|| {
                        problems.push(format!("{name} would overflow; gain a sensible amount"));
                        has
                    })
                };
                let after = T13State {
                    sway: add(state.sway, *sway, "sway"),
                    chi: add(state.chi, *chi, "chi"),
                    yarn: add(state.yarn, *yarn, "yarn"),
                    ..state.clone()
                };
                problems.into_result(())?;
                let summary = format!(
                    "gained {sway} sway, {chi} chi, {yarn} yarn: now {} / {} / {}",
                    after.sway, after.chi, after.yarn
                );
                Ok((
                    json!({ "sway": after.sway, "chi": after.chi, "yarn": after.yarn }),
                    after,
                    summary,
                ))
            }
            T13Action::Spend {
                sway,
                chi,
                yarn,
                shortfall_paid_as,
            } => {
                let cost = Cost {
                    sway: *sway,
                    chi: *chi,
                    yarn: *yarn,
                };
                let short = shortfalls(state, &cost);
                if !short.is_empty() && shortfall_paid_as.is_none() {
                    let ways: Vec<&str> = LossPayment::ALL.iter().map(|w| w.name()).collect();
                    let mut problems: Vec<String> = short
                        .iter()
                        .map(|&(currency, needed, has)| {
                            format!("spending {}", short_text(currency, needed, has))
                        })
                        .collect();
                    problems.push(format!(
                        "a loss beyond the balances may be paid another way at the Ref's choice; give shortfall_paid_as: {}",
                        ways.join(", ")
                    ));
                    return Err(Problems(problems).into());
                }
                let mut after = paid(state, &cost);
                let shortfall = json!(
                    short
                        .iter()
                        .map(|&(currency, needed, has)| (currency.name(), needed - has))
                        .collect::<std::collections::BTreeMap<_, _>>()
                );
                let paid_as = shortfall_paid_as.filter(|_| !short.is_empty());
                if paid_as == Some(LossPayment::LostProficiencies) {
                    after.proficiency = after.proficiency.saturating_sub(1);
                }
                let mut summary = format!(
                    "spent: now {} sway, {} chi, {} yarn",
                    after.sway, after.chi, after.yarn
                );
                if let Some(way) = paid_as {
                    summary.push_str(&format!("; the shortfall is paid as {}", way.description()));
                }
                let result = json!({
                    "sway": after.sway,
                    "chi": after.chi,
                    "yarn": after.yarn,
                    "shortfall": shortfall,
                    "shortfall_paid_as": paid_as,
                });
                Ok((result, after, summary))
            }
        }
    }

    fn odds(state: &T13State, action: &T13Action, limits: &Limits) -> Result<Value, ActionError> {
        let plan = plan(state, action, limits)?;
        let outcomes = plan
            .dice
            .outcome_distribution(plan.opposition, &plan.options, limits)
            .map_err(dice_error)?;
        let levels = outcomes.map(|r| r.level);
        let character = state.character_type;
        let extra = outcomes.map(|r| r.extra_success_levels(character));
        let crisis = outcomes.probability_where(|r| r.crisis);
        Ok(json!({
            "opposition": opposition_json(&plan),
            "cost": plan.cost,
            "levels": stateful::distribution_json(&levels),
            "success": stateful::probability_json(&outcomes.probability_where(|r| r.level.is_success())),
            "borderline": stateful::probability_json(&outcomes.probability_where(|r| r.level == ResultLevel::Borderline)),
            "failure": stateful::probability_json(&outcomes.probability_where(|r| r.level.is_failure())),
            "extra_success_levels": stateful::distribution_json(&extra),
            "crisis": stateful::probability_json(&crisis),
        }))
    }
}
