//! Omen's values as Python's: a whole number is an `int`, a fraction a `fractions.Fraction`,
//! true/false a `bool`, a label a `str`, a tuple a `tuple`; and back, for script parameters.

use num_rational::Ratio;
use omen_lang::Value;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyInt, PyString, PyTuple};

/// Tuples nested deeper than this are refused as parameters: the language's own tuples are built
/// by scripts, and a parameter this deep is a mistake, not a mechanic.
const DEEPEST_PARAMETER: usize = 32;

static FRACTION: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `fractions.Fraction`, imported once.
pub fn fraction_type(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    FRACTION.import(py, "fractions", "Fraction")
}

/// A Python `Fraction` `numer/denom`.
pub fn fraction<'py>(
    py: Python<'py>,
    numer: impl IntoPyObject<'py>,
    denom: impl IntoPyObject<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    fraction_type(py)?.call1((numer, denom))
}

static ZERO: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static FROM_BYTES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `Fraction(0)`, made once: fractions are immutable, and most answers' truncated mass is 0, where
/// building a new one cost a microsecond, a fifth of a small `prob` call.
pub fn zero_fraction(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let zero = ZERO.get_or_try_init(py, || {
        fraction_type(py)?.call1((0,)).map(pyo3::Bound::unbind)
    })?;
    Ok(zero.bind(py).clone())
}

/// A weight as a Python `int`: through a machine word where it fits, which under the stable ABI is
/// one call; a bigger one as its little-endian bytes through `int.from_bytes`, looked up once. The
/// bytes are written straight from the number's 64-bit digits: num-bigint's own `to_bytes_le` goes
/// bit by bit and took longer than Python's conversion.
pub fn weight<'py>(py: Python<'py>, w: &omen_core::Weight) -> PyResult<Bound<'py, PyAny>> {
    if let Some(small) = num_traits::ToPrimitive::to_u64(w) {
        return Ok(small.into_pyobject(py)?.into_any());
    }
    let from_bytes = FROM_BYTES.get_or_try_init(py, || {
        py.get_type::<PyInt>()
            .getattr("from_bytes")
            .map(pyo3::Bound::unbind)
    })?;
    let digits = w.iter_u64_digits();
    let bytes = PyBytes::new_with(py, digits.len() * 8, |out| {
        for (chunk, digit) in out.chunks_exact_mut(8).zip(digits) {
            chunk.copy_from_slice(&digit.to_le_bytes());
        }
        Ok(())
    })?;
    from_bytes
        .bind(py)
        .call1((bytes, pyo3::intern!(py, "little")))
}

/// The Python value of an outcome.
pub fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Int(n) => n.into_pyobject(py)?.into_any(),
        Value::Ratio(r) => fraction(py, *r.numer(), *r.denom())?,
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Text(s) => PyString::new(py, s).into_any(),
        Value::Tuple(items) => {
            let items = items
                .iter()
                .map(|v| to_python(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any()
        }
    })
}

/// A parameter's value from Python: `bool`, `int` (64 bits), `str`, `Fraction` (64-bit parts) or a
/// tuple of those.
///
/// # Errors
/// `TypeError` for any other type, `ValueError` for a number that does not fit.
pub fn from_python(name: &str, value: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > DEEPEST_PARAMETER {
        return Err(PyValueError::new_err(format!(
            "parameter `{name}`: tuples nested more than {DEEPEST_PARAMETER} deep"
        )));
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        return value.extract::<i64>().map(Value::Int).map_err(|_| {
            PyValueError::new_err(format!(
                "parameter `{name}`: {value} does not fit in a 64-bit integer (from {} to {})",
                i64::MIN,
                i64::MAX
            ))
        });
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Value::text(&s.to_cow()?));
    }
    if let Ok(items) = value.cast::<PyTuple>() {
        let values = items
            .iter()
            .map(|item| from_python(name, &item, depth + 1))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(Value::Tuple(values.into()));
    }
    if value.is_instance(fraction_type(value.py())?)? {
        let numer: i128 = value.getattr("numerator")?.extract()?;
        let denom: i128 = value.getattr("denominator")?.extract()?;
        return Value::ratio(numer, denom).ok_or_else(|| {
            PyValueError::new_err(format!(
                "parameter `{name}`: {value} has a part that does not fit in 64 bits"
            ))
        });
    }
    Err(PyTypeError::new_err(format!(
        "parameter `{name}` takes an int, a bool, a str, a Fraction or a tuple of those, not {}",
        value.get_type().name()?
    )))
}

/// A `Ratio<BigInt>` (a mean, an expected number of steps) as a `Fraction`.
pub fn big_fraction<'py>(
    py: Python<'py>,
    r: &Ratio<num_bigint::BigInt>,
) -> PyResult<Bound<'py, PyAny>> {
    fraction(py, r.numer(), r.denom())
}
