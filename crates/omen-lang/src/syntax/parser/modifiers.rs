//! A dice term's modifiers: the run after the sides, explosions, and compare points with their warnings.

use super::pieces::{Point, compare_op, shorten};
use super::{Keyword, Parser, SUCCESS_HELP};
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{CompareOp, ComparePoint, Modifier, PointValue, Sides, Spanned};
use crate::syntax::lexer::{Token, TokenKind};

impl<'s> Parser<'s> {
    /// Modifiers after a dice term or group, in the order written. Each step consumes at least one token (or
    /// part of a word), so the loop ends.
    pub(super) fn parse_modifiers(&mut self) -> Vec<Spanned<Modifier>> {
        let mut modifiers = self.parse_modifiers_written();
        if self.dialect.name == "foundry" {
            if let Some(at) = super::clamps::foundry_clamps_before_steps(&mut modifiers) {
                self.refuse_reroll_after_clamp(at);
            }
            super::first_roll::steps_shape_first_roll(&mut modifiers);
        }
        modifiers
    }

    /// Foundry's clamps then a reroll alone, read as one die listing its faces with their weights
    /// (see clamps.rs), or refused with why.
    pub(super) fn read_clamped_reroll(
        &mut self,
        read: Result<Vec<i64>, String>,
        sides: &mut Spanned<Sides>,
        modifiers: &mut Vec<Spanned<Modifier>>,
    ) {
        match read {
            Ok(faces) => super::clamps::relabel(sides, modifiers, faces),
            Err(why) => {
                let at = modifiers[0].span.to(modifiers[modifiers.len() - 1].span);
                self.report(
                    Diagnostic::error(
                        "unsupported-modifier",
                        at,
                        format!(
                            "`{}` in the {} dialect: a clamp then a reroll is read on the die's \
                             faces; {why}",
                            shorten(self.text(at)),
                            self.dialect.name
                        ),
                    )
                    .with_help(
                        "write the reroll before the clamp, e.g. `3d6r1min2`, if that is the rule",
                    ),
                );
            }
        }
    }

    /// Foundry's reroll after a clamp with more modifiers (`3d6min2r1kh2`) compares the face shown
    /// and rolls a die the clamp never touches (see clamps.rs): not computed yet, refused rather
    /// than clamped twice.
    fn refuse_reroll_after_clamp(&mut self, at: Span) {
        self.report(
            Diagnostic::error(
                "unsupported-modifier",
                at,
                format!(
                    "`{}` in the {} dialect: a clamp sets what a die counts and the reroll after it \
                     compares the face shown and rolls a die the clamp never touches, which is not \
                     computed yet",
                    shorten(self.text(at)),
                    self.dialect.name
                ),
            )
            .with_help("write the reroll before the clamp, e.g. `3d6r1min2`, if that is the rule"),
        );
    }

    /// [`Self::parse_modifiers`] as written.
    fn parse_modifiers_written(&mut self) -> Vec<Spanned<Modifier>> {
        let mut modifiers = Vec::new();
        self.after_name_point = false;
        loop {
            let token = self.peek();
            let start = token.span.start;
            let mut plain = None;
            self.spaced_modifier = false;
            if token.span.start != self.prev_end && !self.modifier_may_stand_apart(token) {
                return modifiers;
            }
            self.after_name_point = false;
            let modifier = match token.kind {
                TokenKind::Bang => self.parse_explode(&mut plain),
                // `then`, `and`, …: the dice term is over.
                TokenKind::Word if self.keyword(token).is_some_and(Keyword::ends_operand) => {
                    return modifiers;
                }
                // A word on the next line of an item whose `;` is missing: the item is over.
                TokenKind::Word
                    if self.ends_item_here(token) && !self.is_modifier_run(token.span, 0) =>
                {
                    return modifiers;
                }
                TokenKind::Word => self.parse_word_modifier(),
                kind => match compare_op(kind) {
                    Some(op) if self.dialect.dice_compare_points => {
                        let op_token = self.bump();
                        let op = self.point_op(op, op_token.span, "counts the dice");
                        let value = self.parse_point_value(op_token, Some(SUCCESS_HELP));
                        self.warn_point(op, value.as_ref(), op_token.span, "counts the dice");
                        value.map(|value| Modifier::Success(ComparePoint { op, value }))
                    }
                    _ => return modifiers,
                },
            };
            if let Some(modifier) = modifier {
                modifiers.push(Spanned::new(modifier, Span::new(start, self.prev_end)));
                if let Some(at) = plain {
                    modifiers.push(Spanned::new(Modifier::PlainAdded, at));
                }
            }
        }
    }

