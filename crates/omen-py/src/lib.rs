//! The Rust half of the Python package `omen_dice` (distribution `omen-dice`), built by maturin
//! (`pip install ./crates/omen-py`): the exact engine and the seeded roller of `omen-lang`, with
//! the CLI's limits as keyword arguments. The module is `omen_dice._omen`; the package's Python
//! layer (`python/omen_dice/`) gives it Python's idioms (`Fraction`s, reprs, pandas and icepool).
//!
//! Every call compiles and computes on a thread of its own with the GIL released, and Ctrl-C stops
//! it (see `worker`). Nothing here prints.

// STYLE.md 16: no function over 100 lines; a longer one is split into named steps.
#![deny(clippy::too_many_lines)]

mod compute;
mod diagnostics;
mod limits;
mod rules;
mod values;
mod worker;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use compute::{Dice, Request};

/// The exact distribution of `source` as a dict of plain values (see `compute::prob`).
#[pyfunction]
#[pyo3(signature = (source, *, dialect=None, params=None, limits=None, timeout=None))]
fn prob<'py>(
    py: Python<'py>,
    source: String,
    dialect: Option<&str>,
    params: Option<&Bound<'py, PyDict>>,
    limits: Option<&Bound<'py, PyDict>>,
    timeout: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let limits = limits::read(limits, timeout)?;
    compute::prob(py, Request::new(source, dialect, params, limits)?)
}

/// One roll of `source` from `seed` (Omen's ChaCha roller), or from the faces in `dice`.
#[pyfunction]
#[pyo3(signature = (source, *, seed=None, dice=None, dialect=None, params=None, limits=None, timeout=None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments, each optional.
fn roll<'py>(
    py: Python<'py>,
    source: String,
    seed: Option<u64>,
    dice: Option<Vec<i64>>,
    dialect: Option<&str>,
    params: Option<&Bound<'py, PyDict>>,
    limits: Option<&Bound<'py, PyDict>>,
    timeout: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let limits = limits::read(limits, timeout)?;
    let dice = match (seed, dice) {
        (_, Some(values)) => Dice::Given(values),
        (Some(seed), None) => Dice::Seed(seed),
        (None, None) => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "a roll needs a seed or dice",
            ));
        }
    };
    compute::roll(py, Request::new(source, dialect, params, limits)?, dice)
}

/// The limits' keywords: `{name: (default, lowest, highest)}`.
#[pyfunction]
fn limit_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    limits::defaults(py)
}

/// The dialects' names, Omen's own first.
#[pyfunction]
fn dialects() -> Vec<&'static str> {
    omen_lang::syntax::Dialect::names().collect()
}

#[pymodule]
fn _omen(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(prob, m)?)?;
    m.add_function(wrap_pyfunction!(roll, m)?)?;
    m.add_function(wrap_pyfunction!(limit_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(dialects, m)?)?;
    m.add_function(wrap_pyfunction!(rules::rule_sets, m)?)?;
    m.add_function(wrap_pyfunction!(rules::analyse, m)?)?;
    m.add_function(wrap_pyfunction!(rules::reference_table, m)?)?;
    m.add("MAX_NESTING", omen_lang::MAX_NESTING)?;
    Ok(())
}
