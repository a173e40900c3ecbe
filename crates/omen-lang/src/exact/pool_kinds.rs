//! The exact engine's pools read by kind of die: `reroll` of a pool of several kinds (each die
//! rolled again as the die it is), a capped `reroll(p, f, n)`, Cortex Prime's `effect(p, k)`, and
//! pools of exploding dice.
//!
//! The core's walk ([`omen_core::multiset::read`]) tells a reading how many dice show each face,
//! not which kinds they are, and starts from one count per group. These readings need both: an
//! effect die is a die's size, a rerolled d8 rolls a d8, and an exploding pool's size is itself
//! random. So this walk is the core's walk over outcomes from the lowest, groups of dice placed
//! as they show each outcome, with two changes: a reading sees how many dice of each group show
//! the outcome, and the walk may start from several weighted counts of dice (for an exploding
//! pool, one per number of dice the explosions add; see [`super::pool_explode`]). The builtin
//! readings and the designer's folds ride along as in the core's walk, so every reading of the
//! pool stays joint.

use std::collections::{BTreeMap, HashMap};

use num_traits::{One, Zero};
use omen_core::multiset::{Builtin, Group, Reading, Readings};
use omen_core::{CoreError, Distribution, Limits, Probability, Weight, binomial_rows};

use super::pool_fold::FoldTable;
use crate::pool::{EFFECT_DEFAULT, Kept};
use crate::value::Value;

/// A pool ready for the walk: its groups, the kind of each, and the counts it may start from.
pub(super) struct KindPool {
    pub groups: Vec<Group>,
    /// The kind of each group: the member of the pool it comes from.
    pub kinds: Vec<usize>,
    /// The size of each kind's dice (0 when it has none).
    pub sizes: Vec<u64>,
    /// The dice of each group the walk starts from, each with its weight; the weights over a
    /// common total, each start's dice weighing the product of their dice's weights.
    pub starts: Vec<(Vec<usize>, Weight)>,
    /// The chance an explosion was cut short at the depth limit.
    pub truncated: Probability,
}

/// A reading only this walk can take: it needs the kinds of the dice.
#[derive(Clone, Debug)]
pub(super) enum Native {
    /// `reroll(p, f, cap)`'s reading of `p`, with `f(face)` for every face.
    Kept {
        choices: BTreeMap<i64, bool>,
        cap: usize,
    },
    /// `effect(p, k)`.
    Effect { k: i64 },
}

/// A native reading's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum NativeState {
    Kept(Kept),
    /// The largest size left for the effect so far (0 for none). How many dice are still to
    /// come is the walk's own count, so that the states of pools of different sizes (an exploding
    /// pool's starts) merge.
    Effect {
        best: u64,
    },
}

/// Every reading of one pool: the builtins, the folds (by their table), the native readings.
pub(super) struct KindJoint<'t> {
    pub builtins: Readings,
    /// The table and the indices of its folds' readings, in order.
    pub table: Option<(&'t FoldTable, Vec<usize>)>,
    pub natives: Vec<Native>,
    /// The order a capped reroll takes kinds of dice showing one face in.
    pub order: Vec<usize>,
}

type State = (Vec<i64>, Vec<Value>, Vec<NativeState>);

/// What the walk gives for each roll: the builtins' values, the folds' states, the natives'
/// values, each in its readings' order.
pub(super) type Joint = (Vec<i64>, Vec<Value>, Vec<Value>);

