//! What the dialect tests that walk a roller's procedure share: Omen's distribution under a dialect
//! up to a total the explosion depth cannot cut, the roller walked along every sequence of dice,
//! and the reading line.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_traits::Zero;
use omen_lang::{Value, compile};

use crate::dialects::{Fractions, Q, omen, options, q};
use crate::support;

/// Omen's distribution of `source` read as `dialect` up to `bound`, each total that has any
/// probability.
pub fn up_to(dialect: &str, source: &str, bound: i64) -> Fractions {
    let all = omen(dialect, source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    all.into_iter()
        .filter(|(total, _)| *total <= q(bound, 1))
        .collect()
}

/// The exact engine's distribution of `source` read as `dialect` and the roller walked along every
/// sequence of dice (at most 200,000) agree.
pub fn roller_agrees(dialect: &str, source: &str) {
    let exact: Fractions = omen(dialect, source).expect("computed");
    assert_eq!(rolled(dialect, source, 200_000), exact, "{source}");
}

/// What the roller gives for `source` read as `dialect` along every sequence of dice, at most
/// `walks` of them.
pub fn rolled(dialect: &str, source: &str, walks: usize) -> Fractions {
    let options = options(dialect);
    let program = compile(source, &options).expect("compiles").program;
    let sampled = support::brute_force(&program, &options.limits, walks).expect("small");
    let mut out: BTreeMap<Q, Q> = BTreeMap::new();
    for (v, p) in sampled {
        let Value::Int(v) = v else {
            panic!("{source}: {v:?}")
        };
        let p = Q::new(
            BigInt::from(p.numer().clone()),
            BigInt::from(p.denom().clone()),
        );
        *out.entry(q(v, 1)).or_insert_with(Q::zero) += p;
    }
    out
}

/// The reading line of `source` read as `dialect`.
pub fn reading(dialect: &str, source: &str) -> String {
    match compile(source, &options(dialect)) {
        Ok(checked) => checked.reading,
        Err(errors) => panic!("{source}: {errors:?}"),
    }
}

/// Every sequence of `n` faces of a die with faces 1 to `sides`, each as likely as the others.
pub fn every_roll(n: u32, sides: i64) -> Vec<Vec<i64>> {
    (0..n).fold(vec![Vec::new()], |out, _| {
        out.into_iter()
            .flat_map(|r| {
                (1..=sides).map(move |f| {
                    let mut r = r.clone();
                    r.push(f);
                    r
                })
            })
            .collect()
    })
}
