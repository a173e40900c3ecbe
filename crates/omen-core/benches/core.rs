//! Benchmarks of the core operations, so regressions show: the pool DP, convolution, big-integer
//! weights and explosion chains. Run with `cargo bench -p omen-core`.

use criterion::{Criterion, criterion_group, criterion_main};
use omen_core::{
    Compare, Condition, DiceSpec, Die, Distribution, Explosion, Keep, Limits, PoolSpec, keep_sum,
};
use std::hint::black_box;

fn pool_dp(c: &mut Criterion) {
    let limits = Limits::default();
    let d20 = Distribution::die(20).unwrap();
    let d6 = Distribution::die(6).unwrap();
    c.bench_function("keep_sum 100d20kh50", |b| {
        b.iter(|| {
            keep_sum(
                &d20,
                100,
                Keep::Highest(50),
                &|x| x,
                &limits,
                &mut limits.budget(),
            )
            .unwrap()
        })
    });
    c.bench_function("keep_sum 100d6kh10", |b| {
        b.iter(|| {
            keep_sum(
                &d6,
                100,
                Keep::Highest(10),
                &|x| x,
                &limits,
                &mut limits.budget(),
            )
            .unwrap()
        })
    });
    c.bench_function("count 100d12>=8f<=1", |b| {
        let d12 = Distribution::die(12).unwrap();
        b.iter(|| {
            let score = |x: i64| i64::from(x >= 8) - i64::from(x <= 1);
            keep_sum(&d12, 100, Keep::All, &score, &limits, &mut limits.budget()).unwrap()
        })
    });
}

fn convolution(c: &mut Criterion) {
    let limits = Limits::default();
    let d6 = Distribution::die(6).unwrap();
    let mut group = c.benchmark_group("convolution");
    group.sample_size(10);
    group.bench_function("sum_of 1000d6", |b| {
        b.iter(|| {
            d6.sum_of(black_box(1000), &limits, &mut limits.budget())
                .unwrap()
        })
    });
    let wide = d6.sum_of(200, &limits, &mut limits.budget()).unwrap();
    group.bench_function("add 200d6 + 200d6 (big weights)", |b| {
        b.iter(|| wide.add(&wide, &limits, &mut limits.budget()).unwrap())
    });
    group.finish();
}

fn explosions(c: &mut Criterion) {
    let limits = Limits::default();
    let spec = |compound: bool, count: usize, keep: Keep, sides: u64, depth: u64| PoolSpec {
        count,
        dice: DiceSpec {
            explosion: Some(Explosion {
                condition: Condition::new(Compare::Eq, sides as i64),
                compound,
                penetrate: false,
                first_only: false,
            }),
            ..DiceSpec::plain(Die::Standard(sides))
        },
        keep,
        success: None,
        failure: None,
        depth,
        matching: None,
        unique: None,
    };
    let explode = spec(false, 10, Keep::All, 6, 20);
    c.bench_function("10d6! depth 20", |b| {
        b.iter(|| explode.exact(&limits, &mut limits.budget()).unwrap())
    });
    let l5r = spec(true, 10, Keep::Highest(5), 10, 4);
    c.bench_function("10d10!!kh5 depth 4", |b| {
        b.iter(|| l5r.exact(&limits, &mut limits.budget()).unwrap())
    });
}

criterion_group!(benches, pool_dp, convolution, explosions);
criterion_main!(benches);
