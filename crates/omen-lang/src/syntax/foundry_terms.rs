//! Foundry VTT's dice terms as its `Die` class reads them: `NdX`, then modifiers, each a run of
//! letters (the modifier's name, or several names run together, each taken longest first) and
//! what follows up to the next letter (its number and point), applied in the order written.
//!
//! Omen's notation writes such a term `foundry("3d6max5xkh2")`; the Foundry dialect reads a term so
//! when Omen's modifier-by-modifier reading cannot express it. This reader is stricter than
//! Foundry's, which ignores what it cannot read: a modifier's text must be read whole, and the
//! comparisons are the five Foundry knows.

use omen_core::Compare;
use omen_core::foundry::{Modifier, Point};

use super::d20_terms::number;

/// A Foundry dice term: how many dice, their sides, and the modifiers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundryText {
    pub count: i64,
    /// The number of sides; 3 for a Fate die.
    pub sides: i64,
    /// A Fate die (`dF`): faces −1, 0 and +1.
    pub fate: bool,
    pub modifiers: Vec<Modifier>,
}

/// The modifiers Foundry's Fate die takes (its `FateDie.MODIFIERS`); it ignores any other.
pub const FATE_MODIFIERS: &str = "`r`, `rr`, `k`, `kh`, `kl`, `d`, `dh` and `dl`";

/// Whether a Fate die takes `m`.
pub fn fate_takes(m: &Modifier) -> bool {
    matches!(
        m,
        Modifier::Reroll { .. } | Modifier::Keep { .. } | Modifier::Drop { .. }
    )
}

/// The modifier names, longest first, as Foundry splits names run together.
const NAMES: [&str; 19] = [
    "even", "min", "max", "odd", "rr", "xo", "kh", "kl", "dh", "dl", "cs", "cf", "df", "sf", "ms",
    "r", "x", "k", "d",
];

/// Reads a whole Foundry dice term (letters in either case), or says why it is not one.
///
/// # Errors
/// What is missing or not read, as a phrase.
pub fn read(text: &str) -> Result<FoundryText, String> {
    let (term, len) = read_start(text)?;
    match &text[len..] {
        "" => Ok(term),
        rest => Err(format!("a modifier at `{rest}`")),
    }
}

/// The Foundry dice term at the start of `text` and its length, its modifiers reaching to a space,
/// a bracket or an operator as Foundry's do; `None` when it does not start with one or a modifier
/// is not read whole.
pub fn term_at(text: &str) -> Option<(FoundryText, usize)> {
    read_start(text).ok()
}

/// Why the Fate dice term at the start of `text` is refused, when its modifiers are read but are
/// ones Foundry's Fate die ignores (`4dFx`): Omen's notation would read them otherwise.
pub fn fate_refusal(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut at = 0;
    if b.first().is_some_and(u8::is_ascii_digit) {
        number(b, &mut at)?;
    }
    if !lower[at..].starts_with("df") {
        return None;
    }
    let (modifiers, _) = modifiers_at(&text[at + 2..], 3).ok()?;
    (!modifiers.iter().all(fate_takes)).then(|| {
        format!(
            "Foundry's Fate dice take only the modifiers {FATE_MODIFIERS}, and ignore any other"
        )
    })
}

fn read_start(text: &str) -> Result<(FoundryText, usize), String> {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut at = 0;
    let count = if b.first().is_some_and(u8::is_ascii_digit) {
        number(b, &mut at).ok_or("a count that is not too large")?
    } else {
        1
    };
    if b.get(at) != Some(&b'd') {
        return Err("`d`".into());
    }
    at += 1;
    let fate = b.get(at) == Some(&b'f');
    let sides = if fate {
        at += 1;
        3
    } else {
        number(b, &mut at).ok_or("the number of sides")?
    };
    let (modifiers, len) = modifiers_at(&text[at..], sides)?;
    if fate && !modifiers.iter().all(fate_takes) {
        return Err(format!("only {FATE_MODIFIERS} on Fate dice"));
    }
    Ok((
        FoundryText {
            count,
            sides,
            fate,
            modifiers,
        },
        at + len,
    ))
}

