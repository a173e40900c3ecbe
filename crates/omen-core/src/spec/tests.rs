use super::*;
use crate::dice::Compare;
use crate::roller::ScriptedDice;

fn d6_pool(count: usize) -> PoolSpec {
    PoolSpec {
        count,
        dice: DiceSpec::plain(Die::Standard(6)),
        keep: Keep::All,
        success: None,
        failure: None,
        depth: 20,
        matching: None,
        unique: None,
    }
}

#[test]
fn scripted_keep_highest_marks_the_dropped_die() {
    let mut spec = d6_pool(4);
    spec.keep = Keep::Highest(3);
    let roll = spec.roll(&mut ScriptedDice::new(vec![3, 1, 6, 3])).unwrap();
    assert_eq!(roll.total, 12);
    assert!(roll.dice[1].has(Mark::Dropped));
    assert!(roll.dice[0].has(Mark::Kept));
}

#[test]
fn scripted_explosion_adds_dice_and_marks_them() {
    let mut spec = d6_pool(2);
    spec.dice.explosion = Some(Explosion {
        condition: Condition::new(Compare::Eq, 6),
        compound: false,
        penetrate: false,
        first_only: false,
    });
    let roll = spec.roll(&mut ScriptedDice::new(vec![6, 6, 2, 4])).unwrap();
    assert_eq!(roll.dice.len(), 4);
    assert_eq!(roll.total, 18);
    assert!(roll.dice[0].has(Mark::Exploded) && roll.dice[1].has(Mark::Exploded));
}

#[test]
fn depth_limit_marks_the_last_die() {
    let mut spec = d6_pool(1);
    spec.depth = 1;
    spec.dice.explosion = Some(Explosion {
        condition: Condition::new(Compare::Eq, 6),
        compound: true,
        penetrate: false,
        first_only: false,
    });
    let roll = spec.roll(&mut ScriptedDice::new(vec![6, 6])).unwrap();
    assert_eq!(roll.total, 12);
    assert_eq!(roll.dice[0].rolls, vec![6, 6]);
    assert!(roll.dice[0].has(Mark::DepthLimit));
    let exact = spec
        .exact(&Limits::default(), &mut Budget::unlimited())
        .unwrap();
    assert_eq!(exact.truncated, Probability::new(1u32.into(), 36u32.into()));
}

#[test]
fn reroll_once_shows_the_replaced_die() {
    let mut spec = d6_pool(1);
    spec.dice.before = vec![DieStep::RerollOnce(Condition::new(Compare::Eq, 1))];
    let roll = spec.roll(&mut ScriptedDice::new(vec![1, 1])).unwrap();
    assert_eq!(roll.dice.len(), 2);
    assert!(roll.dice[0].has(Mark::Rerolled));
    assert_eq!(roll.total, 1);
}

/// Every roll of `spec` by brute force, with its probability: the source follows a path of faces,
/// and a path that runs out is extended by every face of the die.
fn for_each_roll(spec: &PoolSpec, mut f: impl FnMut(&PoolRoll, &Probability)) {
    struct Path<'a>(&'a [i64], usize, u64);
    impl DieSource for Path<'_> {
        fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
            self.2 = die.face_count();
            let face = *self.0.get(self.1).ok_or(CoreError::ScriptExhausted(0))?;
            self.1 += 1;
            Ok(face)
        }
    }
    let mut stack = vec![(Vec::new(), Probability::from_integer(1u32.into()))];
    while let Some((path, p)) = stack.pop() {
        let mut source = Path(&path, 0, 0);
        match spec.roll(&mut source) {
            Ok(roll) => f(&roll, &p),
            Err(CoreError::ScriptExhausted(_)) => {
                let faces = source.2;
                for i in 0..faces {
                    let mut next = path.clone();
                    next.push(spec.dice.die.face(i));
                    stack.push((next, &p / Probability::from_integer(faces.into())));
                }
            }
            Err(e) => panic!("{e:?}"),
        }
    }
}

/// The distribution of totals by brute force, and the probability that some die shows the
/// depth-limit mark.
fn enumerate_rolls(spec: &PoolSpec) -> (BTreeMap<i64, Probability>, Probability) {
    let mut totals = BTreeMap::new();
    let mut limited = Probability::zero();
    for_each_roll(spec, |roll, p| {
        if roll.dice.iter().any(|d| d.has(Mark::DepthLimit)) {
            limited += p;
        }
        *totals.entry(roll.total).or_insert_with(Probability::zero) += p;
    });
    (totals, limited)
}

