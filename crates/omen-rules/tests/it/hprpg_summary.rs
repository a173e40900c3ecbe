//! Seed 003's sheet as people read it: rating names beside the dots (003-D1) and each personality's
//! Asset and Flaw (003-D6), in the summary every face shows and in the creation menu's help.
//! Seed 003: a test named `d1_…` covers 003-D1.

use omen_rules::hprpg::game::HprpgSheet;
use omen_rules::stateful::{self, Game};
use serde_json::{Value, json};

fn hprpg() -> &'static dyn Game {
    stateful::game("hprpg").expect("hprpg keeps state")
}

/// A REBEL of Gryffindor: FITNESS 3, WILLPOWER 7, the rest 1; BRAWL 2, a custom DODGE 5; ELEMENTAL 1.
fn rebel() -> Value {
    hprpg()
        .new_character(&json!({ "sheet": {
            "personality": "REBEL", "house": "GRYFFINDOR",
            "aspects": { "FITNESS": 3, "CHARM": 1, "INTELLIGENCE": 1, "PRECISION": 1,
                         "DECEPTION": 1, "WILLPOWER": 7, "VITALITY": 1, "INSIGHT": 1,
                         "PERCEPTION": 1 },
            "abilities": { "BRAWL": 2 },
            "custom_abilities": { "DODGE": { "type": "INNATE", "dots": 5 } },
            "affinities": { "ELEMENTAL": 1 }
        }}))
        .unwrap()
}

fn rated<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {list}"))
}

/// 003-D1: the seed's scale names 1 Beginner, 3 Average, 5 Expert, 7 Ascendant; the summary shows
/// each rating with its name, in JSON and in text, for aspects, abilities (custom ones too) and
/// affinities.
#[test]
fn d1_the_summary_names_every_rating_beside_its_dots() {
    let (text, summary) = hprpg().summary(&rebel()).expect("hprpg summarises a sheet");
    let aspects = &summary["aspects"];
    assert_eq!(aspects.as_array().unwrap().len(), 9);
    assert_eq!(
        rated(aspects, "FITNESS"),
        &json!({ "name": "FITNESS", "dots": 3, "rating": "Average" })
    );
    assert_eq!(rated(aspects, "WILLPOWER")["rating"], "Ascendant");
    assert_eq!(rated(aspects, "CHARM")["rating"], "Beginner");
    assert_eq!(
        rated(&summary["abilities"], "BRAWL"),
        &json!({ "name": "BRAWL", "dots": 2, "rating": "Novice", "type": "PRACTICAL" })
    );
    assert_eq!(rated(&summary["abilities"], "DODGE")["rating"], "Expert");
    assert_eq!(
        rated(&summary["affinities"], "ELEMENTAL")["rating"],
        "Beginner"
    );
    for shown in [
        "FITNESS 3 (Average)",
        "WILLPOWER 7 (Ascendant)",
        "BRAWL 2 (Novice)",
        "DODGE 5 (Expert)",
        "ELEMENTAL 1 (Beginner)",
    ] {
        assert!(text.contains(shown), "{shown} not in {text}");
    }
}

/// 003-D6: the REBEL's Asset is DISTINCTIVENESS and Flaw LACK OF RESPECT (the seed's REBEL table);
/// the summary shows them with the house and the Nourishment, and the creation menu's help lists every
/// personality's.
#[test]
fn d6_the_summary_and_the_creation_menu_show_each_personalitys_asset_and_flaw() {
    let (text, summary) = hprpg().summary(&rebel()).unwrap();
    assert_eq!(
        summary["personality"],
        json!({ "name": "REBEL", "house": "GRYFFINDOR", "asset": "DISTINCTIVENESS",
                "flaw": "LACK OF RESPECT",
                "nourishment": "you defy authority in some meaningful fashion" })
    );
    assert!(
        text.contains(
            "personality: REBEL of GRYFFINDOR; asset DISTINCTIVENESS, flaw LACK OF RESPECT"
        ),
        "{text}"
    );
    let schema = json!(schemars::schema_for!(HprpgSheet));
    let field = schema
        .pointer("/$defs/CreationChoices/properties/personality")
        .unwrap_or_else(|| panic!("no personality field in {schema}"));
    let help = field["description"].as_str().unwrap();
    assert!(
        help.starts_with("The personality, which gives two bonus dots"),
        "{help}"
    );
    assert!(
        help.contains("REBEL (GRYFFINDOR): asset DISTINCTIVENESS, flaw LACK OF RESPECT"),
        "{help}"
    );
    let per_value = field["x-enum-descriptions"].as_object().unwrap();
    assert_eq!(per_value.len(), 21);
    assert!(
        per_value["LONER"]
            .as_str()
            .unwrap()
            .starts_with("LONER (no house)")
    );
}