/// The modifiers at the start of `text`, reaching to a space, a bracket or an operator as Foundry's
/// do, read for dice of `sides` sides (the highest face is the point of a bare `x` or `cs`), and
/// their length; or what is not read, as a phrase.
///
/// # Errors
/// A modifier not read whole.
pub fn modifiers_at(text: &str, sides: i64) -> Result<(Vec<Modifier>, usize), String> {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let end = b
        .iter()
        .position(|c| c.is_ascii_whitespace() || b"(){}[]+-*/,".contains(c))
        .unwrap_or(b.len());
    let mut at = 0;
    let mut modifiers = Vec::new();
    while at < end {
        let name_start = at;
        while at < end && b[at].is_ascii_alphabetic() {
            at += 1;
        }
        if at == name_start {
            return Err(format!("a modifier's name at `{}`", &text[at..end]));
        }
        let name = &lower[name_start..at];
        let params_start = at;
        while at < end && !b[at].is_ascii_alphabetic() {
            at += 1;
        }
        let params = &lower[params_start..at];
        read_modifier(name, params, sides, &mut modifiers)
            .map_err(|why| format!("{why} in `{}`", &text[name_start..at]))?;
    }
    settle_bare_deductions(&mut modifiers);
    Ok((modifiers, end))
}

/// A bare `df` or `sf` takes as failures the results a count before it marked as not successes
/// (`cs>3df`, as Foundry's example reads it); with no count before it, the results on the lowest
/// face, as Foundry documents (its code then finds no failures).
fn settle_bare_deductions(modifiers: &mut [Modifier]) {
    let mut counted = false;
    for m in modifiers {
        let lowest = Some(Point {
            compare: Some(Compare::Eq),
            target: 1,
        });
        match m {
            Modifier::CountSuccesses(_)
            | Modifier::CountFailures(_)
            | Modifier::CountEven
            | Modifier::CountOdd => counted = true,
            Modifier::DeductFailures(p @ None) | Modifier::SubtractFailures(p @ None)
                if !counted =>
            {
                *p = lowest;
            }
            _ => {}
        }
    }
}

/// One run of letters with what follows it: a modifier, or names run together (`xkh2`), split
/// longest name first as Foundry splits them, the number going to the last name. Foundry itself
/// drops that number (its issue 13371: `2d6khmin3` runs `kh`, `min` without its 3, which does
/// nothing); Omen reads what the writer meant, as its own reading of such a term does.
fn read_modifier(
    name: &str,
    params: &str,
    sides: i64,
    out: &mut Vec<Modifier>,
) -> Result<(), String> {
    let mut rest = name;
    while !rest.is_empty() {
        let n = if NAMES.contains(&rest) {
            rest
        } else {
            NAMES
                .iter()
                .find(|n| rest.starts_with(**n))
                .ok_or_else(|| format!("an unknown modifier `{rest}`"))?
        };
        rest = &rest[n.len()..];
        let last = rest.is_empty();
        out.extend(one(n, if last { params } else { "" }, sides)?);
    }
    Ok(())
}

fn compare(text: &str) -> Result<Compare, String> {
    Ok(match text {
        "=" => Compare::Eq,
        "<" => Compare::Lt,
        "<=" => Compare::Le,
        ">" => Compare::Gt,
        ">=" => Compare::Ge,
        other => return Err(format!("`{other}`, a comparison Foundry does not know,")),
    })
}

/// A modifier's number, comparison and number, each optional.
type Pieces<'a> = (Option<i64>, Option<&'a str>, Option<i64>);

/// `[number][comparison][number]`, all of `params`.
fn pieces(params: &str) -> Result<Pieces<'_>, String> {
    let b = params.as_bytes();
    let mut at = 0;
    let first = number(b, &mut at);
    let start = at;
    while b.get(at).is_some_and(|c| b"<>=".contains(c)) {
        at += 1;
    }
    let comparison = (at > start).then(|| &params[start..at]);
    let second = number(b, &mut at);
    if at != b.len() {
        return Err(format!("`{}` not read", &params[at..]));
    }
    Ok((first, comparison, second))
}

