//! Foundry VTT's dice modifiers run the way its `Die` and `DiceTerm` classes run them, written here
//! from Foundry's procedure and never from Omen: a list of results, each with the face rolled,
//! whether it is active, what it counts once a clamp or count set it, and its success and failure
//! flags; modifiers applied in the order written; rerolls and explosions walking the list by index,
//! new results at the end, a cap spent on the earliest results meeting the point; keeps and drops
//! sorting the active faces, cutting at the number and discarding ties earliest first. The walk
//! tries every sequence of faces, each weighted by 1/sides per die rolled, and cuts a sequence that
//! rolls more than a set number of dice, reporting the mass it cut.

use crate::dialects::{Fractions, Q};
use crate::tape::{Stop, Tape, every_sequence};

/// A comparison as Foundry writes it, and its target.
#[derive(Clone, Copy, Debug)]
pub struct Pt(pub &'static str, pub i64);

impl Pt {
    fn holds(self, face: i64) -> bool {
        match self.0 {
            "=" => face == self.1,
            "<" => face < self.1,
            "<=" => face <= self.1,
            ">" => face > self.1,
            ">=" => face >= self.1,
            other => panic!("not a Foundry comparison: {other}"),
        }
    }
}

/// What a modifier does, as Foundry's method for it does.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Reroll(Option<usize>, Pt, bool),
    Explode(Option<usize>, Pt, bool),
    Keep(usize, bool),
    Drop(usize, bool),
    Min(i64),
    Max(i64),
    CountSuccess(Pt),
    CountFailure(Pt),
    Deduct(Option<Pt>),
    Subtract(Option<Pt>),
    Even,
    Odd,
    MarginSuccess(i64),
    MarginFailure(i64),
}

/// A modifier as written, and what it does.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    pub text: &'static str,
    pub kind: Kind,
}

/// The modifier names, longest first, as Foundry splits names run together.
const NAMES: [&str; 19] = [
    "even", "min", "max", "odd", "rr", "xo", "kh", "kl", "dh", "dl", "cs", "cf", "df", "sf", "ms",
    "r", "x", "k", "d",
];

/// Whether Foundry reads the modifiers written one after another as these modifiers: a bare one
/// runs into the letters after it, and the run is split longest name first (`r` then `r1` is
/// `rr1`, one modifier).
pub fn splits_as_written(ops: &[Op]) -> bool {
    let text: String = ops.iter().map(|op| op.text).collect();
    let mut names = Vec::new();
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let start = at;
        while at < b.len() && b[at].is_ascii_alphabetic() {
            at += 1;
        }
        let mut run = &text[start..at];
        while !run.is_empty() {
            let Some(n) = NAMES.iter().find(|n| run.starts_with(**n)) else {
                return false;
            };
            names.push(*n);
            run = &run[n.len()..];
        }
        while at < b.len() && !b[at].is_ascii_alphabetic() {
            at += 1;
        }
    }
    let written: Vec<&str> = ops
        .iter()
        .map(|op| op.text.trim_end_matches(|c: char| !c.is_ascii_alphabetic()))
        .collect();
    names == written
}

/// The term written in Foundry's notation.
pub fn written(count: usize, sides: i64, ops: &[Op]) -> String {
    let mut out = format!("{count}d{sides}");
    for op in ops {
        out.push_str(op.text);
    }
    out
}

#[derive(Clone, Debug)]
struct Res {
    result: i64,
    active: bool,
    count: Option<i64>,
    success: Option<bool>,
    failure: Option<bool>,
}

/// One result more, its face read from the tape.
fn roll(results: &mut Vec<Res>, tape: &mut Tape) -> Result<(), Stop> {
    results.push(Res {
        result: tape.roll()?,
        active: true,
        count: None,
        success: None,
        failure: None,
    });
    Ok(())
}

/// `Die#reroll` and `Die#explode`: the results walked by index, the new ones at the end.
fn walk(
    results: &mut Vec<Res>,
    cap: Option<usize>,
    point: Pt,
    recursive: bool,
    explode: bool,
    tape: &mut Tape,
) -> Result<(), Stop> {
    let mut max = cap;
    let initial = results.len();
    // Without `recursive`, only the results there at the start are checked, as Foundry documents
    // (its loop, when the last of them is inactive, goes on to a new result: not followed here).
    let mut i = 0;
    while i < if recursive { results.len() } else { initial } {
        if results[i].active {
            if max == Some(0) {
                break;
            }
            if point.holds(results[i].result) {
                if !explode {
                    results[i].active = false;
                }
                roll(results, tape)?;
                max = max.map(|m| m - 1);
            }
        }
        i += 1;
    }
    Ok(())
}

