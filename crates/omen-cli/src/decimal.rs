//! Big integers in decimal, and remainders by small numbers, fast.
//!
//! `omen prob 1000d6 --format json` writes 15,000 numbers of 2,600 bits: num-bigint's general
//! conversion (a division by a big power of ten, then by 10⁹ per limb, allocating at each level)
//! spent most of the command's time there. Every division here is by one 64-bit number, so it uses
//! a precomputed reciprocal instead of a hardware division per limb (Möller and Granlund, "Improved
//! division by invariant integers", 2011, algorithm 4): two multiplications and a few additions per
//! limb. 10¹⁹, the largest power of ten in a limb, happens to need no normalising shift.

use num_bigint::BigUint;

/// A 64-bit divisor with its reciprocal, for many divisions by it.
#[derive(Clone, Copy, Debug)]
pub struct Divisor {
    /// The divisor shifted left until its top bit is set.
    normalized: u64,
    shift: u32,
    /// ⌊(2¹²⁸ − 1) / normalized⌋ − 2⁶⁴.
    reciprocal: u64,
}

/// 10¹⁹, the base the decimal conversion works in: 19 digits per limb.
const TEN_19: u64 = 10_000_000_000_000_000_000;

impl Divisor {
    /// # Panics
    /// On zero.
    pub fn new(divisor: u64) -> Self {
        assert!(divisor > 0, "division by zero");
        let shift = divisor.leading_zeros();
        let normalized = divisor << shift;
        let reciprocal = (u128::MAX / u128::from(normalized) - (1u128 << 64)) as u64;
        Divisor {
            normalized,
            shift,
            reciprocal,
        }
    }

    /// (u1·2⁶⁴ + u0) divided by the normalized divisor, for u1 below it: quotient and remainder.
    #[inline]
    fn div_rem_normalized(&self, u1: u64, u0: u64) -> (u64, u64) {
        let d = self.normalized;
        let q = u128::from(self.reciprocal) * u128::from(u1)
            + ((u128::from(u1) << 64) | u128::from(u0));
        let mut q1 = ((q >> 64) as u64).wrapping_add(1);
        let q0 = q as u64;
        let mut r = u0.wrapping_sub(q1.wrapping_mul(d));
        if r > q0 {
            q1 = q1.wrapping_sub(1);
            r = r.wrapping_add(d);
        }
        if r >= d {
            q1 += 1;
            r -= d;
        }
        (q1, r)
    }

    /// The remainder of the number whose little-endian limbs are `limbs`.
    pub fn remainder(&self, limbs: impl DoubleEndedIterator<Item = u64>) -> u64 {
        let s = self.shift;
        if s == 0 {
            return limbs
                .rev()
                .fold(0, |r, limb| self.div_rem_normalized(r, limb).1);
        }
        // The remainder of n·2ˢ by the normalized divisor is the remainder of n, times 2ˢ. The
        // shifted number's limbs are made on the way down; what spills over the top is below 2ˢ,
        // so below the normalized divisor.
        let mut limbs = limbs.rev();
        let Some(top) = limbs.next() else {
            return 0;
        };
        let mut r = top >> (64 - s);
        let mut above = top;
        for limb in limbs {
            r = self
                .div_rem_normalized(r, (above << s) | (limb >> (64 - s)))
                .1;
            above = limb;
        }
        r = self.div_rem_normalized(r, above << s).1;
        r >> s
    }
}

/// Numbers of at least this many limbs are split in two before they are converted.
const SPLIT_LIMBS: usize = 8;

/// Writes numbers in decimal, reusing its scratch space from one number to the next.
///
/// Each limb of a division depends on the remainder of the limb above, so one conversion runs at
/// the latency of that chain. A long number is first split by a power of 10¹⁹ into a high and a low
/// half (one multi-limb division, whose inner loop pipelines well), and the two halves are divided
/// side by side: half the limb steps of one long chain, and two independent chains for the
/// processor to overlap.
pub struct DecimalWriter {
    ten_19: Divisor,
    high: Vec<u64>,
    low: Vec<u64>,
    high_chunks: Vec<u64>,
    low_chunks: Vec<u64>,
    /// 10^(19·h) by h, for the splits made so far.
    powers: std::collections::HashMap<usize, BigUint>,
}

impl Default for DecimalWriter {
    fn default() -> Self {
        DecimalWriter {
            ten_19: Divisor::new(TEN_19),
            high: Vec::new(),
            low: Vec::new(),
            high_chunks: Vec::new(),
            low_chunks: Vec::new(),
            powers: std::collections::HashMap::new(),
        }
    }
}

