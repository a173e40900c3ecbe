//! Dialects: the notations of other dice rollers, as data over the one parser.
//!
//! A [`Dialect`] is a table of which modifier words exist and what they mean, plus a few switches for
//! the places where the sources disagree (whether `>3` includes 3, whether a bare `r` rerolls once, what
//! `//` is, whether whitespace ends a dice term, …). Every dialect produces the same syntax tree, in
//! Omen's own terms: Roll20's `3d6>3` becomes the tree of Omen's `3d6>=3`, Foundry's `1d20r1` the tree of
//! Omen's `1d20ro1`. The canonical rendering ([`crate::syntax::render`]) of that tree is therefore Omen
//! notation that means exactly what the dialect meant, and `omen roll`/`omen prob` print it as the
//! reading.
//!
//! Where a source has a construct the engine cannot compute, the dialect names it in its table as
//! [`Word::Unsupported`], so the parser refuses it with a clear error instead of reading it as something
//! else.

/// What a modifier word means after a dice term. The parser reads the word's point or count after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// Keep the highest N (1 when left out).
    KeepHighest,
    /// Keep the lowest N.
    KeepLowest,
    /// Drop the highest N.
    DropHighest,
    /// Drop the lowest N.
    DropLowest,
    /// Keep the middle N (Dice Maiden's `km`; an odd die left out is a highest one).
    KeepMiddle,
    /// Reroll once on the point (the lowest face when there is none).
    RerollOnce,
    /// Reroll while the point holds (the lowest face when there is none).
    RerollRecursive,
    /// Count each die below N as N.
    ClampMin,
    /// Count each die above N as N.
    ClampMax,
    /// Subtract the dice meeting the point from the count of successes.
    Failure,
    /// Explode on the point (the highest face when there is none), as `!` does.
    Explode,
    /// Explode at most once per die, as `!o` does (Foundry's `xo`, Avrae's `ra`, Dice Maiden's `e`).
    ExplodeOnce,
    /// Count the dice meeting the point (Foundry's `cs`, Dice Maiden's `t`).
    CountSuccesses,
    /// Count the dice meeting the point as successes, by themselves (Foundry's `cf`: the failures
    /// counted are the result).
    CountFailures,
    /// Foundry's `cs`: as [`Word::CountSuccesses`], a bare one counting the dice on the highest face.
    CountSuccessesOrHighest,
    /// Foundry's `cf`: as [`Word::CountFailures`], a bare one counting the dice on the lowest face.
    CountFailuresOrLowest,
    /// Foundry's `df`: as [`Word::Failure`], a bare one deducting the dice on the lowest face.
    FailureOrLowest,
    /// The total minus the target (Foundry's `ms`): `ms>=10` is `total - 10`, `ms<=10` is `10 - total`.
    MarginOfSuccess,
    /// Display only in the source (Dice Maiden's `s`, simple output): the total is unchanged, so the
    /// modifier is read and dropped. Takes a point when `true`.
    DisplayOnly(bool),
    /// Mark the dice meeting the point as critical successes in the transcript (Roll20's and
    /// rpg-dice-roller's `cs`; the highest face when there is no point). The total is unchanged.
    CriticalSuccess,
    /// Mark critical failures (`cf`; the lowest face when there is no point).
    CriticalFailure,
    /// Dice Maiden's `b1`: the dice at or below the number are botches, marked as critical
    /// failures; its dice library also keeps only that many of the highest dice for the total.
    Botch,
    /// Show the dice sorted in the transcript (`s`, `sa`, `sd`). The total is unchanged.
    Sort { descending: bool },
    /// Count the dice meeting the point, a bare number meaning "at most" (Dice Maiden's `tl`).
    CountSuccessesAtMost,
    /// Reroll once, a bare number meaning "at least" (Dice Maiden's `rg`).
    RerollOnceAtLeast,
    /// Reroll while the point holds, a bare number meaning "at least" (Dice Maiden's `irg`).
    RerollRecursiveAtLeast,
    /// Keep the dice meeting the point, the others count 0 (Avrae's `k3`, `k>3`: by value, not by rank).
    KeepValues,
    /// Drop the dice meeting the point (Avrae's `p3`).
    DropValues,
    /// The dice meeting the point count minus their value (Foundry's `sf`).
    SubtractFailures,
    /// Count the even dice (Foundry's `even`).
    CountEven,
    /// Count the odd dice (Foundry's `odd`).
    CountOdd,
    /// Roll N more dice and drop the N lowest before anything else (Dice Maiden's `advN`).
    Advantage,
    /// Roll N more dice and drop the N highest before anything else (Dice Maiden's `disN`).
    Disadvantage,
    /// Mark the dice in sets of matching values (Roll20's `m`); `total`: the result is the number of
    /// sets (`mt`). A number after it is the smallest set, a compare point the values that may match.
    Match { total: bool },
    /// Roll a die again while its value is taken by an earlier die (rpg-dice-roller's `u`); `once`:
    /// at most once (`uo`). A compare point after it limits the values that must be unique.
    Unique { once: bool },
    /// Dice Maiden's `ds`: the dice meeting the point count a second success (`t7ds10`).
    DoubleSuccess,
    /// Avrae's `rol`, `roh`, `rrl`, `rrh`, `ral`, `rah`: reroll once (until, and add) the lowest
    /// (`highest`) N dice of the roll, picked by their rank, not their value.
    RerollRanked { reroll: RankedReroll, highest: bool },
    /// Avrae's `ra` with a value: of the dice meeting it, at most one (the first) rolls one more die.
    RerollAndAdd,
    /// A construct of the source that Omen cannot compute yet: refused with this explanation.
    Unsupported(&'static str),
}