/// `DiceTerm._keepOrDrop`.
fn keep_or_drop(results: &mut [Res], number: usize, keep: bool, highest: bool) {
    let ascending = keep == highest;
    let mut values: Vec<i64> = results
        .iter()
        .filter(|r| r.active)
        .map(|r| r.result)
        .collect();
    values.sort_unstable();
    if !ascending {
        values.reverse();
    }
    let number = if keep {
        values.len().saturating_sub(number)
    } else {
        number.min(values.len())
    };
    // Dropping all of them drops all, as Foundry documents it (its code finds no cut and drops
    // none: not followed here).
    let Some(&cut) = values.get(number) else {
        results.iter_mut().for_each(|r| r.active &= number == 0);
        return;
    };
    let mut discarded = 0;
    let mut ties = Vec::new();
    for (i, r) in results.iter_mut().enumerate() {
        if !r.active {
            continue;
        }
        if (ascending && r.result < cut) || (!ascending && r.result > cut) {
            r.active = false;
            discarded += 1;
        } else if r.result == cut {
            ties.push(i);
        }
    }
    for i in ties {
        if discarded < number {
            results[i].active = false;
            discarded += 1;
        }
    }
}

/// `DiceTerm._applyDeduct`, over every result.
fn deduct(results: &mut [Res], point: Option<Pt>, each_minus_one: bool) {
    for r in results {
        match point {
            Some(p) if p.holds(r.result) => {
                r.failure = Some(true);
                r.success = None;
            }
            Some(_) => {}
            None if r.success == Some(false) => {
                r.failure = Some(true);
                r.success = None;
            }
            None => {}
        }
        if r.failure == Some(true) {
            r.count = Some(if each_minus_one { -1 } else { -r.result });
        }
    }
}

/// One modifier; the margins are returned to be applied to the total.
fn apply(results: &mut Vec<Res>, kind: Kind, tape: &mut Tape) -> Result<(), Stop> {
    match kind {
        Kind::Reroll(cap, point, recursive) => walk(results, cap, point, recursive, false, tape)?,
        Kind::Explode(cap, point, recursive) => walk(results, cap, point, recursive, true, tape)?,
        Kind::Keep(n, highest) => keep_or_drop(results, n, true, highest),
        Kind::Drop(n, highest) => keep_or_drop(results, n, false, highest),
        Kind::Min(t) => results
            .iter_mut()
            .filter(|r| r.result < t)
            .for_each(|r| r.count = Some(t)),
        Kind::Max(t) => results
            .iter_mut()
            .filter(|r| r.result > t)
            .for_each(|r| r.count = Some(t)),
        Kind::CountSuccess(p) | Kind::CountFailure(p) => {
            for r in results.iter_mut() {
                let met = p.holds(r.result);
                if matches!(kind, Kind::CountSuccess(_)) {
                    r.success = Some(met);
                    if met {
                        r.failure = None;
                    }
                } else {
                    r.failure = Some(met);
                    if met {
                        r.success = None;
                    }
                }
                r.count = Some(i64::from(met));
            }
        }
        Kind::Deduct(p) => deduct(results, p, true),
        Kind::Subtract(p) => deduct(results, p, false),
        Kind::Even | Kind::Odd => {
            for r in results.iter_mut() {
                let met = (r.result % 2 == 0) == matches!(kind, Kind::Even);
                r.success = Some(met);
                r.count = Some(i64::from(met));
            }
        }
        Kind::MarginSuccess(_) | Kind::MarginFailure(_) => {}
    }
    Ok(())
}

fn run(count: usize, ops: &[Op], tape: &mut Tape) -> Result<i64, Stop> {
    let mut results = Vec::new();
    for _ in 0..count {
        roll(&mut results, tape)?;
    }
    let (mut success, mut failure) = (0, 0);
    let mut counted = false;
    for op in ops {
        // A bare deduction with no count before it takes the lowest face, as Foundry documents
        // (its code then finds no failures: not followed here).
        let kind = match op.kind {
            Kind::Deduct(None) if !counted => Kind::Deduct(Some(Pt("=", 1))),
            Kind::Subtract(None) if !counted => Kind::Subtract(Some(Pt("=", 1))),
            Kind::CountSuccess(_) | Kind::CountFailure(_) | Kind::Even | Kind::Odd => {
                counted = true;
                op.kind
            }
            other => other,
        };
        apply(&mut results, kind, tape)?;
        match op.kind {
            Kind::MarginSuccess(t) => success = t,
            Kind::MarginFailure(t) => failure = t,
            _ => {}
        }
    }
    let sum: i64 = results
        .iter()
        .filter(|r| r.active)
        .map(|r| r.count.unwrap_or(r.result))
        .sum();
    // `Die#total`: a margin that is 0 is no margin.
    Ok(if success != 0 {
        sum - success
    } else if failure != 0 {
        failure - sum
    } else {
        sum
    })
}

