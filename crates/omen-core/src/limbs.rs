//! Fixed-width little-endian 64-bit limbs: the in-place arithmetic of the hot loops, where every
//! number is known to fit in the width of a total computed up front, so nothing allocates.

/// A fixed-width number without its high zero limbs (empty for zero).
pub(crate) fn trimmed(x: &[u64]) -> &[u64] {
    let len = x.iter().rposition(|&l| l != 0).map_or(0, |p| p + 1);
    &x[..len]
}

/// dst += a·b, in place, on little-endian 64-bit limbs; the caller guarantees the result fits.
pub(crate) fn mul_add(dst: &mut [u64], a: &[u64], b: &[u64]) {
    let width = dst.len();
    for (i, &bi) in b.iter().enumerate() {
        if bi == 0 {
            continue;
        }
        let mut carry: u128 = 0;
        let end = (i + a.len()).min(width);
        for (d, &aj) in dst[i..end].iter_mut().zip(a) {
            let t = *d as u128 + aj as u128 * bi as u128 + carry;
            *d = t as u64;
            carry = t >> 64;
        }
        let mut k = end;
        while carry != 0 && k < width {
            let t = dst[k] as u128 + carry;
            dst[k] = t as u64;
            carry = t >> 64;
            k += 1;
        }
        debug_assert!(carry == 0, "fixed-width overflow");
    }
}

/// A number as a big integer. On a little-endian machine a number's 64-bit limbs, read in memory
/// order, are already its 32-bit digits from the lowest: they are read in place (the copy into
/// 32-bit digits was a tenth of 1000d20kh1's call).
pub(crate) fn to_weight(limbs: &[u64]) -> num_bigint::BigUint {
    let limbs = trimmed(limbs);
    if cfg!(target_endian = "little") {
        num_bigint::BigUint::from_slice(bytemuck::cast_slice(limbs))
    } else {
        num_bigint::BigUint::from_slice(&to_u32_digits(limbs))
    }
}

/// The 32-bit digits of a number, for `BigUint::from_slice` (high zero limbs left out). A plain
/// loop: a `flat_map` here cost a first call on a big pool more than its arithmetic.
pub(crate) fn to_u32_digits(limbs: &[u64]) -> Vec<u32> {
    let limbs = trimmed(limbs);
    let mut digits = Vec::with_capacity(2 * limbs.len());
    for &l in limbs {
        digits.push(l as u32);
        digits.push((l >> 32) as u32);
    }
    digits
}

/// dst −= src, in place; the caller guarantees dst ≥ src. The borrow runs through src's limbs and
/// then only as far as it goes (a loop that looked up src's limb and tested for the end at every
/// limb took twice as long).
pub(crate) fn sub_assign(dst: &mut [u64], src: &[u64]) {
    let (low, high) = dst.split_at_mut(src.len().min(dst.len()));
    let mut borrow = false;
    for (d, &s) in low.iter_mut().zip(src) {
        let (v1, b1) = d.overflowing_sub(s);
        let (v2, b2) = v1.overflowing_sub(u64::from(borrow));
        *d = v2;
        borrow = b1 | b2;
    }
    for d in high {
        if !borrow {
            break;
        }
        let (v, b) = d.overflowing_sub(1);
        *d = v;
        borrow = b;
    }
    debug_assert!(!borrow, "fixed-width underflow");
}

/// x /= d in place for a divisor that fits in 64 bits; returns the remainder.
pub(crate) fn div_small(x: &mut [u64], d: u64) -> u64 {
    let mut rem: u128 = 0;
    for limb in x.iter_mut().rev() {
        let cur = (rem << 64) | *limb as u128;
        *limb = (cur / d as u128) as u64;
        rem = cur % d as u128;
    }
    rem as u64
}

/// x ·= m in place; the caller guarantees the product fits.
pub(crate) fn mul_small(x: &mut [u64], m: u64) {
    let mut carry: u128 = 0;
    for limb in x.iter_mut() {
        let t = *limb as u128 * m as u128 + carry;
        *limb = t as u64;
        carry = t >> 64;
    }
    debug_assert!(carry == 0, "fixed-width overflow");
}

