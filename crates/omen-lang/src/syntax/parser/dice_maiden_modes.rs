//! Dice Maiden's roll modes and roll sets, written before the roll: `wng [dnN] 4d6` (Wrath & Glory),
//! `dh 4d10` (Dark Heresy), `gb 8d8` (Godbound), and `6 4d6` (six sets of 4d6). Dice Maiden reads
//! them off the start of the message before the roll (`check_roll_modes`, `roll_sets_valid`), so
//! Omen reads them there too, as the roll they stand for. Switched on by [`Dialect::game_aliases`].

use super::Parser;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    CompareOp, ComparePoint, DiceExpr, Expr, ExprKind, FaceItem, Modifier, PointValue, PoolExpr,
    PoolMember, Sides, Spanned,
};
use crate::syntax::lexer::{Token, TokenKind};

#[cfg(doc)]
use crate::syntax::dialect::Dialect;

/// The fewest and most sets Dice Maiden rolls ("sets can be 2-20").
const SETS: std::ops::RangeInclusive<i64> = 2..=20;

/// Wrath & Glory's score of a d6: 4 and 5 are an icon, 6 an exalted icon worth two.
const ICONS: [i64; 6] = [0, 0, 0, 1, 1, 2];

/// The roll modes Dice Maiden reads before the roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `wng`, with the difficulty of `dnN` when given.
    WrathAndGlory(Option<i64>),
    /// `dh`: Righteous Fury on a 10.
    DarkHeresy,
    /// `gb`: Godbound's damage chart.
    Godbound,
}

/// The sum of `count` rolls of `roll`, each a roll of its own: a pool of the sets, summed, so the
/// transcript shows every set ("Results Total" is what Dice Maiden adds up).
pub(super) fn sets_total(count: i64, roll: Expr, at: Span) -> Expr {
    let roll = Expr::new(ExprKind::Paren(Box::new(roll)), at);
    let member = PoolMember::Repeat {
        count: Expr::new(ExprKind::Number(count), at),
        roll,
    };
    let pool = Expr::new(
        ExprKind::Pool(Box::new(PoolExpr::Dice(vec![Spanned::new(member, at)]))),
        at,
    );
    Expr::new(
        ExprKind::Call(Spanned::new("sum".to_string(), at), vec![pool]),
        at,
    )
}

/// The most rolls one Dice Maiden message takes, separated by `;`.
const MAX_ROLLS: usize = 4;

