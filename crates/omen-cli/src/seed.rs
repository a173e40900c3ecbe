//! Seeds for rolls that were given none.

use std::time::{SystemTime, UNIX_EPOCH};

/// A seed for an unseeded roll: clock and process id, mixed so close calls give unrelated seeds.
pub fn fresh_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    // splitmix64's finaliser.
    let mut x =
        (nanos ^ u64::from(std::process::id()).rotate_left(32)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
