//! Omen's dice language.

pub mod diagnostic;
pub mod span;
pub mod syntax;
