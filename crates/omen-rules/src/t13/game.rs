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
use crate::vocabulary::stateful::{self, ActionError, ActionInfo, Problems, Stateful};

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
    /// The level effects the last test left to spend (004-M5, M6, M7); none once spent or after a
    /// test with none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<LevelsToSpend>,
}

/// What the last test left to spend: Extra Success Level effects (capped by the character type) and
/// failure inversions to suffer, and with a Proficiency Crisis what has been gained or lost so far,
/// so that the two sides never cancel (004-M7).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LevelsToSpend {
    /// Extra Success Level effects left (004-M5).
    pub success: u64,
    /// Failure inversions left (004-M6).
    pub failure: u64,
    /// The test had a Proficiency Crisis (004-M7).
    pub crisis: bool,
    /// Currencies this test's success levels gained.
    pub gained: Vec<Currency>,
    /// Currencies this test's failure levels lost.
    pub lost: Vec<Currency>,
}

/// One level effect: an Extra Success Level effect of the character's tier or a failure inversion
/// (004-M5, M6). Gains and losses move `amount` (default 1: the seed leaves the size to the Ref).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LevelEffectName {
    GainSway,
    GainChi,
    GainYarn,
    CauseFear,
    NegateFear,
    CauseTerror,
    NegateTerror,
    CauseHorror,
    NegateHorror,
    OrdealCard,
    WyrdTarotCard,
    YarnEventCard,
    SetTone,
    LoseSway,
    LoseChi,
    LoseYarn,
    SufferFear,
    SufferTerror,
    SufferHorror,
    OpponentPlaysCard,
    OppositeTone,
}

impl LevelEffectName {
    /// For a success effect, the tier that may take it (1 every type, 2 Mercari and Solo, 3 Solo);
    /// `None` for a failure inversion.
    pub fn tier(self) -> Option<u8> {
        use LevelEffectName::*;
        match self {
            GainSway | CauseFear | NegateFear | OrdealCard | SetTone => Some(1),
            GainChi | CauseTerror | NegateTerror | WyrdTarotCard => Some(2),
            GainYarn | CauseHorror | NegateHorror | YarnEventCard => Some(3),
            _ => None,
        }
    }

    /// The currency a gain or a loss moves, and whether it is a gain.
    pub fn currency(self) -> Option<(Currency, bool)> {
        use LevelEffectName::*;
        match self {
            GainSway => Some((Currency::Sway, true)),
            GainChi => Some((Currency::Chi, true)),
            GainYarn => Some((Currency::Yarn, true)),
            LoseSway => Some((Currency::Sway, false)),
            LoseChi => Some((Currency::Chi, false)),
            LoseYarn => Some((Currency::Yarn, false)),
            _ => None,
        }
    }

    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

/// One effect bought with a level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LevelSpend {
    pub effect: LevelEffectName,
    /// Sway, Chi or Yarn gained or lost (gains and losses only).
    #[serde(default)]
    pub amount: Option<u64>,
}

