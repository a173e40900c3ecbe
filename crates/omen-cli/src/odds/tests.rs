//! The odds formats against hand-computed distributions.

use omen_core::Limits;
use omen_lang::{Options, compile, exact};

use super::*;

fn result(expression: &str, limits: Limits) -> ExactResult {
    let options = Options {
        limits,
        ..Options::default()
    };
    let compiled = compile(expression, &options).expect("compiles");
    exact(&compiled.program, &options.limits).expect("computes")
}

fn render<'a>(odds: &Odds<'a>, f: impl Fn(&Odds<'a>, &mut dyn Write) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    f(odds, &mut out).expect("writes to memory");
    String::from_utf8(out).expect("UTF-8")
}

fn table(odds: &Odds<'_>, out: &mut dyn Write) -> io::Result<()> {
    odds.table(out, &Layout::default())
}

fn p(n: u32, d: u32) -> Probability {
    Probability::new(Weight::from(n), Weight::from(d))
}

fn shown(n: u32, d: u32) -> Shown {
    Shown::of(&p(n, d))
}

#[test]
fn fractions_drop_a_denominator_of_one() {
    assert_eq!(fraction(&p(6, 36)), "1/6");
    assert_eq!(fraction(&p(36, 36)), "1");
    assert_eq!(
        fraction(&Ratio::new(BigInt::from(-7), BigInt::from(2))),
        "-7/2"
    );
}

#[test]
fn percentages_never_round_to_certainty() {
    assert_eq!(percent(&shown(1, 36)), "2.78%");
    assert_eq!(percent(&shown(1, 1_000_000)), "<0.01%");
    assert_eq!(percent(&shown(999_999, 1_000_000)), ">99.99%");
    assert_eq!(percent(&shown(1, 1)), "100.00%");
    assert_eq!(percent(&shown(0, 1)), "0%");
    assert_eq!(percent_number(&shown(1, 36)), "2.777778");
    assert_eq!(percent_number(&shown(1, 1)), "100");
}

#[test]
fn decimals_keep_tiny_probabilities_visible() {
    assert_eq!(decimal(&shown(1, 36), 4), "0.0278");
    assert_eq!(decimal(&shown(1, 1_000_000), 4), "1.000e-6");
    assert_eq!(decimal(&shown(1, 1), 4), "1");
    assert_eq!(decimal(&shown(99_999, 100_000), 4), ">0.9999");
    let far = Shown {
        fraction: format!("3/1{}", "0".repeat(400)),
        value: 0.0,
    };
    assert_eq!(decimal(&far, 3), "3.00e-400");
}