/// dst = a², column by column (each limb of the result summed from its products aᵢ·aⱼ, i + j = the
/// column, before moving on): the cross products once and doubled, then the square aᵢ² where
/// i = j. Summing a column in a 192-bit accumulator keeps the multiplications independent of each
/// other, where a row-by-row product waits on each carry; dst needs no zeroing and is written up
/// to 2·len(a) limbs or its own width, which the caller guarantees holds the square.
fn square_into(dst: &mut [u64], a: &[u64]) {
    let n = a.len();
    let columns = (2 * n).min(dst.len());
    // The running sum above the limbs written so far: bits 0..128 in `low`, 128..192 in `high`.
    let (mut low, mut high) = (0u128, 0u64);
    for (c, out) in dst[..columns].iter_mut().enumerate() {
        let (i, j) = (c.saturating_sub(n - 1), c.min(n - 1));
        // The pairs (i, j), (i + 1, j − 1), … while i < j, as two slices walked toward each other.
        let pairs = (j + 1 - i) / 2;
        let (mut cross, mut cross_high) = (0u128, 0u64);
        for (&x, &y) in a[i..i + pairs]
            .iter()
            .zip(a[j + 1 - pairs..=j].iter().rev())
        {
            let (sum, over) = cross.overflowing_add(x as u128 * y as u128);
            cross = sum;
            cross_high += u64::from(over);
        }
        cross_high = (cross_high << 1) | (cross >> 127) as u64;
        cross <<= 1;
        if i + 2 * pairs == j {
            let middle = a[i + pairs];
            let (sum, over) = cross.overflowing_add(middle as u128 * middle as u128);
            cross = sum;
            cross_high += u64::from(over);
        }
        let (sum, over) = low.overflowing_add(cross);
        high += cross_high + u64::from(over);
        *out = sum as u64;
        low = (sum >> 64) | (u128::from(high) << 64);
        high = 0;
    }
    debug_assert!(low == 0 || columns < 2 * n, "fixed-width overflow");
}

/// base^n in `width` limbs (the caller guarantees it fits), with nothing allocated but the result
/// and one scratch number: base^n = cᵠ·baseʳ for c the largest power of the base that fits in a
/// limb, cᵠ by squaring from the top bit of q down (each square costs about half the square of the
/// limbs used, so the whole power about a sixth of the result's limbs squared).
pub(crate) fn pow_small(base: u64, n: usize, width: usize) -> Vec<u64> {
    let mut x = vec![0u64; width];
    if base < 2 {
        x[0] = u64::from(base == 1 || n == 0);
        return x;
    }
    let (mut chunk, mut per_chunk) = (base, 1usize);
    while let Some(next) = chunk.checked_mul(base) {
        chunk = next;
        per_chunk += 1;
    }
    let (q, r) = (n / per_chunk, n % per_chunk);
    x[0] = 1;
    // The limbs in use, tracked rather than found by scanning the zeros above them.
    let mut used = 1;
    let fit = |x: &[u64], mut used: usize| {
        used = used.min(width);
        while used > 1 && x[used - 1] == 0 {
            used -= 1;
        }
        used
    };
    let mut scratch = vec![0u64; width];
    for bit in (0..usize::BITS - q.leading_zeros()).rev() {
        scratch[..(2 * used).min(width)]
            .iter_mut()
            .for_each(|l| *l = 0);
        square_into(&mut scratch, &x[..used]);
        std::mem::swap(&mut x, &mut scratch);
        used = fit(&x, 2 * used);
        if q >> bit & 1 == 1 {
            used = (used + 1).min(width);
            mul_small(&mut x[..used], chunk);
            used = fit(&x, used);
        }
    }
    if r > 0 {
        used = (used + 1).min(width);
        mul_small(&mut x[..used], base.pow(r as u32));
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    fn number(limbs: &[u64]) -> BigUint {
        BigUint::from_slice(&to_u32_digits(limbs))
    }

    #[test]
    fn a_number_read_in_place_is_the_one_its_digits_give() {
        for limbs in [
            vec![],
            vec![0, 0],
            vec![1],
            vec![u64::MAX, 1 << 63, 0],
            vec![0x0123_4567_89ab_cdef, 0, 0xfedc_ba98_7654_3210],
        ] {
            let expected = limbs
                .iter()
                .rev()
                .fold(BigUint::from(0u32), |acc, &l| (acc << 64u32) + l);
            assert_eq!(to_weight(&limbs), expected, "{limbs:?}");
            assert_eq!(number(&limbs), expected, "{limbs:?}");
        }
    }

    #[test]
    fn squares_match_big_integers() {
        for a in [
            vec![],
            vec![u64::MAX],
            vec![u64::MAX; 5],
            vec![3, 0, u64::MAX, 1 << 63],
        ] {
            let mut dst = vec![0u64; 2 * a.len() + 1];
            square_into(&mut dst, &a);
            assert_eq!(number(&dst), num_traits::pow(number(&a), 2), "{a:?}");
        }
    }

    #[test]
    fn powers_match_big_integers() {
        for base in [0u64, 1, 2, 3, 7, 19, 20, 255, 1 << 32, u64::MAX] {
            for n in [0usize, 1, 2, 5, 63, 64, 65, 200, 1000] {
                let bits = BigUint::from(base).bits() as usize * n;
                let width = bits / 64 + 2;
                let expected = num_traits::pow(BigUint::from(base), n);
                assert_eq!(number(&pow_small(base, n, width)), expected, "{base}^{n}");
                assert_eq!(
                    number(&pow_small(base, n, width + 3)),
                    expected,
                    "{base}^{n}"
                );
            }
        }
    }
}
