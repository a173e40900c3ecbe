//! The canonical reading: it parses back to the same tree in Omen's notation, from whatever dialect it
//! came; in Omen's notation, an expression another popular dialect reads differently always warns; and
//! no input makes any dialect panic (a bounded fuzz).

use omen_lang::syntax::dialect::{DIALECTS, OMEN};
use omen_lang::syntax::{Dialect, ParseLimits, parse_with, render};
use omen_lang::{Options, compile};
use proptest::prelude::*;

/// The reading of `source` in `dialect` and the warnings, or `None` when it does not parse.
fn reading(source: &str, dialect: &'static Dialect) -> Option<(String, usize)> {
    let parsed = parse_with(source, &ParseLimits::default(), dialect).ok()?;
    Some((render::script(&parsed.script), parsed.warnings.len()))
}

fn modifier() -> impl Strategy<Value = String> {
    let n = 1..7i64;
    (
        prop::sample::select(vec![
            "kh", "kl", "k", "d", "dh", "dl", "r", "ro", "rr", "r<", "r<=", "ro<", "!", "!>",
            "!>=", "!!", ">", "<", ">=", "<=", "=", "f", "f<", "min", "max", "cs>", "x", "!p",
            "!!p", "!p>", "cs", "cf", "cf<", "cf-", "cf=", "cs-", "sa", "sd", "even", "sf<", "k>",
            "p", "m", "mt", "m>", "mt>=", "u", "uo", "u=", "uo<", "!<>", "ro<>", "cs<>", "u<>",
        ]),
        n,
    )
        .prop_map(|(word, n)| match word {
            "!" | "!!" | "x" | "!p" | "!!p" | "cs" | "cf" | "sa" | "sd" | "even" | "m" | "u"
            | "uo" => word.to_string(),
            _ => format!("{word}{n}"),
        })
}

fn dice_term() -> impl Strategy<Value = String> {
    (
        prop::option::of(1..6i64),
        prop::sample::select(vec!["4", "6", "8", "10", "20", "F", "%"]),
        prop::collection::vec(modifier(), 0..3),
    )
        .prop_map(|(count, sides, mods)| {
            let count = count.map_or(String::new(), |c| c.to_string());
            format!("{count}d{sides}{}", mods.concat())
        })
}

/// Glued expressions: dice terms, groups, arithmetic and comparisons, written the way players type
/// them in every dialect.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => dice_term(),
        1 => (0..20i64).prop_map(|n| n.to_string()),
        1 => (dice_term(), prop::sample::select(vec!["kh1", "kl1", ">3", ">=10", "d1"]))
            .prop_map(|(d, m)| format!("{{{d}}}{m}")),
        1 => (dice_term(), dice_term()).prop_map(|(a, b)| format!("{{{a},{b}}}kh1")),
    ];
    leaf.prop_recursive(3, 8, 2, |inner| {
        (
            inner.clone(),
            prop::sample::select(vec!["+", "-", "*", "/", " + ", " > ", " >= "]),
            inner,
        )
            .prop_map(|(a, op, b)| format!("{a}{op}{b}"))
    })
}

