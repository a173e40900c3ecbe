//! One output convention: side-by-side distributions with views, text fitted to the terminal, `-o FILE`,
//! and the hint for `omen prob --seed`.

use crate::{example, json, omen, omen_ok, omen_ok_env, reduced};

#[test]
fn three_expressions_side_by_side() {
    insta::assert_snapshot!(omen_ok(&["prob", "1d4", "1d6", "2d4kh1"]).stdout);
}

#[test]
fn side_by_side_at_least_transposed() {
    insta::assert_snapshot!(omen_ok(&["prob", "1d4", "1d6", "--view", "ge", "--transpose"]).stdout);
}

#[test]
fn side_by_side_csv_is_exact_for_every_view() {
    // 2d6 and 1d12 counted by hand: P(2d6 = 7) = 6/36, P(2d6 ≥ 10) = 6/36, P(1d12 < 4) = 3/12.
    let csv =
        |view: &str| omen_ok(&["prob", "2d6", "1d12", "--view", view, "--format", "csv"]).stdout;
    let row = |text: &str, outcome: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{outcome},")))
            .unwrap_or_else(|| panic!("no row {outcome} in {text}"))
            .to_string()
    };
    assert!(csv("eq").starts_with("outcome,2d6,1d12\n1,0,1/12\n"));
    assert_eq!(row(&csv("eq"), "7"), "7,1/6,1/12");
    assert_eq!(row(&csv("ge"), "10"), "10,1/6,1/4");
    assert_eq!(row(&csv("GT"), "10"), "10,1/12,1/6");
    assert_eq!(row(&csv("le"), "3"), "3,1/12,1/4");
    assert_eq!(row(&csv("lt"), "4"), "4,1/12,1/4");
}

#[test]
fn a_parameter_range_gives_a_column_per_value() {
    let run = omen_ok(&[
        "prob",
        "-f",
        &example("001_exhaustion.omen"),
        "--param",
        "level=1..3",
        "--format",
        "csv",
    ]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "outcome,level=1,level=2,level=3");
    // The README's figure for level 1: exhausted with probability 185/1188.
    assert!(
        lines.iter().any(|l| l.starts_with("exhausted,185/1188,")),
        "{}",
        run.stdout
    );
    let v = json(&omen_ok(&[
        "prob",
        "-f",
        &example("001_exhaustion.omen"),
        "--param",
        "level=1..2",
        "--format",
        "json",
    ]));
    let reports = v.as_array().expect("one report per column");
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[1]["label"], "level=2");
}

#[test]
fn json_has_one_distribution_each() {
    let v = json(&omen_ok(&["prob", "2d6", "1d12", "--format", "json"]));
    let reports = v.as_array().expect("an array");
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0]["label"], "2d6");
    assert_eq!(reports[0]["mean"], "7");
    assert_eq!(reports[1]["expression"], "1d12");
    assert_eq!(reports[1]["outcomes"][0]["probability"], reduced(1, 12));
}

#[test]
fn exploding_tables_fit_the_width_and_say_how_to_get_fractions() {
    let run = omen_ok(&["prob", "3d6!"]);
    let widest = run.stdout.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 100, "{widest} columns:\n{}", run.stdout);
    assert!(
        crate::words(&run.stdout)
            .contains("--exact, --format csv or --format json give them in full")
    );
    let narrow = omen_ok_env(&["prob", "3d6!", "--decimals", "6"], "COLUMNS", "80");
    let widest = narrow
        .stdout
        .lines()
        .map(|l| l.chars().count())
        .max()
        .unwrap();
    assert!(widest <= 80, "{widest} columns:\n{}", narrow.stdout);
    assert!(
        narrow.stdout.contains("variance             ≈ 31.920000")
            && !narrow.stdout.contains("e0 "),
        "{}",
        narrow.stdout
    );
    // --exact keeps every fraction, however wide.
    let exact = omen_ok(&["prob", "3d6!", "--exact"]);
    assert!(exact.stdout.lines().any(|l| l.chars().count() > 100));
    assert!(!exact.stdout.contains("give them in full"));
    // A short table is not touched.
    assert!(!omen_ok(&["prob", "2d6"]).stdout.contains("decimals"));
}

#[test]
fn formats_are_case_insensitive_everywhere() {
    assert!(
        omen_ok(&["prob", "2d6", "--format", "CSV"])
            .stdout
            .starts_with("outcome,")
    );
    assert!(
        omen_ok(&["roll", "2d6", "--seed", "1", "--format", "Json"])
            .stdout
            .starts_with('{')
    );
    assert!(
        omen_ok(&["hprpg", "table", "--dv", "8", "--format", "JSON"])
            .stdout
            .starts_with('{')
    );
}

