//! The seed games' character actions as subcommands: flags in, the action's JSON out, applied by
//! [`crate::act::run`] to a stored character (`--char`), a state file (`--state`) or a one-off
//! character (`--sheet`). The JSON field names are the rule sets' own (see `omen rules`), so
//! `omen act GAME JSON` takes the same actions for scripts.

use clap::Args;
use omen_core::Limits;
use serde_json::{Value, json};

use crate::act::{Holder, run};

// ---------------------------------------------------------------------------------------------------
// ritual (seed 000)

/// The four Lore modifiers that depend on the ritual's text.
#[derive(Debug, Args)]
pub struct RitualModifiers {
    /// Inventing the ritual from scratch (−2 dice).
    #[arg(long)]
    pub inventing: bool,
    /// Modifying a ritual (−1).
    #[arg(long)]
    pub modifying: bool,
    /// Translated from a language the ritualist does not know well (−1).
    #[arg(long)]
    pub unfamiliar_language: bool,
    /// Not of the character's Tradition (−1).
    #[arg(long)]
    pub foreign_tradition: bool,
}

/// A ritual and its Difficulty, for the Lore actions.
#[derive(Debug, Args)]
pub struct RitualTarget {
    /// The ritual's name, e.g. "Binding of Nine".
    #[arg(long, value_name = "NAME")]
    pub ritual: String,
    /// Ritual Difficulty, 1 (Trivial) to 6 (Very Difficult).
    #[arg(long, value_name = "T")]
    pub difficulty: i64,
    #[command(flatten)]
    pub modifiers: RitualModifiers,
}

impl RitualTarget {
    fn json(&self, action: &str) -> Value {
        json!({
            "action": action,
            "ritual": self.ritual,
            "difficulty": self.difficulty,
            "inventing": self.modifiers.inventing,
            "modifying": self.modifiers.modifying,
            "unfamiliar_language": self.modifiers.unfamiliar_language,
            "foreign_tradition": self.modifiers.foreign_tradition,
        })
    }
}

