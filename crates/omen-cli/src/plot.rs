//! `omen plot`: distributions drawn as an SVG or PNG chart with plotters: bars for one distribution,
//! lines for several, the probability the `--view` asks for against the outcome, with labelled axes
//! and a legend.
//!
//! Text is drawn with a font compiled into the binary (a subset of DejaVu Sans, see
//! `assets/FONT-LICENSE.md`), so a PNG looks the same on every machine, with or without fonts
//! installed.

use std::sync::Once;

use omen_core::probability_to_f64;
use omen_lang::Value;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::compare::Comparison;

/// Pixels of the chart.
pub const SIZE: (u32, u32) = (960, 600);

/// The chart's font: DejaVu Sans cut down to the characters charts draw.
static FONT: &[u8] = include_bytes!("../assets/DejaVuSans-subset.ttf");

/// The font family every label asks for.
const FAMILY: &str = "sans-serif";

/// The series' colours, the web page's own: Okabe and Ito's palette, told apart with every common
/// colour-vision deficiency (plotters' default palette starts with red, green and yellow). Past the
/// eighth series the colours repeat, as on the page.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0xF0, 0xE4, 0x42),
    RGBColor(0x00, 0x00, 0x00),
];

fn register_font() -> Result<(), String> {
    static REGISTER: Once = Once::new();
    let mut result = Ok(());
    REGISTER.call_once(|| {
        result = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| "internal error: the chart font cannot be read".to_string());
    });
    result
}

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
    let chart = Chart::new(comparison)?;
    let mut text = String::new();
    chart.draw(SVGBackend::with_string(&mut text, SIZE).into_drawing_area())?;
    Ok(text)
}

/// The chart as a PNG file's bytes, `SIZE` pixels, 8-bit RGB.
///
/// # Errors
/// As [`svg`]; and a failure of the PNG encoder (none is expected writing to memory).
pub fn png(comparison: &Comparison) -> Result<Vec<u8>, String> {
    let chart = Chart::new(comparison)?;
    let (width, height) = SIZE;
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    chart.draw(BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area())?;
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let error = |e: png::EncodingError| format!("cannot encode the PNG: {e}");
    let mut writer = encoder.write_header().map_err(error)?;
    writer.write_image_data(&pixels).map_err(error)?;
    writer.finish().map_err(error)?;
    Ok(bytes)
}

/// What is drawn, whatever the backend.
struct Chart<'a> {
    comparison: &'a Comparison,
    xs: Vec<i64>,
    curves: Vec<Vec<f64>>,
}

impl<'a> Chart<'a> {
    fn new(comparison: &'a Comparison) -> Result<Self, String> {
        register_font()?;
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
        Ok(Chart {
            comparison,
            xs,
            curves,
        })
    }

    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), String> {
        let (low, high) = (
            self.xs.first().copied().unwrap_or(0),
            self.xs.last().copied().unwrap_or(0),
        );
        let top = self
            .curves
            .iter()
            .flatten()
            .copied()
            .fold(0.0f64, f64::max)
            .max(1e-9)
            * 1.05;
        {
            let error = |e: DrawingAreaErrorKind<_>| format!("cannot draw the chart: {e}");
            root.fill(&WHITE).map_err(error)?;
            let mut chart = ChartBuilder::on(&root)
                .margin(20)
                .caption(
                    format!("P(X {} outcome)", self.comparison.view.symbol()),
                    (FAMILY, 24),
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
            let single = self.comparison.series.len() == 1;
            for (index, (series, curve)) in
                self.comparison.series.iter().zip(&self.curves).enumerate()
            {
                let colour = PALETTE[index % PALETTE.len()].to_rgba();
                let points: Vec<(f64, f64)> = self
                    .xs
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
        Ok(())
    }
}
