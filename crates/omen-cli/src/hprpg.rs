//! `omen hprpg`: seed 003's d12 success pools: the outcome tables of its Appendix 10, and a
//! character's checks, castings, resists and resources (see [`crate::actions`]).

use std::io::Write;

use clap::{Args, Subcommand, ValueEnum};
use omen_core::Limits;
use omen_rules::hprpg::character::CreationChoices;
use omen_rules::hprpg::game::HprpgState;
use omen_rules::hprpg::zero_dots::StoredRoll;
use omen_rules::hprpg::{
    Check, Contest, ContestNets, Degree, HprpgError, HprpgOptions, Teamwork, given_difficulty,
    passive_perception, sneaker_revealed, table,
};
use omen_rules::stateful::{distribution_json, probability_json};
use serde_json::{Value, json};

/// Why an analysis gave no answer: the rules refused it, or its input (a stored character) was bad.
enum Failed {
    Rules(HprpgError),
    Refused(String),
}

use Failed::Refused;

impl From<HprpgError> for Failed {
    fn from(error: HprpgError) -> Self {
        Failed::Rules(error)
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failed::Rules(error) => error.fmt(f),
            Refused(message) => f.write_str(message),
        }
    }
}

/// Prints an answer or its error; `false` for bad input.
fn answer(
    format: crate::args::RollFormat,
    result: Result<(String, Value), Failed>,
) -> anyhow::Result<bool> {
    match result {
        Ok((text, json)) => show(format, &text, &json),
        Err(error) => {
            crate::fit::error(error);
            Ok(false)
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum HprpgCommand {
    /// The outcome table of Appendix 10 for a DV and catastrophe range: dice 0..14 against
    /// catastrophe, failure, 1..6 and 7+ net successes.
    #[command(
        after_help = "Examples:\n  omen hprpg table --dv 8\n  omen hprpg table --dv 10 --catastrophe-range 3 --format json"
    )]
    Table(TableArgs),
    /// A contest: both sides roll against the instigator's DV; the margin decides.
    #[command(
        after_help = "Examples:\n  omen hprpg contest --pool 5 --resistor-pool 4 --dv 8\n  omen hprpg contest --char Jane --aspect FITNESS --ability BRAWL --vs Rook --dv 8"
    )]
    Contest(ContestArgs),
    /// Working together: each helper rolls, successes and catastrophes are pooled.
    #[command(
        after_help = "Examples:\n  omen hprpg teamwork --pool 5 --pool 3 --pool 2 --dv 8\n  omen hprpg teamwork --char Jane --char Rook --aspect FITNESS --ability BRAWL --dv 10"
    )]
    Teamwork(TeamworkArgs),
    /// Passive Perception: PERCEPTION + ALERTNESS is the DV of a sneak check; with
    /// --sneak-pool, the exact chance the sneaker is revealed.
    #[command(
        after_help = "Examples:\n  omen hprpg perception --perception 2 --alertness 3 --sneak-pool 5\n  omen hprpg perception --char Rook --vs Jane --aspect PRECISION --ability COVERT"
    )]
    Perception(PerceptionArgs),
    /// Character creation: the finished sheet from the player's choices, or every rule
    /// the choices break, listed at once. Store it with `omen char new NAME --rules hprpg --sheet
    /// '{"create": CHOICES}'`.
    #[command(
        after_help = "Examples:\n  omen rules hprpg --example -o rook.json\n  omen hprpg create --choices @rook.json\n  omen hprpg create --choices @rook.json --format json"
    )]
    Create(CreateArgs),
}

#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The choices: JSON text or @FILE, e.g. {"personality": "REBEL", "archetype": "WARRIOR",
    /// "aspect_ranking": ["PHYSICAL", "MENTAL", "SOCIAL"], "aspects": {"FITNESS": 3, …},
    /// "ability_ranking": [...], "abilities": {...}, "archetype_abilities": {...},
    /// "capability_choices": [...], "fortitude": 3, "health": 5}.
    #[arg(long, value_name = "JSON")]
    pub choices: String,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = crate::args::RollFormat::Text)]
    pub format: crate::args::RollFormat,
}

