//! Symbol dice: faces that show several named symbols at once, read as a vector of counts summed over
//! the pool, with the game's cancellation applied. Genesys (and Star Wars by the same publisher) is
//! the reference: a success cancels a failure, an advantage a threat, and a triumph counts as a
//! success (a despair as a failure) while also being counted on its own.
//!
//! Cancellation is a difference, and differences add up die by die, so each face is mapped to its
//! net vector (net successes, net advantages, triumphs, despairs) and the pool's distribution is the
//! exact sum of those vectors: no roll is enumerated, and the vectors stay small.

use num_integer::Integer;

use crate::dense::sum_table;
use crate::distribution::{Distribution, Weight};
use crate::error::CoreError;
use crate::limits::Budget;

/// A die whose faces are written with one letter per symbol: `s` success, `a` advantage, `T`
/// triumph, `f` failure, `t` threat, `D` despair; an empty string is a blank face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymbolDie {
    pub name: &'static str,
    pub faces: &'static [&'static str],
}

/// The six Genesys dice, with the faces printed on them.
pub const GENESYS: [SymbolDie; 6] = [
    SymbolDie {
        name: "boost",
        faces: &["", "", "s", "sa", "aa", "a"],
    },
    SymbolDie {
        name: "setback",
        faces: &["", "", "f", "f", "t", "t"],
    },
    SymbolDie {
        name: "ability",
        faces: &["", "s", "s", "ss", "a", "a", "sa", "aa"],
    },
    SymbolDie {
        name: "difficulty",
        faces: &["", "f", "ff", "t", "t", "t", "tt", "ft"],
    },
    SymbolDie {
        name: "proficiency",
        faces: &[
            "", "s", "s", "ss", "ss", "a", "sa", "sa", "sa", "aa", "aa", "T",
        ],
    },
    SymbolDie {
        name: "challenge",
        faces: &[
            "", "f", "f", "ff", "ff", "t", "t", "ft", "ft", "tt", "tt", "D",
        ],
    },
];

/// A Genesys die by name.
pub fn genesys_die(name: &str) -> Option<&'static SymbolDie> {
    GENESYS.iter().find(|d| d.name == name)
}

/// A result after cancellation: net successes (successes and triumphs less failures and despairs),
/// net advantages (advantages less threats), triumphs, despairs.
pub type Net = [i64; 4];

/// One face's net vector.
///
/// # Errors
/// [`CoreError::UnknownSymbol`] for a letter that names no symbol.
pub fn face_net(face: &str) -> Result<Net, CoreError> {
    let mut net = [0i64; 4];
    for letter in face.chars() {
        match letter {
            's' => net[0] += 1,
            'f' => net[0] -= 1,
            'a' => net[1] += 1,
            't' => net[1] -= 1,
            'T' => {
                net[0] += 1;
                net[2] += 1;
            }
            'D' => {
                net[0] -= 1;
                net[3] += 1;
            }
            other => return Err(CoreError::UnknownSymbol(other)),
        }
    }
    Ok(net)
}

/// One die's distribution of net vectors, each face equally likely.
///
/// # Errors
/// As [`face_net`], and for a die without faces.
pub fn die_net(die: &SymbolDie) -> Result<Distribution<Net>, CoreError> {
    let faces = die
        .faces
        .iter()
        .map(|face| Ok((face_net(face)?, Weight::from(1u32))))
        .collect::<Result<Vec<_>, CoreError>>()?;
    Distribution::from_weights(faces)
}

/// The exact distribution of a pool of symbol dice after cancellation: `pool` lists each kind of
/// die with how many are rolled.
///
/// The net vectors of a pool of a few dozen dice fill a small box (each component moves by a few
/// per die), so they are summed in a dense table of machine-integer weights, one die at a time:
/// no map of tuples, no big integers until the end. A pool whose box or weights would not fit
/// that table goes through [`pool_net_convolved`], the pairwise convolution of the same vectors.
///
/// # Errors
/// As [`die_net`]; the work budget (each die's convolution charged before it runs) and cancellation.
pub fn pool_net(
    pool: &[(&SymbolDie, usize)],
    budget: &mut Budget,
) -> Result<Distribution<Net>, CoreError> {
    let mut kinds = Vec::with_capacity(pool.len());
    for &(die, count) in pool {
        kinds.push((faces_of(die)?, count));
    }
    match DenseBox::for_pool(&kinds) {
        Some(table) => table.sum(&kinds, budget),
        None => pool_net_convolved(pool, budget),
    }
}

