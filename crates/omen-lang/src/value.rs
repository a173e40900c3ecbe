//! The values a program produces: numbers, true/false, labels and tuples.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

/// One outcome of a program. Ordered (numbers, then true/false, then labels, then tuples) so that
/// distributions can hold any mix; comparisons in the language only ever compare values of one kind.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    Bool(bool),
    /// A label such as `"bad"`.
    Text(Arc<str>),
    Tuple(Arc<[Value]>),
}

impl Value {
    pub fn text(s: &str) -> Self {
        Value::Text(Arc::from(s))
    }

    /// How the kind of this value reads in an error message.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "a number",
            Value::Bool(_) => "true/false",
            Value::Text(_) => "a label",
            Value::Tuple(_) => "a tuple",
        }
    }

    /// Whether `<`, `>` and friends may compare the two (same kind, tuples of the same length).
    pub fn comparable(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Int(_), Value::Int(_))
            | (Value::Bool(_), Value::Bool(_))
            | (Value::Text(_), Value::Text(_)) => true,
            (Value::Tuple(a), Value::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.comparable(y))
            }
            _ => false,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Text(s) => write!(f, "{s}"),
            Value::Tuple(items) => {
                write!(f, "(")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    match v {
                        Value::Text(s) => write!(f, "\"{s}\"")?,
                        other => write!(f, "{other}")?,
                    }
                }
                if items.len() == 1 {
                    write!(f, ",")?;
                }
                write!(f, ")")
            }
        }
    }
}
