//! The parser: tree shapes for every form of the notation and the script language, error kinds and
//! messages, limits, and that no input makes it panic.

use std::time::{Duration, Instant};

use omen_lang::diagnostic::{Diagnostic, Severity, render};
use omen_lang::span::Span;
use omen_lang::syntax::ast::{
    CompareOp, ComparePoint, Expr, ExprKind, FaceItem, Item, KeepWhich, Modifier, Pattern,
    PointValue, Script, Sides, Spanned,
};
use omen_lang::syntax::{ParseLimits, parse};
use proptest::prelude::*;

// Helpers.

/// The tree of `source`, a plain expression, printed compactly; panics with the diagnostics if it does not
/// parse or if it has items.
fn tree(source: &str) -> String {
    let script = parse_script_ok(source);
    assert!(script.items.is_empty(), "{source:?} has items");
    show(&script.body)
}

/// The items of `source`, one a line, then its result.
fn script_tree(source: &str) -> String {
    show_script(&parse_script_ok(source))
}

fn parse_script_ok(source: &str) -> Script {
    parse(source, &ParseLimits::default())
        .unwrap_or_else(|errors| panic!("{source:?} failed:\n{}", render(source, &errors)))
}

fn parse_ok(source: &str) -> Expr {
    parse_script_ok(source).body
}

fn errors(source: &str) -> Vec<Diagnostic> {
    match parse(source, &ParseLimits::default()) {
        Ok(script) => panic!("{source:?} parsed as {}", show_script(&script)),
        Err(errors) => errors,
    }
}

fn kinds(source: &str) -> Vec<&'static str> {
    errors(source).iter().map(|d| d.kind).collect()
}

fn rendered(source: &str) -> String {
    render(source, &errors(source))
}

/// Items as `(param name default)`, `(let name value)`, `(fn name [params] body)`, one a line, then the result.
fn show_script(script: &Script) -> String {
    let mut lines: Vec<String> = script
        .items
        .iter()
        .map(|item| match &item.node {
            Item::Param { name, default } => match default {
                Some(default) => format!("(param {} {})", name.node, show(default)),
                None => format!("(param {})", name.node),
            },
            Item::Let { name, value } => format!("(let {} {})", name.node, show(value)),
            Item::Fn { name, params, body } => {
                let params: Vec<_> = params.iter().map(|p| p.node.as_str()).collect();
                format!("(fn {} [{}] {})", name.node, params.join(" "), show(body))
            }
        })
        .collect();
    lines.push(show(&script.body));
    lines.join("\n")
}

/// An S-expression: `(dice COUNT SIDES MODIFIERS…)` with `_` for no count, `(group [MEMBERS…] MODIFIERS…)`,
/// `(+ a b)`, `(>= a b)`, `(neg x)`, `(paren x)`, `(call name args…)`, `(label x "text")`, names bare,
/// `"text"`, `(tuple a b…)`, `(. x N)`, `(if c a b)`, `(match x [PATTERN => body]…)`, `(and a b)`, `(or a b)`,
/// `(not a)`, `(let-in name value body)`, `ERR`.
fn show(expr: &Expr) -> String {
    match &expr.node {
        ExprKind::Number(n) => n.to_string(),
        ExprKind::Dice(dice) => {
            let count = dice.count.as_ref().map_or("_".to_string(), show);
            let sides = match &dice.sides.node {
                Sides::Number(e) => show(e),
                Sides::Percent => "%".to_string(),
                Sides::Fudge => "F".to_string(),
                Sides::Custom(faces) => {
                    let faces: Vec<_> = faces
                        .iter()
                        .map(|face| match face.node {
                            FaceItem::Face(n) => n.to_string(),
                            FaceItem::Range(low, high) => format!("{low}..{high}"),
                        })
                        .collect();
                    format!("{{{}}}", faces.join(","))
                }
            };
            let mut out = format!("(dice {count} {sides}");
            for modifier in &dice.modifiers {
                out.push(' ');
                out.push_str(&show_modifier(&modifier.node));
            }
            out + ")"
        }
        ExprKind::Group(group) => {
            let members: Vec<_> = group.members.iter().map(show).collect();
            let mut out = format!("(group [{}]", members.join(" "));
            for modifier in &group.modifiers {
                out.push(' ');
                out.push_str(&show_modifier(&modifier.node));
            }
            out + ")"
        }
        ExprKind::Neg(e) => format!("(neg {})", show(e)),
        ExprKind::Binary(op, a, b) => {
            format!("({} {} {})", op.symbol(), show(a), show(b))
        }
        ExprKind::Compare(op, a, b) => format!("({} {} {})", show_op(*op), show(a), show(b)),
        ExprKind::Call(name, args) => {
            let mut out = format!("(call {}", name.node);
            for arg in args {
                out.push(' ');
                out.push_str(&show(arg));
            }
            out + ")"
        }
        ExprKind::Label(e, label) => format!("(label {} {:?})", show(e), label.node),
        ExprKind::Paren(e) => format!("(paren {})", show(e)),
        ExprKind::Error => "ERR".to_string(),
        ExprKind::Var(name) => name.clone(),
        ExprKind::Bool(value) => value.to_string(),
        ExprKind::Text(text) => format!("{text:?}"),
        ExprKind::Tuple(members) => {
            let members: Vec<_> = members.iter().map(show).collect();
            format!("(tuple {})", members.join(" "))
        }
        ExprKind::Field(e, index) => format!("(. {} {})", show(e), index.node),
        ExprKind::If(c, a, b) => format!("(if {} {} {})", show(c), show(a), show(b)),
        ExprKind::Match(x, arms) => {
            let mut out = format!("(match {}", show(x));
            for arm in arms {
                out.push_str(&format!(
                    " [{} => {}]",
                    show_pattern(&arm.pattern.node),
                    show(&arm.body)
                ));
            }
            out + ")"
        }
        ExprKind::And(a, b) => format!("(and {} {})", show(a), show(b)),
        ExprKind::Or(a, b) => format!("(or {} {})", show(a), show(b)),
        ExprKind::Not(a) => format!("(not {})", show(a)),
        ExprKind::LetIn(name, value, body) => {
            format!("(let-in {} {} {})", name.node, show(value), show(body))
        }
        ExprKind::Pool(pool) => show_pool(pool),
        ExprKind::Point(op, value) => format!("(point {} {})", show_op(*op), show(value)),
    }
}

fn show_pool(pool: &omen_lang::syntax::ast::PoolExpr) -> String {
    use omen_lang::syntax::ast::{PoolExpr, PoolMember};
    match pool {
        PoolExpr::Draw { count, deck } => format!("(draw {} {})", show(count), show(deck)),
        PoolExpr::Dice(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|m| match &m.node {
                    PoolMember::Roll(roll) => show(roll),
                    PoolMember::Repeat { count, roll } => {
                        format!("(x {} {})", show(count), show(roll))
                    }
                    PoolMember::Symbol { count, name } => format!("({count} {})", name.node),
                })
                .collect();
            format!("(pool {})", members.join(" "))
        }
    }
}

/// Patterns as written, tuples as `(tuple p q)` and alternatives as `(| p q)`.
fn show_pattern(pattern: &Pattern) -> String {
    match pattern {
        Pattern::Wildcard => "_".to_string(),
        Pattern::Int(n) => n.to_string(),
        Pattern::Bool(value) => value.to_string(),
        Pattern::Text(text) => format!("{text:?}"),
        Pattern::Range {
            lo,
            hi,
            hi_inclusive,
        } => format!(
            "{}{}{}",
            lo.map_or(String::new(), |lo| lo.to_string()),
            if *hi_inclusive { "..=" } else { ".." },
            hi.map_or(String::new(), |hi| hi.to_string())
        ),
        Pattern::Tuple(members) => {
            let members: Vec<_> = members.iter().map(|p| show_pattern(&p.node)).collect();
            format!("(tuple {})", members.join(" "))
        }
        Pattern::Or(alternatives) => {
            let alternatives: Vec<_> = alternatives.iter().map(|p| show_pattern(&p.node)).collect();
            format!("(| {})", alternatives.join(" "))
        }
    }
}

fn show_op(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Ge => ">=",
        CompareOp::Gt => ">",
        CompareOp::Le => "<=",
        CompareOp::Lt => "<",
        CompareOp::Eq => "=",
        CompareOp::Ne => "!=",
    }
}

fn show_point(point: &ComparePoint) -> String {
    match &point.value {
        PointValue::Int(value) => format!("{}{value}", show_op(point.op)),
        PointValue::Name(name) => format!("{}{}", show_op(point.op), name.node),
        PointValue::Faces(faces) => format!("{faces:?}"),
    }
}

fn show_modifier(modifier: &Modifier) -> String {
    match modifier {
        Modifier::Explode {
            compound,
            point,
            once: _,
            penetrate,
        } => format!(
            "{}{}{}",
            if *compound { "!!" } else { "!" },
            if *penetrate { "p" } else { "" },
            point.as_ref().map_or(String::new(), show_point)
        ),
        Modifier::Critical { failure, point } => format!(
            "{}{}",
            if *failure { "cf" } else { "cs" },
            point.as_ref().map_or(String::new(), show_point)
        ),
        Modifier::Sort { descending } => (if *descending { "sd" } else { "sa" }).to_string(),
        Modifier::PlainAdded => "plainadded".to_string(),
        Modifier::RerollOnce(point) => format!("ro{}", show_point(point)),
        Modifier::RerollRecursive(point) => format!("rr{}", show_point(point)),
        Modifier::ClampMin(n) => format!("min{n}"),
        Modifier::ClampMax(n) => format!("max{n}"),
        Modifier::Keep { which, count } => {
            let which = match which {
                KeepWhich::KeepHighest => "kh",
                KeepWhich::KeepLowest => "kl",
                KeepWhich::DropHighest => "dh",
                KeepWhich::DropLowest => "dl",
                KeepWhich::KeepMiddle => "km",
            };
            format!("{which}{count}")
        }
        Modifier::KeepEnds {
            highest,
            lowest,
            drop,
        } => format!("keepends{highest},{lowest},{drop}"),
        Modifier::Success(point) => format!("success{}", show_point(point)),
        Modifier::Failure(point) => format!("failure{}", show_point(point)),
        Modifier::Match { total, size, point } => format!(
            "{}{}{}",
            if *total { "matchtotal" } else { "match" },
            size.map_or(String::new(), |n| n.to_string()),
            point.as_ref().map_or(String::new(), show_point)
        ),
        Modifier::Unique { once, point } => format!(
            "{}{}",
            if *once { "uniqueonce" } else { "unique" },
            point.as_ref().map_or(String::new(), show_point)
        ),
    }
}

