//! The names and signatures of AnyDice's function library: what a call is matched against. Running
//! one is the interpreter's work (library.rs).

use super::ast::Kind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Library {
    Absolute,
    Contains,
    Count,
    Explode,
    Highest,
    Lowest,
    Middle,
    HighestOf,
    LowestOf,
    /// `[highest N of A and B]` (2025): the highest N of the dice of A and B together.
    HighestAmong,
    /// `[lowest N of A and B]` (2025).
    LowestAmong,
    Maximum,
    Reverse,
    Sort,
}

impl Library {
    pub fn all() -> Vec<Library> {
        use Library::*;
        vec![
            Absolute,
            Contains,
            Count,
            Explode,
            Highest,
            Lowest,
            Middle,
            HighestOf,
            LowestOf,
            HighestAmong,
            LowestAmong,
            Maximum,
            Reverse,
            Sort,
        ]
    }

    pub fn signature(self) -> &'static str {
        match self {
            Library::Absolute => "absolute ?",
            Library::Contains => "? contains ?",
            Library::Count => "count ? in ?",
            Library::Explode => "explode ?",
            Library::Highest => "highest ? of ?",
            Library::Lowest => "lowest ? of ?",
            Library::Middle => "middle ? of ?",
            Library::HighestOf => "highest of ? and ?",
            Library::LowestOf => "lowest of ? and ?",
            Library::HighestAmong => "highest ? of ? and ?",
            Library::LowestAmong => "lowest ? of ? and ?",
            Library::Maximum => "maximum of ?",
            Library::Reverse => "reverse ?",
            Library::Sort => "sort ?",
        }
    }

    /// The parameters' types, as AnyDice's documentation declares them.
    pub fn kinds(self) -> &'static [Kind] {
        use Kind::{Die, Number, Sequence};
        match self {
            Library::Absolute => &[Number],
            Library::Contains => &[Sequence, Number],
            Library::Count => &[Sequence, Sequence],
            Library::Explode | Library::Maximum => &[Die],
            Library::Highest | Library::Lowest | Library::Middle => &[Number, Die],
            Library::HighestOf | Library::LowestOf => &[Number, Number],
            Library::HighestAmong | Library::LowestAmong => &[Number, Die, Die],
            Library::Reverse | Library::Sort => &[Sequence],
        }
    }
}
