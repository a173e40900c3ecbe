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
    // The last power is C(max)ⁿ, the pool's total: handed over rather than summed again from the
    // weights (twenty additions of numbers up to 4,322 bits for 1000d20kh1).
    if let Some((pairs, total)) = extreme_weights_small(&faces, n, die.total()) {
        let scored = pairs.into_iter().map(|(x, w)| (score(x), w));
        return Distribution::from_weights_with_total(scored, total);
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
    debug_assert!(below_pow == num_traits::pow(die.total().clone(), n));
    Distribution::from_weights_with_total(pairs, below_pow)
}

/// [`extreme_of`]'s weights, face by face in walk order, and their sum, when the die's total fits in
/// a limb (any die but a huge mixture): in machine integers when the pool's total fits in a u128,
/// otherwise with C(x)ⁿ the power of C(x)'s odd part (in fixed-width limbs) shifted by its factors
/// of two, each odd part's power computed once (for a d20, 9 powers instead of 20).
fn extreme_weights_small(
    faces: &[(i64, &Weight)],
    n: usize,
    total: &Weight,
) -> Option<(Vec<(i64, Weight)>, Weight)> {
    use num_traits::ToPrimitive;
    let total_bits = total.bits() as usize * n;
    if total_bits <= 128 {
        // Checked: with few dice, one die's total may pass 64 bits (a deep explosion,
        // `{d10!>1}kh1`) while the pool's still fits 128, so the running sum needs a u128.
        let (mut below, mut below_pow, n) = (0u128, 0u128, u32::try_from(n).ok()?);
        let pairs = faces
            .iter()
            .map(|&(x, w)| {
                below = below.checked_add(u128::from(w.to_u64()?))?;
                let pow = below.checked_pow(n)?;
                let weight = Weight::from(pow.checked_sub(below_pow)?);
                below_pow = pow;
                Some((x, weight))
            })
            .collect::<Option<_>>()?;
        return Some((pairs, Weight::from(below_pow)));
    }
    total.to_u64()?;
    let width = total_bits / 64 + 1;
    let mut odd_powers: Vec<(u64, Weight)> = Vec::new();
    // C(x⁻)ⁿ: each face's weight is C(x)ⁿ − C(x⁻)ⁿ, with C(x)ⁿ an odd part's power shifted. A
    // shift and a subtraction of big integers cost less than one pass over fixed-width limbs that
    // wrote 32-bit digits for `BigUint::from_slice` to pack again (10.5 µs against 11.9 µs for
    // 1000d20kh1's twenty weights).
    // Every C(x)ⁿ first, then each less the one before it in place, from the top down: no copy of a
    // power is kept for the next face's subtraction.
    let mut pairs: Vec<(i64, Weight)> = Vec::with_capacity(faces.len());
    let mut below = 0u64;
    for &(x, w) in faces {
        below = below.checked_add(w.to_u64()?)?;
        let twos = below.trailing_zeros() as usize;
        let odd = below >> twos;
        let at = match odd_powers.iter().position(|(o, _)| *o == odd) {
            Some(at) => at,
            None => {
                let limbs = crate::limbs::pow_small(odd, n, width);
                let power = crate::limbs::to_weight(&limbs);
                odd_powers.push((odd, power));
                odd_powers.len() - 1
            }
        };
        pairs.push((x, &odd_powers[at].1 << (twos * n)));
    }
    let total = pairs.last()?.1.clone();
    for k in (1..pairs.len()).rev() {
        let (lower, upper) = pairs.split_at_mut(k);
        upper[0].1 -= &lower[k - 1].1;
    }
    Some((pairs, total))
}