fn span(start: usize, end: usize) -> Span {
    Span::new(start, end)
}

// Numbers and dice.

#[test]
fn integer_literals() {
    assert_eq!(tree("42"), "42");
    assert_eq!(tree("007"), "7");
    assert_eq!(tree("9223372036854775807"), "9223372036854775807");
    assert_eq!(kinds("9223372036854775808"), ["number-too-large"]);
}

#[test]
fn dice_counts_and_sides() {
    assert_eq!(tree("4d6"), "(dice 4 6)");
    assert_eq!(tree("d6"), "(dice _ 6)");
    assert_eq!(tree("d%"), "(dice _ %)");
    assert_eq!(tree("3d%"), "(dice 3 %)");
    assert_eq!(tree("dF"), "(dice _ F)");
    assert_eq!(tree("4dF"), "(dice 4 F)");
    assert_eq!(tree("d{1,1,2,3}"), "(dice _ {1,1,2,3})");
    assert_eq!(tree("2d{-1..1,5}"), "(dice 2 {-1..1,5})");
    assert_eq!(tree("d{-3..-1}"), "(dice _ {-3..-1})");
    assert_eq!(tree("d{7}"), "(dice _ {7})");
}

#[test]
fn parenthesised_counts_and_sides() {
    assert_eq!(tree("(1d4)d6"), "(dice (paren (dice 1 4)) 6)");
    assert_eq!(tree("2d(1d4*2)"), "(dice 2 (paren (* (dice 1 4) 2)))");
    assert_eq!(tree("d(6)"), "(dice _ (paren 6))");
    assert_eq!(tree("(2)d(3)kh1"), "(dice (paren 2) (paren 3) kh1)");
}

// Modifiers.

#[test]
fn keep_and_drop() {
    assert_eq!(tree("4d6kh3"), "(dice 4 6 kh3)");
    assert_eq!(tree("4d6k3"), "(dice 4 6 kh3)");
    assert_eq!(tree("2d20kl1"), "(dice 2 20 kl1)");
    assert_eq!(tree("4d6dh1"), "(dice 4 6 dh1)");
    assert_eq!(tree("4d6dl1"), "(dice 4 6 dl1)");
    assert_eq!(tree("4d6d1"), "(dice 4 6 dl1)");
    assert_eq!(tree("4d6d2"), "(dice 4 6 dl2)");
}

#[test]
fn keep_and_drop_count_defaults_to_one() {
    assert_eq!(tree("4d6kh"), "(dice 4 6 kh1)");
    assert_eq!(tree("4d6k"), "(dice 4 6 kh1)");
    assert_eq!(tree("4d6d"), "(dice 4 6 dl1)");
    assert_eq!(tree("4d6kl+1"), "(+ (dice 4 6 kl1) 1)");
    assert_eq!(tree("4d6kh!"), "(dice 4 6 kh1 !)");
    // A minus after the keyword is subtraction, never a negative count.
    assert_eq!(tree("4d6kh -1"), "(- (dice 4 6 kh1) 1)");
    // Separate words are separate modifiers.
    assert_eq!(kinds("4d6kh k"), ["spaced-modifier"]);
}

#[test]
fn explode() {
    assert_eq!(tree("4d6!"), "(dice 4 6 !)");
    assert_eq!(tree("4d6!!"), "(dice 4 6 !!)");
    assert_eq!(tree("4d6!>=5"), "(dice 4 6 !>=5)");
    assert_eq!(tree("4d6!>5"), "(dice 4 6 !>5)");
    assert_eq!(tree("4d6!<=2"), "(dice 4 6 !<=2)");
    assert_eq!(tree("4d6!<2"), "(dice 4 6 !<2)");
    assert_eq!(tree("4d6!=6"), "(dice 4 6 !=6)");
    assert_eq!(tree("4d6!6"), "(dice 4 6 !=6)");
    assert_eq!(tree("10d10!!>=9"), "(dice 10 10 !!>=9)");
    assert_eq!(tree("dF!>=-1"), "(dice _ F !>=-1)");
    assert_eq!(tree("4d6!+1"), "(+ (dice 4 6 !) 1)");
}

#[test]
fn reroll() {
    assert_eq!(tree("4d6ro<=2"), "(dice 4 6 ro<=2)");
    assert_eq!(tree("4d6ro1"), "(dice 4 6 ro=1)");
    assert_eq!(tree("4d6rr<2"), "(dice 4 6 rr<2)");
    assert_eq!(tree("4d6rr2"), "(dice 4 6 rr=2)");
    assert_eq!(tree("4d6r<2"), "(dice 4 6 rr<2)");
    assert_eq!(tree("4d6r1"), "(dice 4 6 rr=1)");
    assert_eq!(tree("dFro=-1"), "(dice _ F ro=-1)");
    // A negative point touching its modifier, as for `min-1`.
    assert_eq!(tree("dFro-1"), "(dice _ F ro=-1)");
    assert_eq!(tree("4d6f-1"), "(dice 4 6 failure=-1)");
    // A bare `r` or `ro` rerolls the lowest face.
    assert_eq!(tree("1d20ro"), "(dice 1 20 ro=1)");
    assert_eq!(tree("4dFr"), "(dice 4 F rr=-1)");
    assert_eq!(tree("2d{3,5,9}ro"), "(dice 2 {3,5,9} ro=3)");
}

#[test]
fn clamp() {
    assert_eq!(tree("3d6min3"), "(dice 3 6 min3)");
    assert_eq!(tree("3d6max5"), "(dice 3 6 max5)");
    assert_eq!(tree("4dFmin-1"), "(dice 4 F min-1)");
    assert_eq!(tree("3d6max -2"), "(dice 3 6 max-2)");
}

#[test]
fn success_and_failure() {
    assert_eq!(tree("10d12>=8"), "(dice 10 12 success>=8)");
    assert_eq!(tree("10d12>8"), "(dice 10 12 success>8)");
    assert_eq!(tree("10d12<=1"), "(dice 10 12 success<=1)");
    assert_eq!(tree("10d12<1"), "(dice 10 12 success<1)");
    assert_eq!(tree("10d12=3"), "(dice 10 12 success=3)");
    assert_eq!(tree("4dF>=-1"), "(dice 4 F success>=-1)");
    assert_eq!(tree("10d12>=8f<=1"), "(dice 10 12 success>=8 failure<=1)");
    assert_eq!(tree("10d12>=8f1"), "(dice 10 12 success>=8 failure=1)");
    assert_eq!(tree("6d10f<2"), "(dice 6 10 failure<2)");
}

#[test]
fn a_bare_number_after_dice_is_never_a_success_point() {
    assert_eq!(kinds("3d6 3"), ["unexpected-token"]);
}

#[test]
fn glued_modifier_runs_split_into_keywords() {
    assert_eq!(tree("4dFkh1"), "(dice 4 F kh1)");
    assert_eq!(tree("2d20kl1"), "(dice 2 20 kl1)");
    assert_eq!(tree("4d6dl1"), "(dice 4 6 dl1)");
    assert_eq!(tree("4d6d1"), "(dice 4 6 dl1)");
    assert_eq!(tree("3d6min2max5"), "(dice 3 6 min2 max5)");
    assert_eq!(tree("10d12>=8f<=1"), "(dice 10 12 success>=8 failure<=1)");
    assert_eq!(tree("8d10!ro1kh3"), "(dice 8 10 ! ro=1 kh3)");
    assert_eq!(tree("8d10rr1ro2dl1dh1"), "(dice 8 10 rr=1 ro=2 dl1 dh1)");
    assert_eq!(tree("4d6!!>=5kl2min2"), "(dice 4 6 !!>=5 kl2 min2)");
    assert_eq!(tree("dFkh"), "(dice _ F kh1)");
    assert_eq!(tree("dFf=-1"), "(dice _ F failure=-1)");
}

#[test]
fn modifiers_keep_the_order_written() {
    assert_eq!(tree("4d6kh3!"), "(dice 4 6 kh3 !)");
    assert_eq!(tree("4d6!kh3"), "(dice 4 6 ! kh3)");
    assert_eq!(tree("4d6max5min2"), "(dice 4 6 max5 min2)");
}

#[test]
fn a_d_after_a_dice_term_drops_and_never_starts_new_dice() {
    assert_eq!(tree("4d6d1"), "(dice 4 6 dl1)");
    assert_eq!(kinds("4d6 d 6"), ["spaced-modifier"]);
    // After an operator it starts a dice term again.
    assert_eq!(tree("4d6+d6"), "(+ (dice 4 6) (dice _ 6))");
}