/// Whether `source` has the same exact distribution read in Omen's notation and in `dialect`: a
/// reading written otherwise (`foundry("1d4dl1dl1")` for `d4dl1dl1`) may mean the same. When either
/// is not computed, they are taken to differ.
fn same_meaning(source: &str, dialect: &'static Dialect) -> bool {
    let distribution = |dialect| {
        let options = Options {
            dialect,
            ..Options::default()
        };
        let checked = compile(source, &options).ok()?;
        omen_lang::exact(&checked.program, &options.limits)
            .ok()
            .map(|e| e.distribution)
    };
    matches!((distribution(&OMEN), distribution(dialect)), (Some(a), Some(b)) if a == b)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Whatever dialect parsed it, the reading parses back in Omen's notation to the same tree: rendering
    /// that parse gives the reading again, and it compiles whenever the original did.
    #[test]
    fn the_reading_parses_back_to_the_same_tree(source in expression()) {
        for &dialect in &DIALECTS {
            let options = Options { dialect, ..Options::default() };
            if compile(&source, &options).is_err() {
                continue;
            }
            let Some((first, _)) = reading(&source, dialect) else { continue };
            let (second, _) = reading(&first, &OMEN)
                .unwrap_or_else(|| panic!("{}: `{source}` read as `{first}`, which does not parse", dialect.name));
            prop_assert_eq!(&second, &first, "{}: `{}`", dialect.name, source);
            prop_assert!(
                compile(&first, &Options::default()).is_ok(),
                "{}: `{}` compiles but its reading `{}` does not", dialect.name, source, first
            );
        }
    }

    /// In Omen's notation, an expression written without spaces that Roll20, Foundry or rpg-dice-roller
    /// accepts with another meaning always warns. (With spaces around an operator, Omen's documented rule
    /// applies: whitespace ends a dice term.)
    #[test]
    fn the_default_dialect_warns_where_a_popular_dialect_reads_differently(source in expression()) {
        if source.contains(' ') {
            return Ok(());
        }
        let Ok(checked) = compile(&source, &Options::default()) else { return Ok(()) };
        let Some((ours, _)) = reading(&source, &OMEN) else { return Ok(()) };
        let warnings = checked.warnings.len();
        for name in ["roll20", "foundry", "rpg-dice-roller"] {
            let dialect = Dialect::named(name).expect("a dialect");
            let accepted = compile(&source, &Options { dialect, ..Options::default() }).is_ok();
            if let Some((theirs, _)) = reading(&source, dialect).filter(|_| accepted)
                && theirs != ours
                && !same_meaning(&source, dialect)
            {
                prop_assert!(
                    warnings > 0,
                    "`{}` reads as `{}` in Omen and as `{}` in {}, without a warning", source, ours, theirs, name
                );
            }
        }
    }

    /// Hostile input in any dialect: an answer, never a panic.
    #[test]
    fn no_input_makes_a_dialect_panic(source in "[0-9dDfFkhlrox!<>=%.,{}()\\[\\] +*/^#a-z\u{2212}]{0,40}") {
        for &dialect in &DIALECTS {
            let options = Options { dialect, ..Options::default() };
            let _ = compile(&source, &options);
        }
    }
}

#[test]
fn readings_of_the_issues_examples() {
    let cases = [
        ("omen", "3d6 > 2d10", "(3d6) > (2d10)"),
        ("omen", "10d6 > 10d6", "(10d6) > (10d6)"),
        (
            "omen",
            "1d20 + 5 + 1d4 >= 15",
            "(((1d20) + 5) + (1d4)) >= 15",
        ),
        ("omen", "4d6khro1", "4d6kh1ro=1"),
        ("omen", "dFro-1", "dFro=-1"),
        ("omen", "3d6kh2dl1", "3d6kh2dl1"),
        ("roll20", "3d6>3", "3d6>=3"),
        ("roll20", "{5d6!!}>8", "{d6!!, d6!!, d6!!, d6!!, d6!!}>=8"),
        ("foundry", "1d20r1", "1d20ro=1"),
        ("foundry", "4d6ms>=10", "(4d6) - 10"),
        ("avrae", "1d20 // 2", "(1d20) / 2"),
        ("dice-maiden", "6d10 t7 ! to hit", "6d10>=7"),
        ("dice-maiden", "1+2*3", "(1 + 2) * 3"),
        ("roll20", "4d6mt3>3", "4d6mt3>=3"),
        ("roll20", "3d6m", "3d6m"),
        ("rpg-dice-roller", "4d6u<3", "4d6u<3"),
        ("rpg-dice-roller", "2d10uo", "2d10uo"),
    ];
    for (dialect, source, want) in cases {
        let dialect = Dialect::named(dialect).expect("a dialect");
        let (got, _) =
            reading(source, dialect).unwrap_or_else(|| panic!("`{source}` does not parse"));
        assert_eq!(got, want, "{}: `{source}`", dialect.name);
    }
}