/// How Avrae's rerolls by rank (`rol`, `rrl`, `ral`) treat the dice they pick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankedReroll {
    /// `ro`: each picked die is rolled again once, the new roll replacing it.
    Once,
    /// `rr`: the picked dice are rolled again until none is picked.
    Until,
    /// `ra`: one picked die rolls one more die, kept beside it.
    AndAdd,
}

/// What `//` is in a dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlashSlash {
    /// A comment to the end of the line (Omen, Roll20, Foundry, …).
    Comment,
    /// Division rounding down (Avrae).
    FloorDivision,
}

/// How keep/drop and compare points after a group with one member apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupOfOne {
    /// To the member's total (Omen): `{3d6}kh1` is the total of 3d6.
    Member,
    /// To the member's individual dice (Roll20): `{4d6+3d8}kh1` is the highest single die.
    Dice,
}

/// A notation: the table of modifier words and the switches where sources disagree.
#[derive(Debug, PartialEq, Eq)]
pub struct Dialect {
    /// The name given to `--dialect`.
    pub name: &'static str,
    /// The roller whose documented meaning the dialect follows.
    pub source: &'static str,
    /// Modifier words, longest first so that `kh` is never read as `k` then `h`.
    pub words: &'static [(&'static str, Word)],
    /// Whether `>N` and `<N` compare points include N (Roll20).
    pub inclusive_points: bool,
    /// Whether whitespace ends a dice term, so that `3d6 > 2d10` compares totals (Omen).
    pub whitespace_ends_dice: bool,
    /// What `//` is.
    pub slash_slash: SlashSlash,
    /// How a group with one member applies keep/drop and compare points.
    pub group_of_one: GroupOfOne,
    /// Whether text after a complete expression is a comment (`1d20+5 Roll for Initiative`).
    pub trailing_text: bool,
    /// Whether `!` followed by a space starts a comment (Dice Maiden's `! comment`).
    pub bang_comment: bool,
    /// Whether the parser warns where another popular dialect reads the input differently (Omen).
    pub warn_other_readings: bool,
    /// Whether the dialect has coins (Foundry's `dc`: 0 or 1).
    pub coin: bool,
    /// Whether a compare operator straight after dice is a point counting dice (`3d6>=5`); else it
    /// compares totals (Avrae).
    pub dice_compare_points: bool,
    /// Whether a bare number after a modifier is a threshold (Dice Maiden: `t7` counts 7 or more, `f1`
    /// and `r2` take 1 or less and 2 or less); else it means equal.
    pub bare_points_are_thresholds: bool,
    /// Whether arithmetic runs strictly left to right, `*` and `/` no tighter than `+` (Dice Maiden).
    pub left_to_right: bool,
    /// Whether `/` keeps the fraction (Roll20, Foundry, Avrae, rpg-dice-roller): then `/` reads as Omen's
    /// `div(a, b)` and a decimal such as `1.5` as the exact fraction `div(3, 2)`.
    pub keeps_fractions: bool,
    /// Whether a parenthesised list with modifiers glued on is a set kept or counted like a group
    /// (Avrae's `(1d4 + 1, 3, 2d6kl1)kh1`).
    pub paren_sets: bool,
    /// Whether `<>` after a modifier is a not-equal compare point (`2d6!<>4`, `4d6r<>3`), as
    /// rpg-dice-roller documents; Omen takes it too so that such points have a spelling. Straight after
    /// dice `<>` stays an error in every dialect: there `3d6<>10` may mean the total.
    pub not_equal_points: bool,
    /// Whether a number before a compare point after a reroll or explosion caps how many times the
    /// whole term applies it (Foundry's `20d20r1=1` rerolls a single 1).
    pub capped_counts: bool,
    /// Whether several explosions on one term run one after another, each over every die so far
    /// (Foundry's `5d10x9x10`), rather than being one explosion.
    pub explosions_in_turn: bool,
    /// Whether several keep and drop selectors on one term select together, the union of what each
    /// selects (Avrae's `kh1kl1` keeps the highest and the lowest die), and operations apply in the order
    /// written, each to the dice still kept (d20's `4d6kh3ro1` rerolls kept dice only).
    pub selectors_unite: bool,
    /// Whether a reroll or explosion written after a keep or drop touches the kept dice only, the
    /// new dice joining the kept ones (d20's `4d6kh3ro1`; Foundry's `3d6kh2r1`, whose reroll skips
    /// the dice the keep made inactive), rather than running before the keep as Omen's steps do.
    pub steps_touch_kept: bool,
    /// Whether `/* … */` is a comment (rpg-dice-roller).
    pub block_comments: bool,
    /// Whether `[[…]]` is an inline roll whose total stands where it is written (Roll20's
    /// `[[2d6]]d5`), read as parentheses.
    pub inline_rolls: bool,
    /// Whether numbers follow avrae/d20's grammar: a unary `+` (`1d20 + +2`), a decimal without its
    /// leading digit (`.5`), a comparison counting 1 or 0 in arithmetic (`1 + (2 == 2)`), `d%` as the
    /// tens die of a percentile roll (0, 10, …, 90), and a tuple without modifiers as a set, its total.
    pub d20_numbers: bool,
    /// Whether a dice term whose operations cannot take Omen's fixed order without another meaning
    /// (two rerolls, clamps or explosions; one joined from several; an explosion by rank) runs them
    /// in turn, each on the dice kept so far, as Avrae's d20 does (`avrae("…")`).
    pub in_turn: bool,
    /// Whether Dice Maiden's game aliases glued to a count (`4cod`, `3wh4+`) stand for their dice term,
    /// and its display flags may stand before the roll (`p 4d6`).
    pub game_aliases: bool,
    /// The chat commands a roll may start with, pasted as it is typed in the source's chat (`/roll
    /// 1d20+5`, Avrae's `!r 1d20`): read and dropped, since they only say who sees the roll.
    pub chat_commands: &'static [&'static str],
}