/// [`pool_net`] by convolving the dice's distributions of net vectors pairwise, for any pool.
///
/// # Errors
/// As [`pool_net`].
pub fn pool_net_convolved(
    pool: &[(&SymbolDie, usize)],
    budget: &mut Budget,
) -> Result<Distribution<Net>, CoreError> {
    let mut total = Distribution::constant([0i64; 4]);
    for (die, count) in pool {
        let one = die_net(die)?;
        for _ in 0..*count {
            total = total.combine(&one, budget, |a, b| {
                let mut sum = [0i64; 4];
                for i in 0..4 {
                    sum[i] = a[i].checked_add(b[i]).ok_or(CoreError::Overflow)?;
                }
                Ok(sum)
            })?;
        }
    }
    Ok(total)
}

/// A die's distinct net vectors, each with how many faces show it.
fn faces_of(die: &SymbolDie) -> Result<Vec<(Net, u128)>, CoreError> {
    let mut faces: Vec<(Net, u128)> = Vec::new();
    for face in die.faces {
        let net = face_net(face)?;
        match faces.iter_mut().find(|(n, _)| *n == net) {
            Some((_, c)) => *c += 1,
            None => faces.push((net, 1)),
        }
    }
    if faces.is_empty() {
        return Err(CoreError::Empty);
    }
    Ok(faces)
}

/// The largest table [`pool_net`] sums in (cells): 8 MiB of weights.
const MAX_CELLS: usize = 1 << 19;

/// The box the pool's net vectors lie in, each die's vectors shifted by their least component so that
/// every partial sum lies in it too. A vector's cell is its shifted components read as the digits of
/// a mixed-radix number, the first component most significant: the cells' order is the vectors'.
struct DenseBox {
    /// Σ over the dice of each component's least value: the shift back at the end.
    low: Net,
    /// How many values each component takes in the box.
    sizes: [usize; 4],
    /// The cell step of one unit in each component.
    strides: [usize; 4],
    /// The pool's total weight: every roll of every die.
    total: u128,
}

impl DenseBox {
    /// The box for `kinds`, or `None` when it passes [`MAX_CELLS`], a sum could pass 64 bits or the
    /// pool's total weight 128 bits.
    fn for_pool(kinds: &[(Vec<(Net, u128)>, usize)]) -> Option<Self> {
        let mut low = [0i64; 4];
        let mut sizes = [1usize; 4];
        let mut total: u128 = 1;
        for (faces, count) in kinds {
            let faces_total: u128 = faces.iter().map(|(_, c)| c).sum();
            for _ in 0..*count {
                total = total.checked_mul(faces_total)?;
            }
            let count = i64::try_from(*count).ok()?;
            for i in 0..4 {
                let least = faces.iter().map(|(n, _)| n[i]).min()?;
                let most = faces.iter().map(|(n, _)| n[i]).max()?;
                let spread = usize::try_from(most.checked_sub(least)?.checked_mul(count)?).ok()?;
                low[i] = low[i].checked_add(least.checked_mul(count)?)?;
                sizes[i] = sizes[i].checked_add(spread)?;
            }
        }
        let cells = sizes
            .iter()
            .try_fold(1usize, |acc, &s| acc.checked_mul(s))?;
        if cells > MAX_CELLS {
            return None;
        }
        let strides = [
            sizes[1] * sizes[2] * sizes[3],
            sizes[2] * sizes[3],
            sizes[3],
            1,
        ];
        Some(DenseBox {
            low,
            sizes,
            strides,
            total,
        })
    }