/// P(some die that stays in the pool meets `c`), exact against every roll, for plain, rerolled,
/// kept, exploding, penetrating and compounding pools.
#[test]
fn any_die_meets_matches_enumerating_every_roll() {
    let conditions = [
        Condition::new(Compare::Eq, 4),
        Condition::new(Compare::Le, 1),
        Condition::new(Compare::Ge, 6),
    ];
    for depth in 0..=2 {
        for count in 1..=2 {
            let mut specs = Vec::new();
            let mut spec = d6_pool(count);
            spec.depth = depth;
            spec.dice.die = Die::Standard(4);
            specs.push(spec.clone());
            spec.dice.before = vec![DieStep::RerollOnce(Condition::new(Compare::Eq, 1))];
            spec.keep = Keep::Highest(1);
            specs.push(spec.clone());
            spec.keep = Keep::All;
            for (compound, penetrate) in [(false, false), (false, true), (true, false)] {
                spec.dice.explosion = Some(Explosion {
                    condition: Condition::new(Compare::Ge, 3),
                    compound,
                    penetrate,
                    first_only: false,
                });
                specs.push(spec.clone());
            }
            for spec in specs {
                for c in conditions {
                    let mut want = Probability::zero();
                    for_each_roll(&spec, |roll, p| {
                        if roll.dice.iter().any(|d| d.in_pool() && c.holds(d.value)) {
                            want += p;
                        }
                    });
                    let got = spec
                        .any_die_meets(c, &Limits::default(), &mut Budget::unlimited())
                        .unwrap();
                    assert_eq!(got, want, "{c} {spec:?}");
                }
            }
        }
    }
}

fn compound_d6(steps: Vec<DieStep>, depth: u64) -> PoolSpec {
    let mut spec = d6_pool(1);
    spec.depth = depth;
    spec.dice.explosion = Some(Explosion {
        condition: Condition::new(Compare::Eq, 6),
        compound: true,
        penetrate: false,
        first_only: false,
    });
    spec.dice.after = steps;
    spec
}

/// `d6!!ro<=6` at depth 3: the first compounded die hits the limit with 1/1296; the 5/6 of rolls
/// at 6 or less roll a second compounded die, which hits it with 1/1296 too: 11/7776, not 1/1296.
#[test]
fn d6_compound_reroll_once_after_counts_the_rerolled_dies_depth_limit() {
    let spec = compound_d6(vec![DieStep::RerollOnce(Condition::new(Compare::Le, 6))], 3);
    let exact = spec
        .exact(&Limits::default(), &mut Budget::unlimited())
        .unwrap();
    assert_eq!(
        exact.truncated,
        Probability::new(11u32.into(), 7776u32.into())
    );
}

/// The cut-off mass and the distribution of a compounding die with steps after it, against every
/// roll the sampler can make, for small depth limits.
#[test]
fn compound_depth_limit_mass_matches_enumerating_every_roll() {
    let le = |v| Condition::new(Compare::Le, v);
    let ge = |v| Condition::new(Compare::Ge, v);
    let cases = [
        vec![DieStep::RerollOnce(le(6))],
        vec![DieStep::RerollOnce(le(8)), DieStep::RerollOnce(ge(12))],
        vec![DieStep::ClampMin(9), DieStep::RerollOnce(le(9))],
        vec![DieStep::RerollOnce(ge(13)), DieStep::ClampMax(14)],
        vec![DieStep::RerollOnce(Condition::new(Compare::Eq, 12))],
    ];
    for steps in cases {
        for depth in 0..=3 {
            let spec = compound_d6(steps.clone(), depth);
            let (totals, limited) = enumerate_rolls(&spec);
            let exact = spec
                .exact(&Limits::default(), &mut Budget::unlimited())
                .unwrap();
            assert_eq!(exact.truncated, limited, "{steps:?} depth {depth}");
            let got: BTreeMap<i64, Probability> = exact
                .distribution
                .entries()
                .iter()
                .map(|(v, _)| (*v, exact.distribution.probability(v)))
                .collect();
            assert_eq!(got, totals, "{steps:?} depth {depth}");
        }
    }
}

fn exact_map(spec: &PoolSpec) -> (BTreeMap<i64, Probability>, Probability) {
    let exact = spec
        .exact(&Limits::default(), &mut Budget::unlimited())
        .unwrap();
    let d = &exact.distribution;
    let map = d
        .entries()
        .iter()
        .map(|(v, _)| (*v, d.probability(v)))
        .collect();
    (map, exact.truncated)
}