impl Parser<'_> {
    /// The roll, with Dice Maiden's mode and sets before it when the dialect has them. Dice Maiden
    /// takes up to four rolls separated by `;` in one message (`4d100; 3d10 k2`), each with its
    /// own mode and sets: they read as a tuple of their results.
    pub(super) fn parse_roll(&mut self) -> Expr {
        if !self.dialect.game_aliases {
            return self.parse_expr();
        }
        let first = self.parse_one_roll();
        let mut rolls = vec![first];
        while self.peek().kind == TokenKind::Semicolon {
            let semicolon = self.bump();
            if self.peek().kind == TokenKind::Eof {
                // The bot splits on `;` and drops an empty last roll.
                break;
            }
            if rolls.len() == MAX_ROLLS {
                self.report(
                    Diagnostic::error(
                        "too-many-rolls",
                        semicolon.span,
                        format!(
                            "Dice Maiden takes at most {MAX_ROLLS} rolls separated by `;` in one \
                             message, and ignores the rest"
                        ),
                    )
                    .with_help("send the rest in another message"),
                );
            }
            rolls.push(self.parse_one_roll());
        }
        if rolls.len() == 1 {
            return rolls
                .pop()
                .unwrap_or_else(|| Expr::new(ExprKind::Error, Span::new(0, 0)));
        }
        let at = rolls[0].span.to(rolls[rolls.len() - 1].span);
        Expr::new(ExprKind::Tuple(rolls), at)
    }

    /// One roll of a Dice Maiden message, with its mode and sets.
    fn parse_one_roll(&mut self) -> Expr {
        self.find_universal_modifiers();
        let start = self.peek().span.start;
        // Display flags may come first (`p 6 4d6`); Dice Maiden takes them off before the sets.
        self.skip_leading_flags();
        let mode = self.roll_mode();
        self.skip_leading_flags();
        let sets = self.roll_sets();
        let mode = match mode {
            Some(Mode::WrathAndGlory(None)) => Some(Mode::WrathAndGlory(self.difficulty())),
            other => other,
        };
        let roll = self.parse_expr();
        let at = Span::new(start, self.prev_end.max(start));
        let roll = match mode {
            None => roll,
            Some(Mode::WrathAndGlory(difficulty)) => self.wrath_and_glory(roll, difficulty, at),
            Some(Mode::DarkHeresy) => righteous_fury(roll),
            Some(Mode::Godbound) => self.godbound(roll, at),
        };
        match sets {
            None => roll,
            Some((_, sets_at)) if matches!(mode, Some(Mode::WrathAndGlory(_) | Mode::Godbound)) => {
                self.report(
                    Diagnostic::error(
                        "unsupported-modifier",
                        sets_at,
                        "Dice Maiden rolls the wrath die and Godbound's chart once for a whole message, \
                         not once per set, so sets with `wng` or `gb` are not read",
                    )
                    .with_help("roll the sets one by one, e.g. `wng 4d6`"),
                );
                roll
            }
            Some((count, _)) => sets_total(count, roll, at),
        }
    }

    /// The word at the current token when it stands apart before more of the roll.
    fn word_apart(&self) -> Option<(String, Token)> {
        let token = self.peek();
        let next = self.tokens.get(self.pos + 1).copied()?;
        (token.kind == TokenKind::Word
            && next.span.start > token.span.end
            && matches!(
                next.kind,
                TokenKind::Number | TokenKind::Word | TokenKind::LParen
            ))
        .then(|| (self.text(token.span).to_ascii_lowercase(), token))
    }

    /// `wng`, `dh` or `gb` standing apart at the start of the roll, taken.
    fn roll_mode(&mut self) -> Option<Mode> {
        let (word, _) = self.word_apart()?;
        let mode = match word.as_str() {
            "wng" => Mode::WrathAndGlory(None),
            "dh" => Mode::DarkHeresy,
            "gb" => Mode::Godbound,
            _ => return None,
        };
        self.bump();
        Some(mode)
    }

    /// `dnN` glued, standing apart before the roll: Wrath & Glory's difficulty number, taken.
    fn difficulty(&mut self) -> Option<i64> {
        let (word, token) = self.word_apart().or_else(|| {
            let token = self.peek();
            (token.kind == TokenKind::Word)
                .then(|| (self.text(token.span).to_ascii_lowercase(), token))
        })?;
        let number = self.tokens.get(self.pos + 1).copied()?;
        let after = self.tokens.get(self.pos + 2).copied()?;
        if word != "dn"
            || number.kind != TokenKind::Number
            || number.span.start != token.span.end
            || after.span.start == number.span.end
        {
            return None;
        }
        let value = self.text(number.span).parse::<i64>().ok()?;
        self.bump();
        self.bump();
        Some(value)
    }

    /// `6 4d6`: a whole number standing apart before more of the roll is the number of sets, taken
    /// with its span. Out of Dice Maiden's range it is an error, as there.
    fn roll_sets(&mut self) -> Option<(i64, Span)> {
        let token = self.peek();
        let next = self.tokens.get(self.pos + 1).copied()?;
        if token.kind != TokenKind::Number
            || next.span.start == token.span.end
            || !matches!(
                next.kind,
                TokenKind::Number | TokenKind::Word | TokenKind::LParen
            )
        {
            return None;
        }
        let count = self.text(token.span).parse::<i64>().ok();
        self.bump();
        match count {
            Some(count) if SETS.contains(&count) => Some((count, token.span)),
            _ => {
                self.report(
                    Diagnostic::error(
                        "sets-out-of-range",
                        token.span,
                        format!(
                            "`{}` before the roll is Dice Maiden's number of sets, which is 2 to 20",
                            self.text(token.span)
                        ),
                    )
                    .with_help("roll 2 to 20 sets, e.g. `6 4d6`; for one roll leave the number out"),
                );
                None
            }
        }
    }

    /// `wng 4d6`: Dice Maiden replaces the roll by its last dice term's count of d6s, one of them the
    /// wrath die, and adds up icons: 4 and 5 count 1, a 6 (an exalted icon) 2, on the wrath die too.
    /// With `dnN` the result is whether the icons reach N. `wng 1d6` is the wrath die's face alone.
    /// Only a pool of d6s with nothing else (what the bot rolls instead of the rest is not the roll).
    fn wrath_and_glory(&mut self, roll: Expr, difficulty: Option<i64>, at: Span) -> Expr {
        let count = match &roll.node {
            ExprKind::Dice(dice) if dice.modifiers.is_empty() && has_sides(dice, 6) => {
                match &dice.count {
                    None => Some(1),
                    Some(Expr {
                        node: ExprKind::Number(n),
                        ..
                    }) => Some(*n),
                    Some(_) => None,
                }
            }
            _ => None,
        };
        let Some(count) = count else {
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    roll.span,
                    "Dice Maiden's `wng` takes a pool of d6s with nothing else, `wng 4d6`: the bot \
                     rolls that many d6s in place of the whole roll and counts icons",
                )
                .with_help("write the pool alone, e.g. `wng dn3 5d6`"),
            );
            return roll;
        };
        if count == 1 {
            return roll;
        }
        let faces = ICONS
            .iter()
            .map(|&f| Spanned::new(FaceItem::Face(f), roll.span))
            .collect();
        let icons = Expr::new(
            ExprKind::Dice(Box::new(DiceExpr {
                count: Some(Expr::new(ExprKind::Number(count), roll.span)),
                sides: Spanned::new(Sides::Custom(faces), roll.span),
                modifiers: Vec::new(),
            })),
            roll.span,
        );
        match difficulty {
            None => icons,
            Some(dn) => Expr::new(
                ExprKind::Compare(
                    CompareOp::Ge,
                    Box::new(Expr::new(ExprKind::Paren(Box::new(icons)), at)),
                    Box::new(Expr::new(ExprKind::Number(dn), at)),
                ),
                at,
            ),
        }
    }
}

