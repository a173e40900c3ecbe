//! `omen plot`: distributions drawn as an SVG chart with plotters: bars for one distribution, lines for
//! several, the probability the `--view` asks for against the outcome, with labelled axes and a
//! legend.

use omen_core::probability_to_f64;
use omen_lang::Value;
use plotters::prelude::*;

use crate::compare::Comparison;

/// Pixels of the chart.
const SIZE: (u32, u32) = (960, 600);

/// The chart as SVG text.
///
/// # Errors
/// An outcome that is not a number (labels, tuples) cannot be placed on an axis.
pub fn svg(comparison: &Comparison) -> Result<String, String> {
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
    let curves: Vec<Vec<f64>> = (0..comparison.series.len())
        .map(|s| {
            cells
                .iter()
                .map(|row| probability_to_f64(&row[s]) * 100.0)
                .collect()
        })
        .collect();
    let (low, high) = (
        xs.first().copied().unwrap_or(0),
        xs.last().copied().unwrap_or(0),
    );
    let top = curves
        .iter()
        .flatten()
        .copied()
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.05;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, SIZE).into_drawing_area();
        let error = |e: DrawingAreaErrorKind<_>| format!("cannot draw the chart: {e}");
        root.fill(&WHITE).map_err(error)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(20)
            .caption(
                format!("P(X {} outcome)", comparison.view.symbol()),
                ("sans-serif", 24),
            )
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d((low as f64 - 0.5)..(high as f64 + 0.5), 0.0..top)
            .map_err(error)?;
        chart
            .configure_mesh()
            .x_desc("outcome")
            // Outcomes are whole numbers: a tick between two is left unlabelled.
            .x_label_formatter(&|x| {
                if (x - x.round()).abs() < 1e-9 {
                    format!("{x:.0}")
                } else {
                    String::new()
                }
            })
            .y_desc("probability (%)")
            .draw()
            .map_err(error)?;
        let single = comparison.series.len() == 1;
        for (index, (series, curve)) in comparison.series.iter().zip(&curves).enumerate() {
            let colour = Palette99::pick(index).to_rgba();
            let points: Vec<(f64, f64)> = xs
                .iter()
                .map(|&x| x as f64)
                .zip(curve.iter().copied())
                .collect();
            if single {
                chart
                    .draw_series(points.iter().map(|&(x, y)| {
                        Rectangle::new([(x - 0.4, 0.0), (x + 0.4, y)], colour.filled())
                    }))
                    .map_err(error)?
                    .label(series.label.clone())
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled())
                    });
            } else {
                chart
                    .draw_series(LineSeries::new(points, colour.stroke_width(2)))
                    .map_err(error)?
                    .label(series.label.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                    });
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(error)?;
        root.present().map_err(error)?;
    }
    Ok(text)
}
