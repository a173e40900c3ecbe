//! Syntax: the lexer, the parser and the tree they produce.

pub mod ast;
pub mod lexer;
pub mod parser;

pub use parser::{ParseLimits, parse};
