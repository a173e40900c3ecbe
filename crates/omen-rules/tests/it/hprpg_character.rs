//! Harry Potter RPG characters (003-S1, D1..D7, A2, A9, A10, A11, A14, A21): the seed's creation
//! data as data, the sheet's JSON, creation from a player's choices with every broken rule listed at
//! once, and the validation of an advanced sheet.
//! Seed 003: a test named `m1_…` covers 003-M1.

use std::collections::BTreeMap;

use omen_rules::hprpg::character::{
    self, ABILITY_BUDGETS, ARCHETYPE_ABILITY_CAP, ARCHETYPE_FREE_DOTS, ARCHETYPES, ASPECT_BUDGETS,
    ASPECT_GRID, Ability, AbilityType, Archetype, Aspect, AspectType, BonusTarget, Capability,
    CharacterSheet, CreationChoices, CustomAbility, Discipline, Feat, House, Method, NameError,
    PERSONALITIES, Personality, PersonalityBonus, RATING_NAMES, School, Species, rating_name,
};
use omen_rules::hprpg::resources::Resource;
use serde_json::json;

fn names(pairs: &[(&str, u32)]) -> BTreeMap<String, u32> {
    pairs.iter().map(|&(n, d)| (n.to_string(), d)).collect()
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A warrior built within every limit: 7/5/3 aspect dots, 12/8/4 ability dots, 3 free archetype dots.
fn warrior() -> CreationChoices {
    CreationChoices {
        species: Some("halfblood".to_string()),
        personality: "Rebel".to_string(),
        personality_choice: None,
        archetype: "WARRIOR".to_string(),
        aspect_ranking: strings(&["PHYSICAL", "MENTAL", "SOCIAL"]),
        aspects: names(&[
            ("FITNESS", 3),
            ("PRECISION", 2),
            ("VITALITY", 2),
            ("INTELLIGENCE", 2),
            ("WILLPOWER", 1),
            ("PERCEPTION", 2),
            ("CHARM", 1),
            ("DECEPTION", 1),
            ("INSIGHT", 1),
        ]),
        ability_ranking: strings(&["PRACTICAL", "INNATE", "KNOWLEDGE"]),
        abilities: names(&[
            ("BRAWL", 3),
            ("SKIRMISH", 3),
            ("ACROBATICS", 2),
            ("MARKSMANSHIP", 2),
            ("SURVIVAL", 2),
            ("BRAVERY", 2),
            ("ALERTNESS", 2),
            ("STRENGTH", 2),
            ("SPEED", 2),
            ("HISTORY", 2),
            ("ARCANE", 2),
        ]),
        archetype_abilities: names(&[("rage", 2), ("TACTICS", 1)]),
        capability_choices: strings(&["SKIRMISH", "HEXES", "wards", "MARKSMANSHIP"]),
        custom_abilities: [(
            "DODGE".to_string(),
            CustomAbility {
                kind: AbilityType::Innate,
                dots: 2,
            },
        )]
        .into_iter()
        .collect(),
        fortitude: 3,
        health: 6,
        galleons: 10,
        advancement_cap: character::DEFAULT_ADVANCEMENT_CAP,
    }
}

#[test]
fn d1_ratings_are_named_useless_to_ascendant() {
    assert_eq!(
        RATING_NAMES,
        [
            "Useless",
            "Beginner",
            "Novice",
            "Average",
            "Adept",
            "Expert",
            "Master",
            "Ascendant"
        ]
    );
    assert_eq!(rating_name(0), Some("Useless"));
    assert_eq!(rating_name(7), Some("Ascendant"));
    assert_eq!(rating_name(8), None);
    assert_eq!(character::MAX_RATING, 7);
}

#[test]
fn d2_aspects_are_a_three_by_three_grid() {
    assert_eq!(Aspect::ALL.len(), 9);
    assert_eq!(
        ASPECT_GRID[0],
        [Aspect::Fitness, Aspect::Charm, Aspect::Intelligence]
    );
    assert_eq!(
        ASPECT_GRID[1],
        [Aspect::Precision, Aspect::Deception, Aspect::Willpower]
    );
    assert_eq!(
        ASPECT_GRID[2],
        [Aspect::Vitality, Aspect::Insight, Aspect::Perception]
    );
    for (row, method) in Method::ALL.iter().enumerate() {
        for (column, kind) in AspectType::ALL.iter().enumerate() {
            let aspect = ASPECT_GRID[row][column];
            assert_eq!((aspect.method(), aspect.aspect_type()), (*method, *kind));
        }
    }
    assert_eq!(ASPECT_BUDGETS, [7, 5, 3]);
    assert_eq!(character::ASPECT_ALLOCATION_CAP, 3);
    assert_eq!(character::ASPECT_BASELINE, 1);
}

#[test]
fn d3_thirty_abilities_ten_of_each_type() {
    assert_eq!(Ability::ALL.len(), 30);
    let of = |kind| {
        Ability::of_type(kind)
            .map(Ability::name)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        of(AbilityType::Innate),
        [
            "ALERTNESS",
            "BRAVERY",
            "CONVICTION",
            "ELOQUENCE",
            "INTIMIDATION",
            "KINDNESS",
            "KINSHIP",
            "LOGIC",
            "SPEED",
            "STRENGTH"
        ]
    );
    assert_eq!(
        of(AbilityType::Practical),
        [
            "ACROBATICS",
            "BRAWL",
            "COVERT",
            "CRAFT",
            "IMBUE",
            "MARKSMANSHIP",
            "PERFORMANCE",
            "PILOT",
            "SKIRMISH",
            "SURVIVAL"
        ]
    );
    assert_eq!(
        of(AbilityType::Knowledge),
        [
            "ARCANE",
            "GENERAL",
            "HISTORY",
            "INVESTIGATION",
            "MEDICINE",
            "MUGGLE",
            "NATURE",
            "SCIENCE",
            "TECHNOLOGY",
            "WORLD"
        ]
    );
    assert_eq!(ABILITY_BUDGETS, [12, 8, 4]);
    assert_eq!(character::ABILITY_ALLOCATION_CAP, 3);
}

#[test]
fn d4_archetypes_carry_abilities_bonuses_and_feats() {
    let abilities: Vec<[&str; 3]> = ARCHETYPES.iter().map(|a| a.abilities).collect();
    assert_eq!(
        abilities,
        [
            ["COMPLEXITY", "HACK", "ANALYSE"],
            ["INTUITION", "INTERROGATE", "TRACKING"],
            ["BELONGING", "NURTURE", "COMMUNE"],
            ["SAVVY", "PICKPOCKET", "UNDERWORLD"],
            ["EUREKA", "COLLABORATION", "SPECULATION"],
            ["WEALTH", "INSPIRE", "SOCIETY"],
            ["RAGE", "COMMAND", "TACTICS"],
        ]
    );
    let auror = Archetype::Auror.data();
    let rows: Vec<(String, Option<u32>)> = auror
        .capabilities
        .iter()
        .map(|r| (r.target.describe(), r.dots))
        .collect();
    assert_eq!(
        rows,
        [
            ("INSIGHT".to_string(), Some(2)),
            ("INVESTIGATION".to_string(), Some(2)),
            ("HEXES OR WARDING".to_string(), Some(2)),
            ("PERCEPTION".to_string(), Some(1)),
            ("BRAWL".to_string(), Some(1)),
            ("WARDING OR HEXES".to_string(), Some(1)),
        ]
    );
    let warrior = Archetype::Warrior.data();
    let dots: Vec<Option<u32>> = warrior.capabilities.iter().map(|r| r.dots).collect();
    assert_eq!(dots, [Some(2), Some(2), Some(2), Some(1), Some(1), Some(1)]);
    assert_eq!(
        warrior.capabilities[0].target,
        BonusTarget::OneOf(&[
            Capability::Ability(Ability::Brawl),
            Capability::Ability(Ability::Skirmish),
            Capability::Ability(Ability::Marksmanship),
        ])
    );
    let scholar = Archetype::Scholar.data();
    assert_eq!(
        scholar.capabilities[2].target,
        BonusTarget::AnyKnowledgeOrAffinity
    );
    assert!(
        scholar.capabilities[2]
            .target
            .allows(Capability::Affinity(Discipline::Healing))
    );
    assert!(
        !scholar.capabilities[2]
            .target
            .allows(Capability::Ability(Ability::Logic))
    );
    // The empty tables stay empty (003-A11); feats as each section lists them.
    assert!(Archetype::Artificer.data().capabilities.is_empty());
    assert!(Archetype::Outlaw.data().capabilities.is_empty());
    assert_eq!(auror.feats.len(), 6);
    assert_eq!(Archetype::Druid.data().feats[4], Feat::OrganicRepose);
    assert_eq!(Archetype::Sophisticate.data().feats.len(), 4);
    assert_eq!(warrior.feats[2], Feat::FuriousSpellcaster);
    assert!(scholar.feats.is_empty());
    assert_eq!(
        warrior.ability_type("command"),
        Some(AbilityType::Practical)
    );
}

#[test]
fn d5_fourteen_affinities_in_seven_schools_with_default_aspects() {
    assert_eq!(Discipline::ALL.len(), 14);
    let table: Vec<(&str, &str, Vec<&str>)> = Discipline::ALL
        .iter()
        .map(|d| {
            (
                d.school().name(),
                d.name(),
                d.default_aspects().iter().map(|a| a.name()).collect(),
            )
        })
        .collect();
    let expected: Vec<(&str, &str, Vec<&str>)> = vec![
        ("CHARMS", "ELEMENTAL", vec!["WILLPOWER"]),
        ("CHARMS", "KINETIC", vec!["PRECISION"]),
        ("DIVINATION", "CEREBRAL", vec!["INSIGHT", "PERCEPTION"]),
        ("DIVINATION", "TEMPORAL", vec!["INTELLIGENCE"]),
        ("ILLUSION", "BEWITCHMENT", vec!["CHARM", "DECEPTION"]),
        ("ILLUSION", "PSIONIC", vec!["WILLPOWER"]),
        ("MALEDICTION", "HEXES", vec!["WILLPOWER"]),
        ("MALEDICTION", "CURSES", vec!["INTELLIGENCE"]),
        ("RECUPERATION", "HEALING", vec!["INSIGHT"]),
        ("RECUPERATION", "WARDING", vec!["INTELLIGENCE"]),
        ("TRANSFIGURATION", "ALTERATION", vec!["PRECISION"]),
        ("TRANSFIGURATION", "CONJURATION", vec!["INTELLIGENCE"]),
        ("DARK ARTS", "NECROMANCY", vec!["WILLPOWER"]),
        ("DARK ARTS", "OCCULTISM", vec!["CHARM"]),
    ];
    assert_eq!(table, expected);
    assert_eq!(School::ALL.len(), 7);
}

#[test]
fn d6_personalities_give_two_dots_with_asset_flaw_and_nourishment() {
    assert_eq!(PERSONALITIES.len(), 21);
    let per_house = |house: Option<House>| {
        PERSONALITIES
            .iter()
            .filter(|p| p.house == house)
            .map(|p| p.personality.name())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        per_house(Some(House::Gryffindor)),
        ["CHAMPION", "REBEL", "SPORTSMAN", "TRICKSTER"]
    );
    assert_eq!(
        per_house(Some(House::Hufflepuff)),
        ["ADJUDICATOR", "CAREGIVER", "IDEALIST", "LABOURER"]
    );
    assert_eq!(
        per_house(Some(House::Ravenclaw)),
        ["EDUCATOR", "GEEK", "PERFECTIONIST", "PRODIGY"]
    );
    assert_eq!(
        per_house(Some(House::Slytherin)),
        ["ASPIRANT", "LEADER", "PEACOCK", "SCHEMER"]
    );
    assert_eq!(
        per_house(None),
        ["ATROCITY", "ACOLYTE", "INNOCENT", "LONER", "PRESERVER"]
    );
    let champion = Personality::Champion.data();
    assert_eq!(
        champion.bonuses,
        [
            PersonalityBonus::Fixed(Capability::Ability(Ability::Bravery)),
            PersonalityBonus::Fixed(Capability::Ability(Ability::Conviction)),
        ]
    );
    assert_eq!(
        (champion.asset, champion.flaw),
        ("SACRIFICES", "INFLEXIBILITY")
    );
    assert!(champion.nourishment.contains("risk yourself"));
    assert_eq!(
        Personality::Geek.data().bonuses[1],
        PersonalityBonus::AnyKnowledge
    );
    assert!(matches!(
        Personality::Prodigy.data().bonuses[1],
        PersonalityBonus::Field(_)
    ));
    assert_eq!(
        Personality::Preserver.data().bonuses[1],
        PersonalityBonus::Fixed(Capability::Ability(Ability::History))
    );
    for data in &PERSONALITIES {
        assert!(!data.asset.is_empty() && !data.flaw.is_empty() && !data.nourishment.is_empty());
    }
}

#[test]
fn d7_species_are_names_only() {
    let names: Vec<&str> = Species::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        [
            "HUMAN",
            "MUGGLE",
            "MUGGLEBORN",
            "HALFBLOOD",
            "PUREBLOOD",
            "IMP",
            "LEPRECHAUN",
            "HOUSE-ELF",
            "GOBLIN",
            "VEELA",
            "WEREWOLF",
            "VAMPIRE",
            "HALF-GIANT",
            "CENTAUR"
        ]
    );
    assert_eq!(Species::Pureblood.parent(), Some(Species::Human));
    assert_eq!(Species::HouseElf.parent(), Some(Species::Imp));
    assert_eq!(Species::Goblin.parent(), None);
    assert_eq!("house_elf".parse::<Species>().unwrap(), Species::HouseElf);
}

