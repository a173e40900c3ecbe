//! AnyDice and Omen agree where both can say a thing, and AnyDice programs fuzzed through the
//! parser and the interpreter: nothing panics, every error has a span inside the source, and every
//! run stays within small limits.

use std::time::{Duration, Instant};

use omen_core::Limits;
use omen_lang::{Options, ValueDistribution, anydice, compile, exact};
use proptest::prelude::*;

/// Omen's own reading of an expression, as an integer distribution.
fn omen(expr: &str) -> omen_core::Distribution<i64> {
    let options = Options::default();
    let compiled = compile(expr, &options).expect("omen compiles");
    match exact(&compiled.program, &options.limits)
        .unwrap()
        .distribution
    {
        ValueDistribution::Int(d) => d,
        other => panic!("{expr} is not an integer distribution: {other:?}"),
    }
}

fn anydice_output(program: &str) -> omen_core::Distribution<i64> {
    let mut run = anydice::run(program, &Limits::default()).expect("anydice runs");
    run.outputs.remove(0).distribution.expect("an output")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn ndx_is_omens_ndx(n in 1usize..6, x in 1i64..13) {
        let program = format!("output {n}d{x}");
        prop_assert_eq!(anydice_output(&program), omen(&format!("{n}d{x}")));
    }

    #[test]
    fn highest_k_of_ndx_is_omens_keep_highest(n in 1usize..6, x in 2i64..9, k in 1usize..6) {
        let k = k.min(n);
        let program = format!("output [highest {k} of {n}d{x}]");
        prop_assert_eq!(anydice_output(&program), omen(&format!("{n}d{x}kh{k}")));
        let program = format!("output [lowest {k} of {n}d{x}]");
        prop_assert_eq!(anydice_output(&program), omen(&format!("{n}d{x}kl{k}")));
    }

    #[test]
    fn a_position_is_the_die_at_that_rank(n in 1usize..6, x in 2i64..6, r in 1usize..6) {
        // Against every roll, sorted highest first.
        let r = r.min(n);
        let program = format!("output {r}@{n}d{x}");
        let faces: Vec<i64> = (1..=x).collect();
        let want = super::anydice::enumerate(n, &faces, |roll| {
            let mut sorted = roll.to_vec();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            Some(sorted[r - 1])
        });
        let got = anydice_output(&program);
        let got: std::collections::BTreeMap<i64, omen_core::Probability> =
            got.entries().iter().map(|(o, w)| (*o, omen_core::Probability::new(w.clone(), got.total().clone()))).collect();
        prop_assert_eq!(got, want);
    }
}

/// Pieces of AnyDice programs, glued at random: most are nonsense, some run.
const PIECES: &[&str] = &[
    "output",
    "named",
    "\"x [N]\"",
    "function:",
    "f",
    "X:n",
    "S:s",
    "D:d",
    "N",
    "X",
    "S",
    "D",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "result:",
    "loop",
    "over",
    "if",
    "else",
    "set",
    "\"explode depth\"",
    "\"position order\"",
    "\"lowest first\"",
    "to",
    "d",
    "3d6",
    "d{}",
    "{1..3}",
    "{1:2}",
    "..",
    ":",
    ",",
    "+",
    "-",
    "*",
    "/",
    "^",
    "@",
    "#",
    "!",
    "&",
    "|",
    "=",
    "!=",
    "<",
    ">=",
    "0",
    "1",
    "2",
    "20",
    "-1",
    "[highest 1 of 2d6]",
    "[explode d4]",
    "[f X]",
    "[f d6]",
    "\\ c \\",
    "\\",
    "legacy",
    "N:",
    "X:",
    "9999999999",
    "d-2",
    "2d{1,2}",
];

fn small_limits() -> Limits {
    Limits {
        max_dice: 40,
        max_sides: 100,
        max_outcomes: 20_000,
        max_states: 200_000,
        work_budget: 20_000_000,
        ..Limits::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fuzzed_programs_never_panic_and_stay_bounded(
        pieces in proptest::collection::vec(0..PIECES.len(), 0..40)
    ) {
        let source: String = pieces.iter().map(|&i| PIECES[i]).collect::<Vec<_>>().join(" ");
        let started = Instant::now();
        let source_for_thread = source.clone();
        let result = std::thread::Builder::new()
            .stack_size(omen_lang::STACK_BYTES)
            .spawn(move || anydice::run(&source_for_thread, &small_limits()))
            .unwrap()
            .join();
        prop_assert!(result.is_ok(), "panicked on {}", source);
        if let Err(diagnostics) = result.unwrap() {
            for d in diagnostics {
                prop_assert!(d.span.end <= source.len(), "span outside {}", source);
            }
        }
        prop_assert!(started.elapsed() < Duration::from_secs(10), "slow: {}", source);
    }

    #[test]
    fn arbitrary_text_never_panics(source in "\\PC{0,80}") {
        let _ = anydice::check(&source);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_translation_means_what_the_program_means(
        n in 1usize..5, x in 2i64..8, k in 0usize..5, c in -3i64..4, faces in proptest::collection::vec(-2i64..5, 1..4)
    ) {
        let list = faces.iter().map(ToString::to_string).collect::<Vec<_>>().join(",");
        let programs = [
            format!("output {n}d{x}"),
            format!("output [highest {k} of {n}d{x}] + {c}"),
            format!("output [lowest {k} of {n}d{{{list}}}] * 2"),
            format!("X: d{x}\noutput X + X - {c} named \"sum\""),
        ];
        for program in programs {
            let translations = anydice::translate(&program).expect("parses");
            let spelled = translations[0].omen.clone().expect("translates");
            prop_assert_eq!(anydice_output(&program), omen(&spelled), "{} as {}", program, spelled);
        }
    }
}

#[test]
fn what_has_no_omen_spelling_says_why() {
    let t = anydice::translate(
        "output {1,2} >= 1\noutput 3d6 / 2\noutput [highest 2 of 4d6] named \"best\"",
    )
    .unwrap();
    assert!(t[0].omen.is_err() && t[1].omen.is_err());
    assert_eq!(t[2].label, "best");
    assert_eq!(t[2].omen.as_deref(), Ok("4d6kh2"));
}