    /// Whether a modifier may follow its dice term after whitespace. In Omen's notation whitespace ends a
    /// dice term, so a modifier word or `!` standing apart is an error (reported here, and read as a
    /// modifier so that parsing goes on); a compare operator standing apart compares totals.
    pub(super) fn modifier_may_stand_apart(&mut self, token: Token) -> bool {
        let modifier_word = token.kind == TokenKind::Word
            && self.keyword(token).is_none()
            && self.is_modifier_run(token.span, 0)
            && !self.ends_item_here(token)
            && self
                .tokens
                .get(self.pos + 1)
                .is_none_or(|next| next.kind != TokenKind::LParen);
        let bang = token.kind == TokenKind::Bang && self.peek_compare().is_none();
        if self.dialect.whitespace_ends_dice {
            // After a point written with a name (`>=dv f<=1`) the next word cannot touch it, or it would
            // be part of the name.
            if modifier_word && self.after_name_point {
                return true;
            }
            if modifier_word || bang {
                self.spaced_modifier = true;
                let written = shorten(self.text(token.span));
                let dice = shorten(self.source[..self.prev_end].trim_start());
                self.report(
                    Diagnostic::error(
                        "spaced-modifier",
                        token.span,
                        format!("`{written}` stands apart from its dice: whitespace ends a dice term"),
                    )
                    .with_help(format!(
                        "write the modifier against the dice, e.g. `{dice}{written}…`; a compare operator \
                         with spaces around it compares totals, e.g. `3d6 > 2d10`"
                    )),
                );
                return true;
            }
            return false;
        }
        if self.dialect.trailing_text || self.dialect.spaced_modifiers() {
            return modifier_word || bang || compare_op(token.kind).is_some();
        }
        true
    }

    /// A compare operator as the dialect means it: Roll20's `>3` includes 3.
    pub(super) fn point_op(&self, op: CompareOp, _at: Span, _what: &str) -> CompareOp {
        match (self.dialect.inclusive_points, op) {
            (true, CompareOp::Gt) => CompareOp::Ge,
            (true, CompareOp::Lt) => CompareOp::Le,
            _ => op,
        }
    }

    /// In Omen's notation, warns that Roll20 reads a strict point `>3` as including 3.
    pub(super) fn warn_point(
        &mut self,
        op: CompareOp,
        value: Option<&PointValue>,
        at: Span,
        what: &str,
    ) {
        if !self.dialect.warn_other_readings || !matches!(op, CompareOp::Gt | CompareOp::Lt) {
            return;
        }
        let (word, other, symbol) = match op {
            CompareOp::Gt => ("above", "or more", ">"),
            _ => ("below", "or less", "<"),
        };
        let (written, help) = match value {
            Some(PointValue::Int(n)) => {
                let strict = if op == CompareOp::Gt {
                    format!(">={}", n.saturating_add(1))
                } else {
                    format!("<={}", n.saturating_sub(1))
                };
                (
                    format!("{symbol}{n}"),
                    format!("write `{strict}` for this reading, or `{symbol}={n}` for Roll20's",),
                )
            }
            Some(PointValue::Name(name)) => (
                format!("{symbol}{}", shorten(&name.node)),
                format!(
                    "write `{symbol}=` to include `{}` as Roll20 does",
                    shorten(&name.node)
                ),
            ),
            Some(PointValue::Faces(_)) | None => return,
        };
        let value_text = written.trim_start_matches(symbol).to_string();
        let span = Span::new(at.start, self.prev_end);
        self.warnings.push(
            Diagnostic::warning(
                "point-differs-in-roll20",
                span,
                format!(
                    "`{written}` {what} {word} {value_text}; in Roll20 `{written}` means {value_text} {other}"
                ),
            )
            .with_help(help),
        );
    }