#[test]
fn the_default_dialect_names_the_other_reading_and_the_plain_spelling() {
    let warned = |source: &str| -> Vec<(String, String)> {
        let parsed = parse_with(source, &ParseLimits::default(), &OMEN).expect("parses");
        parsed
            .warnings
            .into_iter()
            .map(|w| (w.message, w.help.unwrap_or_default()))
            .collect()
    };
    let w = warned("3d6>3");
    assert!(w[0].0.contains("in Roll20"), "{w:?}");
    assert!(
        w[0].1.contains("`>=4`") && w[0].1.contains("`>=3`"),
        "{w:?}"
    );
    let w = warned("1d20r1");
    assert!(w[0].0.contains("Foundry"), "{w:?}");
    assert!(
        w[0].1.contains("`rr1`") && w[0].1.contains("`ro1`"),
        "{w:?}"
    );
    let w = warned("4d6k3");
    assert!(
        w[0].0.contains("Avrae") && w[0].1.contains("`kh3`"),
        "{w:?}"
    );
    let w = warned("{4d6+3d8}kh1");
    assert!(w[0].0.contains("Roll20"), "{w:?}");
    let w = warned("1d20 // 2");
    assert!(w[0].0.contains("Avrae"), "{w:?}");
    let w = warned("dF!-1");
    assert!(w[0].1.contains("`!=-1`"), "{w:?}");
    // No warning where every dialect agrees.
    for source in [
        "4d6kh3",
        "2d20kl1",
        "3d6 > 2d10",
        "10d10>=8f1",
        "1d20ro1",
        "4d6rr1",
    ] {
        assert!(warned(source).is_empty(), "{source}: {:?}", warned(source));
    }
}

#[test]
fn typographic_look_alikes_get_a_hint() {
    for source in [
        "2d6 \u{2212} 1",
        "4d6\u{00D7}2",
        "\u{FF13}d6",
        "1d20 \u{2013} 2",
    ] {
        let errors = compile(source, &Options::default())
            .err()
            .expect("an error");
        assert!(
            errors
                .iter()
                .any(|e| e.help.as_deref().is_some_and(|h| h.contains("type"))),
            "{source}: {errors:?}"
        );
    }
}

/// `d4+d4cf-0`: Foundry counts the dice meeting a `cf` point (here none can), Omen marks them and keeps
/// the total, so the default dialect must warn.
#[test]
fn a_pointed_cf_that_foundry_counts_warns_in_the_default_dialect() {
    for source in ["d4+d4cf-0", "2d6cf<2", "1d20cf1"] {
        let checked = compile(source, &Options::default()).expect("compiles");
        assert!(
            checked
                .warnings
                .iter()
                .any(|d| d.kind == "critical-differs-in-foundry" && d.message.contains("`cf`")),
            "{source}: {:?}",
            checked.warnings
        );
        let foundry = Dialect::named("foundry").expect("a dialect");
        let theirs = reading(source, foundry).expect("Foundry reads it").0;
        let ours = reading(source, &OMEN).expect("Omen reads it").0;
        assert_ne!(theirs, ours, "{source}");
    }
    // Foundry counts the dice on the lowest face with a bare `cf` (`2d6=1`), so it warns too.
    let bare = compile("2d6cf", &Options::default()).expect("compiles");
    assert!(
        bare.warnings
            .iter()
            .any(|d| d.kind == "critical-differs-in-foundry"),
        "{:?}",
        bare.warnings
    );
}

