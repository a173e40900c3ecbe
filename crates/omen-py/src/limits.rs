//! The CLI's limit flags as keyword arguments: the same names (with `_` for `-`), the same defaults
//! (`Limits::default()`) and the same ceilings (`Ceilings`), so a notebook and `omen prob` refuse the
//! same inputs.

use std::time::{Duration, Instant};

use omen_core::{Cancel, Ceilings, Limits};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};

/// One limit: its keyword, the lowest and highest value the CLI's flag accepts, and where it goes.
struct LimitField {
    name: &'static str,
    lowest: u64,
    highest: u64,
    slot: fn(&mut Limits) -> &mut u64,
}

/// Every limit flag of `omen prob` and `omen roll` (crates/omen-cli/src/args.rs, `LimitArgs`), in
/// the CLI's order.
const FIELDS: [LimitField; 10] = [
    LimitField {
        name: "explode_depth",
        lowest: 0,
        highest: Ceilings::EXPLODE_DEPTH,
        slot: |l| &mut l.explode_depth,
    },
    LimitField {
        name: "max_dice",
        lowest: 0,
        highest: Ceilings::MAX_DICE,
        slot: |l| &mut l.max_dice,
    },
    LimitField {
        name: "max_sides",
        lowest: 1,
        highest: Ceilings::MAX_SIDES,
        slot: |l| &mut l.max_sides,
    },
    LimitField {
        name: "max_outcomes",
        lowest: 1,
        highest: Ceilings::MAX_OUTCOMES,
        slot: |l| &mut l.max_outcomes,
    },
    LimitField {
        name: "max_states",
        lowest: 1,
        highest: Ceilings::MAX_STATES,
        slot: |l| &mut l.max_states,
    },
    LimitField {
        name: "max_chain_states",
        lowest: 1,
        highest: Ceilings::MAX_CHAIN_STATES,
        slot: |l| &mut l.max_chain_states,
    },
    LimitField {
        name: "max_process_steps",
        lowest: 0,
        highest: Ceilings::MAX_PROCESS_STEPS,
        slot: |l| &mut l.max_process_steps,
    },
    LimitField {
        name: "max_call_depth",
        lowest: 0,
        highest: Ceilings::MAX_CALL_DEPTH,
        slot: |l| &mut l.max_call_depth,
    },
    LimitField {
        name: "work_budget",
        lowest: 0,
        highest: Ceilings::WORK_BUDGET,
        slot: |l| &mut l.work_budget,
    },
    LimitField {
        name: "max_output",
        lowest: 0,
        highest: Ceilings::MAX_OUTPUT,
        slot: |l| &mut l.max_output,
    },
];

/// The keywords, which are the CLI's flags with `_` for `-`.
pub const NAMES: [&str; 10] = [
    FIELDS[0].name,
    FIELDS[1].name,
    FIELDS[2].name,
    FIELDS[3].name,
    FIELDS[4].name,
    FIELDS[5].name,
    FIELDS[6].name,
    FIELDS[7].name,
    FIELDS[8].name,
    FIELDS[9].name,
];

/// The limits' keywords with their defaults and ceilings, for the Python layer to build its
/// signatures from: `{name: (default, lowest, highest)}`, in the CLI's order.
pub fn defaults<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let mut limits = Limits::default();
    for field in &FIELDS {
        let default = *(field.slot)(&mut limits);
        out.set_item(field.name, (default, field.lowest, field.highest))?;
    }
    Ok(out)
}

/// The limits named in `given` (a dict of keyword arguments), the defaults for the rest, and a
/// cancellation handle with the deadline `timeout` seconds from now, if any.
///
/// # Errors
/// `TypeError` for an unknown keyword or a value that is not an integer; `ValueError` for a value
/// outside the CLI's range, or a timeout that is negative or not finite.
pub fn read(given: Option<&Bound<'_, PyDict>>, timeout: Option<f64>) -> PyResult<Limits> {
    let mut limits = Limits::default();
    if let Some(given) = given {
        for (key, value) in given.iter() {
            let name: String = key.extract()?;
            let Some(field) = FIELDS.iter().find(|f| f.name == name) else {
                let known: Vec<&str> = FIELDS.iter().map(|f| f.name).collect();
                return Err(PyTypeError::new_err(format!(
                    "unknown limit `{name}`; the limits are {}",
                    known.join(", ")
                )));
            };
            if value.is_instance_of::<PyBool>() {
                return Err(PyTypeError::new_err(format!(
                    "{name} takes an integer, not true/false"
                )));
            }
            let number: i128 = value
                .extract()
                .map_err(|_| PyTypeError::new_err(format!("{name} takes an integer")))?;
            if number < i128::from(field.lowest) || number > i128::from(field.highest) {
                return Err(PyValueError::new_err(format!(
                    "{name} must be from {} to {}, got {number}",
                    field.lowest, field.highest
                )));
            }
            *(field.slot)(&mut limits) = number as u64;
        }
    }
    if let Some(seconds) = timeout {
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(PyValueError::new_err(format!(
                "timeout must be a number of seconds, 0 or more, got {seconds}"
            )));
        }
        // Past a year the deadline is as good as none, and `Instant` arithmetic cannot overflow.
        let seconds = seconds.min(365.0 * 86_400.0);
        limits.cancel =
            Cancel::new().with_deadline(Instant::now() + Duration::from_secs_f64(seconds));
    }
    Ok(limits)
}
