//! The character sheet (003-S1, S3, A14) and the validation of an existing sheet.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::archetypes::*;
use super::data::*;
use super::personalities::*;
use crate::hprpg::feat::Feat;
use crate::hprpg::names::{NameError, edit_distance, normalize};
use crate::hprpg::resources::{Resource, feat_data};
use crate::vocabulary::stateful::Problems;

// ---------------------------------------------------------------------------------------------------
// The character sheet (003-S1, S3, A14).

/// An ability the GM granted beyond the standard and archetype ones (003-S1, A21), such as the resist
/// abilities DODGE and BLOCK the seed uses but never lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CustomAbility {
    /// Decides what a zero-dot check does (003-M6).
    #[serde(rename = "type")]
    pub kind: AbilityType,
    pub dots: u32,
}

/// A self-sustaining spell the character keeps up: each costs a die of concentration on every casting
/// (003-M16).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SustainedSpell {
    pub name: String,
    #[serde(default)]
    pub discipline: Option<Discipline>,
    #[serde(default)]
    pub level: Option<u32>,
}

/// A character (003-S1): capabilities, resources and the state that persists between actions.
/// Every field has a default, so a sheet saved before a field existed still loads.
///
/// JSON: names are the canonical upper-case names (aliases are accepted on input):
/// `{"aspects": {"FITNESS": 2, …}, "abilities": {"BRAWL": 1, "RAGE": 2}, "custom_abilities":
/// {"DODGE": {"type": "INNATE", "dots": 3}}, "affinities": {"HEXES": 3}, "fortitude": {"current": 3,
/// "max": 3}, "health": {"current": 5, "max": 5}, "personality": "REBEL", "house": "GRYFFINDOR",
/// "archetype": "WARRIOR", "species": "HALFBLOOD", "feats": ["DUELIST"], "galleons": 20,
/// "sustained_spells": [{"name": "shield"}], "feat_uses": {"FURIOUS SPELLCASTER": 1},
/// "rage_turns": 0}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CharacterSheet {
    pub species: Option<Species>,
    pub personality: Option<Personality>,
    pub house: Option<House>,
    pub archetype: Option<Archetype>,
    /// All nine aspects (003-D2).
    pub aspects: BTreeMap<Aspect, u32>,
    /// Standard and archetype abilities by canonical name; an absent one has 0 dots.
    pub abilities: BTreeMap<String, u32>,
    /// Abilities the GM granted (DODGE, BLOCK, "Juggle"), by name.
    pub custom_abilities: BTreeMap<String, CustomAbility>,
    /// An absent affinity has 0 dots.
    pub affinities: BTreeMap<Discipline, u32>,
    /// FORTITUDE points (003-M23, A14): spent and regained.
    pub fortitude: Resource,
    /// Levels of health (003-A14): harm lowers it.
    pub health: Resource,
    pub feats: Vec<Feat>,
    pub galleons: u64,
    /// Active self-sustaining spells (003-M16).
    pub sustained_spells: Vec<SustainedSpell>,
    /// Uses today of the feats with a daily limit (003-S1, M25); reset each day.
    pub feat_uses: BTreeMap<Feat, u32>,
    /// Consecutive turns of RAGE so far: the dice lost on every Resist check (003-S3, M24).
    pub rage_turns: u32,
}

/// One of a character's abilities, found by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AbilityRating {
    /// The canonical name (or a custom ability's name as the sheet writes it).
    pub name: String,
    #[serde(rename = "type")]
    pub kind: AbilityType,
    pub dots: u32,
}

impl CharacterSheet {
    /// The aspect's dots (0 when absent).
    pub fn aspect(&self, aspect: Aspect) -> u32 {
        self.aspects.get(&aspect).copied().unwrap_or(0)
    }

    /// The affinity's dots (0 when absent).
    pub fn affinity(&self, discipline: Discipline) -> u32 {
        self.affinities.get(&discipline).copied().unwrap_or(0)
    }

