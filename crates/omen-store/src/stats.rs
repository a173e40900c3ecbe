//! Dice statistics per session.
//!
//! A session is a campaign's entries on one UTC calendar day: simple to state, and the same for every
//! player wherever they sit.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::StoreError;
use crate::store::{LogFilter, Store};

/// How often one face came up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaceCount {
    pub face: i64,
    pub count: u64,
}

/// The dice of one kind rolled in a session.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DieStatistics {
    /// `d20`, `dF`, `d{1,1,2}`.
    pub die: String,
    pub sides: u64,
    pub rolled: u64,
    /// Every face that came up, in order of face.
    pub faces: Vec<FaceCount>,
    pub sum: i64,
    /// The mean face rolled.
    pub mean: f64,
    /// The mean a fair die gives, for comparison (absent for a die whose faces the name does not
    /// spell out).
    pub expected_mean: Option<f64>,
}

/// One session's dice: a campaign's log entries on one UTC calendar day.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionStatistics {
    pub campaign: String,
    /// The UTC date, `2026-11-23`.
    pub session: String,
    /// The first and last entry's times.
    pub first: String,
    pub last: String,
    /// Log entries in the session.
    pub entries: u64,
    /// Entries that rolled at least one die.
    pub rolls: u64,
    /// Dice rolled.
    pub dice: u64,
    /// By kind of die, in order of sides.
    pub by_die: Vec<DieStatistics>,
}

/// How often each face of each kind of die (by sides, then name) came up.
type FaceCounts = BTreeMap<(u64, String), BTreeMap<i64, u64>>;

/// The mean face of a fair die named as [`omen_core::Die`] displays it.
fn expected_mean(die: &str) -> Option<f64> {
    let rest = die.strip_prefix('d')?;
    match rest {
        "%" => Some(50.5),
        "F" => Some(0.0),
        _ if rest.starts_with('{') => {
            let faces: Vec<f64> = rest
                .trim_start_matches('{')
                .trim_end_matches('}')
                .split(',')
                .map(|face| face.trim().parse::<f64>().ok())
                .collect::<Option<_>>()?;
            (!faces.is_empty()).then(|| faces.iter().sum::<f64>() / faces.len() as f64)
        }
        _ => rest.parse::<f64>().ok().map(|sides| (sides + 1.0) / 2.0),
    }
}

impl Store {
    /// Dice statistics of the entries `filter` selects, one row per session (a campaign's entries on one
    /// UTC calendar day), oldest first.
    ///
    /// # Errors
    /// As [`Store::log`].
    pub fn statistics(&self, filter: &LogFilter) -> Result<Vec<SessionStatistics>, StoreError> {
        let entries = self.log(filter)?;
        let mut sessions: BTreeMap<(String, String), SessionStatistics> = BTreeMap::new();
        let mut faces: BTreeMap<(String, String), FaceCounts> = BTreeMap::new();
        for entry in &entries {
            let day = entry.time.get(..10).unwrap_or(&entry.time).to_string();
            let key = (day.clone(), entry.campaign.clone());
            let session = sessions
                .entry(key.clone())
                .or_insert_with(|| SessionStatistics {
                    campaign: entry.campaign.clone(),
                    session: day,
                    first: entry.time.clone(),
                    last: entry.time.clone(),
                    entries: 0,
                    rolls: 0,
                    dice: 0,
                    by_die: Vec::new(),
                });
            session.entries += 1;
            session.first = session.first.clone().min(entry.time.clone());
            session.last = session.last.clone().max(entry.time.clone());
            if !entry.dice.is_empty() {
                session.rolls += 1;
            }
            session.dice += entry.dice.len() as u64;
            let kinds = faces.entry(key).or_default();
            for die in &entry.dice {
                *kinds
                    .entry((die.sides, die.die.clone()))
                    .or_default()
                    .entry(die.face)
                    .or_default() += 1;
            }
        }
        for (key, kinds) in faces {
            let session = sessions.get_mut(&key).expect("every session has its faces");
            session.by_die = kinds
                .into_iter()
                .map(|((sides, die), counts)| {
                    let rolled: u64 = counts.values().sum();
                    let sum: i64 = counts
                        .iter()
                        .map(|(face, count)| face * *count as i64)
                        .sum();
                    DieStatistics {
                        expected_mean: expected_mean(&die),
                        die,
                        sides,
                        rolled,
                        faces: counts
                            .into_iter()
                            .map(|(face, count)| FaceCount { face, count })
                            .collect(),
                        sum,
                        mean: sum as f64 / rolled as f64,
                    }
                })
                .collect();
        }
        Ok(sessions.into_values().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_means_of_named_dice() {
        assert_eq!(expected_mean("d50"), Some(25.5));
        assert_eq!(expected_mean("d%"), Some(50.5));
        assert_eq!(expected_mean("dF"), Some(0.0));
        assert_eq!(expected_mean("d{1,1,4}"), Some(2.0));
        assert_eq!(expected_mean("x"), None);
    }
}
