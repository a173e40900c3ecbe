//! Creation from the player's choices (003-D2, D3, D4, D6, A2, A9, A10, A11).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::archetypes::*;
use super::data::*;
use super::personalities::*;
use super::sheet::*;
use crate::hprpg::names::{NameError, normalize};
use crate::hprpg::resources::Resource;
use crate::vocabulary::stateful::Problems;

// ---------------------------------------------------------------------------------------------------
// Creation (003-D2, D3, D4, D6, A2, A9, A10, A11).

pub(super) fn default_cap() -> u32 {
    DEFAULT_ADVANCEMENT_CAP
}

/// A player's choices at character creation (003-D2..D7): species, personality and archetype, the
/// ranking of aspect and ability types with the dots spent in each, the archetype's choices, and the
/// starting FORTITUDE and health. Every problem is listed at once.
//
// The names are strings here, not the seed's enums, so that `create` can report every misspelt
// name together with the other problems; the schema still offers each field's names (the page's
// menus), and any case or alias is accepted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreationChoices {
    /// The species or subspecies (003-D7); names only, with no effect on the numbers. Optional.
    #[serde(default)]
    #[schemars(with = "Option<Species>")]
    pub species: Option<String>,
    /// The personality, which gives two bonus dots (003-D6).
    #[schemars(with = "Personality", transform = personality_help)]
    pub personality: String,
    /// The capability of a personality's chosen dot (GEEK: a KNOWLEDGE ability; PRODIGY, ASPIRANT,
    /// ACOLYTE: a standard ability).
    #[serde(default)]
    pub personality_choice: Option<String>,
    /// The archetype (003-D4), with its special abilities, bonuses and feats.
    #[schemars(with = "Archetype")]
    pub archetype: String,
    /// The aspect types, most important first (003-D2).
    #[schemars(with = "Vec<AspectType>")]
    pub aspect_ranking: Vec<String>,
    /// Dots added to each aspect above the baseline of 1 (003-D2).
    #[serde(default)]
    pub aspects: BTreeMap<String, u32>,
    /// The ability types, most important first (003-D3).
    #[schemars(with = "Vec<AbilityType>")]
    pub ability_ranking: Vec<String>,
    /// Dots spent on standard abilities (003-D3).
    #[serde(default)]
    pub abilities: BTreeMap<String, u32>,
    /// Free dots added to the archetype's abilities above 1 each (003-D4, A9).
    #[serde(default)]
    pub archetype_abilities: BTreeMap<String, u32>,
    /// One capability per choice row of the archetype's table, in row order (003-D4).
    #[serde(default)]
    pub capability_choices: Vec<String>,
    /// Abilities the GM granted, with their dots.
    #[serde(default)]
    pub custom_abilities: BTreeMap<String, CustomAbility>,
    /// Maximum FORTITUDE (003-A14: set by the table, no formula).
    pub fortitude: u32,
    /// Maximum health levels (003-A14: set by the table, no formula).
    pub health: u32,
    #[serde(default)]
    pub galleons: u64,
    /// Ratings above this draw a warning (003-A2).
    #[serde(default = "default_cap")]
    pub advancement_cap: u32,
}

/// The personality menu's help: each personality's house, Asset and Flaw (003-D6) after the field's
/// own description, so a player chooses knowing them; `x-enum-descriptions` gives the same per value.
pub(super) fn personality_help(schema: &mut schemars::Schema) {
    let lines: Vec<String> = PERSONALITIES
        .iter()
        .map(|data| {
            let house = data
                .house
                .map_or("no house".to_string(), |h| h.name().to_string());
            format!(
                "{} ({house}): asset {}, flaw {}",
                data.personality.name(),
                data.asset,
                data.flaw
            )
        })
        .collect();
    let described = schema
        .get("description")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_string();
    schema.insert(
        "description".to_string(),
        format!("{described} {}.", lines.join("; ")).trim().into(),
    );
    let per_value: serde_json::Map<String, serde_json::Value> = PERSONALITIES
        .iter()
        .zip(&lines)
        .map(|(data, line)| (data.personality.name().to_string(), line.clone().into()))
        .collect();
    schema.insert("x-enum-descriptions".to_string(), per_value.into());
}

/// A character made by [`create`], with what was allowed but unusual.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Created {
    pub sheet: CharacterSheet,
    pub warnings: Vec<String>,
}

