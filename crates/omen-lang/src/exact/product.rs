//! Products of whole distributions: a tuple's outcomes and a call's combinations of arguments.
//!
//! Every pair of a product is a distinct outcome (a tuple `(a, b)` differs from `(a, c)`), so the
//! outcome limit is checked on the product's size before it is built: `(d6,d6,d6,d6,d6,d6,d6,d6)` is
//! refused before building its 1,679,616 tuples, where it took seconds and 900 MB to find it had too
//! many. Each pair pays for the values it copies, so a wide product is paid in proportion to its size.

use num_traits::Zero;
use omen_core::{CoreError, Distribution, Probability};

use super::{Eval, Evaluator, either};
use crate::check::core_diagnostic;
use crate::diagnostic::Diagnostic;
use crate::program::Node;
use crate::span::Span;
use crate::value::Value;

/// What one pair of a product costs besides its weights' arithmetic: a key built and placed in an
/// ordered map, about as long as this many limb multiply-adds (measured with `examples/stages` on
/// tuples of dice: `(d6,d6,d6,d6,d6,d6,d6)` pays about 2 ns a unit).
const PAIR_COST: u64 = 250;

/// What each value of a pair's key costs on top: copied once, compared at each level of the map. Set
/// by memory rather than time: a value takes 24 bytes and is held until the product is done, so at
/// this rate the default budget (10⁹) holds at most about 240 MB of keys, however wide the tuple.
const PAIR_VALUE_COST: u64 = 100;

impl Evaluator<'_> {
    /// Checks and pays for the product of `a` and `b` outcomes whose keys hold `width` values,
    /// before any of it is built.
    fn pay_product(
        &mut self,
        a: usize,
        b: usize,
        width: usize,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let at = |e: CoreError| core_diagnostic(&e, span);
        let pairs = a as u128 * b as u128;
        self.limits.check_outcomes(pairs).map_err(at)?;
        let per_pair = PAIR_COST as u128 + PAIR_VALUE_COST as u128 * width as u128;
        self.budget
            .spend_estimate(pairs.saturating_mul(per_pair))
            .map_err(at)
    }

    /// The joint distribution of `items`, each rolled independently. Every item is evaluated first,
    /// so that the whole product's size is checked and paid for before any of it is built.
    pub(super) fn product(
        &mut self,
        items: &[Node],
        span: Span,
    ) -> Result<(Distribution<Vec<Value>>, Probability), Diagnostic> {
        let mut evals = Vec::with_capacity(items.len());
        let mut size = 1usize;
        for item in items {
            let e = self.eval(item)?;
            size = size.saturating_mul(e.dist.len());
            self.limits
                .check_outcomes(size as u128)
                .map_err(|e| core_diagnostic(&e, span))?;
            evals.push(e);
        }
        let mut acc: Distribution<Vec<Value>> = Distribution::constant(Vec::new());
        let mut truncated = Probability::zero();
        for (width, e) in (1..).zip(evals) {
            self.pay_product(acc.len(), e.dist.len(), width, span)?;
            acc = acc
                .combine(&e.dist, self.budget, |prefix, v| {
                    let mut next = Vec::with_capacity(width);
                    next.extend_from_slice(prefix);
                    next.push(v.clone());
                    Ok(next)
                })
                .map_err(|e| core_diagnostic(&e, span))?;
            truncated = either(&truncated, &e.truncated);
        }
        Ok((acc, truncated))
    }

    /// `(a, b, …)`: every combination of the items' outcomes.
    pub(super) fn tuple(&mut self, items: &[Node], span: Span) -> Result<Eval, Diagnostic> {
        let (acc, truncated) = self.product(items, span)?;
        // Each outcome is copied once more into its tuple.
        self.pay_product(acc.len(), 1, items.len(), span)?;
        Ok(Eval::plain(
            acc.map(|vs| Value::Tuple(vs.clone().into())),
            truncated,
        ))
    }
}
