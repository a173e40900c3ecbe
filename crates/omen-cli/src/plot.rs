//! `omen plot`: distributions drawn as an SVG or PNG chart (the `omen-chart` crate draws them): bars
//! for one distribution, lines for several, the probability the `--view` asks for against the
//! outcome, with labelled axes and a legend. This file turns a comparison into a chart and says
//! what was written.

use omen_lang::Value;

use crate::compare::Comparison;

/// Pixels of the chart.
pub const SIZE: (u32, u32) = omen_chart::SIZE;

/// What `-o` wrote, for stderr: the path, the format, the size in pixels and in bytes.
pub fn written(path: &std::path::Path, format: crate::args::PlotFormat, bytes: usize) -> String {
    let (width, height) = SIZE;
    let kind = match format {
        crate::args::PlotFormat::Svg => "SVG",
        crate::args::PlotFormat::Png => "PNG",
    };
    let path = crate::escape::line(&path.display().to_string()).into_owned();
    format!("wrote {path}: {kind}, {width}×{height}, {bytes} bytes")
}

/// The chart as SVG text.
///
/// # Errors
/// An outcome that is not a number (labels, tuples) cannot be placed on an axis.
pub fn svg(comparison: &Comparison) -> Result<String, String> {
    omen_chart::svg(&chart(comparison)?).map_err(|e| e.to_string())
}

/// The chart as a PNG file's bytes, `SIZE` pixels, 8-bit RGB.
///
/// # Errors
/// As [`svg`]; and a failure of the PNG encoder (none is expected writing to memory).
pub fn png(comparison: &Comparison) -> Result<Vec<u8>, String> {
    omen_chart::png(&chart(comparison)?).map_err(|e| e.to_string())
}

/// The comparison as a chart: its outcomes as numbers (true counts 1, false 0), one series each,
/// under a caption naming the view.
fn chart(comparison: &Comparison) -> Result<omen_chart::Chart, String> {
    let xs: Vec<i64> = comparison
        .outcomes
        .iter()
        .map(|v| match v {
            Value::Int(n) => Ok(*n),
            Value::Bool(b) => Ok(i64::from(*b)),
            other => Err(format!(
                "`{other}` is not a number: plot draws numbers and true/false only; use `omen prob`"
            )),
        })
        .collect::<Result<_, _>>()?;
    let cells = comparison.cells();
    let series = comparison
        .series
        .iter()
        .enumerate()
        .map(|(s, series)| {
            let column = cells.iter().map(|row| row[s].clone()).collect();
            omen_chart::Series::new(series.label.clone(), column)
        })
        .collect();
    let caption = format!("P(X {} outcome)", comparison.view.symbol());
    omen_chart::Chart::new(caption, xs, series).map_err(|e| e.to_string())
}
