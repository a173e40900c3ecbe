//! What a new character is made from ([`HprpgSheet`]), and what character creation allows but finds
//! unusual (003-A2, A9, A11): dots left unspent, a capability bonus the seed prints unreadably and the
//! project assumes (provisional), a rating above the advancement cap. The CLI prints them on stderr when creating a
//! character; the stateful game gives them to every other face ([`crate::vocabulary::stateful::Game::sheet_warnings`]).

use serde::{Deserialize, Serialize};

use super::character::{self, CharacterSheet, CreationChoices};

/// What a new character is made from: `{"create": CreationChoices}` or `{"sheet": CharacterSheet}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
#[schemars(example = serde_json::json!({"create": {
    "species": "HALFBLOOD", "personality": "REBEL", "archetype": "WARRIOR",
    "aspect_ranking": ["PHYSICAL", "MENTAL", "SOCIAL"],
    "aspects": {"FITNESS": 3, "PRECISION": 2, "VITALITY": 2, "INTELLIGENCE": 2, "WILLPOWER": 1,
                "PERCEPTION": 2, "CHARM": 1, "DECEPTION": 1, "INSIGHT": 1},
    "ability_ranking": ["PRACTICAL", "INNATE", "KNOWLEDGE"],
    "abilities": {"BRAWL": 3, "SKIRMISH": 3, "ACROBATICS": 2, "MARKSMANSHIP": 2, "SURVIVAL": 2,
                  "BRAVERY": 2, "ALERTNESS": 2, "STRENGTH": 2, "SPEED": 2, "HISTORY": 2, "ARCANE": 2},
    "archetype_abilities": {"rage": 2, "TACTICS": 1},
    "capability_choices": ["SKIRMISH", "HEXES", "wards", "MARKSMANSHIP"],
    "fortitude": 3, "health": 6, "galleons": 10}}))]
pub enum HprpgSheet {
    Create(Box<CreationChoices>),
    Sheet(Box<CharacterSheet>),
}

/// The warnings of a sheet: those of creation from choices (which include the finished sheet's),
/// or those of a finished sheet checked against the advancement cap of a new character. A sheet
/// with problems has none: its problems are what it must fix first.
pub fn sheet_warnings(sheet: &HprpgSheet) -> Vec<String> {
    match sheet {
        HprpgSheet::Create(choices) => character::create(choices)
            .map(|created| created.warnings)
            .unwrap_or_default(),
        HprpgSheet::Sheet(sheet) => {
            // A character made from a finished sheet starts with the default cap, as `create` gives it.
            let report = character::validate(sheet, character::DEFAULT_ADVANCEMENT_CAP);
            if report.problems.is_empty() {
                report.warnings
            } else {
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    fn example() -> Value {
        let game = crate::game("hprpg").expect("registered");
        game.schemas()["sheet"]["examples"][0].clone()
    }

    #[test]
    fn the_stateful_game_gives_the_warnings_creation_finds() {
        let game = crate::game("hprpg").expect("registered");
        // One free dot on TACTICS alone leaves 3 − 1 = 2 unspent (003-A9), allowed with a warning.
        let mut sheet = example();
        sheet["create"]["archetype_abilities"] = json!({ "TACTICS": 1 });
        game.new_character(&sheet).expect("allowed");
        assert_eq!(
            game.sheet_warnings(&sheet),
            ["2 of 3 free archetype ability dots unspent"]
        );
        // A sheet the rules refuse has its problems, not warnings; one of another shape neither.
        sheet["create"]["archetype_abilities"] = json!({ "TACTICS": 9 });
        assert!(game.new_character(&sheet).is_err());
        assert!(game.sheet_warnings(&sheet).is_empty());
        assert!(game.sheet_warnings(&json!({ "nonsense": 1 })).is_empty());
    }

    #[test]
    fn a_rating_above_a_lowered_advancement_cap_is_a_warning_not_a_problem() {
        let game = crate::game("hprpg").expect("registered");
        let mut sheet = example();
        // The example buys BRAWL 3 dots (abilities start at 0 and no bonus of the example's
        // archetype or personality touches it); a cap of 2 allows it with a warning (003-A2).
        sheet["create"]["advancement_cap"] = json!(2);
        game.new_character(&sheet).expect("allowed");
        let warnings = game.sheet_warnings(&sheet);
        assert!(
            warnings.contains(
                &"ability BRAWL has 3 dots, above the advancement cap of 2 (003-A2)".to_string()
            ),
            "{warnings:?}"
        );
        assert!(
            warnings.iter().all(|w| w.contains("advancement cap of 2")),
            "{warnings:?}"
        );
        // Games without warnings give none.
        let luck = crate::game("luck").expect("registered");
        assert!(luck.sheet_warnings(&json!({})).is_empty());
    }
}
