//! Dice Maiden's aliases that stand alone rather than after a count: `sr6`, `sp4`, `snm5`, `dd34`,
//! `age`, `attack`/`skill`/`save`, `dndstats`, `d6s4`, Earthdawn's steps (`ed5`, `ed4e15`), and advantage as a sign before a die (`+d20`, `-d%`).
//! Dice Maiden rewrites each into a roll before reading it (its alias table); Omen builds the same roll
//! as a syntax tree, so the reading shows it. Switched on by [`Dialect::game_aliases`].

use super::Parser;
use super::dice_maiden_hero::exalted_die;
use super::dice_maiden_modes::sets_total;
use super::pieces::at_least;
use super::pieces::shorten;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{BinOp, DiceExpr, Expr, ExprKind, KeepWhich, Modifier, Sides, Spanned};
use crate::syntax::lexer::{Token, TokenKind};

#[cfg(doc)]
use crate::syntax::dialect::Dialect;

/// `count` dice of `sides` sides with `modifiers`, all spanning `at`.
pub(super) fn dice(count: i64, sides: Sides, modifiers: Vec<Modifier>, at: Span) -> Expr {
    Expr::new(
        ExprKind::Dice(Box::new(DiceExpr {
            count: Some(Expr::new(ExprKind::Number(count), at)),
            sides: Spanned::new(sides, at),
            modifiers: modifiers.into_iter().map(|m| Spanned::new(m, at)).collect(),
        })),
        at,
    )
}

pub(super) fn sides(n: i64, at: Span) -> Sides {
    Sides::Number(Expr::new(ExprKind::Number(n), at))
}

/// Dice Maiden's `ie` (on the highest face when `None`, else at or above the value).
pub(super) fn explode(point: Option<i64>) -> Modifier {
    Modifier::Explode {
        compound: false,
        point: point.map(at_least),
        once: false,
        penetrate: false,
    }
}

pub(super) fn binary(op: BinOp, left: Expr, right: Expr, at: Span) -> Expr {
    let paren = |e: Expr| Expr::new(ExprKind::Paren(Box::new(e)), at);
    Expr::new(
        ExprKind::Binary(op, Box::new(paren(left)), Box::new(right)),
        at,
    )
}

/// `dndstats`: Dice Maiden's alias for six sets of `4d6 k3` (the ability scores of D&D), whose result
/// is the sets' total ("Results Total"), as `6 4d6 k3` reads.
fn ability_scores(at: Span) -> Expr {
    let keep = Modifier::Keep {
        which: KeepWhich::KeepHighest,
        count: 3,
    };
    sets_total(6, dice(4, sides(6, at), vec![keep], at), at)
}

