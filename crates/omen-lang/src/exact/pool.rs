//! The exact engine's pools: every reading of one pool in one walk, so their joint distribution is
//! exact. The readings the core folds outcome by outcome go through [`omen_core::multiset::read`];
//! a grouping search (raises) needs each whole multiset, listed once by
//! [`omen_core::grouping::read_whole`], which then reads the other readings from it too.

use num_traits::Zero;
use omen_core::grouping::{Raises, read_whole};
use omen_core::multiset::{Builtin, Group, Readings, read};
use omen_core::symbols::pool_net;
use omen_core::{CoreError, Distribution, Probability, any_of};

use super::pool_fold::{FoldTable, Joint};
use super::pool_kinds_eval::{exploding_term, needs_kinds};
use super::{Eval, Evaluator, either, ints};
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::pool::{builtin, read_dice};
use crate::program::{
    Node, NodeKind, PoolMember, PoolNode, PoolSource, ReadingKind, ReadingNode, SidesNode,
};
use crate::span::Span;
use crate::value::Value;

/// A die of the pool with how many of it, before equal dice are merged into one group.
type Kind = (Distribution<i64>, usize);

impl Evaluator<'_> {
    /// The joint distribution of the pool's readings, as tuples.
    #[inline(never)]
    pub(super) fn pool_readings(
        &mut self,
        span: Span,
        pool: &PoolNode,
    ) -> Result<Eval, Diagnostic> {
        // The numbers the walk needs before it starts: the members' counts and the readings'
        // arguments. Usually constants; when one is random, the pool is read once per outcome.
        let mut numbers: Vec<&Node> = Vec::new();
        let mut rolls: Vec<(Distribution<i64>, Probability)> = Vec::new();
        match &pool.source {
            PoolSource::Dice(members) => {
                for member in members {
                    let (count, roll) = match member {
                        PoolMember::Dice(term) if exploding_term(member) => {
                            // Its chains are laid out by the walk by kind; no die to roll here.
                            let NodeKind::Dice(dice) = &term.kind else {
                                continue;
                            };
                            numbers.push(&dice.count);
                            rolls.push((Distribution::constant(0), Probability::zero()));
                            continue;
                        }
                        PoolMember::Dice(term) => {
                            let NodeKind::Dice(dice) = &term.kind else {
                                continue;
                            };
                            let mut one = (**dice).clone();
                            one.count = Node {
                                span: dice.count.span,
                                ty: crate::program::Type::Int,
                                kind: NodeKind::Const(Value::Int(1)),
                            };
                            (&dice.count, self.dice(term.span, &one)?)
                        }
                        PoolMember::Repeat { count, roll } => (count, self.eval(roll)?),
                    };
                    numbers.push(count);
                    let faces = ints(&roll.dist, span, "a die of a pool")?;
                    rolls.push((faces, roll.truncated));
                }
            }
            PoolSource::Draw { count, .. } => numbers.push(count),
            PoolSource::Symbols(_) => {}
            PoolSource::Reroll { dice, .. } => {
                for die in dice {
                    let roll = self.eval(die)?;
                    let faces = ints(&roll.dist, span, "a die of a pool")?;
                    rolls.push((faces, roll.truncated));
                }
            }
        }
        let mut numbers: Vec<(&Node, bool)> = numbers.into_iter().map(|n| (n, true)).collect();
        if let PoolSource::Reroll { kept, .. } = &pool.source {
            // The other pool's faces kept and how many it rerolls: a tuple, fixed where it is bound.
            numbers.push((kept, false));
        }
        let counted = numbers.len();
        for reading in &pool.readings {
            // A fold's start may be any value; every other argument is a number.
            let any = matches!(reading.kind, ReadingKind::Fold { .. });
            numbers.extend(reading.args.iter().map(|a| (a, !any)));
        }
        let combos = self.joint_values(&numbers, span)?;
        self.branch(&combos, span, |ev, values| {
            let (counts, args) = values.split_at(counted);
            ev.pool_with(span, pool, &rolls, counts, args)
        })
    }

    /// The joint outcomes of `nodes`, each a whole number where its flag says so.
    fn joint_values(
        &mut self,
        nodes: &[(&Node, bool)],
        span: Span,
    ) -> Result<Distribution<Vec<Value>>, Diagnostic> {
        let mut combos: Distribution<Vec<Value>> = Distribution::constant(Vec::new());
        for &(node, number) in nodes {
            let e = self.eval(node)?;
            let d = if number {
                ints(&e.dist, node.span, "a pool's count or a reading's argument")?
                    .map_into(Value::Int)
            } else {
                e.dist
            };
            combos = combos
                .combine(&d, self.budget, |prefix, v| {
                    let mut next = prefix.clone();
                    next.push(v.clone());
                    Ok(next)
                })
                .map_err(|e| core_diagnostic(&e, span))?;
        }
        Ok(combos)
    }

    /// The pool read with its counts and arguments known.
    fn pool_with(
        &mut self,
        span: Span,
        pool: &PoolNode,
        rolls: &[(Distribution<i64>, Probability)],
        counts: &[Value],
        args: &[Value],
    ) -> Result<Eval, Diagnostic> {
        let at = |e: CoreError| core_diagnostic(&e, span);
        let mut per_reading: Vec<Vec<Value>> = Vec::new();
        let mut rest = args;
        for reading in &pool.readings {
            let (mine, after) = rest.split_at(reading.args.len());
            per_reading.push(mine.to_vec());
            rest = after;
        }
        if needs_kinds(pool) {
            return self.kinds_pool(span, pool, rolls, counts, &per_reading);
        }
        // A die that may hit the explosion depth is cut short when any of the pool's does.
        let mut truncated = Probability::zero();
        let groups = match &pool.source {
            PoolSource::Symbols(dice) => {
                return self.symbol_pool(span, dice, Some(pool.readings.len()));
            }
            PoolSource::Dice(_) => {
                let mut kinds: Vec<Kind> = Vec::new();
                for ((roll, cut), count) in rolls.iter().zip(counts.iter().map(whole)) {
                    let count = self.limits.check_dice(count).map_err(at)?;
                    if !cut.is_zero() {
                        truncated = either(&truncated, &any_of(cut, count));
                    }
                    match kinds.iter_mut().find(|(d, _)| d == roll) {
                        Some((_, n)) => *n += count,
                        None => kinds.push((roll.clone(), count)),
                    }
                }
                let total: usize = kinds.iter().map(|(_, n)| n).sum();
                self.limits.check_dice(total as i64).map_err(at)?;
                kinds
                    .into_iter()
                    .map(|(die, n)| Group::dice(die, n))
                    .collect::<Vec<_>>()
            }
            PoolSource::Draw { deck, .. } => vec![self.draw(deck, whole(&counts[0]), span)?],
            // The faces kept and the dice rolled again, as the walk by kind lays them out.
            PoolSource::Reroll { .. } => {
                let laid = self.lay_out(span, pool, rolls, counts)?;
                truncated = laid.truncated;
                laid.groups
            }
        };
        let folds = pool
            .readings
            .iter()
            .any(|r| matches!(r.kind, ReadingKind::Fold { .. } | ReadingKind::Score(_)));
        let table = if folds {
            Some(self.fold_table(span, &groups, None, &pool.readings, &per_reading)?)
        } else {
            None
        };
        let d = if pool.readings.iter().any(|r| r.kind == ReadingKind::Raises) {
            let d = self
                .whole(&groups, &pool.readings, &per_reading, table.as_ref())
                .map_err(at)?;
            self.finish_folds(span, d, &pool.readings)?
        } else {
            let builtins: Vec<Builtin> = pool
                .readings
                .iter()
                .zip(&per_reading)
                .filter(|(r, _)| {
                    !matches!(r.kind, ReadingKind::Fold { .. } | ReadingKind::Score(_))
                })
                .map(|(r, a)| builtin(r, &a.iter().map(whole).collect::<Vec<_>>()))
                .collect();
            let (builtins, skip) = Readings::new(builtins);
            match &table {
                Some(table) => {
                    let joint = Joint { builtins, table };
                    let d = read(&groups, &joint, self.limits, self.budget).map_err(at)?;
                    self.assemble(span, d, &pool.readings, skip)?
                }
                None => read(&groups, &builtins, self.limits, self.budget)
                    .map_err(at)?
                    .map_into(|v| v[skip..].iter().copied().map(Value::Int).collect()),
            }
        };
        self.limits.check_outcomes(d.len() as u128).map_err(at)?;
        let d = d.map_into(|v| Value::Tuple(v.into()));
        Ok(Eval::plain(d, truncated))
    }

    /// `count` cards from the deck written as a die.
    fn draw(&mut self, deck: &Node, count: i64, span: Span) -> Result<Group, Diagnostic> {
        let at = |e: CoreError| core_diagnostic(&e, span);
        let count = self.limits.check_dice(count).map_err(at)?;
        let NodeKind::Dice(d) = &deck.kind else {
            return Err(Diagnostic::error(
                "bad-deck",
                deck.span,
                "a deck is one die",
            ));
        };
        let SidesNode::Fixed(die) = &d.sides else {
            return Err(Diagnostic::error(
                "bad-deck",
                deck.span,
                "a deck is one die",
            ));
        };
        if count as u64 > die.face_count() {
            return Err(Diagnostic::error(
                "too-many-cards",
                span,
                format!(
                    "cannot draw {count} cards from a deck of {}",
                    die.face_count()
                ),
            )
            .with_help("draw at most as many cards as the deck lists faces"));
        }
        Ok(Group::draws(die.distribution(), count))
    }

    /// Every multiset listed once: for a grouping search, with the other readings read from the
    /// same dice.
    fn whole(
        &mut self,
        groups: &[Group],
        readings: &[ReadingNode],
        args: &[Vec<Value>],
        table: Option<&FoldTable>,
    ) -> Result<Distribution<Vec<Value>>, CoreError> {
        let args: Vec<Vec<i64>> = args.iter().map(|a| a.iter().map(whole).collect()).collect();
        let solvers: Vec<Option<Raises>> = readings
            .iter()
            .zip(&args)
            .map(|(r, a)| (r.kind == ReadingKind::Raises).then(|| Raises::new(a[0])))
            .collect();
        read_whole(
            groups,
            |multiset, budget| {
                let mut sorted = Vec::new();
                for &(x, c) in multiset {
                    sorted.extend(std::iter::repeat_n(x, c));
                }
                let mut out = Vec::with_capacity(readings.len());
                for (i, ((reading, a), solver)) in
                    readings.iter().zip(&args).zip(&solvers).enumerate()
                {
                    if let (Some(table), ReadingKind::Fold { .. } | ReadingKind::Score(_)) =
                        (table, reading.kind)
                    {
                        // The exploration took every transition a multiset of the pool takes.
                        out.push(table.run(i, multiset).ok_or(CoreError::Empty)?);
                        continue;
                    }
                    let mut raises = |_: i64| match solver {
                        Some(s) => s.solve(multiset, budget),
                        None => Ok(0),
                    };
                    out.push(Value::Int(read_dice(
                        reading.kind,
                        a,
                        &sorted,
                        &mut raises,
                    )?));
                }
                Ok(out)
            },
            self.limits,
            self.budget,
        )
    }

    /// A Genesys pool: each reading is the tuple of net successes, net advantages, triumphs and
    /// despairs; the pool's value is the tuple of its `readings`, or with `None` the one reading
    /// alone (`symbols(pool {…})` read in place).
    pub(super) fn symbol_pool(
        &mut self,
        span: Span,
        dice: &[(i64, &'static omen_core::symbols::SymbolDie)],
        readings: Option<usize>,
    ) -> Result<Eval, Diagnostic> {
        let at = |e: CoreError| core_diagnostic(&e, span);
        let pool: Vec<(&omen_core::symbols::SymbolDie, usize)> = dice
            .iter()
            .map(|&(n, die)| Ok((die, self.limits.check_dice(n)?)))
            .collect::<Result<_, CoreError>>()
            .map_err(at)?;
        let net = pool_net(&pool, self.budget).map_err(at)?;
        // Cells come in the vectors' order, and a tuple of numbers orders as they do.
        let d = net.map_increasing_into(|n| {
            let one = Value::Tuple(n.iter().copied().map(Value::Int).collect());
            match readings {
                Some(readings) => Value::Tuple(std::iter::repeat_n(one, readings).collect()),
                None => one,
            }
        });
        Ok(Eval::plain(d, Probability::zero()))
    }
}

impl Evaluator<'_> {
    /// Σ score over the dice a keep takes from the middle of a pool of different dice (`{1d10,
    /// 1d8, 1d6}kh2kl1`, the middle die): one walk over the pool's outcomes, the dice ranked as
    /// they are placed from the lowest, so the dice are never enumerated. Equal members are one
    /// group.
    pub(super) fn kept_window(
        &mut self,
        members: &[Distribution<i64>],
        keep: omen_core::Keep,
        score: &dyn Fn(i64) -> i64,
    ) -> Result<Distribution<i64>, CoreError> {
        let mut kinds: Vec<Kind> = Vec::new();
        for m in members {
            match kinds.iter_mut().find(|(d, _)| d == m) {
                Some((_, n)) => *n += 1,
                None => kinds.push((m.clone(), 1)),
            }
        }
        let groups: Vec<Group> = kinds.into_iter().map(|(d, n)| Group::dice(d, n)).collect();
        read(&groups, &Window { keep, score }, self.limits, self.budget)
    }
}

