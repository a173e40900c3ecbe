//! `omen prob` and `omen plot`: the exact distribution of each expression (or of each value of a
//! `--param` range), printed as one table, side by side, or drawn as a chart.

use std::io::{self, Write};

use anyhow::Context;
use omen_lang::{Diagnostic, ExactResult, Value, anydice, exact};

use crate::args::{PlotArgs, PlotFormat, ProbArgs, ProbFormat, ProbParam};
use crate::diagnostics::{self, Input, Style, render_diagnostics};
use crate::odds::{self, Odds};
use crate::shared_args::{InputArgs, ScriptArgs};
use crate::source::{Source, compile_input, saved_name};
use crate::status::{Status, fail, fail_to_read, strict_failure, succeed};
use crate::{anydice_prob, campaign, compare, file_format, fit, output, plot};

/// The computed columns, their reading lines: with `--dialect anydice`, one column per output.
type Computed = (Vec<Column>, Vec<Distribution>, Vec<String>);

/// One computed distribution: its script, warnings, exact result and explosion depth.
type Distribution = (Source, Vec<Diagnostic>, ExactResult, u64);

/// `prob --dialect anydice`: each program's outputs are its columns (explosion depth unused: the
/// program's depth cuts are its warnings).
fn anydice_columns(
    args: &ProbArgs,
    inputs: Vec<Column>,
    style: Style,
) -> Result<Computed, anyhow::Result<Status>> {
    if !args.params.is_empty() {
        eprintln!("error: AnyDice programs take no --param; set a variable in the program instead");
        return Err(Ok(Status::BadInput));
    }
    let mut sources = Vec::new();
    for column in &inputs {
        match Source::read(&column.input, anydice::MAX_SOURCE_BYTES) {
            Ok(source) => sources.push(source),
            Err(e) => return Err(fail_to_read(style, &e)),
        }
    }
    let programs: Vec<_> = (inputs.iter().zip(&sources))
        .map(|(column, source)| anydice_prob::Program {
            label: &column.label,
            input: source.input(),
        })
        .collect();
    let bounds = anydice_prob::Bounds {
        precision: args.approximate.precision(),
        limits: args.limits.to_limits(),
        max_columns: MAX_COLUMNS,
        output_bound: &|result| odds::output_bound(result, args.format),
    };
    let outputs = match anydice_prob::columns(&programs, &bounds, style) {
        Ok(Some(outputs)) => outputs,
        Ok(None) => return Err(Ok(Status::BadInput)),
        Err(e) => return Err(Err(e)),
    };
    let mut computed: Computed = Default::default();
    for output in outputs {
        let (column, source) = (&inputs[output.program], &sources[output.program]);
        computed.0.push(Column {
            label: output.label,
            input: InputArgs {
                expression: column.input.expression.clone(),
                file: column.input.file.clone(),
            },
            script: ScriptArgs {
                params: Vec::new(),
                dialect: column.script.dialect.clone(),
            },
        });
        let text = Source {
            text: source.text.clone(),
            file: source.file.clone(),
        };
        computed.1.push((text, output.warnings, output.result, 0));
        computed.2.push(output.reading);
    }
    Ok(computed)
}

/// One distribution `omen prob` computes: an expression or file with its parameters.
struct Column {
    label: String,
    input: InputArgs,
    script: ScriptArgs,
}

/// Most distributions one `omen prob` compares.
const MAX_COLUMNS: usize = 100;