    /// The pool's distribution, summed die by die in the table.
    fn sum(
        &self,
        kinds: &[(Vec<(Net, u128)>, usize)],
        budget: &mut Budget,
    ) -> Result<Distribution<Net>, CoreError> {
        let cells: usize = self.sizes.iter().product();
        let (table, reach) = sum_table(kinds, &self.strides, cells, budget)?;
        // Reduced by their common factor while they are machine words, and the total is known:
        // neither is computed again in big integers.
        let mut common = self.total;
        for &w in &table[..=reach] {
            if common == 1 {
                break;
            }
            if w != 0 {
                common = common.gcd(&w);
            }
        }
        // Each cell's vector as an odometer of its digits, the last component moving fastest: no
        // division per cell.
        let mut digits = [0usize; 4];
        let mut entries: Vec<(Net, Weight)> = Vec::new();
        for &w in &table[..=reach] {
            if w != 0 {
                let net = std::array::from_fn(|i| self.low[i] + digits[i] as i64);
                entries.push((net, Weight::from(w / common)));
            }
            for i in (0..4).rev() {
                digits[i] += 1;
                if digits[i] < self.sizes[i] {
                    break;
                }
                digits[i] = 0;
            }
        }
        Distribution::from_sorted_with_total(entries, Weight::from(self.total / common))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distribution::Probability;
    use crate::limits::Limits;

    fn net_of(pool: &[(&str, usize)]) -> Distribution<Net> {
        let dice: Vec<(&SymbolDie, usize)> = pool
            .iter()
            .map(|&(name, n)| (genesys_die(name).expect("a Genesys die"), n))
            .collect();
        pool_net(&dice, &mut Limits::default().budget()).expect("small")
    }

    /// Every roll of the pool enumerated: the faces' letters counted and cancelled by hand.
    fn brute(pool: &[(&str, usize)]) -> Distribution<Net> {
        let dice: Vec<&SymbolDie> = pool
            .iter()
            .flat_map(|&(name, n)| std::iter::repeat_n(genesys_die(name).expect("die"), n))
            .collect();
        let mut rolls: Vec<String> = vec![String::new()];
        for die in &dice {
            rolls = rolls
                .iter()
                .flat_map(|r| die.faces.iter().map(move |f| format!("{r}{f}")))
                .collect();
        }
        Distribution::from_weights(rolls.iter().map(|letters| {
            let count = |c: char| letters.chars().filter(|&x| x == c).count() as i64;
            let (s, a, tr, f, t, de) = (
                count('s'),
                count('a'),
                count('T'),
                count('f'),
                count('t'),
                count('D'),
            );
            ([s + tr - f - de, a - t, tr, de], Weight::from(1u32))
        }))
        .expect("rolls")
    }

    #[test]
    fn pools_match_every_roll_enumerated() {
        for pool in [
            vec![("ability", 2), ("difficulty", 1)],
            vec![("proficiency", 1), ("challenge", 1), ("boost", 1)],
            vec![
                ("ability", 1),
                ("proficiency", 1),
                ("setback", 2),
                ("difficulty", 1),
            ],
        ] {
            assert_eq!(net_of(&pool), brute(&pool), "{pool:?}");
        }
    }

    #[test]
    fn single_dice_by_hand() {
        let success = |d: &Distribution<Net>| d.probability_where(|n| n[0] >= 1);
        // An ability die shows a success on s, s, ss, sa: 4 of 8.
        assert_eq!(
            success(&net_of(&[("ability", 1)])),
            Probability::new(1u32.into(), 2u32.into())
        );
        // A proficiency die on s, s, ss, ss, sa, sa, sa and the triumph: 8 of 12.
        assert_eq!(
            success(&net_of(&[("proficiency", 1)])),
            Probability::new(2u32.into(), 3u32.into())
        );
        // A challenge die's despair is a failure too: 1 in 12 shows a despair.
        let challenge = net_of(&[("challenge", 1)]);
        assert_eq!(
            challenge.probability_where(|n| n[3] == 1 && n[0] == -1),
            Probability::new(1u32.into(), 12u32.into())
        );
    }

    #[test]
    fn three_ability_two_proficiency_against_three_difficulty() {
        let d = net_of(&[("ability", 3), ("proficiency", 2), ("difficulty", 3)]);
        assert_eq!(d.total(), &Weight::from(8u32.pow(6) * 144));
        // The chance of success is the same whether read from the joint law or summed by hand from
        // the success margin alone (a second, independent pass over the same dice).
        let margin = net_of(&[("ability", 3), ("proficiency", 2), ("difficulty", 3)]).map(|n| n[0]);
        assert_eq!(
            d.probability_where(|n| n[0] >= 1),
            margin.probability_where(|m| *m >= 1)
        );
    }

    #[test]
    fn the_dense_table_matches_the_pairwise_convolution() {
        // Every kind at once and each kind alone, in counts up to four: the table's shift, strides
        // and order against the convolution of the same dice.
        let names = [
            "boost",
            "setback",
            "ability",
            "difficulty",
            "proficiency",
            "challenge",
        ];
        let mut pools: Vec<Vec<(&SymbolDie, usize)>> = Vec::new();
        for count in 0..=4 {
            pools.push(
                names
                    .iter()
                    .map(|n| (genesys_die(n).expect("die"), count))
                    .collect(),
            );
            for name in names {
                pools.push(vec![(genesys_die(name).expect("die"), count)]);
            }
        }
        for pool in pools {
            let budget = &mut Budget::unlimited();
            let dense = pool_net(&pool, budget).expect("small");
            let convolved = pool_net_convolved(&pool, budget).expect("small");
            assert_eq!(dense, convolved, "{pool:?}");
            assert_eq!(dense.total(), convolved.total(), "{pool:?}");
        }
    }

    #[test]
    fn a_pool_past_the_table_is_convolved_instead() {
        let kinds: Vec<(Vec<(Net, u128)>, usize)> = GENESYS
            .iter()
            .map(|d| (faces_of(d).expect("faces"), 60))
            .collect();
        assert!(DenseBox::for_pool(&kinds).is_none());
        let few: Vec<(Vec<(Net, u128)>, usize)> = kinds.into_iter().map(|(f, _)| (f, 3)).collect();
        assert!(DenseBox::for_pool(&few).is_some());
    }

    #[test]
    fn a_face_with_an_unknown_letter_is_refused() {
        assert!(face_net("sx").is_err());
    }
}