/// One modifier by its name, `None` for one that sets nothing (a margin without a number).
fn one(name: &str, params: &str, sides: i64) -> Result<Option<Modifier>, String> {
    let point = |cmp: Option<&str>, target: i64| -> Result<Point, String> {
        Ok(Point {
            compare: Some(compare(cmp.unwrap_or("="))?),
            target,
        })
    };
    Ok(Some(match name {
        "r" | "rr" | "x" | "xo" => {
            let (mut cap, cmp, mut target) = pieces(params)?;
            if cap.is_some() && target.is_none() && cmp.is_none() {
                (target, cap) = (cap, None);
            }
            let explode = name.starts_with('x');
            let default = if explode { sides } else { 1 };
            let point = point(cmp, target.unwrap_or(default))?;
            let cap = cap.map(|c| c as u64);
            match name {
                "r" | "rr" => Modifier::Reroll {
                    point,
                    cap,
                    recursive: name == "rr",
                },
                _ => Modifier::Explode {
                    point,
                    cap,
                    recursive: name == "x",
                },
            }
        }
        "k" | "kh" | "kl" | "d" | "dh" | "dl" => {
            let b = params.as_bytes();
            let mut at = 0;
            let n = number(b, &mut at);
            if at != b.len() {
                return Err(format!("`{params}` not read"));
            }
            // Foundry takes a missing number, and 0, as 1.
            let count = n.filter(|&n| n != 0).unwrap_or(1) as u64;
            let keep = name.starts_with('k');
            let highest = match name {
                "k" | "kh" | "dh" => true,
                "kl" | "d" | "dl" => false,
                _ => unreachable!("a keep or drop"),
            };
            if keep {
                Modifier::Keep { count, highest }
            } else {
                Modifier::Drop { count, highest }
            }
        }
        "min" | "max" => {
            let mut at = 0;
            let bound = number(params.as_bytes(), &mut at)
                .filter(|_| at == params.len())
                .ok_or_else(|| format!("`{name}` takes a number"))?;
            if name == "min" {
                Modifier::Minimum(bound)
            } else {
                Modifier::Maximum(bound)
            }
        }
        "even" | "odd" if params.is_empty() => {
            if name == "even" {
                Modifier::CountEven
            } else {
                Modifier::CountOdd
            }
        }
        "cs" | "cf" | "df" | "sf" | "ms" => return counted(name, params, sides),
        _ => return Err(format!("`{params}` not read")),
    }))
}

/// The counts (`cs`, `cf`), deductions (`df`, `sf`) and margins (`ms`): a comparison then a number,
/// either optional.
fn counted(name: &str, params: &str, sides: i64) -> Result<Option<Modifier>, String> {
    let (first, cmp, second) = pieces(params)?;
    if first.is_some() && (cmp.is_some() || second.is_some()) {
        return Err(format!("`{params}` not read"));
    }
    let target = first.or(second);
    let point = |default: i64| -> Result<Point, String> {
        Ok(Point {
            compare: Some(compare(cmp.unwrap_or("="))?),
            target: target.unwrap_or(default),
        })
    };
    let given = cmp.is_some() || target.is_some();
    Ok(Some(match name {
        // Bare, the count is of the highest face (successes) or the lowest (failures).
        "cs" => Modifier::CountSuccesses(point(sides)?),
        "cf" => Modifier::CountFailures(point(1)?),
        // Bare, the failures are the results a count marked as not successes.
        "df" => Modifier::DeductFailures(given.then(|| point(1)).transpose()?),
        "sf" => Modifier::SubtractFailures(given.then(|| point(1)).transpose()?),
        _ => {
            let Some(target) = target else {
                return Ok(None);
            };
            match cmp {
                None | Some(">" | ">=" | "=") => Modifier::MarginSuccess(target),
                Some("<" | "<=") => Modifier::MarginFailure(target),
                Some(other) => return Err(compare(other).unwrap_err()),
            }
        }
    }))
}

