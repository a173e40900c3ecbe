//! Drawing a [`Chart`] on plotters' SVG and bitmap backends, and the bitmap encoded as PNG.

use std::sync::Once;

use omen_core::probability_to_f64;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::{Chart, ChartError, PALETTE, SIZE};

/// The chart's font: DejaVu Sans cut down to the characters charts draw.
static FONT: &[u8] = include_bytes!("../assets/DejaVuSans-subset.ttf");

/// The font family every label asks for.
const FAMILY: &str = "sans-serif";

fn register_font() -> Result<(), ChartError> {
    static REGISTER: Once = Once::new();
    let mut result = Ok(());
    REGISTER.call_once(|| {
        result = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| ChartError::Font);
    });
    result
}

/// The chart as SVG text.
///
/// # Errors
/// [`ChartError::Font`] or [`ChartError::Draw`], neither expected.
pub fn svg(chart: &Chart) -> Result<String, ChartError> {
    let points = Points::new(chart)?;
    let mut text = String::new();
    points.draw(SVGBackend::with_string(&mut text, SIZE).into_drawing_area())?;
    Ok(text)
}

/// The chart as a PNG file's bytes, [`SIZE`] pixels, 8-bit RGB.
///
/// # Errors
/// As [`svg`]; and [`ChartError::Encode`] (none is expected writing to memory).
pub fn png(chart: &Chart) -> Result<Vec<u8>, ChartError> {
    let points = Points::new(chart)?;
    let (width, height) = SIZE;
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    points.draw(BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area())?;
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let error = |e: png::EncodingError| ChartError::Encode(e.to_string());
    let mut writer = encoder.write_header().map_err(error)?;
    writer.write_image_data(&pixels).map_err(error)?;
    writer.finish().map_err(error)?;
    Ok(bytes)
}

/// What is drawn, whatever the backend: the chart with its probabilities as percentages.
struct Points<'a> {
    chart: &'a Chart,
    curves: Vec<Vec<f64>>,
}

impl<'a> Points<'a> {
    fn new(chart: &'a Chart) -> Result<Self, ChartError> {
        register_font()?;
        let curves = chart
            .series
            .iter()
            .map(|series| {
                series
                    .probabilities
                    .iter()
                    .map(|p| probability_to_f64(p) * 100.0)
                    .collect()
            })
            .collect();
        Ok(Points { chart, curves })
    }

    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> Result<(), ChartError> {
        let xs = &self.chart.outcomes;
        let (low, high) = (
            xs.iter().copied().min().unwrap_or(0),
            xs.iter().copied().max().unwrap_or(0),
        );
        let top = self
            .curves
            .iter()
            .flatten()
            .copied()
            .fold(0.0f64, f64::max)
            .max(1e-9)
            * 1.05;
        let error = |e: DrawingAreaErrorKind<_>| ChartError::Draw(e.to_string());
        root.fill(&WHITE).map_err(error)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(20)
            .caption(&self.chart.caption, (FAMILY, 24))
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
        let single = self.chart.series.len() == 1;
        for (index, (series, curve)) in self.chart.series.iter().zip(&self.curves).enumerate() {
            let colour = PALETTE[index % PALETTE.len()].to_rgba();
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
        root.present().map_err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Series;
    use omen_core::Probability;

    fn p(n: u32, d: u32) -> Probability {
        Probability::new(n.into(), d.into())
    }

    /// 2d4's totals, 2 to 8, come 1, 2, 3, 4, 3, 2, 1 ways in 16 (counted by hand).
    fn two_d4() -> Chart {
        let ways = [1, 2, 3, 4, 3, 2, 1];
        let series = Series::new("2d4", ways.iter().map(|&w| p(w, 16)).collect());
        Chart::new("P(X = outcome)", (2..=8).collect(), vec![series]).unwrap()
    }

    #[test]
    fn a_png_is_the_fixed_size_and_decodes() {
        let bytes = png(&two_d4()).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
        let reader = decoder.read_info().unwrap();
        let info = reader.info();
        assert_eq!((info.width, info.height), SIZE);
    }

    #[test]
    fn one_series_is_drawn_as_bars_as_tall_as_their_ways() {
        let text = svg(&two_d4()).unwrap();
        // The bars, in the palette's first colour (the legend's 10-pixel swatch left out).
        let heights: Vec<f64> = text
            .lines()
            .filter(|line| line.contains(r##"fill="#0072B2""##) && !line.contains(r#"width="10""#))
            .filter_map(|line| {
                line.split("height=\"")
                    .nth(1)?
                    .split('"')
                    .next()?
                    .parse()
                    .ok()
            })
            .collect();
        assert_eq!(heights.len(), 7, "{text}");
        // Each as tall as its count of ways, 1 2 3 4 3 2 1, to a pixel of rounding.
        for (height, ways) in heights.iter().zip([1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0]) {
            assert!((height - heights[0] * ways).abs() <= 2.0, "{heights:?}");
        }
        assert!(text.contains("2d4") && text.contains("P(X = outcome)"));
    }
}
