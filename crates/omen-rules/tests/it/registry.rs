//! The registry and the rule sets' descriptions: every listed item is a real spec item, every option
//! names its choices, and the tables a rule set advertises are the ones its module prints.

use std::collections::BTreeSet;

use omen_rules::ritual::{self, FamiliarityBonuses, ShortcutThreshold};
use omen_rules::{RuleSet, find, seed_games};

use crate::support::read_fixture;

#[test]
fn registry_lists_each_seed_game_once() {
    let names: Vec<&str> = seed_games().iter().map(|rules| rules.name()).collect();
    // In seed order, one per seed game implemented so far.
    assert_eq!(names, ["ritual", "spelldice", "luck", "hprpg", "t13"]);
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len());
    let seeds: BTreeSet<&str> = seed_games().iter().map(|rules| rules.seed_file()).collect();
    assert_eq!(seeds.len(), names.len());
    assert!(find("ritual").is_some());
    assert!(find("luck").is_some());
    assert!(find("Ritual").is_none());
    assert!(find("hprpg").is_some());
}

#[test]
fn descriptions_name_real_seeds_and_spec_items() {
    // The spec's item ids and the seeds' file names, kept as figures in `tests/fixtures/`.
    let spec_items = read_fixture("spec_items.txt");
    let spec: BTreeSet<&str> = spec_items.lines().collect();
    let seed_files = read_fixture("seed_files.txt");
    let seeds: BTreeSet<&str> = seed_files.lines().collect();
    for rules in seed_games() {
        let name = rules.name();
        assert!(
            seeds.contains(rules.seed_file()),
            "{name}: no seed file {}",
            rules.seed_file()
        );
        assert!(!rules.description().is_empty() && !rules.description().contains('\n'));
        let items: BTreeSet<&str> = rules.spec_items().iter().copied().collect();
        assert_eq!(
            items.len(),
            rules.spec_items().len(),
            "{name}: repeated items"
        );
        for item in rules.spec_items() {
            assert!(
                item.starts_with(&format!("{}-", rules.tag())),
                "{name}: {item} is not a {} item",
                rules.tag()
            );
            assert!(spec.contains(item), "{name}: {item} not in the spec");
        }
        let listed = |item: &&str| items.contains(item);
        for mechanic in rules.mechanics() {
            assert!(mechanic.spec_items.iter().all(&listed), "{mechanic:?}");
        }
        for option in rules.options() {
            assert!(listed(&option.spec_item), "{option:?}");
            assert!(option.choices.contains(&option.default), "{option:?}");
        }
        for table in rules.tables() {
            assert!(table.spec_items.iter().all(&listed), "{table:?}");
            assert!((table.render)().ends_with('\n'), "{}", table.name);
        }
    }
}

#[test]
fn ritual_describes_what_its_module_implements() {
    let rules: &dyn RuleSet = &ritual::Ritual;
    assert_eq!(rules.tag(), "000");
    assert_eq!(rules.seed_file(), ritual::SEED_FILE);
    let options = rules.options();
    let familiarity: Vec<&str> = FamiliarityBonuses::ALL.iter().map(|o| o.name()).collect();
    assert_eq!(options[0].choices, familiarity.as_slice());
    assert_eq!(options[0].default, FamiliarityBonuses::default().name());
    let shortcut: Vec<&str> = ShortcutThreshold::ALL.iter().map(|o| o.name()).collect();
    assert_eq!(options[1].choices, shortcut.as_slice());
    assert_eq!(options[1].default, ShortcutThreshold::default().name());
    let repeats: Vec<&str> = ritual::RepeatCounting::ALL
        .iter()
        .map(|o| o.name())
        .collect();
    assert_eq!(options[2].choices, repeats.as_slice());
    assert_eq!(options[2].default, ritual::RepeatCounting::default().name());
    let recording: Vec<&str> = ritual::RecordingRule::ALL
        .iter()
        .map(|o| o.name())
        .collect();
    assert_eq!(options[3].choices, recording.as_slice());
    assert_eq!(options[3].default, ritual::RecordingRule::default().name());
    let tables: Vec<&str> = rules.tables().iter().map(|t| t.name).collect();
    assert_eq!(tables, ["lore", "essence"]);
    assert_eq!((rules.tables()[0].render)(), ritual::lore_table());
    assert_eq!((rules.tables()[1].render)(), ritual::essence_table());
}
