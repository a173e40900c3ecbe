//! The two questions Python asks: the exact distribution of a program (`prob`) and one roll of it
//! (`roll`). Each compiles and runs on the worker thread (see `worker`) and hands back plain Python
//! data, which the package's Python layer wraps in its classes.

use num_traits::Zero;
use omen_core::{ChaChaDice, Limits, ScriptedDice};
use omen_lang::{
    Diagnostic, ExactResult, Options, Roll, Span, Value, ValueDistribution, compile, exact,
    exact_with_budget, labels, sample,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::diagnostics;
use crate::values::{self, big_fraction};
use crate::worker;

/// What a script is compiled with: the dialect by name, the parameters, the limits.
pub struct Request {
    pub source: String,
    pub options: Options,
}

impl Request {
    /// # Errors
    /// `ValueError` for an unknown dialect; the errors of `limits::read` and `values::from_python`.
    pub fn new(
        source: String,
        dialect: Option<&str>,
        params: Option<&Bound<'_, PyDict>>,
        limits: Limits,
    ) -> PyResult<Self> {
        let dialect = match dialect {
            None => omen_lang::syntax::Dialect::named("omen"),
            Some(name) => omen_lang::syntax::Dialect::named(name),
        }
        .ok_or_else(|| {
            let names: Vec<&str> = omen_lang::syntax::Dialect::names().collect();
            PyValueError::new_err(format!(
                "unknown dialect `{}`; the dialects are {}",
                dialect.unwrap_or_default(),
                names.join(", ")
            ))
        })?;
        let mut values = Vec::new();
        if let Some(params) = params {
            for (key, value) in params.iter() {
                let name: String = key
                    .extract()
                    .map_err(|_| PyTypeError::new_err("parameter names are strings"))?;
                let value = values::from_python(&name, &value, 0)?;
                values.push((name, value));
            }
        }
        Ok(Request {
            source,
            options: Options {
                limits,
                params: values,
                dialect,
                ..Options::default()
            },
        })
    }
}

/// A program read and checked: how it was read and its warnings, or every error found.
type Compiled<T> = Result<(T, String, Vec<Diagnostic>), (Vec<Diagnostic>, Vec<Diagnostic>)>;

/// Compiles `request` and runs `interpret` on the program, on the worker thread.
fn compile_and<T: Send + 'static>(
    py: Python<'_>,
    request: Request,
    interpret: impl FnOnce(&omen_lang::Program, &Limits) -> Result<T, Diagnostic> + Send + 'static,
) -> PyResult<(Request, Compiled<T>)> {
    let cancel = request.options.limits.cancel.clone();
    worker::run(py, &cancel, move || {
        let answer = match compile(&request.source, &request.options) {
            Err(errors) => Err((errors, Vec::new())),
            Ok(checked) => match interpret(&checked.program, &request.options.limits) {
                Ok(value) => Ok((value, checked.reading, checked.warnings)),
                Err(error) => Err((vec![error], checked.warnings)),
            },
        };
        (request, answer)
    })
}

/// The work a computation may do on the calling thread before it is handed to the worker thread:
/// from a fraction of a millisecond to about fifteen (the work budget's steps are estimates, and
/// their time differs from one computation to another), short enough that Ctrl-C waits for it
/// unnoticed. A computation that needs more is done again on the worker, so this much is the most
/// work done twice: at 1,000,000 the sets of 10d10 (1.6 M, 0.55 ms) were computed one and a half
/// times and then handed over, 1.3 ms in all.
const WORK_HERE: u64 = 2_500_000;

/// How deep calls of the script's own functions may nest on the calling thread.
const SHALLOW_CALLS: usize = 16;

/// [`compile_and`] for `exact`, first tried on the calling thread: handing a computation to the
/// worker thread and back costs about 15 µs, more than `prob("3d6")` itself (about 4 µs), and most
/// questions are that small. Tried only where the stack is known to be deep enough (Python's main
/// thread, see `worker::may_run_shallow_here`), for a program whose functions call no function
/// recursively and nest at most [`SHALLOW_CALLS`] deep, and with
/// [`WORK_HERE`] of the budget; a program that needs more is computed again on the worker thread with
/// its whole budget, where Ctrl-C can stop it, so at most that slice is done twice. Both runs are
/// the same deterministic computation under the same limits, so the answer is the one the worker
/// would give.
fn exact_here_or_on_the_worker(
    py: Python<'_>,
    request: Request,
) -> PyResult<(Request, Compiled<ExactResult>)> {
    if !worker::may_run_shallow_here() {
        return compile_and(py, request, exact);
    }
    let (request, here) = py.detach(move || {
        let here = exact_here(&request);
        (request, here)
    });
    match here {
        Some(answer) => Ok((request, answer)),
        None => compile_and(py, request, exact),
    }
}