impl DecimalWriter {
    /// Appends `n` in decimal to `out`, as `n.to_string()` writes it.
    pub fn write(&mut self, n: &BigUint, out: &mut Vec<u8>) {
        let limbs = n.iter_u64_digits().len();
        if limbs <= 1 {
            let small = n.iter_u64_digits().next().unwrap_or(0);
            out.extend_from_slice(itoa::Buffer::new().format(small).as_bytes());
            return;
        }
        self.high.clear();
        self.low.clear();
        // The low half holds exactly `half` chunks of 19 digits, leading zeros included.
        let mut half = 0;
        if limbs >= SPLIT_LIMBS {
            // About half the number's chunks: a 64-bit limb holds 64·log10(2) ≈ 19.27 digits.
            half = limbs / 2;
            let power = self
                .powers
                .entry(half)
                .or_insert_with(|| BigUint::from(TEN_19).pow(half as u32));
            let (high, low) = num_integer::Integer::div_rem(n, &*power);
            self.high.extend(high.iter_u64_digits());
            self.low.extend(low.iter_u64_digits());
        } else {
            self.high.extend(n.iter_u64_digits());
        }
        self.high_chunks.clear();
        self.low_chunks.clear();
        self.ten_19.chunks_of_two(
            &mut self.high,
            &mut self.low,
            &mut self.high_chunks,
            &mut self.low_chunks,
        );
        self.low_chunks.resize(half, 0);
        let mut buffer = itoa::Buffer::new();
        let mut chunks = self
            .high_chunks
            .iter()
            .rev()
            .chain(self.low_chunks.iter().rev())
            .skip_while(|&&c| c == 0)
            .peekable();
        match chunks.next() {
            Some(&top) => out.extend_from_slice(buffer.format(top).as_bytes()),
            None => out.push(b'0'),
        }
        for &chunk in chunks {
            let digits = buffer.format(chunk).as_bytes();
            out.extend(std::iter::repeat_n(b'0', 19 - digits.len()));
            out.extend_from_slice(digits);
        }
    }
}

impl Divisor {
    /// The base-10¹⁹ digits of two numbers, least significant first, dividing both side by side;
    /// the numbers are used up. For 10¹⁹ (or any normalized divisor) only.
    fn chunks_of_two(
        &self,
        a: &mut Vec<u64>,
        b: &mut Vec<u64>,
        a_chunks: &mut Vec<u64>,
        b_chunks: &mut Vec<u64>,
    ) {
        debug_assert_eq!(self.shift, 0);
        trim(a);
        trim(b);
        while !a.is_empty() || !b.is_empty() {
            let (la, lb) = (a.len(), b.len());
            let (mut ra, mut rb) = (0, 0);
            for t in 0..la.max(lb) {
                if t < la {
                    let limb = &mut a[la - 1 - t];
                    (*limb, ra) = self.div_rem_normalized(ra, *limb);
                }
                if t < lb {
                    let limb = &mut b[lb - 1 - t];
                    (*limb, rb) = self.div_rem_normalized(rb, *limb);
                }
            }
            if la > 0 {
                a_chunks.push(ra);
                trim(a);
            }
            if lb > 0 {
                b_chunks.push(rb);
                trim(b);
            }
        }
    }
}

/// Drops the zero limbs at the top.
fn trim(limbs: &mut Vec<u64>) {
    while limbs.last() == Some(&0) {
        limbs.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decimal(n: &BigUint) -> String {
        let mut out = Vec::new();
        DecimalWriter::default().write(n, &mut out);
        String::from_utf8(out).unwrap()
    }

    /// Numbers of every size up to a few thousand bits, with long runs of zero and of nine digits
    /// and limbs at their extremes, where a carry or a padding would go wrong.
    fn samples() -> Vec<BigUint> {
        let mut v = vec![
            BigUint::from(0u32),
            BigUint::from(1u32),
            BigUint::from(u64::MAX),
            BigUint::from(TEN_19),
            BigUint::from(TEN_19 - 1),
            BigUint::from(u64::MAX) + 1u32,
        ];
        for e in [19u32, 38, 57, 100, 781, 2000] {
            let p = BigUint::from(10u32).pow(e);
            v.push(&p - 1u32);
            v.push(p.clone());
            v.push(p + 1u32);
        }
        let mut x = BigUint::from(0x9E37_79B9_7F4A_7C15u64);
        for _ in 0..60 {
            x = &x * &x + 0x1234_5678u32;
            x %= BigUint::from(1u32) << 4000;
            v.push(x.clone());
            v.push(BigUint::from(6u32).pow(1000) - &x % BigUint::from(6u32).pow(1000));
        }
        v
    }

    #[test]
    fn decimal_agrees_with_num_bigint() {
        let mut writer = DecimalWriter::default();
        for n in samples() {
            let mut out = Vec::new();
            writer.write(&n, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
        assert_eq!(decimal(&BigUint::from(0u32)), "0");
    }

    #[test]
    fn remainders_agree_with_num_bigint() {
        let divisors = [
            1u64,
            2,
            3,
            7,
            10,
            12_157_665_459_056_928_801, // 3⁴⁰, its top bit set
            7_450_580_596_923_828_125,  // 5²⁷, one bit short
            65_521,
            u64::MAX,
            1 << 63,
            (1 << 63) + 1,
        ];
        for d in divisors {
            let divisor = Divisor::new(d);
            for n in samples() {
                let expected = (&n % d).iter_u64_digits().next().unwrap_or(0);
                assert_eq!(
                    divisor.remainder(n.iter_u64_digits()),
                    expected,
                    "{n} % {d}"
                );
            }
        }
    }
}