    /// The ability called `name`: standard (aliases accepted), an archetype's, or custom (any case).
    ///
    /// # Errors
    /// [`NameError`] when no ability has that name: the nearest standard, archetype or custom name,
    /// or all of them.
    pub fn ability(&self, name: &str) -> Result<AbilityRating, NameError> {
        let rating = |canonical: &str, kind| AbilityRating {
            name: canonical.to_string(),
            kind,
            dots: self.abilities.get(canonical).copied().unwrap_or(0),
        };
        if let Ok(ability) = Ability::parse(name) {
            return Ok(rating(ability.name(), ability.ability_type()));
        }
        if let Some((_, canonical, kind)) = archetype_ability(name) {
            return Ok(rating(canonical, kind));
        }
        let key = normalize(name);
        if let Some((custom_name, custom)) = self
            .custom_abilities
            .iter()
            .find(|(custom_name, _)| normalize(custom_name) == key)
        {
            return Ok(AbilityRating {
                name: custom_name.clone(),
                kind: custom.kind,
                dots: custom.dots,
            });
        }
        let names: Vec<String> = Ability::ALL
            .iter()
            .map(|a| a.name().to_string())
            .chain(
                ARCHETYPES
                    .iter()
                    .flat_map(|d| d.abilities.iter().map(|a| a.to_string())),
            )
            .chain(self.custom_abilities.keys().cloned())
            .collect();
        let best = names
            .iter()
            .map(|candidate| (edit_distance(&normalize(candidate), &key), candidate))
            .min_by_key(|(distance, _)| *distance);
        match best {
            Some((distance, suggestion)) if distance <= 2 && !key.is_empty() => {
                Err(NameError::Nearest {
                    kind: "ability",
                    name: name.to_string(),
                    suggestion: suggestion.clone(),
                })
            }
            _ => Err(NameError::Unknown {
                kind: "ability",
                name: name.to_string(),
                valid: names.join(", "),
            }),
        }
    }

    /// Whether the character has taken `feat`.
    pub fn has_feat(&self, feat: Feat) -> bool {
        self.feats.contains(&feat)
    }
}

/// Everything wrong with a sheet, and what is merely unusual.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SheetReport {
    /// Broken rules: the sheet cannot be used until they are fixed.
    pub problems: Problems,
    /// Allowed but unusual: ratings above the advancement cap (003-A2), dots left unspent.
    pub warnings: Vec<String>,
}

pub(super) fn check_rating(what: &str, dots: u32, cap: u32, report: &mut SheetReport) {
    if dots > MAX_RATING {
        report.problems.push(format!(
            "{what} has {dots} dots, above the highest rating {MAX_RATING} (Ascendant); lower it \
             to at most {MAX_RATING}"
        ));
    } else if dots > cap {
        report.warnings.push(format!(
            "{what} has {dots} dots, above the advancement cap of {cap} (003-A2)"
        ));
    }
}

/// Every problem with an existing (possibly advanced) sheet, and every warning (003-S1, A2, A14):
/// all nine aspects present, ratings 0..=7 (a warning above `advancement_cap`), ability names known
/// and canonical, resources within 0..=max, the house matching the personality, feats taken once and
/// their daily uses within their limits, sustained spells named with a level 0..=7.
pub fn validate(sheet: &CharacterSheet, advancement_cap: u32) -> SheetReport {
    let mut report = SheetReport::default();
    check_ratings(sheet, advancement_cap, &mut report);
    for (what, resource) in [("fortitude", sheet.fortitude), ("health", sheet.health)] {
        if resource.current > resource.max {
            report.problems.push(format!(
                "{what} {} is above its maximum {}; lower current or raise max",
                resource.current, resource.max
            ));
        }
    }
    if let (Some(personality), Some(house)) = (sheet.personality, sheet.house)
        && personality.house().is_some_and(|h| h != house)
    {
        report.problems.push(format!(
            "personality {personality} belongs to {}, not {house}; change the house or the \
             personality",
            personality.house().map_or("no house", House::name)
        ));
    }
    check_feats(sheet, &mut report);
    check_sustained_spells(sheet, &mut report);
    report
}

