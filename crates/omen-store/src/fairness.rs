//! The fairness report: are a campaign's dice behaving like fair dice?
//!
//! Two views, each per session (a campaign's entries on one UTC day) and for the whole selection:
//!
//! * **per die**: every face rolled by each kind of die (`d20`, `dF`, `d{1,1,2}`), whatever rolled
//!   it, against the die's fair faces (every raw roll, rerolls and explosions included, is one fair
//!   draw of its die);
//! * **per mechanic**: the results of each logged expression (with its parameters) against the exact
//!   distribution of that expression, recomputed by the exact engine from the logged text; and the
//!   results of each rule-set action against the exact odds the action had from the state it was
//!   taken in (the rule set's own odds, recomputed from the logged state and action): every
//!   distribution in the odds whose name the result carries too (`outcomes` → `outcome`, `net` →
//!   `net`) is one mechanic, `luck roll: outcome`. Rolls of one mechanic from different states have
//!   different distributions; they are tested together, each against its own ([`crate::fit`]).
//!
//! Each is tested with an exact multinomial test when the rolls and outcomes are few enough to
//! enumerate, else with the G-test ([`crate::fit::goodness`]), and given a plain verdict. Dice given by
//! hand (`--dice`) count like any others: they are the table's physical dice, which is what a
//! fairness report is for; the report says how many there were. An action whose state or result a
//! viewer sees only in part (a rule set's game-master-only fields) is left out of their report: its
//! odds would need what was withheld, and would give it away.

//!
//! A server's report is bounded ([`FairnessOptions`]): each computation under the server's limits,
//! all of them under one total budget, stopped when nobody waits for it, its distributions
//! remembered between reports ([`FairnessCache`]); see [`compute`]. Next to each verdict the
//! report says what its test can see: how often it would catch dice with a stated bias
//! ([`Power`]; see [`power`]).

mod compute;
mod power;
mod report;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::StoreError;
use crate::fit::{self, Fit, Verdict};
use crate::log::LogEntry;
use crate::store::{LogFilter, Store};
use crate::viewer::Viewer;

pub use compute::{FairnessCache, FairnessOptions};
pub use power::Power;
pub use report::{
    DieFairness, FairnessReport, FairnessSection, MechanicFairness, OutcomeCount, SessionFairness,
};

use compute::{Job, Resolved, Spending, outcome_order};

const METHOD: &str = "observed counts against the exact probabilities of fair dice (for a rule-set action, against the odds each roll had from its state): an exact multinomial test when there are at most 20000 possible count vectors, else the G-test, with neighbouring outcomes pooled until each cell expects at least 5 rolls; fewer than 20 rolls (or fewer than one per outcome) are too few to tell. Power: the probability that the same test calls biased dice suspicious (a die that never shows its highest face or shows it twice as often; for a mechanic, dice that move a tenth of the probability from the results below the median to the others), exact by enumerating every count vector where the exact test is used, else by the noncentral chi-square approximation";