pub(super) fn parse_into<T>(
    parsed: Result<T, NameError>,
    context: &str,
    problems: &mut Problems,
) -> Option<T> {
    parsed
        .map_err(|e| {
            if context.is_empty() {
                problems.push(e.to_string());
            } else {
                problems.push(format!("{context}: {e}"));
            }
        })
        .ok()
}

pub(super) fn ranking<T: Copy + Ord + std::fmt::Display>(
    names: &[String],
    parse: impl Fn(&str) -> Result<T, NameError>,
    all: &[T],
    what: &str,
    problems: &mut Problems,
) -> Option<Vec<T>> {
    let parsed: Vec<Option<T>> = names
        .iter()
        .map(|n| parse_into(parse(n), what, problems))
        .collect();
    let parsed: Vec<T> = parsed.into_iter().collect::<Option<_>>()?;
    let distinct: BTreeSet<T> = parsed.iter().copied().collect();
    if parsed.len() != all.len() || distinct.len() != all.len() {
        let listed = all.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        problems.push(format!(
            "{what} must rank each of {} exactly once, most important first",
            listed.join(", ")
        ));
        return None;
    }
    Some(parsed)
}

pub(super) fn bump(sheet: &mut CharacterSheet, capability: Capability, dots: u32) {
    match capability {
        Capability::Aspect(a) => *sheet.aspects.entry(a).or_insert(0) += dots,
        Capability::Ability(a) => *sheet.abilities.entry(a.name().to_string()).or_insert(0) += dots,
        Capability::Affinity(d) => *sheet.affinities.entry(d).or_insert(0) += dots,
    }
}

/// Builds a new character from `choices` (003-D2, D3, D4, D6, A9, A10, A11), or lists every broken
/// rule at once:
/// * aspects: 1 each, then 7 / 5 / 3 dots by the ranked types, at most +3 on one aspect;
/// * abilities: 12 / 8 / 4 dots by the ranked types, at most 3 on one ability;
/// * archetype abilities: 1 each plus 3 free dots (003-A9), none above 4;
/// * the archetype's capability bonuses, one choice per choice row, no capability chosen twice
///   (nor a choice repeating a fixed row's capability, so no capability takes two rows' bonuses);
///   unreadable counts use the provisional pattern 2, 2, 2, 1, 1 (003-A11, with a warning);
/// * the personality's two dots, the House dot first (003-A10);
/// * every final rating at most 7; above `advancement_cap` a warning (003-A2).
///
/// Dots left unspent are a warning, not an error. FORTITUDE and health start full.
///
/// # Errors
/// Every problem found, as [`Problems`].
pub fn create(choices: &CreationChoices) -> Result<Created, Problems> {
    let mut problems = Problems::new();
    let mut warnings = Vec::new();
    let species = choices
        .species
        .as_deref()
        .and_then(|s| parse_into(Species::parse(s), "", &mut problems));
    let personality = parse_into(Personality::parse(&choices.personality), "", &mut problems);
    let archetype = parse_into(Archetype::parse(&choices.archetype), "", &mut problems);

    let mut sheet = CharacterSheet {
        species,
        personality,
        house: personality.and_then(Personality::house),
        archetype,
        fortitude: Resource::full(choices.fortitude),
        health: Resource::full(choices.health),
        galleons: choices.galleons,
        ..CharacterSheet::default()
    };
    for &aspect in Aspect::ALL {
        sheet.aspects.insert(aspect, ASPECT_BASELINE);
    }

    allocate_aspects(choices, &mut sheet, &mut problems, &mut warnings);
    allocate_abilities(choices, &mut sheet, &mut problems, &mut warnings);
    if let Some(archetype) = archetype {
        let mut notes = (&mut problems, &mut warnings);
        archetype_abilities(archetype, choices, &mut sheet, &mut notes);
        capability_bonuses(archetype, choices, &mut sheet, &mut notes);
    }
    if let Some(personality) = personality {
        personality_bonuses(personality, choices, &mut sheet, &mut problems);
    }

    for (name, custom) in &choices.custom_abilities {
        sheet.custom_abilities.insert(name.clone(), *custom);
    }

    let report = validate(&sheet, choices.advancement_cap);
    for problem in report.problems.0 {
        problems.push(problem);
    }
    warnings.extend(report.warnings);
    problems.into_result(Created { sheet, warnings })
}

/// The problems and the warnings a creation collects on its way.
type Notes<'a> = (&'a mut Problems, &'a mut Vec<String>);

