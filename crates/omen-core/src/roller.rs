//! Sources of dice: a seeded, portable ChaCha roller and a scripted one for replaying given dice.

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};

use crate::dice::Die;
use crate::error::CoreError;

/// Where dice values come from. The core never draws randomness any other way.
pub trait DieSource {
    /// One roll of `die`: one of its faces.
    ///
    /// # Errors
    /// A scripted source fails when it runs out or its next value is not a face of `die`.
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError>;
}

/// The seeded roller: ChaCha20 keyed by the seed, faces drawn by rejection sampling.
///
/// Portable by construction: the 64-bit seed becomes the key directly (little-endian, rest zero), the
/// keystream is ChaCha20's, and the mapping from random words to faces is done here rather than by a
/// crate that might change it, so the same seed gives the same dice everywhere and for good.
#[derive(Clone, Debug)]
pub struct ChaChaDice {
    rng: ChaCha20Rng,
}

impl ChaChaDice {
    /// The name of the algorithm, recorded beside seeds so a roll can be replayed.
    pub const ALGORITHM: &'static str = "chacha20-rejection-v1";

    pub fn from_seed(seed: u64) -> Self {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        ChaChaDice {
            rng: ChaCha20Rng::from_seed(key),
        }
    }

    /// A uniform index in `0..n` with no modulo bias: words in the incomplete last stretch of the
    /// 64-bit range are rejected and drawn again.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        // The largest multiple of n that fits in 2^64 is 2^64 − (2^64 mod n).
        let reject_from = u64::MAX - (u64::MAX % n + 1) % n;
        loop {
            let x = self.rng.next_u64();
            if x < reject_from || reject_from == u64::MAX {
                return x % n;
            }
        }
    }
}

impl DieSource for ChaChaDice {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        let index = self.below(die.face_count());
        Ok(die.face(index))
    }
}

/// Replays given dice values in order (for the seeds' worked examples and for tests).
#[derive(Clone, Debug)]
pub struct ScriptedDice {
    values: Vec<i64>,
    next: usize,
}

impl ScriptedDice {
    pub fn new(values: Vec<i64>) -> Self {
        ScriptedDice { values, next: 0 }
    }

    /// How many values were used.
    pub fn used(&self) -> usize {
        self.next
    }

    /// Values not used yet.
    pub fn remaining(&self) -> &[i64] {
        &self.values[self.next..]
    }
}

impl DieSource for ScriptedDice {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        let value = *self
            .values
            .get(self.next)
            .ok_or(CoreError::ScriptExhausted(self.values.len()))?;
        if !die.has_face(value) {
            return Err(CoreError::ScriptFace {
                index: self.next + 1,
                value,
                die: die.to_string(),
            });
        }
        self.next += 1;
        Ok(value)
    }
}

/// One die as rolled: which die, how many faces it has, and the face it showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RolledFace {
    /// The die, as [`Die`]'s `Display` writes it (`d6`, `dF`).
    pub die: String,
    pub sides: u64,
    pub face: i64,
}

/// Passes rolls through from another source and remembers each one, so an action rolled with a seed
/// can be logged with its exact dice and replayed later with [`ScriptedDice`].
pub struct RecordingDice<S> {
    inner: S,
    rolled: Vec<RolledFace>,
}

impl<S: DieSource> RecordingDice<S> {
    pub fn new(inner: S) -> Self {
        RecordingDice {
            inner,
            rolled: Vec::new(),
        }
    }

    /// The source the dice come from (to ask a [`ScriptedDice`] what is left, say).
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The dice rolled so far, in order.
    pub fn rolled(&self) -> &[RolledFace] {
        &self.rolled
    }

    /// The faces rolled so far, in order: what [`ScriptedDice::new`] takes to replay them.
    pub fn faces(&self) -> Vec<i64> {
        self.rolled.iter().map(|r| r.face).collect()
    }
}

impl<S: DieSource> DieSource for RecordingDice<S> {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        let face = self.inner.roll(die)?;
        self.rolled.push(RolledFace {
            die: die.to_string(),
            sides: die.face_count(),
            face,
        });
        Ok(face)
    }
}

impl<T: DieSource + ?Sized> DieSource for &mut T {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        (**self).roll(die)
    }
}

impl<T: DieSource + ?Sized> DieSource for Box<T> {
    fn roll(&mut self, die: &Die) -> Result<i64, CoreError> {
        (**self).roll(die)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejection_sampling_is_unbiased_in_range() {
        let mut r = ChaChaDice::from_seed(7);
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            counts[r.below(3) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        // n = 1 and n = 2^63 + 1 still terminate and stay in range.
        assert_eq!(r.below(1), 0);
        assert!(r.below((1 << 63) + 1) <= 1 << 63);
    }

    #[test]
    fn recording_dice_replay_the_same_faces() {
        let mut seeded = ChaChaDice::from_seed(11);
        let mut recorder = RecordingDice::new(&mut seeded);
        let first: Vec<i64> = (0..5)
            .map(|_| recorder.roll(&Die::Standard(6)).unwrap())
            .collect();
        assert_eq!(recorder.faces(), first);
        assert_eq!(recorder.rolled()[0].die, "d6");
        assert_eq!(recorder.rolled()[0].sides, 6);
        let mut replay = ScriptedDice::new(recorder.faces());
        let again: Vec<i64> = (0..5)
            .map(|_| replay.roll(&Die::Standard(6)).unwrap())
            .collect();
        assert_eq!(again, first);
    }

    #[test]
    fn scripted_dice_check_faces() {
        let mut s = ScriptedDice::new(vec![3, 7]);
        assert_eq!(s.roll(&Die::Standard(6)), Ok(3));
        assert!(matches!(
            s.roll(&Die::Standard(6)),
            Err(CoreError::ScriptFace { value: 7, .. })
        ));
        assert_eq!(s.roll(&Die::Standard(8)), Ok(7));
        assert_eq!(
            s.roll(&Die::Standard(8)),
            Err(CoreError::ScriptExhausted(2))
        );
    }
}