/// The faces of a die named as omen-core displays it, each with its multiplicity.
fn die_faces(die: &str) -> Option<BTreeMap<i64, u64>> {
    let rest = die.strip_prefix('d')?;
    let faces: Vec<i64> = match rest {
        "%" => (1..=100).collect(),
        "F" => vec![-1, 0, 1],
        _ if rest.starts_with('{') => rest
            .strip_prefix('{')?
            .strip_suffix('}')?
            .split(',')
            .map(|face| face.trim().parse().ok())
            .collect::<Option<_>>()?,
        _ => {
            let sides: i64 = rest.parse().ok()?;
            // A wider die than this has no useful face-by-face test at a table's counts.
            if !(1..=1_000_000).contains(&sides) {
                return None;
            }
            (1..=sides).collect()
        }
    };
    let mut counted = BTreeMap::new();
    for face in faces {
        *counted.entry(face).or_insert(0) += 1;
    }
    Some(counted)
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn fraction(numerator: u128, denominator: u128) -> String {
    let g = gcd(numerator, denominator).max(1);
    if denominator / g == 1 {
        format!("{}", numerator / g)
    } else {
        format!("{}/{}", numerator / g, denominator / g)
    }
}

/// Tests `observed` (by outcome) against exact weights `weights` over `total`: the outcome rows,
/// the fit and the verdict. An outcome with no weight that came up makes the verdict impossible.
fn test(
    observed: &Counts,
    weights: &[(Value, u128)],
    total: u128,
) -> (Vec<OutcomeCount>, Option<Fit>, Verdict) {
    let rolls: u64 = observed.values().map(|(_, c)| c).sum();
    let mut rows = Vec::new();
    let mut counts = Vec::new();
    let mut probabilities = Vec::new();
    for (outcome, weight) in weights {
        let count = observed.get(&outcome.to_string()).map_or(0, |(_, c)| *c);
        let probability = *weight as f64 / total as f64;
        counts.push(count);
        probabilities.push(probability);
        rows.push(OutcomeCount {
            outcome: outcome.clone(),
            observed: count,
            probability: fraction(*weight, total),
            expected: probability * rolls as f64,
        });
    }
    let impossible: Vec<&(Value, u64)> = observed
        .values()
        .filter(|(outcome, _)| !weights.iter().any(|(o, _)| o == outcome))
        .collect();
    for (outcome, count) in &impossible {
        rows.push(OutcomeCount {
            outcome: outcome.clone(),
            observed: *count,
            probability: "0".to_string(),
            expected: 0.0,
        });
    }
    if let Some((outcome, _)) = impossible.first() {
        return (
            rows,
            None,
            Verdict::Impossible {
                outcome: outcome.to_string(),
            },
        );
    }
    let strata = [fit::Stratum {
        probabilities,
        rolls,
    }];
    let fit = fit::goodness(&counts, &strata);
    let verdict = fit::verdict(rolls, weights.len(), fit.as_ref());
    (rows, fit, verdict)
}

/// Outcomes by their JSON text, each with how often it came up.
type Counts = BTreeMap<String, (Value, u64)>;

#[derive(Default)]
struct Tally {
    rolls: u64,
    /// By die: faces and how many were given.
    dice: BTreeMap<String, (BTreeMap<i64, u64>, u64, u64)>,
    /// By mechanic key: (expression, params, explode depth), results, rolls, given.
    mechanics: BTreeMap<String, (LogEntry, Counts, u64, u64)>,
    /// Rule-set actions that rolled, in log order.
    actions: Vec<LogEntry>,
}

impl Tally {
    fn add(&mut self, entry: &LogEntry) {
        if entry.dice.is_empty() {
            return;
        }
        self.rolls += 1;
        for die in &entry.dice {
            let (faces, rolled, given) = self.dice.entry(die.die.clone()).or_default();
            *faces.entry(die.face).or_default() += 1;
            *rolled += 1;
            if entry.dice_given {
                *given += 1;
            }
        }
        if entry.inputs.get("kind").and_then(Value::as_str) == Some("action") && !entry.redacted {
            self.actions.push(slim(entry));
        }
        if entry.inputs.get("kind").and_then(Value::as_str) == Some("expression") {
            let key = serde_json::json!([
                entry.inputs.get("expression"),
                entry.inputs.get("params"),
                entry.inputs.get("explode_depth"),
            ])
            .to_string();
            let (_, results, rolls, given) = self
                .mechanics
                .entry(key)
                .or_insert_with(|| (entry.clone(), BTreeMap::new(), 0, 0));
            let result_key = entry.result.to_string();
            results
                .entry(result_key)
                .or_insert((entry.result.clone(), 0))
                .1 += 1;
            *rolls += 1;
            if entry.dice_given {
                *given += 1;
            }
        }
    }

    fn section(&self, resolved: &Resolved, spending: &mut Spending<'_>) -> FairnessSection {
        let dice = self
            .dice
            .iter()
            .map(|(die, (faces, rolled, given))| {
                die_fairness(die, faces, (*rolled, *given), spending)
            })
            .collect();
        let mut mechanics: Vec<MechanicFairness> = self
            .mechanics
            .iter()
            .map(|(key, (first, results, rolls, given))| {
                let distribution = resolved
                    .expressions
                    .get(key)
                    .cloned()
                    .unwrap_or_else(|| Err(compute::OVER_BUDGET.to_string()));
                let name = mechanic_name(first);
                let (rows, fit, verdict, power) = match distribution {
                    Ok(weights) => tested(results, &weights.0, weights.1, &name, spending),
                    Err(reason) => untested(reason),
                };
                MechanicFairness {
                    mechanic: name,
                    kind: "expression",
                    distributions: 1,
                    rolls: *rolls,
                    given: *given,
                    outcomes: rows,
                    summary: summary(&verdict),
                    fit,
                    verdict,
                    power,
                }
            })
            .collect();
        mechanics.extend(action_mechanics(&self.actions, resolved, spending));
        FairnessSection {
            rolls: self.rolls,
            dice,
            mechanics,
        }
    }
}

/// A section's row of one kind of die.
fn die_fairness(
    die: &str,
    faces: &BTreeMap<i64, u64>,
    (rolled, given): (u64, u64),
    spending: &mut Spending<'_>,
) -> DieFairness {
    let observed: Counts = faces
        .iter()
        .map(|(f, c)| (f.to_string(), (Value::from(*f), *c)))
        .collect();
    let (rows, fit, verdict, power) = match die_faces(die) {
        Some(fair) => {
            let total: u64 = fair.values().sum();
            let weights: Vec<(Value, u128)> = fair
                .iter()
                .map(|(f, w)| (Value::from(*f), u128::from(*w)))
                .collect();
            tested(&observed, &weights, u128::from(total), die, spending)
        }
        None => untested(format!("the faces of {die} are not known")),
    };
    DieFairness {
        die: die.to_string(),
        rolled,
        given,
        faces: rows,
        summary: summary(&verdict),
        fit,
        verdict,
        power,
    }
}

type Tested = (Vec<OutcomeCount>, Option<Fit>, Verdict, Vec<Power>);

/// [`Verdict::text`], but a verdict the report did not reach says only why ("not checked: over
/// the budget"), not "not tested: not checked: …".
fn summary(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Untested { reason } if reason.starts_with("not checked") => reason.clone(),
        _ => verdict.text(),
    }
}