#[derive(Debug, Args)]
pub struct RitualLoreAction {
    #[command(flatten)]
    pub target: RitualTarget,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct RitualCheckArgs {
    #[command(flatten)]
    pub target: RitualTarget,
    /// Count the ritual as deciphered before (+1) whatever the lists say.
    #[arg(long)]
    pub deciphered_before: bool,
    /// Count the ritual as performed before (+2) whatever the lists say.
    #[arg(long)]
    pub performed_before: bool,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct EndSessionArgs {
    /// Skip the re-roll of the session's most difficult check (the log still resets).
    #[arg(long)]
    pub decline: bool,
    #[command(flatten)]
    pub holder: Holder,
}

/// What an Essence check is made of besides the Leader.
#[derive(Debug, Args)]
pub struct EssenceInputs {
    /// An Assistant's Essence (repeat for each).
    #[arg(long = "assistant", value_name = "N")]
    pub assistants: Vec<i64>,
    /// Essence of the Time and Place.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub time_and_place: i64,
    /// A Relic's Essence (repeat for each).
    #[arg(long = "relic", value_name = "N")]
    pub relics: Vec<i64>,
    /// An Offering's Essence (repeat for each).
    #[arg(long = "offering", value_name = "N")]
    pub offerings: Vec<i64>,
    /// Dice lost to anything else (contamination, the GM's ruling).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub penalty: i64,
    /// A threshold of the ritual (repeat for each; at least one).
    #[arg(long = "threshold", value_name = "T", required = true)]
    pub thresholds: Vec<i64>,
    /// Replace this many pairs of dice by 7 each.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub pairs: usize,
    /// The threshold aimed for when replacing pairs [default: the highest].
    #[arg(long, value_name = "T")]
    pub desired: Option<i64>,
}

#[derive(Debug, Args)]
pub struct PerformArgs {
    /// The ritual performed, with the character as Ritual Leader.
    #[arg(long, value_name = "NAME")]
    pub ritual: String,
    /// The Leader's Essence [default: the character's own].
    #[arg(long, value_name = "N")]
    pub leader: Option<i64>,
    /// Where the ritual is read from: memory, notes or source (with --option
    /// recording-and-memorising=on).
    #[arg(long, value_name = "FROM")]
    pub read_from: Option<String>,
    #[command(flatten)]
    pub essence: EssenceInputs,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct JustHolder {
    #[command(flatten)]
    pub holder: Holder,
}

pub fn ritual_check(args: &RitualCheckArgs, limits: &Limits) -> anyhow::Result<bool> {
    let mut action = args.target.json("lore-check");
    // Absent, the lists decide (000-A2); given, the flag wins.
    action["deciphered_before"] = flag_or_lists(args.deciphered_before);
    action["performed_before"] = flag_or_lists(args.performed_before);
    run("ritual", action, &args.holder, limits)
}

fn flag_or_lists(flag: bool) -> Value {
    if flag { Value::Bool(true) } else { Value::Null }
}

pub fn ritual_lore(name: &str, args: &RitualLoreAction, limits: &Limits) -> anyhow::Result<bool> {
    run("ritual", args.target.json(name), &args.holder, limits)
}

pub fn ritual_end_session(args: &EndSessionArgs, limits: &Limits) -> anyhow::Result<bool> {
    let choice = if args.decline { "decline" } else { "reroll" };
    let action = json!({ "action": "end-session", "choice": choice });
    run("ritual", action, &args.holder, limits)
}

pub fn ritual_perform(args: &PerformArgs, limits: &Limits) -> anyhow::Result<bool> {
    let mut action = json!({
        "action": "essence",
        "ritual": args.ritual,
        "leader": args.leader,
        "assistants": args.essence.assistants,
        "time_and_place": args.essence.time_and_place,
        "relics": args.essence.relics,
        "offerings": args.essence.offerings,
        "other_penalties": args.essence.penalty,
        "thresholds": args.essence.thresholds,
        "pairs": args.essence.pairs,
        "desired_threshold": args.essence.desired,
    });
    // Only when given, so a performance without the optional rule reads as before.
    if let Some(from) = &args.read_from {
        action["read_from"] = json!(from);
    }
    run("ritual", action, &args.holder, limits)
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The known ritual copied into the character's notes.
    #[arg(long, value_name = "NAME")]
    pub ritual: String,
    #[command(flatten)]
    pub holder: Holder,
}

pub fn ritual_record(args: &RecordArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({ "action": "record", "ritual": args.ritual });
    run("ritual", action, &args.holder, limits)
}

/// An action with no fields of its own: `{"action": name}`.
pub fn bare(game: &str, name: &str, args: &JustHolder, limits: &Limits) -> anyhow::Result<bool> {
    run(game, json!({ "action": name }), &args.holder, limits)
}

// ---------------------------------------------------------------------------------------------------
// spelldice (seed 001)

#[derive(Debug, Args)]
pub struct CastArgs {
    /// The spell level, 1..=9 (level-agnostic spells are level 1: target 8).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub spell_level: i64,
    /// Spell dice committed from the pool.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub spell_dice: usize,
    /// Life-energy dice committed (each costs hit points).
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub life_dice: usize,
    /// Armour penalty subtracted from the total for this cast [default: the character's].
    #[arg(long, value_name = "P")]
    pub armour: Option<i64>,
    /// Encumbrance penalty for this cast [default: the character's].
    #[arg(long, value_name = "P")]
    pub encumbrance: Option<i64>,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HealArgs {
    /// Hit points restored [default: all life-energy damage].
    #[arg(long, value_name = "N")]
    pub amount: Option<i64>,
    #[command(flatten)]
    pub holder: Holder,
}

pub fn spelldice_cast(args: &CastArgs, limits: &Limits) -> anyhow::Result<bool> {
    if args.spell_dice == 0 && args.life_dice == 0 {
        // `--dice` is the values rolled everywhere in omen; the count committed has its own flag.
        eprintln!(
            "error: no dice committed; give the number with --spell-dice K (or --life-dice K); \
             --dice gives the values rolled, e.g. --spell-dice 3 --dice 2,4,5"
        );
        return Ok(false);
    }
    let penalties = match (args.armour, args.encumbrance) {
        (None, None) => Value::Null,
        (armour, encumbrance) => {
            json!({ "armour": armour.unwrap_or(0), "encumbrance": encumbrance.unwrap_or(0) })
        }
    };
    let action = json!({
        "action": "cast",
        "spell_level": args.spell_level,
        "spell_dice": args.spell_dice,
        "life_dice": args.life_dice,
        "penalties": penalties,
    });
    run("spelldice", action, &args.holder, limits)
}

pub fn spelldice_heal(args: &HealArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({ "action": "heal", "amount": args.amount });
    run("spelldice", action, &args.holder, limits)
}

// ---------------------------------------------------------------------------------------------------
// t13 (seed 004)

#[derive(Debug, Args)]
pub struct BalanceArgs {
    /// Sway gained or spent.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub sway: u64,
    /// Chi gained or spent.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub chi: u64,
    /// Yarn gained or spent.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub yarn: u64,
    /// How a shortfall is paid instead (spend only): lost-proficiencies, lost-descendants,
    /// changed-handicaps or lost-annex.
    #[arg(long, value_name = "HOW")]
    pub shortfall_paid_as: Option<String>,
    #[command(flatten)]
    pub holder: Holder,
}

pub fn t13_balance(name: &str, args: &BalanceArgs, limits: &Limits) -> anyhow::Result<bool> {
    let mut action =
        json!({ "action": name, "sway": args.sway, "chi": args.chi, "yarn": args.yarn });
    if let Some(how) = &args.shortfall_paid_as {
        action["shortfall_paid_as"] = Value::String(how.clone());
    }
    run("t13", action, &args.holder, limits)
}

/// `--buy KIND:SIDES[:CURRENCY]` as the action's bought die.
pub fn bought_die(text: &str) -> Result<Value, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let (kind, sides, currency) = match parts[..] {
        [kind, sides] => (kind, sides, "sway"),
        [kind, sides, currency] => (kind, sides, currency),
        _ => {
            return Err(format!(
                "--buy {text}: write KIND:SIDES:CURRENCY, e.g. skill:6:sway"
            ));
        }
    };
    let sides: i64 = sides
        .parse()
        .map_err(|_| format!("--buy {text}: `{sides}` is not a number of sides"))?;
    Ok(json!({ "kind": kind, "sides": sides, "currency": currency }))
}

// ---------------------------------------------------------------------------------------------------
// hprpg (seed 003)

/// What every roll of seed 003 can be adjusted by.
#[derive(Debug, Args)]
pub struct HprpgDice {
    /// Bonus dice (situational, help).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub bonus: u32,
    /// Penalty dice.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub penalty: u32,
    /// Dice at or below X are catastrophes (3 for a Broken Wand's castings).
    #[arg(long, value_name = "X", default_value_t = 1)]
    pub catastrophe_range: i64,
    /// Automatic successes bought with FORTITUDE, 1 point each.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub fortitude_successes: u32,
    /// A feat that applies (repeat for each), e.g. --feat AMBUSH.
    #[arg(long = "feat", value_name = "FEAT")]
    pub feats: Vec<String>,
}

#[derive(Debug, Args)]
pub struct HprpgCheckArgs {
    /// The aspect, e.g. FITNESS.
    #[arg(long, value_name = "ASPECT")]
    pub aspect: Option<String>,
    /// The ability (standard, archetype or custom), e.g. SPEED.
    #[arg(long, value_name = "ABILITY", conflicts_with = "affinity")]
    pub ability: Option<String>,
    /// An affinity instead of an ability, e.g. HEXES.
    #[arg(long, value_name = "AFFINITY")]
    pub affinity: Option<String>,
    /// The difficulty value, 2..=12 (4 very easy, 6 easy, 8 standard, 10 hard, 12 very hard).
    #[arg(long = "dv", value_name = "DV")]
    pub difficulty: i64,
    /// Intractable difficulty: successes absorbed before catastrophes cancel the rest.
    #[arg(long, value_name = "I", default_value_t = 0)]
    pub intractability: i64,
    /// Automatic successes a ritual grants.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub ritual_successes: u32,
    /// The GM allows an aspect-only roll for a KNOWLEDGE ability of 0 dots.
    #[arg(long)]
    pub aspect_only_knowledge: bool,
    /// A rage-fuelled weapon attack: 2 damage per net success (+ SAVAGE ATTACKER), and
    /// the turn's use of RAGE.
    #[arg(long)]
    pub rage_attack: bool,
    /// For a one-off character: the aspect's dots (others at the baseline 1).
    #[arg(long, value_name = "N", conflicts_with_all = ["character", "state", "sheet"])]
    pub aspect_dots: Option<u32>,
    /// For a one-off character: the ability's (or affinity's) dots.
    #[arg(long, value_name = "N", conflicts_with_all = ["character", "state", "sheet"])]
    pub ability_dots: Option<u32>,
    #[command(flatten)]
    pub dice: HprpgDice,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgCastArgs {
    /// The discipline (affinity), e.g. ELEMENTAL.
    #[arg(long, value_name = "DISCIPLINE")]
    pub discipline: String,
    /// The spell level, 0 (NIHIL) to 7 (SUMNUS).
    #[arg(long, value_name = "L")]
    pub level: u32,
    /// The casting aspect [default: the discipline's].
    #[arg(long, value_name = "ASPECT")]
    pub aspect: Option<String>,
    /// self, wandtip, ranged or mass.
    #[arg(long, value_name = "DELIVERY", default_value = "self")]
    pub delivery: String,
    /// The number of targets (more than one for a ranged or mass spell).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub targets: u32,
    /// MASS only: the successes the GM requires (at least 4).
    #[arg(long, value_name = "N")]
    pub required: Option<u32>,
    /// Optional successes to put into OVERPOWER (+1 POWER each).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub overpower: u64,
    /// Optional successes to put into DEFY (+1 resist DV each).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub defy: u64,
    /// Optional successes to put into EXTEND (+1 duration each).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub extend: u64,
    /// Keep the spell sustained under this name (it then costs a die on later casts).
    #[arg(long, value_name = "NAME")]
    pub sustain: Option<String>,
    /// FURIOUS SPELLCASTER: RAGE dots replace the affinity dice.
    #[arg(long)]
    pub furious: bool,
    #[command(flatten)]
    pub dice: HprpgDice,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgCatchCastArgs {
    /// Catch-cast at once by spending 1 FORTITUDE for an extra action.
    #[arg(long)]
    pub extra_action: bool,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgFeatArgs {
    /// The feat, e.g. "MESMERISING PRESENCE".
    #[arg(long, value_name = "FEAT")]
    pub feat: String,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgReduceArgs {
    /// The waiting casting's delivery: wandtip, ranged or mass (a reduction cannot change it).
    #[arg(long, value_name = "DELIVERY")]
    pub delivery: String,
    /// WANDTIP or RANGED: the targets kept.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub targets: u32,
    /// MASS only: the smaller area's requirement (at least 4).
    #[arg(long, value_name = "N")]
    pub required: Option<u32>,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgResistArgs {
    /// The resist aspect, e.g. FITNESS.
    #[arg(long, value_name = "ASPECT")]
    pub aspect: String,
    /// The resist ability, e.g. DODGE or BLOCK.
    #[arg(long, value_name = "ABILITY")]
    pub ability: String,
    /// The incoming spell's level.
    #[arg(long, value_name = "L")]
    pub level: u32,
    /// The incoming spell's DEFY successes.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub defy: u64,
    /// The incoming spell's POWER.
    #[arg(long, value_name = "N")]
    pub power: u64,
    #[command(flatten)]
    pub dice: HprpgDice,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgPointsArgs {
    /// FORTITUDE points regained.
    #[arg(long, value_name = "N")]
    pub points: u32,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgLevelsArgs {
    /// Levels of harm.
    #[arg(long, value_name = "N")]
    pub levels: u32,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgGalleonsArgs {
    /// Galleons gained.
    #[arg(long, value_name = "N")]
    pub amount: u64,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgSpendArgs {
    /// spell-level, extra-action, automatic-success, unwavering-focus or organic-repose.
    #[arg(long, value_name = "WHAT")]
    pub spend: String,
    /// How many times to spend it.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub count: u32,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgSustainArgs {
    /// The name the sustained spell is kept under.
    #[arg(long, value_name = "NAME")]
    pub spell: String,
    /// The spell's discipline, e.g. ELEMENTAL [default: the one it was cast with].
    #[arg(long, value_name = "DISCIPLINE")]
    pub discipline: Option<String>,
    /// The spell's level, 0 to 7 [default: the one it was cast at].
    #[arg(long, value_name = "L")]
    pub level: Option<u32>,
    #[command(flatten)]
    pub holder: Holder,
}

#[derive(Debug, Args)]
pub struct HprpgSpellArgs {
    /// The sustained spell's name.
    #[arg(long, value_name = "NAME")]
    pub spell: String,
    #[command(flatten)]
    pub holder: Holder,
}

/// A one-off character for a check: every aspect at the baseline 1, the named aspect and ability at
/// the dots given. Seed 003's sheet names its ratings by aspect and ability.
fn one_off_sheet(args: &HprpgCheckArgs) -> Value {
    let mut aspects = serde_json::Map::new();
    for aspect in omen_rules::hprpg::character::Aspect::ALL {
        aspects.insert(aspect.name().to_string(), json!(1));
    }
    if let (Some(aspect), Some(dots)) = (&args.aspect, args.aspect_dots) {
        aspects.insert(aspect.to_uppercase(), json!(dots));
    }
    let mut sheet = json!({ "aspects": aspects });
    if let Some(dots) = args.ability_dots {
        if let Some(ability) = &args.ability {
            sheet["abilities"] = json!({ ability.to_uppercase(): dots });
        }
        if let Some(affinity) = &args.affinity {
            sheet["affinities"] = json!({ affinity.to_uppercase(): dots });
        }
    }
    json!({ "sheet": sheet })
}

pub fn hprpg_check(args: &HprpgCheckArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({
        "action": "check",
        "aspect": args.aspect,
        "ability": args.ability,
        "affinity": args.affinity,
        "difficulty": args.difficulty,
        "bonus_dice": args.dice.bonus,
        "penalty_dice": args.dice.penalty,
        "catastrophe_range": args.dice.catastrophe_range,
        "intractability": args.intractability,
        "fortitude_successes": args.dice.fortitude_successes,
        "ritual_successes": args.ritual_successes,
        "feats": args.dice.feats,
        "aspect_only_knowledge": args.aspect_only_knowledge,
        "rage_attack": args.rage_attack,
    });
    let one_off = args.holder.character.is_none()
        && args.holder.state.is_none()
        && args.holder.sheet.is_none();
    if one_off {
        let mut holder = args.holder.clone();
        holder.sheet = Some(one_off_sheet(args).to_string());
        return run("hprpg", action, &holder, limits);
    }
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_cast(args: &HprpgCastArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({
        "action": "cast",
        "discipline": args.discipline,
        "level": args.level,
        "aspect": args.aspect,
        "delivery": args.delivery,
        "targets": args.targets,
        "required": args.required,
        "bonus_dice": args.dice.bonus,
        "penalty_dice": args.dice.penalty,
        "catastrophe_range": args.dice.catastrophe_range,
        "optional": { "overpower": args.overpower, "defy": args.defy, "extend": args.extend },
        "fortitude_successes": args.dice.fortitude_successes,
        "feats": args.dice.feats,
        "furious": args.furious,
        "sustain": args.sustain,
    });
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_catch_cast(args: &HprpgCatchCastArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({ "action": "catch-cast", "extra_action": args.extra_action });
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_use_feat(args: &HprpgFeatArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({ "action": "use-feat", "feat": args.feat });
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_reduce(args: &HprpgReduceArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({
        "action": "reduce-casting",
        "delivery": args.delivery,
        "targets": args.targets,
        "required": args.required,
    });
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_resist(args: &HprpgResistArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({
        "action": "resist",
        "aspect": args.aspect,
        "ability": args.ability,
        "level": args.level,
        "defy": args.defy,
        "power": args.power,
        "bonus_dice": args.dice.bonus,
        "penalty_dice": args.dice.penalty,
        "catastrophe_range": args.dice.catastrophe_range,
        "fortitude_successes": args.dice.fortitude_successes,
        "feats": args.dice.feats,
    });
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_regain(args: &HprpgPointsArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({ "action": "regain-fortitude", "points": args.points });
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_levels(name: &str, args: &HprpgLevelsArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({ "action": name, "levels": args.levels });
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_galleons(args: &HprpgGalleonsArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({ "action": "gain-galleons", "amount": args.amount });
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_spend(args: &HprpgSpendArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({ "action": "spend-fortitude", "spend": args.spend, "count": args.count });
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_sustain(args: &HprpgSustainArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({
        "action": "sustain",
        "spell": args.spell,
        "discipline": args.discipline,
        "level": args.level,
    });
    run("hprpg", action, &args.holder, limits)
}

pub fn hprpg_end_sustain(args: &HprpgSpellArgs, limits: &Limits) -> anyhow::Result<bool> {
    let action = json!({ "action": "end-sustain", "spell": args.spell });
    run("hprpg", action, &args.holder, limits)
}