#[test]
fn a_keep_without_a_count_before_another_modifier_keeps_one() {
    assert_eq!(tree("4d6khro1"), "(dice 4 6 kh1 ro=1)");
    assert_eq!(tree("4d6dlro1"), "(dice 4 6 dl1 ro=1)");
    assert_eq!(tree("4d6khk"), "(dice 4 6 kh1 kh1)");
}

// Groups.

#[test]
fn groups_with_keep_drop_and_counting() {
    assert_eq!(
        tree("{2d20, 1d20+5}kh1"),
        "(group [(dice 2 20) (+ (dice 1 20) 5)] kh1)"
    );
    assert_eq!(tree("{1d6,1d8}d1"), "(group [(dice 1 6) (dice 1 8)] dl1)");
    assert_eq!(
        tree("{3d6, 2d8}>=10"),
        "(group [(dice 3 6) (dice 2 8)] success>=10)"
    );
    assert_eq!(
        tree("{4d6, 3d6}>=10f<3"),
        "(group [(dice 4 6) (dice 3 6)] success>=10 failure<3)"
    );
    assert_eq!(tree("{5}"), "(group [5])");
    assert_eq!(tree("{{1,2}kh1, 3}"), "(group [(group [1 2] kh1) 3])");
}

#[test]
fn groups_take_every_modifier_for_the_checker_to_judge() {
    assert_eq!(tree("{1d6, 1d8}!"), "(group [(dice 1 6) (dice 1 8)] !)");
    assert_eq!(tree("{1d6}ro1min2"), "(group [(dice 1 6)] ro=1 min2)");
}

// Arithmetic, calls, comparisons.

#[test]
fn precedence_and_associativity() {
    assert_eq!(tree("1+2*3"), "(+ 1 (* 2 3))");
    assert_eq!(tree("1*2+3"), "(+ (* 1 2) 3)");
    assert_eq!(tree("1-2-3"), "(- (- 1 2) 3)");
    assert_eq!(tree("8/4/2"), "(/ (/ 8 4) 2)");
    assert_eq!(tree("8/4*2"), "(* (/ 8 4) 2)");
    assert_eq!(tree("(1+2)*3"), "(* (paren (+ 1 2)) 3)");
    assert_eq!(tree("2d6+1d4*2"), "(+ (dice 2 6) (* (dice 1 4) 2))");
    assert_eq!(tree("1+2>=3*4"), "(>= (+ 1 2) (* 3 4))");
}

#[test]
fn unary_minus() {
    assert_eq!(tree("-2d6"), "(neg (dice 2 6))");
    assert_eq!(tree("--1"), "(neg (neg 1))");
    assert_eq!(tree("-3*2"), "(* (neg 3) 2)");
    assert_eq!(tree("2*-3"), "(* 2 (neg 3))");
    assert_eq!(tree("1--1"), "(- 1 (neg 1))");
    assert_eq!(tree("-(1d4)"), "(neg (paren (dice 1 4)))");
}

#[test]
fn function_calls() {
    assert_eq!(tree("min(1,2,3)"), "(call min 1 2 3)");
    assert_eq!(tree("MAX(1d6, 2)"), "(call max (dice 1 6) 2)");
    assert_eq!(tree("abs(-3)"), "(call abs (neg 3))");
    assert_eq!(tree("max(1d20)"), "(call max (dice 1 20))");
    assert_eq!(
        tree("max(min(1,2),abs(3))+1"),
        "(+ (call max (call min 1 2) (call abs 3)) 1)"
    );
    // Which functions exist and how many arguments they take is the checker's to say.
    assert_eq!(tree("foo(2)"), "(call foo 2)");
    assert_eq!(tree("abs(1,2)"), "(call abs 1 2)");
    assert_eq!(tree("min()"), "(call min)");
    assert_eq!(tree("Lore_Check (1, T)"), "(call lore_check 1 t)");
    assert_eq!(kinds("max 3"), ["unexpected-token"]);
}

#[test]
fn comparisons_of_totals() {
    assert_eq!(tree("(3d6)>=10"), "(>= (paren (dice 3 6)) 10)");
    assert_eq!(tree("3d6+1>=10"), "(>= (+ (dice 3 6) 1) 10)");
    assert_eq!(tree("1<2"), "(< 1 2)");
    assert_eq!(tree("2d6+1 > 7"), "(> (+ (dice 2 6) 1) 7)");
    assert_eq!(tree("1d6+1 = 4"), "(= (+ (dice 1 6) 1) 4)");
    assert_eq!(tree("10 <= 3d6"), "(<= 10 (dice 3 6))");
    assert_eq!(tree("3d6[x] >= 10"), "(>= (label (dice 3 6) \"x\") 10)");
    assert_eq!(
        tree("max(3d6, 2d8) >= 10"),
        "(>= (call max (dice 3 6) (dice 2 8)) 10)"
    );
}

#[test]
fn a_comparison_right_after_dice_counts_successes() {
    assert_eq!(tree("3d6>=10"), "(dice 3 6 success>=10)");
    // Whitespace ends a dice term: with spaces around it, the operator compares totals.
    assert_eq!(tree("2d6 >= 7"), "(>= (dice 2 6) 7)");
    assert_eq!(tree("3d6>=10+1"), "(+ (dice 3 6 success>=10) 1)");
}

#[test]
fn comparisons_do_not_chain() {
    assert_eq!(kinds("1<2<3"), ["chained-comparison"]);
    assert_eq!(kinds("(1d6)=1=1"), ["chained-comparison"]);
    assert_eq!(tree("(1<2)<3"), "(< (paren (< 1 2)) 3)");
}

// Labels.

#[test]
fn labels() {
    assert_eq!(tree("3d6[fire]"), "(label (dice 3 6) \"fire\")");
    assert_eq!(
        tree("3d6[  Fire Bolt ]"),
        "(label (dice 3 6) \"Fire Bolt\")"
    );
    assert_eq!(
        tree("{1d6}kh1[best]"),
        "(label (group [(dice 1 6)] kh1) \"best\")"
    );
    assert_eq!(tree("4[flat]"), "(label 4 \"flat\")");
    assert_eq!(tree("(1+2)[sum]"), "(label (paren (+ 1 2)) \"sum\")");
    assert_eq!(tree("max(1,2)[m]"), "(label (call max 1 2) \"m\")");
    assert_eq!(tree("-3d6[x]"), "(neg (label (dice 3 6) \"x\"))");
    assert_eq!(tree("1d6[a][b]"), "(label (label (dice 1 6) \"a\") \"b\")");
    assert_eq!(
        tree("1d20[to hit: +5 (bless)] + 5"),
        "(+ (label (dice 1 20) \"to hit: +5 (bless)\") 5)"
    );
    assert_eq!(kinds("3d6[ ]"), ["empty-label"]);
}

// Case and whitespace.

#[test]
fn case_does_not_matter() {
    assert_eq!(tree("4D6KH3"), tree("4d6kh3"));
    assert_eq!(tree("DF"), tree("df"));
    assert_eq!(tree("4DfKh1"), "(dice 4 F kh1)");
    assert_eq!(tree("3D6MIN2MAX5"), tree("3d6min2max5"));
    assert_eq!(tree("8D10!RO1Kl2"), "(dice 8 10 ! ro=1 kl2)");
    assert_eq!(tree("Min(1, Abs(-2))"), "(call min 1 (call abs (neg 2)))");
    assert_eq!(tree("d%"), tree("D%"));
}

#[test]
fn whitespace_ends_a_dice_term() {
    assert_eq!(tree(" 4 d 6kh3 "), "(dice 4 6 kh3)");
    assert_eq!(kinds("4d6 kh 3"), ["spaced-modifier"]);
    assert_eq!(tree("3d6 > 2d10"), "(> (dice 3 6) (dice 2 10))");
    assert_eq!(tree("10d6 > 10d6"), "(> (dice 10 6) (dice 10 6))");
    assert_eq!(
        tree("1d20 + 5 + 1d4 >= 15"),
        "(>= (+ (+ (dice 1 20) 5) (dice 1 4)) 15)"
    );
    assert_eq!(tree("\t2d6\n+\n1"), "(+ (dice 2 6) 1)");
    assert_eq!(tree("{ 2d20 , 1d20 + 5 }kh1"), tree("{2d20,1d20+5}kh1"));
    assert_eq!(tree("d { -1 .. 1 , 5 }"), "(dice _ {-1..1,5})");
    assert_eq!(kinds("10d12>=8 f<=1"), ["spaced-modifier"]);
}

// Spans.

#[test]
fn spans_cover_the_source_of_each_node() {
    let expr = parse_ok("4d6kh3 + 2");
    assert_eq!(expr.span, span(0, 10));
    let ExprKind::Binary(_, dice, two) = &expr.node else {
        panic!("{}", show(&expr))
    };
    assert_eq!(dice.span, span(0, 6));
    assert_eq!(two.span, span(9, 10));
    let ExprKind::Dice(dice) = &dice.node else {
        panic!()
    };
    assert_eq!(dice.count.as_ref().map(|c| c.span), Some(span(0, 1)));
    assert_eq!(dice.sides.span, span(2, 3));
    assert_eq!(dice.modifiers[0].span, span(3, 6));
}

