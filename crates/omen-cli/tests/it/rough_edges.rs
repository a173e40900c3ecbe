//! The command line's rough edges a new user found (issue 24): each test is named after what
//! broke, and its expectations are worked out by hand in the comments.

use crate::{json, omen, omen_at as at, omen_ok, omen_ok_at as ok, scratch_dir, words};

#[test]
fn sheet_with_an_existing_state_file_was_silently_ignored() {
    let dir = scratch_dir("edges_sheet_and_state");
    let state = dir.join("ayla.json");
    let state = state.to_str().unwrap();
    // The first use makes the character from the sheet.
    omen_ok(&[
        "luck",
        "roll",
        "--state",
        state,
        "--sheet",
        r#"{"intrinsic":[]}"#,
        "--dice",
        "30",
    ]);
    let before = std::fs::read_to_string(state).unwrap();
    let again = omen(&[
        "luck",
        "roll",
        "--state",
        state,
        "--sheet",
        r#"{"intrinsic":[{"source":"halfling","value":2}]}"#,
        "--dice",
        "30",
    ]);
    assert_eq!(again.code, 2, "{}", again.stdout);
    let said = words(&again.stderr);
    assert!(
        said.contains("--sheet makes a new character") && said.contains("drop --sheet"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(state).unwrap(), before);
}

#[test]
fn a_repeated_param_kept_the_first_value_silently() {
    for command in [
        &[
            "prob",
            "param level = 1; (level)d6",
            "--param",
            "level=2",
            "--param",
            "level=3",
        ][..],
        &[
            "roll",
            "param n = 1; (n)d6",
            "--param",
            "n=2",
            "--param",
            "n=3",
            "--seed",
            "1",
        ],
        &[
            "plot",
            "param n = 1; (n)d6",
            "--param",
            "n=1..3",
            "--param",
            "n=4",
        ],
    ] {
        let run = omen(command);
        assert_eq!(run.code, 2, "{command:?}: {}", run.stdout);
        let name = if command.contains(&"level=2") {
            "level"
        } else {
            "n"
        };
        assert!(
            run.stderr.contains(&format!("--param {name} given twice")),
            "{command:?}: {}",
            run.stderr
        );
    }
    // Two different parameters are fine.
    omen_ok(&[
        "prob",
        "param a = 1; param b = 1; (a)d6 + b",
        "--param",
        "a=2",
        "--param",
        "b=3",
    ]);
}

#[test]
fn view_atleast_suggested_le() {
    // 2d6 ≥ 12 is 1/36; ≤ 2 is 1/36 too, so the heading names the view.
    for (word, heading) in [
        ("atleast", "P(≥)"),
        ("at-least", "P(≥)"),
        ("AtMost", "P(≤)"),
        ("more-than", "P(>)"),
        ("less_than", "P(<)"),
    ] {
        let run = omen_ok(&["prob", "2d6", "1d12", "--view", word]);
        assert!(run.stdout.contains(heading), "{word}: {}", run.stdout);
    }
}

#[test]
fn log_took_the_campaign_positionally_only_in_reveal_and_fairness() {
    let db = scratch_dir("edges_log_campaign").join("omen.db");
    ok(&db, &["campaign", "new", "Tak"]);
    ok(&db, &["campaign", "new", "Other"]);
    ok(
        &db,
        &["roll", "1d20", "--campaign", "Tak", "--visibility", "blind"],
    );
    for (positional, flag) in [
        (&["log", "Tak"][..], &["log", "--campaign", "Tak"][..]),
        (
            &["log", "list", "Tak"],
            &["log", "list", "--campaign", "Tak"],
        ),
        (
            &["log", "head", "Tak"],
            &["log", "head", "--campaign", "Tak"],
        ),
        (
            &["log", "verify", "Tak"],
            &["log", "verify", "--campaign", "Tak"],
        ),
        (
            &["log", "replay", "Tak"],
            &["log", "replay", "--campaign", "Tak"],
        ),
        (
            &["log", "stats", "Tak"],
            &["log", "stats", "--campaign", "Tak"],
        ),
        (
            &["log", "fairness", "Tak"],
            &["log", "fairness", "--campaign", "Tak"],
        ),
    ] {
        assert_eq!(
            ok(&db, positional).stdout,
            ok(&db, flag).stdout,
            "{positional:?}"
        );
    }
    // The same name twice is one campaign; two names are refused, not one of them chosen.
    ok(&db, &["log", "head", "Tak", "--campaign", "Tak"]);
    let two = at(&db, &["log", "head", "Tak", "--campaign", "Other"]);
    assert_eq!(two.code, 2);
    assert!(two.stderr.contains("two campaigns named"), "{}", two.stderr);
    // Reveal: the campaign before the entry number, or --campaign.
    let revealed = ok(&db, &["log", "reveal", "1", "--campaign", "Tak"]);
    assert!(
        revealed.stdout.contains("entry 1 of `Tak` is revealed"),
        "{}",
        revealed.stdout
    );
    // A mistyped subcommand reads as a campaign's name: the refusal names the subcommand.
    let slip = at(&db, &["log", "verfy"]);
    assert_eq!(slip.code, 2);
    assert!(
        words(&slip.stderr).contains("did you mean `omen log verify`?"),
        "{}",
        slip.stderr
    );
    let bad = at(&db, &["log", "reveal", "Tak", "first"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("not an entry number"), "{}", bad.stderr);
}

#[test]
fn a_command_that_failed_for_want_of_a_campaign_left_a_new_database() {
    let dir = scratch_dir("edges_no_database");
    let db = dir.join("omen.db");
    for command in [
        &[
            "act",
            "luck",
            r#"{"action":"roll","event_modifier":-5}"#,
            "--char",
            "Ayla",
        ][..],
        &["luck", "roll", "--char", "Ayla"],
        &["roll", "1d20", "--char", "Ayla"],
        &["char", "new", "Ayla", "--rules", "luck"],
        &["save", "fireball", "8d6"],
        &["campaign", "invite", "Tak", "--role", "gm"],
        &["log", "reveal", "Tak", "1"],
    ] {
        let run = at(&db, command);
        assert_eq!(run.code, 2, "{command:?}: {}", run.stdout);
        assert!(
            words(&run.stderr).contains("omen campaign new NAME"),
            "{command:?}: {}",
            run.stderr
        );
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert!(left.is_empty(), "{command:?} left {left:?}");
    }
    // Making a campaign still makes the database.
    ok(&db, &["campaign", "new", "Tak"]);
    assert!(db.is_file());
}

#[test]
fn a_variance_past_64_bits_printed_inf() {
    // 1d6 × 10¹⁰: mean 3.5 × 10¹⁰; variance 35/12 × 10²⁰ = 875000000000000000000/3 ≈ 2.9167e20;
    // standard deviation √(35/12) × 10¹⁰ ≈ 17078251276.5993.
    let run = omen_ok(&["prob", "1d6*10000000000"]);
    let said = words(&run.stdout);
    assert!(!said.contains("inf"), "{said}");
    assert!(
        said.contains("variance 875000000000000000000/3 ≈ 2.9167e20"),
        "{said}"
    );
    assert!(
        said.contains("standard deviation ≈ 17078251276.5993"),
        "{said}"
    );
    let v = json(&omen_ok(&["prob", "1d6*10000000000", "--format", "json"]));
    let deviation = v["standard_deviation"].as_f64().unwrap();
    assert!(
        (deviation / 17_078_251_276.599_33 - 1.0).abs() < 1e-12,
        "{v}"
    );
}

#[test]
fn prob_o_d_csv_wrote_a_text_table() {
    let dir = scratch_dir("edges_prob_extension");
    let csv = dir.join("d.csv");
    omen_ok(&["prob", "2d6", "-o", csv.to_str().unwrap()]);
    let text = std::fs::read_to_string(&csv).unwrap();
    // 2d6 = 2 is 1/36, at least 2 is 1, at most 2 is 1/36.
    assert!(
        text.starts_with(
            "outcome,probability,percent,at_least,at_least_percent,at_most,at_most_percent\n2,1/36,"
        ),
        "{text}"
    );
    let md = dir.join("d.md");
    omen_ok(&["prob", "2d6", "-o", md.to_str().unwrap()]);
    assert!(
        std::fs::read_to_string(&md)
            .unwrap()
            .contains("| outcome | P(=) |")
    );
    let json_file = dir.join("d.json");
    omen_ok(&["prob", "2d6", "-o", json_file.to_str().unwrap()]);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    assert_eq!(v["outcomes"][0]["probability"], "1/36");
    // An explicit format that contradicts the name is refused, and nothing is written.
    let clash = dir.join("e.csv");
    let run = omen(&[
        "prob",
        "2d6",
        "-o",
        clash.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--format json contradicts"),
        "{}",
        run.stderr
    );
    assert!(!clash.exists());
    // An extension that names no format leaves --format (or text) in charge.
    let other = dir.join("d.out");
    omen_ok(&[
        "prob",
        "2d6",
        "-o",
        other.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(
        std::fs::read_to_string(&other)
            .unwrap()
            .starts_with("outcome,")
    );
}

#[test]
fn plot_o_svg_format_png_wrote_a_png_named_svg_silently() {
    let dir = scratch_dir("edges_plot_output");
    let svg = dir.join("x.svg");
    let run = omen(&[
        "plot",
        "3d6",
        "-o",
        svg.to_str().unwrap(),
        "--format",
        "png",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--format png contradicts"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("FILE.png"), "{}", run.stderr);
    assert!(!svg.exists());
    // plot -o says what it wrote: the path, the format, the size in pixels and in bytes.
    let run = omen_ok(&["plot", "3d6", "-o", svg.to_str().unwrap()]);
    let bytes = std::fs::metadata(&svg).unwrap().len();
    assert!(run.stdout.is_empty());
    assert_eq!(
        run.stderr,
        format!("wrote {}: SVG, 960×600, {bytes} bytes\n", svg.display())
    );
}

#[test]
fn impossible_and_tiny_outcomes_both_printed_0_00_percent() {
    // 1d4 cannot show 5: 0%. Three 1s on 3d100 are 1/1000000 = 0.0001%: possible, so <0.01%.
    let side = omen_ok(&["prob", "1d4", "1d6"]).stdout;
    let five = side.lines().find(|l| l.starts_with("5 ")).unwrap();
    assert_eq!(words(five), "5 0% 16.67%");
    let tiny = omen_ok(&["prob", "3d100", "--exact"]).stdout;
    let three = tiny
        .lines()
        .find(|l| l.trim_start().starts_with("3 "))
        .unwrap();
    assert!(
        three.contains("1/1000000") && three.contains("<0.01%"),
        "{three}"
    );
    assert!(
        !tiny.split_whitespace().any(|cell| cell == "0.00%"),
        "no possible outcome reads as 0.00%"
    );
}

#[test]
fn the_side_by_side_table_had_no_mean_or_standard_deviation() {
    // 1d4: mean 5/2, variance 15/12, sd √1.25 ≈ 1.118; 1d6: mean 7/2, variance 35/12, sd ≈ 1.708.
    let side = omen_ok(&["prob", "1d4", "1d6"]).stdout;
    let line = |name: &str| {
        words(
            side.lines()
                .find(|l| l.starts_with(name))
                .unwrap_or_else(|| panic!("no {name} in {side}")),
        )
    };
    assert_eq!(line("mean"), "mean 2.50 3.50");
    assert_eq!(line("standard deviation"), "standard deviation 1.12 1.71");
    let exact = omen_ok(&["prob", "1d4", "1d6", "--exact"]).stdout;
    assert!(words(&exact).contains("mean 5/2 7/2"), "{exact}");
    let transposed = omen_ok(&["prob", "1d4", "1d6", "--transpose", "--format", "markdown"]).stdout;
    let heading = transposed.lines().next().unwrap();
    assert!(
        heading.ends_with("| mean | standard deviation |"),
        "{heading}"
    );
    assert!(transposed.contains("| 1d6 |") && transposed.contains("| 3.50 | 1.71 |"));
    // CSV rows stay outcomes only.
    let csv = omen_ok(&["prob", "1d4", "1d6", "--format", "csv"]).stdout;
    assert!(!csv.contains("mean"), "{csv}");
}

#[test]
fn view_and_transpose_were_ignored_for_one_expression() {
    // 1d4 at least 2 is 3/4.
    let ge = omen_ok(&["prob", "1d4", "--view", "ge", "--exact"]).stdout;
    assert!(ge.starts_with("outcome P(≥)"), "{ge}");
    assert!(words(&ge).contains("2 3/4"), "{ge}");
    let transposed = omen_ok(&["prob", "1d4", "--transpose", "--exact"]).stdout;
    assert!(
        words(&transposed).starts_with("P(=) 1 2 3 4 mean"),
        "{transposed}"
    );
    assert!(
        words(&transposed).contains("1d4 1/4 1/4 1/4 1/4 5/2"),
        "{transposed}"
    );
    // JSON holds every view already: it says so rather than ignore the flag silently.
    let run = omen_ok(&["prob", "1d4", "--view", "ge", "--format", "json"]);
    assert!(
        run.stderr.contains("warning: --view and --transpose"),
        "{}",
        run.stderr
    );
    assert_eq!(json(&run)["outcomes"][1]["at_least"], "3/4");
    let strict = omen(&[
        "prob", "1d4", "--view", "ge", "--format", "json", "--strict",
    ]);
    assert_eq!(strict.code, 2);
    assert!(strict.stdout.is_empty());
}

/// Three labels the script writes in the order miss, crit, hit; alphabetically they would be crit,
/// hit, miss. A d6: 1–2 miss (1/3), 6 crit (1/6), 3–5 hit (1/2).
const LABELS: &str = r#"let r = d6; if r <= 2 then "miss" else (if r = 6 then "crit" else "hit")"#;

#[test]
fn labels_were_listed_alphabetically_with_meaningless_cumulative_columns() {
    let text = omen_ok(&["prob", LABELS]).stdout;
    let rows: Vec<String> = text.lines().skip(2).take(3).map(words).collect();
    assert_eq!(
        rows.iter()
            .map(|r| r.split(' ').take(3).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>(),
        ["miss 1/3 33.33%", "crit 1/6 16.67%", "hit 1/2 50.00%"],
        "{text}"
    );
    assert!(!text.contains("P(≥)") && !text.contains("P(≤)"), "{text}");
    let csv = omen_ok(&["prob", LABELS, "--format", "csv"]).stdout;
    assert_eq!(
        csv,
        "outcome,probability,percent\nmiss,1/3,33.333333\ncrit,1/6,16.666667\nhit,1/2,50\n"
    );
    let markdown = omen_ok(&["prob", LABELS, "--format", "markdown"]).stdout;
    assert!(markdown.contains("| outcome | P(=) | % |\n|:--|--:|--:|\n| miss | 1/3 |"));
    let v = json(&omen_ok(&["prob", LABELS, "--format", "json"]));
    assert_eq!(
        v["outcomes"][0],
        serde_json::json!({"outcome": "miss", "probability": "1/3"})
    );
    // Side by side: each script's order, and no cumulative view.
    let other = r#"if d6 = 6 then "crit" else "miss""#;
    let side = omen_ok(&["prob", LABELS, other]).stdout;
    // The first block of columns (a wide table continues in blocks below it).
    let firsts: Vec<&str> = side
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(firsts, ["miss", "crit", "hit"], "{side}");
    let refused = omen(&["prob", LABELS, other, "--view", "ge"]);
    assert_eq!(refused.code, 2);
    assert!(
        refused.stderr.contains("labels have no order"),
        "{}",
        refused.stderr
    );
}

#[test]
fn table_commands_took_only_text_and_json() {
    // Luck at modifier −2: bad 1..12 (12/50), neutral 13..42 (30/50), good 43..50 (8/50).
    let csv = omen_ok(&["luck", "ranges", "--modifier", "-2", "--format", "csv"]).stdout;
    assert_eq!(
        csv,
        "modifier,outcome,range,probability\n-2,bad,1-12,6/25\n-2,neutral,13-42,3/5\n-2,good,43-50,4/25\n"
    );
    let markdown = omen_ok(&["luck", "ranges", "--modifier", "-2", "--format", "markdown"]).stdout;
    assert!(
        markdown.contains("| -2 | good | 43-50 | 4/25 |"),
        "{markdown}"
    );
    // Two d6: two or more 1s only as 1+1, 1/36; either extreme 1+1 or 6+6, 2/36; both cannot be.
    let extremes = omen_ok(&[
        "spelldice",
        "extremes",
        "--max-dice",
        "2",
        "--format",
        "csv",
    ])
    .stdout;
    assert_eq!(
        extremes.lines().collect::<Vec<_>>(),
        [
            "dice,snake eyes,boxcars,either,both",
            "1,0,0,0,0",
            "2,1/36,1/36,1/18,0"
        ]
    );
    // A Lore check with no dice at difficulty 2 is one d6 ≥ … as the seed tabulates it; the table's
    // first row is the zero pool, led by the pool's size.
    let lore = omen_ok(&["ritual", "lore-table", "--format", "csv"]).stdout;
    assert!(lore.starts_with("dice,2,3,4,5,6\n0,"), "{lore}");
    assert_eq!(lore.lines().count(), 1 + 13);
    // Essence: one d6 reaches 3 with 4/6 and 6 with 1/6.
    let essence = omen_ok(&["ritual", "essence-table", "--format", "csv"]).stdout;
    assert!(
        essence.lines().nth(1).unwrap().starts_with("1,2/3,1/6,,"),
        "{essence}"
    );
    let hprpg = omen_ok(&["hprpg", "table", "--dv", "8", "--format", "csv"]).stdout;
    assert!(
        hprpg.starts_with(
            "catastrophe_range,difficulty,dice,catastrophe,failure,1,2,3,4,5,6,7+\n1,8,0,"
        ),
        "{hprpg}"
    );
    // A probability is written as `omen prob` writes it: lowest terms, a whole number bare. One d12
    // against DV 8: a 1 is the catastrophe (1/12), 2–7 fail (6/12), 8–12 one success (5/12), and
    // more successes cannot be, so those cells are a bare 0, not `0/1`.
    assert!(
        !hprpg.contains("/1,") && !hprpg.ends_with("/1\n"),
        "{hprpg}"
    );
    assert!(
        hprpg.contains("\n1,8,1,1/12,1/2,5/12,0,0,0,0,0,0\n"),
        "{hprpg}"
    );
    for command in [
        &["spelldice", "odds", "--spell-level", "1", "--max-dice", "2"][..],
        &["spelldice", "courtney"],
        &["luck", "stationary"],
    ] {
        for format in ["csv", "markdown"] {
            let run = omen_ok(&[command, &["--format", format][..]].concat());
            assert!(!run.stdout.is_empty(), "{command:?} {format}");
        }
    }
}

#[test]
fn counts_read_1_rolls_and_zero_costs_were_offered() {
    // A skill die bought with Sway costs 4 Sway (004-D1). A test without a stored character is the
    // action on a one-off character, whose sheet holds the Sway it pays; its summary is the rule
    // set's (the stand-alone test's `cost:` line is gone with it).
    for seed in ["1", "2", "3", "4", "5", "6"] {
        let run = omen_ok(&[
            "t13",
            "test",
            "--sheet",
            r#"{"sway":4}"#,
            "--boon",
            "6",
            "--descendant",
            "8",
            "--buy",
            "skill:6:sway",
            "--difficulty",
            "10",
            "--seed",
            seed,
        ]);
        assert!(run.stdout.contains("paid 4 sway"), "{}", run.stdout);
        for wrong in ["1 success levels", "1 failure levels"] {
            assert!(!run.stdout.contains(wrong), "{wrong}: {}", run.stdout);
        }
    }
    let db = scratch_dir("edges_plurals").join("omen.db");
    ok(&db, &["campaign", "new", "Tak"]);
    ok(&db, &["roll", "1d20", "--campaign", "Tak"]);
    let stats = words(&ok(&db, &["log", "stats"]).stdout);
    assert!(stats.contains("1 entry, 1 roll, 1 die"), "{stats}");
    let verify = words(&ok(&db, &["log", "verify"]).stdout);
    assert!(verify.contains("is intact: 1 entry,"), "{verify}");
}

#[test]
fn a_pools_line_in_a_roll_showed_its_readings_workings_as_nested_tuples() {
    // The dice 2, 4, 5 fill the pool; `low` rerolls the 2, which comes up 6.
    let run = omen_ok(&[
        "roll",
        "fn low(x) = x <= 2; let p = pool 3d6; let q = reroll(p, low); (sum(p), sum(q))",
        "--dice",
        "2,4,5,6",
    ]);
    let lines: Vec<&str> = run.stdout.lines().map(str::trim).collect();
    assert!(lines.contains(&"let p: pool 3d6"), "{}", run.stdout);
    assert!(lines.contains(&"3d6 → [2, 4, 5] = 11"), "{}", run.stdout);
    assert!(
        lines.contains(&"let q: reroll(p, low) → {4, 5, 6}"),
        "{}",
        run.stdout
    );
    assert!(lines.contains(&"result: (11, 15)"), "{}", run.stdout);
    assert!(!run.stdout.contains("(("), "{}", run.stdout);
}
