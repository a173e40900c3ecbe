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

/// dst −= src, in place; the caller guarantees dst ≥ src.
pub(crate) fn sub_assign(dst: &mut [u64], src: &[u64]) {
    let mut borrow = false;
    for (i, d) in dst.iter_mut().enumerate() {
        let s = src.get(i).copied().unwrap_or(0);
        if s == 0 && !borrow && i >= src.len() {
            break;
        }
        let (v1, b1) = d.overflowing_sub(s);
        let (v2, b2) = v1.overflowing_sub(u64::from(borrow));
        *d = v2;
        borrow = b1 || b2;
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

/// dst = a², where dst is zero on entry and wide enough: the products aᵢ·aⱼ for i < j once, doubled
/// by a shift, then the squares aᵢ² added (about half the multiplications of a general product).
fn square_into(dst: &mut [u64], a: &[u64]) {
    for (i, &ai) in a.iter().enumerate() {
        if ai == 0 {
            continue;
        }
        // Row i: a[i+1..]·aᵢ at limb 2i+1; its carry lands on the next limb, still zero.
        let row = &mut dst[2 * i + 1..2 * i + 1 + (a.len() - i - 1)];
        let mut carry: u128 = 0;
        for (d, &aj) in row.iter_mut().zip(&a[i + 1..]) {
            let t = *d as u128 + aj as u128 * ai as u128 + carry;
            *d = t as u64;
            carry = t >> 64;
        }
        if carry != 0 {
            dst[a.len() + i] = carry as u64;
        }
    }
    let used = (2 * a.len()).min(dst.len());
    let mut carry = 0u64;
    for limb in dst[..used].iter_mut() {
        let next = *limb >> 63;
        *limb = (*limb << 1) | carry;
        carry = next;
    }
    debug_assert!(carry == 0, "fixed-width overflow");
    let mut carry: u128 = 0;
    for (i, &ai) in a.iter().enumerate() {
        let square = ai as u128 * ai as u128;
        for (k, part) in [square as u64, (square >> 64) as u64]
            .into_iter()
            .enumerate()
        {
            let t = dst[2 * i + k] as u128 + part as u128 + carry;
            dst[2 * i + k] = t as u64;
            carry = t >> 64;
        }
    }
    let mut k = 2 * a.len();
    while carry != 0 && k < dst.len() {
        let t = dst[k] as u128 + carry;
        dst[k] = t as u64;
        carry = t >> 64;
        k += 1;
    }
    debug_assert!(carry == 0, "fixed-width overflow");
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

/// x ·= 2^bits in place; the caller guarantees the result fits.
pub(crate) fn shift_left(x: &mut [u64], bits: usize) {
    let (limbs, bits) = (bits / 64, bits % 64);
    if limbs > 0 {
        x.copy_within(..x.len() - limbs, limbs);
        x[..limbs].iter_mut().for_each(|l| *l = 0);
    }
    if bits > 0 {
        let mut carry = 0u64;
        for limb in x[limbs..].iter_mut() {
            let next = *limb >> (64 - bits);
            *limb = (*limb << bits) | carry;
            carry = next;
        }
        debug_assert!(carry == 0, "fixed-width overflow");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    fn number(limbs: &[u64]) -> BigUint {
        BigUint::from_slice(&to_u32_digits(limbs))
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
    fn powers_and_shifts_match_big_integers() {
        for base in [0u64, 1, 2, 3, 7, 19, 20, 255, 1 << 32, u64::MAX] {
            for n in [0usize, 1, 2, 5, 63, 64, 65, 200, 1000] {
                let bits = BigUint::from(base).bits() as usize * n;
                let width = bits / 64 + 2;
                let expected = num_traits::pow(BigUint::from(base), n);
                assert_eq!(number(&pow_small(base, n, width)), expected, "{base}^{n}");
                for shift in [0usize, 1, 63, 64, 130] {
                    let mut x = pow_small(base, n, width + 3);
                    shift_left(&mut x, shift);
                    assert_eq!(number(&x), &expected << shift, "{base}^{n} << {shift}");
                }
            }
        }
    }
}
