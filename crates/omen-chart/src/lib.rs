//! Omen's charts: exact distributions drawn as SVG text or PNG bytes with plotters, bars for one
//! distribution and lines for several, with labelled axes and a legend. No I/O: `omen plot` writes
//! what it returns to a file or stdout, the Discord face attaches it to a message.
//!
//! Text is drawn with a font compiled in (a subset of DejaVu Sans, see `assets/FONT-LICENSE.md`),
//! so a PNG looks the same on every machine, with or without fonts installed. Every chart is
//! [`SIZE`] pixels, so what a chart costs to draw and to send is bounded by its points alone
//! ([`MAX_POINTS`]).
//!
//! ```
//! use omen_chart::{Chart, Series};
//! use omen_core::Probability;
//!
//! // 1d4: each face 1/4.
//! let quarter = Probability::new(1u32.into(), 4u32.into());
//! let series = Series::new("1d4", vec![quarter; 4]);
//! let chart = Chart::new("P(X = outcome)", vec![1, 2, 3, 4], vec![series]).unwrap();
//! let png = omen_chart::png(&chart).unwrap();
//! assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
//! assert!(omen_chart::svg(&chart).unwrap().starts_with("<svg"));
//! ```

// STYLE.md 16: no function over 100 lines; a longer one is split into named steps.
#![deny(clippy::too_many_lines)]

mod draw;

use std::fmt;

use omen_core::Probability;
use plotters::style::RGBColor;

pub use draw::{png, svg};

/// Pixels of every chart, width by height.
pub const SIZE: (u32, u32) = (960, 600);

/// The most points (outcomes times series) a chart draws: each is a bar or a line's vertex, so
/// this bounds the drawing's work. Far above what a readable chart holds.
pub const MAX_POINTS: usize = 1 << 20;

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

/// One distribution: its legend label and one exact probability per outcome of the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    pub probabilities: Vec<Probability>,
}

impl Series {
    pub fn new(label: impl Into<String>, probabilities: Vec<Probability>) -> Self {
        Series {
            label: label.into(),
            probabilities,
        }
    }
}

/// What a chart shows: a caption, the outcomes along the x axis, and the series drawn over them
/// (their probabilities shown as percentages). The axis runs from the least outcome to the
/// greatest; outcomes may repeat (true and 1 are both drawn at 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    caption: String,
    outcomes: Vec<i64>,
    series: Vec<Series>,
}

impl Chart {
    /// A chart of `series` over `outcomes`.
    ///
    /// # Errors
    /// [`ChartError::Shape`] when there is no series or a series has not one probability per
    /// outcome; [`ChartError::TooLarge`] past [`MAX_POINTS`].
    pub fn new(
        caption: impl Into<String>,
        outcomes: Vec<i64>,
        series: Vec<Series>,
    ) -> Result<Self, ChartError> {
        if series.is_empty() {
            return Err(ChartError::Shape("a chart needs a series".to_string()));
        }
        if let Some(odd) = series
            .iter()
            .find(|s| s.probabilities.len() != outcomes.len())
        {
            return Err(ChartError::Shape(format!(
                "series `{}` has {} probabilities for {} outcomes",
                odd.label,
                odd.probabilities.len(),
                outcomes.len()
            )));
        }
        within_points(outcomes.len(), series.len())?;
        Ok(Chart {
            caption: caption.into(),
            outcomes,
            series,
        })
    }

    pub fn caption(&self) -> &str {
        &self.caption
    }

    pub fn outcomes(&self) -> &[i64] {
        &self.outcomes
    }

    pub fn series(&self) -> &[Series] {
        &self.series
    }
}

fn within_points(outcomes: usize, series: usize) -> Result<(), ChartError> {
    let points = outcomes.saturating_mul(series);
    if points > MAX_POINTS {
        return Err(ChartError::TooLarge {
            points,
            limit: MAX_POINTS,
        });
    }
    Ok(())
}

/// Why a chart was not drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChartError {
    /// The outcomes and series do not make a chart (see [`Chart::new`]).
    Shape(String),
    /// More points than [`MAX_POINTS`].
    TooLarge { points: usize, limit: usize },
    /// The compiled-in font was not accepted (an internal error).
    Font,
    /// plotters failed to draw.
    Draw(String),
    /// The PNG encoder failed (none is expected writing to memory).
    Encode(String),
}

impl fmt::Display for ChartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChartError::Shape(why) => write!(f, "cannot chart this: {why}"),
            ChartError::TooLarge { points, limit } => write!(
                f,
                "too many points to chart: {points} (limit {limit}); chart fewer outcomes or series"
            ),
            ChartError::Font => write!(f, "internal error: the chart font cannot be read"),
            ChartError::Draw(why) => write!(f, "cannot draw the chart: {why}"),
            ChartError::Encode(why) => write!(f, "cannot encode the PNG: {why}"),
        }
    }
}

impl std::error::Error for ChartError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(n: u32, d: u32) -> Probability {
        Probability::new(n.into(), d.into())
    }

    #[test]
    fn a_chart_needs_one_probability_per_outcome() {
        let half = || Series::new("d2", vec![p(1, 2), p(1, 2)]);
        assert!(Chart::new("c", vec![1, 2], vec![half()]).is_ok());
        assert!(matches!(
            Chart::new("c", vec![1, 2, 3], vec![half()]),
            Err(ChartError::Shape(_))
        ));
        assert!(matches!(
            Chart::new("c", vec![1, 2], vec![]),
            Err(ChartError::Shape(_))
        ));
    }

    #[test]
    fn more_points_than_the_limit_are_refused_before_drawing() {
        // 2^19 outcomes in two series fill the limit exactly; one more outcome passes it.
        assert_eq!(within_points(1 << 19, 2), Ok(()));
        assert_eq!(
            within_points((1 << 19) + 1, 2),
            Err(ChartError::TooLarge {
                points: (1 << 20) + 2,
                limit: MAX_POINTS
            })
        );
        assert!(within_points(usize::MAX, 2).is_err());
    }
}