fn create(args: &CreateArgs) -> anyhow::Result<bool> {
    let choices = match crate::act::json_argument(&args.choices).and_then(|mut value| {
        // `omen rules hprpg --example` prints the sheet form `{"create": CHOICES}`: take it as is.
        if let Some(object) = value.as_object_mut()
            && object.len() == 1
            && let Some(inner) = object.remove("create")
        {
            value = inner;
        }
        omen_rules::schema_check::decode::<CreationChoices>(&value)
            .map_err(|e| format!("invalid creation choices: {e}"))
    }) {
        Ok(choices) => choices,
        Err(message) => {
            crate::fit::error(message);
            return Ok(false);
        }
    };
    match omen_rules::hprpg::character::create(&choices) {
        Ok(created) => {
            // stdout carries the sheet alone, so it can be piped into `omen char new`; warnings go
            // to stderr (in JSON they are a field of the answer).
            let strict = crate::diagnostics::strict() && !created.warnings.is_empty();
            if args.format == crate::args::RollFormat::Text || strict {
                for warning in &created.warnings {
                    eprintln!("warning: {warning}");
                }
            }
            if strict {
                eprintln!("error: warnings are errors under --strict; no result was printed");
                return Ok(false);
            }
            // The ratings' names and the personality's Asset and Flaw (003-D1, D6) are for the
            // player reading along: on stderr in text, beside the sheet in JSON.
            let summary = omen_rules::hprpg::summary::SheetSummary::of(&created.sheet);
            if args.format == crate::args::RollFormat::Text {
                eprint!("{}", crate::fit::wrap(&summary.text(), crate::fit::width()));
            }
            let text = format!("{:#}\n", serde_json::to_value(&created.sheet)?);
            let mut json = serde_json::to_value(&created)?;
            json["summary"] = serde_json::to_value(&summary)?;
            show(args.format, &text, &json)
        }
        Err(problems) => {
            crate::fit::error(problems);
            Ok(false)
        }
    }
}

/// Characters stored in a campaign, whose aspect + ability dots make the pools.
#[derive(Debug, Args)]
pub struct StoredCharacters {
    /// The aspect the stored character rolls, e.g. FITNESS.
    #[arg(long, value_name = "ASPECT", requires = "ability")]
    pub aspect: Option<String>,
    /// The ability the stored character rolls, e.g. COVERT.
    #[arg(long, value_name = "ABILITY", requires = "aspect")]
    pub ability: Option<String>,
    /// The campaign of the stored characters (may be left out when the database holds one).
    #[arg(long, value_name = "NAME")]
    pub campaign: Option<String>,
    /// The campaign database: a SQLite file (a path or sqlite://PATH) or a PostgreSQL database
    /// (postgres://USER@HOST/DB) [default: $OMEN_DB, else omen.db in the platform data directory].
    #[arg(long, value_name = "PATH")]
    pub db: Option<std::path::PathBuf>,
}

impl StoredCharacters {
    fn state(&self, name: &str) -> Result<HprpgState, String> {
        let store = crate::campaign::open(&self.db).map_err(|e| e.to_string())?;
        let campaign = crate::campaign::campaign_name(&store, &self.campaign)?;
        let character = store
            .character(&campaign, name)
            .map_err(|e| e.to_string())?;
        if character.rule_set != "hprpg" {
            return Err(format!(
                "{name} plays {}, not hprpg; choose an hprpg character",
                character.rule_set
            ));
        }
        serde_json::from_value(character.state).map_err(|e| format!("{name}: {e}"))
    }

    /// The roll of the stored character `name`: its dots in ASPECT + ABILITY (or the other pair),
    /// with the zero-dot rules of a check (003-M6).
    fn pool(&self, name: &str, pair: Option<(&str, &str)>) -> Result<StoredRoll, String> {
        let (aspect, ability) = pair
            .or_else(|| self.aspect.as_deref().zip(self.ability.as_deref()))
            .ok_or_else(|| {
                format!("give --aspect and --ability for {name}'s roll, e.g. --aspect FITNESS --ability COVERT")
            })?;
        self.state(name)?
            .roll_of(aspect, ability)
            .map_err(|e| format!("{name}: {e}"))
    }
}

/// A pool given as dice: no ability, so no zero-dot rule.
fn given_pool(pool: u64) -> StoredRoll {
    StoredRoll {
        pool,
        difficulty_change: 0,
        zero_dot_rule: None,
        ability: None,
    }
}

/// "; COVERT at 0 dots: DV + 2" when a stored character's side took a zero-dot rule (003-M6).
fn zero_dot_note(who: &str, roll: &StoredRoll) -> String {
    match (&roll.ability, roll.difficulty_change) {
        (Some(ability), change) if change != 0 => {
            format!(
                "{who}: {} at 0 dots, DV + {change} (003-M6)\n",
                ability.name
            )
        }
        _ => String::new(),
    }
}

