//! Syntax: the lexer, the parser and the tree they produce.

pub mod ast;
pub mod d20_terms;
pub mod dialect;
pub mod foundry_terms;
pub mod lexer;
pub mod parser;
pub mod render;

pub use dialect::Dialect;
pub use parser::{ParseLimits, Parsed, parse, parse_with};
