//! The vocabulary every rule set shares: what a rule set says about itself ([`rule_set`]), characters
//! that keep state ([`stateful`]), analyses ([`analysis`]), exact numbers as text ([`render`]) and
//! the check of JSON against a schema ([`schema_check`]). Nothing here names a game: the games name
//! it, and the registry in the crate root names the games.

pub mod analysis;
pub mod render;
pub mod rule_set;
pub mod schema_check;
pub mod stateful;