/// Aspects (003-D2): the dots spent on each, within the cap and the ranked types' budgets.
fn allocate_aspects(
    choices: &CreationChoices,
    sheet: &mut CharacterSheet,
    problems: &mut Problems,
    warnings: &mut Vec<String>,
) {
    let aspect_ranking = ranking(
        &choices.aspect_ranking,
        AspectType::parse,
        AspectType::ALL,
        "aspect_ranking",
        problems,
    );
    let mut spent_by_type: BTreeMap<AspectType, u32> = BTreeMap::new();
    for (name, &dots) in &choices.aspects {
        let Some(aspect) = parse_into(Aspect::parse(name), "aspects", problems) else {
            continue;
        };
        if dots > ASPECT_ALLOCATION_CAP {
            problems.push(format!(
                "aspect {aspect}: {dots} dots spent, above the {ASPECT_ALLOCATION_CAP} allowed on \
                 one aspect at creation; spend at most {ASPECT_ALLOCATION_CAP}"
            ));
        }
        *spent_by_type.entry(aspect.aspect_type()).or_insert(0) += dots;
        bump(sheet, Capability::Aspect(aspect), dots);
    }
    if let Some(ranking) = &aspect_ranking {
        for (rank, kind) in ranking.iter().enumerate() {
            let budget = ASPECT_BUDGETS[rank];
            let spent = spent_by_type.get(kind).copied().unwrap_or(0);
            if spent > budget {
                problems.push(format!(
                    "{spent} dots spent on {kind} aspects, ranked #{} with {budget} dots; spend at \
                     most {budget}",
                    rank + 1
                ));
            } else if spent < budget {
                warnings.push(format!(
                    "{} of {budget} {kind} aspect dots unspent",
                    budget - spent
                ));
            }
        }
    }
}

/// Abilities (003-D3): the dots spent on each, within the cap and the ranked types' budgets.
fn allocate_abilities(
    choices: &CreationChoices,
    sheet: &mut CharacterSheet,
    problems: &mut Problems,
    warnings: &mut Vec<String>,
) {
    let ability_ranking = ranking(
        &choices.ability_ranking,
        AbilityType::parse,
        AbilityType::ALL,
        "ability_ranking",
        problems,
    );
    let mut spent_by_type: BTreeMap<AbilityType, u32> = BTreeMap::new();
    for (name, &dots) in &choices.abilities {
        let Some(ability) = parse_into(Ability::parse(name), "abilities", problems) else {
            continue;
        };
        if dots > ABILITY_ALLOCATION_CAP {
            problems.push(format!(
                "ability {ability}: {dots} dots spent, above the {ABILITY_ALLOCATION_CAP} allowed \
                 on one ability at creation; spend at most {ABILITY_ALLOCATION_CAP}"
            ));
        }
        *spent_by_type.entry(ability.ability_type()).or_insert(0) += dots;
        bump(sheet, Capability::Ability(ability), dots);
    }
    if let Some(ranking) = &ability_ranking {
        for (rank, kind) in ranking.iter().enumerate() {
            let budget = ABILITY_BUDGETS[rank];
            let spent = spent_by_type.get(kind).copied().unwrap_or(0);
            if spent > budget {
                problems.push(format!(
                    "{spent} dots spent on {kind} abilities, ranked #{} with {budget} dots; spend \
                     at most {budget}",
                    rank + 1
                ));
            } else if spent < budget {
                warnings.push(format!(
                    "{} of {budget} {kind} ability dots unspent",
                    budget - spent
                ));
            }
        }
    }
}

/// The archetype's abilities at their baseline plus the free dots added to them (003-D4, A9).
fn archetype_abilities(
    archetype: Archetype,
    choices: &CreationChoices,
    sheet: &mut CharacterSheet,
    (problems, warnings): &mut Notes<'_>,
) {
    let data = archetype.data();
    for ability in data.abilities {
        sheet
            .abilities
            .insert(ability.to_string(), ARCHETYPE_ABILITY_BASELINE);
    }
    let mut free = 0;
    for (name, &dots) in &choices.archetype_abilities {
        let Some(index) = data
            .abilities
            .iter()
            .position(|a| normalize(a) == normalize(name))
        else {
            problems.push(format!(
                "archetype_abilities: `{name}` is not an ability of {archetype}; use {}",
                data.abilities.join(", ")
            ));
            continue;
        };
        free += dots;
        let rating = ARCHETYPE_ABILITY_BASELINE + dots;
        if rating > ARCHETYPE_ABILITY_CAP {
            problems.push(format!(
                "archetype ability {} would have {rating} dots, above the {ARCHETYPE_ABILITY_CAP} \
             allowed at creation; add at most {}",
                data.abilities[index],
                ARCHETYPE_ABILITY_CAP - ARCHETYPE_ABILITY_BASELINE
            ));
        }
        sheet
            .abilities
            .insert(data.abilities[index].to_string(), rating);
    }
    if free > ARCHETYPE_FREE_DOTS {
        problems.push(format!(
            "{free} free dots added to archetype abilities, above the {ARCHETYPE_FREE_DOTS} \
         allowed (003-A9); add at most {ARCHETYPE_FREE_DOTS}"
        ));
    } else if free < ARCHETYPE_FREE_DOTS {
        warnings.push(format!(
            "{} of {ARCHETYPE_FREE_DOTS} free archetype ability dots unspent",
            ARCHETYPE_FREE_DOTS - free
        ));
    }
}

