//! What a fairness report spends: the exact distributions of its mechanics, each under the
//! per-computation limits, all of them together under one total budget, stopped when the report
//! is no longer wanted ([`Limits::cancel`]), and remembered between reports.
//!
//! An expression's distribution runs on a budget of the per-computation limit or what is left of
//! the total, whichever is less, and the total is charged what it spent
//! ([`omen_lang::exact_with_budget`]). A rule set's odds do not say what they spent, only whether
//! their budget was enough: they get a small allotment first ([`FIRST_ALLOTMENT`]), charged whole,
//! and those that needed more get four times as much in the next round, up to the per-computation
//! limit; so what the report charges is never less than what it spent, and a cheap action costs one
//! small allotment. A distribution the total cannot pay for is reported as not checked, over the
//! budget, and the rest of the report goes on; so is everything left when the report is cancelled.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use omen_core::Limits;
use serde_json::Value;

use crate::error::StoreError;
use crate::log::LogEntry;

/// Exact distributions of mechanics: JSON outcomes (in outcome order) with integer weights, and
/// their total.
pub(crate) type Weights = (Vec<(Value, u128)>, u128);

/// What a report spends and where it may stop: the limits of one computation (with the report's
/// cancellation handle), a total budget and a cache of exact distributions shared between reports.
#[derive(Clone, Debug)]
pub struct FairnessOptions {
    /// The limits of each computation (an expression's exact distribution, an action's odds). Its
    /// [`Limits::cancel`] stops the report: tripped when nobody waits for it any more, the running
    /// computation stops at its next charge and what is left is marked as not checked.
    pub limits: Limits,
    /// The work of the whole report, in the units of [`Limits::work_budget`]; `None` for no bound
    /// beyond each computation's (the CLI, on its owner's machine).
    pub total_budget: Option<u64>,
    /// Exact distributions from earlier reports, by expression, parameters and limits.
    pub cache: Option<Arc<FairnessCache>>,
}

impl FairnessOptions {
    /// The CLI's: its default limits for each computation, no total bound, no cache.
    pub fn local() -> Self {
        FairnessOptions {
            limits: Limits::default(),
            total_budget: None,
            cache: None,
        }
    }
}

/// The first allotment of a computation: about two milliseconds of work, enough for every
/// everyday expression.
pub const FIRST_ALLOTMENT: u64 = 1_000_000;

/// What one step of the goodness-of-fit walk (one count vector, one roll, one outcome) costs in
/// work-budget units: a hash-map step with a small vector, about fifty limb multiply-adds.
pub const FIT_STEP_COST: u64 = 50;

/// Why a computation gave no distribution: the reason, and whether more budget could help.
pub(crate) struct Failure {
    pub reason: String,
    pub over_budget: bool,
    /// The report's cancellation handle stopped it.
    pub cancelled: bool,
}

/// The report's purse: what is left of its total, and whether it is still wanted.
pub(crate) struct Spending<'a> {
    pub options: &'a FairnessOptions,
    left: Option<u64>,
}

/// The reason of everything the total budget could not pay for.
pub(crate) const OVER_BUDGET: &str = "not checked: over the budget";

/// The reason of everything left when the report was cancelled.
pub(crate) const CANCELLED: &str = "not checked: the report was cancelled";

impl<'a> Spending<'a> {
    pub(crate) fn new(options: &'a FairnessOptions) -> Self {
        Spending {
            options,
            left: options.total_budget,
        }
    }

    pub(crate) fn cancelled(&self) -> bool {
        self.options.limits.cancel.is_cancelled()
    }

    /// Gives back what a computation was charged and did not spend.
    fn refund(&mut self, units: u64) {
        if let Some(left) = &mut self.left {
            *left = left.saturating_add(units);
        }
    }

    /// Pays `units` if the total has them; otherwise pays nothing.
    pub(crate) fn spend(&mut self, units: u64) -> bool {
        match &mut self.left {
            None => true,
            Some(left) if *left >= units => {
                *left -= units;
                true
            }
            Some(_) => false,
        }
    }

    /// Pays for `steps` steps of the goodness-of-fit walk, or says why it cannot.
    pub(crate) fn spend_fit(&mut self, steps: u64) -> Result<(), &'static str> {
        if self.cancelled() {
            return Err(CANCELLED);
        }
        if self.spend(steps.saturating_mul(FIT_STEP_COST)) {
            Ok(())
        } else {
            Err(OVER_BUDGET)
        }
    }

    fn left(&self) -> u64 {
        self.left.unwrap_or(u64::MAX)
    }
}