#[test]
fn a21_the_seeds_other_spellings_parse_to_canonical_names() {
    let pairs = [
        ("KINESIS", Discipline::Kinetic),
        ("telepathy", Discipline::Cerebral),
        ("Psionics", Discipline::Psionic),
        ("WARDS", Discipline::Warding),
        ("Conjuratation", Discipline::Conjuration),
    ];
    for (alias, discipline) in pairs {
        assert_eq!(alias.parse::<Discipline>().unwrap(), discipline, "{alias}");
    }
    assert_eq!(Aspect::parse("FIRMNESS").unwrap(), Aspect::Fitness);
    assert_eq!(
        AbilityType::parse("learned").unwrap(),
        AbilityType::Knowledge
    );
    assert_eq!(Archetype::parse("noble").unwrap(), Archetype::Sophisticate);
    assert_eq!(
        Feat::parse("one for you two for me").unwrap(),
        Feat::OneForYouTwoForMe
    );
    assert_eq!(Feat::parse("asterias-eyes").unwrap(), Feat::AsteriasEyes);
    // JSON takes aliases too and writes the canonical name.
    let read: BTreeMap<Discipline, u32> =
        serde_json::from_value(json!({ "kinesis": 2, "WARDS": 1 })).unwrap();
    assert_eq!(
        serde_json::to_value(&read).unwrap(),
        json!({ "KINETIC": 2, "WARDING": 1 })
    );
    // An unknown name gives the nearest, or every valid name.
    assert_eq!(
        Aspect::parse("FITNES"),
        Err(NameError::Nearest {
            kind: "aspect",
            name: "FITNES".to_string(),
            suggestion: "FITNESS".to_string()
        })
    );
    let far = Archetype::parse("wizard").unwrap_err().to_string();
    assert_eq!(
        far,
        "unknown archetype `wizard`; use one of: ARTIFICER, AUROR, DRUID, OUTLAW, SCHOLAR, \
         SOPHISTICATE, WARRIOR"
    );
    // DODGE and BLOCK are custom abilities: the sheet finds them by name in any case.
    let sheet = character::create(&warrior()).unwrap().sheet;
    let dodge = sheet.ability("dodge").unwrap();
    assert_eq!((dodge.name.as_str(), dodge.dots), ("DODGE", 2));
    assert!(sheet.ability("BLOCK").is_err());
}

