//! Labels (`"miss"`, `"hit"`) name outcomes without ordering them. A distribution keeps its values
//! sorted, which puts labels in alphabetical order, an order the script never asked for: listing
//! `"crit"` before `"miss"` before `"hit"` tells a designer nothing, and a cumulative column (P(≥),
//! P(≤)) over that order is meaningless. So the checker records the order in which the script first
//! writes each label, and every face lists labelled outcomes in that order, without cumulative
//! columns.

use crate::value::Value;

/// Each label once, at its first position: `found` holds every label literal with its offset in the
/// source, in whatever order the checker met them (functions are checked before the script's body).
pub(crate) fn written_order(mut found: Vec<(usize, Value)>) -> Vec<Value> {
    found.sort_by_key(|(at, _)| *at);
    let mut order: Vec<Value> = Vec::new();
    for (_, label) in found {
        if !order.contains(&label) {
            order.push(label);
        }
    }
    order
}

/// Whether any outcome is a label: then outcomes have no order and no cumulative probabilities.
pub fn any_label<'v>(outcomes: impl IntoIterator<Item = &'v Value>) -> bool {
    outcomes.into_iter().any(|v| matches!(v, Value::Text(_)))
}

/// `entries` in the order of `labels` (a program's [`crate::program::Program::labels`], or an exact result's);
/// outcomes not among them (numbers, tuples, labels built by joining) follow in the distribution's
/// order.
pub fn in_written_order<T: Clone>(entries: &[(Value, T)], labels: &[Value]) -> Vec<(Value, T)> {
    let mut keyed: Vec<(Option<usize>, usize)> = entries
        .iter()
        .enumerate()
        .map(|(i, (outcome, _))| (labels.iter().position(|l| l == outcome), i))
        .collect();
    // Written ones first, by position; then the rest as they came.
    keyed.sort_by_key(|&(at, i)| (at.is_none(), at, i));
    keyed.into_iter().map(|(_, i)| entries[i].clone()).collect()
}

/// The outcomes of several programs side by side: each program's own order, a later program's new
/// outcomes after the earlier ones'.
pub fn union_in_order(each: &[Vec<Value>]) -> Vec<Value> {
    let mut all: Vec<Value> = Vec::new();
    for outcomes in each {
        for outcome in outcomes {
            if !all.contains(outcome) {
                all.push(outcome.clone());
            }
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Program;
    use crate::{Options, compile};

    fn label(text: &str) -> Value {
        Value::Text(text.into())
    }

    fn program(source: &str) -> Program {
        compile(source, &Options::default()).unwrap().program
    }

    #[test]
    fn labels_follow_the_script_not_the_alphabet() {
        let p =
            program(r#"let r = d6; if r <= 2 then "miss" else (if r = 6 then "crit" else "hit")"#);
        assert_eq!(p.labels, [label("miss"), label("crit"), label("hit")]);
        // As a distribution stores them: alphabetical.
        let stored = [(label("crit"), 1), (label("hit"), 3), (label("miss"), 2)];
        let ordered: Vec<Value> = in_written_order(&stored, &p.labels)
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        assert_eq!(ordered, [label("miss"), label("crit"), label("hit")]);
    }

    #[test]
    fn a_label_in_a_comment_is_none_and_a_functions_labels_keep_their_place() {
        // The comment's "z" is no label. The script's body is checked before the function it
        // calls is, but the function is written first, so its labels lead.
        let p = program(
            "# \"z\" is not written here\nfn f(x) = if x > 3 then \"high\" else \"low\";\nif d2 = 1 then \"b\" else f(d6)",
        );
        assert_eq!(p.labels, [label("high"), label("low"), label("b")]);
    }

    #[test]
    fn outcomes_the_script_does_not_write_come_last_in_stored_order() {
        let p = program(r#"if d2 = 1 then "b" else 3"#);
        let stored = [(Value::Int(3), 1), (label("a"), 1), (label("b"), 1)];
        let ordered: Vec<Value> = in_written_order(&stored, &p.labels)
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        assert_eq!(ordered, [label("b"), Value::Int(3), label("a")]);
        assert!(any_label(&ordered));
        assert!(!any_label(&[Value::Int(1)]));
    }

    #[test]
    fn side_by_side_outcomes_keep_each_programs_order() {
        let each = vec![
            vec![label("miss"), label("hit")],
            vec![label("hit"), label("crit")],
        ];
        assert_eq!(
            union_in_order(&each),
            [label("miss"), label("hit"), label("crit")]
        );
    }
}