/// Penetrating explosions (`!p`, `!!p`, each extra roll counting one less), exact against every
/// roll the sampler can make: plain, compounded, with a point, a reroll, and counting successes.
#[test]
fn penetrating_explosions_match_enumerating_every_roll() {
    let ge = |v| Condition::new(Compare::Ge, v);
    for compound in [false, true] {
        for depth in 0..=3 {
            for count in 1..=2 {
                let mut cases = Vec::new();
                let mut spec = d6_pool(count);
                spec.depth = depth;
                spec.dice.die = Die::Standard(4);
                spec.dice.explosion = Some(Explosion {
                    condition: ge(4),
                    compound,
                    penetrate: true,
                    first_only: false,
                });
                cases.push(spec.clone());
                spec.dice.explosion = Some(Explosion {
                    condition: ge(3),
                    compound,
                    penetrate: true,
                    first_only: false,
                });
                cases.push(spec.clone());
                spec.dice.before = vec![DieStep::RerollOnce(Condition::new(Compare::Eq, 1))];
                cases.push(spec.clone());
                spec.dice.before.clear();
                spec.dice.after = vec![DieStep::RerollOnce(Condition::new(Compare::Le, 2))];
                cases.push(spec.clone());
                spec.dice.after.clear();
                spec.success = Some(ge(3));
                cases.push(spec);
                for spec in cases {
                    assert_eq!(
                        exact_map(&spec),
                        enumerate_rolls(&spec),
                        "compound {compound} depth {depth} count {count} {spec:?}"
                    );
                }
            }
        }
    }
}

/// `1d6!p` by hand: a 6 then a 6 (counting 5) then a 2 (counting 1) is 12.
#[test]
fn scripted_penetrating_die_counts_each_extra_roll_one_less() {
    let mut spec = d6_pool(1);
    spec.dice.explosion = Some(Explosion {
        condition: Condition::new(Compare::Eq, 6),
        compound: false,
        penetrate: true,
        first_only: false,
    });
    let roll = spec.roll(&mut ScriptedDice::new(vec![6, 6, 2])).unwrap();
    assert_eq!(roll.total, 6 + 5 + 1);
    spec.dice.explosion = Some(Explosion {
        condition: Condition::new(Compare::Eq, 6),
        compound: true,
        penetrate: true,
        first_only: false,
    });
    let roll = spec.roll(&mut ScriptedDice::new(vec![6, 6, 2])).unwrap();
    assert_eq!(roll.total, 12);
    assert_eq!(roll.dice[0].rolls, vec![6, 6, 2]);
}

fn ge(v: i64) -> Condition {
    Condition::new(Compare::Ge, v)
}

/// The pools the set rules are checked on: plain, rerolled, clamped, kept and counted.
fn set_pools() -> Vec<PoolSpec> {
    let mut pools = Vec::new();
    for sides in [2, 3, 4] {
        for count in 0..=4 {
            let mut spec = d6_pool(count);
            spec.dice.die = Die::Standard(sides);
            pools.push(spec.clone());
            spec.keep = Keep::Highest(2);
            pools.push(spec.clone());
            spec.keep = Keep::DropLowest(1);
            spec.dice.before = vec![DieStep::RerollOnce(Condition::new(Compare::Eq, 1))];
            pools.push(spec.clone());
            spec.keep = Keep::Middle(2);
            spec.dice.before = vec![DieStep::ClampMin(2)];
            pools.push(spec.clone());
            spec.keep = Keep::All;
            spec.dice.before.clear();
            spec.success = Some(ge(2));
            pools.push(spec);
        }
    }
    pools
}

fn matchings() -> Vec<Matching> {
    let mut out = Vec::new();
    for size in [2, 3] {
        for condition in [None, Some(ge(2)), Some(Condition::new(Compare::Eq, 1))] {
            out.push(Matching {
                size,
                condition,
                total: true,
            });
        }
    }
    out
}