#[test]
fn csv_quotes_what_needs_it() {
    assert_eq!(csv_field("12"), "12");
    assert_eq!(csv_field(r#"(3, "bad")"#), r#""(3, ""bad"")""#);
}

#[test]
fn bars_scale_to_the_largest_in_eighths() {
    assert_eq!(bar(1.0, BAR_WIDTH), "█".repeat(BAR_WIDTH));
    assert_eq!(bar(0.5, BAR_WIDTH), "█".repeat(BAR_WIDTH / 2));
    // 1/240 of the width is one eighth of a cell.
    assert_eq!(bar(1.0 / 240.0, BAR_WIDTH), "▏");
    assert_eq!(bar(0.0001, BAR_WIDTH), "");
    assert_eq!(bar(1.0, 12), "█".repeat(12));
}

#[test]
fn rows_close_at_one_on_both_sides() {
    let r = result("2d6", Limits::default());
    let odds = Odds::new("2d6", &r, 20);
    let rows: Vec<Row> = odds.rows().collect();
    assert_eq!(rows.len(), 11);
    assert_eq!(rows[0].at_least.fraction, "1");
    assert_eq!(rows[0].at_most.fraction, "1/36");
    assert_eq!(rows[5].probability.fraction, "1/6");
    assert_eq!(rows[5].at_least.fraction, "7/12");
    assert_eq!(rows[10].at_most.fraction, "1");
    let m = odds.moments.as_ref().unwrap();
    assert_eq!(fraction(&m.mean), "7");
    assert_eq!(fraction(&m.variance), "35/6");
}

#[test]
fn true_false_results_count_true_as_one() {
    let r = result("(1d4)=4", Limits::default());
    let odds = Odds::new("(1d4)=4", &r, 20);
    assert_eq!(odds.rows().next().unwrap().outcome, Value::Bool(false));
    let m = odds.moments.as_ref().unwrap();
    assert_eq!(fraction(&m.mean), "1/4");
    assert_eq!(m.median, Value::Bool(false));
    assert_eq!(odds.modes, [Value::Bool(false)]);
}

#[test]
fn ties_list_every_mode() {
    let r = result("3d6", Limits::default());
    let text = render(&Odds::new("3d6", &r, 20), table);
    assert!(text.contains("\nmodes               10, 11\n"), "{text}");
}

#[test]
fn a_depth_limit_warning_shortens_a_long_fraction() {
    let r = result("30d6!", Limits::default());
    let odds = Odds::new("30d6!", &r, 20);
    let full = odds.depth_limit_note().unwrap();
    assert!(full.len() > 100, "{full}");
    let short = odds.depth_limit_warning(false).unwrap();
    assert!(short.len() < 200, "{short}");
    assert!(
        short.contains("≈ ") && short.contains("--format json"),
        "{short}"
    );
    assert_eq!(odds.depth_limit_warning(true).unwrap(), full);
    // A short fraction stays exact.
    let r = result(
        "1d6!",
        Limits {
            explode_depth: 2,
            ..Limits::default()
        },
    );
    let odds = Odds::new("1d6!", &r, 2);
    assert_eq!(odds.depth_limit_warning(false), odds.depth_limit_note());
}

#[test]
fn depth_limit_is_reported_only_when_reached() {
    let r = result("2d6", Limits::default());
    assert!(Odds::new("2d6", &r, 20).depth_limit_note().is_none());
    let limits = Limits {
        explode_depth: 1,
        ..Limits::default()
    };
    let r = result("1d6!", limits);
    let odds = Odds::new("1d6!", &r, 1);
    assert_eq!(
        odds.depth_limit_note().unwrap(),
        "1/36 (2.78%): dice stop exploding after 1 extra; raise --explode-depth to lower it"
    );
    assert!(render(&odds, Odds::json).contains(r#""depth_limit_probability":"1/36""#));
    assert!(render(&odds, table).contains("\ndepth limit reached  1/36 (2.78%)"));
}

#[test]
fn table_lines_have_no_trailing_spaces() {
    for expression in ["4d6kh3", r#"if d4 = 1 then "a" else "longer""#] {
        let r = result(expression, Limits::default());
        let text = render(&Odds::new(expression, &r, 20), table);
        assert!(text.lines().all(|l| !l.ends_with(' ')), "{text}");
    }
}

#[test]
fn labels_are_aligned_left() {
    let expression = r#"if d4 = 1 then "a" else "longer""#;
    let r = result(expression, Limits::default());
    let odds = Odds::new(expression, &r, 20);
    let table = render(&odds, table);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("outcome  "), "{table}");
    assert!(lines[1].starts_with("a        "), "{table}");
    assert!(lines[2].starts_with("longer   "), "{table}");
    assert!(render(&odds, Odds::markdown).contains("\n|:--|--:|"));
}

#[test]
fn labels_and_tuples_are_json_strings_and_arrays() {
    let expression = r#"let x = d2; (x, if x = 1 then "one" else "two")"#;
    let r = result(expression, Limits::default());
    let text = render(&Odds::new(expression, &r, 20), Odds::json);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["outcomes"][0]["outcome"], serde_json::json!([1, "one"]));
    assert_eq!(v["outcomes"][1]["at_least"], "1/2");
    assert_eq!(v["mode"], serde_json::json!([[1, "one"], [2, "two"]]));
    assert!(v["mean"].is_null() && v["median"].is_null());
    assert!(v.get("expected_steps").is_none());
}

#[test]
fn absorb_shows_its_expected_steps() {
    let expression = "fn step(s) = if s = 0 or s = 4 then s else s + (if d2 = 1 then -1 else 1); absorb(step, 1)";
    let r = result(expression, Limits::default());
    let odds = Odds::new(expression, &r, 20);
    // From 1 between walls at 0 and 4, a fair walk takes 1 × 3 steps on average.
    let table = render(&odds, table);
    let steps = table.lines().find(|l| l.starts_with("expected steps"));
    assert_eq!(
        steps.map(|l| l.split_whitespace().last()),
        Some(Some("3")),
        "{table}"
    );
    assert!(render(&odds, Odds::markdown).contains("\n- expected steps: 3\n"));
    assert!(render(&odds, Odds::json).contains(r#""expected_steps":"3""#));
}
