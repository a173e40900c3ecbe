//! Characters that carry state from roll to roll, as every face reaches them: the interface (defined
//! in [`crate::vocabulary::stateful`], which names no game) and the registered games that offer it.
//!
//! ```
//! use omen_core::{Limits, ScriptedDice};
//! use serde_json::json;
//!
//! let luck = omen_rules::stateful::game("luck").expect("luck keeps state");
//! let state = luck.new_character(&json!({ "intrinsic": [{ "source": "halfling", "value": 2 }] }))?;
//! // A d50 of 50 with a +2 halfling modifier is good luck; the history starts a good run.
//! let applied = luck.apply(&state, &json!({ "action": "roll" }), &mut ScriptedDice::new(vec![50]), &Limits::default())?;
//! assert_eq!(applied.result["outcome"], "good");
//! assert_eq!(applied.state["history"], json!({ "kind": "good", "length": 1 }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use crate::vocabulary::stateful::*;
pub use crate::{game, games};