impl Parser<'_> {
    /// `gb 8d8`, `gb 1d12+4`: Godbound's damage chart (1 or less: 0, 2 to 5: 1, 6 to 9: 2, 10 or
    /// more: 4). As Dice Maiden does it, the first dice term of more than one die counts each die by
    /// the chart and the rest of the roll adds up as written; a roll with no such term counts its
    /// total by the chart. Dice Maiden shows no result for a total below 1, read here as 0.
    fn godbound(&mut self, mut roll: Expr, at: Span) -> Expr {
        let mut refusal = None;
        let mut converted = false;
        for dice in dice_terms(&mut roll) {
            let count = match &dice.count {
                None => 1,
                Some(Expr {
                    node: ExprKind::Number(n),
                    ..
                }) => *n,
                Some(count) => {
                    refusal = Some((count.span, "a rolled count"));
                    break;
                }
            };
            if count <= 1 {
                continue;
            }
            let faces = match &dice.sides.node {
                Sides::Number(Expr {
                    node: ExprKind::Number(n),
                    ..
                }) if (1..=1000).contains(n) && dice.modifiers.is_empty() => *n,
                _ => {
                    refusal = Some((
                        dice.sides.span,
                        "modifiers or sides not written as a number",
                    ));
                    break;
                }
            };
            let span = dice.sides.span;
            let chart = (1..=faces)
                .map(|f| Spanned::new(FaceItem::Face(godbound_damage(f)), span))
                .collect();
            dice.sides = Spanned::new(Sides::Custom(chart), span);
            converted = true;
            break;
        }
        if let Some((span, what)) = refusal {
            self.report(
                Diagnostic::error(
                    "unsupported-modifier",
                    span,
                    format!("Godbound's damage chart (`gb`) is read on plain dice terms, not with {what}"),
                )
                .with_help("write the dice with a number of sides and no modifiers, e.g. `gb 3d8+2`"),
            );
            return roll;
        }
        if converted {
            return roll;
        }
        let name = Spanned::new("gb_total".to_string(), at);
        let total = || Box::new(Expr::new(ExprKind::Var(name.node.clone()), at));
        let number = |n| Box::new(Expr::new(ExprKind::Number(n), at));
        let chart = [(10, 4), (6, 2), (2, 1)].into_iter().rev().fold(
            Expr::new(ExprKind::Number(0), at),
            |otherwise, (from, damage)| {
                let reached =
                    Expr::new(ExprKind::Compare(CompareOp::Ge, total(), number(from)), at);
                Expr::new(
                    ExprKind::If(Box::new(reached), number(damage), Box::new(otherwise)),
                    at,
                )
            },
        );
        Expr::new(ExprKind::LetIn(name, Box::new(roll), Box::new(chart)), at)
    }
}

/// Godbound's damage chart for one die or total.
fn godbound_damage(value: i64) -> i64 {
    match value {
        10.. => 4,
        6..=9 => 2,
        2..=5 => 1,
        _ => 0,
    }
}

fn has_sides(dice: &DiceExpr, sides: i64) -> bool {
    matches!(&dice.sides.node, Sides::Number(Expr { node: ExprKind::Number(n), .. }) if *n == sides)
}

/// The dice terms of a roll's arithmetic (through `+ - * /`, parentheses and signs), left to right.
pub(super) fn dice_terms(expr: &mut Expr) -> Vec<&mut DiceExpr> {
    let mut out = Vec::new();
    let mut stack = vec![expr];
    while let Some(expr) = stack.pop() {
        match &mut expr.node {
            ExprKind::Dice(dice) => out.push(&mut **dice),
            ExprKind::Binary(_, left, right) => {
                stack.push(right);
                stack.push(left);
            }
            ExprKind::Paren(inner) | ExprKind::Neg(inner) => stack.push(inner),
            _ => {}
        }
    }
    out
}

/// `dh 4d10`: Dark Heresy's Righteous Fury, announced when a d10 shows 10: the roll is the same, and
/// each d10 term marks its 10s as critical successes, so the transcript shows them and `omen prob`
/// gives the chance of Righteous Fury.
fn righteous_fury(mut roll: Expr) -> Expr {
    for dice in dice_terms(&mut roll) {
        if has_sides(dice, 10) {
            let at = dice.sides.span;
            let point = ComparePoint {
                op: CompareOp::Eq,
                value: PointValue::Int(10),
            };
            let mark = Modifier::Critical {
                failure: false,
                point: Some(point),
            };
            dice.modifiers.push(Spanned::new(mark, at));
        }
    }
    roll
}