/// `mt`: the exact number of sets, from the walk over faces, against every roll the sampler can
/// make (which counts the sets of each roll's kept dice); and P(some set) against the rolls whose
/// transcript marks a die as matched.
#[test]
fn matching_sets_match_enumerating_every_roll() {
    for mut spec in set_pools() {
        spec.success = None;
        for matching in matchings() {
            spec.matching = Some(matching);
            let (totals, _) = enumerate_rolls(&spec);
            let (got, truncated) = exact_map(&spec);
            assert_eq!(got, totals, "{matching:?} {spec:?}");
            assert!(truncated.is_zero());
            let mut marked = Probability::zero();
            for_each_roll(&spec, |roll, p| {
                if roll.dice.iter().any(|d| d.has(Mark::Matched)) {
                    marked += p;
                }
            });
            let any = spec
                .any_match(matching, &Limits::default(), &mut Budget::unlimited())
                .unwrap();
            assert_eq!(any, marked, "{matching:?} {spec:?}");
        }
    }
}

/// `m` marks the dice and leaves the total; `mt` counts the sets, here by hand: 6, 6, 2, 2, 2, 5
/// has two pairs or better, one set of three or more, and one set of 2s when only values of 2
/// or less may match.
#[test]
fn scripted_matching_marks_the_sets() {
    let faces = vec![6, 6, 2, 2, 2, 5];
    let mut spec = d6_pool(6);
    spec.matching = Some(Matching {
        size: 2,
        condition: None,
        total: false,
    });
    let roll = spec.roll(&mut ScriptedDice::new(faces.clone())).unwrap();
    assert_eq!(roll.total, 23);
    let matched: Vec<bool> = roll.dice.iter().map(|d| d.has(Mark::Matched)).collect();
    assert_eq!(matched, [true, true, true, true, true, false]);
    for (size, condition, want) in [
        (2, None, 2),
        (3, None, 1),
        (2, Some(Condition::new(Compare::Le, 2)), 1),
    ] {
        spec.matching = Some(Matching {
            size,
            condition,
            total: true,
        });
        let roll = spec.roll(&mut ScriptedDice::new(faces.clone())).unwrap();
        assert_eq!(roll.total, want, "size {size} {condition:?}");
    }
}

/// Every ordered outcome of a unique roll, by definition: die by die, a die whose value is taken
/// (and meets the point) is redrawn from the values still free (u), or once from all (uo); with
/// none free it keeps its roll. Independent of the walk: no states are merged.
fn unique_by_definition(
    die: &Distribution<i64>,
    count: usize,
    unique: Unique,
    taken: &mut Vec<i64>,
    p: Probability,
    out: &mut Vec<(Vec<i64>, Probability)>,
) {
    if taken.len() == count {
        out.push((taken.clone(), p));
        return;
    }
    let faces: Vec<i64> = die.outcomes().copied().collect();
    let pr = |v: &i64| die.probability(v);
    let free: Vec<i64> = faces
        .iter()
        .copied()
        .filter(|&v| !unique.rejects(taken, v))
        .collect();
    let free_p: Probability = free.iter().map(pr).sum();
    for &v in &faces {
        let q = if unique.once {
            let first = if unique.rejects(taken, v) {
                Probability::zero()
            } else {
                pr(&v)
            };
            first + (Probability::one() - &free_p) * pr(&v)
        } else if free.is_empty() {
            pr(&v)
        } else if free.contains(&v) {
            pr(&v) / &free_p
        } else {
            Probability::zero()
        };
        if q.is_zero() {
            continue;
        }
        taken.push(v);
        unique_by_definition(die, count, unique, taken, &p * q, out);
        taken.pop();
    }
}

fn uniques() -> Vec<Unique> {
    let mut out = Vec::new();
    for once in [false, true] {
        for condition in [None, Some(ge(2)), Some(Condition::new(Compare::Eq, 1))] {
            out.push(Unique { once, condition });
        }
    }
    out
}

/// The exact walk of unique rerolls against every ordered outcome by definition, kept and scored.
#[test]
fn unique_rerolls_match_the_definition() {
    for mut spec in set_pools() {
        for unique in uniques() {
            spec.unique = Some(unique);
            let die = spec.dice.before_distribution().unwrap();
            let mut outcomes = Vec::new();
            unique_by_definition(
                &die,
                spec.count,
                unique,
                &mut Vec::new(),
                Probability::one(),
                &mut outcomes,
            );
            let mut want: BTreeMap<i64, Probability> = BTreeMap::new();
            for (values, p) in outcomes {
                let kept = select_kept(&values, spec.keep);
                let total: i64 = values
                    .iter()
                    .zip(kept)
                    .filter(|(_, k)| *k)
                    .map(|(v, _)| spec.score(*v))
                    .sum();
                *want.entry(total).or_insert_with(Probability::zero) += p;
            }
            let (got, _) = exact_map(&spec);
            assert_eq!(got, want, "{unique:?} {spec:?}");
        }
    }
}