/// The answer computed within [`WORK_HERE`], or `None` where that is not enough or the program's
/// functions may call deeper than this thread's stack allows (a function calling itself, or calls
/// nested past [`SHALLOW_CALLS`]).
fn exact_here(request: &Request) -> Option<Compiled<ExactResult>> {
    let limits = &request.options.limits;
    let slice = Limits {
        work_budget: limits.work_budget.min(WORK_HERE),
        ..limits.clone()
    };
    let options = Options {
        limits: slice.clone(),
        ..request.options.clone()
    };
    let over = |errors: &[Diagnostic]| errors.iter().any(|e| e.kind == "work-budget");
    let checked = match compile(&request.source, &options) {
        Err(errors) if over(&errors) => return None,
        Err(errors) => return Some(Err((errors, Vec::new()))),
        Ok(checked) => checked,
    };
    // Calls nest at most a few deep on this thread's stack; a function calling itself may go as
    // deep as the recursion limit allows, which needs the worker's.
    if checked
        .program
        .call_depth()
        .is_none_or(|depth| depth > SHALLOW_CALLS)
    {
        return None;
    }
    match exact_with_budget(&checked.program, limits, &mut slice.budget()) {
        Ok(result) => Some(Ok((result, checked.reading, checked.warnings))),
        Err(error) if over(std::slice::from_ref(&error)) => None,
        Err(error) => Some(Err((vec![error], checked.warnings))),
    }
}

/// An upper bound on the bytes the distribution's outcomes and quantities take as text: each row
/// holds an outcome and a quantity no longer than the denominator.
fn size_bound(distribution: &ValueDistribution) -> u128 {
    let rows = match distribution {
        ValueDistribution::Int(d) => d.len(),
        ValueDistribution::Bool(d) => d.len(),
        ValueDistribution::Values(d) => d.len(),
    } as u128;
    let longest = match distribution {
        ValueDistribution::Values(d) => d.outcomes().map(|v| v.to_string().len()).max(),
        _ => None,
    }
    .unwrap_or(21) as u128;
    let digits = u128::from(distribution.total().bits()) * 30_103 / 100_000 + 1;
    rows * (digits + longest + 8) + digits
}

fn too_much(bytes: u128, limit: u64) -> Diagnostic {
    Diagnostic::error(
        "too-much-output",
        Span::new(0, 0),
        format!("the result would take about {bytes} bytes (limit {limit})"),
    )
    .with_help(
        "ask a narrower question (e.g. `(EXPR) >= 30` for one probability), or raise max_output",
    )
}

/// The exact distribution as a dict the Python layer wraps: `kind` (`int`, `bool`, `labels` when
/// an outcome is a label, else `values`),
/// `outcomes`, `quantities`, `denominator`, `reading`, `warnings`, `truncated`, `expected_steps`.
///
/// # Errors
/// `OmenError` for every error in the program or its evaluation; `KeyboardInterrupt` on Ctrl-C.
pub fn prob<'py>(py: Python<'py>, request: Request) -> PyResult<Bound<'py, PyDict>> {
    let (request, answer) = exact_here_or_on_the_worker(py, request)?;
    let source = request.source.as_str();
    let (result, reading, warnings): (ExactResult, _, _) =
        answer.map_err(|(errors, warnings)| diagnostics::error(py, source, &errors, &warnings))?;
    let limit = request.options.limits.max_output;
    let bytes = size_bound(&result.distribution);
    if bytes > u128::from(limit) {
        return Err(diagnostics::error(
            py,
            source,
            &[too_much(bytes, limit)],
            &warnings,
        ));
    }
    let out = PyDict::new(py);
    // Outcomes and quantities converted straight from the distribution's entries, without cloning
    // each weight first (twenty allocations and copies of up to 4,322 bits for 1000d20kh1).
    let (kind, outcomes, quantities) = match &result.distribution {
        ValueDistribution::Int(d) => {
            let (outcomes, quantities) =
                listed(py, d.entries(), |o| Ok(o.into_pyobject(py)?.into_any()))?;
            ("int", outcomes, quantities)
        }
        ValueDistribution::Bool(d) => {
            let (outcomes, quantities) =
                listed(py, d.entries(), |o| values::to_python(py, &Value::Bool(*o)))?;
            ("bool", outcomes, quantities)
        }
        ValueDistribution::Values(d) => {
            // Labels name outcomes without ordering them: listed in the order the script first
            // writes them, as every face of Omen lists them (see `omen_lang::labels`).
            let labelled = labels::any_label(d.outcomes());
            let (outcomes, quantities) = if labelled {
                let ordered = labels::in_written_order(d.entries(), &result.labels);
                listed(py, &ordered, |o| values::to_python(py, o))?
            } else {
                listed(py, d.entries(), |o| values::to_python(py, o))?
            };
            let kind = if labelled { "labels" } else { "values" };
            (kind, outcomes, quantities)
        }
    };
    // Keys interned once; outcomes and quantities as tuples, which the Python layer keeps as they are.
    out.set_item(intern!(py, "kind"), kind)?;
    out.set_item(intern!(py, "outcomes"), PyTuple::new(py, outcomes)?)?;
    out.set_item(intern!(py, "quantities"), PyTuple::new(py, quantities)?)?;
    out.set_item(
        intern!(py, "denominator"),
        values::weight(py, result.distribution.total())?,
    )?;
    out.set_item(intern!(py, "reading"), reading)?;
    out.set_item(
        intern!(py, "warnings"),
        diagnostics::to_list(py, source, &warnings)?,
    )?;
    let truncated = &result.truncated;
    let truncated = if truncated.numer().is_zero() {
        values::zero_fraction(py)?
    } else {
        values::fraction(py, truncated.numer(), truncated.denom())?
    };
    out.set_item(intern!(py, "truncated"), truncated)?;
    let steps = match &result.expected_steps {
        Some(steps) => Some(big_fraction(py, steps)?),
        None => None,
    };
    out.set_item(intern!(py, "expected_steps"), steps)?;
    Ok(out)
}