#[test]
fn output_file_is_written_only_on_success() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odds.csv");
    let file = path.to_str().unwrap();
    let run = omen_ok(&["prob", "2d6", "--format", "csv", "-o", file]);
    assert!(run.stdout.is_empty());
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.starts_with("outcome,probability,"), "{written}");
    // A failing command leaves the earlier file as it was.
    let failed = omen(&["prob", "2d", "-o", file]);
    assert_eq!(failed.code, 2);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    // Every command takes -o: a game table and the rules listing too.
    let table = dir.path().join("table.md");
    omen_ok(&["hprpg", "table", "--dv", "8", "-o", table.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&table).unwrap().contains("| 0 |"));
    let rules = dir.path().join("rules.txt");
    omen_ok(&["rules", "--output", rules.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&rules).unwrap().contains("hprpg"));
}

#[test]
fn prob_with_a_seed_says_seeds_belong_to_roll() {
    let run = omen(&["prob", "2d6", "--seed", "3"]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.contains("seeds belong to `omen roll`"),
        "{}",
        run.stderr
    );
}

#[test]
fn only_one_parameter_may_be_a_range() {
    let run = omen(&[
        "prob",
        "param a = 1; param b = 1; (a)d(b)",
        "--param",
        "a=1..2",
        "--param",
        "b=1..2",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("only one --param may be a range"),
        "{}",
        run.stderr
    );
}

#[test]
fn completions_for_every_shell_and_a_man_page() {
    for shell in ["bash", "zsh", "fish", "powershell", "ELVISH"] {
        let script = omen_ok(&["completions", shell]).stdout;
        // Every top-level command can be completed.
        for command in ["roll", "prob", "rules", "hprpg", "campaign", "completions"] {
            assert!(script.contains(command), "{shell}: no {command}");
        }
    }
    let man = omen_ok(&["man"]).stdout;
    assert!(man.starts_with(".ie"), "{man}");
    assert!(man.contains(".TH omen 1"), "{man}");
    assert!(man.contains("prob"));
}

#[test]
fn the_man_page_name_line_has_no_backticks() {
    let man = omen_ok(&["man"]).stdout;
    let name = man
        .lines()
        .skip_while(|line| *line != ".SH NAME")
        .nth(1)
        .unwrap_or_else(|| panic!("no NAME section in {man}"));
    assert!(name.starts_with("omen \\- "), "{name}");
    assert!(!name.contains('`'), "{name}");
}

#[test]
fn strict_turns_warnings_into_errors() {
    // `3d6>=10` counts dice no d6 can show: a warning, exit 0 without --strict.
    assert_eq!(omen(&["prob", "3d6>=10"]).code, 0);
    let strict = omen(&["prob", "3d6>=10", "--strict"]);
    assert_eq!(strict.code, 2, "{}", strict.stderr);
    assert!(strict.stdout.is_empty());
    assert!(strict.stderr.contains("warning:") && strict.stderr.contains("--strict"));
    let side_by_side = omen(&["prob", "3d6>=10", "2d6", "--strict"]);
    assert_eq!(side_by_side.code, 2);
    assert!(side_by_side.stdout.is_empty());
    let roll = omen(&["roll", "1d6", "--dice", "3,4", "--strict"]);
    assert_eq!(roll.code, 2, "{}", roll.stderr);
    // A result cut off by the explosion depth limit is a warning too.
    assert_eq!(omen(&["prob", "2d6!", "--explode-depth", "2"]).code, 0);
    let cut = omen(&["prob", "2d6!", "--explode-depth", "2", "--strict"]);
    assert_eq!(cut.code, 2, "{}", cut.stderr);
    assert!(cut.stdout.is_empty());
    assert!(cut.stderr.contains("depth limit"), "{}", cut.stderr);
    // No warning, no failure.
    assert_eq!(omen(&["prob", "2d6", "--strict"]).code, 0);
}

/// The text of every `<text>` element of an SVG document, which must parse as XML.
fn svg_texts(svg: &str) -> Vec<String> {
    let document = roxmltree::Document::parse(svg).expect("the chart is well-formed SVG");
    assert_eq!(document.root_element().tag_name().name(), "svg");
    document
        .descendants()
        .filter(|n| n.tag_name().name() == "text")
        .filter_map(|n| n.text().map(|t| t.trim().to_string()))
        .collect()
}

#[test]
fn plot_draws_bars_for_one_and_lines_for_several_with_axes_and_a_legend() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.svg");
    omen_ok(&["plot", "2d6", "-o", one.to_str().unwrap()]);
    let svg = std::fs::read_to_string(&one).unwrap();
    let texts = svg_texts(&svg);
    for label in ["P(X = outcome)", "outcome", "probability (%)", "2d6"] {
        assert!(
            texts.iter().any(|t| t == label),
            "no {label:?} in {texts:?}"
        );
    }
    // Eleven bars (one per outcome of 2d6) and the legend's mark, in the series' colour; no line.
    let document = roxmltree::Document::parse(&svg).unwrap();
    let coloured = |tag: &str, attribute: &str, doc: &roxmltree::Document| {
        doc.descendants()
            .filter(|n| n.tag_name().name() == tag && n.attribute(attribute) == Some("#0072B2"))
            .count()
    };
    assert_eq!(coloured("rect", "fill", &document), 11 + 1);
    assert_eq!(coloured("polyline", "stroke", &document), 0);

    let several = omen_ok(&["plot", "2d6", "1d12", "--view", "ge"]).stdout;
    let texts = svg_texts(&several);
    assert!(texts.iter().any(|t| t == "P(X ≥ outcome)"), "{texts:?}");
    assert!(texts.iter().any(|t| t == "1d12"), "{texts:?}");
    let document = roxmltree::Document::parse(&several).unwrap();
    // Two series and their two legend marks.
    assert!(
        document
            .descendants()
            .filter(|n| n.tag_name().name() == "polyline")
            .count()
            >= 2,
        "{several}"
    );
}