/// Whether the term's modifiers, though Omen's notation reads each of them, meet in a way that only
/// running them in turn gives Foundry's meaning (found by checking Omen's readings against
/// Foundry's procedure): counts and deductions that set a count again, two rerolls or an
/// explosion after a reroll until, both margins, and keeps and capped steps among other modifiers.
pub fn needs_in_turn(term: &FoundryText) -> bool {
    // A bare `r` on a Fate die rerolls the +1s (Foundry's default point is 1, not the lowest face).
    let fate_reroll =
        term.fate && (term.modifiers.iter()).any(|m| matches!(m, Modifier::Reroll { .. }));
    fate_reroll || modifiers_need_in_turn(&term.modifiers)
}

/// [`needs_in_turn`] for a term's modifiers alone.
pub fn modifiers_need_in_turn(mods: &[Modifier]) -> bool {
    let margins = (
        mods.iter().any(|m| matches!(m, Modifier::MarginSuccess(_))),
        mods.iter().any(|m| matches!(m, Modifier::MarginFailure(_))),
    );
    counts_set_again(mods) || steps_in_turn(mods) || keeps_in_turn(mods) || margins == (true, true)
}

fn is_count(m: &Modifier) -> bool {
    matches!(
        m,
        Modifier::CountSuccesses(_)
            | Modifier::CountFailures(_)
            | Modifier::CountEven
            | Modifier::CountOdd
    )
}

fn is_step(m: &Modifier) -> bool {
    matches!(m, Modifier::Reroll { .. } | Modifier::Explode { .. })
}

fn is_keep(m: &Modifier) -> bool {
    matches!(m, Modifier::Keep { .. } | Modifier::Drop { .. })
}

/// Counts and deductions: a count before a reroll or explosion (whose new results count their
/// face), before a bare deduction (which takes its failures from the count, `cs>=3df`), or, other
/// than of successes, before any deduction (`cf<2df=1`: both set the count); a deduction before a
/// count (which sets every count again); two counts; a `df` with no count before it (`df=1`), which
/// Omen's notation reads only after a count.
fn counts_set_again(mods: &[Modifier]) -> bool {
    use Modifier as M;
    let after = |i: usize, p: &dyn Fn(&M) -> bool| mods[i + 1..].iter().any(p);
    let deducts = |m: &M| matches!(m, M::DeductFailures(_) | M::SubtractFailures(_));
    let bare = |m: &M| matches!(m, M::DeductFailures(None) | M::SubtractFailures(None));
    let set_again = mods.iter().enumerate().any(|(i, m)| {
        let any_deduction = !matches!(m, M::CountSuccesses(_));
        (is_count(m) && (after(i, &is_step) || after(i, &bare)))
            || (is_count(m) && any_deduction && after(i, &deducts))
            || (deducts(m) && after(i, &is_count))
    });
    let df_first = mods
        .iter()
        .position(|m| matches!(m, M::DeductFailures(_)))
        .is_some_and(|d| !mods[..d].iter().any(is_count));
    set_again || mods.iter().filter(|m| is_count(m)).count() > 1 || df_first
}

/// Rerolls and explosions: two rerolls, or an explosion after a reroll until the point is missed
/// (each walks the results the one before left); a capped step with any modifier before it but a
/// keep or drop, or a reroll, explosion or clamp after it (`x1>=3min2r`), which Omen's reading of a
/// capped step does not take.
fn steps_in_turn(mods: &[Modifier]) -> bool {
    use Modifier as M;
    let rerolls = mods
        .iter()
        .filter(|m| matches!(m, M::Reroll { .. }))
        .count();
    let explosion_after_reroll_until = mods.iter().enumerate().any(|(i, m)| {
        matches!(
            m,
            M::Reroll {
                recursive: true,
                ..
            }
        ) && mods[i + 1..].iter().any(|n| matches!(n, M::Explode { .. }))
    });
    let capped_among_others = mods.iter().position(M::capped).is_some_and(|c| {
        mods[..c].iter().any(|m| !is_keep(m))
            || mods[c + 1..]
                .iter()
                .any(|m| is_step(m) || matches!(m, M::Minimum(_) | M::Maximum(_)))
    });
    rerolls > 1 || explosion_after_reroll_until || capped_among_others
}