impl Default for &'static Dialect {
    fn default() -> Self {
        &OMEN
    }
}

const OMEN_WORDS: &[(&str, Word)] = &[
    ("min", Word::ClampMin),
    ("max", Word::ClampMax),
    ("cs", Word::CriticalSuccess),
    ("cf", Word::CriticalFailure),
    ("sa", Word::Sort { descending: false }),
    ("sd", Word::Sort { descending: true }),
    ("mt", Word::Match { total: true }),
    ("uo", Word::Unique { once: true }),
    ("kh", Word::KeepHighest),
    ("kl", Word::KeepLowest),
    ("km", Word::KeepMiddle),
    ("dh", Word::DropHighest),
    ("dl", Word::DropLowest),
    ("ro", Word::RerollOnce),
    ("rr", Word::RerollRecursive),
    ("k", Word::KeepHighest),
    ("d", Word::DropLowest),
    ("r", Word::RerollRecursive),
    ("f", Word::Failure),
    ("m", Word::Match { total: false }),
    ("u", Word::Unique { once: false }),
];

/// Omen's own notation, the default: whitespace ends a dice term, and every form another popular
/// dialect reads differently gets a warning naming the other reading.
pub static OMEN: Dialect = Dialect {
    name: "omen",
    source: "Omen",
    words: OMEN_WORDS,
    inclusive_points: false,
    whitespace_ends_dice: true,
    slash_slash: SlashSlash::Comment,
    group_of_one: GroupOfOne::Member,
    trailing_text: false,
    bang_comment: false,
    warn_other_readings: true,
    coin: false,
    dice_compare_points: true,
    bare_points_are_thresholds: false,
    left_to_right: false,
    keeps_fractions: false,
    paren_sets: false,
    not_equal_points: true,
    capped_counts: false,
    explosions_in_turn: false,
    selectors_unite: false,
    steps_touch_kept: false,
    block_comments: false,
    inline_rolls: false,
    d20_numbers: false,
    in_turn: false,
    game_aliases: false,
    chat_commands: &[],
};