/// A pool given as dice, or the stored character whose dots make it.
fn pool_or_character(
    pool: Option<u64>,
    character: Option<&str>,
    pair: Option<(&str, &str)>,
    stored: &StoredCharacters,
    which: &str,
) -> Result<StoredRoll, String> {
    match (pool, character) {
        (Some(pool), None) => Ok(given_pool(pool)),
        (None, Some(name)) => stored.pool(name, pair),
        _ => Err(format!(
            "give the {which}'s pool or a stored character, one of the two"
        )),
    }
}

#[derive(Debug, Args)]
pub struct ContestArgs {
    /// The instigator's pool (0: the zero pool).
    #[arg(
        long,
        value_name = "N",
        required_unless_present = "character",
        conflicts_with = "character"
    )]
    pub pool: Option<u64>,
    /// The resistor's pool.
    #[arg(
        long,
        value_name = "N",
        required_unless_present = "versus",
        conflicts_with = "versus"
    )]
    pub resistor_pool: Option<u64>,
    /// The instigator: a stored character rolling --aspect + --ability.
    #[arg(long = "char", value_name = "NAME")]
    pub character: Option<String>,
    /// The resistor: a stored character rolling --vs-aspect + --vs-ability (default: the same pair).
    #[arg(long = "vs", value_name = "NAME")]
    pub versus: Option<String>,
    /// The resistor's aspect, e.g. FITNESS.
    #[arg(long, value_name = "ASPECT", requires = "vs_ability")]
    pub vs_aspect: Option<String>,
    /// The resistor's ability, e.g. BRAWL.
    #[arg(long, value_name = "ABILITY", requires = "vs_aspect")]
    pub vs_ability: Option<String>,
    #[command(flatten)]
    pub stored: StoredCharacters,
    /// The instigator's DV, which both sides roll against.
    #[arg(long = "dv", value_name = "DV")]
    pub difficulty: i64,
    /// The resistor's own DV, when the GM gives each side its own.
    #[arg(long = "resistor-dv", value_name = "DV")]
    pub resistor_difficulty: Option<i64>,
    /// Dice at or below X are catastrophes (3 for a Broken Wand).
    #[arg(long, value_name = "X", default_value_t = 1)]
    pub catastrophe_range: i64,
    /// A rule option, NAME=VALUE: contest-nets=signed uses the signed nets for the margin.
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    #[command(flatten)]
    pub source: crate::act::RollSource,
}

#[derive(Debug, Args)]
pub struct TeamworkArgs {
    /// One helper's pool (repeat for each, the main actor first).
    #[arg(
        long = "pool",
        value_name = "N",
        required_unless_present = "characters"
    )]
    pub pools: Vec<u64>,
    /// A stored character who helps, rolling --aspect + --ability (repeat for each; after the
    /// pools given).
    #[arg(long = "char", value_name = "NAME")]
    pub characters: Vec<String>,
    #[command(flatten)]
    pub stored: StoredCharacters,
    /// The difficulty value, 2..=12.
    #[arg(long = "dv", value_name = "DV")]
    pub difficulty: i64,
    /// Dice at or below X are catastrophes (3 for a Broken Wand).
    #[arg(long, value_name = "X", default_value_t = 1)]
    pub catastrophe_range: i64,
    #[command(flatten)]
    pub source: crate::act::RollSource,
}

#[derive(Debug, Args)]
pub struct PerceptionArgs {
    /// The watcher's PERCEPTION dots.
    #[arg(
        long,
        value_name = "DOTS",
        required_unless_present = "character",
        requires = "alertness"
    )]
    pub perception: Option<u32>,
    /// The watcher's ALERTNESS dots.
    #[arg(long, value_name = "DOTS", conflicts_with = "character")]
    pub alertness: Option<u32>,
    /// The watcher: a stored character whose PERCEPTION + ALERTNESS is the DV.
    #[arg(long = "char", value_name = "NAME", conflicts_with = "perception")]
    pub character: Option<String>,
    /// The sneaker's pool, for the chance of being revealed.
    #[arg(long, value_name = "N", conflicts_with = "versus")]
    pub sneak_pool: Option<u64>,
    /// The sneaker: a stored character rolling --aspect + --ability (e.g. PRECISION, COVERT).
    #[arg(long = "vs", value_name = "NAME")]
    pub versus: Option<String>,
    #[command(flatten)]
    pub stored: StoredCharacters,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = crate::args::RollFormat::Text)]
    pub format: crate::args::RollFormat,
}

