//! Omen-rules' integration tests: one binary, one module per area. Tests of a seed item are named after
//! the item (`m5_…` for 000-M5, in a file whose header says `//! Seed 000: …`); `coverage` checks
//! that every spec item has one.

mod coverage;
mod essence;
mod games;
mod golden;
mod hprpg;
mod hprpg_actions;
mod hprpg_character;
mod hprpg_game;
mod hprpg_reduce_delivery;
mod hprpg_stored_rolls;
mod hprpg_summary;
mod hprpg_versions;
mod lore;
mod lore_progression;
mod luck;
mod registry;
mod schemas;
mod spelldice;
mod support;
mod t13;
mod t13_levels;