#[test]
fn spans_of_glued_modifiers_faces_and_labels() {
    let expr = parse_ok("8d10!ro1kh3");
    let ExprKind::Dice(dice) = &expr.node else {
        panic!()
    };
    let spans: Vec<_> = dice.modifiers.iter().map(|m| m.span).collect();
    assert_eq!(spans, [span(4, 5), span(5, 8), span(8, 11)]);

    let expr = parse_ok("4dFkh");
    let ExprKind::Dice(dice) = &expr.node else {
        panic!()
    };
    assert_eq!(dice.sides.span, span(2, 3));
    assert_eq!(dice.modifiers[0].span, span(3, 5));

    let expr = parse_ok("d{-1..1, 5}");
    let ExprKind::Dice(dice) = &expr.node else {
        panic!()
    };
    let Sides::Custom(faces) = &dice.sides.node else {
        panic!()
    };
    assert_eq!(dice.sides.span, span(1, 11));
    assert_eq!(faces[0].span, span(2, 7));
    assert_eq!(faces[1].span, span(9, 10));

    let expr = parse_ok("3d6[ fire ]");
    let ExprKind::Label(_, label) = &expr.node else {
        panic!()
    };
    assert_eq!(expr.span, span(0, 11));
    assert_eq!(label.span, span(5, 9));

    let expr = parse_ok("(1d4)d6");
    let ExprKind::Dice(dice) = &expr.node else {
        panic!()
    };
    assert_eq!(dice.count.as_ref().map(|c| c.span), Some(span(0, 5)));
    assert_eq!(expr.span, span(0, 7));

    let expr = parse_ok("max(1, 2)");
    let ExprKind::Call(name, _) = &expr.node else {
        panic!()
    };
    assert_eq!(name.span, span(0, 3));
    assert_eq!(expr.span, span(0, 9));
}

#[test]
fn spans_index_the_original_bytes_after_multibyte_text() {
    let expr = parse_ok("1d6[é] + 2");
    let ExprKind::Binary(_, _, two) = &expr.node else {
        panic!()
    };
    assert_eq!(two.span, span(10, 11));
}

// Errors.

#[test]
fn error_kinds() {
    let cases: [(&str, &[&str]); 22] = [
        ("", &["unexpected-end"]),
        ("d", &["expected-sides"]),
        ("2d", &["expected-sides"]),
        ("2dx", &["expected-sides"]),
        ("1 +", &["unexpected-end"]),
        ("((1+2)", &["unclosed-paren"]),
        ("{1, 2", &["unclosed-brace"]),
        ("1)", &["unexpected-token"]),
        ("4d6kh?", &["unexpected-character"]),
        ("1.5", &["unexpected-character"]),
        ("3d6fire", &["unknown-modifier"]),
        ("d(n)ro", &["expected-number"]),
        ("3d6min", &["expected-number"]),
        ("3d6>=(10)", &["expected-number"]),
        ("d{5..1}", &["bad-face-range"]),
        ("d{}", &["empty-faces"]),
        ("{}", &["empty-group"]),
        ("3d6[fire", &["unclosed-label"]),
        ("\"open", &["unclosed-string"]),
        ("1<2<3", &["chained-comparison"]),
        ("99999999999999999999d6", &["number-too-large"]),
        ("()", &["empty-parens"]),
    ];
    for (source, expected) in cases {
        assert_eq!(kinds(source), expected, "{source:?}");
    }
}

#[test]
fn every_error_is_reported_at_once() {
    assert_eq!(
        kinds("2d + 3d6kh? + (4"),
        ["expected-sides", "unexpected-character", "unclosed-paren"]
    );
    assert_eq!(
        kinds("() + 2d + 1<2<3"),
        ["empty-parens", "expected-sides", "chained-comparison"]
    );
    assert_eq!(
        kinds("{1d6, 2d} + d{3..1} + 4d6xyz"),
        ["expected-sides", "bad-face-range", "unknown-modifier"]
    );
    assert_eq!(
        kinds("1 ) + 2d + 3"),
        ["unexpected-token", "expected-sides"]
    );
}

#[test]
fn errors_come_in_source_order_and_are_errors() {
    let found = errors("(2d + 1d6kh? ");
    let starts: Vec<_> = found.iter().map(|d| d.span.start).collect();
    let mut sorted = starts.clone();
    sorted.sort();
    assert_eq!(starts, sorted);
    assert!(found.iter().all(|d| d.severity == Severity::Error));
}

#[test]
fn error_spans_point_at_the_offending_token() {
    let found = errors("2d + 3d6kh? + (4");
    let spans: Vec<_> = found.iter().map(|d| d.span).collect();
    assert_eq!(spans, [span(3, 4), span(10, 11), span(14, 15)]);
    assert_eq!(errors("1 +")[0].span, span(3, 3));
    assert_eq!(errors("1 + ()")[0].span, span(4, 6));
}

// Limits.

fn assert_one_quick_error(source: &str, limits: &ParseLimits, kind: &str) -> Diagnostic {
    let started = Instant::now();
    let found = parse(source, limits).expect_err("should fail");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(found.iter().map(|d| d.kind).collect::<Vec<_>>(), [kind]);
    found.into_iter().next().unwrap_or_else(|| unreachable!())
}

#[test]
fn deep_nesting_is_one_error_without_overflowing_the_stack() {
    let limits = ParseLimits::default();
    let nested = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert_one_quick_error(&nested, &limits, "nested-too-deeply");
    assert_one_quick_error(&"(".repeat(10_000), &limits, "nested-too-deeply");
    assert_one_quick_error(
        &format!("{}1", "-".repeat(50_000)),
        &limits,
        "nested-too-deeply",
    );
    assert_one_quick_error(&"{".repeat(10_000), &limits, "nested-too-deeply");
    assert_one_quick_error(&"max(".repeat(10_000), &limits, "nested-too-deeply");
    assert_one_quick_error(&"d(".repeat(10_000), &limits, "nested-too-deeply");
    let counts = format!("{}1{}", "(".repeat(10_000), ")d6".repeat(10_000));
    assert_one_quick_error(&counts, &limits, "nested-too-deeply");
}

#[test]
fn long_operator_chains_count_as_depth() {
    let limits = ParseLimits::default();
    let chain = vec!["1"; 30_000].join("+");
    assert_one_quick_error(&chain, &limits, "nested-too-deeply");
    let chain = vec!["2"; 30_000].join("*");
    assert_one_quick_error(&chain, &limits, "nested-too-deeply");
}

#[test]
fn nesting_within_the_limit_parses() {
    let limits = ParseLimits {
        max_depth: 10,
        ..ParseLimits::default()
    };
    // The whole expression is one level, each parenthesis one more.
    let fits = format!("{}1{}", "(".repeat(9), ")".repeat(9));
    assert!(parse(&fits, &limits).is_ok());
    let too_deep = format!("{}1{}", "(".repeat(10), ")".repeat(10));
    assert_one_quick_error(&too_deep, &limits, "nested-too-deeply");
    assert!(parse(&["1"; 10].join("+"), &limits).is_ok());
    assert!(parse(&format!("{}1", "(".repeat(100)), &ParseLimits::default()).is_err());
    assert!(
        parse(
            &format!("{}1{}", "(".repeat(100), ")".repeat(100)),
            &ParseLimits::default()
        )
        .is_ok()
    );
}

#[test]
fn errors_before_deep_nesting_are_kept() {
    let source = format!("2d + {}", "(".repeat(1000));
    assert_eq!(kinds(&source), ["expected-sides", "nested-too-deeply"]);
}

#[test]
fn input_too_long_is_rejected_without_parsing() {
    let limits = ParseLimits {
        max_len: 10,
        ..ParseLimits::default()
    };
    let found = assert_one_quick_error("1+1+1+1+1+1", &limits, "input-too-long");
    assert_eq!(found.span, span(10, 11));
    assert!(parse("1+1+1+1+1", &limits).is_ok());
    // The span starts on a character boundary even when the limit falls inside a character.
    let limits = ParseLimits {
        max_len: 9,
        ..ParseLimits::default()
    };
    let found = assert_one_quick_error("1d6[ééééé]", &limits, "input-too-long");
    assert_eq!(found.span, span(8, 15));
    let huge = "1".repeat(200_000);
    assert_one_quick_error(&huge, &ParseLimits::default(), "input-too-long");
}

// Scripts: names and dice.

#[test]
fn words_that_are_not_dice_are_names() {
    for (source, name) in [
        ("dv", "dv"),
        ("damage", "damage"),
        ("dice_lost", "dice_lost"),
        ("kh", "kh"),
        ("x", "x"),
        ("n", "n"),
        ("t2", "t2"),
        ("_", "_"),
        ("_x1_y", "_x1_y"),
        ("dfire", "dfire"),
        ("dkh", "dkh"),
        ("min", "min"),
        ("Pool", "pool"),
        ("DV", "dv"),
        ("then2", "then2"),
    ] {
        assert_eq!(tree(source), name, "{source:?}");
    }
}

#[test]
fn words_that_read_as_dice_are_dice() {
    assert_eq!(tree("d6"), "(dice _ 6)");
    assert_eq!(tree("d2"), "(dice _ 2)");
    assert_eq!(tree("d 6"), "(dice _ 6)");
    assert_eq!(tree("d%"), "(dice _ %)");
    assert_eq!(tree("d{1,2}"), "(dice _ {1,2})");
    assert_eq!(tree("d(n+1)"), "(dice _ (paren (+ n 1)))");
    assert_eq!(tree("dF"), "(dice _ F)");
    assert_eq!(tree("dFkh"), "(dice _ F kh1)");
    assert_eq!(tree("(n)d6"), "(dice (paren n) 6)");
    assert_eq!(
        tree("(n)d12>=8f<=1"),
        "(dice (paren n) 12 success>=8 failure<=1)"
    );
    // `d` alone is still dice missing its sides, as in plain notation.
    assert_eq!(kinds("d"), ["expected-sides"]);
    assert_eq!(kinds("d + 1"), ["expected-sides"]);
    // After a count every word starting with `d` is dice.
    assert_eq!(kinds("2dv"), ["expected-sides"]);
    // `d6_x` is the die `d6` with an unknown modifier, not a name.
    assert_eq!(kinds("d6_x"), ["unknown-modifier"]);
}