/// Prints an analysis: text, or its JSON.
fn show(format: crate::args::RollFormat, text: &str, json: &Value) -> anyhow::Result<bool> {
    let mut out = crate::output::result();
    match format {
        crate::args::RollFormat::Text => {
            out.write_all(crate::fit::wrap(text, crate::fit::width()).as_bytes())?
        }
        crate::args::RollFormat::Json => writeln!(out, "{json}")?,
    }
    Ok(true)
}

fn contest(
    args: &ContestArgs,
    options: &serde_json::Map<String, Value>,
    limits: &Limits,
) -> Result<(String, Value), Failed> {
    let check_options = HprpgOptions::default();
    given_difficulty(args.difficulty)?;
    let versus_pair = args.vs_aspect.as_deref().zip(args.vs_ability.as_deref());
    let (instigator_roll, resistor_roll) = match (
        pool_or_character(
            args.pool,
            args.character.as_deref(),
            None,
            &args.stored,
            "instigator",
        ),
        pool_or_character(
            args.resistor_pool,
            args.versus.as_deref(),
            versus_pair,
            &args.stored,
            "resistor",
        ),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(message), _) | (_, Err(message)) => return Err(Refused(message)),
    };
    if let Some(dv) = args.resistor_difficulty {
        given_difficulty(dv)?;
    }
    let (pool, resistor_pool) = (instigator_roll.pool, resistor_roll.pool);
    let instigator = Check::new(
        pool,
        args.difficulty
            .saturating_add(instigator_roll.difficulty_change),
        args.catastrophe_range,
        0,
        &check_options,
        limits,
    )?;
    let resistor = Check::new(
        resistor_pool,
        args.resistor_difficulty
            .unwrap_or(args.difficulty)
            .saturating_add(resistor_roll.difficulty_change),
        args.catastrophe_range,
        0,
        &check_options,
        limits,
    )?;
    let nets = crate::act::typed_option(
        options,
        "contest_nets",
        &ContestNets::ALL,
        ContestNets::name,
    );
    let contest = Contest {
        instigator,
        resistor,
        nets,
    };
    let margins = distribution_json(&contest.margin_distribution(limits)?);
    let outcomes = distribution_json(&contest.outcome_distribution(limits)?);
    let (mut dice, seed) = args.source.dice_source();
    let roll = contest.roll(dice.as_mut())?;
    let odds = json!({ "margin": margins, "outcome": outcomes });
    let text = format!(
        "contest: {}d12 against {}d12{}\n{}{}instigator {:?} net {}, resistor {:?} net {}: margin {}\n{}",
        pool,
        resistor_pool,
        crate::act::odds_text(&odds),
        zero_dot_note("instigator", &instigator_roll),
        zero_dot_note("resistor", &resistor_roll),
        roll.instigator.dice,
        roll.instigator.net,
        roll.resistor.dice,
        roll.resistor.net,
        roll.margin,
        seed.map_or(String::new(), |s| format!("seed: {s}\n")),
    );
    let sides = json!({ "instigator": instigator_roll, "resistor": resistor_roll });
    Ok((
        text,
        json!({ "odds": odds, "roll": roll, "seed": seed, "sides": sides }),
    ))
}