fn untested(reason: String) -> Tested {
    (Vec::new(), None, Verdict::Untested { reason }, Vec::new())
}

/// [`test`] with the power of the test, both paid for from the report's budget first. A die
/// (`subject` starting with `d`) is told apart from the die biases, anything else from the
/// mechanic's.
fn tested(
    observed: &Counts,
    weights: &[(Value, u128)],
    total: u128,
    subject: &str,
    spending: &mut Spending<'_>,
) -> Tested {
    let rolls: u64 = observed.values().map(|(_, c)| c).sum();
    let probabilities: Vec<f64> = weights
        .iter()
        .map(|(_, w)| *w as f64 / total as f64)
        .collect();
    let strata = [fit::Stratum {
        probabilities,
        rolls,
    }];
    let is_die = die_faces(subject).is_some();
    let alternatives = if is_die {
        let highest = weights
            .last()
            .map(|(o, _)| o.to_string())
            .unwrap_or_default();
        power::die_alternatives(&strata[0].probabilities, &highest)
    } else {
        power::mechanic_alternative(&strata).into_iter().collect()
    };
    let cost = power::cost(rolls, weights.len(), alternatives.len());
    if let Err(reason) = spending.spend_fit(cost) {
        return untested(reason.to_string());
    }
    let (rows, fit, verdict) = test(observed, weights, total);
    let fair = if is_die { "a fair die" } else { "fair dice" };
    let power = power::power(&strata, &alternatives, subject, fair);
    (rows, fit, verdict, power)
}

/// What an action's test needs of its entry (its rule set, action, state before, result, and
/// whether it rolled and by hand): a report holds one per action roll, so not the rest.
fn slim(entry: &LogEntry) -> LogEntry {
    LogEntry {
        dice: entry.dice.iter().take(1).cloned().collect(),
        state_after: None,
        summary: String::new(),
        previous_hash: String::new(),
        hash: String::new(),
        seed_proof: None,
        public_key: None,
        signature: None,
        ..entry.clone()
    }
}