impl Parser<'_> {
    /// The token after the current one, when it touches it.
    fn glued_after(&self, token: Token) -> Option<Token> {
        self.tokens
            .get(self.pos + 1)
            .copied()
            .filter(|n| n.span.start == token.span.end)
    }

    /// The token `offset` places ahead when it is of `kind` and starts at `end`.
    pub(super) fn glued_after_at(
        &self,
        offset: usize,
        end: usize,
        kind: TokenKind,
    ) -> Option<Token> {
        self.tokens
            .get(self.pos + offset)
            .copied()
            .filter(|t| t.kind == kind && t.span.start == end)
    }

    /// Whether the token `offset` places ahead leaves the word that ends at `end`: Dice Maiden's
    /// aliases end at a word boundary (`sr6` but not `sr6x`).
    pub(super) fn ends_word(&self, offset: usize, end: usize) -> bool {
        self.tokens.get(self.pos + offset).is_none_or(|t| {
            t.span.start != end || !matches!(t.kind, TokenKind::Word | TokenKind::Number)
        })
    }

    /// An alias standing alone as an operand, or `None` (consuming nothing).
    pub(super) fn word_alias(&mut self) -> Option<Expr> {
        let word = self.peek();
        if !self.dialect.game_aliases || word.kind != TokenKind::Word {
            return None;
        }
        let text = self.text(word.span).to_ascii_lowercase();
        let number = self
            .glued_after(word)
            .filter(|n| n.kind == TokenKind::Number)
            .and_then(|n| Some((self.text(n.span).parse::<i64>().ok()?, n)));
        let (expr, tokens) = match (text.as_str(), number) {
            ("attack" | "skill" | "save", None) if self.ends_word(1, word.span.end) => {
                (dice(1, sides(20, word.span), Vec::new(), word.span), 1)
            }
            ("dndstats", None) if self.ends_word(1, word.span.end) => {
                (ability_scores(word.span), 1)
            }
            ("age", None) if self.ends_word(1, word.span.end) => {
                let at = word.span;
                let drama = dice(1, sides(6, at), Vec::new(), at);
                (
                    binary(BinOp::Add, dice(2, sides(6, at), Vec::new(), at), drama, at),
                    1,
                )
            }
            (game @ ("sr" | "sp" | "snm"), Some((count, n))) if self.ends_word(2, n.span.end) => {
                let at = word.span.to(n.span);
                let (faces, modifiers) = match game {
                    // Shadowrun: successes on 5 or 6.
                    "sr" => (6, vec![Modifier::Success(at_least(5))]),
                    // Storypath: 10s explode, successes on 8 or more.
                    "sp" => (10, vec![explode(Some(10)), Modifier::Success(at_least(8))]),
                    // Sunsails: New Millennium: 6s explode, successes on 4 or more.
                    _ => (6, vec![explode(Some(6)), Modifier::Success(at_least(4))]),
                };
                (dice(count, sides(faces, at), modifiers, at), 2)
            }
            ("ex", Some((count, n))) => {
                // `exN` is `Nd10 t7 t10`; `exNtT` is `Nd10 tT t10`.
                let t = self.glued_after_at(2, n.span.end, TokenKind::Word);
                let target = t
                    .filter(|t| self.text(t.span).eq_ignore_ascii_case("t"))
                    .and_then(|t| self.glued_after_at(3, t.span.end, TokenKind::Number))
                    .and_then(|v| Some((self.text(v.span).parse::<i64>().ok()?, v)));
                let (target, end, tokens) = match target {
                    Some((target, v)) => (target, v.span.end, 4),
                    None => (7, n.span.end, 2),
                };
                if !self.ends_word(tokens, end) {
                    return self.d6_system(word);
                }
                let at = Span::new(word.span.start, end);
                let die = exalted_die(target, at);
                (dice(count, die.node, Vec::new(), at), tokens)
            }
            ("ed", Some(_)) => match self.earthdawn_step() {
                Some(step) => step,
                None => return self.d6_system(word),
            },
            ("dd", Some((_, n))) if n.span.len() == 2 && self.ends_word(2, n.span.end) => {
                // One die for each digit: `dd34` is `(1d3 * 10) + 1d4`.
                let at = word.span.to(n.span);
                let digits = self.text(n.span).as_bytes();
                let (tens, ones) = (i64::from(digits[0] - b'0'), i64::from(digits[1] - b'0'));
                let tens = binary(
                    BinOp::Mul,
                    dice(1, sides(tens, at), Vec::new(), at),
                    Expr::new(ExprKind::Number(10), at),
                    at,
                );
                (
                    binary(
                        BinOp::Add,
                        tens,
                        dice(1, sides(ones, at), Vec::new(), at),
                        at,
                    ),
                    2,
                )
            }
            _ => return self.d6_system(word),
        };
        for _ in 0..tokens {
            self.bump();
        }
        Some(expr)
    }

    /// The D6 System: `d6s4` is `4d6 + 1d6 ie` (a wild die that explodes), `d6s` one exploding d6.
    /// Read before the `d6` would start a dice term whose `s` is display only.
    fn d6_system(&mut self, word: Token) -> Option<Expr> {
        let six = self.glued_after(word)?;
        let s = self.tokens.get(self.pos + 2).copied()?;
        if !self.text(word.span).eq_ignore_ascii_case("d")
            || self.text(six.span) != "6"
            || s.span.start != six.span.end
            || !self.text(s.span).eq_ignore_ascii_case("s")
        {
            return None;
        }
        let count = self
            .tokens
            .get(self.pos + 3)
            .copied()
            .filter(|n| n.kind == TokenKind::Number && n.span.start == s.span.end);
        let end = count.map_or(s.span.end, |n| n.span.end);
        if !self.ends_word(3 + usize::from(count.is_some()), end) {
            return None;
        }
        let at = Span::new(word.span.start, end);
        let wild = dice(1, sides(6, at), vec![explode(None)], at);
        let expr = match count {
            Some(n) => {
                let count = self.text(n.span).parse::<i64>().ok()?;
                binary(
                    BinOp::Add,
                    dice(count, sides(6, at), Vec::new(), at),
                    wild,
                    at,
                )
            }
            None => wild,
        };
        for _ in 0..3 + usize::from(count.is_some()) {
            self.bump();
        }
        Some(expr)
    }

    /// `+d20` (advantage: `2d20 d1`), `-d20` (disadvantage: `2d20 kl1`), `+d%` and `-d%` (the tens
    /// die of a percentile roll with advantage, for roll-under systems: `((2d10kl1-1)*10)+1d10`,
    /// and with disadvantage `k1`), as Dice Maiden's alias table writes them. Only a sign standing
    /// as an operand's start, glued to a bare die that ends there; warns, since a reader may take
    /// `-d20` for minus a d20.
    pub(super) fn advantage_alias(&mut self) -> Option<Expr> {
        let sign = self.peek();
        if !self.dialect.game_aliases || !matches!(sign.kind, TokenKind::Plus | TokenKind::Minus) {
            return None;
        }
        let d = self
            .glued_after(sign)
            .filter(|t| t.kind == TokenKind::Word)?;
        let size = self.tokens.get(self.pos + 2).copied()?;
        if !self.text(d.span).eq_ignore_ascii_case("d")
            || size.span.start != d.span.end
            || !matches!(size.kind, TokenKind::Number | TokenKind::Percent)
            || !self.ends_word(3, size.span.end)
        {
            return None;
        }
        let advantage = sign.kind == TokenKind::Plus;
        let at = sign.span.to(size.span);
        let expr = if size.kind == TokenKind::Percent {
            let (which, count) = if advantage {
                (KeepWhich::KeepLowest, 1)
            } else {
                (KeepWhich::KeepHighest, 1)
            };
            let tens = dice(2, sides(10, at), vec![Modifier::Keep { which, count }], at);
            let tens = binary(BinOp::Sub, tens, Expr::new(ExprKind::Number(1), at), at);
            let tens = binary(BinOp::Mul, tens, Expr::new(ExprKind::Number(10), at), at);
            binary(BinOp::Add, tens, dice(1, sides(10, at), Vec::new(), at), at)
        } else {
            let faces = self.text(size.span).parse::<i64>().ok()?;
            let which = if advantage {
                KeepWhich::DropLowest
            } else {
                KeepWhich::KeepLowest
            };
            let keep = Modifier::Keep { which, count: 1 };
            dice(2, sides(faces, at), vec![keep], at)
        };
        for _ in 0..3 {
            self.bump();
        }
        let written = shorten(self.text(at));
        self.warnings.push(
            Diagnostic::warning(
                "sign-before-die-is-advantage",
                at,
                format!(
                    "`{written}` is Dice Maiden's {} alias, two dice keeping the {}; not {} a die",
                    if advantage {
                        "advantage"
                    } else {
                        "disadvantage"
                    },
                    if advantage { "higher" } else { "lower" },
                    if advantage { "plus" } else { "minus" },
                ),
            )
            .with_help("to add or subtract one die, write its count, e.g. `1d20 - 1d4`"),
        );
        Some(expr)
    }
}