fn tier_of(character: CharacterType) -> u8 {
    match character {
        CharacterType::Grunt => 1,
        CharacterType::Mercari => 2,
        CharacterType::Solo => 3,
    }
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
#[schemars(example = serde_json::json!({"action": "test", "boon": 6, "descendant": 10, "difficulty": 8}))]
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
        /// A bought die as KIND:SIDES:CURRENCY, e.g. skill:6:sway, one per die (Sway when the currency
        /// is left out).
        #[schemars(extend("x-cli-flag" = "buy"))]
        #[schemars(extend("x-cli-fields" = serde_json::json!(["kind", "sides", "currency"])))]
        #[serde(default)]
        bought: Vec<BoughtDieRequest>,
        /// Added to the total: negative for handicaps (004-A2).
        #[serde(default)]
        modifier: i64,
        /// The difficulty.
        #[serde(default)]
        difficulty: Option<i64>,
        /// The opponent's total, in an opposed test.
        #[schemars(extend("x-cli-flag" = "opponent"))]
        #[serde(default)]
        opponent_total: Option<i64>,
        /// An opponent who rolls too (004-M3, A7): the sides of each of their dice, rolled after
        /// yours; their total (plus `opponent_modifier`) plays the difficulty.
        #[serde(default)]
        #[schemars(extend("x-cli-flag" = "opponent-die"))]
        opponent_dice: Vec<i64>,
        /// Added to the opponent's rolled total.
        #[serde(default)]
        opponent_modifier: i64,
        #[serde(default)]
        crisis_trigger: CrisisTrigger,
    },
    /// Spends the levels the last test left (004-M5, M6, M7): each Extra Success Level effect of the
    /// character's tier, each failure inversion, gains and losses credited to the balances; with a
    /// Proficiency Crisis, a loss never takes back a gain of the same currency (nor the reverse).
    SpendLevels {
        /// An effect, NAME or NAME:AMOUNT, one per level: an Extra Success Level effect of the
        /// character's tier or a failure inversion; a gain or loss moves AMOUNT (1 when left out).
        #[schemars(extend("x-cli-flag" = "effect"))]
        #[schemars(extend("x-cli-fields" = serde_json::json!(["effect", "amount"])))]
        effects: Vec<LevelSpend>,
    },
    /// Adds to the balances (success levels spent on Gain…, awards).
    Gain {
        /// Sway gained.
        #[serde(default)]
        sway: u64,
        /// Chi gained.
        #[serde(default)]
        chi: u64,
        /// Yarn gained.
        #[serde(default)]
        yarn: u64,
    },
    /// Takes from the balances, never below 0 (failure levels, purchases outside a test). A shortfall
    /// is refused unless `shortfall_paid_as` names another way to pay it (004-M8); paid as lost
    /// proficiencies, the character loses one Proficiency die.
    Spend {
        /// Sway spent.
        #[serde(default)]
        sway: u64,
        /// Chi spent.
        #[serde(default)]
        chi: u64,
        /// Yarn spent.
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
        name: "spend-levels",
        spec_items: &["004-M5", "004-M6", "004-M7"],
        summary: "spend the last test's extra success levels on the tier's effects and suffer its \
                  failure inversions; a crisis's two sides never cancel",
        rolls: false,
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
    /// The opponent's dice (sides) and modifier, when the opponent rolls too.
    opponent_roll: Option<(Vec<i64>, i64)>,
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
        opponent_dice,
        opponent_modifier,
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
    let rolls = !opponent_dice.is_empty();
    for &sides in opponent_dice {
        if sides < 1 {
            problems.push(format!(
                "an opponent's die of {sides} sides; give at least 1"
            ));
        }
    }
    let opposition = match (difficulty, opponent_total, rolls) {
        (Some(d), None, false) => Difficulty::new(*d)
            .map_err(|e| problems.push(e.to_string()))
            .ok(),
        (None, Some(total), false) => Difficulty::opponent_total(*total)
            .map_err(|e| problems.push(e.to_string()))
            .ok(),
        // Replaced by the opponent's rolled total.
        (None, None, true) => Difficulty::new(1).ok(),
        (None, None, false) => {
            problems.push(
                "a test needs a difficulty or an opponent's total (or the opponent's dice); give one",
            );
            None
        }
        _ => {
            problems.push(
                "give a difficulty or an opponent's total, not both (nor the opponent's dice with either)",
            );
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
            opponent_roll: rolls.then(|| (opponent_dice.clone(), *opponent_modifier)),
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
    match (&plan.opponent_roll, plan.opponent_total) {
        (Some((dice, modifier)), _) => {
            json!({ "opponent_dice": dice, "opponent_modifier": modifier })
        }
        (None, Some(total)) => json!({ "opponent_total": total }),
        (None, None) => json!({ "difficulty": plan.opposition.value() }),
    }
}

/// The opponent's total as an exact distribution.
fn opponent_distribution(
    dice: &[i64],
    modifier: i64,
    limits: &Limits,
) -> Result<omen_core::Distribution<i64>, T13Error> {
    let mut budget = limits.budget();
    let mut total = omen_core::Distribution::constant(modifier);
    for &sides in dice {
        total = total.add(&omen_core::Distribution::die(sides)?, limits, &mut budget)?;
    }
    Ok(total)
}

/// The levels a test leaves to spend (004-M5, M6, M7): the extra success levels of the level rolled
/// (capped by type) and the failure inversions beyond Complete Failure (against an opponent, only
/// those beyond the opponent's success levels); with a crisis, the opposite level's as well.
fn levels_to_spend(
    result: &super::TestResult,
    character: CharacterType,
    opponent_levels: Option<u64>,
) -> LevelsToSpend {
    let cap = character.max_success_levels();
    let mut success = result.extra_success_levels(character);
    let mut failure =
        suffered_failure_levels(result.failure_levels, opponent_levels).saturating_sub(2);
    if let Some((level, levels)) = result.crisis_opposite() {
        if level.is_success() {
            success += levels.min(cap).saturating_sub(2);
        } else {
            failure += suffered_failure_levels(levels, opponent_levels).saturating_sub(2);
        }
    }
    LevelsToSpend {
        success,
        failure,
        crisis: result.crisis,
        gained: Vec::new(),
        lost: Vec::new(),
    }
}

fn spend_levels(
    state: &T13State,
    effects: &[LevelSpend],
) -> Result<(Value, T13State, String), ActionError> {
    let Some(mut left) = state.levels.clone() else {
        return Err(Problems(vec![
            "the last test left no levels to spend; roll a test first".to_string(),
        ])
        .into());
    };
    let mut after = state.clone();
    let mut problems = Problems::new();
    let mut done = Vec::new();
    let tier = tier_of(state.character_type);
    for spend in effects {
        let name = spend.effect.name();
        let success = spend.effect.tier().is_some();
        if let Some(needed) = spend.effect.tier()
            && needed > tier
        {
            problems.push(format!(
                "a {} cannot take {name}: it is an effect of tier {needed} (004-M5)",
                state.character_type.name()
            ));
            continue;
        }
        let pool = if success {
            &mut left.success
        } else {
            &mut left.failure
        };
        if *pool == 0 {
            problems.push(format!(
                "no {} left for {name}",
                if success {
                    "extra success level"
                } else {
                    "failure level"
                }
            ));
            continue;
        }
        *pool -= 1;
        let amount = spend.amount.unwrap_or(1);
        if spend.amount.is_some() && spend.effect.currency().is_none() {
            problems.push(format!(
                "{name} moves no Sway, Chi or Yarn; leave out its amount"
            ));
            continue;
        }
        if let Some((currency, gain)) = spend.effect.currency() {
            let (same, other) = if gain {
                (&mut left.gained, &left.lost)
            } else {
                (&mut left.lost, &left.gained)
            };
            if left.crisis && other.contains(&currency) {
                problems.push(format!(
                    "{name}: the Proficiency Crisis's levels must not cancel each other, and this \
                     test already {} {} (004-M7); choose another effect",
                    if gain { "lost" } else { "gained" },
                    currency.name()
                ));
                continue;
            }
            if !same.contains(&currency) {
                same.push(currency);
            }
            let balance = match currency {
                Currency::Sway => &mut after.sway,
                Currency::Chi => &mut after.chi,
                Currency::Yarn => &mut after.yarn,
            };
            *balance = if gain {
                balance.saturating_add(amount)
            } else {
                balance.saturating_sub(amount)
            };
            done.push(format!("{name} {amount}"));
        } else {
            done.push(name);
        }
    }
    problems.into_result(())?;
    let remaining = json!({ "success": left.success, "failure": left.failure });
    after.levels = (left.success > 0 || left.failure > 0).then_some(left);
    let summary = format!(
        "levels spent: {}; now {} sway, {} chi, {} yarn",
        done.join(", "),
        after.sway,
        after.chi,
        after.yarn
    );
    Ok((
        json!({ "spent": done, "left": remaining, "sway": after.sway, "chi": after.chi,
                "yarn": after.yarn }),
        after,
        summary,
    ))
}

fn level_counts(success: u64, failure: u64) -> String {
    match (success, failure) {
        (0, 0) => "no levels".to_string(),
        (s, 0) => format!("{s} success level{}", if s == 1 { "" } else { "s" }),
        (_, f) => format!("{f} failure level{}", if f == 1 { "" } else { "s" }),
    }
}

/// A Dice Test (004-M1..M5, M7): the roll, the levels to spend and what it cost.
fn apply_test(
    state: &T13State,
    action: &T13Action,
    source: &mut dyn DieSource,
    limits: &Limits,
) -> Result<(Value, T13State, String), ActionError> {
    let plan = plan(state, action, limits)?;
    let mut roll = test(&plan.dice, plan.opposition, &plan.options, source).map_err(dice_error)?;
    let opponent_rolled = roll_opponent(&plan, &mut roll, source)?;
    let opponent_total = opponent_rolled
        .as_ref()
        .map(|(_, t)| *t)
        .or(plan.opponent_total);
    let mut after = paid(state, &plan.cost);
    let result = roll.result;
    let opponent_levels = opponent_total.map(|total| opponent_success_levels(roll.total, total));
    let to_spend = levels_to_spend(&result, state.character_type, opponent_levels);
    after.levels = (to_spend.success > 0 || to_spend.failure > 0).then_some(to_spend.clone());
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
        "opponent_dice": opponent_rolled.as_ref().map(|(faces, _)| faces),
        "opponent_rolled_total": opponent_rolled.as_ref().map(|(_, total)| total),
        "to_spend": { "success": to_spend.success, "failure": to_spend.failure },
        "paid": plan.cost,
    });
    let summary = test_summary(&plan, &roll, opponent_rolled.as_ref(), &to_spend);
    Ok((value, after, summary))
}