impl KindJoint<'_> {
    fn initial(&self, dice: usize, kinds: usize) -> State {
        // Only the readings ranked from the top need the pool's size; without them, the states
        // of an exploding pool's starts of different sizes merge.
        let ranked = self
            .builtins
            .0
            .iter()
            .any(|b| matches!(b, Builtin::SumHighest(_) | Builtin::NthHighest(_)));
        let dice = if ranked { dice } else { 0 };
        let folds = match &self.table {
            Some((table, indices)) => indices
                .iter()
                .map(|&i| table.start(i).unwrap_or(Value::Int(0)))
                .collect(),
            None => Vec::new(),
        };
        let natives = self
            .natives
            .iter()
            .map(|n| match n {
                Native::Kept { .. } => NativeState::Kept(Kept::new(kinds)),
                Native::Effect { .. } => NativeState::Effect { best: 0 },
            })
            .collect();
        (self.builtins.initial(dice), folds, natives)
    }

    /// The state after `by_kind[k]` dice of kind `k` show `outcome`, of `left` dice not placed
    /// before it; `sizes` are the kinds' sizes.
    fn next(
        &self,
        state: &State,
        outcome: i64,
        (by_kind, left): (&[usize], usize),
        sizes: &[u64],
    ) -> Result<State, CoreError> {
        let count: usize = by_kind.iter().sum();
        let builtins = self.builtins.next(&state.0, outcome, count)?;
        let mut folds = Vec::with_capacity(state.1.len());
        if let Some((table, indices)) = &self.table {
            for (&i, s) in indices.iter().zip(&state.1) {
                // The exploration took every transition the walk can take.
                folds.push(table.next(i, s, outcome, count).ok_or(CoreError::Empty)?);
            }
        }
        let mut natives = state.2.clone();
        for (native, s) in self.natives.iter().zip(&mut natives) {
            match (native, s) {
                (Native::Kept { choices, cap }, NativeState::Kept(kept)) => {
                    let again = choices.get(&outcome).copied().unwrap_or(false);
                    kept.next(outcome, by_kind, again, *cap, &self.order);
                }
                (Native::Effect { k }, NativeState::Effect { best }) => {
                    // The dice still to come are all higher; of these, the top ones up to k are
                    // taken, the smaller dice first, so any left include the largest shown.
                    let above = left.saturating_sub(count) as i64;
                    let taken = k.saturating_sub(above).clamp(0, count as i64) as usize;
                    if count > taken && outcome != 1 {
                        let largest = by_kind
                            .iter()
                            .zip(sizes)
                            .filter(|(n, _)| **n > 0)
                            .map(|(_, &size)| size)
                            .max()
                            .unwrap_or(0);
                        *best = (*best).max(largest);
                    }
                }
                _ => {}
            }
        }
        Ok((builtins, folds, natives))
    }

    fn finish(&self, state: &State) -> Joint {
        let natives = state
            .2
            .iter()
            .map(|s| match s {
                NativeState::Kept(kept) => kept.to_value(),
                NativeState::Effect { best: 0, .. } => Value::Int(EFFECT_DEFAULT),
                NativeState::Effect { best, .. } => {
                    Value::Int(i64::try_from(*best).unwrap_or(i64::MAX))
                }
            })
            .collect();
        (self.builtins.finish(&state.0), state.1.clone(), natives)
    }
}

/// What one outcome's step pays for each split of a state's dice it tries: a state's clone and
/// hash, and a product of weights as wide as the pool's total.
const SPLIT_COST: u128 = 64;

