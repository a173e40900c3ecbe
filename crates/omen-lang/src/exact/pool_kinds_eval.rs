//! The exact engine's pools whose readings need the kinds of their dice ([`super::pool_kinds`]):
//! the pool laid out as groups of a kind each, every reading set up, the walk run, and its
//! values put back in the script's order.

use num_traits::{One, Zero};
use omen_core::multiset::{Group, Readings};
use omen_core::{CoreError, Distribution, Probability, Weight, any_of};

use super::pool_kept_counts::kept_by_counts;
use super::pool_kinds::{KindJoint, KindPool, Native, read_kinds};
use super::{Eval, Evaluator, either};
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::pool::{Kept, die_size, member_size, reroll_cap, reroll_order};
use crate::program::{NodeKind, PoolMember, PoolNode, PoolSource, ReadingKind, ReadingNode};
use crate::span::Span;
use crate::value::Value;

/// Whether the pool is read by kind: a reroll's choice, an effect die, or exploding dice. (A pool
/// rerolled from another is laid out by kind, but read by the core's walk unless one of these
/// needs the kinds, so that `raises` of it works.)
pub(super) fn needs_kinds(pool: &PoolNode) -> bool {
    let natives = pool
        .readings
        .iter()
        .any(|r| matches!(r.kind, ReadingKind::Kept(_) | ReadingKind::Effect));
    natives || explodes(pool)
}

/// Whether a member of the pool is an exploding dice term, each of whose dice joins the pool.
fn explodes(pool: &PoolNode) -> bool {
    let PoolSource::Dice(members) = &pool.source else {
        return false;
    };
    members.iter().any(|m| match m {
        PoolMember::Dice(term) => {
            matches!(&term.kind, NodeKind::Dice(d) if d.explosion.is_some())
        }
        PoolMember::Repeat { .. } => false,
    })
}

/// Whether `term` is a member whose dice explode into the pool.
pub(super) fn exploding_term(member: &PoolMember) -> bool {
    matches!(member, PoolMember::Dice(term)
        if matches!(&term.kind, NodeKind::Dice(d) if d.explosion.is_some()))
}