    /// In Omen's notation, warns that Roll20 and Foundry have no not-equal point: after a modifier they
    /// end the dice term at `<>` and compare the total, so `0+d4!<>1` is `(0+d4!) != 1` there.
    pub(super) fn warn_not_equal_point(&mut self, op: Span) {
        if !self.dialect.warn_other_readings {
            return;
        }
        let (op_text, value) = (
            self.text(op),
            shorten(self.text(Span::new(op.end, self.prev_end))),
        );
        self.warnings.push(
            Diagnostic::warning(
                "not-equal-point-differs-in-roll20",
                Span::new(op.start, self.prev_end),
                format!(
                    "`{op_text}{value}` is a compare point here: the dice whose face is not {value}; \
                     Roll20 and Foundry have no not-equal point and compare the total with `{op_text}`"
                ),
            )
            .with_help(format!(
                "to compare the total, put the sum in parentheses: `(…) {op_text} {value}`"
            )),
        );
    }

    /// `!`, `!!`, `!o`, `!p`, …; `plain` is set to where an `a` was written (`!a`, `!oa`, `!pa`).
    pub(super) fn parse_explode(&mut self, plain: &mut Option<Span>) -> Option<Modifier> {
        let bang = self.bump();
        let compound = self.eat(TokenKind::Bang).is_some();
        // `!p`, `!!p`: penetrating. A `p` that does not start a run of modifier words is a name.
        let penetrate = self.word_starts_with(self.peek(), b'p')
            && self.peek().span.start == self.prev_end
            && self.explode_rest_is_run(self.peek().span, 1);
        if penetrate {
            self.take_word_prefix(1);
        }
        // `!o`: explode once. Not after `!!`: a compounded die that stops after one extra is `!o` too.
        let once = !compound
            && !penetrate
            && self.word_starts_with(self.peek(), b'o')
            && self.peek().span.start == self.prev_end
            && self.explode_rest_is_run(self.peek().span, 1);
        if once {
            self.take_word_prefix(1);
        }
        // `!a` (Omen's notation): the dice the explosion adds are plain dice.
        // Also after `!!`, for the checker to say that it is not computed yet.
        if self.dialect.name == "omen"
            && self.word_starts_with(self.peek(), b'a')
            && self.peek().span.start == self.prev_end
            && self.is_modifier_run(self.peek().span, 1)
        {
            let at = self.peek().span.start;
            self.take_word_prefix(1);
            *plain = Some(Span::new(at, at + 1));
        }
        let point = match self.parse_point_signed(false, false) {
            Point::Absent => None,
            Point::Present(point) => Some(point),
            Point::Invalid => return None,
        };
        if point.is_none() {
            self.warn_glued_minus(bang.span);
        }
        if let Some(point) = &point {
            self.warn_point(
                point.op,
                Some(&point.value),
                Span::new(bang.span.end, bang.span.end),
                "explodes the dice",
            );
        }
        Some(Modifier::Explode {
            compound,
            point,
            once,
            penetrate,
        })
    }

    /// Whether the word at `span` is a run of modifier words from `skip` on, where in Omen's notation
    /// an `a` may come first (`!oa`, `!pa`: the `a` of [`Modifier::PlainAdded`]).
    fn explode_rest_is_run(&self, span: Span, skip: usize) -> bool {
        let a = self.source.as_bytes().get(span.start + skip);
        self.is_modifier_run(span, skip)
            || (self.dialect.name == "omen"
                && a.is_some_and(|c| c.eq_ignore_ascii_case(&b'a'))
                && self.is_modifier_run(span, skip + 1))
    }