#[test]
fn s1_a_created_warrior_has_every_dot_where_the_rules_put_it() {
    let created = character::create(&warrior()).unwrap();
    assert_eq!(created.warnings, Vec::<String>::new());
    let sheet = created.sheet;
    let aspects: Vec<u32> = Aspect::ALL.iter().map(|&a| sheet.aspect(a)).collect();
    // FITNESS 1 + 3 + 2 (WARRIOR); PERCEPTION 1 + 2 + 1 (WARRIOR); WILLPOWER 1 + 1 + 1 (REBEL).
    assert_eq!(aspects, [6, 2, 3, 3, 2, 3, 3, 2, 4]);
    let abilities: BTreeMap<&str, u32> = sheet
        .abilities
        .iter()
        .map(|(n, &d)| (n.as_str(), d))
        .collect();
    let expected: BTreeMap<&str, u32> = [
        ("ACROBATICS", 2),
        ("ALERTNESS", 2),
        ("ARCANE", 2),
        ("BRAVERY", 3),
        ("BRAWL", 3),
        ("COMMAND", 1),
        ("HISTORY", 2),
        ("MARKSMANSHIP", 3),
        ("RAGE", 3),
        ("SKIRMISH", 5),
        ("SPEED", 2),
        ("STRENGTH", 2),
        ("SURVIVAL", 2),
        ("TACTICS", 2),
    ]
    .into_iter()
    .collect();
    assert_eq!(abilities, expected);
    assert_eq!(sheet.affinity(Discipline::Hexes), 2);
    assert_eq!(sheet.affinity(Discipline::Warding), 1);
    assert_eq!(sheet.house, Some(House::Gryffindor));
    assert_eq!(sheet.species, Some(Species::Halfblood));
    assert_eq!(sheet.fortitude, Resource::full(3));
    assert_eq!(sheet.health, Resource::full(6));
    assert_eq!(sheet.feats, Vec::<Feat>::new());
    assert_eq!(sheet.galleons, 10);
    assert_eq!(
        character::validate(&sheet, 7).problems.0,
        Vec::<String>::new()
    );
}

