//! AnyDice's values: numbers, sequences, dice (the empty die among them) and collections of dice
//! not yet summed, with the conversions between them that every operator shares.

use std::collections::HashMap;
use std::rc::Rc;

use omen_core::{Budget, CoreError, Distribution, Limits};

/// A die's distribution, shared: variables are copied into every call's frame.
pub type Dist = Rc<Distribution<i64>>;

/// A frame of variables.
pub type Frame = HashMap<String, Val>;

/// How a die was written when it was `NdX` of a number `X`: `[VAR]` in an output's name shows it so.
pub type Shape = Option<(u64, i64)>;

#[derive(Clone, Debug)]
pub enum Val {
    Number(i64),
    Sequence(Rc<Vec<i64>>),
    /// One die (never empty: that is [`Val::Empty`]).
    Die(Dist, Shape),
    /// `count` (at least 2) dice of `die`, kept apart for `#`, `@` and `:s` until something sums them.
    Pool {
        count: usize,
        die: Dist,
        shape: Shape,
    },
    /// `d{}`: no outcomes at all.
    Empty,
}

/// Why a computation stopped: a core limit or error, or one of AnyDice's calculation errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    Core(CoreError),
    Calculation {
        message: String,
        help: Option<String>,
    },
}

impl From<CoreError> for Fault {
    fn from(error: CoreError) -> Self {
        Fault::Core(error)
    }
}

impl Fault {
    pub fn calculation(message: impl Into<String>) -> Self {
        Fault::Calculation {
            message: message.into(),
            help: None,
        }
    }

    pub fn with_help(self, help: impl Into<String>) -> Self {
        match self {
            Fault::Calculation { message, .. } => Fault::Calculation {
                message,
                help: Some(help.into()),
            },
            other => other,
        }
    }
}

pub type Outcome<T> = Result<T, Fault>;

/// The limits and the work budget every operation pays from.
pub struct Work {
    pub limits: Limits,
    pub budget: Budget,
}

impl Work {
    /// Pays for `n` units of simple work (an element of a sequence, a variable copied).
    pub fn pay(&mut self, n: usize) -> Outcome<()> {
        self.budget.spend(n as u64)?;
        Ok(())
    }

    /// A sequence of `len` elements may be built: checks the size cap and pays for it first.
    pub fn allow_sequence(&mut self, len: u128) -> Outcome<()> {
        if len > self.limits.max_outcomes as u128 {
            return Err(Fault::calculation(format!(
                "a sequence of {len} elements is longer than the limit {}",
                self.limits.max_outcomes
            ))
            .with_help("raise --max-outcomes or shorten the sequence"));
        }
        self.budget.spend_estimate(len)?;
        Ok(())
    }
}

/// The sum of a sequence, as AnyDice reads a sequence where a number is wanted.
pub fn sum(items: &[i64]) -> Outcome<i64> {
    items
        .iter()
        .try_fold(0i64, |acc, &x| acc.checked_add(x))
        .ok_or(Fault::Core(CoreError::Overflow))
}

impl Val {
    pub fn die(d: Distribution<i64>) -> Val {
        Val::Die(Rc::new(d), None)
    }

    pub fn sequence(items: Vec<i64>) -> Val {
        Val::Sequence(Rc::new(items))
    }

    /// A number or a sequence (summed); `None` for dice.
    pub fn as_number(&self) -> Outcome<Option<i64>> {
        match self {
            Val::Number(n) => Ok(Some(*n)),
            Val::Sequence(s) => sum(s).map(Some),
            _ => Ok(None),
        }
    }

    /// The value as one summed die, `None` for the empty die.
    pub fn to_die(&self, work: &mut Work) -> Outcome<Option<Dist>> {
        Ok(match self {
            Val::Number(n) => Some(Rc::new(Distribution::constant(*n))),
            Val::Sequence(s) => Some(Rc::new(Distribution::constant(sum(s)?))),
            Val::Die(d, _) => Some(d.clone()),
            Val::Pool { count, die, .. } => Some(Rc::new(die.sum_of(
                *count,
                &work.limits,
                &mut work.budget,
            )?)),
            Val::Empty => None,
        })
    }

    /// The value summed: a die stays a die, a collection becomes its sum.
    pub fn summed(self, work: &mut Work) -> Outcome<Val> {
        Ok(match self {
            Val::Sequence(s) => Val::Number(sum(&s)?),
            Val::Pool { .. } => match self.to_die(work)? {
                Some(d) => Val::Die(d, None),
                None => Val::Empty,
            },
            other => other,
        })
    }

    /// How AnyDice names the value's kind in its messages and in `[VAR]`: `d{?}`, `{?}`, `2d6`.
    pub fn render(&self) -> String {
        match self {
            Val::Number(n) => n.to_string(),
            Val::Sequence(_) => "{?}".into(),
            Val::Die(_, Some((1, sides))) => format!("d{sides}"),
            Val::Die(_, Some((count, sides)))
            | Val::Pool {
                shape: Some((count, sides)),
                ..
            } => {
                format!("{count}d{sides}")
            }
            Val::Die(..) | Val::Pool { .. } => "d{?}".into(),
            Val::Empty => "d{}".into(),
        }
    }

    /// The distribution an output shows: a sequence one equally likely face per element; `None` for
    /// an empty table.
    pub fn output(&self, work: &mut Work) -> Outcome<Option<Distribution<i64>>> {
        match self {
            Val::Sequence(s) if s.is_empty() => Ok(None),
            Val::Sequence(s) => {
                work.pay(s.len())?;
                Ok(Some(Distribution::uniform(s.iter().copied())?))
            }
            other => Ok(other.to_die(work)?.map(|d| (*d).clone())),
        }
    }
}

/// A die with the given faces, one face per element (repeats weigh more); empty for no faces.
pub fn die_of_faces(faces: &[i64], work: &mut Work) -> Outcome<Val> {
    if faces.is_empty() {
        return Ok(Val::Empty);
    }
    work.pay(faces.len())?;
    Ok(Val::die(Distribution::uniform(faces.iter().copied())?))
}

/// `dN` for a number: 1..N, `d0` the die {0}, negative N the faces N..-1.
pub fn standard_die(n: i64, work: &mut Work) -> Outcome<Val> {
    let sides = n.unsigned_abs();
    if sides > work.limits.max_sides {
        return Err(Fault::Core(CoreError::TooManySides {
            sides: n,
            limit: work.limits.max_sides,
        }));
    }
    work.pay(sides as usize)?;
    let d = match n.cmp(&0) {
        std::cmp::Ordering::Greater => Distribution::die(n)?,
        std::cmp::Ordering::Equal => Distribution::constant(0),
        std::cmp::Ordering::Less => Distribution::uniform(n..=-1)?,
    };
    Ok(Val::Die(Rc::new(d), Some((1, n))))
}
