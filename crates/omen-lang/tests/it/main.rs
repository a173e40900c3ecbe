//! Omen-lang's integration tests: one binary, one module per area.

mod engine;
mod examples;
mod fuzz;
mod parse;
mod readme;
mod roller;
mod scripts;
mod seed_tables;
mod support;