#[test]
fn s1_the_sheet_round_trips_through_json_and_old_json_loads_with_defaults() {
    let sheet = character::create(&warrior()).unwrap().sheet;
    let value = serde_json::to_value(&sheet).unwrap();
    assert_eq!(value["aspects"]["FITNESS"], 6);
    assert_eq!(
        value["custom_abilities"]["DODGE"],
        json!({ "type": "INNATE", "dots": 2 })
    );
    assert_eq!(value["fortitude"], json!({ "current": 3, "max": 3 }));
    assert_eq!(value["rage_turns"], 0);
    let back: CharacterSheet = serde_json::from_value(value).unwrap();
    assert_eq!(back, sheet);
    // A sheet written before the resources existed loads with defaults.
    let old: CharacterSheet = serde_json::from_value(json!({
        "aspects": { "FITNESS": 2 }, "archetype": "auror"
    }))
    .unwrap();
    assert_eq!(old.archetype, Some(Archetype::Auror));
    assert_eq!(old.fortitude, Resource::default());
    assert!(old.sustained_spells.is_empty() && old.feat_uses.is_empty());
    // Unknown fields are refused rather than dropped.
    assert!(serde_json::from_value::<CharacterSheet>(json!({ "fortitud": 3 })).is_err());
}

#[test]
fn s1_an_over_budget_character_lists_every_violation() {
    let choices = CreationChoices {
        species: Some("wookiee".to_string()),
        personality: "GEEK".to_string(),
        personality_choice: Some("BRAWL".to_string()),
        archetype: "scholar".to_string(),
        aspect_ranking: strings(&["MENTAL", "SOCIAL", "PHYSICAL"]),
        aspects: names(&[
            ("INTELLIGENCE", 4),
            ("WILLPOWER", 3),
            ("PERCEPTION", 2),
            ("FIRMNES", 1),
        ]),
        ability_ranking: strings(&["INNATE", "PRACTICAL", "KNOWLEDGE"]),
        abilities: names(&[("LOGIC", 4), ("JUGGLE", 1)]),
        archetype_abilities: names(&[("EUREKA", 4), ("PICKPOCKET", 1)]),
        capability_choices: strings(&["CHARM"]),
        fortitude: 2,
        health: 5,
        ..CreationChoices::default()
    };
    let problems = character::create(&choices).unwrap_err().0;
    let expected = [
        "unknown species `wookiee`; use one of: HUMAN, MUGGLE, MUGGLEBORN, HALFBLOOD, PUREBLOOD, \
         IMP, LEPRECHAUN, HOUSE-ELF, GOBLIN, VEELA, WEREWOLF, VAMPIRE, HALF-GIANT, CENTAUR",
        "aspects: unknown aspect `FIRMNES`; did you mean FITNESS?",
        "aspect INTELLIGENCE: 4 dots spent, above the 3 allowed on one aspect at creation; spend \
         at most 3",
        "9 dots spent on MENTAL aspects, ranked #1 with 7 dots; spend at most 7",
        "abilities: unknown ability `JUGGLE`; did you mean MUGGLE?",
        "ability LOGIC: 4 dots spent, above the 3 allowed on one ability at creation; spend at \
         most 3",
        "archetype ability EUREKA would have 5 dots, above the 4 allowed at creation; add at most 3",
        "archetype_abilities: `PICKPOCKET` is not an ability of SCHOLAR; use EUREKA, \
         COLLABORATION, SPECULATION",
        "4 free dots added to archetype abilities, above the 3 allowed (003-A9); add at most 3",
        "capability_choices: CHARM is not a choice of SCHOLAR's row ANY KNOWLEDGE OR AFFINITY; \
         choose from ANY KNOWLEDGE OR AFFINITY",
        "personality_choice: BRAWL is not a KNOWLEDGE ability; GEEK needs one",
        "aspect INTELLIGENCE has 8 dots, above the highest rating 7 (Ascendant); lower it to at \
         most 7",
    ];
    assert_eq!(problems, expected);
}

