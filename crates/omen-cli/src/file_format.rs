//! The format of a result written with `-o FILE`: taken from the file's extension unless
//! `--format` names one, and refused when the two disagree, so a name never promises one format
//! while the file holds another.

use std::path::Path;

use clap::ValueEnum;

/// The image `omen plot` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlotFormat {
    /// Scalable vector graphics: text, sharp at any size.
    Svg,
    /// A 960×600 bitmap.
    Png,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProbFormat {
    /// Aligned columns with a bar, then the statistics, fitted to the terminal.
    #[value(alias = "table")]
    Text,
    /// A Markdown table, then the statistics as a list.
    Markdown,
    /// One row per outcome, no statistics.
    Csv,
    /// Outcomes and statistics with exact fractions as strings.
    Json,
}

/// The format `omen prob` writes: `--format`, else the extension of `-o FILE` (`.csv`, `.md`,
/// `.json`, `.txt`), else text.
///
/// # Errors
/// `--format` names another format than the extension does.
pub fn prob_format(given: Option<ProbFormat>, file: Option<&Path>) -> Result<ProbFormat, String> {
    let extension = extension(file);
    let implied = match extension.as_deref() {
        Some("csv") => Some(ProbFormat::Csv),
        Some("md" | "markdown") => Some(ProbFormat::Markdown),
        Some("json") => Some(ProbFormat::Json),
        Some("txt" | "text") => Some(ProbFormat::Text),
        _ => None,
    };
    agree(given, implied, extension.as_deref(), prob_name)
        .map(|format| format.unwrap_or(ProbFormat::Text))
}

/// The image `omen plot` writes: `--format`, else the extension of `-o FILE`, else SVG.
///
/// # Errors
/// `--format` names another format than the extension does, or an extension that is neither SVG
/// nor PNG with no `--format`.
pub fn plot_format(given: Option<PlotFormat>, file: Option<&Path>) -> Result<PlotFormat, String> {
    let extension = extension(file);
    let implied = match extension.as_deref() {
        Some("svg") => Some(PlotFormat::Svg),
        Some("png") => Some(PlotFormat::Png),
        _ => None,
    };
    match (given, implied, extension.as_deref()) {
        (None, None, Some(other)) => Err(format!(
            "omen plot writes SVG or PNG, and `.{}` is neither\n  = help: name the file FILE.svg \
             or FILE.png, or choose with --format svg|png",
            crate::escape::line(other)
        )),
        _ => agree(given, implied, extension.as_deref(), plot_name)
            .map(|format| format.unwrap_or(PlotFormat::Svg)),
    }
}

/// `given`, else `implied`; an error when both are there and differ.
fn agree<F: Copy + PartialEq>(
    given: Option<F>,
    implied: Option<F>,
    extension: Option<&str>,
    name: fn(F) -> &'static str,
) -> Result<Option<F>, String> {
    match (given, implied) {
        (Some(given), Some(implied)) if given != implied => Err(format!(
            "--format {} contradicts the file name: `.{}` is {}\n  = help: name the file for \
             the format (FILE.{}), or drop --format to write {}",
            name(given),
            extension.unwrap_or_default(),
            name(implied),
            name(given),
            name(implied)
        )),
        (given, implied) => Ok(given.or(implied)),
    }
}

fn extension(file: Option<&Path>) -> Option<String> {
    file?
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

fn prob_name(format: ProbFormat) -> &'static str {
    match format {
        ProbFormat::Text => "txt",
        ProbFormat::Markdown => "md",
        ProbFormat::Csv => "csv",
        ProbFormat::Json => "json",
    }
}

fn plot_name(format: PlotFormat) -> &'static str {
    match format {
        PlotFormat::Svg => "svg",
        PlotFormat::Png => "png",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_chooses_unless_format_is_given() {
        let csv = Some(Path::new("d.CSV"));
        assert_eq!(prob_format(None, csv), Ok(ProbFormat::Csv));
        assert_eq!(prob_format(Some(ProbFormat::Csv), csv), Ok(ProbFormat::Csv));
        assert_eq!(
            prob_format(None, Some(Path::new("d.md"))),
            Ok(ProbFormat::Markdown)
        );
        assert_eq!(
            prob_format(None, Some(Path::new("d.out"))),
            Ok(ProbFormat::Text)
        );
        assert_eq!(
            prob_format(Some(ProbFormat::Json), Some(Path::new("d.out"))),
            Ok(ProbFormat::Json)
        );
        assert_eq!(prob_format(None, None), Ok(ProbFormat::Text));
        let clash = prob_format(Some(ProbFormat::Json), csv).unwrap_err();
        assert!(clash.starts_with("--format json contradicts"), "{clash}");
    }

    #[test]
    fn a_plot_named_svg_is_svg() {
        let svg = Some(Path::new("x.svg"));
        assert_eq!(plot_format(None, svg), Ok(PlotFormat::Svg));
        let clash = plot_format(Some(PlotFormat::Png), svg).unwrap_err();
        assert!(clash.contains("`.svg` is svg"), "{clash}");
        assert_eq!(
            plot_format(Some(PlotFormat::Png), Some(Path::new("x.img"))),
            Ok(PlotFormat::Png)
        );
        assert!(plot_format(None, Some(Path::new("x.jpg"))).is_err());
        assert_eq!(plot_format(None, None), Ok(PlotFormat::Svg));
    }
}
