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