#[test]
fn a9_archetype_abilities_start_at_one_with_three_free_dots_and_a_cap_of_four() {
    assert_eq!(ARCHETYPE_FREE_DOTS, 3);
    assert_eq!(ARCHETYPE_ABILITY_CAP, 4);
    assert_eq!(character::ARCHETYPE_ABILITY_BASELINE, 1);
    // All three free dots on one ability reach the cap exactly.
    let mut choices = warrior();
    choices.archetype_abilities = names(&[("RAGE", 3)]);
    let sheet = character::create(&choices).unwrap().sheet;
    assert_eq!(
        ["RAGE", "COMMAND", "TACTICS"].map(|n| sheet.abilities[n]),
        [4, 1, 1]
    );
    // Chapter 4's five free dots are refused (003-A9).
    choices.archetype_abilities = names(&[("RAGE", 3), ("COMMAND", 2)]);
    let problems = character::create(&choices).unwrap_err().0;
    assert_eq!(
        problems,
        ["5 free dots added to archetype abilities, above the 3 allowed (003-A9); add at most 3"]
    );
    // Fewer is allowed, with a warning.
    choices.archetype_abilities = names(&[("TACTICS", 1)]);
    let created = character::create(&choices).unwrap();
    assert_eq!(
        created.warnings,
        ["2 of 3 free archetype ability dots unspent"]
    );
}

