//! Shared helpers for the integration tests: compile, evaluate, and enumerate every dice path.

use std::collections::BTreeMap;

use omen_core::{CoreError, Die, DieSource, Limits, Probability, Weight};
use omen_lang::{Options, Program, Value, compile, exact, sample};

pub fn options_with_depth(depth: u64) -> Options {
    Options {
        limits: Limits {
            explode_depth: depth,
            ..Limits::default()
        },
        ..Options::default()
    }
}

pub fn program(source: &str, options: &Options) -> Program {
    match compile(source, options) {
        Ok(c) => c.program,
        Err(diags) => panic!(
            "{source} does not compile:\n{}",
            omen_lang::diagnostic::render(source, &diags)
        ),
    }
}

/// The exact distribution as probabilities per value.
pub fn exact_map(program: &Program, options: &Options) -> BTreeMap<Value, Probability> {
    let result = exact(program, &options.limits).expect("exact evaluation");
    let d = result.distribution.values();
    d.entries()
        .iter()
        .map(|(o, w)| (o.clone(), Probability::new(w.clone(), d.total().clone())))
        .collect()
}

/// A dice source that follows a path of face indices and records every die's face count, so that
/// every sequence of rolls can be enumerated like an odometer.
struct PathSource {
    path: Vec<u64>,
    faces: Vec<u64>,
    pos: usize,
}

impl DieSource for PathSource {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        if self.pos == self.path.len() {
            self.path.push(0);
        }
        let n = die.face_count();
        self.faces.truncate(self.pos);
        self.faces.push(n);
        let index = self.path[self.pos];
        self.pos += 1;
        Ok(die.face(index))
    }
}

/// The distribution found by running the sampler on every possible sequence of dice, each sequence
/// weighted by the product of 1/faces. `None` when there are more than `max_paths` sequences.
pub fn brute_force(
    program: &Program,
    limits: &Limits,
    max_paths: usize,
) -> Option<BTreeMap<Value, Probability>> {
    let mut out: BTreeMap<Value, Probability> = BTreeMap::new();
    let mut path: Vec<u64> = Vec::new();
    for _ in 0..max_paths {
        let mut source = PathSource {
            path: path.clone(),
            faces: Vec::new(),
            pos: 0,
        };
        let roll = sample(program, limits, &mut source).expect("sampling along a path");
        let used = source.pos;
        let mut p = Probability::new(Weight::from(1u32), Weight::from(1u32));
        for &n in &source.faces[..used] {
            p /= Probability::from_integer(Weight::from(n));
        }
        *out.entry(roll.result.clone())
            .or_insert_with(|| Probability::new(Weight::from(0u32), Weight::from(1u32))) += p;
        // Advance the odometer over the dice actually used by this path.
        path = source.path[..used].to_vec();
        let faces = &source.faces[..used];
        loop {
            let i = match path.len() {
                0 => return Some(out),
                n => n - 1,
            };
            if path[i] + 1 < faces[i] {
                path[i] += 1;
                break;
            }
            path.pop();
        }
    }
    None
}

/// Chi-square statistic of `rolls` seeded rolls of `source` against its exact distribution, bins of
/// small expected count merged so the approximation holds; (statistic, degrees of freedom). A roll
/// the exact engine calls impossible fails the test.
pub fn chi_square(source: &str, seed: u64, rolls: usize) -> (f64, usize) {
    let options = Options::default();
    let p = program(source, &options);
    let exact = exact_map(&p, &options);
    let mut counts = BTreeMap::<Value, usize>::new();
    let mut dice = omen_core::ChaChaDice::from_seed(seed);
    for _ in 0..rolls {
        let roll = sample(&p, &options.limits, &mut dice).expect("roll");
        assert!(
            exact.contains_key(&roll.result),
            "{source}: impossible result {}",
            roll.result
        );
        *counts.entry(roll.result).or_default() += 1;
    }
    let (mut stat, mut bins) = (0.0, 0usize);
    let (mut expected, mut observed) = (0.0, 0.0);
    for (value, q) in &exact {
        expected += omen_core::probability_to_f64(q) * rolls as f64;
        observed += *counts.get(value).unwrap_or(&0) as f64;
        if expected >= 10.0 {
            stat += (observed - expected).powi(2) / expected;
            bins += 1;
            (expected, observed) = (0.0, 0.0);
        }
    }
    if expected > 0.0 {
        stat += (observed - expected).powi(2) / expected.max(1e-9);
        bins += 1;
    }
    (stat, bins.max(2) - 1)
}

/// The chi-square quantile for a one-in-a-million tail (Wilson–Hilferty approximation).
pub fn chi_square_critical(df: usize) -> f64 {
    let k = df as f64;
    let z = 4.753; // standard normal quantile at 1 − 10⁻⁶
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}