/// The archetype's capability bonuses, fixed or chosen row by row (003-D4, A11).
fn capability_bonuses(
    archetype: Archetype,
    choices: &CreationChoices,
    sheet: &mut CharacterSheet,
    (problems, warnings): &mut Notes<'_>,
) {
    let data = archetype.data();
    let choice_rows = data
        .capabilities
        .iter()
        .filter(|r| r.target.is_choice())
        .count();
    if choices.capability_choices.len() != choice_rows {
        let rows = data
            .capabilities
            .iter()
            .filter(|r| r.target.is_choice())
            .map(|r| r.target.describe())
            .collect::<Vec<_>>();
        problems.push(format!(
            "{archetype} needs {choice_rows} capability choice(s), {} given; give one per row \
         in order{}",
            choices.capability_choices.len(),
            if rows.is_empty() {
                String::new()
            } else {
                format!(": {}", rows.join("; "))
            }
        ));
    }
    let mut chosen = choices.capability_choices.iter();
    let mut taken: BTreeSet<Capability> = BTreeSet::new();
    for (row, bonus) in data.capabilities.iter().enumerate() {
        let target = match bonus.target {
            BonusTarget::Fixed(c) => Some(c),
            target => chosen.next().and_then(|name| {
                let capability =
                    parse_into(Capability::parse(name), "capability_choices", problems)?;
                if target.allows(capability) {
                    Some(capability)
                } else {
                    problems.push(format!(
                        "capability_choices: {capability} is not a choice of {archetype}'s row \
                     {}; choose from {}",
                        target.describe(),
                        target.describe()
                    ));
                    None
                }
            }),
        };
        let Some(target) = target else { continue };
        if !taken.insert(target) {
            problems.push(format!(
                "{target} is chosen twice among {archetype}'s capability bonuses; where a choice \
             is given you cannot make the same choice twice"
            ));
            continue;
        }
        let (dots, provisional) = data.row_dots(row);
        if provisional {
            warnings.push(format!(
                "{archetype}'s bonus to {target} is unreadable in the seed; {dots} dot(s) \
             assumed (provisional, 003-A11)"
            ));
        }
        bump(sheet, target, dots);
    }
}

/// The personality's bonus dots (003-D6, A10), a chosen ability where it leaves the choice.
fn personality_bonuses(
    personality: Personality,
    choices: &CreationChoices,
    sheet: &mut CharacterSheet,
    problems: &mut Problems,
) {
    let data = personality.data();
    for bonus in data.bonuses {
        let target = match bonus {
            PersonalityBonus::Fixed(c) => Some(c),
            PersonalityBonus::AnyKnowledge | PersonalityBonus::Field(_) => {
                match choices.personality_choice.as_deref() {
                    None => {
                        problems.push(format!(
                            "personality {personality} gives a dot in {}; name it in \
                         personality_choice",
                            match bonus {
                                PersonalityBonus::Field(text) => text,
                                _ => "a KNOWLEDGE ability of your choice",
                            }
                        ));
                        None
                    }
                    Some(name) => {
                        let ability =
                            parse_into(Ability::parse(name), "personality_choice", problems);
                        match ability {
                            Some(a)
                                if bonus == PersonalityBonus::AnyKnowledge
                                    && a.ability_type() != AbilityType::Knowledge =>
                            {
                                problems.push(format!(
                                    "personality_choice: {a} is not a KNOWLEDGE ability; \
                                 {personality} needs one"
                                ));
                                None
                            }
                            other => other.map(Capability::Ability),
                        }
                    }
                }
            }
        };
        if let Some(target) = target {
            bump(sheet, target, 1);
        }
    }
}
