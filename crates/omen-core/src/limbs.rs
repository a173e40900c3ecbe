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

pub(crate) fn to_u32_digits(limbs: &[u64]) -> Vec<u32> {
    limbs
        .iter()
        .flat_map(|&l| [l as u32, (l >> 32) as u32])
        .collect()
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