#[test]
fn names_next_to_dice_and_operators() {
    assert_eq!(tree("x + d6"), "(+ x (dice _ 6))");
    assert_eq!(tree("dv-1"), "(- dv 1)");
    assert_eq!(tree("2*n"), "(* 2 n)");
    assert_eq!(tree("-x"), "(neg x)");
    assert_eq!(tree("x[to hit]"), "(label x \"to hit\")");
    assert_eq!(tree("4d6kh3 + bonus"), "(+ (dice 4 6 kh3) bonus)");
}

#[test]
fn keywords_ignore_case() {
    assert_eq!(tree("IF x Then 1 ELSE 2"), "(if x 1 2)");
    assert_eq!(tree("TRUE Or Not FALSE"), "(or true (not false))");
    assert_eq!(
        script_tree("LET x = 1; Param Y; FN f() = 2; x"),
        "(let x 1)\n(param y)\n(fn f [] 2)\nx"
    );
}

// Scripts: items.

#[test]
fn items_then_the_result() {
    assert_eq!(
        script_tree(
            "param dv = 8;\nparam range;\nlet pool = 5;\nfn net(n, t,) = (n)d12;\nnet(pool, dv)"
        ),
        "(param dv 8)\n(param range)\n(let pool 5)\n(fn net [n t] (dice (paren n) 12))\n(call net pool dv)"
    );
    assert_eq!(
        script_tree("fn roll() = 2d6; roll()"),
        "(fn roll [] (dice 2 6))\n(call roll)"
    );
}

#[test]
fn a_let_with_in_at_the_top_is_the_result() {
    assert_eq!(
        script_tree("let a = 2 in a * 3d6"),
        "(let-in a 2 (* a (dice 3 6)))"
    );
    assert_eq!(
        script_tree("let a = 1; let b = a in b"),
        "(let a 1)\n(let-in b a b)"
    );
}

#[test]
fn item_spans_run_from_the_keyword_to_the_semicolon() {
    let script = parse_script_ok("param dv = 8;\n  fn f(x) = x;\nf(dv)");
    let spans: Vec<_> = script.items.iter().map(|item| item.span).collect();
    assert_eq!(spans, [span(0, 13), span(16, 28)]);
    let Item::Fn { name, params, .. } = &script.items[1].node else {
        panic!()
    };
    assert_eq!(name.span, span(19, 20));
    assert_eq!(params[0].span, span(21, 22));
    assert_eq!(script.body.span, span(29, 34));
}

// Scripts: expressions.

#[test]
fn logic_binds_looser_than_comparisons() {
    assert_eq!(tree("a or b and c"), "(or a (and b c))");
    assert_eq!(tree("a and b or c"), "(or (and a b) c)");
    assert_eq!(tree("a or b or c"), "(or (or a b) c)");
    assert_eq!(tree("a and b and c"), "(and (and a b) c)");
    assert_eq!(tree("not a and b"), "(and (not a) b)");
    assert_eq!(tree("not not a"), "(not (not a))");
    assert_eq!(tree("not x = 3"), "(not (= x 3))");
    assert_eq!(tree("x > 1 and x + 1 < 5"), "(and (> x 1) (< (+ x 1) 5))");
    assert_eq!(
        tree("not (1d6 = 6) and (true or false)"),
        "(and (not (paren (= (dice 1 6) 6))) (paren (or true false)))"
    );
}

#[test]
fn not_equal_and_double_equals() {
    assert_eq!(tree("x != 4"), "(!= x 4)");
    assert_eq!(tree("x <> 4"), "(!= x 4)");
    assert_eq!(tree("(3d6)<>10"), "(!= (paren (dice 3 6)) 10)");
    assert_eq!(tree("(3d6) != 4"), "(!= (paren (dice 3 6)) 4)");
    assert_eq!(tree("x == 4"), "(= x 4)");
    assert_eq!(tree("3d6+1 != 4"), "(!= (+ (dice 3 6) 1) 4)");
    // Straight after dice, `!=4` is still an explosion on 4.
    assert_eq!(tree("3d6!=4"), "(dice 3 6 !=4)");
    assert_eq!(tree("(1d6!=6)"), "(paren (dice 1 6 !=6))");
    // With spaces around it, `!=` compares the total.
    assert_eq!(tree("(1d6 != 6)"), "(paren (!= (dice 1 6) 6))");
    assert_eq!(tree("{1d6, 2}!=2"), "(group [(dice 1 6) 2] !=2)");
    assert_eq!(kinds("3d6<>10"), ["inequality-after-dice"]);
    assert_eq!(kinds("x != 1 != 2"), ["chained-comparison"]);
}

#[test]
fn if_then_else_reaches_as_far_right_as_it_can() {
    assert_eq!(tree("if c then 1 else 2"), "(if c 1 2)");
    assert_eq!(tree("if c then 1 else 2 + 3"), "(if c 1 (+ 2 3))");
    assert_eq!(tree("1 + if c then 1 else 2 + 3"), "(+ 1 (if c 1 (+ 2 3)))");
    assert_eq!(
        tree("if a then 1 else if b then 2 else 3"),
        "(if a 1 (if b 2 3))"
    );
    assert_eq!(
        tree("if if a then b else c then 1 else 2"),
        "(if (if a b c) 1 2)"
    );
    assert_eq!(tree("(if c then 1 else 2) * 3"), "(* (paren (if c 1 2)) 3)");
    assert_eq!(
        tree("if t = 1 then true else false"),
        "(if (= t 1) true false)"
    );
}

#[test]
fn let_in_reaches_as_far_right_as_it_can() {
    assert_eq!(
        tree("(let a = 2 in a * 3d6)"),
        "(paren (let-in a 2 (* a (dice 3 6))))"
    );
    assert_eq!(
        tree("(let a = 1 in let b = a + 1 in b)"),
        "(paren (let-in a 1 (let-in b (+ a 1) b)))"
    );
    assert_eq!(
        tree("1 + (let x = d6 in x + x)"),
        "(+ 1 (paren (let-in x (dice _ 6) (+ x x))))"
    );
}

#[test]
fn tuples_and_fields() {
    assert_eq!(tree("(1, 2)"), "(tuple 1 2)");
    assert_eq!(tree("(1,)"), "(tuple 1)");
    assert_eq!(tree("(1, 2,)"), "(tuple 1 2)");
    assert_eq!(tree("(3, \"bad\", true)"), "(tuple 3 \"bad\" true)");
    assert_eq!(tree("((1, 2), 3)"), "(tuple (tuple 1 2) 3)");
    assert_eq!(tree("t.0"), "(. t 0)");
    assert_eq!(tree("t.1.0"), "(. (. t 1) 0)");
    assert_eq!(tree("t . 1"), "(. t 1)");
    assert_eq!(tree("(1, 2).1"), "(. (tuple 1 2) 1)");
    assert_eq!(tree("-s.0 + 1"), "(+ (neg (. s 0)) 1)");
    assert_eq!(tree("s.0[first]"), "(label (. s 0) \"first\")");
    assert_eq!(tree("f(x).1"), "(. (call f x) 1)");
    // A tuple is no dice count.
    assert_eq!(kinds("(1, 2)d6"), ["unexpected-token"]);
    assert_eq!(kinds("t."), ["expected-field"]);
    assert_eq!(kinds("t.x"), ["expected-field"]);
    assert_eq!(kinds("()"), ["empty-parens"]);
}

#[test]
fn booleans_and_strings() {
    assert_eq!(tree("true"), "true");
    assert_eq!(tree("False"), "false");
    assert_eq!(tree("\"bad\""), "\"bad\"");
    assert_eq!(
        tree("\"  two words # not a comment \""),
        "\"  two words # not a comment \""
    );
    assert_eq!(tree("\"\""), "\"\"");
    assert_eq!(kinds("\"open"), ["unclosed-string"]);
    assert_eq!(kinds("\"open\n+ 1"), ["unclosed-string"]);
}

#[test]
fn match_arms_and_patterns() {
    assert_eq!(
        tree("match r { ..=10 => \"bad\", 41.. => \"good\", _ => \"neutral\" }"),
        "(match r [..=10 => \"bad\"] [41.. => \"good\"] [_ => \"neutral\"])"
    );
    assert_eq!(
        tree("match x { 1 => a, -1 => b, 2..5 => c, 5..=6 => d6, ..0 => e, -3..-1 => f, }"),
        "(match x [1 => a] [-1 => b] [2..5 => c] [5..=6 => (dice _ 6)] [..0 => e] [-3..-1 => f])"
    );
    assert_eq!(
        tree(
            "match t { (0, _) => 1, (1, \"x\") | (2, true) => 2, ((1, 2), _) => 3, (_,) => 4, (5) => 5 }"
        ),
        "(match t [(tuple 0 _) => 1] [(| (tuple 1 \"x\") (tuple 2 true)) => 2] \
         [(tuple (tuple 1 2) _) => 3] [(tuple _) => 4] [5 => 5])"
    );
    assert_eq!(
        tree("match b { true | false => 1 }"),
        "(match b [(| true false) => 1])"
    );
    // An open range right before its arrow.
    assert_eq!(tree("match r { 41..=> 1 }"), "(match r [41.. => 1])");
    // Arms take whole expressions, prefix forms included.
    assert_eq!(
        tree("match r { 1 => if a then 1 else 2, _ => match s { _ => 0 } } + 1"),
        "(+ (match r [1 => (if a 1 2)] [_ => (match s [_ => 0])]) 1)"
    );
    assert_eq!(
        tree("match 2d6 + x { _ => 0 }"),
        "(match (+ (dice 2 6) x) [_ => 0])"
    );
    assert_eq!(tree("match d6 { _ => 0 }"), "(match (dice _ 6) [_ => 0])");
}

