//! The README's language tour and the language reference's examples, run.

use omen_core::ratio_to_f64;
use omen_lang::{Options, ValueDistribution, compile, exact};

fn read(path: &str) -> String {
    let full = format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// Checks that `source` has the stated mean: an exact fraction, or `≈ x` to the digits shown.
fn check_mean(source: &str, stated: &str) {
    let options = Options::default();
    let compiled = compile(source, &options)
        .unwrap_or_else(|d| panic!("`{source}`: {}", omen_lang::diagnostic::render(source, &d)));
    let result = exact(&compiled.program, &options.limits).expect("exact");
    let mean = result
        .distribution
        .number_statistics()
        .unwrap_or_else(|| panic!("`{source}` is not a number"))
        .mean;
    if let Some(approx) = stated.strip_prefix('≈') {
        let approx = approx.trim();
        let decimals = approx.split('.').nth(1).map_or(0, str::len);
        let shown = format!("{:.*}", decimals, ratio_to_f64(&mean));
        assert_eq!(shown, approx, "`{source}` mean");
    } else {
        assert_eq!(mean.to_string(), stated, "`{source}` mean");
    }
}

#[test]
fn readme_tour_rows_hold() {
    let readme = read("README.md");
    let start = readme
        .find("<!-- tour:start -->")
        .expect("tour start marker");
    let end = readme.find("<!-- tour:end -->").expect("tour end marker");
    let mut rows = 0;
    for line in readme[start..end].lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | `expr` | meaning | mean |
        if cells.len() < 4 || !cells[1].starts_with('`') {
            continue;
        }
        let source = cells[1].trim_matches('`');
        check_mean(source, cells[3]);
        rows += 1;
    }
    assert!(rows >= 20, "only {rows} tour rows found");
}

/// The reference's examples: fenced ```omen blocks whose lines read `EXPR → mean M`,
/// `EXPR → P(true) P`, `EXPR → P(OUTCOME) P`, `EXPR → error KIND` or `EXPR → warning KIND`.
#[test]
fn language_reference_examples_hold() {
    let doc = read("docs/language.md");
    let mut in_block = false;
    let mut checked = 0;
    for line in doc.lines() {
        if line.trim_start().starts_with("```") {
            in_block = line.trim() == "```omen";
            continue;
        }
        if !in_block || line.trim().is_empty() {
            continue;
        }
        let (source, claim) = line
            .split_once('→')
            .unwrap_or_else(|| panic!("example line without `→`: {line}"));
        let (source, claim) = (source.trim(), claim.trim());
        let options = Options::default();
        // `P(VALUE) p` may hold spaces inside its brackets; the other claims are `WORD VALUE`.
        let (what, value) = match claim
            .strip_prefix("P(")
            .and_then(|rest| rest.split_once(") "))
        {
            Some((inside, p)) if inside != "true" => ("P(…)", (inside, p)),
            _ => {
                let (w, v) = claim.split_once(' ').expect("claim and value");
                (w, ("", v))
            }
        };
        let (outcome, value) = value;
        match what {
            "mean" => check_mean(source, value),
            "P(true)" => {
                let c = compile(source, &options).expect("compiles");
                let r = exact(&c.program, &options.limits).expect("exact");
                let ValueDistribution::Bool(d) = r.distribution else {
                    panic!("`{source}` is not true/false");
                };
                assert_eq!(d.probability(&true).to_string(), value, "`{source}`");
            }
            "error" => {
                let errors = match compile(source, &options) {
                    Err(d) => d,
                    Ok(c) => vec![exact(&c.program, &options.limits).expect_err("an error")],
                };
                assert!(
                    errors.iter().any(|d| d.kind == value),
                    "`{source}`: expected {value}, got {errors:?}"
                );
            }
            "P(…)" => {
                // The exact probability of one outcome: a number, false or "label".
                let outcome = omen_lang::parse_param_value(outcome);
                let c = compile(source, &options).unwrap_or_else(|d| {
                    panic!("`{source}`: {}", omen_lang::diagnostic::render(source, &d))
                });
                let r = exact(&c.program, &options.limits).expect("exact");
                let d = r.distribution.values();
                assert_eq!(d.probability(&outcome).to_string(), value, "`{source}`");
            }
            "warning" => {
                let c = compile(source, &options).expect("compiles");
                assert!(c.warnings.iter().any(|d| d.kind == value), "`{source}`");
            }
            other => panic!("unknown claim {other} in: {line}"),
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} reference examples found");
}

/// docs/dialects.md: fenced blocks named after a dialect (or `omen`) whose lines read
/// `EXPR → reading R`, `EXPR → mean M`, `EXPR → error KIND` or `EXPR → warning KIND`, each checked in that
/// dialect; every dialect has examples.
#[test]
fn dialect_reference_examples_hold() {
    use omen_lang::syntax::Dialect;
    let doc = read("docs/dialects.md");
    let mut dialect: Option<&'static Dialect> = None;
    let mut checked = std::collections::BTreeMap::<&str, usize>::new();
    for line in doc.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            dialect = Dialect::named(info.trim()).filter(|_| !info.trim().is_empty());
            continue;
        }
        let Some(dialect) = dialect else { continue };
        if line.trim().is_empty() {
            continue;
        }
        let (source, claim) = line
            .split_once('→')
            .unwrap_or_else(|| panic!("example line without `→`: {line}"));
        let (source, claim) = (source.trim(), claim.trim());
        let (what, value) = claim.split_once(' ').expect("claim and value");
        let options = Options {
            dialect,
            ..Options::default()
        };
        let compiled = compile(source, &options);
        match what {
            "reading" => {
                let c = compiled.unwrap_or_else(|d| {
                    panic!(
                        "{}: `{source}`: {}",
                        dialect.name,
                        omen_lang::diagnostic::render(source, &d)
                    )
                });
                assert_eq!(c.reading, value, "{}: `{source}`", dialect.name);
            }
            "mean" => {
                let c = compiled.unwrap_or_else(|d| panic!("{}: `{source}`: {d:?}", dialect.name));
                let r = exact(&c.program, &options.limits).expect("exact");
                let stats = r
                    .distribution
                    .number_statistics()
                    .unwrap_or_else(|| panic!("`{source}` is not a number"));
                assert_eq!(
                    stats.mean.to_string(),
                    value,
                    "{}: `{source}`",
                    dialect.name
                );
            }
            "error" => {
                // Refused when compiled, or (a division by a value that can be 0) when run.
                let errors = match compiled {
                    Err(d) => d,
                    Ok(c) => vec![
                        exact(&c.program, &options.limits)
                            .err()
                            .unwrap_or_else(|| panic!("`{source}` compiles and runs")),
                    ],
                };
                assert!(
                    errors.iter().any(|d| d.kind == value),
                    "{}: `{source}`: expected {value}, got {errors:?}",
                    dialect.name
                );
            }
            "warning" => {
                let c = compiled.unwrap_or_else(|d| panic!("`{source}`: {d:?}"));
                assert!(
                    c.warnings.iter().any(|d| d.kind == value),
                    "{}: `{source}`: expected {value}, got {:?}",
                    dialect.name,
                    c.warnings
                );
            }
            other => panic!("unknown claim {other} in: {line}"),
        }
        *checked.entry(dialect.name).or_default() += 1;
    }
    for name in Dialect::names() {
        assert!(
            checked.get(name).is_some_and(|&n| n >= 3),
            "{name}: {checked:?}"
        );
    }
}