fn mechanic_name(entry: &LogEntry) -> String {
    let expression = entry
        .inputs
        .get("expression")
        .and_then(Value::as_str)
        .unwrap_or("?");
    match entry.inputs.get("params").and_then(Value::as_object) {
        Some(params) if !params.is_empty() => {
            let listed: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{expression} ({})", listed.join(", "))
        }
        _ => expression.to_string(),
    }
}

/// An exact probability `n/d` (or `n`) as odds give it.
fn parse_fraction(text: &str) -> Option<(u128, u128)> {
    match text.split_once('/') {
        Some((n, d)) => Some((n.trim().parse().ok()?, d.trim().parse().ok()?)),
        None => Some((text.trim().parse().ok()?, 1)),
    }
}

/// A distribution in a rule set's odds: each outcome with its probability, numerator and
/// denominator.
type OddsRows = Vec<(Value, (u128, u128))>;

/// A distribution in a rule set's odds: rows of `{"outcome", "fraction"}`.
fn odds_rows(value: &Value) -> Option<OddsRows> {
    value
        .as_array()?
        .iter()
        .map(|row| {
            Some((
                row.get("outcome")?.clone(),
                parse_fraction(row.get("fraction")?.as_str()?)?,
            ))
        })
        .collect::<Option<Vec<_>>>()
        .filter(|rows| !rows.is_empty())
}

/// The result's value for the odds' distribution `field`: the same name, or its singular.
fn observed_in<'a>(result: &'a Value, field: &str) -> Option<&'a Value> {
    result
        .get(field)
        .or_else(|| result.get(field.strip_suffix('s')?))
        .filter(|v| !v.is_null() && !v.is_object())
}

/// One action mechanic being counted: the outcomes seen, and each distribution its rolls had.
#[derive(Default)]
struct ActionCounts {
    rolls: u64,
    given: u64,
    observed: Counts,
    /// By the distribution's JSON: its rows and how many rolls had it.
    strata: BTreeMap<String, (OddsRows, u64)>,
    /// An outcome that came up where its roll's odds gave it no chance.
    impossible: Option<Value>,
}

/// The action mechanics of `entries` (rule-set actions that rolled), each tested against the odds
/// its rolls had.
/// The computation an action entry's odds need, by its key: its rule set, state and action; `None`
/// for an entry whose action does not roll (or rolled nothing).
fn action_job(entry: &LogEntry) -> Option<(String, Job<'_>)> {
    let (Some(rule_set), Some(action), Some(state)) = (
        entry.inputs.get("rule_set").and_then(Value::as_str),
        entry.inputs.get("action"),
        entry.state_before.as_ref(),
    ) else {
        return None;
    };
    let game = omen_rules::stateful::game(rule_set)?;
    let rolls = game
        .actions()
        .iter()
        .any(|info| info.name == entry.action && info.rolls);
    if !rolls || entry.dice.is_empty() {
        return None;
    }
    let key = serde_json::json!([rule_set, state, action]).to_string();
    Some((key, Job::Action(rule_set, state, action)))
}

fn action_mechanics(
    entries: &[LogEntry],
    resolved: &Resolved,
    spending: &mut Spending<'_>,
) -> Vec<MechanicFairness> {
    let mut counts: BTreeMap<String, ActionCounts> = BTreeMap::new();
    for entry in entries {
        let Some((key, Job::Action(rule_set, ..))) = action_job(entry) else {
            continue;
        };
        // Odds the report could not compute (over its budget) leave the roll out.
        let Some(Some(Value::Object(odds))) = resolved.actions.get(&key) else {
            continue;
        };
        for (field, distribution) in odds {
            let (Some(rows), Some(seen)) =
                (odds_rows(distribution), observed_in(&entry.result, field))
            else {
                continue;
            };
            let named = if entry.result.get(field).is_some() {
                field.as_str()
            } else {
                field.strip_suffix('s').unwrap_or(field)
            };
            let name = format!("{rule_set} {}: {named}", entry.action);
            let tally = counts.entry(name).or_default();
            tally.rolls += 1;
            if entry.dice_given {
                tally.given += 1;
            }
            tally
                .observed
                .entry(seen.to_string())
                .or_insert((seen.clone(), 0))
                .1 += 1;
            let possible = rows.iter().any(|(o, (n, _))| o == seen && *n > 0);
            if !possible && tally.impossible.is_none() {
                tally.impossible = Some(seen.clone());
            }
            let stratum = serde_json::to_string(distribution).unwrap_or_default();
            tally.strata.entry(stratum).or_insert((rows, 0)).1 += 1;
        }
    }
    counts
        .into_iter()
        .map(|(mechanic, tally)| action_fairness(mechanic, &tally, spending))
        .collect()
}