/// The distributions asked for: each EXPR (or the file), once per value of a `--param` range.
fn columns(args: &ProbArgs) -> Result<Vec<Column>, String> {
    let inputs: Vec<(String, InputArgs)> = match &args.file {
        Some(path) => vec![(
            path.display().to_string(),
            InputArgs {
                expression: None,
                file: Some(path.clone()),
            },
        )],
        None => args
            .expressions()
            .into_iter()
            .map(|e| {
                let input = InputArgs {
                    expression: Some(e.clone()),
                    file: None,
                };
                (e, input)
            })
            .collect(),
    };
    let mut fixed = Vec::new();
    let mut range = None;
    for param in &args.params {
        match param {
            ProbParam::One(name, value) => fixed.push((name.clone(), value.clone())),
            ProbParam::Range(name, low, high) => {
                if range.is_some() {
                    return Err(
                        "only one --param may be a range; give the others one value each".into(),
                    );
                }
                range = Some((name.clone(), *low, *high));
            }
        }
    }
    let values: Vec<Option<i64>> = match &range {
        Some((_, low, high)) => (*low..=*high).map(Some).collect(),
        None => vec![None],
    };
    if inputs.len() * values.len() > MAX_COLUMNS {
        return Err(format!(
            "{} distributions to compare (limit {MAX_COLUMNS}); give fewer expressions or a narrower range",
            inputs.len() * values.len()
        ));
    }
    let mut columns = Vec::new();
    for (label, input) in &inputs {
        for value in &values {
            let mut params = fixed.clone();
            let mut label = label.clone();
            if let (Some((name, _, _)), Some(value)) = (&range, value) {
                params.push((name.clone(), Value::Int(*value)));
                label = if inputs.len() == 1 {
                    format!("{name}={value}")
                } else {
                    format!("{label} {name}={value}")
                };
            }
            let (input, script) = match saved_name(input) {
                Some(name) => {
                    let given = ScriptArgs {
                        params,
                        dialect: args.dialect.clone(),
                    };
                    campaign::saved_input(name, &args.campaign, &args.db, &given)?
                }
                None => (
                    InputArgs {
                        expression: input.expression.clone(),
                        file: input.file.clone(),
                    },
                    ScriptArgs {
                        params,
                        dialect: args.dialect.clone(),
                    },
                ),
            };
            columns.push(Column {
                label,
                input,
                script,
            });
        }
    }
    Ok(columns)
}

/// Columns the text output may fill: `COLUMNS`, else the terminal's width, else 100.
fn text_width() -> usize {
    fit::width()
}

pub fn prob(args: &ProbArgs) -> anyhow::Result<Status> {
    match file_format::prob_format(args.format_given, output::file().as_deref()) {
        Ok(format) => prob_or_plot(
            &ProbArgs {
                format,
                ..args.clone()
            },
            None,
        ),
        Err(message) => {
            eprintln!("error: {message}");
            Ok(Status::BadInput)
        }
    }
}

/// `omen plot`: the distributions `omen prob` would compute, drawn as SVG.
pub fn plot(args: &PlotArgs) -> anyhow::Result<Status> {
    let format = match file_format::plot_format(args.format, output::file().as_deref()) {
        Ok(format) => format,
        Err(message) => {
            eprintln!("error: {message}");
            return Ok(Status::BadInput);
        }
    };
    prob_or_plot(&args.as_prob(), Some(format))
}

/// `plot` is the image format for `omen plot`, `None` for `omen prob`.
fn prob_or_plot(args: &ProbArgs, plot: Option<PlotFormat>) -> anyhow::Result<Status> {
    if let Some(status) = refused(args) {
        return Ok(status);
    }
    let columns = match columns(args) {
        Ok(columns) => columns,
        Err(message) => {
            crate::fit::error(message);
            return Ok(Status::BadInput);
        }
    };
    let (columns, computed, readings) = match compute(args, columns) {
        Ok(computed) => computed,
        Err(status) => return status,
    };
    // One expression gets the full table, unless --view or --transpose asks for the side-by-side
    // one (JSON has every view of every outcome either way).
    let reshaped = args.view != compare::View::Eq || args.transpose;
    if reshaped && args.format == ProbFormat::Json && computed.len() == 1 && plot.is_none() {
        eprintln!(
            "warning: --view and --transpose shape tables; JSON gives P(=), P(≥) and P(≤) of every outcome"
        );
        if diagnostics::strict() {
            return strict_failure();
        }
    }
    if let [one] = computed.as_slice()
        && plot.is_none()
        && (!reshaped || args.format == ProbFormat::Json)
    {
        return print_one(args, one, readings.first().map_or("", String::as_str));
    }
    side_by_side(args, &columns, &computed, plot)
}