/// The chart's colours were plotters' red, green and yellow; they are the page's Okabe–Ito palette,
/// series by series in the page's order.
#[test]
fn plot_colours_are_the_pages_colour_blind_safe_palette() {
    let svg = omen_ok(&["plot", "1d4", "1d6", "1d8"]).stdout;
    let document = roxmltree::Document::parse(&svg).unwrap();
    let mut strokes: Vec<String> = Vec::new();
    // The series' lines and their legend marks are 2 wide; the axes' ticks are black and 1 wide.
    for line in document
        .descendants()
        .filter(|n| n.tag_name().name() == "polyline" && n.attribute("stroke-width") == Some("2"))
    {
        let stroke = line.attribute("stroke").unwrap_or_default().to_uppercase();
        if !strokes.contains(&stroke) {
            strokes.push(stroke);
        }
    }
    assert_eq!(strokes, ["#0072B2", "#E69F00", "#009E73"], "{svg}");
    for red_green_yellow in ["#E6194B", "#3CB44B", "#FFE119"] {
        assert!(!svg.to_uppercase().contains(red_green_yellow), "{svg}");
    }
}

#[test]
fn plot_refuses_labels_and_other_file_types() {
    let run = omen(&["plot", r#"if d2 = 1 then "a" else "b""#]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("plot draws numbers"), "{}", run.stderr);
    let dir = tempfile::tempdir().unwrap();
    let jpeg = dir.path().join("chart.jpg");
    let run = omen(&["plot", "2d6", "-o", jpeg.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("SVG or PNG"), "{}", run.stderr);
    assert!(!jpeg.exists());
}

/// The pixels of a PNG file: width, height and 8-bit RGB rows.
fn decode_png(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).expect("PNG image data");
    assert_eq!(frame.color_type, png::ColorType::Rgb);
    assert_eq!(frame.bit_depth, png::BitDepth::Eight);
    pixels.truncate(frame.buffer_size());
    (frame.width, frame.height, pixels)
}

#[test]
fn plot_draws_png_with_its_own_font() {
    let dir = tempfile::tempdir().unwrap();
    // By the file's extension, and by --format whatever the name.
    let by_name = dir.path().join("chart.png");
    omen_ok(&["plot", "3d6", "2d10", "-o", by_name.to_str().unwrap()]);
    let by_flag = dir.path().join("chart.out");
    omen_ok(&[
        "plot",
        "3d6",
        "--format",
        "PNG",
        "-o",
        by_flag.to_str().unwrap(),
    ]);
    for path in [by_name, by_flag] {
        let (width, height, pixels) = decode_png(&path);
        assert_eq!((width, height), (960, 600));
        let row = width as usize * 3;
        let dark = |rows: std::ops::Range<usize>| {
            pixels[rows.start * row..rows.end * row]
                .chunks(3)
                .filter(|p| p.iter().all(|&c| c < 96))
                .count()
        };
        // The caption, above the plotting area, is text only: drawn, so the font was found.
        assert!(dark(0..50) > 100, "no caption in {}", path.display());
        // Curves or bars in colour.
        let coloured = pixels
            .chunks(3)
            .filter(|p| p.iter().max().unwrap() - p.iter().min().unwrap() > 100)
            .count();
        assert!(coloured > 1000, "{coloured} coloured pixels");
    }
    // A --format svg chart is SVG whatever the file is called.
    let svg = dir.path().join("chart.img");
    omen_ok(&[
        "plot",
        "3d6",
        "--format",
        "svg",
        "-o",
        svg.to_str().unwrap(),
    ]);
    roxmltree::Document::parse(&std::fs::read_to_string(&svg).unwrap()).unwrap();
}

/// The top-level help, in the order a newcomer needs it: roll, prob, plot, then campaigns, then games.
#[test]
fn top_level_help() {
    let help = omen_ok(&["--help"]).stdout;
    let position = |name: &str| {
        help.find(&format!("\n  {name} "))
            .unwrap_or_else(|| panic!("no {name} in {help}"))
    };
    assert!(position("roll") < position("prob") && position("prob") < position("plot"));
    assert!(position("plot") < position("campaign") && position("campaign") < position("ritual"));
    assert!(
        !help.contains("000_"),
        "seed file names belong to omen rules --detail"
    );
    insta::assert_snapshot!(help);
}

/// Each subcommand's help ends with examples.
#[test]
fn subcommand_help_ends_with_examples() {
    for command in ["roll", "prob", "plot", "completions"] {
        let help = omen_ok(&[command, "--help"]).stdout;
        assert!(help.contains("\nExamples:\n"), "{command}: {help}");
    }
}
