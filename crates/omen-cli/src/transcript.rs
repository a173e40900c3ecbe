//! The roll transcript: every dice term and group on a line of its own, what feeds a term indented under
//! it, the arithmetic with the rolled values put in, and the total last.
//!
//! ```text
//! seed: 42
//! {2d20, 1d20+5}kh1 → {23, ~9~} = 23
//!   2d20 → [12, 11] = 23
//!   1d20 → [4] = 4
//!   4 + 5 = 9
//! fire: 2d6! → [6!, 6, 3] = 15
//! 23 + 15 = 38
//! total: 38
//! ```
//!
//! Marks after a die's value, ASCII only so any terminal and any log shows them (the legend is in
//! `omen roll --help` and here, never in the output):
//!
//! | mark | meaning |
//! |---|---|
//! | `~4~` | struck: dropped by keep/drop, or replaced by a reroll |
//! | `!` | exploded: the die added another die (or, compounded, another roll) |
//! | `#` | met the explode condition, but the depth limit stopped it |
//! | `r` | rerolled: the next die replaces it |
//! | `c` | clamped by `min`/`max` |
//! | `*` | a success |
//! | `f` | a failure |
//! | `^` | a critical success (`cs`) |
//! | `_` | a critical failure (`cf`) |
//! | `=` | one of a set of matching dice (`m`, `mt`) |
//! | `15(6+6+3)` | the value, then the rolls that made it, when they differ (compounded or clamped) |
//!
//! A group shows its members' values, struck when keep/drop left them out. A result that is not a
//! number (true/false, a label, a tuple) ends with `result:` instead of `total:`.
//!
//! Scripts read top to bottom the same way: `let x: …` for a binding, `if: …` and `match: …` for the
//! value that chose a branch (then the branch's own lines), a user function's body indented under its
//! arguments and closed by `f(3, 4) = 7`, and a process as `start: …`, one indented `step N: …` per
//! step, then `absorb after N steps: …` (or `after`).

use omen_lang::sample::DieView;
use omen_lang::{Roll, RollKind, RollNode, Value};

/// The transcript of one roll; `seed` is shown first when the roll came from the seeded roller.
pub fn render_transcript(roll: &Roll, seed: Option<u64>) -> String {
    render_transcript_within(roll, seed, usize::MAX).unwrap_or_default()
}

/// The transcript, or `None` as soon as it grows past `limit` bytes (a deep recursion indents every
/// line further, so a transcript can grow with the square of its depth: it is never built whole).
pub fn render_transcript_within(roll: &Roll, seed: Option<u64>, limit: usize) -> Option<String> {
    let mut transcript = Transcript {
        source: &roll.expression,
        out: String::new(),
        limit,
    };
    if let Some(seed) = seed {
        transcript.out.push_str(&format!("seed: {seed}\n"));
    }
    transcript.item(&roll.tree, 0, None);
    let last = match &roll.result {
        Value::Int(n) => format!("total: {n}\n"),
        other => format!("result: {other}\n"),
    };
    transcript.out.push_str(&last);
    (transcript.out.len() <= limit).then_some(transcript.out)
}

struct Transcript<'a> {
    source: &'a str,
    out: String,
    /// Lines stop being written once `out` is longer than this.
    limit: usize,
}

fn is_arithmetic(node: &RollNode) -> bool {
    matches!(
        node.kind,
        RollKind::Unary { .. } | RollKind::Binary { .. } | RollKind::Call { .. }
    )
}

