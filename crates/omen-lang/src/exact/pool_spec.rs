//! The core's pool for a dice term whose die and count are known: what both interpreters roll.

use omen_core::{Compare, DiceSpec, Die, Explosion, Limits, PoolSpec};

use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::program::DiceNode;
use crate::span::Span;

/// The core pool for a dice term with a known die and count.
///
/// # Errors
/// The count is negative or over the limit; the die's steps reroll every face.
pub fn pool_spec(
    dice: &DiceNode,
    die: Die,
    count: i64,
    limits: &Limits,
    count_span: Span,
) -> Result<PoolSpec, Diagnostic> {
    let count = limits
        .check_dice(count)
        .map_err(|e| core_diagnostic(&e, count_span))?;
    let depth = limits
        .check_explode_depth()
        .map_err(|e| core_diagnostic(&e, count_span))?;
    let depth = if dice.explode_once {
        depth.min(1)
    } else {
        depth
    };
    let mut spec = DiceSpec {
        die,
        before: dice.before.clone(),
        explosion: None,
        after: dice.after.clone(),
    };
    if let Some((compound, condition)) = dice.explosion {
        let condition = match condition {
            Some(c) => c,
            None => omen_core::Condition::new(
                Compare::Eq,
                spec.highest_face()
                    .map_err(|e| core_diagnostic(&e, count_span))?,
            ),
        };
        spec.explosion = Some(Explosion {
            condition,
            compound,
            penetrate: dice.penetrate,
            first_only: dice.first_only,
        });
    }
    Ok(PoolSpec {
        count,
        dice: spec,
        keep: dice.keep,
        success: dice.success,
        failure: dice.failure,
        depth,
        matching: dice.matching,
        unique: dice.unique,
    })
}