fn action_fairness(
    mechanic: String,
    tally: &ActionCounts,
    spending: &mut Spending<'_>,
) -> MechanicFairness {
    // Every outcome any roll could give or gave, in order.
    let mut outcomes: Vec<Value> = Vec::new();
    for (rows, _) in tally.strata.values() {
        for (outcome, _) in rows {
            if !outcomes.contains(outcome) {
                outcomes.push(outcome.clone());
            }
        }
    }
    for (outcome, _) in tally.observed.values() {
        if !outcomes.contains(outcome) {
            outcomes.push(outcome.clone());
        }
    }
    outcomes.sort_by(outcome_order);
    let observed: Vec<u64> = outcomes
        .iter()
        .map(|o| tally.observed.get(&o.to_string()).map_or(0, |(_, c)| *c))
        .collect();
    let strata: Vec<fit::Stratum> = tally
        .strata
        .values()
        .map(|(rows, count)| fit::Stratum {
            probabilities: outcomes
                .iter()
                .map(|o| {
                    rows.iter()
                        .find(|(r, _)| r == o)
                        .map_or(0.0, |(_, (n, d))| *n as f64 / *d as f64)
                })
                .collect(),
            rolls: *count,
        })
        .collect();
    let rows = outcomes
        .iter()
        .zip(&observed)
        .enumerate()
        .map(|(at, (outcome, &count))| {
            let expected: f64 = strata
                .iter()
                .map(|stratum| stratum.probabilities[at] * stratum.rolls as f64)
                .sum();
            OutcomeCount {
                outcome: outcome.clone(),
                observed: count,
                probability: mixture(outcome, tally),
                expected,
            }
        })
        .collect();
    let alternatives: Vec<power::Alternative> =
        power::mechanic_alternative(&strata).into_iter().collect();
    // The exact walk of several strata costs what one stratum's does for the same rolls.
    let cost = power::cost(tally.rolls, outcomes.len(), alternatives.len());
    let (fit, verdict, power) = match (&tally.impossible, spending.spend_fit(cost)) {
        (Some(outcome), _) => (
            None,
            Verdict::Impossible {
                outcome: outcome.to_string(),
            },
            Vec::new(),
        ),
        (None, Err(reason)) => (
            None,
            Verdict::Untested {
                reason: reason.to_string(),
            },
            Vec::new(),
        ),
        (None, Ok(())) => {
            let fit = fit::goodness(&observed, &strata);
            let verdict = fit::verdict(tally.rolls, outcomes.len(), fit.as_ref());
            let subject = mechanic.clone();
            let power = power::power(&strata, &alternatives, &subject, "fair dice");
            (fit, verdict, power)
        }
    };
    MechanicFairness {
        mechanic,
        kind: "action",
        distributions: tally.strata.len() as u64,
        rolls: tally.rolls,
        given: tally.given,
        outcomes: rows,
        summary: summary(&verdict),
        fit,
        verdict,
        power,
    }
}