    /// In Omen's notation, warns that `dF!-1` explodes and then subtracts, where `ro-1` would be a point.
    pub(super) fn warn_glued_minus(&mut self, bang: Span) {
        let token = self.peek();
        let digits = self.tokens.get(self.pos + 1).copied();
        if !self.dialect.warn_other_readings
            || token.kind != TokenKind::Minus
            || token.span.start != self.prev_end
            || digits.is_none_or(|d| d.kind != TokenKind::Number || d.span.start != token.span.end)
        {
            return;
        }
        let number = self.text(digits.map_or(token.span, |d| d.span)).to_string();
        self.warnings.push(
            Diagnostic::warning(
                "explode-then-subtract",
                Span::new(bang.start, token.span.end + number.len()),
                format!(
                    "`!-{number}` explodes on the highest face and then subtracts {number}; it does not explode on -{number}"
                ),
            )
            .with_help(format!(
                "to explode on -{number} write `!=-{number}`; to subtract, put spaces around the minus: `! - {number}`"
            )),
        );
    }

    /// A compare point (`>=5`, or a bare `5` meaning `=5`, or a bare `-1` touching the modifier) if one
    /// starts here. `threshold` is the comparison a bare number means where the dialect reads bare numbers
    /// as thresholds (Dice Maiden).
    pub(super) fn parse_point(&mut self, at_most: bool) -> Point {
        self.parse_point_signed(at_most, true)
    }

    /// [`Self::parse_point`], taking a bare negative number only when `negative` (not after `!`, where
    /// every roller reads `1d6!-1` as a subtraction).
    pub(super) fn parse_point_signed(&mut self, at_most: bool, negative: bool) -> Point {
        let token = self.peek();
        // Where whitespace ends a dice term, a point touches its modifier: in `1d20! >= 10` the `>=`
        // compares the total, as in `1d20 >= 10`.
        if self.dialect.whitespace_ends_dice && token.span.start != self.prev_end {
            return Point::Absent;
        }
        let not_equal =
            (token.kind == TokenKind::Ne && self.dialect.not_equal_points).then_some(CompareOp::Ne);
        if let Some(op) = compare_op(token.kind).or(not_equal) {
            self.bump();
            let op = self.point_op(op, token.span, "");
            let value = self.parse_point_value(token, None);
            if not_equal.is_some() && value.is_some() {
                self.warn_not_equal_point(token.span);
            }
            return match value {
                Some(value) => Point::Present(ComparePoint { op, value }),
                None => Point::Invalid,
            };
        }
        let bare_op = match (self.dialect.bare_points_are_thresholds, at_most) {
            (false, _) => CompareOp::Eq,
            (true, false) => CompareOp::Ge,
            (true, true) => CompareOp::Le,
        };
        if token.kind == TokenKind::Number {
            self.bump();
            return match self.int_value(token.span, false, token.span) {
                Some(value) => Point::Present(ComparePoint {
                    op: bare_op,
                    value: PointValue::Int(value),
                }),
                None => Point::Invalid,
            };
        }
        // `ro-1`, `f-1`: a negative point touching its modifier, as in `min-1`.
        let digits = self.tokens.get(self.pos + 1).copied();
        if negative
            && token.kind == TokenKind::Minus
            && token.span.start == self.prev_end
            && let Some(digits) = digits
            && digits.kind == TokenKind::Number
            && digits.span.start == token.span.end
        {
            self.bump();
            self.bump();
            return match self.int_value(digits.span, true, token.span.to(digits.span)) {
                Some(value) => Point::Present(ComparePoint {
                    op: bare_op,
                    value: PointValue::Int(value),
                }),
                None => Point::Invalid,
            };
        }
        Point::Absent
    }

    /// The value after the compare operator `op` of a compare point: a number, or a name (`>=dv`). A bare
    /// point without an operator (`ro1`) takes numbers only, so that letters glued on stay modifiers.
    pub(super) fn parse_point_value(
        &mut self,
        op: Token,
        help: Option<&str>,
    ) -> Option<PointValue> {
        if let Some(value) = self.inline_roll_point() {
            return value;
        }
        let token = self.peek();
        if token.kind == TokenKind::Word
            && self.keyword(token).is_none()
            && !self.is_dice_start(token)
        {
            let name = self.take_name();
            self.after_name_point = true;
            return Some(PointValue::Name(name));
        }
        let expected = format!("a number or a name after `{}`", self.text(op.span));
        self.parse_int(&expected, help).map(PointValue::Int)
    }