/// The fold of [`Evaluator::kept_window`]: (lowest rank kept, past the highest kept, score so far, dice
/// placed), ranks counted from 0 at the lowest die.
struct Window<'a> {
    keep: omen_core::Keep,
    score: &'a dyn Fn(i64) -> i64,
}

impl omen_core::multiset::Reading for Window<'_> {
    type State = [i64; 4];
    type Value = i64;

    fn initial(&self, dice: usize) -> [i64; 4] {
        let (dropped, kept) = self.keep.run(dice);
        [dropped as i64, (dropped + kept) as i64, 0, 0]
    }

    fn next(&self, state: &[i64; 4], outcome: i64, count: usize) -> Result<[i64; 4], CoreError> {
        let [low, high, sum, placed] = *state;
        let n = count as i64;
        // These n dice hold ranks placed..placed + n; those inside low..high are kept.
        let kept = (placed + n).min(high) - placed.max(low);
        let sum = if kept > 0 {
            (self.score)(outcome)
                .checked_mul(kept)
                .and_then(|x| x.checked_add(sum))
                .ok_or(CoreError::Overflow)?
        } else {
            sum
        };
        Ok([low, high, sum, placed + n])
    }

    fn finish(&self, state: &[i64; 4]) -> i64 {
        state[2]
    }
}

/// A value the checker or [`Evaluator::joint_values`] made sure is a whole number.
fn whole(v: &Value) -> i64 {
    match v {
        Value::Int(x) => *x,
        _ => 0,
    }
}