/// The exact probability of `outcome` for a roll drawn at random from the mechanic's rolls: the
/// average of each roll's probability, in lowest terms (a decimal when the fraction overflows).
fn mixture(outcome: &Value, tally: &ActionCounts) -> String {
    let mut sum: Option<(u128, u128)> = Some((0, 1));
    let mut approximate = 0.0;
    for (rows, count) in tally.strata.values() {
        let (n, d) = rows
            .iter()
            .find(|(o, _)| o == outcome)
            .map_or((0, 1), |(_, p)| *p);
        approximate += n as f64 / d as f64 * *count as f64;
        sum = sum.and_then(|(sn, sd)| {
            let numerator = sn
                .checked_mul(d)?
                .checked_add(n.checked_mul(*count as u128)?.checked_mul(sd)?)?;
            let denominator = sd.checked_mul(d)?;
            let g = gcd(numerator, denominator).max(1);
            Some((numerator / g, denominator / g))
        });
    }
    let rolls = u128::from(tally.rolls.max(1));
    match sum.and_then(|(n, d)| Some((n, d.checked_mul(rolls)?))) {
        Some((n, d)) => fraction(n, d),
        None => format!("{:.6}", approximate / rolls as f64),
    }
}

/// The entries of a report, counted: what the database gives a report, before any computation.
/// Built a page of entries at a time ([`Store::fairness_tally_for`]), so a long log is never held
/// whole; [`FairnessTally::report`] then computes without the database.
pub struct FairnessTally {
    campaign: String,
    whole: Tally,
    sessions: BTreeMap<String, Tally>,
}

/// The entries a report reads from the database at once.
const TALLY_PAGE: usize = 256;

impl FairnessTally {
    fn new(campaign: &str) -> Self {
        FairnessTally {
            campaign: campaign.to_string(),
            whole: Tally::default(),
            sessions: BTreeMap::new(),
        }
    }

    fn add(&mut self, entry: &LogEntry) {
        self.whole.add(entry);
        let day = entry.time.get(..10).unwrap_or(&entry.time).to_string();
        self.sessions.entry(day).or_default().add(entry);
    }

    /// Entries counted.
    pub fn rolls(&self) -> u64 {
        self.whole.rolls
    }

    /// The report (pure: no database), spending what `options` allow: the whole selection first,
    /// then each session, so a report over its budget still has its overall verdicts.
    pub fn report(&self, options: &FairnessOptions) -> FairnessReport {
        let mut spending = Spending::new(options);
        // Every computation once: the sessions' mechanics are among the whole's.
        let mut jobs: Vec<(String, Job<'_>)> = self
            .whole
            .mechanics
            .iter()
            .map(|(key, (first, ..))| (key.clone(), Job::Expression(first)))
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        for entry in &self.whole.actions {
            if let Some((key, job)) = action_job(entry)
                && seen.insert(key.clone())
            {
                jobs.push((key, job));
            }
        }
        let resolved = compute::resolve(jobs, &mut spending);
        FairnessReport {
            campaign: self.campaign.clone(),
            whole: self.whole.section(&resolved, &mut spending),
            sessions: self
                .sessions
                .iter()
                .filter(|(_, tally)| tally.rolls > 0)
                .map(|(session, tally)| SessionFairness {
                    session: session.clone(),
                    section: tally.section(&resolved, &mut spending),
                })
                .collect(),
            suspicious_below: fit::SUSPICIOUS_BELOW,
            method: METHOD,
        }
    }
}

impl Store {
    /// The fairness report of the entries of `campaign` that `filter` selects (its campaign field is
    /// replaced by `campaign`), per session and as a whole, as the game master sees the log (hidden
    /// rolls included), under the CLI's limits. See [`Store::fairness_for`] for another viewer.
    ///
    /// # Errors
    /// As [`Store::log`].
    pub fn fairness(
        &self,
        campaign: &str,
        filter: &LogFilter,
    ) -> Result<FairnessReport, StoreError> {
        Ok(self
            .tally(campaign, filter, None)?
            .report(&FairnessOptions::local()))
    }

    /// [`Store::fairness`] of the log as `viewer` sees it: rolls hidden from the viewer are left out,
    /// so the report gives nothing of them away.
    ///
    /// # Errors
    /// As [`Store::log_for`].
    pub fn fairness_for(
        &self,
        campaign: &str,
        filter: &LogFilter,
        viewer: &Viewer,
    ) -> Result<FairnessReport, StoreError> {
        Ok(self
            .fairness_tally_for(campaign, filter, viewer)?
            .report(&FairnessOptions::local()))
    }