/// The joint distribution of every reading of the pool.
///
/// # Errors
/// [`CoreError`] when the walk's states pass `max_states` or its work the budget (charged for
/// each outcome before it is walked), or a reading overflows.
pub(super) fn read_kinds(
    pool: &KindPool,
    reading: &KindJoint,
    limits: &Limits,
    budget: &mut omen_core::Budget,
) -> Result<Distribution<Joint>, CoreError> {
    let kinds = pool.sizes.len();
    let mut outcomes: Vec<i64> = pool
        .groups
        .iter()
        .flat_map(|g| g.die.outcomes().copied())
        .collect();
    outcomes.sort_unstable();
    outcomes.dedup();
    let most = pool
        .starts
        .iter()
        .flat_map(|(left, _)| left.iter().copied())
        .max()
        .unwrap_or(0);
    let binomials = binomial_rows(most);
    let mut states: States = HashMap::new();
    let deferred = Deferred::new(pool, reading);
    let starts = match &deferred {
        Some(d) => d.starts(),
        None => pool.starts.clone(),
    };
    for (left, weight) in starts {
        let start = (reading.initial(left.iter().sum(), kinds), left);
        *states.entry(start).or_insert_with(Weight::zero) += weight;
    }
    for &outcome in &outcomes {
        if let Some(d) = &deferred
            && *pool.groups[d.group].die.min_outcome() == outcome
        {
            states = d.expand(states, limits, budget)?;
        }
        limits.check_states(states.len() as u128)?;
        // Each state tries every split of its dice among the groups whose die can show the
        // outcome (the others place none here).
        // (A group at its highest outcome places all its dice: one split.)
        let live: Vec<usize> = (0..pool.groups.len())
            .filter(|&g| {
                let die = &pool.groups[g].die;
                !die.weight(&outcome).is_zero() && *die.max_outcome() != outcome
            })
            .collect();
        let splits: u128 = states
            .keys()
            .map(|(_, l)| {
                live.iter()
                    .map(|&g| l[g] as u128 + 1)
                    .fold(1u128, u128::saturating_mul)
            })
            .fold(0u128, u128::saturating_add);
        budget.spend_estimate(splits.saturating_mul(SPLIT_COST))?;
        let most: Vec<usize> = (0..pool.groups.len())
            .map(|g| states.keys().map(|(_, l)| l[g]).max().unwrap_or(0))
            .collect();
        let step = Step::new(&pool.groups, &most, &binomials, outcome);
        let mut next: States = HashMap::with_capacity(states.len());
        for ((state, left), weight) in states {
            budget.check()?;
            let mut shown = vec![0usize; pool.groups.len()];
            let mut failed = None;
            let mut on_split = |shown: &[usize], ways: &Weight| {
                let mut by_kind = vec![0usize; kinds];
                let mut after = left.clone();
                for (g, &j) in shown.iter().enumerate() {
                    by_kind[pool.kinds[g]] += j;
                    after[g] -= j;
                }
                let before: usize = left.iter().sum();
                match reading.next(&state, outcome, (&by_kind, before), &pool.sizes) {
                    Ok(read) => {
                        *next.entry((read, after)).or_insert_with(Weight::zero) += &weight * ways;
                    }
                    Err(e) => failed = Some(e),
                }
            };
            step.split(0, &left, &mut shown, &Weight::one(), &mut on_split);
            if let Some(e) = failed {
                return Err(e);
            }
        }
        states = next;
    }
    Distribution::from_weights(
        states
            .into_iter()
            .map(|((state, _), weight)| (reading.finish(&state), weight)),
    )
}

/// One group's number of dice left undecided until the walk reaches its die's lowest outcome:
/// an exploding pool's hot dice, whose number is most of its starts. Before that outcome the
/// group places no dice, so the starts that differ only in it walk as one, the group's count
/// holding the index of their class; there each state is split into the class's counts, with
/// their weights. Only where no reading needs the pool's size as the walk goes (a sum ranked
/// from the top, an effect die).
struct Deferred {
    group: usize,
    /// For each class (the starts' counts of the other groups): the group's counts and weights.
    classes: Vec<Class>,
}

/// The other groups' counts of some starts, and the deferred group's count and weight in each.
type Class = (Vec<usize>, Vec<(usize, Weight)>);

/// The walk's states: (the readings' state, the dice left of each group) with their weights.
type States = HashMap<(State, Vec<usize>), Weight>;

impl Deferred {
    fn new(pool: &KindPool, reading: &KindJoint) -> Option<Self> {
        let sized = reading
            .builtins
            .0
            .iter()
            .any(|b| matches!(b, Builtin::SumHighest(_) | Builtin::NthHighest(_)))
            || reading
                .natives
                .iter()
                .any(|n| matches!(n, Native::Effect { .. }));
        if sized || pool.starts.len() < 2 {
            return None;
        }
        // The group whose count varies most.
        let group = (0..pool.groups.len()).max_by_key(|&g| {
            let mut counts: Vec<usize> = pool.starts.iter().map(|(l, _)| l[g]).collect();
            counts.sort_unstable();
            counts.dedup();
            counts.len()
        })?;
        let mut classes: Vec<Class> = Vec::new();
        for (left, weight) in &pool.starts {
            let mut rest = left.clone();
            rest[group] = 0;
            match classes.iter_mut().find(|(r, _)| *r == rest) {
                Some((_, counts)) => counts.push((left[group], weight.clone())),
                None => classes.push((rest, vec![(left[group], weight.clone())])),
            }
        }
        (classes.len() < pool.starts.len()).then_some(Deferred { group, classes })
    }