/// Every aspect, ability, custom ability and affinity: named as the seed names them and rated within
/// the cap.
fn check_ratings(sheet: &CharacterSheet, advancement_cap: u32, report: &mut SheetReport) {
    for &aspect in Aspect::ALL {
        match sheet.aspects.get(&aspect) {
            None => report.problems.push(format!(
                "aspect {aspect} is missing; rate it 0..{MAX_RATING} (1 is the baseline)"
            )),
            Some(&dots) => check_rating(&format!("aspect {aspect}"), dots, advancement_cap, report),
        }
    }
    for (name, &dots) in &sheet.abilities {
        let canonical = Ability::parse(name)
            .map(Ability::name)
            .ok()
            .or_else(|| archetype_ability(name).map(|(_, canonical, _)| canonical));
        match canonical {
            Some(canonical) if canonical == name => {}
            Some(canonical) => report
                .problems
                .push(format!("ability `{name}`: write it as {canonical}")),
            None => report.problems.push(format!(
                "{}; a GM-granted ability belongs in custom_abilities with its type",
                sheet
                    .ability(name)
                    .err()
                    .map_or_else(|| format!("unknown ability `{name}`"), |e| e.to_string())
            )),
        }
        check_rating(&format!("ability {name}"), dots, advancement_cap, report);
    }
    for (name, custom) in &sheet.custom_abilities {
        if name.trim().is_empty() {
            report
                .problems
                .push("a custom ability has no name; name it (e.g. DODGE)");
        } else if Ability::parse(name).is_ok() || archetype_ability(name).is_some() {
            report.problems.push(format!(
                "custom ability `{name}` is already a standard or archetype ability; rate it under \
                 abilities"
            ));
        }
        check_rating(
            &format!("ability {name}"),
            custom.dots,
            advancement_cap,
            report,
        );
    }
    for (discipline, &dots) in &sheet.affinities {
        check_rating(
            &format!("affinity {discipline}"),
            dots,
            advancement_cap,
            report,
        );
    }
}

/// The feats: each listed once, those off the archetype warned about, daily uses within their limits.
fn check_feats(sheet: &CharacterSheet, report: &mut SheetReport) {
    let mut seen = BTreeSet::new();
    for &feat in &sheet.feats {
        if !seen.insert(feat) {
            report
                .problems
                .push(format!("feat {feat} is listed twice; list it once"));
        }
    }
    if let Some(archetype) = sheet.archetype {
        for feat in sheet
            .feats
            .iter()
            .filter(|f| !archetype.data().feats.contains(f))
        {
            report.warnings.push(format!(
                "feat {feat} is not a {archetype} feat (003-D4); keep it only if the GM allowed it"
            ));
        }
    }
    for (&feat, &uses) in &sheet.feat_uses {
        match feat_data(feat).per_day {
            None => report.problems.push(format!(
                "feat {feat} has no daily limit, so no uses to count; remove it from feat_uses"
            )),
            Some(limit) if uses > limit => report.problems.push(format!(
                "feat {feat} used {uses} times today, above its {limit} a day; lower it"
            )),
            Some(_) => {}
        }
        if !sheet.has_feat(feat) && uses > 0 {
            report.problems.push(format!(
                "feat {feat} has uses today but is not among the feats; add it or remove the uses"
            ));
        }
    }
}

/// The sustained spells: named, each name once, levels within SUMNUS.
fn check_sustained_spells(sheet: &CharacterSheet, report: &mut SheetReport) {
    let mut names = BTreeSet::new();
    for spell in &sheet.sustained_spells {
        if !names.insert(spell.name.as_str()) {
            report.problems.push(format!(
                "sustained spell `{}` is listed twice; give each its own name",
                spell.name
            ));
        }
        if spell.name.trim().is_empty() {
            report
                .problems
                .push("a sustained spell has no name; name it so it can be ended");
        }
        if let Some(level) = spell.level
            && level > crate::hprpg::MAX_SPELL_LEVEL
        {
            report.problems.push(format!(
                "sustained spell `{}` has level {level}, above SUMNUS (7); use 0..7",
                spell.name
            ));
        }
    }
}