    /// The counts a report of `campaign`'s log as `viewer` sees it needs, read a page at a time:
    /// the database work of a report, with none of its computations. A server reads this on a
    /// database handle, gives the handle back, and computes [`FairnessTally::report`] elsewhere.
    ///
    /// # Errors
    /// As [`Store::log_for`].
    pub fn fairness_tally_for(
        &self,
        campaign: &str,
        filter: &LogFilter,
        viewer: &Viewer,
    ) -> Result<FairnessTally, StoreError> {
        self.tally(campaign, filter, Some(viewer))
    }

    /// The tally of the log as `viewer` sees it, or as it is written when `None`.
    fn tally(
        &self,
        campaign: &str,
        filter: &LogFilter,
        viewer: Option<&Viewer>,
    ) -> Result<FairnessTally, StoreError> {
        let filter = LogFilter {
            campaign: Some(campaign.to_string()),
            ..filter.clone()
        };
        let mut tally = FairnessTally::new(campaign);
        let mut after = None;
        loop {
            // A hidden roll the viewer may not see has no dice left to count.
            let page = match viewer {
                Some(viewer) => self.log_page_for(&filter, after, TALLY_PAGE, viewer)?,
                None => self.log_page(&filter, after, Some(TALLY_PAGE))?,
            };
            for entry in &page {
                tally.add(entry);
            }
            match page.last() {
                Some(last) if page.len() == TALLY_PAGE => after = Some(last.sequence),
                _ => return Ok(tally),
            }
        }
    }
}

/// The report of `entries` under the CLI's limits (pure: no database).
#[cfg(test)]
fn report(campaign: &str, entries: &[LogEntry]) -> FairnessReport {
    let mut tally = FairnessTally::new(campaign);
    for entry in entries {
        tally.add(entry);
    }
    tally.report(&FairnessOptions::local())
}

#[cfg(test)]
mod tests {
    use super::*;
    use omen_core::Limits;

    #[test]
    fn the_faces_of_named_dice() {
        assert_eq!(die_faces("d6").unwrap().len(), 6);
        assert_eq!(die_faces("d%").unwrap().keys().last(), Some(&100));
        assert_eq!(
            die_faces("dF").unwrap().keys().copied().collect::<Vec<_>>(),
            [-1, 0, 1]
        );
        let custom = die_faces("d{1,1,2}").unwrap();
        assert_eq!(custom[&1], 2);
        assert_eq!(custom[&2], 1);
        assert_eq!(die_faces("x"), None);
    }

    #[test]
    fn a_face_a_die_does_not_have_is_impossible() {
        let weights: Vec<(Value, u128)> = (1..=6).map(|f| (Value::from(f), 1)).collect();
        let mut observed = BTreeMap::new();
        observed.insert("3".to_string(), (Value::from(3), 40));
        observed.insert("7".to_string(), (Value::from(7), 1));
        let (rows, fit, verdict) = test(&observed, &weights, 6);
        assert_eq!(rows.len(), 7);
        assert_eq!(rows[6].probability, "0");
        assert_eq!(fit, None);
        assert!(verdict.is_suspicious());
        assert_eq!(
            verdict.text(),
            "suspicious: 7 cannot come up with fair dice"
        );
    }

    /// A luck character's log of `rolls` rolls, each from the state the one before left (so the odds
    /// change with the karmic history), with the d50 faces `face` gives.
    fn luck_log(rolls: usize, mut face: impl FnMut() -> i64) -> Vec<LogEntry> {
        let game = omen_rules::stateful::game("luck").unwrap();
        let limits = Limits::default();
        let mut state = game.new_character(&serde_json::json!({})).unwrap();
        let action = serde_json::json!({ "action": "roll" });
        (0..rolls)
            .map(|i| {
                let die = face();
                let mut dice = omen_core::ScriptedDice::new(vec![die]);
                let applied = game.apply(&state, &action, &mut dice, &limits).unwrap();
                let entry = serde_json::json!({
                    "sequence": i + 1,
                    "time": format!("2026-11-{:02}T20:00:00.000Z", 20 + i % 2),
                    "campaign": "Tak",
                    "character": "Ayla",
                    "action": "roll",
                    "inputs": { "kind": "action", "rule_set": "luck", "action": action },
                    "seed": null,
                    "dice": [{ "die": "d50", "sides": 50, "face": die }],
                    "result": applied.result,
                    "state_before": state,
                    "state_after": applied.state,
                    "summary": applied.summary,
                    "previous_hash": "",
                    "hash": "",
                });
                state = applied.state;
                serde_json::from_value(entry).unwrap()
            })
            .collect()
    }

