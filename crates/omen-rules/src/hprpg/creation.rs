//! Character creation as an analysis (003-D2..D7, A2, A9..A11): the finished sheet from the player's
//! choices, or every rule the choices break, listed at once; what the rules allow but find unusual
//! as warnings, and the ratings' names with the personality's Asset and Flaw (003-D1, D6) as notes.

use omen_core::Limits;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::character::{CreationChoices, create};
use super::summary::SheetSummary;
use crate::analysis::{Analysis, AnalysisTable, Answer, decode_inputs, inputs_schema};

/// The inputs of the `create` analysis.
#[derive(Clone, Debug, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(example = json!({ "choices": {
    "species": "HALFBLOOD", "personality": "REBEL", "archetype": "WARRIOR",
    "aspect_ranking": ["PHYSICAL", "MENTAL", "SOCIAL"],
    "aspects": {"FITNESS": 3, "PRECISION": 2, "VITALITY": 2, "INTELLIGENCE": 2, "WILLPOWER": 1,
                "PERCEPTION": 2, "CHARM": 1, "DECEPTION": 1, "INSIGHT": 1},
    "ability_ranking": ["PRACTICAL", "INNATE", "KNOWLEDGE"],
    "abilities": {"BRAWL": 3, "SKIRMISH": 3, "ACROBATICS": 2, "MARKSMANSHIP": 2, "SURVIVAL": 2,
                  "BRAVERY": 2, "ALERTNESS": 2, "STRENGTH": 2, "SPEED": 2, "HISTORY": 2, "ARCANE": 2},
    "archetype_abilities": {"rage": 2, "TACTICS": 1},
    "capability_choices": ["SKIRMISH", "HEXES", "wards", "MARKSMANSHIP"],
    "fortitude": 3, "health": 6, "galleons": 10 } }))]
pub struct CreateInputs {
    /// The player's creation choices (`omen rules hprpg --example` prints them as a sheet,
    /// `{"create": CHOICES}`, which is taken as it is): personality, archetype, the rankings, the
    /// dots of aspects and abilities, the archetype's abilities, the capability choices, FORTITUDE
    /// and HEALTH.
    pub choices: Value,
}

fn create_answer(inputs: &Value, _limits: &Limits) -> Result<Answer, String> {
    let CreateInputs { mut choices } = decode_inputs(inputs)?;
    // The sheet form `{"create": CHOICES}` is the same choices.
    if let Some(object) = choices.as_object_mut()
        && object.len() == 1
        && let Some(inner) = object.remove("create")
    {
        choices = inner;
    }
    let choices: CreationChoices = crate::schema_check::decode(&choices)
        .map_err(|e| format!("invalid creation choices: {e}"))?;
    let created = create(&choices).map_err(|problems| problems.to_string())?;
    let summary = SheetSummary::of(&created.sheet);
    let sheet = serde_json::to_value(&created.sheet).map_err(|e| e.to_string())?;
    let mut answer = serde_json::to_value(&created).map_err(|e| e.to_string())?;
    answer["summary"] = serde_json::to_value(&summary).map_err(|e| e.to_string())?;
    let mut table = AnalysisTable::new("The finished sheet", &["field", "value"]);
    for (name, value) in sheet.as_object().into_iter().flatten() {
        table.row(vec![name.clone(), value.to_string()]);
    }
    Ok(Answer {
        tables: vec![table],
        text: Some(format!("{sheet:#}\n")),
        markdown: None,
        json: Some(answer),
        warnings: created.warnings,
        notes: Some(summary.text()),
    })
}

fn create_tables(inputs: &Value, limits: &Limits) -> Result<Vec<AnalysisTable>, String> {
    create_answer(inputs, limits).map(|a| a.tables)
}

pub const CREATE: Analysis = Analysis {
    name: "create",
    spec_items: &[
        "003-D2", "003-D3", "003-D4", "003-D6", "003-A2", "003-A9", "003-A11",
    ],
    summary: "character creation: the finished sheet from the player's choices, or every rule the \
              choices break, listed at once; store it with `omen char new NAME --rules hprpg \
              --sheet '{\"create\": CHOICES}'`",
    inputs: inputs_schema::<CreateInputs>,
    run: create_tables,
    answer: Some(create_answer),
};