/// The opponent's roll when the opponent rolls too: its faces and total, and `roll`'s result
/// against that total.
fn roll_opponent(
    plan: &TestPlan,
    roll: &mut super::TestRoll,
    source: &mut dyn DieSource,
) -> Result<Option<(Vec<i64>, i64)>, ActionError> {
    Ok(match &plan.opponent_roll {
        Some((dice, modifier)) => {
            let faces = dice
                .iter()
                .map(|&sides| source.roll(&omen_core::Die::Standard(sides.unsigned_abs())))
                .collect::<Result<Vec<_>, _>>()?;
            let total = faces
                .iter()
                .try_fold(*modifier, |a, &b| a.checked_add(b))
                .ok_or(omen_core::CoreError::Overflow)?;
            roll.result = super::TestResult::new(
                roll.total,
                Difficulty::opponent_total(total.max(1)).map_err(dice_error)?,
                roll.result.crisis,
            );
            Some((faces, total))
        }
        None => None,
    })
}

/// A Dice Test's summary: the dice against the opposition, the level, any crisis, what is left to
/// spend and what was paid.
fn test_summary(
    plan: &TestPlan,
    roll: &super::TestRoll,
    opponent_rolled: Option<&(Vec<i64>, i64)>,
    to_spend: &LevelsToSpend,
) -> String {
    let result = roll.result;
    let against = match &opponent_rolled {
        Some((faces, total)) => format!("the opponent's {faces:?} = {total}"),
        None => plan.opposition.to_string(),
    };
    let mut summary = format!(
        "{:?} = {} against {against}: {} ({})",
        roll.dice(),
        roll.total,
        result.level,
        level_counts(result.success_levels, result.failure_levels)
    );
    if let Some((level, levels)) = result.crisis_opposite() {
        let counts = if level.is_success() {
            level_counts(levels, 0)
        } else {
            level_counts(0, levels)
        };
        summary.push_str(&format!(", Proficiency Crisis: also {level} ({counts})"));
    }
    if to_spend.success > 0 || to_spend.failure > 0 {
        summary.push_str(&format!(
            "; to spend: {} extra success level(s), {} failure inversion(s)",
            to_spend.success, to_spend.failure
        ));
    }
    if plan.cost != Cost::default() {
        summary.push_str(&format!(
            "; paid {} sway, {} chi, {} yarn",
            plan.cost.sway, plan.cost.chi, plan.cost.yarn
        ));
    }
    summary
}