    /// A compare point that must follow `keyword` (`ro`, `rr`, `r`, `f`, `cs`, …). A reroll without one
    /// rerolls the lowest face, when the die is known.
    pub(super) fn parse_required_point(
        &mut self,
        keyword: Span,
        reroll: bool,
        at_most: bool,
    ) -> Option<ComparePoint> {
        if reroll && let Some(set) = self.parse_face_set() {
            return set;
        }
        match self.parse_point(at_most) {
            Point::Present(point) => Some(point),
            Point::Invalid => None,
            Point::Absent if reroll && self.lowest_face.is_some() => Some(ComparePoint {
                op: CompareOp::Eq,
                value: PointValue::Int(self.lowest_face.unwrap_or(1)),
            }),
            Point::Absent => {
                let written = self.text(keyword);
                let expected = format!("a number or a compare point after `{written}`");
                let mut diagnostic = self.unexpected(self.peek(), &expected);
                diagnostic.kind = "expected-number";
                self.report(
                    diagnostic
                        .with_help(format!("e.g. `{written}1` (equal to 1) or `{written}<=2`")),
                );
                None
            }
        }
    }
}

/// How a term's first roll could be rerolled alone: the modifiers of `{die}{steps}{explosion}` read
/// as a script whose calls each roll one die (None where the term has more than that to say).
struct FirstRollOnly<'a> {
    die: &'a str,
    steps: &'a str,
    condition: String,
    tail: String,
}

impl FirstRollOnly<'_> {
    fn script(&self, count: &str) -> String {
        let calls = match count.trim() {
            "" | "1" => "die()".to_string(),
            n @ ("2" | "3" | "4") => vec!["die()"; n.parse().unwrap_or(1)].join(" + "),
            _ => "die() + die() + … (one call per die)".to_string(),
        };
        format!(
            "fn die() = let f = {}{} in if f {} then f + {} else f; {calls}",
            self.die, self.steps, self.condition, self.tail
        )
    }
}

impl Parser<'_> {
    /// In Omen's notation, warns that a reroll written before an explosion (`3d6ro1!`, `d10rr1!`)
    /// rerolls every roll of the chain, the dice the explosion adds too, where a player (and Foundry,
    /// which applies its modifiers in the order written) may mean the first roll only. The help
    /// spells that other reading as a script, and names the order that decides the explosion on the
    /// roll before the reroll.
    pub(super) fn warn_reroll_before_explosion(
        &mut self,
        modifiers: &[Spanned<Modifier>],
        die_start: usize,
        count: &str,
        highest: Option<i64>,
    ) {
        if !self.dialect.warn_other_readings {
            return;
        }
        let Some(at) = modifiers
            .iter()
            .position(|m| matches!(m.node, Modifier::Explode { .. }))
        else {
            return;
        };
        // `!a` is the first-roll-only reading itself.
        if modifiers
            .get(at + 1)
            .is_some_and(|m| m.node == Modifier::PlainAdded)
        {
            return;
        }
        let is_reroll = |m: &Spanned<Modifier>| {
            matches!(
                m.node,
                Modifier::RerollOnce(_) | Modifier::RerollRecursive(_)
            )
        };
        let Some(first) = modifiers[..at].iter().find(|m| is_reroll(m)) else {
            return;
        };
        let explosion = &modifiers[at];
        let source = self.source;
        let steps = &source[modifiers[0].span.start..explosion.span.start];
        let rerolls = &source[first.span.start..explosion.span.start];
        let bang = &source[explosion.span.start..explosion.span.end];
        let die = &source[die_start..modifiers[0].span.start];
        let per_roll = modifiers[..at].iter().all(|m| {
            is_reroll(m) || matches!(m.node, Modifier::ClampMin(_) | Modifier::ClampMax(_))
        });
        let alone = per_roll && at + 1 == modifiers.len();
        let plain = plain_added_spelling(source, modifiers, at, die_start, count);
        let script = first_roll_only(&explosion.node, die, steps, bang, highest)
            .filter(|_| alone)
            .map(|found| found.script(count));
        let other = match (plain, script) {
            (Some(plain), Some(script)) => format!(
                "to reroll the first roll only, mark the added dice plain with `a` after `!`: \
                 `{plain}` (or, per die, a function: `{script}`)"
            ),
            (Some(plain), None) => format!(
                "to reroll the first roll only, mark the added dice plain with `a` after `!`: \
                 `{plain}`"
            ),
            (None, Some(script)) => format!(
                "to reroll the first roll only, roll each die through a function: `{script}`"
            ),
            (None, None) => "to reroll the first roll only, roll each die through a function \
                             that rerolls its first roll and adds a plain exploding die when that \
                             roll explodes (see \"Explosions\" in docs/language.md)"
                .to_string(),
        };
        let shown = shorten(rerolls);
        // The steps before the first reroll (a clamp) stay where they were written.
        let kept = &source[modifiers[0].span.start..first.span.start];
        self.warnings.push(
            Diagnostic::warning(
                "reroll-before-explosion",
                Span::new(first.span.start, explosion.span.end),
                format!(
                    "`{shown}` before `{bang}` rerolls every roll of the chain, the dice the explosion \
                     adds as well as the first, and the explosion is decided after the reroll; it is \
                     not a reroll of the first roll only (as Foundry reads a reroll before `x`)"
                ),
            )
            .with_help(format!(
                "{other}; to reroll every roll but decide the explosion on the face before the \
                 reroll, write the reroll after it: `{count}{die}{kept}{bang}{shown}`"
            )),
        );
    }
}