impl Evaluator<'_> {
    /// The pool's readings, by kind, with its counts and arguments known: `rolls` holds each
    /// member's die (or, for a reroll, each kind's), `counts` each member's count (or the kept
    /// reading).
    pub(super) fn kinds_pool(
        &mut self,
        span: Span,
        pool: &PoolNode,
        rolls: &[(Distribution<i64>, Probability)],
        counts: &[Value],
        args: &[Vec<Value>],
    ) -> Result<Eval, Diagnostic> {
        let at = |e: CoreError| core_diagnostic(&e, span);
        if pool.readings.iter().any(|r| r.kind == ReadingKind::Raises) {
            return Err(Diagnostic::error(
                "unsupported-modifier",
                span,
                "`raises` is not read beside a reroll, an effect die or exploding dice in one pool",
            )
            .with_help("read raises from a pool of its own, e.g. `raises(pool 5d10, 10)`"));
        }
        let laid = self.lay_out(span, pool, rolls, counts)?;
        let most = laid
            .starts
            .iter()
            .map(|(l, _)| l.iter().sum::<usize>())
            .max()
            .unwrap_or(0);
        self.limits.check_dice(most as i64).map_err(at)?;
        let folds: Vec<usize> = (0..pool.readings.len())
            .filter(|&i| {
                matches!(
                    pool.readings[i].kind,
                    ReadingKind::Fold { .. } | ReadingKind::Score(_)
                )
            })
            .collect();
        let table = if folds.is_empty() {
            None
        } else {
            let starts: Vec<Vec<usize>> = laid.starts.iter().map(|(l, _)| l.clone()).collect();
            Some(self.fold_table(span, &laid.groups, Some(&starts), &pool.readings, args)?)
        };
        let mut outcomes: Vec<i64> = laid
            .groups
            .iter()
            .flat_map(|g| g.die.outcomes().copied())
            .collect();
        outcomes.sort_unstable();
        outcomes.dedup();
        let mut natives = Vec::new();
        let mut builtins = Vec::new();
        for (reading, a) in pool.readings.iter().zip(args) {
            let ints: Vec<i64> = a.iter().map(whole).collect();
            match reading.kind {
                ReadingKind::Kept(f) => natives.push(Native::Kept {
                    choices: self.choices(f, &outcomes, span)?,
                    cap: reroll_cap(&ints, span)?,
                }),
                ReadingKind::Effect => natives.push(Native::Effect { k: ints[0] }),
                ReadingKind::Fold { .. } | ReadingKind::Score(_) => {}
                _ => builtins.push(crate::pool::builtin(reading, &ints)),
            }
        }
        let (builtins, skip) = Readings::new(builtins);
        if folds.is_empty()
            && let Some(d) = kept_by_counts(&laid, &builtins.0, &natives, self.limits, self.budget)
        {
            let d = d
                .map_err(at)?
                .map_into(|(b, n)| in_order(&pool.readings, &b[skip..], Vec::new(), n));
            self.limits.check_outcomes(d.len() as u128).map_err(at)?;
            let d = d.map_into(|v| Value::Tuple(v.into()));
            return Ok(Eval::plain(d, laid.truncated));
        }
        let sizes: Vec<Option<u64>> = laid.sizes.iter().map(|&s| Some(s)).collect();
        let joint = KindJoint {
            builtins,
            table: table.as_ref().map(|t| (t, folds)),
            natives,
            order: reroll_order(&sizes),
        };
        let d = read_kinds(&laid, &joint, self.limits, self.budget).map_err(|e| {
            let d = at(e);
            if explodes(pool) && matches!(d.kind, "work-budget" | "too-many-states") {
                // The cost grows with the dice the explosions may add, up to the depth.
                d.with_help(
                    "an exploding pool is read for every number of dice its explosions can add, \
                     up to --explode-depth; lower it (e.g. --explode-depth 10), use fewer dice, \
                     or raise the limit",
                )
            } else {
                d
            }
        })?;
        let d = d.map_into(|(b, f, n)| in_order(&pool.readings, &b[skip..], f, n));
        let d = self.finish_folds(span, d, &pool.readings)?;
        self.limits.check_outcomes(d.len() as u128).map_err(at)?;
        let d = d.map_into(|v| Value::Tuple(v.into()));
        Ok(Eval::plain(d, laid.truncated))
    }

    /// The pool as groups of one kind each, with the counts the walk starts from.
    pub(super) fn lay_out(
        &mut self,
        span: Span,
        pool: &PoolNode,
        rolls: &[(Distribution<i64>, Probability)],
        counts: &[Value],
    ) -> Result<KindPool, Diagnostic> {
        let at = |e: CoreError| core_diagnostic(&e, span);
        let mut laid = KindPool {
            groups: Vec::new(),
            kinds: Vec::new(),
            sizes: Vec::new(),
            starts: vec![(Vec::new(), Weight::one())],
            truncated: Probability::zero(),
        };
        match &pool.source {
            PoolSource::Dice(members) => {
                for (kind, (member, ((roll, cut), count))) in
                    members.iter().zip(rolls.iter().zip(counts)).enumerate()
                {
                    let count = self.limits.check_dice(whole(count)).map_err(at)?;
                    laid.sizes.push(member_size(member).unwrap_or(0));
                    let (groups, starts) = match member {
                        PoolMember::Dice(term) if exploding_term(member) => {
                            let chains = self.chains(span, term, count)?;
                            laid.truncated = either(&laid.truncated, &chains.truncated);
                            (chains.groups, chains.starts)
                        }
                        _ => {
                            if !cut.is_zero() {
                                laid.truncated = either(&laid.truncated, &any_of(cut, count));
                            }
                            let one = vec![(vec![count], Weight::one())];
                            (vec![Group::dice(roll.clone(), count)], one)
                        }
                    };
                    laid.kinds.extend(std::iter::repeat_n(kind, groups.len()));
                    laid.groups.extend(groups);
                    self.cross(span, &mut laid.starts, &starts)?;
                }
            }
            PoolSource::Reroll { dice, .. } => {
                let read = Kept::from_value(&counts[0]);
                laid.sizes = dice.iter().map(|d| die_size(d).unwrap_or(0)).collect();
                let mut left = Vec::new();
                for &(x, kind) in &read.kept {
                    match (laid.groups.last_mut(), laid.kinds.last()) {
                        (Some(g), Some(&k)) if k == kind && *g.die.min_outcome() == x => {
                            g.count += 1;
                            *left.last_mut().unwrap_or(&mut 0) += 1;
                        }
                        _ => {
                            laid.groups.push(Group::dice(Distribution::constant(x), 1));
                            laid.kinds.push(kind);
                            left.push(1);
                        }
                    }
                }
                for (kind, ((roll, cut), &again)) in rolls.iter().zip(&read.again).enumerate() {
                    if !cut.is_zero() {
                        laid.truncated = either(&laid.truncated, &any_of(cut, again));
                    }
                    laid.groups.push(Group::dice(roll.clone(), again));
                    laid.kinds.push(kind);
                    left.push(again);
                }
                laid.starts = vec![(left, Weight::one())];
            }
            PoolSource::Draw { .. } | PoolSource::Symbols(_) => {
                return Err(Diagnostic::error(
                    "unsupported-modifier",
                    span,
                    "cards and symbol dice have no kinds to reroll or sizes to read",
                ));
            }
        }
        Ok(laid)
    }

    /// Every start of the pool so far beside every start of its next member.
    fn cross(
        &mut self,
        span: Span,
        starts: &mut Vec<(Vec<usize>, Weight)>,
        more: &[(Vec<usize>, Weight)],
    ) -> Result<(), Diagnostic> {
        let at = |e: CoreError| core_diagnostic(&e, span);
        let n = (starts.len() as u128).saturating_mul(more.len() as u128);
        self.limits.check_states(n).map_err(at)?;
        self.budget.spend_estimate(n).map_err(at)?;
        let mut out = Vec::with_capacity(n as usize);
        for (left, w) in starts.iter() {
            for (more_left, v) in more {
                let mut l = left.clone();
                l.extend_from_slice(more_left);
                out.push((l, w * v));
            }
        }
        *starts = out;
        Ok(())
    }
}

/// One value per reading in the script's order, from the walk's builtin values, fold states and
/// native values.
fn in_order(readings: &[ReadingNode], b: &[i64], f: Vec<Value>, n: Vec<Value>) -> Vec<Value> {
    let (mut b, mut f, mut n) = (b.iter(), f.into_iter(), n.into_iter());
    readings
        .iter()
        .map(|r| match r.kind {
            ReadingKind::Fold { .. } | ReadingKind::Score(_) => f.next(),
            ReadingKind::Kept(_) | ReadingKind::Effect => n.next(),
            _ => b.next().map(|&x| Value::Int(x)),
        })
        .map(|v| v.unwrap_or(Value::Int(0)))
        .collect()
}

/// A value made sure to be a whole number.
fn whole(v: &Value) -> i64 {
    match v {
        Value::Int(x) => *x,
        _ => 0,
    }
}