/// Sway, Chi and Yarn gained (004-M6).
fn gain(
    state: &T13State,
    sway: u64,
    chi: u64,
    yarn: u64,
) -> Result<(Value, T13State, String), ActionError> {
    let mut problems = Problems::new();
    let mut add = |has: u64, more: u64, name: &str| {
        has.checked_add(more).unwrap_or_else(|| {
            problems.push(format!("{name} would overflow; gain a sensible amount"));
            has
        })
    };
    let after = T13State {
        sway: add(state.sway, sway, "sway"),
        chi: add(state.chi, chi, "chi"),
        yarn: add(state.yarn, yarn, "yarn"),
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

/// Sway, Chi and Yarn spent, a shortfall paid another way at the Ref's choice (004-M8).
fn spend(
    state: &T13State,
    cost: Cost,
    shortfall_paid_as: Option<LossPayment>,
) -> Result<(Value, T13State, String), ActionError> {
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
            T13Action::Test { .. } => apply_test(state, action, source, limits),
            T13Action::SpendLevels { effects } => spend_levels(state, effects),
            T13Action::Gain { sway, chi, yarn } => gain(state, *sway, *chi, *yarn),
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
                spend(state, cost, *shortfall_paid_as)
            }
        }
    }

    fn odds(state: &T13State, action: &T13Action, limits: &Limits) -> Result<Value, ActionError> {
        let plan = plan(state, action, limits)?;
        let outcomes = match &plan.opponent_roll {
            Some((dice, modifier)) => {
                let theirs = opponent_distribution(dice, *modifier, limits).map_err(dice_error)?;
                plan.dice
                    .opposed_outcome_distribution(&theirs, &plan.options, limits)
                    .map_err(dice_error)?
            }
            None => plan
                .dice
                .outcome_distribution(plan.opposition, &plan.options, limits)
                .map_err(dice_error)?,
        };
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