#[test]
fn pattern_spans() {
    let expr = parse_ok("match x { 1 | 2..=3 => 0 }");
    let ExprKind::Match(_, arms) = &expr.node else {
        panic!()
    };
    assert_eq!(arms[0].pattern.span, span(10, 19));
    let Pattern::Or(alternatives) = &arms[0].pattern.node else {
        panic!()
    };
    assert_eq!(alternatives[1].span, span(14, 19));
    assert_eq!(expr.span, span(0, 26));
}

#[test]
fn comments_are_whitespace() {
    assert_eq!(
        script_tree("# a script\nlet x = d6; // one roll\nx + x # twice"),
        "(let x (dice _ 6))\n(+ x x)"
    );
    assert_eq!(tree("1 + # one\n 2"), "(+ 1 2)");
    assert_eq!(tree("8 / 2 // halves"), "(/ 8 2)");
    assert_eq!(tree("3d6[a # b]"), "(label (dice 3 6) \"a # b\")");
}

#[test]
fn dice_modifiers_stop_at_keywords() {
    assert_eq!(
        tree("if 1d20>=15 then 2d6 else 1d6"),
        "(if (dice 1 20 success>=15) (dice 2 6) (dice 1 6))"
    );
    assert_eq!(
        tree("(3d6) >= 10 and 2d6kh1 or 4dF"),
        "(or (and (>= (paren (dice 3 6)) 10) (dice 2 6 kh1)) (dice 4 F))"
    );
    assert_eq!(
        script_tree("let x = 4d6kh3\n;x"),
        "(let x (dice 4 6 kh3))\nx"
    );
}

#[test]
fn face_ranges_may_be_written_with_dot_dot_equals() {
    assert_eq!(tree("d{1..=3}"), tree("d{1..3}"));
}

// Scripts: the examples game designers write.

#[test]
fn example_net_successes() {
    let source = "param dv = 8;
param range = 1;
fn net(n) = (n)d12>=dv f<=range;
let pool = 5;
if pool <= 0 then 2d12kl1>=dv f<=range else net(pool)";
    assert_eq!(
        script_tree(source),
        "(param dv 8)
(param range 1)
(fn net [n] (dice (paren n) 12 success>=dv failure<=range))
(let pool 5)
(if (<= pool 0) (dice 2 12 kl1 success>=dv failure<=range) (call net pool))"
    );
}

#[test]
fn compare_points_take_numbers_or_names() {
    assert_eq!(tree("3d6>=Dv"), "(dice 3 6 success>=dv)");
    assert_eq!(tree("3d6!>t2 ro<=low_1"), "(dice 3 6 !>t2 ro<=low_1)");
    assert_eq!(
        tree("{d6, d8}>=x f=y"),
        "(group [(dice _ 6) (dice _ 8)] success>=x failure=y)"
    );
    // A bare point (no operator) is a number only: letters glued on are more modifiers.
    assert_eq!(tree("4d6ro1kh3"), "(dice 4 6 ro=1 kh3)");
    let expr = parse_ok("3d6>=dv");
    let ExprKind::Dice(dice) = &expr.node else {
        panic!()
    };
    let Modifier::Success(ComparePoint {
        value: PointValue::Name(name),
        ..
    }) = &dice.modifiers[0].node
    else {
        panic!()
    };
    assert_eq!(name.span, span(5, 7));
    // Keywords and dice are no names.
    assert_eq!(kinds("3d6>=then"), ["expected-number"]);
    assert_eq!(kinds("3d6>=d6"), ["expected-number"]);
}

#[test]
fn example_lore_check() {
    let source = "param lore = 2; param t = 4;
fn lore_check(n, t) = if t = 1 then true else if n <= 0 then (2d6kl1) >= t else ((n)d6kh1) >= t;
lore_check(lore, t)";
    assert_eq!(
        script_tree(source),
        "(param lore 2)
(param t 4)
(fn lore_check [n t] (if (= t 1) true (if (<= n 0) (>= (paren (dice 2 6 kl1)) t) (>= (paren (dice (paren n) 6 kh1)) t))))
(call lore_check lore t)"
    );
}

#[test]
fn example_outcome_bands() {
    assert_eq!(
        script_tree("let x = d6; x + x"),
        "(let x (dice _ 6))\n(+ x x)"
    );
    assert_eq!(
        script_tree(
            "let r = d50; match r { ..=10 => \"bad\", 41.. => \"good\", _ => \"neutral\" }"
        ),
        "(let r (dice _ 50))\n(match r [..=10 => \"bad\"] [41.. => \"good\"] [_ => \"neutral\"])"
    );
    // A pattern is a literal, not an expression.
    let source = "param m = 0;\nlet r = d50;\nmatch r { ..=10 - m => \"bad\", _ => \"neutral\" }";
    let found = errors(source);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, "pattern-not-literal");
    assert_eq!(found[0].span, span(42, 45));
    assert!(
        found[0]
            .help
            .as_deref()
            .is_some_and(|help| help.contains("`if r <= 10 - m then … else …`"))
    );
}

#[test]
fn example_markov_step_and_tuples() {
    assert_eq!(
        script_tree("fn step(s) = if s.0 = 0 then (0, s.1) else (s.0 - 1, s.1 + d6);\nstep((3, 0))"),
        "(fn step [s] (if (= (. s 0) 0) (tuple 0 (. s 1)) (tuple (- (. s 0) 1) (+ (. s 1) (dice _ 6)))))
(call step (tuple 3 0))"
    );
    assert_eq!(
        script_tree("let t = (3, \"bad\"); t.1"),
        "(let t (tuple 3 \"bad\"))\n(. t 1)"
    );
}

#[test]
fn example_one_liners() {
    assert_eq!(
        tree("not (1d6 = 6) and (true or false)"),
        "(and (not (paren (= (dice 1 6) 6))) (paren (or true false)))"
    );
    // As in plain notation, `!=` straight after dice explodes: this is a d6 exploding on 6.
    assert_eq!(tree("(1d6!=6)"), "(paren (dice 1 6 !=6))");
    // With spaces around it, `!=` compares the total.
    assert_eq!(tree("(1d6 != 6)"), "(paren (!= (dice 1 6) 6))");
    assert_eq!(tree("(3d6)<>10"), "(!= (paren (dice 3 6)) 10)");
    assert_eq!(
        script_tree("let a = 2 in a * 3d6"),
        "(let-in a 2 (* a (dice 3 6)))"
    );
}

// Scripts: errors.

#[test]
fn script_error_kinds() {
    let cases: [(&str, &[&str]); 34] = [
        ("let x = 1\nlet y = 2;\nx", &["expected-semicolon"]),
        ("param dv = 8 param r = 1; dv", &["expected-semicolon"]),
        ("let x = 1 2; x", &["unexpected-token"]),
        ("let x = 1) ; x", &["expected-semicolon"]),
        ("let x = 1;", &["missing-result"]),
        ("let x = 1;\n", &["missing-result"]),
        ("1; 2", &["unexpected-semicolon"]),
        ("x\nlet y = 1;", &["item-after-result"]),
        ("let = 1; 2", &["expected-name"]),
        ("let 3 = 1; 2", &["expected-name"]),
        ("let if = 1; 2", &["reserved-word"]),
        ("fn f(then) = 1; 2", &["reserved-word"]),
        ("let d6 = 1; 2", &["dice-like-name"]),
        ("param dF; 2", &["dice-like-name"]),
        ("let x 1; x", &["expected-equals"]),
        ("param x 1; x", &["expected-equals"]),
        ("fn f(x) x; 2", &["expected-equals"]),
        ("fn f = 1; 2", &["expected-params"]),
        ("if x 1 else 2", &["unexpected-token"]),
        ("if x then 1", &["expected-else"]),
        ("if x else 2", &["expected-then"]),
        ("(let x = 1; x)", &["expected-in"]),
        ("match x { }", &["empty-match"]),
        ("match x", &["expected-brace"]),
        ("match x { 1 2 }", &["expected-arrow"]),
        ("match x { y => 2 }", &["expected-pattern"]),
        ("match x { 1 + 1 => 2 }", &["pattern-not-literal"]),
        ("match x { .. => 2 }", &["expected-number"]),
        ("match x { 5..3 => 2 }", &["empty-range"]),
        ("match x { 3..3 => 2 }", &["empty-range"]),
        ("match x { 1 => 2", &["unclosed-brace"]),
        ("3d6<>10", &["inequality-after-dice"]),
        ("1 + not x", &["unexpected-token"]),
        ("x.", &["expected-field"]),
    ];
    for (source, expected) in cases {
        assert_eq!(kinds(source), expected, "{source:?}");
    }
}

#[test]
fn every_script_error_is_reported_at_once() {
    let source = "param dv = 8\nlet if = 2;\nfn f(x) = x +;\nlet y = \"open;\nmatch y { z => 1 }";
    assert_eq!(
        kinds(source),
        [
            "expected-semicolon",
            "reserved-word",
            "unexpected-token",
            "unclosed-string",
            "expected-pattern"
        ]
    );
}

#[test]
fn an_error_inside_an_item_skips_to_its_semicolon() {
    // The junk after `1` is skipped to the `;`, and the next item parses.
    assert_eq!(
        kinds("let x = 1 ) ] ? 2;\nlet y = 2d;\ny"),
        ["expected-semicolon", "expected-sides"]
    );
    assert_eq!(
        kinds("fn (x) = 1;\nlet y = 2d;\ny"),
        ["expected-name", "expected-sides"]
    );
    // A missing `;` before a new line is reported once, and the next line is read as the next item.
    assert_eq!(
        kinds("let x = d6\nlet y = 2d\ny"),
        ["expected-semicolon", "expected-sides"]
    );
    assert_eq!(kinds("let x = d6\nx + x"), ["expected-semicolon"]);
    assert_eq!(
        kinds("fn f(x) = if x then 1 else 2\nf(3)"),
        ["expected-semicolon"]
    );
}

