//! A game added to omen-rules alone gets every face: the test game (omen-rules' `test-game`
//! feature, on for these tests through the dev-dependency) is listed by `omen rules`, has its action
//! and its analysis as subcommands, and is served over the API the page builds its forms from. No
//! line of this crate or the server names it; only these tests do.

use serde_json::json;

use crate::{json, omen, omen_ok};

#[test]
fn the_test_game_is_listed_by_omen_rules() {
    let listed = json(&omen_ok(&["rules", "--format", "json"]));
    let coin = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "coin")
        .expect("the test game is registered");
    assert_eq!(coin["actions"][0]["name"], "flip");
    assert!(omen_ok(&["rules"]).stdout.contains("coin"));
}

#[test]
fn a_games_help_lists_every_subcommand_with_its_help_and_an_actions_help_has_its_own() {
    // `omen GAME ACTION` builds the help of the action given alone: the list and a typo still get
    // every subcommand, with its help.
    let game = omen_ok(&["coin", "--help"]).stdout;
    assert!(game.contains("Flips the coin: a d2, 2 is heads."), "{game}");
    assert!(game.contains("the chance of heads on every one"), "{game}");
    let flip = omen_ok(&["coin", "flip", "--help"]).stdout;
    assert!(
        flip.starts_with("Flips the coin: a d2, 2 is heads."),
        "{flip}"
    );
    let streak = omen_ok(&["coin", "streak", "--help"]).stdout;
    assert!(
        streak.starts_with("the chance of heads on every one"),
        "{streak}"
    );
    let typo = omen(&["coin", "flp"]);
    assert_eq!(typo.code, 2);
    assert!(typo.stderr.contains("'flip'"), "{}", typo.stderr);
}

#[test]
fn the_flags_that_take_a_rule_set_name_the_test_game_in_their_help() {
    // The help of every flag or argument that takes a rule set is built from the registry, so the
    // test game is listed beside the seed games without this crate naming it.
    for args in [
        &["act", "--help"][..],
        &["rules", "--help"],
        &["char", "new", "--help"],
    ] {
        let help = omen_ok(args).stdout;
        assert!(
            help.contains("hprpg") && help.contains("coin"),
            "{args:?}: {help}"
        );
    }
}

#[test]
fn the_test_games_action_and_analysis_are_subcommands_with_help_from_the_schema() {
    let help = omen_ok(&["coin", "--help"]).stdout;
    assert!(help.contains("flip") && help.contains("streak"), "{help}");
    // The field's doc comment is the flag's help.
    let flip = omen_ok(&["coin", "flip", "--help"]).stdout;
    assert!(flip.contains("--call"), "{flip}");
    assert!(flip.contains("The side called before the flip"), "{flip}");
    // A d2 showing 2 is heads: a called heads is right, and the one-off coin has one head.
    let flipped = json(&omen_ok(&[
        "coin", "flip", "--call", "heads", "--dice", "2", "--format", "json",
    ]));
    assert_eq!(flipped["result"]["side"], "heads");
    assert_eq!(flipped["result"]["called_right"], true);
    assert_eq!(flipped["state_after"]["heads"], 1);
    // Heads on 3 flips in a row: (1/2)³ = 1/8.
    let streak = json(&omen_ok(&[
        "coin", "streak", "--flips", "3", "--format", "json",
    ]));
    assert_eq!(streak["tables"][0]["rows"][0], json!(["3", "1/8 (12.50%)"]));
    // The schema's range is the flag's.
    assert_eq!(omen(&["coin", "streak", "--flips", "21"]).code, 2);
}

#[cfg(unix)]
#[test]
fn the_test_game_has_api_routes_and_the_pages_forms() {
    use std::process::Stdio;

    use crate::serve::{request, spawn_server, terminate};

    let dir = crate::scratch_dir("test_game_serve");
    let db = dir.join("coin.db");
    let key = dir.join("coin.db.key");
    let (mut server, _stdout, address) = spawn_server(
        &[
            "--db".as_ref(),
            db.as_os_str(),
            "--key".as_ref(),
            key.as_os_str(),
        ],
        Stdio::null(),
    );
    // The rule set with its schemas: what the page's forms are built from, help included.
    let rule = request(&address, "GET", "/api/v1/rules/coin", "");
    assert!(rule.starts_with("HTTP/1.1 200"), "{rule}");
    assert!(rule.contains("The side called before the flip"), "{rule}");
    assert!(rule.contains("Flips in a row, 1..20."), "{rule}");
    // The analysis's route: (1/2)² = 1/4.
    let streak = request(
        &address,
        "POST",
        "/api/v1/rules/coin/analyses/streak",
        r#"{"flips":2}"#,
    );
    assert!(streak.starts_with("HTTP/1.1 200"), "{streak}");
    assert!(streak.contains("1/4 (25.00%)"), "{streak}");
    // The odds of the action for a sheet: 1/2 each side.
    let odds = request(
        &address,
        "POST",
        "/api/v1/rules/coin/odds",
        r#"{"sheet":{"heads":0},"action":{"action":"flip"}}"#,
    );
    assert!(odds.starts_with("HTTP/1.1 200"), "{odds}");
    assert!(odds.contains(r#""fraction":"1/2""#), "{odds}");
    // The games page lists the rule sets it builds forms for from the same API.
    let page = request(&address, "GET", "/games", "");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(terminate(&mut server).success());
}