/// Whitespace ends a dice term in Omen's notation, after a modifier that takes an optional point too:
/// `1d20! >= 10` explodes on 20 and compares the total, never "explode on 10 or more".
#[test]
fn a_spaced_compare_after_a_modifier_compares_the_total() {
    for (source, want) in [
        ("1d20! >= 10", "(1d20!) >= 10"),
        ("1d20cs >= 10", "(1d20cs) >= 10"),
        ("1d20ro >= 10", "(1d20ro=1) >= 10"),
        ("1d20! >=10", "(1d20!) >= 10"),
        ("1d20!>=10", "1d20!>=10"),
    ] {
        let checked = compile(source, &Options::default()).expect("compiles");
        assert_eq!(checked.reading, want, "{source}");
    }
}

/// A point written without a comparison (`cf-1`, `cs6`) that no face can meet gets a hint about the
/// point, never the spacing hint for a misplaced total comparison, which would name an empty operator.
#[test]
fn an_unreachable_point_without_a_comparison_names_the_point() {
    let foundry = Options {
        dialect: Dialect::named("foundry").expect("a dialect"),
        ..Options::default()
    };
    let checked = compile("d4cf-1d4+d4", &foundry).expect("compiles");
    let warning = checked
        .warnings
        .iter()
        .find(|d| d.kind == "unreachable-success")
        .expect("the point cannot be met");
    let help = warning.help.as_deref().expect("a hint");
    assert!(!help.contains("``"), "{help}");
    assert!(help.contains("`cf-1` is read as the point `=-1`"), "{help}");
}

/// A not-equal point after a modifier reads as `<>` (after `!`, `!=` would read as `!!` then `=`) and
/// that reading parses back to itself in Omen's notation; straight after dice `<>` stays an error.
#[test]
fn not_equal_points_round_trip() {
    use omen_lang::syntax::dialect::{FOUNDRY, RPG_DICE_ROLLER};
    for (source, expected) in [
        ("2d6!<>4", "2d6!<>4"),
        ("2d6!!<>4", "2d6!!<>4"),
        ("4d6ro<>3", "4d6ro<>3"),
        ("5d6cs<>6", "5d6cs<>6"),
        ("4d6u<>5", "4d6u<>5"),
    ] {
        let (read, _) = reading(source, &RPG_DICE_ROLLER).expect(source);
        assert_eq!(read, expected, "{source}");
        let (again, _) = reading(&read, &OMEN).expect(&read);
        assert_eq!(again, read, "{source}");
    }
    // Only where the source documents it, and never straight after dice.
    assert!(reading("2d6!<>4", &FOUNDRY).is_none());
    assert!(reading("3d6<>10", &RPG_DICE_ROLLER).is_none());
    assert!(reading("3d6<>10", &OMEN).is_none());
}

/// `0+d4!<>1`: Omen explodes the dice that are not 1; Roll20 and Foundry have no not-equal point, end the
/// dice term at `<>` and compare the total, so the default dialect must warn, in every spelling and
/// after every modifier that takes a point.
#[test]
fn a_not_equal_point_that_roll20_reads_as_a_total_comparison_warns() {
    for source in [
        "0+d4!<>1",
        "0+d4ro<>1",
        "2+3d6r<>3",
        "1+4d6u<>2",
        "1+d20!!<>20",
    ] {
        let checked = compile(source, &Options::default()).expect("compiles");
        assert!(
            checked
                .warnings
                .iter()
                .any(|d| d.kind == "not-equal-point-differs-in-roll20"),
            "{source}: {:?}",
            checked.warnings
        );
        let ours = reading(source, &OMEN).expect("Omen reads it").0;
        for name in ["roll20", "foundry"] {
            let dialect = Dialect::named(name).expect("a dialect");
            if let Some((theirs, _)) = reading(source, dialect) {
                assert_ne!(theirs, ours, "{name}: {source}");
                assert!(theirs.contains("!="), "{name}: {source} read as {theirs}");
            }
        }
    }
    // rpg-dice-roller has the point too, and warns about nothing.
    let rdr = Dialect::named("rpg-dice-roller").expect("a dialect");
    let (_, warnings) = reading("0+d4!<>1", rdr).expect("rpg-dice-roller reads it");
    assert_eq!(warnings, 0);
}