#[test]
fn a_missing_semicolon_points_after_the_item() {
    let found = errors("let x = d6\nx + x");
    assert_eq!(found[0].span, span(10, 10));
    assert_eq!(found[0].message, "expected `;` to end `let x`, found `x`");
    // On the same line, at what was found instead.
    assert_eq!(errors("param dv = 8 param r; dv")[0].span, span(13, 18));
}

#[test]
fn a_missing_else_is_one_error() {
    assert_eq!(
        kinds("let x = if a then 1\nlet y = 2;\ny"),
        ["expected-else"]
    );
    assert_eq!(errors("if a then 1")[0].span, span(11, 11));
}

// Scripts: limits.

#[test]
fn deep_script_nesting_is_one_error_without_overflowing_the_stack() {
    let limits = ParseLimits {
        max_len: 1_000_000,
        ..ParseLimits::default()
    };
    let ifs = format!("{}1", "if 1 then 1 else ".repeat(10_000));
    assert_one_quick_error(&ifs, &limits, "nested-too-deeply");
    let conditions = format!("{}1", "if ".repeat(10_000));
    assert_one_quick_error(&conditions, &limits, "nested-too-deeply");
    let nots = format!("{}true", "not ".repeat(10_000));
    assert_one_quick_error(&nots, &limits, "nested-too-deeply");
    let lets = format!("{}1", "let a = 1 in ".repeat(10_000));
    assert_one_quick_error(&lets, &limits, "nested-too-deeply");
    let let_values = format!("{}1", "let a = ".repeat(10_000));
    assert_one_quick_error(&let_values, &limits, "nested-too-deeply");
    let matches = format!("{}1", "match x { _ => ".repeat(10_000));
    assert_one_quick_error(&matches, &limits, "nested-too-deeply");
    let scrutinees = format!("{}1", "match ".repeat(10_000));
    assert_one_quick_error(&scrutinees, &limits, "nested-too-deeply");
    let tuples = format!("{}1", "(1, ".repeat(10_000));
    assert_one_quick_error(&tuples, &limits, "nested-too-deeply");
    let patterns = format!("match x {{ {}1", "(".repeat(10_000));
    assert_one_quick_error(&patterns, &limits, "nested-too-deeply");
    let fields = format!("t{}", ".0".repeat(10_000));
    assert_one_quick_error(&fields, &limits, "nested-too-deeply");
    let labels = format!("t{}", "[a]".repeat(10_000));
    assert_one_quick_error(&labels, &limits, "nested-too-deeply");
    let item = format!("let x = {}1; x", "-".repeat(10_000));
    assert_one_quick_error(&item, &limits, "nested-too-deeply");
}

#[test]
fn long_logic_chains_count_as_depth() {
    let limits = ParseLimits {
        max_len: 1_000_000,
        ..ParseLimits::default()
    };
    assert_one_quick_error(
        &vec!["true"; 30_000].join(" and "),
        &limits,
        "nested-too-deeply",
    );
    assert_one_quick_error(
        &vec!["true"; 30_000].join(" or "),
        &limits,
        "nested-too-deeply",
    );
}

#[test]
fn many_items_and_wide_matches_are_not_deep() {
    let items = "let a = 1;\n".repeat(5_000) + "a";
    assert_eq!(parse_script_ok(&items).items.len(), 5_000);
    let arms = format!("match x {{ {} _ => 0 }}", "1 => 1, ".repeat(5_000));
    let ExprKind::Match(_, arms) = parse_ok(&arms).node else {
        panic!()
    };
    assert_eq!(arms.len(), 5_001);
    let alternatives = format!("match x {{ {}1 => 0 }}", "1 | ".repeat(5_000));
    assert!(parse(&alternatives, &ParseLimits::default()).is_ok());
}

// Rendered messages.

#[test]
fn snapshot_missing_sides() {
    insta::assert_snapshot!("missing_sides_alone", rendered("d"));
    insta::assert_snapshot!("missing_sides", rendered("2d"));
}

#[test]
fn snapshot_bad_modifiers() {
    insta::assert_snapshot!("keep_then_unknown_character", rendered("4d6kh?"));
    insta::assert_snapshot!("spaced_modifier", rendered("4d6 kh3"));
    insta::assert_snapshot!("unknown_modifier", rendered("3d6fire"));
    insta::assert_snapshot!("reroll_without_point", rendered("d(n)ro"));
    insta::assert_snapshot!("success_point_not_a_number", rendered("3d6>=(10)"));
}

#[test]
fn snapshot_brackets() {
    insta::assert_snapshot!("unclosed_paren", rendered("((1+2)"));
    insta::assert_snapshot!("unclosed_label", rendered("3d6[fire"));
    insta::assert_snapshot!("stray_close", rendered("1d6)"));
    insta::assert_snapshot!("empty_parens", rendered("()"));
    insta::assert_snapshot!("empty_group", rendered("{}kh1"));
}

#[test]
fn snapshot_expressions() {
    insta::assert_snapshot!("missing_operand", rendered("1 +"));
    insta::assert_snapshot!("empty_input", rendered(""));
    insta::assert_snapshot!("chained_comparison", rendered("1<2<3"));
    insta::assert_snapshot!("number_too_large", rendered("99999999999999999999d6"));
    insta::assert_snapshot!("decimal_number", rendered("1.5d6"));
    insta::assert_snapshot!("bad_face_range", rendered("d{6..1}"));
}

#[test]
fn snapshot_several_errors_at_once() {
    insta::assert_snapshot!("several_errors", rendered("2d + 3d6kh? + (4"));
    insta::assert_snapshot!(
        "several_errors_on_many_lines",
        rendered("{1d6, 2d}\n + foo(3)\n + 4d6[fire")
    );
}

#[test]
fn snapshot_script_items() {
    insta::assert_snapshot!(
        "missing_semicolon_before_next_line",
        rendered("param dv = 8\nparam range = 1;\ndv + range")
    );
    insta::assert_snapshot!(
        "missing_semicolon_on_the_same_line",
        rendered("param dv = 8 param range = 1; dv")
    );
    insta::assert_snapshot!("missing_result", rendered("let x = d6;\n"));
    insta::assert_snapshot!("semicolon_after_result", rendered("let x = d6;\nx + x;"));
    insta::assert_snapshot!(
        "item_after_result",
        rendered("2d6 + bonus\nparam bonus = 2;")
    );
    insta::assert_snapshot!("reserved_word_as_name", rendered("param not = 2;\n1d6"));
    insta::assert_snapshot!("dice_like_name", rendered("let d6 = 3;\nd6 + 1"));
    insta::assert_snapshot!("missing_equals", rendered("let bonus 2;\nbonus"));
    insta::assert_snapshot!("fn_without_parameters", rendered("fn roll = 2d6;\nroll()"));
    insta::assert_snapshot!(
        "let_without_in",
        rendered("fn f(x) =\n  let y = x + 1;\n  y * 2;\nf(3)")
    );
}

#[test]
fn snapshot_script_expressions() {
    insta::assert_snapshot!("missing_else", rendered("if pool <= 0 then 2d12kl1"));
    insta::assert_snapshot!("missing_then", rendered("if pool <= 0 2d12 else 1"));
    insta::assert_snapshot!("unclosed_string", rendered("let label = \"bad;\nlabel"));
    insta::assert_snapshot!("inequality_after_dice", rendered("3d6<>10"));
    insta::assert_snapshot!("not_inside_arithmetic", rendered("1 + not x"));
    insta::assert_snapshot!("expected_field", rendered("t.first"));
    insta::assert_snapshot!(
        "dice_in_compare_point",
        rendered("fn net(n) = (n)d12>=d6;\nnet(3)")
    );
}

#[test]
fn snapshot_match_mistakes() {
    insta::assert_snapshot!(
        "pattern_not_literal",
        rendered("param m = 0;\nlet r = d50;\nmatch r { ..=10 - m => \"bad\", _ => \"neutral\" }")
    );
    insta::assert_snapshot!("name_as_pattern", rendered("match r { dv => 1, _ => 0 }"));
    insta::assert_snapshot!("empty_match", rendered("match r {}"));
    insta::assert_snapshot!("empty_range", rendered("match r { 10..1 => 0, _ => 1 }"));
    insta::assert_snapshot!(
        "missing_arrow",
        rendered("match r { 1 \"one\", _ => \"other\" }")
    );
    insta::assert_snapshot!("open_range_without_bound", rendered("match r { ..= => 0 }"));
}