/// The most outcome rows the cache holds in all (about 10 MB).
pub const CACHED_ROWS: usize = 200_000;

/// The most distributions the cache holds.
pub const CACHED_ENTRIES: usize = 4_096;

/// Exact distributions of logged expressions, by expression, parameters, explosion depth and
/// limits, shared by the reports of a server: a second report of the same log computes nothing.
/// Bounded in entries and rows; the least recently used go first.
#[derive(Debug, Default)]
pub struct FairnessCache {
    inner: Mutex<CacheInner>,
}

type Cached = Result<Arc<Weights>, String>;

#[derive(Debug, Default)]
struct CacheInner {
    entries: HashMap<String, (Cached, u64)>,
    rows: usize,
    clock: u64,
    /// Distributions computed and offered to the cache, in all.
    computed: u64,
}

fn rows_of(value: &Cached) -> usize {
    value.as_ref().map_or(1, |w| w.0.len().max(1))
}

impl FairnessCache {
    pub fn new() -> Self {
        FairnessCache::default()
    }

    /// How many distributions it holds.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many distributions reports have computed and offered to the cache: a report that
    /// found everything here adds none.
    pub fn computed(&self) -> u64 {
        self.lock().computed
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get(&self, key: &str) -> Option<Cached> {
        let mut inner = self.lock();
        inner.clock += 1;
        let clock = inner.clock;
        let (value, used) = inner.entries.get_mut(key)?;
        *used = clock;
        Some(value.clone())
    }

    fn insert(&self, key: String, value: Cached) {
        let rows = rows_of(&value);
        let mut inner = self.lock();
        inner.computed += 1;
        if rows > CACHED_ROWS / 4 {
            return;
        }
        inner.clock += 1;
        let clock = inner.clock;
        if let Some((old, _)) = inner.entries.insert(key, (value, clock)) {
            inner.rows -= rows_of(&old);
        }
        inner.rows += rows;
        while inner.rows > CACHED_ROWS || inner.entries.len() > CACHED_ENTRIES {
            let Some(oldest) = inner
                .entries
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some((old, _)) = inner.entries.remove(&oldest) {
                inner.rows -= rows_of(&old);
            }
        }
    }
}

/// The limits a cached distribution was computed under, as part of its key: a server with other
/// limits computes its own.
fn limits_key(limits: &Limits) -> String {
    format!(
        "{}/{}/{}/{}/{}/{}/{}/{}/{}/{}/{}",
        limits.max_dice,
        limits.max_sides,
        limits.explode_depth,
        limits.max_explode_depth,
        limits.max_outcomes,
        limits.max_states,
        limits.max_chain_states,
        limits.max_call_depth,
        limits.work_budget,
        limits.max_process_steps,
        limits.max_output
    )
}

/// One computation a report needs.
pub(crate) enum Job<'e> {
    /// A logged expression's exact distribution.
    Expression(&'e LogEntry),
    /// A rule-set action's odds from a state: the rule set, the state, the action.
    Action(&'e str, &'e Value, &'e Value),
}

/// What the computations gave: by job key, a distribution or why there is none; an action's odds
/// or none.
#[derive(Default)]
pub(crate) struct Resolved {
    pub expressions: BTreeMap<String, Result<Arc<Weights>, String>>,
    pub actions: BTreeMap<String, Option<Value>>,
}

/// Runs every job under the report's limits and total, in rounds of growing allotments (see the
/// module's documentation).
pub(crate) fn resolve(jobs: Vec<(String, Job<'_>)>, spending: &mut Spending<'_>) -> Resolved {
    let options = spending.options;
    let limit = options.limits.work_budget;
    let mut resolved = Resolved::default();
    let mut pending: Vec<(String, Job<'_>)> = Vec::new();
    for (key, job) in jobs {
        let cached = match &job {
            Job::Expression(entry) => options
                .cache
                .as_ref()
                .and_then(|cache| cache.get(&cache_key(entry, &options.limits))),
            Job::Action(..) => None,
        };
        match cached {
            Some(value) => {
                resolved.expressions.insert(key, value);
            }
            None => pending.push((key, job)),
        }
    }
    // Without a total, one round at the full budget: nothing to share. An expression is charged
    // what it spent, so it may have the full budget at once.
    let first = |job: &Job<'_>| match job {
        Job::Action(..) if options.total_budget.is_some() => FIRST_ALLOTMENT.min(limit),
        _ => limit,
    };
    let mut round = 0u32;
    while !pending.is_empty() {
        let mut again = Vec::new();
        for (key, job) in pending {
            let allotment = first(&job)
                .saturating_mul(4u64.saturating_pow(round))
                .min(limit);
            let given_before = if round == 0 { 0 } else { allotment / 4 };
            let give = allotment.min(spending.left());
            let failure = if spending.cancelled() {
                Some(CANCELLED.to_string())
            } else if give <= given_before || !spending.spend(give) {
                Some(format!(
                    "{OVER_BUDGET} (the report's total of {} was spent)",
                    options.total_budget.unwrap_or(0)
                ))
            } else {
                let (outcome, spent) = run(&job, &options.limits, give);
                if let Some(spent) = spent {
                    spending.refund(give.saturating_sub(spent));
                }
                match outcome {
                    Ok(outcome) => {
                        record(&key, &job, Ok(outcome), &mut resolved, options);
                        None
                    }
                    Err(failure) if failure.cancelled => Some(CANCELLED.to_string()),
                    // An expression had all the total had left: more rounds would not give more.
                    Err(failure) if failure.over_budget && give < allotment => Some(format!(
                        "{OVER_BUDGET} (the report's total of {} was spent)",
                        options.total_budget.unwrap_or(0)
                    )),
                    Err(failure) if failure.over_budget && give < limit => {
                        again.push((key.clone(), job));
                        continue;
                    }
                    Err(failure) if failure.over_budget => {
                        Some(format!("{OVER_BUDGET} (a computation may spend {limit})"))
                    }
                    Err(failure) => {
                        // Final whatever the budget: remembered like a distribution.
                        record(&key, &job, Err(failure.reason), &mut resolved, options);
                        continue;
                    }
                }
            };
            if let Some(reason) = failure {
                // Not remembered: another report, with budget left, may compute it.
                match job {
                    Job::Expression(_) => {
                        resolved.expressions.insert(key, Err(reason));
                    }
                    Job::Action(..) => {
                        resolved.actions.insert(key, None);
                    }
                }
            }
        }
        pending = again;
        round += 1;
    }
    resolved
}

/// What a job gave.
enum Outcome {
    Distribution(Weights),
    Odds(Value),
}

fn record(
    key: &str,
    job: &Job<'_>,
    outcome: Result<Outcome, String>,
    resolved: &mut Resolved,
    options: &FairnessOptions,
) {
    match (job, outcome) {
        (Job::Expression(entry), outcome) => {
            let value: Cached = match outcome {
                Ok(Outcome::Distribution(weights)) => Ok(Arc::new(weights)),
                Ok(Outcome::Odds(_)) => Err("not a distribution".to_string()),
                Err(reason) => Err(reason),
            };
            if let Some(cache) = &options.cache {
                cache.insert(cache_key(entry, &options.limits), value.clone());
            }
            resolved.expressions.insert(key.to_string(), value);
        }
        (Job::Action(..), outcome) => {
            let odds = match outcome {
                Ok(Outcome::Odds(odds)) => Some(odds),
                _ => None,
            };
            resolved.actions.insert(key.to_string(), odds);
        }
    }
}

/// Runs one job on a budget of `give`: what it gave, and what it spent when that is known.
fn run(job: &Job<'_>, limits: &Limits, give: u64) -> (Result<Outcome, Failure>, Option<u64>) {
    let limits = Limits {
        work_budget: give,
        ..limits.clone()
    };
    match job {
        Job::Expression(entry) => {
            let mut budget = limits.budget();
            let outcome = exact_weights(entry, &limits, &mut budget).map(Outcome::Distribution);
            (outcome, Some(budget.spent()))
        }
        Job::Action(rule_set, state, action) => {
            let Some(game) = omen_rules::stateful::game(rule_set) else {
                return (Err(failed(format!("no rule set `{rule_set}`"))), None);
            };
            let outcome = game
                .odds(state, action, &limits)
                .map(Outcome::Odds)
                .map_err(|error| action_failure(&error, &limits));
            (outcome, None)
        }
    }
}

/// A rule set's refusal of odds: over the budget or cancelled when the engine's error says so
/// (directly or inside the rule set's own error), else final: more budget would not help.
fn action_failure(error: &omen_rules::stateful::ActionError, limits: &Limits) -> Failure {
    use omen_core::CoreError;
    use omen_rules::stateful::ActionError;
    let core = match error {
        ActionError::Dice(core) => Some(core),
        ActionError::Rules(inner) => inner.downcast_ref::<CoreError>(),
        _ => None,
    };
    Failure {
        reason: error.to_string(),
        over_budget: matches!(core, Some(CoreError::WorkBudget { .. })),
        cancelled: matches!(core, Some(CoreError::Cancelled | CoreError::DeadlinePassed))
            || limits.cancel.is_cancelled(),
    }
}

/// The cache's key of a logged expression: its text, parameters and explosion depth, and the
/// limits it is computed under.
fn cache_key(entry: &LogEntry, limits: &Limits) -> String {
    serde_json::json!([
        entry.inputs.get("expression"),
        entry.inputs.get("params"),
        entry.inputs.get("explode_depth"),
        limits_key(limits),
    ])
    .to_string()
}

fn failed(reason: impl Into<String>) -> Failure {
    Failure {
        reason: reason.into(),
        over_budget: false,
        cancelled: false,
    }
}

/// A failure of the language: whether more budget could help, or the report was cancelled.
fn language_failure(kind: &str, reason: String) -> Failure {
    Failure {
        reason,
        over_budget: kind == "work-budget",
        cancelled: kind == "cancelled" || kind == "deadline",
    }
}

/// The exact distribution of a logged expression, as JSON outcomes with integer weights, computed
/// on `budget`.
pub(crate) fn exact_weights(
    entry: &LogEntry,
    limits: &Limits,
    budget: &mut omen_core::Budget,
) -> Result<Weights, Failure> {
    let expression = entry
        .inputs
        .get("expression")
        .and_then(Value::as_str)
        .ok_or_else(|| failed("the entry names no expression"))?;
    let params: BTreeMap<String, Value> = entry
        .inputs
        .get("params")
        .cloned()
        .map(serde_json::from_value)
        .transpose()
        .map_err(|e| failed(format!("its parameters do not read: {e}")))?
        .unwrap_or_default();
    let explode_depth = entry
        .inputs
        .get("explode_depth")
        .and_then(Value::as_u64)
        .unwrap_or(limits.explode_depth);
    let limits = Limits {
        explode_depth,
        max_explode_depth: limits.max_explode_depth.max(explode_depth),
        ..limits.clone()
    };
    let options = omen_lang::Options {
        limits: limits.clone(),
        params: params
            .iter()
            .map(|(name, value)| Ok((name.clone(), crate::roll::param_value(name, value)?)))
            .collect::<Result<_, StoreError>>()
            .map_err(|e| failed(e.to_string()))?,
        ..omen_lang::Options::default()
    };
    let checked = omen_lang::compile(expression, &options).map_err(|errors| {
        let kind = errors.first().map_or("", |e| e.kind);
        language_failure(kind, StoreError::Language(errors).to_string())
    })?;
    let exact =
        omen_lang::exact_with_budget(&checked.program, &limits, budget).map_err(|error| {
            language_failure(
                error.kind,
                format!(
                    "its exact distribution cannot be computed: {}",
                    error.message
                ),
            )
        })?;
    if exact.truncated.numer().bits() != 0 {
        return Err(failed(
            "its dice explode past the depth limit, so its exact distribution is cut off",
        ));
    }
    let distribution = exact.distribution.values();
    let too_large = || failed("its distribution's weights are too large to test");
    let total = u128::try_from(distribution.total().clone()).map_err(|_| too_large())?;
    let mut weights = Vec::new();
    for (outcome, weight) in distribution.entries() {
        let weight = u128::try_from(weight.clone()).map_err(|_| too_large())?;
        let outcome = serde_json::to_value(outcome).map_err(|e| failed(e.to_string()))?;
        weights.push((outcome, weight));
    }
    weights.sort_by(|a, b| outcome_order(&a.0, &b.0));
    Ok((weights, total))
}

/// Sorts JSON outcomes numbers first, in numeric order, so that pooling joins neighbours.
pub(super) fn outcome_order(a: &Value, b: &Value) -> std::cmp::Ordering {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.to_string().cmp(&b.to_string()),
    }
}