/// Keeps and drops: two of them (`dlkh2`, `kh2dl`: each cuts the results the one before left, and
/// a drop of them all drops them all); one with a modifier before it and a step after it
/// (`x1>=3kh2r`), or with more after it than one step or a reroll then an explosion
/// (`kh2x1>=3r`), which Omen's reading of steps after a keep does not take; one after an explosion
/// with a reroll or clamp before it (`rxkh2`), whose added dice Omen's notation keeps apart from
/// the first rolls.
fn keeps_in_turn(mods: &[Modifier]) -> bool {
    use Modifier as M;
    if mods.iter().filter(|m| is_keep(m)).count() > 1 {
        return true;
    }
    mods.iter().enumerate().any(|(i, m)| {
        let rest = &mods[i + 1..];
        let reroll_then_explosion = matches!(
            rest,
            [M::Reroll { cap: None, .. }, M::Explode { cap: None, .. }]
        );
        let plain_added = matches!(m, M::Explode { .. })
            && mods[..i]
                .iter()
                .any(|n| matches!(n, M::Reroll { .. } | M::Minimum(_) | M::Maximum(_)));
        (plain_added && rest.iter().any(is_keep))
            || (is_keep(m)
                && rest.iter().any(is_step)
                && (i > 0 || (rest.len() > 1 && !reroll_then_explosion)))
    })
}

/// The term written back in Foundry's notation, for transcripts.
pub fn written(term: &FoundryText) -> String {
    let mut out = match term.fate {
        true => format!("{}dF", term.count),
        false => format!("{}d{}", term.count, term.sides),
    };
    for m in &term.modifiers {
        out.push_str(&modifier_text(m));
    }
    out
}

fn point_text(p: Point) -> String {
    let symbol = p.compare.map_or("=", Compare::symbol);
    format!("{symbol}{}", p.target)
}

fn modifier_text(m: &Modifier) -> String {
    let cap = |c: Option<u64>| c.map(|c| c.to_string()).unwrap_or_default();
    match *m {
        Modifier::Reroll {
            point,
            cap: c,
            recursive,
        } => format!(
            "{}{}{}",
            if recursive { "rr" } else { "r" },
            cap(c),
            point_text(point)
        ),
        Modifier::Explode {
            point,
            cap: c,
            recursive,
        } => format!(
            "{}{}{}",
            if recursive { "x" } else { "xo" },
            cap(c),
            point_text(point)
        ),
        Modifier::Keep { count, highest } => format!("k{}{count}", if highest { "h" } else { "l" }),
        Modifier::Drop { count, highest } => format!("d{}{count}", if highest { "h" } else { "l" }),
        Modifier::Minimum(b) => format!("min{b}"),
        Modifier::Maximum(b) => format!("max{b}"),
        Modifier::CountSuccesses(p) => format!("cs{}", point_text(p)),
        Modifier::CountFailures(p) => format!("cf{}", point_text(p)),
        Modifier::DeductFailures(p) => format!("df{}", p.map(point_text).unwrap_or_default()),
        Modifier::SubtractFailures(p) => format!("sf{}", p.map(point_text).unwrap_or_default()),
        Modifier::CountEven => "even".into(),
        Modifier::CountOdd => "odd".into(),
        Modifier::MarginSuccess(t) => format!("ms>={t}"),
        Modifier::MarginFailure(t) => format!("ms<={t}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modifiers_read_as_foundry_splits_them() {
        let t = read("3d6max5xkh2").expect("read");
        assert_eq!(written(&t), "3d6max5x=6kh2");
        assert_eq!(written(&read("4d6r1=1khx").expect("read")), "4d6r1=1kh1x=6");
        assert_eq!(written(&read("2d6khmin3").expect("read")), "2d6kh1min3");
        assert_eq!(written(&read("3d6cs>3df").expect("read")), "3d6cs>3df");
        assert_eq!(written(&read("2d20kh0").expect("read")), "2d20kh1");
        assert!(read("3d6r<>3").is_err());
        assert!(read("3d6zz").is_err());
        assert!(read("3d6min").is_err());
        assert_eq!(term_at("3d6kh2 + 4").map(|(_, n)| n), Some(6));
    }
}