/// The sampler against the exact walk: every path of faces the sampler can follow, up to five
/// rerolls in all for `u`. Reroll-once paths are finite and must agree exactly; for `u` each outcome's
/// exact probability lies between what the finished paths give and that plus the mass cut off.
#[test]
fn unique_roller_matches_the_exact_walk() {
    for mut spec in set_pools() {
        if spec.count > 3 {
            continue;
        }
        for unique in uniques() {
            spec.unique = Some(unique);
            let (exact, _) = exact_map(&spec);
            let mut seen: BTreeMap<i64, Probability> = BTreeMap::new();
            let mut cut = Probability::zero();
            // A reroll-once pool rolls at most four times per die (its own `ro` and `uo`).
            let longest = if unique.once {
                spec.count * 4
            } else {
                spec.count + 5
            };
            let mut stack = vec![(Vec::new(), Probability::one())];
            while let Some((path, p)) = stack.pop() {
                let mut source = ScriptedDice::new(path.clone());
                match spec.roll(&mut source) {
                    Ok(roll) => *seen.entry(roll.total).or_insert_with(Probability::zero) += p,
                    Err(CoreError::ScriptExhausted(_)) if path.len() >= longest => {
                        cut += p;
                    }
                    Err(CoreError::ScriptExhausted(_)) => {
                        let faces = spec.dice.die.face_count();
                        for i in 0..faces {
                            let mut next = path.clone();
                            next.push(spec.dice.die.face(i));
                            stack.push((next, &p / Probability::from_integer(faces.into())));
                        }
                    }
                    Err(e) => panic!("{e:?}"),
                }
            }
            if unique.once {
                assert!(cut.is_zero());
                assert_eq!(seen, exact, "{unique:?} {spec:?}");
            }
            for (v, p) in &exact {
                let low = seen.get(v).cloned().unwrap_or_else(Probability::zero);
                assert!(low <= *p && *p <= &low + &cut, "{v}: {unique:?} {spec:?}");
            }
        }
    }
}

/// `7d6u`: six dice take every face; the seventh cannot be unique and keeps its roll, so the
/// total is 21 plus a d6.
#[test]
fn unique_dice_past_the_faces_keep_a_duplicate() {
    let mut spec = d6_pool(7);
    spec.unique = Some(Unique {
        once: false,
        condition: None,
    });
    let (got, _) = exact_map(&spec);
    let want: BTreeMap<i64, Probability> = (22..=27)
        .map(|t| (t, Probability::new(1u32.into(), 6u32.into())))
        .collect();
    assert_eq!(got, want);
    let roll = spec
        .roll(&mut ScriptedDice::new(vec![1, 1, 2, 3, 4, 5, 6, 3]))
        .unwrap();
    assert_eq!(roll.total, 24);
    assert!(roll.dice[1].has(Mark::Rerolled));
}

/// Exploding dice vary in number: neither set rule computes them, and both say so.
#[test]
fn set_rules_on_exploding_dice_are_refused() {
    let mut spec = compound_d6(Vec::new(), 3);
    spec.unique = Some(Unique {
        once: true,
        condition: None,
    });
    assert!(matches!(
        spec.exact(&Limits::default(), &mut Budget::unlimited()),
        Err(CoreError::Unsupported(_))
    ));
}

#[test]
fn exploding_pool_with_keep_matches_counting_by_hand() {
    // 2d2!kh1 with depth 1: chains are (1), (2,1), (2,2 at the limit).
    let mut spec = PoolSpec {
        count: 2,
        dice: DiceSpec::plain(Die::Standard(2)),
        keep: Keep::Highest(1),
        success: None,
        failure: None,
        depth: 1,
        matching: None,
        unique: None,
    };
    spec.dice.explosion = Some(Explosion {
        condition: Condition::new(Compare::Eq, 2),
        compound: false,
        penetrate: false,
        first_only: false,
    });
    let exact = spec
        .exact(&Limits::default(), &mut Budget::unlimited())
        .unwrap();
    // Highest die is 1 only when both chains are a plain 1: 1/4.
    assert_eq!(
        exact.distribution.probability(&1),
        Probability::new(1u32.into(), 4u32.into())
    );
    assert_eq!(exact.distribution.len(), 2);
}