/// `{count}{die}…!a…`: the term as written with `a` after its explosion (and its `o` or `p`), the
/// dice the explosion adds plain; None where `!a` is refused (compounding, keep or drop, critical
/// marks).
fn plain_added_spelling(
    source: &str,
    modifiers: &[Spanned<Modifier>],
    at: usize,
    die_start: usize,
    count: &str,
) -> Option<String> {
    let explosion = &modifiers[at];
    let refused = modifiers.iter().any(|m| {
        matches!(
            m.node,
            Modifier::Explode { compound: true, .. }
                | Modifier::Keep { .. }
                | Modifier::KeepEnds { .. }
                | Modifier::Critical { .. }
        )
    });
    if refused {
        return None;
    }
    let bang = &source[explosion.span.start..explosion.span.end];
    let letters = bang[1..]
        .bytes()
        .take_while(|c| matches!(c.to_ascii_lowercase(), b'o' | b'p'))
        .count();
    let split = explosion.span.start + 1 + letters;
    let end = modifiers.last().map_or(explosion.span.end, |m| m.span.end);
    Some(format!(
        "{}{}a{}",
        count.trim(),
        &source[die_start..split],
        &source[split..end]
    ))
}

/// The pieces of the first-roll-only script for one explosion, or None where its condition cannot be
/// written (an explosion on the highest face of dice whose sides are rolled).
fn first_roll_only<'a>(
    explosion: &Modifier,
    die: &'a str,
    steps: &'a str,
    bang: &str,
    highest: Option<i64>,
) -> Option<FirstRollOnly<'a>> {
    let &Modifier::Explode {
        ref point,
        once,
        penetrate,
        ..
    } = explosion
    else {
        return None;
    };
    let condition = match point {
        None => format!("= {}", highest?),
        Some(ComparePoint { op, value }) => {
            let value = match value {
                PointValue::Int(n) => n.to_string(),
                PointValue::Name(name) => name.node.clone(),
                PointValue::Faces(_) => return None,
            };
            let symbol = match op {
                CompareOp::Ge => ">=",
                CompareOp::Gt => ">",
                CompareOp::Le => "<=",
                CompareOp::Lt => "<",
                CompareOp::Eq => "=",
                CompareOp::Ne => "!=",
            };
            format!("{symbol} {value}")
        }
    };
    // The rolls after the first are plain dice exploding as written: once (`!o`) is one more die;
    // penetrating ones (`!p`) each count one less, the first of them included.
    let tail = if once {
        die.to_string()
    } else if penetrate {
        format!("({die}{bang} - 1)")
    } else {
        format!("{die}{bang}")
    };
    Some(FirstRollOnly {
        die,
        steps,
        condition,
        tail,
    })
}
