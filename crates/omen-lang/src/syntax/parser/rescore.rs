//! Per-die scores by value: a dialect's modifier that scores each die by its face alone (Avrae's
//! `k3`, `p<3`, Foundry's `sf`, `even`, `odd`, Dice Maiden's `t7ds10`). On a term with no other
//! modifier, scoring each die is relabelling its faces, so the term reads as a die with custom faces.

use crate::syntax::ast::{CompareOp, Expr, ExprKind, FaceItem, Modifier, Sides, Spanned};

/// How a dialect's value-based modifier scores each die.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Rescore {
    /// Avrae's `k` and `p` with value selectors: a die counts its value when it passes every
    /// operation, else 0.
    Values(Vec<Selection>),
    /// Foundry's `sf<3`: the dice meeting the point count minus their value.
    SubtractFailures(CompareOp, i64),
    /// Foundry's `even` (true) and `odd`: each die meeting it counts 1, the rest 0.
    Parity(bool),
    /// Dice Maiden's `ds10` before it is read with the term's target.
    DoubleSuccess(i64),
    /// Dice Maiden's several targets (`t7 t10`) and failure number: a die counts one for each
    /// target it meets, less one for each target when at or below the failure number (0: none).
    Targets { targets: Vec<i64>, failure: i64 },
    /// Dice Maiden's `t7ds10`: a die meeting the target counts 1, meeting the double too 2.
    Successes {
        op: CompareOp,
        target: i64,
        double: i64,
    },
}

/// One of d20's operations `k` (keep) or `p` (drop) with its value selectors. d20 folds the
/// selectors of one operation written in a row into one (`k1k2k3` keeps what any of them selects),
/// and each operation keeps or drops among the values still kept, so a value survives a run of
/// operations when it passes each of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Selection {
    pub keep: bool,
    pub selectors: Vec<(CompareOp, i64)>,
}

impl Selection {
    /// Whether `value` passes this operation: kept by `k`, not dropped by `p`.
    pub fn passes(&self, value: i64) -> bool {
        self.selectors
            .iter()
            .any(|&(op, point)| meets(op, point, value))
            == self.keep
    }
}

pub(super) fn meets(op: CompareOp, point: i64, face: i64) -> bool {
    match op {
        CompareOp::Ge => face >= point,
        CompareOp::Gt => face > point,
        CompareOp::Le => face <= point,
        CompareOp::Lt => face < point,
        CompareOp::Eq => face == point,
        CompareOp::Ne => face != point,
    }
}

impl Rescore {
    /// Avrae's `k` (`keep`) or `p` with one value selector.
    pub fn select(keep: bool, op: CompareOp, point: i64) -> Rescore {
        Rescore::Values(vec![Selection {
            keep,
            selectors: vec![(op, point)],
        }])
    }

    /// A later selector on the same term, in a dialect whose selectors unite (Avrae): one written
    /// straight after an operation of its kind joins it (`k1k2`), another starts the next operation
    /// (`k>2p5`). `None` for scores that do not combine, which stay refused.
    pub fn then(self, later: Rescore) -> Option<Rescore> {
        let (Rescore::Values(mut first), Rescore::Values(later)) = (self, later) else {
            return None;
        };
        for selection in later {
            match first.last_mut() {
                Some(last) if last.keep == selection.keep => {
                    last.selectors.extend(selection.selectors);
                }
                _ => first.push(selection),
            }
        }
        Some(Rescore::Values(first))
    }

    /// The score of `face`; `None` when it does not fit in 64 bits (`sf` of the lowest number).
    pub fn score(&self, face: i64) -> Option<i64> {
        Some(match self {
            Rescore::Values(selections) => {
                face * i64::from(selections.iter().all(|s| s.passes(face)))
            }
            &Rescore::SubtractFailures(op, v) if meets(op, v, face) => face.checked_neg()?,
            Rescore::SubtractFailures(..) => face,
            Rescore::Parity(even) => i64::from((face.rem_euclid(2) == 0) == *even),
            Rescore::DoubleSuccess(_) => return None,
            Rescore::Targets { targets, failure } => {
                let met = targets.iter().filter(|&&t| face >= t).count();
                let failed = if face <= *failure { targets.len() } else { 0 };
                i64::try_from(met).ok()? - i64::try_from(failed).ok()?
            }
            &Rescore::Successes { op, target, double } => {
                i64::from(meets(op, target, face)) + i64::from(meets(op, double, face))
            }
        })
    }
}

/// The most faces a die relabelled by a per-die score may list.
const MAX_RESCORED_FACES: i64 = 1000;

/// The faces of a die relabelled by `rescore`, or why that cannot be done.
pub(super) fn rescored_faces(
    sides: &Sides,
    rescore: &Rescore,
    modifiers: &[Spanned<Modifier>],
) -> Result<Vec<i64>, String> {
    // Double successes come with their explosion and keeps already written on the scores
    // (double_success.rs, dice_maiden.rs).
    let on_scores = matches!(rescore, Rescore::Successes { .. } | Rescore::Targets { .. })
        && modifiers
            .iter()
            .all(|m| matches!(m.node, Modifier::Explode { .. } | Modifier::Keep { .. }));
    if !modifiers.is_empty() && !on_scores {
        return Err(
            "scoring each die by its value together with other modifiers on one dice term is not \
             computed yet"
                .to_string(),
        );
    }
    let faces = listed_faces(sides, "scoring each die by its value")?;
    faces
        .into_iter()
        .map(|f| rescore.score(f))
        .collect::<Option<Vec<i64>>>()
        .ok_or_else(|| "a scored face does not fit in a 64-bit integer".to_string())
}

/// Every face of a die known from its sides alone, each once per time it is listed, for `what` (named in
/// the error): at most [`MAX_RESCORED_FACES`].
pub(super) fn listed_faces(sides: &Sides, what: &str) -> Result<Vec<i64>, String> {
    let too_many = || format!("{what} needs at most {MAX_RESCORED_FACES} faces");
    Ok(match sides {
        Sides::Number(Expr {
            node: ExprKind::Number(n),
            ..
        }) if (1..=MAX_RESCORED_FACES).contains(n) => (1..=*n).collect(),
        Sides::Percent => (1..=100).collect(),
        Sides::Fudge => vec![-1, 0, 1],
        Sides::Custom(items) => {
            let mut faces = Vec::new();
            for item in items {
                match item.node {
                    FaceItem::Face(n) => faces.push(n),
                    FaceItem::Range(lo, hi) => {
                        if hi.saturating_sub(lo) > MAX_RESCORED_FACES {
                            return Err(too_many());
                        }
                        faces.extend(lo..=hi);
                    }
                }
                if faces.len() as i64 > MAX_RESCORED_FACES {
                    return Err(too_many());
                }
            }
            faces
        }
        Sides::Number(_) => {
            return Err(format!(
                "{what} needs a die of 1 to {MAX_RESCORED_FACES} sides written as a number"
            ));
        }
    })
}
