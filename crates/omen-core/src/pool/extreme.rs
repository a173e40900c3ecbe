//! The highest or lowest of many identical dice, by a closed form instead of the pool walk.

use num_traits::Zero;

use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;
use crate::limits::Budget;

/// The score of the highest (or lowest) of `n` dice, by the closed form: with C(x) the weight of the
/// faces at or below x (at or above, for the lowest), the weight of "the extreme is x" is
/// C(x)ⁿ − C(x⁻)ⁿ. One power per face instead of a dynamic program over the pool.
pub(super) fn extreme_of(
    die: &Distribution<i64>,
    n: usize,
    highest: bool,
    score: &dyn Fn(i64) -> i64,
    budget: &mut Budget,
) -> Result<Distribution<i64>, CoreError> {
    let mut faces: Vec<(i64, &Weight)> = die.entries().iter().map(|(x, w)| (*x, w)).collect();
    if !highest {
        faces.reverse();
    }
    // A power by squaring of a number growing to the total's size: about its limbs squared per face.
    let total_limbs = crate::distribution::limbs_of(die.total().bits() * n as u64);
    budget.spend_estimate(
        faces.len() as u128 * (total_limbs * total_limbs + crate::distribution::BIG_OP),
    )?;
    if let Some(pairs) = extreme_weights_small(&faces, n, die.total()) {
        return Distribution::from_weights(pairs.into_iter().map(|(x, w)| (score(x), w)));
    }
    let mut below = Weight::zero();
    let mut below_pow = Weight::zero();
    let mut pairs = Vec::with_capacity(faces.len());
    for (x, w) in faces {
        below += w;
        let pow = num_traits::pow(below.clone(), n);
        pairs.push((score(x), &pow - &below_pow));
        below_pow = pow;
    }
    let d = Distribution::from_weights(pairs)?;
    debug_assert!(d.total() == &num_traits::pow(die.total().clone(), n));
    Ok(d)
}

/// [`extreme_of`]'s weights, face by face in walk order, when the die's total fits in a limb (any
/// die but a huge mixture): in machine integers when the pool's total fits in a u128, otherwise in
/// fixed-width limbs where C(x)ⁿ is the power of C(x)'s odd part shifted by its factors of two, and
/// each odd part's power is computed once (for a d20, 9 powers instead of 20).
fn extreme_weights_small(
    faces: &[(i64, &Weight)],
    n: usize,
    total: &Weight,
) -> Option<Vec<(i64, Weight)>> {
    use num_traits::ToPrimitive;
    let total_bits = total.bits() as usize * n;
    let mut below = 0u64;
    if total_bits <= 128 {
        let (mut below_pow, n) = (0u128, u32::try_from(n).ok()?);
        return faces
            .iter()
            .map(|&(x, w)| {
                below += w.to_u64()?;
                let pow = u128::from(below).pow(n);
                let weight = Weight::from(pow - below_pow);
                below_pow = pow;
                Some((x, weight))
            })
            .collect();
    }
    total.to_u64()?;
    let width = total_bits / 64 + 1;
    let mut odd_powers: Vec<(u64, Vec<u64>)> = Vec::new();
    // C(x⁻)ⁿ, replaced face by face by C(x)ⁿ in the same pass that writes their difference.
    let mut below_pow = vec![0u64; width];
    let mut digits: Vec<u32> = Vec::with_capacity(2 * width);
    let mut pairs = Vec::with_capacity(faces.len());
    for &(x, w) in faces {
        below += w.to_u64()?;
        let twos = below.trailing_zeros() as usize;
        let odd = below >> twos;
        let at = match odd_powers.iter().position(|(o, _)| *o == odd) {
            Some(at) => at,
            None => {
                odd_powers.push((odd, crate::limbs::pow_small(odd, n, width)));
                odd_powers.len() - 1
            }
        };
        crate::limbs::shifted_step(&odd_powers[at].1, twos * n, &mut below_pow, &mut digits);
        pairs.push((x, Weight::from_slice(&digits)));
    }
    Some(pairs)
}