fn teamwork(args: &TeamworkArgs, limits: &Limits) -> Result<(String, Value), Failed> {
    let options = HprpgOptions::default();
    given_difficulty(args.difficulty)?;
    let mut helpers: Vec<StoredRoll> = args.pools.iter().map(|&p| given_pool(p)).collect();
    let mut notes = String::new();
    for name in &args.characters {
        let helper = args.stored.pool(name, None).map_err(Refused)?;
        notes.push_str(&zero_dot_note(name, &helper));
        helpers.push(helper);
    }
    let pools: Vec<u64> = helpers.iter().map(|h| h.pool).collect();
    let checks = helpers
        .iter()
        .map(|helper| {
            Check::new(
                helper.pool,
                args.difficulty.saturating_add(helper.difficulty_change),
                args.catastrophe_range,
                0,
                &options,
                limits,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let team = Teamwork::new(checks)?;
    let nets = team.net_distribution(limits)?;
    let odds = json!({
        "net": distribution_json(&nets),
        "degree": distribution_json(&nets.map(|&net| Degree::of(net))),
    });
    let (mut dice, seed) = args.source.dice_source();
    let roll = team.roll(dice.as_mut())?;
    let text = format!(
        "working together: pools {:?}{}\n{}pooled {} successes, {} catastrophes: net {} ({})\n{}",
        pools,
        crate::act::odds_text(&odds),
        notes,
        roll.successes,
        roll.catastrophes,
        roll.net,
        roll.degree,
        seed.map_or(String::new(), |s| format!("seed: {s}\n")),
    );
    Ok((
        text,
        json!({ "odds": odds, "roll": roll, "seed": seed, "helpers": helpers }),
    ))
}

fn perception(args: &PerceptionArgs, limits: &Limits) -> Result<(String, Value), Failed> {
    let (perception, alertness) = match (&args.character, args.perception, args.alertness) {
        (Some(name), _, _) => args
            .stored
            .state(name)
            .map_err(Refused)?
            .perception_ratings(),
        (None, Some(perception), Some(alertness)) => (perception, alertness),
        _ => {
            return Err(Refused(
                "give --perception and --alertness, or a stored character with --char".to_string(),
            ));
        }
    };
    let difficulty = passive_perception(perception, alertness);
    let mut text = format!("passive Perception: DV {difficulty}\n");
    let mut json = json!({ "difficulty": difficulty });
    let sneak = match &args.versus {
        Some(name) => Some(args.stored.pool(name, None).map_err(Refused)?),
        None => args.sneak_pool.map(given_pool),
    };
    if let Some(sneak) = sneak {
        let pool = sneak.pool;
        text.push_str(&zero_dot_note("sneaker", &sneak));
        let check = Check::new(
            pool,
            difficulty.saturating_add(sneak.difficulty_change),
            1,
            0,
            &HprpgOptions::default(),
            limits,
        )?;
        let degrees = check.degree_distribution(limits)?;
        let revealed = degrees.probability_where(|&d| sneaker_revealed(d));
        text.push_str(&format!(
            "a sneak with {pool}d12 is revealed with P = {} ≈ {:.2}%\n",
            omen_rules::hprpg::fraction(&revealed),
            omen_core::probability_to_f64(&revealed) * 100.0
        ));
        json["revealed"] = probability_json(&revealed);
        json["sneak_difficulty"] = json!(check.difficulty());
        json["sneaker"] = json!(sneak);
        json["degree"] = distribution_json(&degrees);
    }
    Ok((text, json))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// Percentages rounded as the seed rounds them (2 significant figures); the table to read.
    #[value(alias = "text")]
    Markdown,
    /// Exact fractions, one row per line, for a spreadsheet.
    Csv,
    /// Exact fractions.
    Json,
}

#[derive(Debug, Args)]
pub struct TableArgs {
    /// The difficulty value (DV), 2..12; raised above the catastrophe range as the rules say.
    #[arg(long, value_name = "D")]
    pub dv: i64,
    /// The top of the catastrophe range (1 for 1-1, 3 for a Broken Wand's 1-3).
    #[arg(long, value_name = "X", default_value_t = 1)]
    pub catastrophe_range: i64,
    /// How to print the result.
    #[arg(long, value_enum, ignore_case = true, default_value_t = TableFormat::Markdown)]
    pub format: TableFormat,
}

/// Runs an hprpg command; `Ok(false)` means bad input, already reported.
pub fn run(command: &HprpgCommand, limits: &omen_core::Limits) -> anyhow::Result<bool> {
    match command {
        HprpgCommand::Contest(args) => {
            match crate::act::analysis_options("hprpg", "contest", &args.options) {
                Ok(options) => answer(args.source.format, contest(args, &options, limits)),
                Err(message) => {
                    crate::fit::error(message);
                    Ok(false)
                }
            }
        }
        HprpgCommand::Teamwork(args) => answer(args.source.format, teamwork(args, limits)),
        HprpgCommand::Perception(args) => answer(args.format, perception(args, limits)),
        HprpgCommand::Create(args) => create(args),
        HprpgCommand::Table(args) => match table(args.dv, args.catastrophe_range) {
            Ok(t) => {
                let text = match args.format {
                    TableFormat::Markdown => {
                        crate::fit::markdown_tables(&t.markdown(), crate::fit::width())
                    }
                    TableFormat::Json => format!("{}\n", t.to_json()),
                    TableFormat::Csv => {
                        let json: Value = serde_json::from_str(&t.to_json())?;
                        let mut columns = vec!["dice"];
                        columns.extend(omen_rules::hprpg::TABLE_COLUMNS);
                        crate::tables::Table::from_json(&json, &columns).csv()
                    }
                };
                crate::output::result().write_all(text.as_bytes())?;
                Ok(true)
            }
            Err(error) => {
                crate::fit::error(error);
                Ok(false)
            }
        },
    }
}