/// Roll20's Dice Reference: `>N`/`<N` include N, `r` rerolls while the point holds, a group of one member
/// keeps and counts that member's dice, `cs`/`cf` mark criticals, `s`/`sa`/`sd` sort (display only),
/// `m`/`mt` mark or count sets of matching dice.
pub static ROLL20: Dialect = Dialect {
    name: "roll20",
    source: "Roll20 Dice Reference",
    words: &[
        ("min", Word::ClampMin),
        ("max", Word::ClampMax),
        ("kh", Word::KeepHighest),
        ("kl", Word::KeepLowest),
        ("dh", Word::DropHighest),
        ("dl", Word::DropLowest),
        ("ro", Word::RerollOnce),
        ("rr", Word::RerollRecursive),
        ("cs", Word::CriticalSuccess),
        ("cf", Word::CriticalFailure),
        ("sa", Word::Sort { descending: false }),
        ("sd", Word::Sort { descending: true }),
        ("mt", Word::Match { total: true }),
        ("k", Word::KeepHighest),
        ("d", Word::DropLowest),
        ("r", Word::RerollRecursive),
        ("f", Word::Failure),
        ("s", Word::Sort { descending: false }),
        ("m", Word::Match { total: false }),
    ],
    inclusive_points: true,
    whitespace_ends_dice: false,
    slash_slash: SlashSlash::Comment,
    group_of_one: GroupOfOne::Dice,
    trailing_text: true,
    bang_comment: false,
    warn_other_readings: false,
    coin: false,
    dice_compare_points: true,
    bare_points_are_thresholds: false,
    left_to_right: false,
    keeps_fractions: true,
    paren_sets: false,
    not_equal_points: false,
    capped_counts: false,
    explosions_in_turn: false,
    selectors_unite: false,
    steps_touch_kept: false,
    block_comments: false,
    inline_rolls: true,
    d20_numbers: false,
    in_turn: false,
    game_aliases: false,
    chat_commands: &["/roll", "/r", "/gmroll", "/gr"],
};

/// Foundry VTT's dice modifiers: `r` rerolls once, `x`/`xo` explode, `cs`/`cf` count successes or
/// failures, `df` deducts failures, `ms` is the margin of success, `dc` is a coin.
pub static FOUNDRY: Dialect = Dialect {
    name: "foundry",
    source: "Foundry VTT dice modifiers",
    words: &[
        ("min", Word::ClampMin),
        ("max", Word::ClampMax),
        ("xo", Word::ExplodeOnce),
        ("kh", Word::KeepHighest),
        ("kl", Word::KeepLowest),
        ("dh", Word::DropHighest),
        ("dl", Word::DropLowest),
        ("rr", Word::RerollRecursive),
        ("cs", Word::CountSuccessesOrHighest),
        ("cf", Word::CountFailuresOrLowest),
        ("df", Word::FailureOrLowest),
        ("sf", Word::SubtractFailures),
        ("even", Word::CountEven),
        ("odd", Word::CountOdd),
        ("ms", Word::MarginOfSuccess),
        ("k", Word::KeepHighest),
        ("d", Word::DropLowest),
        ("r", Word::RerollOnce),
        ("x", Word::Explode),
    ],
    inclusive_points: false,
    whitespace_ends_dice: false,
    slash_slash: SlashSlash::Comment,
    group_of_one: GroupOfOne::Member,
    trailing_text: false,
    bang_comment: false,
    warn_other_readings: false,
    coin: true,
    dice_compare_points: true,
    bare_points_are_thresholds: false,
    left_to_right: false,
    keeps_fractions: true,
    paren_sets: false,
    not_equal_points: false,
    capped_counts: true,
    explosions_in_turn: true,
    selectors_unite: false,
    steps_touch_kept: true,
    block_comments: false,
    inline_rolls: false,
    d20_numbers: false,
    in_turn: false,
    game_aliases: false,
    chat_commands: &[
        "/roll",
        "/r",
        "/gmroll",
        "/gmr",
        "/blindroll",
        "/broll",
        "/br",
        "/selfroll",
        "/sr",
        "/publicroll",
        "/pr",
    ],
};

