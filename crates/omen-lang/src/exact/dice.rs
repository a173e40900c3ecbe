//! Dice terms, groups and pools, exactly: the core's pools with the term's compare points.

use num_traits::Zero;
use omen_core::{Die, Distribution, Exact, Keep, Probability, Unit, keep_sum, sequential_keep_sum};

use super::pool_spec::pool_spec;
use super::{Eval, Evaluator, either, from_ints, ints};
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::group_scale;
use crate::program::{DiceNode, GroupNode, Node, PointTarget, SidesNode};
use crate::span::Span;

impl Evaluator<'_> {
    /// The joint values of a term's named compare points (usually one constant each).
    pub(super) fn point_values(
        &mut self,
        points: &[(PointTarget, Node)],
        span: Span,
    ) -> Result<Distribution<Vec<i64>>, Diagnostic> {
        let mut combos: Distribution<Vec<i64>> = Distribution::constant(Vec::new());
        for (_, node) in points {
            let e = self.eval(node)?;
            let d = ints(&e.dist, node.span, "a compare point")?;
            combos = combos
                .combine(&d, self.budget, |prefix, v| {
                    let mut next = prefix.clone();
                    next.push(*v);
                    Ok(next)
                })
                .map_err(|e| core_diagnostic(&e, span))?;
        }
        Ok(combos)
    }

    pub(super) fn dice(&mut self, span: Span, dice: &DiceNode) -> Result<Eval, Diagnostic> {
        if !dice.points.is_empty() {
            let combos = self.point_values(&dice.points, span)?;
            return self.branch(&combos, span, |ev, values| {
                ev.dice(span, &dice.resolved(values))
            });
        }
        let count = self.eval(&dice.count)?;
        let counts = ints(&count.dist, dice.count.span, "the number of dice")?;
        let count_span = dice.count.span;
        let mut r = match &dice.sides {
            SidesNode::Fixed(die) => self.branch(&counts, span, |ev, &k| {
                ev.pool(span, count_span, dice, die.clone(), k)
            })?,
            SidesNode::Random(sides_node) => {
                let sides = self.eval(sides_node)?;
                let sides_d = ints(&sides.dist, sides_node.span, "the number of sides")?;
                let limits = self.limits;
                let mut r = self.branch(&sides_d, span, |ev, &s| {
                    let die = Die::standard(s, limits)
                        .map_err(|e| core_diagnostic(&e, sides_node.span))?;
                    ev.branch(&counts, span, |ev, &k| {
                        ev.pool(span, count_span, dice, die.clone(), k)
                    })
                })?;
                r.truncated = either(&r.truncated, &sides.truncated);
                r
            }
        };
        r.truncated = either(&r.truncated, &count.truncated);
        Ok(r)
    }

    pub(super) fn pool(
        &mut self,
        span: Span,
        count_span: Span,
        dice: &DiceNode,
        die: Die,
        count: i64,
    ) -> Result<Eval, Diagnostic> {
        let spec = pool_spec(dice, die, count, self.limits, count_span)?;
        if let Some(ends) = dice.ends {
            let d = crate::keep_ends::pool_exact(&spec, ends, self.limits, self.budget)
                .map_err(|e| core_diagnostic(&e, span))?;
            return Ok(Eval::plain(from_ints(d), omen_core::Probability::zero()));
        }
        let Exact {
            distribution,
            truncated,
        } = spec
            .exact(self.limits, self.budget)
            .map_err(|e| core_diagnostic(&e, span))?;
        // Stopping after one extra die is what `!o` means, not mass cut off by the limit.
        let truncated = if dice.explode_once && spec.depth >= 1 {
            omen_core::Probability::zero()
        } else {
            truncated
        };
        Ok(Eval::plain(from_ints(distribution), truncated))
    }

    pub(super) fn group(&mut self, span: Span, group: &GroupNode) -> Result<Eval, Diagnostic> {
        if !group.points.is_empty() {
            let combos = self.point_values(&group.points, span)?;
            return self.branch(&combos, span, |ev, values| {
                ev.group(span, &group.resolved(values))
            });
        }
        let mut members = Vec::with_capacity(group.members.len());
        let mut truncated = Probability::zero();
        let mut sum: Option<Distribution<i64>> = None;
        let evals = (group.members.iter())
            .map(|m| self.eval(m))
            .collect::<Result<Vec<_>, _>>()?;
        let scale = group_scale_of(group, &evals);
        let finish = |d: Distribution<i64>| match scale {
            1 => from_ints(d),
            scale => d.map_into(|x| group_scale::unscaled(x, scale)),
        };
        for (m, e) in group.members.iter().zip(&evals) {
            truncated = either(&truncated, &e.truncated);
            let member = match scale {
                1 => ints(&e.dist, m.span, "a group member")?,
                scale => e.dist.try_map(|v| {
                    group_scale::scaled(v, scale)
                        .ok_or_else(|| core_diagnostic(&omen_core::CoreError::Overflow, m.span))
                })?,
            };
            if group.keep == Keep::All {
                // Every member counts: the scores add up, by convolution, member by member.
                let scored = member.map(|&x| group.score(x));
                sum = Some(match sum {
                    None => scored,
                    Some(acc) => acc
                        .add(&scored, self.limits, self.budget)
                        .map_err(|e| core_diagnostic(&e, span))?,
                });
                continue;
            }
            members.push(member);
        }
        if let Some(sum) = sum {
            return Ok(Eval::plain(finish(sum), truncated));
        }
        let score = |x: i64| group.score(x);
        // Members that are all alike (`{3d6, 3d6, 3d6}kh2`, `{d20, d20}kh1`) are a pool of that
        // member: the pool walks over faces, far faster than adding one member at a time, and they
        // take middle runs too.
        let d = match members.split_first() {
            Some((first, rest)) if rest.iter().all(|m| m == first) => keep_sum(
                first,
                members.len(),
                group.keep,
                &score,
                self.limits,
                self.budget,
            ),
            // Middle runs of different members: one walk over the pool's sorted outcomes.
            _ if matches!(
                group.keep,
                Keep::Middle(_) | Keep::Slice { .. } | Keep::DropBoth { .. }
            ) =>
            {
                self.kept_window(&members, group.keep, &score)
            }
            _ => {
                let units: Vec<Unit> = members.iter().map(Unit::single).collect();
                sequential_keep_sum(&units, group.keep, &score, self.limits, self.budget)
            }
        }
        .map_err(|e| core_diagnostic(&e, span))?;
        Ok(Eval::plain(finish(d), truncated))
    }
}

/// The scale that makes the members of `group` whole (see [`group_scale`]): 1 when they are, or
/// when the group counts successes, whose points compare whole values.
fn group_scale_of(group: &GroupNode, members: &[Eval]) -> i64 {
    if group.success.is_some() || group.failure.is_some() {
        return 1;
    }
    let values = members
        .iter()
        .flat_map(|e| e.dist.entries().iter().map(|(v, _)| v));
    group_scale::common_denominator(values).unwrap_or(1)
}