/// How diagnostics are written: as JSON when the result is.
fn style(args: &ProbArgs) -> Style {
    match args.format {
        ProbFormat::Json => Style::Json,
        ProbFormat::Text | ProbFormat::Markdown | ProbFormat::Csv => Style::Text,
    }
}

/// Arguments `omen prob` refuses before reading anything, reported: a seed, and a saved roll read
/// as an AnyDice program.
fn refused(args: &ProbArgs) -> Option<Status> {
    if args.seed.is_some() {
        eprintln!(
            "error: `omen prob` takes no --seed: it computes the exact odds, and rolls no dice\n  \
             = help: seeds belong to `omen roll`, e.g. `omen roll 2d6 --seed 3`"
        );
        return Some(Status::BadInput);
    }
    let anydice = anydice_prob::is_anydice(args.dialect.name.as_deref());
    if args.approximate.refused(anydice) {
        return Some(Status::BadInput);
    }
    if anydice && args.expressions().iter().any(|e| e.starts_with('@')) {
        anydice_prob::refuse(anydice_prob::Refused::SavedRoll);
        return Some(Status::BadInput);
    }
    None
}

/// Each column's exact distribution and reading, within the output limit; on failure the errors are
/// reported, and the command's status is returned as the error.
fn compute(args: &ProbArgs, columns: Vec<Column>) -> Result<Computed, anyhow::Result<Status>> {
    let style = style(args);
    // An AnyDice program gives its columns itself, one per output; the loop below is Omen's.
    if anydice_prob::is_anydice(args.dialect.name.as_deref()) {
        return anydice_columns(args, columns, style);
    }
    let (mut computed, mut readings) = (Vec::new(), Vec::new());
    let mut bound: u128 = 0;
    for column in &columns {
        let (options, script, checked) =
            compile_input(&column.input, &column.script, &args.limits, style)?;
        let result = match exact(&checked.program, &options.limits) {
            Ok(result) => result,
            Err(error) => return Err(fail(style, script.input(), &[error], &checked.warnings)),
        };
        // Side by side, each distribution's own report bounds its column from above.
        bound = bound.saturating_add(odds::output_bound(&result, args.format));
        if bound > u128::from(options.limits.max_output) {
            return Err(fail(
                style,
                script.input(),
                &[diagnostics::too_much_output(
                    bound,
                    options.limits.max_output,
                )],
                &checked.warnings,
            ));
        }
        readings.push(checked.reading);
        computed.push((
            script,
            checked.warnings,
            result,
            options.limits.explode_depth,
        ));
    }
    Ok((columns, computed, readings))
}

/// One distribution: its full table (or CSV, or JSON report) under its reading line.
fn print_one(args: &ProbArgs, one: &Distribution, reading: &str) -> anyhow::Result<Status> {
    let (script, warnings, result, explode_depth) = one;
    let style = style(args);
    let layout = odds::Layout {
        width: text_width(),
        exact: args.exact,
        decimals: usize::from(args.decimals),
    };
    let odds = Odds::new(&script.text, result, *explode_depth).with_reading(reading);
    if let Some(note) = odds.depth_limit_warning(args.exact)
        && (args.format == ProbFormat::Csv || diagnostics::strict())
    {
        // CSV has no place for it, and a cut-off result must never pass silently; under
        // --strict it is a warning like any other.
        eprint!(
            "{}",
            fit::wrap(
                &format!("warning: explosion depth limit reached: {note}\n"),
                fit::width()
            )
        );
        if diagnostics::strict() {
            return strict_failure();
        }
    }
    let reading = fit::wrap(&format!("reading: {reading}\n"), layout.width);
    succeed(style, script.input(), warnings, |out| match args.format {
        ProbFormat::Text => out
            .write_all(reading.as_bytes())
            .and_then(|()| odds.table(out, &layout)),
        ProbFormat::Markdown => out
            .write_all(reading.as_bytes())
            .and_then(|()| odds.markdown(out)),
        ProbFormat::Csv => odds.csv(out),
        ProbFormat::Json => odds.json(out),
    })
}