#[test]
fn a10_the_house_dot_is_the_first_of_the_two_personality_dots() {
    for data in &PERSONALITIES {
        if let Some(house) = data.house {
            assert_eq!(
                data.bonuses[0],
                PersonalityBonus::Fixed(house.capability()),
                "{}",
                data.personality
            );
        }
    }
    // REBEL: BRAVERY (the House dot) and WILLPOWER; two dots in all, not three.
    let mut choices = warrior();
    choices.personality = "ATROCITY".to_string();
    let atrocity = character::create(&choices).unwrap().sheet;
    let rebel = character::create(&warrior()).unwrap().sheet;
    assert_eq!(rebel.abilities["BRAVERY"], 3);
    assert_eq!(atrocity.abilities["BRAVERY"], 2);
    assert_eq!(
        rebel.aspect(Aspect::Willpower),
        atrocity.aspect(Aspect::Willpower)
    );
    assert_eq!(atrocity.abilities.get("CONVICTION"), Some(&1));
    assert_eq!(atrocity.house, None);
    let total = |sheet: &CharacterSheet| {
        sheet.aspects.values().sum::<u32>() + sheet.abilities.values().sum::<u32>()
    };
    assert_eq!(total(&rebel), total(&atrocity));
}

#[test]
fn a11_unreadable_bonus_counts_use_the_provisional_scholar_pattern() {
    assert_eq!(character::PROVISIONAL_BONUS_PATTERN, [2, 2, 2, 1, 1]);
    for archetype in [Archetype::Druid, Archetype::Sophisticate] {
        let data = archetype.data();
        assert!(data.provisional(), "{archetype}");
        assert!(data.capabilities.iter().all(|r| r.dots.is_none()));
        let dots: Vec<(u32, bool)> = (0..5).map(|row| data.row_dots(row)).collect();
        assert_eq!(
            dots,
            [(2, true), (2, true), (2, true), (1, true), (1, true)]
        );
    }
    assert!(!Archetype::Scholar.data().provisional());
    assert_eq!(Archetype::Scholar.data().row_dots(0), (2, false));
    // A druid is created with the provisional dots and a warning per row.
    let mut choices = warrior();
    choices.archetype = "DRUID".to_string();
    choices.archetype_abilities = names(&[("NURTURE", 3)]);
    choices.capability_choices = strings(&["TEMPORAL"]);
    let created = character::create(&choices).unwrap();
    assert_eq!(created.sheet.affinity(Discipline::Temporal), 1);
    assert_eq!(created.sheet.abilities["KINSHIP"], 2);
    assert_eq!(created.sheet.aspect(Aspect::Insight), 1 + 1 + 1);
    assert_eq!(created.warnings.len(), 5);
    assert!(created.warnings[3].contains("TEMPORAL is unreadable in the seed; 1 dot(s) assumed"));
    // Where a choice is given, the same choice cannot be made twice.
    let mut twice = warrior();
    twice.capability_choices = strings(&["SKIRMISH", "HEXES", "HEXES", "BRAWL"]);
    let problems = character::create(&twice).unwrap_err().0;
    assert_eq!(
        problems,
        [
            "HEXES is chosen twice among WARRIOR's capability bonuses; where a choice is given \
             you cannot make the same choice twice"
        ]
    );
}

