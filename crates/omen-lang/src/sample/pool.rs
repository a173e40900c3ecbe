//! The roller's pools: the dice rolled once, every reading taken from them, and the roll shown as
//! a group of its members (each die, card or symbol face) whose value is the tuple of readings.
//!
//! The readings are computed here from the sorted dice themselves ([`read_dice`]), not by the
//! core's fold the exact engine uses: the two interpreters check each other.

use omen_core::grouping::{Multiset, Raises};
use omen_core::symbols::{SymbolDie, face_net};
use omen_core::{CoreError, Die, DieSource};

use super::{RollKind, RollNode, Sampler, int};
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::pool::{Kept, die_size, effect, faces_with_counts, member_size, read_dice, reroll_cap};
use crate::program::{
    Node, NodeKind, PoolMember, PoolNode, PoolSource, ReadingKind, ReadingNode, SidesNode,
};
use crate::span::Span;
use crate::value::Value;

impl Sampler<'_> {
    #[inline(never)]
    pub(super) fn pool(
        &mut self,
        span: Span,
        pool: &PoolNode,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let at = |e: CoreError| core_diagnostic(&e, span);
        let mut members: Vec<RollNode> = Vec::new();
        // Each die with its kind, numbered as the pool's members are written.
        let mut dice: Vec<(i64, usize)> = Vec::new();
        let mut sizes: Vec<Option<u64>> = Vec::new();
        match &pool.source {
            PoolSource::Dice(list) => {
                for (kind, member) in list.iter().enumerate() {
                    sizes.push(member_size(member));
                    self.member(member, kind, &mut members, &mut dice)?;
                }
            }
            PoolSource::Draw { count, deck } => {
                let count = self.node(count)?;
                let n = int(&count, "the number of cards drawn")?;
                let n = self.limits.check_dice(n).map_err(at)?;
                for card in self.draw(deck, n, span)? {
                    dice.push((card, 0));
                    members.push(constant(deck.span, Value::Int(card)));
                }
            }
            PoolSource::Symbols(kinds) => return self.symbols(span, kinds, pool.readings.len()),
            PoolSource::Reroll { kept, dice: kinds } => {
                let kept = self.node(kept)?;
                let read = Kept::from_value(&kept.value);
                for &(x, kind) in &read.kept {
                    dice.push((x, kind));
                    members.push(constant(kept.span, Value::Int(x)));
                }
                for (kind, (die, &again)) in kinds.iter().zip(&read.again).enumerate() {
                    for _ in 0..again {
                        let one = self.node(die)?;
                        dice.push((int(&one, "a die of a pool")?, kind));
                        members.push(one);
                    }
                }
                sizes = kinds.iter().map(die_size).collect();
            }
        }
        dice.sort_unstable();
        let faces: Vec<i64> = dice.iter().map(|&(x, _)| x).collect();
        let mut values = Vec::with_capacity(pool.readings.len());
        for reading in &pool.readings {
            if let Some(value) = self.fold(reading, &faces, span)? {
                values.push(value);
                continue;
            }
            let mut args = Vec::with_capacity(reading.args.len());
            for a in &reading.args {
                let node = self.node(a)?;
                args.push(int(&node, "a reading's argument")?);
            }
            let value = match reading.kind {
                ReadingKind::Kept(f) => {
                    let cap = reroll_cap(&args, span)?;
                    self.kept(f, cap, &dice, &sizes, span)?
                }
                ReadingKind::Effect => {
                    let sized: Vec<(i64, u64)> = dice
                        .iter()
                        .map(|&(x, kind)| (x, sizes.get(kind).copied().flatten().unwrap_or(0)))
                        .collect();
                    Value::Int(effect(&sized, args[0]))
                }
                _ => {
                    let budget = &mut *self.source.budget;
                    let mut raises =
                        |target: i64| Raises::new(target).solve(&multiset(&faces), budget);
                    Value::Int(read_dice(reading.kind, &args, &faces, &mut raises).map_err(at)?)
                }
            };
            values.push(value);
        }
        let kept = vec![true; members.len()];
        Ok((
            Value::Tuple(values.into()),
            RollKind::Group { members, kept },
        ))
    }

    /// What `reroll(p, f, cap)` reads of the roll: the dice gone through from the lowest face,
    /// among equal faces the larger dice first, each that `f` chooses rolled again while fewer
    /// than `cap` are.
    fn kept(
        &mut self,
        f: usize,
        cap: usize,
        dice: &[(i64, usize)],
        sizes: &[Option<u64>],
        span: Span,
    ) -> Result<Value, Diagnostic> {
        let mut order = dice.to_vec();
        order.sort_by_key(|&(x, kind)| {
            (
                x,
                std::cmp::Reverse(sizes.get(kind).copied().flatten().unwrap_or(0)),
                kind,
            )
        });
        let mut read = Kept::new(sizes.len());
        let mut rolled = 0usize;
        let mut choices: Vec<(i64, bool)> = Vec::new();
        for (x, kind) in order {
            let again = match choices.iter().find(|c| c.0 == x) {
                Some(&(_, again)) => again,
                None => {
                    let choice = self.call(f, &[Value::Int(x)], span)?;
                    let Value::Bool(again) = choice.value else {
                        return Err(crate::diagnostic::kind_error(
                            span,
                            "a reroll's choice",
                            "true/false",
                            &choice.value,
                        ));
                    };
                    choices.push((x, again));
                    again
                }
            };
            if again && rolled < cap {
                rolled += 1;
                read.again[kind] += 1;
            } else {
                read.kept.push((x, kind));
            }
        }
        read.kept.sort_unstable();
        Ok(read.to_value())
    }

    /// A fold or a score of the one roll, `None` for the other readings: the functions the exact
    /// engine tabulates, called here over the faces shown, ascending, each with how many show it.
    fn fold(
        &mut self,
        reading: &ReadingNode,
        sorted: &[i64],
        span: Span,
    ) -> Result<Option<Value>, Diagnostic> {
        let faces = faces_with_counts(sorted);
        match reading.kind {
            ReadingKind::Fold { step, finish } => {
                let mut state = match reading.args.first() {
                    Some(start) => self.node(start)?.value,
                    None => Value::Int(0),
                };
                for (x, n) in faces {
                    let args = [state, Value::Int(x), Value::Int(n)];
                    state = self.call(step, &args, span)?.value;
                }
                if let Some(f) = finish {
                    state = self.call(f, &[state], span)?.value;
                }
                Ok(Some(state))
            }
            ReadingKind::Score(f) => {
                let mut sum = 0i64;
                for (x, n) in faces {
                    let score = self.call(f, &[Value::Int(x)], span)?;
                    let score = int(&score, "a score")?;
                    sum = n
                        .checked_mul(score)
                        .and_then(|v| v.checked_add(sum))
                        .ok_or_else(|| core_diagnostic(&CoreError::Overflow, span))?;
                }
                Ok(Some(Value::Int(sum)))
            }
            _ => Ok(None),
        }
    }

    /// Rolls one member: a dice term as written, or its roll `count` times.
    fn member(
        &mut self,
        member: &PoolMember,
        kind: usize,
        members: &mut Vec<RollNode>,
        dice: &mut Vec<(i64, usize)>,
    ) -> Result<(), Diagnostic> {
        match member {
            PoolMember::Dice(term) => {
                let roll = self.node(term)?;
                if let RollKind::Dice { dice: views, .. } = &roll.kind {
                    // A rerolled die stays in the transcript but leaves the pool.
                    let kept = views.iter().filter(|v| !v.marks.contains(&"rerolled"));
                    dice.extend(kept.map(|v| (v.value, kind)));
                }
                members.push(roll);
            }
            PoolMember::Repeat { count, roll } => {
                let count = self.node(count)?;
                let n = int(&count, "the number of rolls")?;
                let n = self
                    .limits
                    .check_dice(n)
                    .map_err(|e| core_diagnostic(&e, count.span))?;
                for _ in 0..n {
                    let one = self.node(roll)?;
                    dice.push((int(&one, "a die of a pool")?, kind));
                    members.push(one);
                }
            }
        }
        Ok(())
    }

    /// `n` cards from the deck, without replacement: each drawn uniformly from those left.
    fn draw(&mut self, deck: &Node, n: usize, span: Span) -> Result<Vec<i64>, Diagnostic> {
        let NodeKind::Dice(d) = &deck.kind else {
            return Err(Diagnostic::error(
                "bad-deck",
                deck.span,
                "a deck is one die",
            ));
        };
        let SidesNode::Fixed(die) = &d.sides else {
            return Err(Diagnostic::error(
                "bad-deck",
                deck.span,
                "a deck is one die",
            ));
        };
        let size = die.face_count();
        if n as u64 > size {
            return Err(Diagnostic::error(
                "too-many-cards",
                span,
                format!("cannot draw {n} cards from a deck of {size}"),
            )
            .with_help("draw at most as many cards as the deck lists faces"));
        }
        let mut left: Vec<i64> = (0..size).map(|i| die.face(i)).collect();
        let mut hand = Vec::with_capacity(n);
        for _ in 0..n {
            let pick = Die::standard(left.len() as i64, self.limits)
                .and_then(|d| self.source.roll(&d))
                .map_err(|e| core_diagnostic(&e, span))?;
            hand.push(left.swap_remove((pick - 1) as usize));
        }
        Ok(hand)
    }

    /// A Genesys pool: each die's face shown by its letters, each reading the summed net vector.
    fn symbols(
        &mut self,
        span: Span,
        kinds: &[(i64, &'static SymbolDie)],
        readings: usize,
    ) -> Result<(Value, RollKind), Diagnostic> {
        let at = |e: CoreError| core_diagnostic(&e, span);
        let mut members = Vec::new();
        let mut net = [0i64; 4];
        for &(count, die) in kinds {
            let count = self.limits.check_dice(count).map_err(at)?;
            let sides = Die::standard(die.faces.len() as i64, self.limits).map_err(at)?;
            for _ in 0..count {
                let face = die.faces[(self.source.roll(&sides).map_err(at)? - 1) as usize];
                let face_net = face_net(face).map_err(at)?;
                for (total, x) in net.iter_mut().zip(face_net) {
                    *total = total
                        .checked_add(x)
                        .ok_or(CoreError::Overflow)
                        .map_err(at)?;
                }
                let shown = if face.is_empty() { "blank" } else { face };
                members.push(constant(
                    span,
                    Value::text(&format!("{} {shown}", die.name)),
                ));
            }
        }
        let one = Value::Tuple(net.iter().copied().map(Value::Int).collect());
        let value = Value::Tuple(std::iter::repeat_n(one, readings).collect());
        let kept = vec![true; members.len()];
        Ok((value, RollKind::Group { members, kept }))
    }
}

fn constant(span: Span, value: Value) -> RollNode {
    RollNode {
        span,
        value,
        kind: RollKind::Constant,
    }
}

/// The sorted dice as (face, how many), ascending.
fn multiset(sorted: &[i64]) -> Multiset {
    let mut out: Multiset = Vec::new();
    for &x in sorted {
        match out.last_mut() {
            Some((y, c)) if *y == x => *c += 1,
            _ => out.push((x, 1)),
        }
    }
    out
}