const fn ranked(reroll: RankedReroll, highest: bool) -> Word {
    Word::RerollRanked { reroll, highest }
}

/// Avrae's d20 notation: `//` divides rounding down, `e` explodes, `mi`/`ma` clamp, `p` drops,
/// `ro`/`rr` reroll, `ra` rerolls and adds.
pub static AVRAE: Dialect = Dialect {
    name: "avrae",
    source: "avrae/d20",
    words: &[
        ("kh", Word::KeepHighest),
        ("kl", Word::KeepLowest),
        ("ph", Word::DropHighest),
        ("pl", Word::DropLowest),
        ("mi", Word::ClampMin),
        ("ma", Word::ClampMax),
        ("rol", ranked(RankedReroll::Once, false)),
        ("roh", ranked(RankedReroll::Once, true)),
        ("rrl", ranked(RankedReroll::Until, false)),
        ("rrh", ranked(RankedReroll::Until, true)),
        ("ral", ranked(RankedReroll::AndAdd, false)),
        ("rah", ranked(RankedReroll::AndAdd, true)),
        ("ro", Word::RerollOnce),
        ("rr", Word::RerollRecursive),
        ("ra", Word::RerollAndAdd),
        ("e", Word::Explode),
        ("k", Word::KeepValues),
        ("p", Word::DropValues),
    ],
    inclusive_points: false,
    whitespace_ends_dice: false,
    slash_slash: SlashSlash::FloorDivision,
    group_of_one: GroupOfOne::Member,
    trailing_text: true,
    bang_comment: false,
    warn_other_readings: false,
    coin: false,
    dice_compare_points: false,
    bare_points_are_thresholds: false,
    left_to_right: false,
    keeps_fractions: true,
    paren_sets: true,
    not_equal_points: false,
    capped_counts: false,
    explosions_in_turn: false,
    selectors_unite: true,
    steps_touch_kept: true,
    block_comments: false,
    inline_rolls: false,
    d20_numbers: true,
    in_turn: true,
    game_aliases: false,
    chat_commands: &["!roll", "!r"],
};

/// rpg-dice-roller: like Roll20 but with strict compare points, `!p`/`!!p` penetration, unique
/// rerolls and sorting.
pub static RPG_DICE_ROLLER: Dialect = Dialect {
    name: "rpg-dice-roller",
    source: "rpg-dice-roller",
    words: &[
        ("min", Word::ClampMin),
        ("max", Word::ClampMax),
        ("kh", Word::KeepHighest),
        ("kl", Word::KeepLowest),
        ("dh", Word::DropHighest),
        ("dl", Word::DropLowest),
        ("ro", Word::RerollOnce),
        ("rr", Word::RerollRecursive),
        ("cs", Word::CriticalSuccess),
        ("cf", Word::CriticalFailure),
        ("sa", Word::Sort { descending: false }),
        ("sd", Word::Sort { descending: true }),
        ("uo", Word::Unique { once: true }),
        ("k", Word::KeepHighest),
        ("d", Word::DropLowest),
        ("r", Word::RerollRecursive),
        ("f", Word::Failure),
        ("s", Word::Sort { descending: false }),
        ("u", Word::Unique { once: false }),
    ],
    inclusive_points: false,
    whitespace_ends_dice: false,
    slash_slash: SlashSlash::Comment,
    group_of_one: GroupOfOne::Dice,
    trailing_text: false,
    bang_comment: false,
    warn_other_readings: false,
    coin: false,
    dice_compare_points: true,
    bare_points_are_thresholds: false,
    left_to_right: false,
    keeps_fractions: true,
    paren_sets: false,
    not_equal_points: true,
    capped_counts: false,
    explosions_in_turn: false,
    selectors_unite: false,
    steps_touch_kept: false,
    block_comments: true,
    inline_rolls: false,
    d20_numbers: false,
    in_turn: false,
    game_aliases: false,
    chat_commands: &[],
};

