//! Labels (`"bad"`, `"good"`) name outcomes without ordering them: the language sorts them
//! alphabetically only to store them, so a table lists them in the order the script writes them,
//! and shows no cumulative probability (P(≥), P(≤)) for them, which would follow the alphabet.
//!
//! The order is recovered from the source text, since `omen_lang`'s distributions keep values
//! sorted and drop the order of the literals that produced them.

use omen_lang::Value;

/// Whether any outcome is a label.
pub fn any_label<'v>(outcomes: impl IntoIterator<Item = &'v Value>) -> bool {
    outcomes.into_iter().any(|v| matches!(v, Value::Text(_)))
}

/// Where the script first writes `outcome` as a quoted literal, if it is a label it writes.
fn first_written(outcome: &Value, source: &str) -> Option<usize> {
    match outcome {
        Value::Text(text) => source.find(&format!("\"{text}\"")),
        _ => None,
    }
}

/// `entries` in the order `source` first writes their labels; outcomes it does not write (numbers,
/// tuples, labels it builds) follow in the language's order.
pub fn script_order<T: Clone>(entries: &[(Value, T)], source: &str) -> Vec<(Value, T)> {
    let mut keyed: Vec<(Option<usize>, usize)> = entries
        .iter()
        .enumerate()
        .map(|(i, (outcome, _))| (first_written(outcome, source), i))
        .collect();
    // Written ones first, by position; then the rest as they came (`None` sorts before `Some`).
    keyed.sort_by_key(|&(at, i)| (at.is_none(), at, i));
    keyed.into_iter().map(|(_, i)| entries[i].clone()).collect()
}

/// The outcomes of several scripts side by side: each script's own order, a later script's new
/// outcomes after the earlier ones'.
pub fn union_in_script_order(each: &[Vec<Value>]) -> Vec<Value> {
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

    fn label(text: &str) -> Value {
        Value::Text(text.into())
    }

    #[test]
    fn labels_follow_the_script_not_the_alphabet() {
        let source = r#"let r = d6; if r <= 2 then "miss" else (if r = 6 then "crit" else "hit")"#;
        // As the language stores them: alphabetical.
        let stored = [(label("crit"), 1), (label("hit"), 3), (label("miss"), 2)];
        let ordered: Vec<Value> = script_order(&stored, source)
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        assert_eq!(ordered, [label("miss"), label("crit"), label("hit")]);
    }

    #[test]
    fn outcomes_the_script_does_not_write_come_last_in_stored_order() {
        let source = r#"if d2 = 1 then "b" else 3"#;
        let stored = [(Value::Int(3), 1), (label("a"), 1), (label("b"), 1)];
        let ordered: Vec<Value> = script_order(&stored, source)
            .into_iter()
            .map(|(v, _)| v)
            .collect();
        assert_eq!(ordered, [label("b"), Value::Int(3), label("a")]);
        assert!(any_label(&ordered));
        assert!(!any_label(&[Value::Int(1)]));
    }

    #[test]
    fn side_by_side_keeps_each_scripts_order() {
        let union = union_in_script_order(&[
            vec![label("miss"), label("hit")],
            vec![label("hit"), label("crit")],
        ]);
        assert_eq!(union, [label("miss"), label("hit"), label("crit")]);
    }
}
