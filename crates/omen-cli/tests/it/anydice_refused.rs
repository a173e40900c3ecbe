//! `--dialect anydice` where a command would read the text as Omen's notation: refused with a hint,
//! before any campaign database is opened (so nothing is logged or created).

use std::path::PathBuf;

use crate::omen;

/// A database path in a fresh directory, never created by these tests.
fn unopened_database(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "omen-anydice-refused-{test}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("campaign.db")
}

#[test]
fn a_campaign_roll_refuses_an_anydice_program() {
    let db = unopened_database("roll");
    for campaign in [
        &["--campaign", "Ravenloft"][..],
        &["--char", "Ezra"][..],
        &["--visibility", "blind"][..],
    ] {
        let mut args = vec!["roll", "--dialect", "anydice", "--db", db.to_str().unwrap()];
        args.extend_from_slice(campaign);
        args.push("output 1d6");
        let run = omen(&args);
        assert_eq!(run.code, 2, "{campaign:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("error: --dialect anydice: a campaign's rolls are dice expressions"),
            "{campaign:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr
                .contains("help: roll the program without --campaign"),
            "{}",
            run.stderr
        );
        assert_eq!(run.stdout, "");
    }
    // `@NAME` is a saved roll of a campaign: refused the same way.
    let run = omen(&[
        "roll",
        "--dialect",
        "anydice",
        "--db",
        db.to_str().unwrap(),
        "@fireball",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("a campaign's rolls are dice expressions"),
        "{}",
        run.stderr
    );
    assert!(!db.exists(), "the refusal opened the database");
}

#[test]
fn prob_and_plot_refuse_a_saved_roll_as_an_anydice_program() {
    let db = unopened_database("saved");
    for command in ["prob", "plot"] {
        let run = omen(&[
            command,
            "--dialect",
            "anydice",
            "--db",
            db.to_str().unwrap(),
            "--campaign",
            "Ravenloft",
            "@fireball",
        ]);
        assert_eq!(run.code, 2, "{command}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("`@NAME` is a saved roll, kept in Omen's notation"),
            "{command}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("help: drop --dialect anydice"),
            "{}",
            run.stderr
        );
    }
    assert!(!db.exists(), "the refusal opened the database");
}

#[test]
fn save_and_campaign_set_take_no_anydice_dialect() {
    // `omen save` reads in the campaign's dialect, which is never AnyDice: it has no --dialect.
    let run = omen(&["save", "--dialect", "anydice", "fireball", "output 8d6"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("unexpected argument '--dialect'"),
        "{}",
        run.stderr
    );
    // A campaign's dialect is a notation its rolls are typed in; AnyDice's programs are not one.
    let run = omen(&["campaign", "set", "Ravenloft", "--dialect", "anydice"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("invalid value 'anydice'"),
        "{}",
        run.stderr
    );
}

#[test]
fn outside_a_campaign_roll_prob_and_plot_still_run_the_program() {
    // The refusals above are only for campaigns: one roll of `output 1` is 1 wherever the seed lands.
    let run = omen(&[
        "roll",
        "--dialect",
        "anydice",
        "--seed",
        "7",
        "output 1 named \"one\"",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "seed: 7\none: 1\n");
}
