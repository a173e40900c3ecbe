//! Exploding dice joining a pool: `pool 8d10!`, each die an explosion adds a die of the pool of
//! its own (icepool's `explode_to_pool`), the chains capped by the explosion depth.
//!
//! A chain is k dice showing an exploding face ("hot"), then one die showing another ("cold"),
//! k from 0 to the depth D; or, at the limit, D + 1 hot dice, the last counted as rolled (its
//! explosion cut, which is the mass reported as truncated). So N chains are H hot dice and Q cold
//! ones, over every (X chains cut, H): two groups, the hot faces and the cold faces each weighted
//! as on the die, the walk starting from each (Q = N − X, H) with its weight. Weighing the dice
//! by the die's own weights (not divided by the chance of the faces they may show) leaves, for
//! the start, the ways to pick the X chains cut, C(N, X), times the ways the N − X others share
//! the rest of the hot dice, each 0 to D, each such chain padded by s^(D − k) (s the die's total
//! weight) so that every chain weighs over the same total s^(D + 1): Σₖ eᵏ·n·s^(D−k) + e^(D+1) =
//! s^(D+1), e and n the hot and cold faces' weights.

use num_traits::{One, Zero};
use omen_core::multiset::Group;
use omen_core::{Distribution, Probability, Weight, any_of, binomial_rows};

use super::Evaluator;
use super::pool_spec::pool_spec;
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::program::{Node, NodeKind, SidesNode};
use crate::span::Span;

/// The groups of one exploding member and the counts its dice may start from, with weights.
pub(super) struct Chains {
    pub groups: Vec<Group>,
    pub starts: Vec<(Vec<usize>, Weight)>,
    pub truncated: Probability,
}

impl Evaluator<'_> {
    /// `count` chains of the exploding die `term` as dice of a pool.
    pub(super) fn chains(
        &mut self,
        span: Span,
        term: &Node,
        count: usize,
    ) -> Result<Chains, Diagnostic> {
        let at = |e| core_diagnostic(&e, span);
        let unsupported = || {
            Diagnostic::error(
                "bad-pool-member",
                term.span,
                "an exploding die of a pool is a die of fixed faces",
            )
        };
        let NodeKind::Dice(dice) = &term.kind else {
            return Err(unsupported());
        };
        let SidesNode::Fixed(die) = &dice.sides else {
            return Err(unsupported());
        };
        let spec = pool_spec(dice, die.clone(), count as i64, self.limits, span)?;
        let full = die.distribution();
        let Some(explosion) = spec.dice.explosion else {
            return Ok(Chains {
                groups: vec![Group::dice(full, count)],
                starts: vec![(vec![count], Weight::one())],
                truncated: Probability::zero(),
            });
        };
        let depth = usize::try_from(spec.depth).unwrap_or(usize::MAX);
        let part = |explodes: bool| {
            Distribution::from_weights(
                full.outcomes()
                    .filter(|&&x| explosion.condition.holds(x) == explodes)
                    .map(|&x| (x, full.weight(&x))),
            )
            .ok()
        };
        let (hot, cold) = (part(true), part(false));
        let Some(hot) = hot else {
            // No face explodes: every chain is one die.
            return Ok(Chains {
                groups: vec![Group::dice(full, count)],
                starts: vec![(vec![count], Weight::one())],
                truncated: Probability::zero(),
            });
        };
        let s = full.total().clone();
        let per_chain_cut = Probability::new(
            num_traits::pow(hot.total().clone(), depth.saturating_add(1)),
            num_traits::pow(s.clone(), depth.saturating_add(1)),
        );
        let truncated = any_of(&per_chain_cut, count);
        let hot_most = depth.saturating_add(1).saturating_mul(count);
        self.limits.check_dice(hot_most as i64).map_err(at)?;
        let starts = match &cold {
            Some(_) => self.chain_starts(span, count, depth, &s)?,
            // Every face explodes: every chain runs to the depth limit.
            None => vec![(vec![0, hot_most], Weight::one())],
        };
        let cold = cold.unwrap_or_else(|| full.clone());
        Ok(Chains {
            groups: vec![Group::dice(cold, count), Group::dice(hot, count)],
            starts,
            truncated,
        })
    }

    /// Every (Q cold dice, H hot dice) with its weight, `n` chains capped at `depth`.
    fn chain_starts(
        &mut self,
        span: Span,
        n: usize,
        depth: usize,
        s: &Weight,
    ) -> Result<Vec<(Vec<usize>, Weight)>, Diagnostic> {
        let at = |e| core_diagnostic(&e, span);
        // One start for each X and each number of hot dice the chains not cut share.
        let starts: u128 = (0..=n as u128)
            .map(|x| (n as u128 - x) * depth as u128 + 1)
            .sum();
        self.limits.check_states(starts).map_err(at)?;
        self.budget
            .spend_estimate(starts.saturating_mul(depth as u128 + 2))
            .map_err(at)?;
        // ways[u][r]: the ways u chains, each with 0 to depth hot dice, hold r hot dice in all.
        let mut ways: Vec<Vec<Weight>> = vec![vec![Weight::one()]];
        for u in 1..=n {
            let prev = &ways[u - 1];
            let mut row = vec![Weight::zero(); prev.len() + depth];
            for (r, w) in prev.iter().enumerate() {
                for k in 0..=depth {
                    row[r + k] += w;
                }
            }
            ways.push(row);
        }
        let choose = binomial_rows(n);
        let mut out = Vec::new();
        for x in 0..=n {
            let cut = x * (depth + 1);
            for (r, w) in ways[n - x].iter().enumerate() {
                let pad = num_traits::pow(s.clone(), (n - x) * depth - r);
                out.push((vec![n - x, cut + r], &choose[n][x] * w * pad));
            }
        }
        Ok(out)
    }
}