#[test]
fn snapshot_a_script_with_several_errors() {
    let source = "# Lore check, draft
param lore = 2
param t = 4;
fn lore_check(n, t) = if t = 1 then true else if n <= 0 then (2d6kl1) >= t;
let then = 3;
let band = match 2d6 { ..=4 => \"low\", 5..=9 => \"mid\" 10.. => \"high\" };
lore_check(lore, t) and band = \"high";
    insta::assert_snapshot!("script_with_several_errors", rendered(source));
}

#[test]
fn snapshot_nested_too_deeply() {
    let source = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let found = errors(&source);
    let summary: Vec<_> = found
        .iter()
        .map(|d| format!("{}: {} (help: {:?})", d.kind, d.message, d.help))
        .collect();
    insta::assert_snapshot!("nested_too_deeply", summary.join("\n"));
}

// No input panics.

/// Parses `source` and checks what every answer must satisfy.
fn check_any_input(source: &str, limits: &ParseLimits) -> Result<(), TestCaseError> {
    match parse(source, limits) {
        Ok(script) => check_script(source, &script),
        Err(found) => {
            prop_assert!(!found.is_empty());
            for diagnostic in &found {
                prop_assert_eq!(diagnostic.severity, Severity::Error);
                check_span(source, diagnostic.span)?;
            }
            render(source, &found);
            Ok(())
        }
    }
}

fn check_span(source: &str, span: Span) -> Result<(), TestCaseError> {
    prop_assert!(
        span.start <= span.end && span.end <= source.len(),
        "{span:?}"
    );
    prop_assert!(source.is_char_boundary(span.start) && source.is_char_boundary(span.end));
    Ok(())
}

fn check_script(source: &str, script: &Script) -> Result<(), TestCaseError> {
    for item in &script.items {
        check_span(source, item.span)?;
        let (name, values): (&Spanned<String>, Vec<&Expr>) = match &item.node {
            Item::Param { name, default } => (name, default.iter().collect()),
            Item::Let { name, value } => (name, vec![value]),
            Item::Fn { name, params, body } => {
                for param in params {
                    check_span(source, param.span)?;
                }
                (name, vec![body])
            }
        };
        check_span(source, name.span)?;
        for value in values {
            prop_assert!(item.span.start <= value.span.start && value.span.end <= item.span.end);
            check_tree(source, value)?;
        }
    }
    check_tree(source, &script.body)
}

fn check_pattern(source: &str, pattern: &Spanned<Pattern>) -> Result<(), TestCaseError> {
    check_span(source, pattern.span)?;
    if let Pattern::Tuple(members) | Pattern::Or(members) = &pattern.node {
        for member in members {
            prop_assert!(
                pattern.span.start <= member.span.start && member.span.end <= pattern.span.end
            );
            check_pattern(source, member)?;
        }
    }
    Ok(())
}

fn check_tree(source: &str, expr: &Expr) -> Result<(), TestCaseError> {
    check_span(source, expr.span)?;
    let mut children: Vec<&Expr> = Vec::new();
    match &expr.node {
        ExprKind::Error => prop_assert!(false, "an error node in a successful parse"),
        ExprKind::Number(_) => {}
        ExprKind::Dice(dice) => {
            children.extend(dice.count.as_ref());
            if let Sides::Number(sides) = &dice.sides.node {
                children.push(sides);
            }
            check_span(source, dice.sides.span)?;
            for modifier in &dice.modifiers {
                check_span(source, modifier.span)?;
            }
        }
        ExprKind::Group(group) => {
            children.extend(&group.members);
            for modifier in &group.modifiers {
                check_span(source, modifier.span)?;
            }
        }
        ExprKind::Neg(e) | ExprKind::Paren(e) => children.push(e),
        ExprKind::Label(e, label) => {
            children.push(e);
            check_span(source, label.span)?;
        }
        ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) => children.extend([&**a, &**b]),
        ExprKind::Call(name, args) => {
            check_span(source, name.span)?;
            children.extend(args);
        }
        ExprKind::Var(_) | ExprKind::Bool(_) | ExprKind::Text(_) => {}
        ExprKind::Tuple(members) => {
            prop_assert!(!members.is_empty());
            children.extend(members);
        }
        ExprKind::Field(e, index) => {
            children.push(e);
            check_span(source, index.span)?;
        }
        ExprKind::If(c, a, b) => children.extend([&**c, &**a, &**b]),
        ExprKind::Match(x, arms) => {
            prop_assert!(!arms.is_empty());
            children.push(x);
            for arm in arms {
                check_pattern(source, &arm.pattern)?;
                children.push(&arm.body);
            }
        }
        ExprKind::And(a, b) | ExprKind::Or(a, b) => children.extend([&**a, &**b]),
        ExprKind::Not(e) => children.push(e),
        ExprKind::LetIn(name, value, body) => {
            check_span(source, name.span)?;
            children.extend([&**value, &**body]);
        }
        ExprKind::Point(_, value) => children.push(value),
        ExprKind::Pool(pool) => {
            use omen_lang::syntax::ast::{PoolExpr, PoolMember};
            match &**pool {
                PoolExpr::Draw { count, deck } => children.extend([count, deck]),
                PoolExpr::Dice(members) => {
                    prop_assert!(!members.is_empty());
                    for member in members {
                        check_span(source, member.span)?;
                        prop_assert!(
                            expr.span.start <= member.span.start
                                && member.span.end <= expr.span.end
                        );
                        match &member.node {
                            PoolMember::Roll(roll) => children.push(roll),
                            PoolMember::Repeat { count, roll } => children.extend([count, roll]),
                            PoolMember::Symbol { name, .. } => check_span(source, name.span)?,
                        }
                    }
                }
            }
        }
    }
    for child in children {
        prop_assert!(expr.span.start <= child.span.start && child.span.end <= expr.span.end);
        check_tree(source, child)?;
    }
    Ok(())
}

const PIECES: &[&str] = &[
    "d",
    "D",
    "4",
    "6",
    "10",
    "0",
    "99999999999999999999",
    "k",
    "h",
    "l",
    "kh",
    "dl",
    "ro",
    "rr",
    "r",
    "min",
    "max",
    "abs",
    "f",
    "F",
    "x",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "[a]",
    "!",
    "!!",
    "<",
    ">",
    "=",
    ">=",
    "<=",
    "-",
    "+",
    "*",
    "/",
    ",",
    "..",
    ".",
    "%",
    " ",
    "\n",
    "é",
    "?",
    "😀",
];

fn notation_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..48).prop_map(|pieces| pieces.concat())
}

/// Script words and punctuation, with a few dice pieces, separated by spaces half the time.
const SCRIPT_PIECES: &[&str] = &[
    "let",
    "param",
    "fn",
    "if",
    "then",
    "else",
    "match",
    "and",
    "or",
    "not",
    "true",
    "false",
    "in",
    "LET",
    "x",
    "dv",
    "t2",
    "_",
    "dice_lost",
    "d",
    "d6",
    "dF",
    "2d6",
    "4d6kh3",
    ">=",
    "<=",
    "=",
    "==",
    "!=",
    "<>",
    "<",
    "!",
    "=>",
    "|",
    ";",
    ",",
    ".",
    "..",
    "..=",
    "0",
    "1",
    "-",
    "+",
    "*",
    "(",
    ")",
    "{",
    "}",
    "[a]",
    "\"",
    "\"bad\"",
    "#",
    "//",
    "\n",
    "é",
    "?",
    ".0",
    "f(",
    "x.1",
    "pool",
    "draw",
    "from",
    "ability",
    "count(p, >=5)",
    "6 x (4d6kh3)",
];

fn script_soup() -> impl Strategy<Value = String> {
    prop::collection::vec((prop::sample::select(SCRIPT_PIECES), any::<bool>()), 0..40).prop_map(
        |pieces| {
            pieces
                .into_iter()
                .map(|(piece, spaced)| {
                    if spaced {
                        format!("{piece} ")
                    } else {
                        piece.to_string()
                    }
                })
                .collect()
        },
    )
}

/// Well-formed script lines to splice together and break: each mostly parses on its own.
const SCRIPT_LINES: &[&str] = &[
    "param dv = 8;",
    "param range;",
    "fn net(n) = (n)d12>=8 f<=1;",
    "let pool = 5;",
    "fn step(s) = if s.0 = 0 then (0, s.1) else (s.0 - 1, s.1 + d6);",
    "let r = d50;",
    "match r { ..=10 => \"bad\", 41.. => \"good\", (1, _) | -3..0 => 0, _ => \"neutral\" }",
    "not (1d6 = 6) and (true or false)",
    "let a = 2 in a * 3d6",
    "if pool <= 0 then 2d12kl1 else net(pool)",
    "(3d6)<>10 # comment",
    "x.0.1[label] // comment",
    "let p = pool {d10, d8, 2d6};",
    "(count(p, >=5), highest(p, 2), nth(p, 3))",
    "let s = pool 6 x (4d6kh3);",
    "symbols(pool {3 ability, 2 difficulty})",
    "let h = pool draw 5 from d{1..13, 1..13};",
];

fn script_lines() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (prop::sample::select(SCRIPT_LINES), 0..4usize, any::<u8>()),
        1..6,
    )
    .prop_map(|lines| {
        let mut out = String::new();
        for (line, damage, at) in lines {
            let mut line = line.to_string();
            // Cut a piece out of the line now and then, at a character boundary.
            if damage == 0 && !line.is_empty() {
                let cut = line.floor_char_boundary(usize::from(at) % line.len());
                line.replace_range(cut..line.ceil_char_boundary(cut + 1), "");
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    })
}

proptest! {
    #[test]
    fn arbitrary_strings_never_panic(source in any::<String>()) {
        check_any_input(&source, &ParseLimits::default())?;
    }

    #[test]
    fn notation_soup_never_panics(source in notation_soup()) {
        check_any_input(&source, &ParseLimits::default())?;
    }

    #[test]
    fn notation_soup_under_tight_limits_never_panics(source in notation_soup()) {
        check_any_input(&source, &ParseLimits { max_depth: 3, max_len: 40 })?;
    }

    #[test]
    fn script_soup_never_panics(source in script_soup()) {
        check_any_input(&source, &ParseLimits::default())?;
    }

    #[test]
    fn script_soup_under_tight_limits_never_panics(source in script_soup()) {
        check_any_input(&source, &ParseLimits { max_depth: 4, max_len: 80 })?;
    }

    #[test]
    fn damaged_scripts_never_panic(source in script_lines()) {
        check_any_input(&source, &ParseLimits::default())?;
    }
}