    fn d50(dice: &mut omen_core::ChaChaDice) -> i64 {
        use omen_core::DieSource;
        dice.roll(&omen_core::Die::standard(50, &Limits::default()).unwrap())
            .unwrap()
    }

    fn luck_outcomes(report: &FairnessReport) -> &MechanicFairness {
        report
            .whole
            .mechanics
            .iter()
            .find(|m| m.mechanic == "luck roll: outcome")
            .unwrap_or_else(|| panic!("{report:#?}"))
    }

    #[test]
    fn fair_luck_rolls_are_consistent_and_loaded_ones_suspicious() {
        for seed in [1, 2, 3] {
            let mut dice = omen_core::ChaChaDice::from_seed(seed);
            let fair = report("Tak", &luck_log(300, || d50(&mut dice)));
            let mechanic = luck_outcomes(&fair);
            assert_eq!(mechanic.kind, "action");
            assert_eq!(mechanic.rolls, 300);
            // The karmic history changes the odds from roll to roll.
            assert!(mechanic.distributions > 1, "{mechanic:#?}");
            assert!(
                matches!(mechanic.verdict, Verdict::Consistent { .. }),
                "seed {seed}: {mechanic:#?}"
            );
            assert!(!fair.whole.is_suspicious(), "seed {seed}: {fair:#?}");
            assert_eq!(fair.sessions.len(), 2);
            // Loaded: the higher of two d50s every time.
            let mut dice = omen_core::ChaChaDice::from_seed(seed);
            let loaded = report("Tak", &luck_log(300, || d50(&mut dice).max(d50(&mut dice))));
            let mechanic = luck_outcomes(&loaded);
            assert!(
                mechanic.verdict.is_suspicious(),
                "seed {seed}: {mechanic:#?}"
            );
            assert!(mechanic.summary.starts_with("suspicious"));
            // The expected counts add up to the rolls, each roll counted with its own odds.
            let expected: f64 = mechanic.outcomes.iter().map(|o| o.expected).sum();
            assert!((expected - 300.0).abs() < 1e-6, "{expected}");
        }
    }

    #[test]
    fn a_few_action_rolls_are_tested_exactly() {
        let mut dice = omen_core::ChaChaDice::from_seed(7);
        let few = report("Tak", &luck_log(25, || d50(&mut dice)));
        let mechanic = luck_outcomes(&few);
        let fit = mechanic.fit.as_ref().unwrap();
        assert_eq!(fit.test, "exact-multinomial");
        assert!(!mechanic.verdict.is_suspicious(), "{mechanic:#?}");
        // An outcome the odds gave no chance is impossible.
        let mut entries = luck_log(3, || 25);
        entries[0].result["outcome"] = Value::from("a miracle");
        let odd = report("Tak", &entries);
        assert!(matches!(
            luck_outcomes(&odd).verdict,
            Verdict::Impossible { .. }
        ));
    }

    #[test]
    fn an_action_whose_fields_were_withheld_is_left_out() {
        let mut entries = luck_log(30, || 10);
        for entry in &mut entries {
            entry.redacted = true;
        }
        let report = report("Tak", &entries);
        assert!(report.whole.mechanics.is_empty(), "{report:#?}");
        // Its dice still count per die.
        assert_eq!(report.whole.dice[0].rolled, 30);
    }

    #[test]
    fn fractions_are_in_lowest_terms() {
        assert_eq!(fraction(27, 216), "1/8");
        assert_eq!(fraction(6, 6), "1");
    }
}