#[test]
fn a2_ratings_above_the_advancement_cap_warn_and_above_seven_fail() {
    let mut sheet = character::create(&warrior()).unwrap().sheet;
    // FITNESS 6 is within the default cap of 7 but above a table's cap of 5.
    let report = character::validate(&sheet, 5);
    assert!(report.problems.is_empty());
    assert_eq!(
        report.warnings,
        ["aspect FITNESS has 6 dots, above the advancement cap of 5 (003-A2)"]
    );
    sheet.aspects.insert(Aspect::Fitness, 8);
    let report = character::validate(&sheet, 7);
    assert_eq!(
        report.problems.0,
        [
            "aspect FITNESS has 8 dots, above the highest rating 7 (Ascendant); lower it to at most 7"
        ]
    );
}

#[test]
fn a14_health_and_fortitude_maxima_are_configured_not_derived() {
    let mut choices = warrior();
    choices.fortitude = 5;
    choices.health = 4;
    let sheet = character::create(&choices).unwrap().sheet;
    assert_eq!(sheet.fortitude, Resource { current: 5, max: 5 });
    assert_eq!(sheet.health, Resource { current: 4, max: 4 });
    let (hurt, unabsorbed) = sheet.health.lose(6);
    assert_eq!((hurt.current, unabsorbed), (0, 2));
    assert_eq!(hurt.regain(9), Resource { current: 4, max: 4 });
}

#[test]
fn s1_validate_lists_every_problem_of_an_edited_sheet() {
    let mut sheet = character::create(&warrior()).unwrap().sheet;
    sheet.aspects.remove(&Aspect::Charm);
    sheet.abilities.insert("brawl".to_string(), 2);
    sheet.abilities.insert("JUGGLING".to_string(), 1);
    sheet.fortitude = Resource { current: 4, max: 3 };
    sheet.house = Some(House::Slytherin);
    sheet.feats = vec![Feat::Duelist, Feat::Duelist];
    sheet.feat_uses.insert(Feat::FuriousSpellcaster, 4);
    let problems = character::validate(&sheet, 7).problems.0;
    assert_eq!(
        problems,
        [
            "aspect CHARM is missing; rate it 0..7 (1 is the baseline)",
            "unknown ability `JUGGLING`; use one of: ALERTNESS, BRAVERY, CONVICTION, ELOQUENCE, \
             INTIMIDATION, KINDNESS, KINSHIP, LOGIC, SPEED, STRENGTH, ACROBATICS, BRAWL, COVERT, \
             CRAFT, IMBUE, MARKSMANSHIP, PERFORMANCE, PILOT, SKIRMISH, SURVIVAL, ARCANE, GENERAL, \
             HISTORY, INVESTIGATION, MEDICINE, MUGGLE, NATURE, SCIENCE, TECHNOLOGY, WORLD, \
             COMPLEXITY, HACK, ANALYSE, INTUITION, INTERROGATE, TRACKING, BELONGING, NURTURE, \
             COMMUNE, SAVVY, PICKPOCKET, UNDERWORLD, EUREKA, COLLABORATION, SPECULATION, WEALTH, \
             INSPIRE, SOCIETY, RAGE, COMMAND, TACTICS, DODGE; a GM-granted ability belongs in \
             custom_abilities with its type",
            "ability `brawl`: write it as BRAWL",
            "fortitude 4 is above its maximum 3; lower current or raise max",
            "personality REBEL belongs to GRYFFINDOR, not SLYTHERIN; change the house or the \
             personality",
            "feat DUELIST is listed twice; list it once",
            "feat FURIOUS SPELLCASTER used 4 times today, above its 3 a day; lower it",
            "feat FURIOUS SPELLCASTER has uses today but is not among the feats; add it or remove \
             the uses",
        ]
    );
}
