//! What the checker knows about a dice term before rolling: regression tests named after what broke.

use std::collections::BTreeMap;

use num_bigint::BigInt;
use num_rational::Ratio;
use omen_core::Limits;
use omen_lang::{Options, Value, compile, exact};

type Q = Ratio<BigInt>;

fn options(depth: u64) -> Options {
    Options {
        limits: Limits {
            explode_depth: depth,
            ..Limits::default()
        },
        ..Options::default()
    }
}

fn distribution(source: &str, options: &Options) -> BTreeMap<i64, Q> {
    let checked = compile(source, options).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    let result = exact(&checked.program, &options.limits).expect("exact");
    let values = result.distribution.values();
    values
        .entries()
        .iter()
        .map(|(v, w)| {
            let Value::Int(v) = v else { panic!("{v:?}") };
            (
                *v,
                Q::new(
                    BigInt::from(w.clone()),
                    BigInt::from(values.total().clone()),
                ),
            )
        })
        .collect()
}

fn warning_kinds(source: &str) -> Vec<&'static str> {
    let checked = compile(source, &Options::default()).expect("compiles");
    checked.warnings.iter().map(|w| w.kind).collect()
}

/// `d6!!rr<=6` rerolls the compounded total until it is 7 or more; every face is 6 or less, but the
/// reroll never sees a face.
#[test]
fn a_reroll_after_a_compounding_explosion_sees_the_total() {
    // A compounding d6 at depth 3: k sixes then a non-six v, or four sixes (24).
    let mut compound = BTreeMap::new();
    for sixes in 0..4i64 {
        for v in 1..6i64 {
            compound.insert(
                6 * sixes + v,
                Q::new(1.into(), BigInt::from(6i64.pow(sixes as u32 + 1))),
            );
        }
    }
    compound.insert(24, Q::new(1.into(), 1296.into()));
    let at_least_7: Q = compound
        .iter()
        .filter(|(v, _)| **v >= 7)
        .map(|(_, p)| p.clone())
        .sum();
    let want: BTreeMap<i64, Q> = compound
        .iter()
        .filter(|(v, _)| **v >= 7)
        .map(|(v, p)| (*v, p / &at_least_7))
        .collect();
    assert_eq!(distribution("d6!!rr<=6", &options(3)), want);
}

/// `1d6!>=2min2`: the explosion decides on the face as rolled; the clamp comes later, so a 1 does not
/// explode and the warning that every face explodes was false.
#[test]
fn a_clamp_after_an_explosion_does_not_make_every_face_explode() {
    assert!(!warning_kinds("1d6!>=2min2").contains(&"always-explodes"));
    assert!(warning_kinds("1d6!>=1").contains(&"always-explodes"));
}

/// Two keep/drop modifiers on one term apply in order.
#[test]
fn two_keeps_on_one_term_apply_in_order() {
    let options = Options::default();
    assert_eq!(
        distribution("3d6kh2dl1", &options),
        distribution("3d6kh1", &options)
    );
    assert_eq!(
        distribution("5d6dl1dl1", &options),
        distribution("5d6dl2", &options)
    );
    assert_eq!(
        distribution("4d6kl3dh1", &options),
        distribution("4d6kl2", &options)
    );
    // Keeping the highest 3, then dropping the highest of those, keeps the same dice as dropping
    // both ends.
    assert_eq!(
        distribution("4d6kh3dh1", &options),
        distribution("4d6dl1dh1", &options)
    );
    // Where the run depends on how many dice there are, refused.
    let errors = compile("4d6dl1kh2", &options).err().expect("refused");
    assert_eq!(errors[0].kind, "middle-keep");
}

/// `8d10!>=8` silently exploded every die of 8 or more and summed the pool, where a World of
/// Darkness player means "explode the 10s, count the dice of 8 or more". It is still read as written,
/// now with a warning naming both other readings, each of which is a term that reads that way.
#[test]
fn an_explosion_point_on_a_pool_without_a_count_was_silently_summed() {
    let checked = compile("8d10!>=8", &Options::default()).expect("compiles");
    let warning = checked
        .warnings
        .iter()
        .find(|w| w.kind == "explode-point-not-counted")
        .expect("a warning");
    let help = warning.help.as_deref().unwrap();
    assert!(
        help.contains("`8d10!10>=8`") && help.contains("`8d10!>=8>=8`"),
        "{help}"
    );
    // The 10s-again reading: no success on a die is 7/10 per die, so P(0) = (7/10)^8.
    let tens = distribution("8d10!10>=8", &Options::default());
    assert_eq!(tens[&0], Q::new(7u64.pow(8).into(), 10u64.pow(8).into()));
    // As written, the pool is a sum of at least 8 (eight 1s): nothing counted.
    let summed = distribution("8d10!>=8", &options(3));
    assert_eq!(summed.keys().next(), Some(&8));
    // Counted, kept, a single die or a point on the highest face alone: nothing to warn about.
    for quiet in [
        "8d10!>=8>=8",
        "8d10!10>=8",
        "8d10!>=8kh3",
        "d10!>=8",
        "8d10!",
        "8d10!10",
        "8d10!!>=8",
    ] {
        assert!(
            !warning_kinds(quiet).contains(&"explode-point-not-counted"),
            "{quiet}"
        );
    }
}
