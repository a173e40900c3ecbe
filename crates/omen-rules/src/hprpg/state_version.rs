//! The versions of the hprpg state format and the step from each to the next.
//!
//! A logged action records the state it started from, not that state's version, and a replay applies
//! the action to that state as recorded. So the state carries its own version: an action replayed
//! from an older log must leave the state it left then, and the version in the state is how the rules
//! know which behaviour that was. Version 1 wrote no version; it is the default when none is written.
//!
//! * 1: the first format.
//! * 2: a casting left waiting records its delivery (003-M17), so a reduction cannot change the kind
//!   of spell. A casting left waiting by version 1 keeps no delivery: its reductions are checked
//!   against the requirement alone, as they were.

use serde_json::Value;

use crate::vocabulary::stateful::Problems;

/// The version of the state written now.
pub const CURRENT: u32 = 2;

/// The first version that records a waiting casting's delivery (003-M17).
pub const RECORDS_DELIVERY: u32 = 2;

/// The version of a state that writes none.
pub(crate) fn first() -> u32 {
    1
}

/// Version 1 is written by leaving the field out, so a state of version 1 keeps its JSON as it was.
pub(crate) fn is_first(version: &u32) -> bool {
    *version == 1
}

/// Converts a state written at `version` into the current format: each step marks the state with
/// the version it reaches, after which the actions behave as that version's.
///
/// # Errors
/// A state that is not a JSON object.
pub fn upgrade(version: u32, mut state: Value) -> Result<Value, Problems> {
    let Some(object) = state.as_object_mut() else {
        return Err(Problems(vec![
            "an hprpg state is a JSON object with a `sheet`; this one is not an object".to_string(),
        ]));
    };
    if version < RECORDS_DELIVERY {
        // Nothing else changes: a waiting casting keeps no delivery, since version 1 did not
        // record which one it was (a requirement of 2 is WANDTIP to 2 targets or RANGED to 1).
        object.insert("version".to_string(), Value::from(RECORDS_DELIVERY));
    }
    Ok(state)
}

/// A problem with the version a state says it has.
pub(crate) fn problem(version: u32) -> Option<String> {
    (version == 0 || version > CURRENT).then(|| {
        format!(
            "the state says version {version}, which this build does not write (1..={CURRENT}); \
             fix the version or upgrade omen"
        )
    })
}
