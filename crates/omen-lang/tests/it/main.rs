//! Omen-lang's integration tests: one binary, one module per area.

mod anydice;
mod anydice_among;
mod anydice_approximate;
mod anydice_pool_call;
mod anydice_programs;
mod anydice_properties;
mod dialect_aliases;
mod dialect_constructs;
mod dialect_more_constructs;
mod dialect_selectors;
mod dialects;
mod engine;
mod examples;
mod fractions;
mod fuzz;
mod hostile_budget;
mod modifier_checks;
mod parse;
mod pool_folds;
mod pools;
mod readings;
mod readme;
mod roller;
mod scripts;
mod seed_tables;
mod support;