/// The distribution of the term's total over every sequence of faces that rolls at most `cap` dice,
/// and the mass of the sequences cut there.
pub fn distribution(count: usize, sides: i64, ops: &[Op], cap: usize) -> (Fractions, Q) {
    every_sequence(sides, cap, |tape| run(count, ops, tape))
}

/// A Foundry term's count, sides and modifiers, read here as Foundry's `DiceTerm` splits them
/// (runs of letters and what follows, names run together split longest first, a number going to
/// the last name), for tests that write terms as text.
pub fn parse(text: &str) -> (usize, i64, Vec<Kind>) {
    let d = text.find('d').expect("a `d`");
    let count = if d == 0 {
        1
    } else {
        text[..d].parse().expect("a count")
    };
    let rest = &text[d + 1..];
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let sides: i64 = rest[..digits].parse().expect("sides");
    let b = rest.as_bytes();
    let mut at = digits;
    let mut kinds = Vec::new();
    while at < b.len() {
        let start = at;
        while at < b.len() && b[at].is_ascii_alphabetic() {
            at += 1;
        }
        let letters = &rest[start..at];
        let params_start = at;
        while at < b.len() && !b[at].is_ascii_alphabetic() {
            at += 1;
        }
        let params = &rest[params_start..at];
        let mut run = letters;
        while !run.is_empty() {
            let name = if NAMES.contains(&run) {
                run
            } else {
                NAMES.iter().find(|n| run.starts_with(**n)).expect("a name")
            };
            run = &run[name.len()..];
            kinds.push(kind(name, if run.is_empty() { params } else { "" }, sides));
        }
    }
    (count, sides, kinds)
}

/// `[number][comparison][number]`.
fn split(params: &str) -> (Option<i64>, Option<&str>, Option<i64>) {
    let cmp_at = params.find(['<', '>', '=']);
    let (first, rest) = match cmp_at {
        Some(i) => (&params[..i], &params[i..]),
        None => (params, ""),
    };
    let cmp_len = rest
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(rest.len());
    let number = |s: &str| (!s.is_empty()).then(|| s.parse().expect("a number"));
    let cmp = (cmp_len > 0).then(|| &rest[..cmp_len]);
    (number(first), cmp, number(&rest[cmp_len..]))
}

fn cmp_static(c: Option<&str>) -> &'static str {
    match c {
        None | Some("=") => "=",
        Some("<") => "<",
        Some("<=") => "<=",
        Some(">") => ">",
        Some(">=") => ">=",
        Some(other) => panic!("not a comparison: {other}"),
    }
}

fn kind(name: &str, params: &str, sides: i64) -> Kind {
    let (first, cmp, second) = split(params);
    let n = |default: usize| first.map_or(default, |n| if n == 0 { 1 } else { n as usize });
    match name {
        "r" | "rr" | "x" | "xo" => {
            let (cap, target) = match (first, cmp, second) {
                (Some(t), None, None) => (None, Some(t)),
                (cap, _, target) => (cap.map(|c| c as usize), target),
            };
            let explode = name.starts_with('x');
            let point = Pt(
                cmp_static(cmp),
                target.unwrap_or(if explode { sides } else { 1 }),
            );
            let recursive = name == "rr" || name == "x";
            if explode {
                Kind::Explode(cap, point, recursive)
            } else {
                Kind::Reroll(cap, point, recursive)
            }
        }
        "k" | "kh" => Kind::Keep(n(1), true),
        "kl" => Kind::Keep(n(1), false),
        "d" | "dl" => Kind::Drop(n(1), false),
        "dh" => Kind::Drop(n(1), true),
        "min" => Kind::Min(first.expect("a bound")),
        "max" => Kind::Max(first.expect("a bound")),
        "even" => Kind::Even,
        "odd" => Kind::Odd,
        _ => {
            let target = first.or(second);
            let given = cmp.is_some() || target.is_some();
            let point = |default| Pt(cmp_static(cmp), target.unwrap_or(default));
            match name {
                "cs" => Kind::CountSuccess(point(sides)),
                "cf" => Kind::CountFailure(point(1)),
                "df" => Kind::Deduct(given.then(|| point(1))),
                "sf" => Kind::Subtract(given.then(|| point(1))),
                "ms" if matches!(cmp, Some("<" | "<=")) => {
                    Kind::MarginFailure(target.expect("a margin"))
                }
                "ms" => Kind::MarginSuccess(target.expect("a margin")),
                other => panic!("not a Foundry modifier: {other}"),
            }
        }
    }
}

/// The distribution of a term written as text, as [`distribution`] walks it.
pub fn distribution_of(text: &str, cap: usize) -> (Fractions, Q) {
    let (count, sides, kinds) = parse(text);
    let ops: Vec<Op> = kinds
        .into_iter()
        .map(|kind| Op { text: "", kind })
        .collect();
    distribution(count, sides, &ops, cap)
}