/// Dice Maiden: letter modifiers may stand apart (`6d10 t7`), `t` counts dice at or above a target,
/// `e` explodes at or above a value, `r` rerolls once at or below a value, `! comment` ends the roll.
pub static DICE_MAIDEN: Dialect = Dialect {
    name: "dice-maiden",
    source: "Dice Maiden",
    words: &[
        ("adv", Word::Advantage),
        ("dis", Word::Disadvantage),
        ("irg", Word::RerollRecursiveAtLeast),
        ("ie", Word::Explode),
        ("ir", Word::RerollRecursive),
        ("ds", Word::DoubleSuccess),
        ("kl", Word::KeepLowest),
        ("km", Word::KeepMiddle),
        ("nr", Word::DisplayOnly(false)),
        ("rg", Word::RerollOnceAtLeast),
        ("tl", Word::CountSuccessesAtMost),
        ("ul", Word::DisplayOnly(false)),
        ("t", Word::CountSuccesses),
        ("f", Word::Failure),
        ("e", Word::ExplodeOnce),
        ("r", Word::RerollOnce),
        ("k", Word::KeepHighest),
        ("d", Word::DropLowest),
        ("b", Word::Botch),
        ("s", Word::DisplayOnly(false)),
        ("p", Word::DisplayOnly(false)),
    ],
    inclusive_points: false,
    whitespace_ends_dice: false,
    slash_slash: SlashSlash::Comment,
    group_of_one: GroupOfOne::Member,
    trailing_text: false,
    bang_comment: true,
    warn_other_readings: false,
    coin: false,
    dice_compare_points: false,
    bare_points_are_thresholds: true,
    left_to_right: true,
    keeps_fractions: false,
    paren_sets: false,
    not_equal_points: false,
    capped_counts: false,
    explosions_in_turn: false,
    selectors_unite: false,
    steps_touch_kept: false,
    block_comments: false,
    inline_rolls: false,
    d20_numbers: false,
    in_turn: false,
    game_aliases: true,
    chat_commands: &["/roll", "/r"],
};

/// Every dialect, the default first.
pub static DIALECTS: [&Dialect; 6] = [
    &OMEN,
    &ROLL20,
    &FOUNDRY,
    &AVRAE,
    &RPG_DICE_ROLLER,
    &DICE_MAIDEN,
];

impl Dialect {
    /// The dialect called `name` (as given to `--dialect`), ignoring case.
    pub fn named(name: &str) -> Option<&'static Dialect> {
        DIALECTS
            .iter()
            .copied()
            .find(|d| d.name.eq_ignore_ascii_case(name.trim()))
    }

    /// The names of every dialect, the default first.
    pub fn names() -> impl Iterator<Item = &'static str> {
        DIALECTS.iter().map(|d| d.name)
    }

    /// The longest modifier word at the start of `word` (ignoring case) and its length in bytes.
    pub fn word(&self, word: &str) -> Option<(Word, usize)> {
        self.words.iter().find_map(|&(text, meaning)| {
            let prefix = word.get(..text.len())?;
            prefix
                .eq_ignore_ascii_case(text)
                .then_some((meaning, text.len()))
        })
    }

    /// Whether `word` splits into modifier words from start to end, taking the longest each time.
    pub fn is_modifier_run(&self, word: &str) -> bool {
        let mut rest = word;
        while !rest.is_empty() {
            match self.word(rest) {
                Some((_, len)) => rest = &rest[len..],
                None => return false,
            }
        }
        true
    }

    /// Whether `word` is a modifier word of Dice Maiden's spaced kind in this dialect.
    pub fn spaced_modifiers(&self) -> bool {
        self.bang_comment
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_ignoring_case() {
        let names: Vec<_> = Dialect::names().collect();
        assert_eq!(
            names,
            [
                "omen",
                "roll20",
                "foundry",
                "avrae",
                "rpg-dice-roller",
                "dice-maiden"
            ]
        );
        for name in names {
            assert_eq!(
                Dialect::named(&name.to_uppercase()).map(|d| d.name),
                Some(name)
            );
        }
        assert!(Dialect::named("icepool").is_none());
    }

    #[test]
    fn word_tables_put_longer_words_first() {
        for dialect in DIALECTS {
            for (i, (a, _)) in dialect.words.iter().enumerate() {
                for (b, _) in &dialect.words[i + 1..] {
                    assert!(
                        !(b.len() > a.len() && b.starts_with(a)),
                        "{}: `{b}` after `{a}` is never reached",
                        dialect.name
                    );
                }
            }
        }
    }

    #[test]
    fn omen_words_match_the_lexer_keywords() {
        for word in [
            "khk", "minmax", "dlro", "rrf", "d", "KHkl", "mt", "uo", "m", "u",
        ] {
            assert!(OMEN.is_modifier_run(word), "{word}");
        }
        for word in ["fire", "abs", "khx", "mx"] {
            assert!(!OMEN.is_modifier_run(word), "{word}");
        }
    }
}
