//! The parser: tree shapes for every form of the notation, error kinds and messages, limits, and that no
//! input makes it panic.

use std::time::{Duration, Instant};

use omen_lang::diagnostic::{Diagnostic, Severity, render};
use omen_lang::span::Span;
use omen_lang::syntax::ast::{
    BinOp, CompareOp, ComparePoint, Expr, ExprKind, FaceItem, KeepWhich, Modifier, Sides,
};
use omen_lang::syntax::{ParseLimits, parse};
use proptest::prelude::*;

// Helpers.

/// The tree of `source`, printed compactly; panics with the diagnostics if it does not parse.
fn tree(source: &str) -> String {
    match parse(source, &ParseLimits::default()) {
        Ok(expr) => show(&expr),
        Err(errors) => panic!("{source:?} failed:\n{}", render(source, &errors)),
    }
}

fn parse_ok(source: &str) -> Expr {
    parse(source, &ParseLimits::default())
        .unwrap_or_else(|errors| panic!("{source:?} failed:\n{}", render(source, &errors)))
}

fn errors(source: &str) -> Vec<Diagnostic> {
    match parse(source, &ParseLimits::default()) {
        Ok(expr) => panic!("{source:?} parsed as {}", show(&expr)),
        Err(errors) => errors,
    }
}

fn kinds(source: &str) -> Vec<&'static str> {
    errors(source).iter().map(|d| d.kind).collect()
}

fn rendered(source: &str) -> String {
    render(source, &errors(source))
}

/// An S-expression: `(dice COUNT SIDES MODIFIERS…)` with `_` for no count, `(group [MEMBERS…] MODIFIERS…)`,
/// `(+ a b)`, `(>= a b)`, `(neg x)`, `(paren x)`, `(call name args…)`, `(label x "text")`, `ERR`.
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
            let op = match op {
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Mul => "*",
                BinOp::Div => "/",
            };
            format!("({op} {} {})", show(a), show(b))
        }
        ExprKind::Compare(op, a, b) => format!("({} {} {})", show_op(*op), show(a), show(b)),
        ExprKind::Call(name, args) => {
            let args: Vec<_> = args.iter().map(show).collect();
            format!("(call {} {})", name.node, args.join(" "))
        }
        ExprKind::Label(e, label) => format!("(label {} {:?})", show(e), label.node),
        ExprKind::Paren(e) => format!("(paren {})", show(e)),
        ExprKind::Error => "ERR".to_string(),
    }
}

fn show_op(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Ge => ">=",
        CompareOp::Gt => ">",
        CompareOp::Le => "<=",
        CompareOp::Lt => "<",
        CompareOp::Eq => "=",
    }
}

fn show_point(point: &ComparePoint) -> String {
    format!("{}{}", show_op(point.op), point.value)
}

fn show_modifier(modifier: &Modifier) -> String {
    match modifier {
        Modifier::Explode { compound, point } => format!(
            "{}{}",
            if *compound { "!!" } else { "!" },
            point.as_ref().map_or(String::new(), show_point)
        ),
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
            };
            format!("{which}{count}")
        }
        Modifier::Success(point) => format!("success{}", show_point(point)),
        Modifier::Failure(point) => format!("failure{}", show_point(point)),
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
    assert_eq!(tree("4d6kh k"), "(dice 4 6 kh1 kh1)");
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
    assert_eq!(tree("dF ro = -1"), "(dice _ F ro=-1)");
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
    assert_eq!(tree("4d6 d 6"), "(dice 4 6 dl6)");
    // After an operator it starts a dice term again.
    assert_eq!(tree("4d6+d6"), "(+ (dice 4 6) (dice _ 6))");
}

#[test]
fn letters_glued_after_an_omitted_count_are_an_error() {
    assert_eq!(kinds("4d6khk"), ["expected-number"]);
    assert_eq!(kinds("4d6dlro1"), ["expected-number"]);
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
    assert_eq!(kinds("foo(2)"), ["unknown-function"]);
    assert_eq!(kinds("abs(1,2)"), ["wrong-argument-count"]);
    assert_eq!(kinds("min()"), ["wrong-argument-count"]);
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
    assert_eq!(tree("2d6 >= 7"), tree("2d6>=7"));
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
fn whitespace_between_tokens_is_ignored() {
    assert_eq!(tree(" 4 d 6 kh 3 "), "(dice 4 6 kh3)");
    assert_eq!(tree("\t2d6\n+\n1"), "(+ (dice 2 6) 1)");
    assert_eq!(tree("{ 2d20 , 1d20 + 5 } kh 1"), tree("{2d20,1d20+5}kh1"));
    assert_eq!(tree("d { -1 .. 1 , 5 }"), "(dice _ {-1..1,5})");
    assert_eq!(tree("10d12 >= 8 f <= 1"), tree("10d12>=8f<=1"));
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
        ("3d6 fire", &["unknown-modifier"]),
        ("3d6ro", &["expected-number"]),
        ("3d6min", &["expected-number"]),
        ("3d6>=(10)", &["expected-number"]),
        ("d{5..1}", &["bad-face-range"]),
        ("d{}", &["empty-faces"]),
        ("{}", &["empty-group"]),
        ("3d6[fire", &["unclosed-label"]),
        ("foo(2)", &["unknown-function"]),
        ("1<2<3", &["chained-comparison"]),
        ("99999999999999999999d6", &["number-too-large"]),
        ("(1, 2)", &["unexpected-token"]),
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
        kinds("foo(1) + 2d + 1<2<3"),
        ["unknown-function", "expected-sides", "chained-comparison"]
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
    assert_eq!(errors("foo(2)")[0].span, span(0, 3));
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

// Rendered messages.

#[test]
fn snapshot_missing_sides() {
    insta::assert_snapshot!("missing_sides_alone", rendered("d"));
    insta::assert_snapshot!("missing_sides", rendered("2d"));
}

#[test]
fn snapshot_bad_modifiers() {
    insta::assert_snapshot!("keep_then_unknown_character", rendered("4d6kh?"));
    insta::assert_snapshot!("keep_count_glued_to_letters", rendered("4d6khk"));
    insta::assert_snapshot!("unknown_modifier", rendered("3d6 fire"));
    insta::assert_snapshot!("reroll_without_point", rendered("3d6ro"));
    insta::assert_snapshot!("success_point_not_a_number", rendered("3d6 >= (10)"));
}

#[test]
fn snapshot_brackets() {
    insta::assert_snapshot!("unclosed_paren", rendered("((1+2)"));
    insta::assert_snapshot!("unclosed_label", rendered("3d6[fire"));
    insta::assert_snapshot!("stray_close", rendered("1d6)"));
    insta::assert_snapshot!("comma_in_parens", rendered("(1d20, 1d20)"));
    insta::assert_snapshot!("empty_group", rendered("{}kh1"));
}

#[test]
fn snapshot_expressions() {
    insta::assert_snapshot!("missing_operand", rendered("1 +"));
    insta::assert_snapshot!("empty_input", rendered(""));
    insta::assert_snapshot!("unknown_function", rendered("foo(2)"));
    insta::assert_snapshot!("chained_comparison", rendered("1<2<3"));
    insta::assert_snapshot!("number_too_large", rendered("99999999999999999999d6"));
    insta::assert_snapshot!("decimal_number", rendered("1.5d6"));
    insta::assert_snapshot!("bad_face_range", rendered("d{6..1}"));
    insta::assert_snapshot!("abs_arity", rendered("abs(1d6, 2)"));
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
        Ok(expr) => check_tree(source, &expr),
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
}