impl Parser<'_> {
    /// `1d20 -d4`: a sign after a space glued to a bare die. Dice Maiden's alias table takes `-d4` there
    /// for its disadvantage alias (its pattern needs no word before the sign), where the roll reads as
    /// minus a d4: warns, naming the alias. Called with the operator just taken.
    pub(super) fn warn_spaced_sign_die(&mut self, sign: Token) {
        if !self.dialect.game_aliases || !matches!(sign.kind, TokenKind::Plus | TokenKind::Minus) {
            return;
        }
        let before = self.source[..sign.span.start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return;
        }
        let d = self.peek();
        let Some(size) = self.tokens.get(self.pos + 1).copied() else {
            return;
        };
        if d.kind != TokenKind::Word
            || d.span.start != sign.span.end
            || !self.text(d.span).eq_ignore_ascii_case("d")
            || size.span.start != d.span.end
            || !matches!(size.kind, TokenKind::Number | TokenKind::Percent)
            || !self.ends_word(2, size.span.end)
        {
            return;
        }
        let at = sign.span.to(size.span);
        let written = shorten(self.text(at));
        let alias = if sign.kind == TokenKind::Plus {
            "advantage"
        } else {
            "disadvantage"
        };
        self.warnings.push(
            Diagnostic::warning(
                "sign-before-die-is-advantage",
                at,
                format!(
                    "`{written}` reads as {} a die; Dice Maiden's alias table takes `{written}` after a \
                     space for its {alias} alias (two dice keeping one)",
                    if sign.kind == TokenKind::Plus { "plus" } else { "minus" }
                ),
            )
            .with_help("write the count to say it plainly, e.g. `1d20 - 1d4`"),
        );
    }
}
