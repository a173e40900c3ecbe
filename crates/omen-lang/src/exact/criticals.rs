//! The probabilities of the critical marks a roll's transcript shows (`cs`, `cf`, matching sets).

use omen_core::{Budget, Compare, Limits, Probability};

use super::pool_spec::pool_spec;
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::program::{DiceNode, Node, NodeKind, Program, SidesNode};
use crate::value::Value;

/// The probabilities of the critical marks (`cs`, `cf`) a roll's transcript can show: `None` where the
/// program has no such mark, or one this computation does not cover (a mark inside a function, a
/// branch or a `let`, or on dice whose count or sides are rolled); then `not_computed` says why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Criticals {
    pub success: Option<Probability>,
    pub failure: Option<Probability>,
    /// P(some set of matching dice) for dice marked with `m` or `mt`.
    pub matched: Option<Probability>,
    /// Why the program's critical marks have no probability here, for the output to say so.
    pub not_computed: Option<&'static str>,
}

impl Criticals {
    fn not_computed(reason: &'static str) -> Self {
        Criticals {
            not_computed: Some(reason),
            ..Criticals::default()
        }
    }
}

/// The marks are somewhere a roll may reach any number of times, or not at all.
const MARKS_IN_BRANCHES: &str = "the marked dice are inside a function, a branch of `if` or `match`, \
    or a process, where a roll may roll them several times or not at all; P(critical) is given for \
    marked dice that every roll rolls once";

fn marked(dice: &DiceNode) -> bool {
    dice.critical_success.is_some() || dice.critical_failure.is_some() || dice.matching.is_some()
}

/// Whether a dice term under `node` carries a critical mark.
fn any_marked(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Dice(d) => marked(d) || any_marked(&d.count),
        _ => node.operands().into_iter().any(any_marked),
    }
}

/// The marked dice terms under `node`, each rolled exactly once per run of the program; `false` when
/// a marked term may be rolled any other number of times (in a branch, a function, a process). Both
/// interpreters evaluate both sides of `and`/`or` and a binding's value once.
fn marked_once<'n>(node: &'n Node, out: &mut Vec<&'n DiceNode>) -> bool {
    match &node.kind {
        NodeKind::Dice(d) => {
            if marked(d) {
                out.push(d);
            }
            !any_marked(&d.count)
        }
        // The condition is rolled once; a branch only sometimes.
        NodeKind::If(c, a, b) => marked_once(c, out) && !any_marked(a) && !any_marked(b),
        NodeKind::Match(x, arms) => marked_once(x, out) && !arms.iter().any(|(_, n)| any_marked(n)),
        // A function's body or a process's step may run any number of times.
        NodeKind::Call(..) | NodeKind::Process { .. } => !any_marked(node),
        // A binding's value is rolled once per run, whatever the body does with it; every other
        // operand once.
        _ => node.operands().into_iter().all(|c| marked_once(c, out)),
    }
}

/// P(some die marked `cs` (or `cf`) shows a critical), and P(some set of matching dice) for terms
/// marked `m`/`mt`: the marked terms are each rolled once and independently, so P(none) is the
/// product of each term's P(none).
pub(super) fn criticals(
    program: &Program,
    limits: &Limits,
    budget: &mut Budget,
) -> Result<Criticals, Diagnostic> {
    let mut terms = Vec::new();
    if program.functions.iter().any(|f| any_marked(&f.body))
        || !marked_once(&program.root, &mut terms)
    {
        return Ok(Criticals::not_computed(MARKS_IN_BRANCHES));
    }
    let one = || Probability::from_integer(1u32.into());
    let mut none: [Option<Probability>; 2] = [None, None];
    let mut no_set: Option<Probability> = None;
    for dice in terms {
        let (NodeKind::Const(Value::Int(count)), SidesNode::Fixed(die)) =
            (&dice.count.kind, &dice.sides)
        else {
            return Ok(Criticals::not_computed(
                "the number or the sides of the marked dice are rolled; P(critical) is given for \
                 marked dice whose count and sides are known before rolling",
            ));
        };
        if !dice.points.is_empty() {
            return Ok(Criticals::not_computed(
                "a point of the marked dice is a name, known only when the program runs",
            ));
        }
        let spec = pool_spec(dice, die.clone(), *count, limits, dice.count.span)?;
        let faces = die.distribution();
        let points = [
            (dice.critical_success, *faces.max_outcome()),
            (dice.critical_failure, *faces.min_outcome()),
        ];
        for (slot, (point, face)) in none.iter_mut().zip(points) {
            let Some(point) = point else { continue };
            let c = point.unwrap_or(omen_core::Condition::new(Compare::Eq, face));
            let hit = spec
                .any_die_meets(c, limits, budget)
                .map_err(|e| core_diagnostic(&e, dice.count.span))?;
            let before = slot.take().unwrap_or_else(one);
            *slot = Some(before * (one() - hit));
        }
        if let Some(matching) = dice.matching {
            let hit = spec
                .any_match(matching, limits, budget)
                .map_err(|e| core_diagnostic(&e, dice.count.span))?;
            no_set = Some(no_set.unwrap_or_else(one) * (one() - hit));
        }
    }
    let [success, failure] = none;
    Ok(Criticals {
        success: success.map(|p| one() - p),
        failure: failure.map(|p| one() - p),
        matched: no_set.map(|p| one() - p),
        not_computed: None,
    })
}