/// Several distributions (or one that --view or --transpose reshapes): side by side in a table, or
/// drawn as a chart.
fn side_by_side(
    args: &ProbArgs,
    columns: &[Column],
    computed: &[Distribution],
    plot: Option<PlotFormat>,
) -> anyhow::Result<Status> {
    let style = style(args);
    if column_warnings(args, columns, computed, style)? && diagnostics::strict() {
        return strict_failure();
    }
    let comparison = compare::Comparison::new(
        computed
            .iter()
            .zip(columns)
            .map(|((_, _, result, _), column)| {
                compare::Series::new(column.label.clone(), &result.distribution, &result.labels)
            })
            .collect(),
        args.view,
    );
    if let Some(refused) = comparison.unordered_view() {
        eprintln!("error: {refused}");
        return Ok(Status::BadInput);
    }
    match plot {
        Some(format) => draw(&comparison, format),
        None => print_comparison(args, columns, computed, &comparison),
    }
}

/// Side by side: each column's warnings and depth-limit notes first, named by its column; whether
/// there were any.
fn column_warnings(
    args: &ProbArgs,
    columns: &[Column],
    computed: &[Distribution],
    style: Style,
) -> anyhow::Result<bool> {
    let mut stderr = String::new();
    for ((script, warnings, result, explode_depth), column) in computed.iter().zip(columns) {
        stderr.push_str(&render_diagnostics(style, script.input(), &[], warnings));
        if args.format != ProbFormat::Json
            && let Some(note) =
                Odds::new(&script.text, result, *explode_depth).depth_limit_warning(args.exact)
        {
            stderr.push_str(&fit::wrap(
                &format!(
                    "warning: `{}`: explosion depth limit reached: {note}\n",
                    column.label
                ),
                fit::width(),
            ));
        }
    }
    io::stderr()
        .lock()
        .write_all(stderr.as_bytes())
        .context("writing warnings to stderr")?;
    Ok(!stderr.is_empty())
}

/// `omen plot`: the chart, to the -o file or stdout.
fn draw(comparison: &compare::Comparison, format: PlotFormat) -> anyhow::Result<Status> {
    let image = match format {
        PlotFormat::Svg => plot::svg(comparison).map(String::into_bytes),
        PlotFormat::Png => plot::png(comparison),
    };
    let image = match image {
        Ok(image) => image,
        Err(message) => {
            crate::fit::error(message);
            return Ok(Status::BadInput);
        }
    };
    output::result().write_all(&image)?;
    if let Some(path) = output::file() {
        // The chart went to a file, so stdout is silent: say what was written, and where.
        eprintln!("{}", plot::written(&path, format, image.len()));
    }
    Ok(Status::Success)
}

/// The side-by-side table, in the format asked for.
fn print_comparison(
    args: &ProbArgs,
    columns: &[Column],
    computed: &[Distribution],
    comparison: &compare::Comparison,
) -> anyhow::Result<Status> {
    let style = style(args);
    let width = text_width();
    let exact = args.exact;
    let transpose = args.transpose;
    let no_input = Input {
        text: "",
        file: None,
    };
    succeed(style, no_input, &[], |out| match args.format {
        ProbFormat::Text => comparison.text(out, exact, transpose, width),
        ProbFormat::Markdown => comparison.markdown(out, exact, transpose),
        ProbFormat::Csv => comparison.csv(out, transpose),
        ProbFormat::Json => {
            // One report per distribution, each as `omen prob --format json` gives it, with its label
            // first.
            out.write_all(b"[")?;
            for (i, ((script, _, result, explode_depth), column)) in
                computed.iter().zip(columns).enumerate()
            {
                if i > 0 {
                    out.write_all(b",")?;
                }
                let mut one = Vec::new();
                Odds::new(&script.text, result, *explode_depth).json(&mut one)?;
                let label = serde_json::to_string(&column.label)?;
                write!(out, "{{\"label\":{label},")?;
                // The report is one object on one line: everything after its opening brace.
                out.write_all(one.trim_ascii().get(1..).unwrap_or_default())?;
            }
            writeln!(out, "]")
        }
    })
}