    /// The walk's starts: one per class, the group's count its index.
    fn starts(&self) -> Vec<(Vec<usize>, Weight)> {
        self.classes
            .iter()
            .enumerate()
            .map(|(i, (rest, _))| {
                let mut left = rest.clone();
                left[self.group] = i;
                (left, Weight::one())
            })
            .collect()
    }

    /// Each state split into its class's counts of the group, with their weights.
    fn expand(
        &self,
        states: States,
        limits: &Limits,
        budget: &mut omen_core::Budget,
    ) -> Result<States, CoreError> {
        let more: u128 = states
            .keys()
            .map(|(_, l)| self.classes[l[self.group]].1.len() as u128)
            .sum();
        limits.check_states(more)?;
        budget.spend_estimate(more.saturating_mul(SPLIT_COST))?;
        let mut out = HashMap::with_capacity(more as usize);
        for ((state, left), weight) in states {
            for (count, w) in &self.classes[left[self.group]].1 {
                let mut l = left.clone();
                l[self.group] = *count;
                *out.entry((state.clone(), l)).or_insert_with(Weight::zero) += &weight * w;
            }
        }
        Ok(out)
    }
}

/// The splits of a state's dice at one outcome.
struct Step<'a> {
    groups: &'a [Group],
    /// For each group, `ways[m][j]` = C(m, j)·wʲ, j of its m dice left showing the outcome, w its
    /// die's weight of it; computed once per outcome, up to the most dice any state has left.
    /// Empty for a group whose die cannot show the outcome.
    ways: Vec<Vec<Vec<Weight>>>,
    outcome: i64,
}

impl<'a> Step<'a> {
    fn new(groups: &'a [Group], most: &[usize], binomials: &[Vec<Weight>], outcome: i64) -> Self {
        let ways = groups
            .iter()
            .zip(most)
            .map(|(g, &most)| {
                let w = g.die.weight(&outcome);
                if w.is_zero() {
                    return Vec::new();
                }
                let mut powers = vec![Weight::one()];
                for j in 1..=most {
                    let next = &powers[j - 1] * &w;
                    powers.push(next);
                }
                (0..=most)
                    .map(|m| (0..=m).map(|j| &binomials[m][j] * &powers[j]).collect())
                    .collect()
            })
            .collect();
        Step {
            groups,
            ways,
            outcome,
        }
    }

    /// Calls `f(dice of each group showing the outcome, ways)` for every split with ways: j of a
    /// group's m dice show it in C(m, j)·wʲ ways; a group at its highest outcome shows it with
    /// every die it has left.
    fn split(
        &self,
        g: usize,
        left: &[usize],
        shown: &mut Vec<usize>,
        ways: &Weight,
        f: &mut impl FnMut(&[usize], &Weight),
    ) {
        if g == self.groups.len() {
            f(shown, ways);
            return;
        }
        let m = left[g];
        let Some(row) = self.ways[g].get(m) else {
            // The die cannot show the outcome: none of its dice show it here.
            shown[g] = 0;
            self.split(g + 1, left, shown, ways, f);
            return;
        };
        let forced = *self.groups[g].die.max_outcome() == self.outcome;
        let first = if forced { m } else { 0 };
        for (j, c) in row.iter().enumerate().skip(first) {
            shown[g] = j;
            self.split(g + 1, left, shown, &(ways * c), f);
        }
        shown[g] = 0;
    }
}
