//! What the walks share: a state map, what a state costs, a reroll or explosion as they take it.

use std::collections::BTreeMap;

use super::{Modifier, Point};
use crate::distribution::Probability;

pub(super) type Walk<K> = BTreeMap<K, Probability>;

/// What one state of a walk costs per face it is crossed with, besides its results.
pub(super) const STATE_COST: u64 = 64;

/// A reroll or explosion, as the walks take it.
#[derive(Clone, Copy)]
pub(super) struct Step {
    pub point: Point,
    pub cap: Option<u64>,
    pub recursive: bool,
    pub explode: bool,
}

impl Step {
    /// The faces a new result may show, alike: an uncapped reroll until no face meets the point
    /// settles each result on one of the others (the faces that settled, in the order they did,
    /// are as likely as any), so it is rolled among those at once.
    pub fn new_faces(self, faces: &[i64]) -> Vec<i64> {
        if !self.explode && self.recursive && self.cap.is_none() {
            faces
                .iter()
                .copied()
                .filter(|&f| !self.point.meets(f))
                .collect()
        } else {
            faces.to_vec()
        }
    }
}

impl Modifier {
    /// The reroll or explosion this modifier is, if it is one.
    pub(super) fn step(&self) -> Option<Step> {
        match *self {
            Modifier::Reroll {
                point,
                cap,
                recursive,
            }
            | Modifier::Explode {
                point,
                cap,
                recursive,
            } => Some(Step {
                point,
                cap,
                recursive,
                explode: matches!(self, Modifier::Explode { .. }),
            }),
            _ => None,
        }
    }
}