impl Transcript<'_> {
    fn line(&mut self, indent: usize, label: Option<&str>, text: &str) {
        if self.out.len() > self.limit {
            return;
        }
        for _ in 0..indent {
            self.out.push_str("  ");
        }
        if let Some(label) = label {
            self.out.push_str(label);
            self.out.push_str(": ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// The lines for one node seen as a whole: a dice term, a group, a labelled value, or a stretch of
    /// arithmetic (its terms first, then one line with their values put in).
    fn item(&mut self, node: &RollNode, indent: usize, label: Option<&str>) {
        match &node.kind {
            RollKind::Constant | RollKind::Var { .. } | RollKind::Field { .. } => {
                if let RollKind::Field { inner, .. } = &node.kind {
                    self.item(inner, indent, None);
                }
                // A bare value says nothing the line that uses it does not, unless it carries a label.
                if label.is_some() {
                    self.line(indent, label, &node.value.to_string());
                }
            }
            RollKind::Dice {
                notation,
                count,
                sides,
                dice,
                ..
            } => {
                let faces: Vec<String> = dice.iter().map(die).collect();
                let text = format!("{notation} → [{}] = {}", faces.join(", "), node.value);
                self.line(indent, label, &text);
                for feeder in std::iter::once(&**count).chain(sides.as_deref()) {
                    self.item(feeder, indent + 1, None);
                }
            }
            RollKind::Group { .. } => self.group(node, indent, label),
            RollKind::Label { label: own, inner } => {
                let joined = match label {
                    Some(outer) => format!("{outer}: {own}"),
                    None => own.clone(),
                };
                self.item(inner, indent, Some(&joined));
            }
            RollKind::Unary { .. } | RollKind::Binary { .. } | RollKind::Call { .. } => {
                self.terms(node, indent);
                let verb = match node.value {
                    Value::Int(_) => "=",
                    // `=` is also the language's equality test; an arrow cannot be misread as one.
                    _ => "→",
                };
                let text = format!("{} {verb} {}", arithmetic(node), node.value);
                self.line(indent, label, &text);
            }
            RollKind::Let { name, bound, body } => {
                self.item(bound, indent, Some(&format!("let {name}")));
                self.item(body, indent, label);
            }
            RollKind::If { condition, branch } => {
                self.item(condition, indent, Some("if"));
                self.item(branch, indent, label);
            }
            RollKind::Match {
                scrutinee, body, ..
            } => {
                self.item(scrutinee, indent, Some("match"));
                self.item(body, indent, label);
            }
            RollKind::Tuple { members } => {
                for m in members {
                    self.item(m, indent, None);
                }
                if label.is_some() {
                    self.line(indent, label, &node.value.to_string());
                }
            }
            RollKind::Apply {
                function,
                args,
                body,
            } => {
                for a in args {
                    self.item(a, indent, None);
                }
                self.item(body, indent + 1, None);
                let args: Vec<String> = args.iter().map(|a| a.value.to_string()).collect();
                let text = format!("{function}({}) = {}", args.join(", "), node.value);
                self.line(indent, label, &text);
            }
            RollKind::Process {
                query,
                start,
                steps,
            } => {
                self.item(start, indent, Some("start"));
                for (i, step) in steps.iter().enumerate() {
                    self.item(step, indent + 1, Some(&format!("step {}", i + 1)));
                }
                let plural = if steps.len() == 1 { "" } else { "s" };
                let text = format!("{query} after {} step{plural}: {}", steps.len(), node.value);
                self.line(indent, label, &text);
            }
        }
    }

    /// A group's line: its members' values, the dropped ones struck, then each member under it.
    fn group(&mut self, node: &RollNode, indent: usize, label: Option<&str>) {
        let RollKind::Group { members, kept } = &node.kind else {
            return;
        };
        let values: Vec<String> = members
            .iter()
            .zip(kept)
            .map(|(m, &k)| strike(m.value.to_string(), !k))
            .collect();
        let text = if matches!(node.value, Value::Tuple(_)) {
            // A pool: its value is the tuple of its readings' workings, not a result. Its line
            // shows the dice: its dice terms' lines follow under it, and a pool made from another
            // (`reroll`) lists the faces it holds, kept faces and new dice alike. Each reading gets
            // a line of its own.
            let faces = members
                .iter()
                .any(|m| matches!(m.kind, RollKind::Constant | RollKind::Var { .. }))
                .then(|| format!(" → {{{}}}", values.join(", ")));
            format!("{}{}", self.written(node), faces.unwrap_or_default())
        } else {
            format!(
                "{} → {{{}}} = {}",
                self.written(node),
                values.join(", "),
                node.value
            )
        };
        self.line(indent, label, &text);
        for m in members {
            self.item(m, indent + 1, None);
        }
    }

    /// The input text of a node, for terms that have no notation of their own.
    fn written(&self, node: &RollNode) -> &str {
        self.source
            .get(node.span.start..node.span.end)
            .unwrap_or("group")
    }

    /// The lines of the terms under a stretch of arithmetic, walking through nested operators.
    fn terms(&mut self, node: &RollNode, indent: usize) {
        let operands: Vec<&RollNode> = match &node.kind {
            RollKind::Unary { operand, .. } => vec![operand],
            RollKind::Binary { left, right, .. } => vec![left, right],
            RollKind::Call { args, .. } => args.iter().collect(),
            _ => Vec::new(),
        };
        for operand in operands {
            if is_arithmetic(operand) {
                self.terms(operand, indent);
            } else {
                self.item(operand, indent, None);
            }
        }
    }
}

/// Binding strength, loosest first, for putting back only the parentheses the values need.
fn precedence(node: &RollNode) -> u8 {
    match &node.kind {
        RollKind::Binary { op, .. } => match *op {
            "or" => 1,
            "and" => 2,
            "+" | "-" => 5,
            "*" | "/" => 6,
            _ => 4,
        },
        RollKind::Unary { op: "not", .. } => 3,
        RollKind::Unary { .. } => 7,
        _ => 8,
    }
}

/// An operand with the parentheses it needs to read right: when it binds more loosely than its
/// operator, or when it is a negative value after an operator (`2 - (-1)`, not `2 - -1`).
fn operand(node: &RollNode, looser: bool, after_operator: bool) -> String {
    let negative = matches!(node.value, Value::Int(n) if n < 0) && !is_arithmetic(node);
    let text = arithmetic(node);
    if looser || (negative && after_operator) {
        format!("({text})")
    } else {
        text
    }
}

/// The arithmetic of a node with every other term (dice, groups, labels, calls of user functions)
/// replaced by its value.
fn arithmetic(node: &RollNode) -> String {
    match &node.kind {
        RollKind::Unary { op, operand: inner } => {
            // `not` reads better with every compound operand bracketed, whatever its precedence.
            let bracket = if *op == "not" {
                precedence(inner) < 8
            } else {
                precedence(inner) < precedence(node)
            };
            let space = if op.chars().all(char::is_alphabetic) {
                " "
            } else {
                ""
            };
            format!("{op}{space}{}", operand(inner, bracket, true))
        }
        RollKind::Binary { op, left, right } => {
            let own = precedence(node);
            let l = operand(left, precedence(left) < own, false);
            // Left-associative: an equally loose right operand was bracketed in the input.
            let r = operand(right, precedence(right) <= own, true);
            format!("{l} {op} {r}")
        }
        RollKind::Call { function, args } => {
            let args: Vec<String> = args.iter().map(arithmetic).collect();
            format!("{function}({})", args.join(", "))
        }
        _ => node.value.to_string(),
    }
}

fn strike(text: String, struck: bool) -> String {
    if struck { format!("~{text}~") } else { text }
}

/// One die: its value (and rolls, when they differ), struck if it left the pool, then its marks.
fn die(view: &DieView) -> String {
    let has = |mark: &str| view.marks.contains(&mark);
    let mut text = view.value.to_string();
    let shows_rolls = match view.rolls.as_slice() {
        [] => false,
        [only] => *only != view.value,
        _ => true,
    };
    if shows_rolls {
        let rolls: Vec<String> = view.rolls.iter().map(i64::to_string).collect();
        text.push_str(&format!("({})", rolls.join("+")));
    }
    let mut text = strike(text, has("dropped") || has("rerolled"));
    for (mark, suffix) in [
        ("exploded", '!'),
        ("depth-limit", '#'),
        ("rerolled", 'r'),
        ("clamped", 'c'),
        ("success", '*'),
        ("failure", 'f'),
        ("critical-success", '^'),
        ("critical-failure", '_'),
        ("matched", '='),
    ] {
        if has(mark) {
            text.push(suffix);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use omen_core::ScriptedDice;
    use omen_lang::{Options, compile, sample};

    use super::*;

    fn roll(expression: &str, dice: &[i64]) -> String {
        let options = Options::default();
        let compiled = compile(expression, &options).expect("compiles");
        let roll = sample(
            &compiled.program,
            &options.limits,
            &mut ScriptedDice::new(dice.to_vec()),
        )
        .expect("rolls");
        render_transcript(&roll, None)
    }

    #[test]
    fn dropped_dice_are_struck() {
        assert_eq!(
            roll("4d6kh3", &[6, 5, 1, 3]),
            "4d6kh3 → [6, 5, ~1~, 3] = 14\ntotal: 14\n"
        );
    }

    #[test]
    fn seed_comes_first() {
        let options = Options::default();
        let compiled = compile("1d6", &options).unwrap();
        let roll = sample(
            &compiled.program,
            &options.limits,
            &mut ScriptedDice::new(vec![4]),
        )
        .unwrap();
        assert_eq!(
            render_transcript(&roll, Some(42)),
            "seed: 42\n1d6 → [4] = 4\ntotal: 4\n"
        );
    }

    #[test]
    fn arithmetic_shows_the_values_it_adds() {
        assert_eq!(
            roll("4d6kh3 + 2", &[6, 5, 1, 3]),
            "4d6kh3 → [6, 5, ~1~, 3] = 14\n14 + 2 = 16\ntotal: 16\n"
        );
    }

    #[test]
    fn parentheses_survive_only_where_needed() {
        let text = roll("(1d6+1d6)*2 - (1d4 - 1d4)", &[3, 4, 2, 1]);
        assert!(text.contains("\n(3 + 4) * 2 - (2 - 1) = 13\n"), "{text}");
    }

    #[test]
    fn negative_values_are_bracketed_after_an_operator() {
        let text = roll("2 + 1dF", &[-1]);
        assert!(text.contains("\n2 + (-1) = 1\n"), "{text}");
    }

    #[test]
    fn marks_follow_the_value() {
        let text = roll("3d6!", &[6, 2, 3, 1]);
        assert!(text.starts_with("3d6! → [6!, 2, 3, 1] = 12\n"), "{text}");
        let text = roll("2d6ro1", &[1, 4, 3]);
        assert!(text.starts_with("2d6ro1 → [~1~r, 4, 3] = 7\n"), "{text}");
        let text = roll("3d10>=8f1", &[8, 1, 5]);
        assert!(text.starts_with("3d10>=8f1 → [8*, 1f, 5] = 0\n"), "{text}");
        let text = roll("2d6min3", &[1, 5]);
        assert!(text.starts_with("2d6min3 → [3(1)c, 5] = 8\n"), "{text}");
    }

    #[test]
    fn compounded_dice_show_their_rolls() {
        let text = roll("1d6!!", &[6, 6, 3]);
        assert!(text.starts_with("1d6!! → [15(6+6+3)!] = 15\n"), "{text}");
    }

    #[test]
    fn depth_limit_is_marked() {
        let options = Options {
            limits: omen_core::Limits {
                explode_depth: 1,
                ..Default::default()
            },
            ..Default::default()
        };
        let compiled = compile("1d6!", &options).unwrap();
        let roll = sample(
            &compiled.program,
            &options.limits,
            &mut ScriptedDice::new(vec![6, 6]),
        )
        .unwrap();
        assert!(render_transcript(&roll, None).starts_with("1d6! → [6!, 6#] = 12\n"));
    }

    #[test]
    fn labels_name_their_term() {
        let text = roll("3d6[fire] + 2", &[1, 2, 3]);
        assert_eq!(text, "fire: 3d6 → [1, 2, 3] = 6\n6 + 2 = 8\ntotal: 8\n");
    }

    #[test]
    fn groups_nest_their_members() {
        let text = roll("{2d20, 1d20+5}kh1", &[12, 11, 4]);
        assert_eq!(
            text,
            "{2d20, 1d20+5}kh1 → {23, ~9~} = 23\n  2d20 → [12, 11] = 23\n  1d20 → [4] = 4\n  4 + 5 = 9\ntotal: 23\n"
        );
    }

    #[test]
    fn random_counts_are_indented_under_their_term() {
        let text = roll("(1d4)d6", &[2, 3, 5]);
        assert_eq!(text, "(1d4)d6 → [3, 5] = 8\n  1d4 → [2] = 2\ntotal: 8\n");
    }

    #[test]
    fn comparisons_end_with_the_result() {
        let text = roll("(3d6)>=10", &[4, 2, 6]);
        assert_eq!(
            text,
            "3d6 → [4, 2, 6] = 12\n12 >= 10 → true\nresult: true\n"
        );
    }
}