/// One column of a distribution for Python: its outcomes or its quantities, in order.
type Column<'py> = Vec<Bound<'py, PyAny>>;

/// The Python outcomes (by `outcome`) and quantities of a distribution's entries, in their order.
fn listed<'py, T>(
    py: Python<'py>,
    entries: &[(T, omen_core::Weight)],
    outcome: impl Fn(&T) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<(Column<'py>, Column<'py>)> {
    let mut outcomes = Vec::with_capacity(entries.len());
    let mut quantities = Vec::with_capacity(entries.len());
    for (o, w) in entries {
        outcomes.push(outcome(o)?);
        quantities.push(values::weight(py, w)?);
    }
    Ok((outcomes, quantities))
}

/// Where a roll's dice come from: a seed for Omen's ChaCha roller, or the faces given.
pub enum Dice {
    Seed(u64),
    Given(Vec<i64>),
}

/// One roll as a dict: `result`, `tree` (the CLI's JSON transcript, as JSON text), `reading`,
/// `warnings`, `unused_dice`.
///
/// # Errors
/// `OmenError` for every error in the program or its roll; `KeyboardInterrupt` on Ctrl-C.
pub fn roll<'py>(py: Python<'py>, request: Request, dice: Dice) -> PyResult<Bound<'py, PyDict>> {
    let (request, answer) = compile_and(py, request, move |program, limits| {
        let max_output = usize::try_from(limits.max_output).unwrap_or(usize::MAX);
        let (rolled, unused): (Roll, Vec<i64>) = match dice {
            Dice::Seed(seed) => (
                sample(program, limits, &mut ChaChaDice::from_seed(seed))?,
                Vec::new(),
            ),
            Dice::Given(values) => {
                let mut given = ScriptedDice::new(values);
                let rolled = sample(program, limits, &mut given)?;
                (rolled, given.remaining().to_vec())
            }
        };
        // The transcript as the CLI's JSON, stopped as soon as it passes max_output.
        let mut out = Capped {
            bytes: Vec::new(),
            limit: max_output,
        };
        if serde_json::to_writer(&mut out, &rolled.tree).is_err() {
            return Err(too_much(max_output as u128 + 1, limits.max_output));
        }
        Ok((rolled.result, out.bytes, unused))
    })?;
    let source = request.source.as_str();
    let ((result, tree, unused), reading, warnings) =
        answer.map_err(|(errors, warnings)| diagnostics::error(py, source, &errors, &warnings))?;
    let out = PyDict::new(py);
    out.set_item("result", values::to_python(py, &result)?)?;
    out.set_item("tree", String::from_utf8_lossy(&tree))?;
    out.set_item("reading", reading)?;
    out.set_item("warnings", diagnostics::to_list(py, source, &warnings)?)?;
    out.set_item("unused_dice", unused)?;
    Ok(out)
}

/// A writer that refuses to grow past `limit` bytes.
struct Capped {
    bytes: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > self.limit {
            return Err(std::io::Error::other("past max_output"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
