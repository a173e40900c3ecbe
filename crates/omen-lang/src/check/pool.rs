//! Checking pools and their readings: `let p = pool 8d6;` then `count(p, >=5)`, `sum(p)`, ….
//!
//! A pool bound by `let` collects every reading the rest of the script takes of it; each use
//! becomes the matching member of the pool's tuple, labelled with the reading as written so that
//! the roll's transcript names it. A pool is only ever read: used as a number, passed to a
//! function or left unbound, it is an error that shows how to read it.

use omen_core::Keep;
use omen_core::symbols::genesys_die;

use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::pool::{PoolBinding, READINGS, die_size, member_size};
use crate::program::{
    Node, NodeKind, PoolMember, PoolNode, PoolSource, ReadingKind, ReadingNode, SidesNode, Type,
};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind, PoolExpr, Spanned};
use crate::value::Value;

const READ_HELP: &str = "read a pool with `count(p, >=5)`, `sum(p)`, `highest(p, 2)`, \
    `lowest(p)`, `nth(p, 3)`, `highest_count(p)`, `distinct(p)`, `width(p)`, `height(p)`, `run(p)`, \
    `raises(p, 10)`, `symbols(p)`, `effect(p, 2)`, `score(p, f)` or your own \
    `fold(p, step, start)`";

impl Checker<'_> {
    pub(super) fn refuse<T>(&mut self, d: Diagnostic) -> Option<T> {
        self.errors.push(d);
        None
    }

    /// The value of `let name = value`: a pool is checked as one and remembered for its readings.
    #[inline(never)]
    pub(super) fn let_value(&mut self, value: &Expr) -> Option<Node> {
        match &value.node {
            ExprKind::Pool(pool) => self.pool(value.span, pool),
            ExprKind::Call(name, args)
                if name.node == "reroll" && self.function_index("reroll").is_none() =>
            {
                self.reroll_pool(value.span, args)
            }
            _ => self.expr(value),
        }
    }

    /// After `bind` gave the name its slot: remembers a pool bound there.
    #[inline(never)]
    pub(super) fn bind_pool(&mut self, slot: usize, value: &Option<Node>) {
        if let Some(Node {
            kind: NodeKind::Pool(pool),
            ..
        }) = value
        {
            self.pools.push(PoolBinding {
                slot,
                symbols: matches!(pool.source, PoolSource::Symbols(_)),
                dice: kinds(pool),
                sized: sized(pool),
                readings: Vec::new(),
            });
        }
    }

    /// When the pool bound at `slot` goes out of scope: gives its node the readings taken of it.
    #[inline(never)]
    pub(super) fn finish_pool(&mut self, slot: usize, value: &mut Option<Node>) {
        let Some(Node {
            kind: NodeKind::Pool(pool),
            ..
        }) = value
        else {
            return;
        };
        if let Some(i) = self.pools.iter().rposition(|b| b.slot == slot) {
            pool.readings = self.pools.remove(i).readings;
        }
    }

    /// Whether `slot` holds a pool.
    pub(super) fn pool_at(&self, slot: usize) -> bool {
        self.pools.iter().any(|b| b.slot == slot)
    }

    #[inline(never)]
    pub(super) fn pool_used_as_value(&mut self, span: Span, name: &str) -> Option<Node> {
        self.error(
            Diagnostic::error(
                "pool-not-read",
                span,
                format!("`{name}` is a pool of dice; it has no value until it is read"),
            )
            .with_help(READ_HELP),
        )
    }

    /// A compare point outside a reading's arguments.
    #[inline(never)]
    pub(super) fn stray_point(&mut self, span: Span) -> Option<Node> {
        self.error(
            Diagnostic::error(
                "bad-point",
                span,
                "a compare point on its own is an argument of `count`, e.g. `count(p, >=5)`",
            )
            .with_help("to compare two values, write both sides, e.g. `(3d6) >= 10`"),
        )
    }

    /// A pool written where it is neither bound nor read.
    #[inline(never)]
    pub(super) fn unbound_pool(&mut self, span: Span) -> Option<Node> {
        self.error(
            Diagnostic::error(
                "pool-not-read",
                span,
                "a pool has no value until it is read",
            )
            .with_help(format!(
                "bind it and read it, e.g. `let p = pool 8d6; (count(p, >=5), count(p, 1))`, or \
                 read it in place: `sum(pool {{d8, d6}})`; {READ_HELP}"
            )),
        )
    }

    /// `name(pool, …)` where the first argument is a pool: `Some` with the reading's node (or
    /// `None` after an error); `None` when this is not a reading, for the other calls to try.
    #[inline(never)]
    pub(super) fn reading_call(
        &mut self,
        span: Span,
        name: &Spanned<String>,
        args: &[Expr],
    ) -> Option<Option<Node>> {
        let reading = READINGS.iter().find(|r| r.0 == name.node);
        let first = args.first();
        let bound = match first.map(|a| &a.node) {
            Some(ExprKind::Var(var)) => self.lookup(var).filter(|&s| self.pool_at(s)),
            _ => None,
        };
        let inline = matches!(first.map(|a| &a.node), Some(ExprKind::Pool(_)));
        if bound.is_none() && !inline {
            if reading.is_some() && self.function_index(&name.node).is_none() {
                return Some(
                    self.error(
                        Diagnostic::error(
                            "not-a-pool",
                            span,
                            format!(
                                "`{}` reads a pool, and its first argument is none",
                                name.node
                            ),
                        )
                        .with_help(format!(
                            "bind the dice as a pool first, e.g. `let p = pool 8d6; {}(p…)`",
                            name.node
                        )),
                    ),
                );
            }
            return None;
        }
        let Some(&(_, kind, least, most)) = reading else {
            return Some(
                self.error(
                    Diagnostic::error(
                        "unknown-reading",
                        name.span,
                        format!("`{}` is no reading of a pool", name.node),
                    )
                    .with_help(READ_HELP),
                ),
            );
        };
        let rest = &args[1..];
        if rest.len() < least || rest.len() > most {
            let want = if least == most {
                format!("{least}")
            } else {
                format!("{least} or {most}")
            };
            return Some(self.error(Diagnostic::error(
                "wrong-arguments",
                span,
                format!(
                    "`{}` takes the pool and {want} more argument(s), got {}",
                    name.node,
                    rest.len()
                ),
            )));
        }
        Some(self.reading(span, kind, rest, bound, &args[0]))
    }

    /// The reading's node: a member of the bound pool's tuple, or of a pool read in place.
    fn reading(
        &mut self,
        span: Span,
        kind: ReadingKind,
        rest: &[Expr],
        bound: Option<usize>,
        first: &Expr,
    ) -> Option<Node> {
        let (kind, args) = match kind {
            ReadingKind::Fold { .. } | ReadingKind::Score(_) => {
                self.fold_args(kind, rest, bound)?
            }
            _ => self.reading_args(kind, rest)?,
        };
        let ty = match kind {
            ReadingKind::Symbols => Type::Tuple,
            ReadingKind::Fold { .. } => Type::Any,
            _ => Type::Int,
        };
        // A pool read in place is checked first, so that its own errors come before the reading's.
        let inline = match (bound, &first.node) {
            (None, ExprKind::Pool(pool)) => Some(self.pool(first.span, pool)?),
            _ => None,
        };
        let symbols = match (&inline, bound) {
            (Some(node), _) => {
                matches!(&node.kind, NodeKind::Pool(p) if matches!(p.source, PoolSource::Symbols(_)))
            }
            (None, Some(slot)) => self.pools.iter().rev().find(|b| b.slot == slot)?.symbols,
            (None, None) => return None,
        };
        let has_sizes = match (&inline, bound) {
            (Some(node), _) => matches!(&node.kind, NodeKind::Pool(p) if sized(p)),
            (None, Some(slot)) => self.pools.iter().rev().find(|b| b.slot == slot)?.sized,
            (None, None) => false,
        };
        if kind == ReadingKind::Effect && !symbols && !has_sizes {
            return self.error(
                Diagnostic::error(
                    "wrong-reading",
                    span,
                    "`effect` reads the sizes of the dice left, and a die of this pool has none",
                )
                .with_help(
                    "write each die as one, e.g. `pool {d10, d8, d6}` or `pool {2 x d8}`; a roll \
                     such as `1 x (4d6kh3)` or cards have no size",
                ),
            );
        }
        if symbols != (kind == ReadingKind::Symbols) {
            let message = if symbols {
                "a pool of symbol dice is read with `symbols(p)`: (net successes, net advantages, \
                 triumphs, despairs)"
            } else {
                "`symbols` reads a pool of symbol dice, e.g. `pool {3 ability, 2 difficulty}`"
            };
            return self.error(Diagnostic::error("wrong-reading", span, message));
        }
        let reading = ReadingNode { kind, args };
        let (inner, index) = match bound {
            Some(slot) => {
                let binding = self.pools.iter_mut().rev().find(|b| b.slot == slot)?;
                let index = binding
                    .readings
                    .iter()
                    .position(|r| same_reading(r, &reading))
                    .unwrap_or_else(|| {
                        binding.readings.push(reading);
                        binding.readings.len() - 1
                    });
                let ExprKind::Var(name) = &first.node else {
                    return None;
                };
                let var = Node {
                    span: first.span,
                    ty: Type::Tuple,
                    kind: NodeKind::Var(slot, name.clone()),
                };
                (var, index)
            }
            None => {
                let mut node = inline?;
                if let NodeKind::Pool(p) = &mut node.kind {
                    p.readings.push(reading);
                }
                (node, 0)
            }
        };
        let field = Node {
            span,
            ty,
            kind: NodeKind::Field(Box::new(inner), index),
        };
        let written = self.source[span.start..span.end].to_string();
        Some(Node {
            span,
            ty,
            kind: NodeKind::Label(written, Box::new(field)),
        })
    }

    /// The arguments after the pool: a compare point for `count`, numbers for the others.
    fn reading_args(
        &mut self,
        kind: ReadingKind,
        rest: &[Expr],
    ) -> Option<(ReadingKind, Vec<Node>)> {
        let mut kind = kind;
        let mut nodes = Vec::new();
        for arg in rest {
            let value = match (&arg.node, kind) {
                (ExprKind::Point(op, value), ReadingKind::Count(_)) => {
                    kind = ReadingKind::Count(*op);
                    value
                }
                (ExprKind::Point(..), _) => {
                    return self.refuse(
                        Diagnostic::error(
                            "bad-point",
                            arg.span,
                            "only `count` takes a compare point",
                        )
                        .with_help("write a number here"),
                    );
                }
                _ => arg,
            };
            let node = self.expr(value)?;
            if !self.expect_int(&node, "a reading's argument") {
                return None;
            }
            nodes.push(node);
        }
        Some((kind, nodes))
    }

    /// `pool …` as a node whose readings are still to come.
    pub(super) fn pool(&mut self, span: Span, pool: &PoolExpr) -> Option<Node> {
        let source = match pool {
            PoolExpr::Draw { count, deck } => {
                let count = self.expr(count)?;
                if !self.expect_int(&count, "the number of cards drawn") {
                    return None;
                }
                let deck_node = self.expr(deck)?;
                if !is_plain_die(&deck_node) {
                    return self.error(
                        Diagnostic::error(
                            "bad-deck",
                            deck.span,
                            "a deck is one die written out, its faces the cards",
                        )
                        .with_help(
                            "list the cards as faces, repeats for copies, e.g. \
                             `draw 5 from d{1..13, 1..13, 1..13, 1..13}`",
                        ),
                    );
                }
                PoolSource::Draw {
                    count,
                    deck: deck_node,
                }
            }
            PoolExpr::Dice(members) => self.pool_members(members)?,
        };
        Some(Node {
            span,
            ty: Type::Tuple,
            kind: NodeKind::Pool(Box::new(PoolNode {
                source,
                readings: Vec::new(),
            })),
        })
    }

    fn pool_members(&mut self, members: &[Spanned<ast::PoolMember>]) -> Option<PoolSource> {
        let symbols = members
            .iter()
            .filter(|m| matches!(m.node, ast::PoolMember::Symbol { .. }))
            .count();
        if symbols > 0 && symbols < members.len() {
            return self.refuse(Diagnostic::error(
                "mixed-pool",
                members[0].span.to(members[members.len() - 1].span),
                "a pool holds symbol dice or numbered dice, not both",
            ));
        }
        if symbols > 0 {
            let mut dice = Vec::new();
            for m in members {
                let ast::PoolMember::Symbol { count, name } = &m.node else {
                    continue;
                };
                let die = genesys_die(&name.node)?;
                if let Err(e) = self.limits.check_dice(*count) {
                    return self.refuse(crate::diagnostic::core_diagnostic(&e, m.span));
                }
                dice.push((*count, die));
            }
            return Some(PoolSource::Symbols(dice));
        }
        let mut out = Vec::new();
        for m in members {
            let member = match &m.node {
                ast::PoolMember::Roll(roll) => self.pool_roll(roll)?,
                ast::PoolMember::Repeat { count, roll } => {
                    let count = self.expr(count)?;
                    let roll = self.expr(roll)?;
                    if !self.expect_int(&count, "the number of rolls")
                        || !self.expect_int(&roll, "a die of a pool")
                    {
                        return None;
                    }
                    PoolMember::Repeat { count, roll }
                }
                ast::PoolMember::Symbol { .. } => return None,
            };
            out.push(member);
        }
        Some(PoolSource::Dice(out))
    }

    /// `3d6` (three dice), or any other roll (one die of its outcomes).
    fn pool_roll(&mut self, roll: &Expr) -> Option<PoolMember> {
        let warned = self.warnings.len();
        let node = self.expr(roll)?;
        // In a pool, each die an explosion adds is a die of the pool, to be read as the script
        // says: `pool 8d10!>=8` has no sum to mistake for a count, so the warning that `8d10!>=8`
        // adds its dice up does not apply.
        let mut i = warned;
        while i < self.warnings.len() {
            if self.warnings[i].kind == "explode-point-not-counted" {
                self.warnings.remove(i);
            } else {
                i += 1;
            }
        }
        if !self.expect_int(&node, "a die of a pool") {
            return None;
        }
        let NodeKind::Dice(dice) = &node.kind else {
            return Some(one_roll(node));
        };
        let marked = dice.critical_success.is_some()
            || dice.critical_failure.is_some()
            || dice.matching.is_some();
        if marked {
            return self.refuse(
                Diagnostic::error(
                    "bad-pool-member",
                    roll.span,
                    "critical and matching marks have no meaning in a pool: its readings say what counts",
                )
                .with_help("count the criticals as a reading, e.g. `count(p, 20)`"),
            );
        }
        let reshapes = dice.keep != Keep::All
            || dice.ends.is_some()
            || dice.success.is_some()
            || dice.failure.is_some()
            || dice.explosion.is_some()
            || dice.unique.is_some();
        if !reshapes {
            return Some(PoolMember::Dice(node));
        }
        let compound = matches!(dice.explosion, Some((true, _))) || dice.penetrate;
        let only_explodes = dice.keep == Keep::All
            && matches!(dice.sides, SidesNode::Fixed(_))
            && dice.before.is_empty()
            && dice.after.is_empty()
            && dice.points.is_empty()
            && dice.ends.is_none()
            && dice.success.is_none()
            && dice.failure.is_none()
            && dice.unique.is_none();
        if dice.explosion.is_some() && (compound || !only_explodes) {
            // Each die an explosion adds joins the pool; a compounding or penetrating chain, or
            // one kept or counted, is one roll, written as a repeat, which says so.
            return self.refuse(
                Diagnostic::error(
                    "bad-pool-member",
                    roll.span,
                    "in a pool, an exploding die's every die joins the pool: only a plain \
                     explosion (`8d10!`, `8d10!>=8`) can",
                )
                .with_help(format!(
                    "to roll `{}` as one die of the pool showing its result, put it in a repeat: \
                     `{{1 x ({})}}`",
                    dice.notation, dice.notation
                )),
            );
        }
        if dice.explosion.is_some() {
            // Each die the explosions add is a die of the pool (icepool's explode_to_pool).
            return Some(PoolMember::Dice(node));
        }
        Some(one_roll(node))
    }
}

/// One die of each kind of the pool, numbered as its members are written, for `reroll` to roll
/// again; `None` for cards, symbols, and exploding dice (whose chains a reroll would have to roll).
fn kinds(pool: &PoolNode) -> Option<Vec<Node>> {
    match &pool.source {
        PoolSource::Dice(members) => members
            .iter()
            .map(|member| match member {
                PoolMember::Dice(term) => {
                    let NodeKind::Dice(dice) = &term.kind else {
                        return None;
                    };
                    if dice.explosion.is_some() {
                        return None;
                    }
                    let mut one = (**dice).clone();
                    one.count = Node {
                        span: dice.count.span,
                        ty: Type::Int,
                        kind: NodeKind::Const(Value::Int(1)),
                    };
                    Some(Node {
                        kind: NodeKind::Dice(Box::new(one)),
                        ..term.clone()
                    })
                }
                PoolMember::Repeat { roll, .. } => Some(roll.clone()),
            })
            .collect(),
        PoolSource::Reroll { dice, .. } => Some(dice.clone()),
        _ => None,
    }
}

/// Whether every die of the pool has a size ([`crate::pool::kind_size`]).
fn sized(pool: &PoolNode) -> bool {
    match &pool.source {
        PoolSource::Dice(members) => members.iter().all(|m| member_size(m).is_some()),
        PoolSource::Reroll { dice, .. } => dice.iter().all(|d| die_size(d).is_some()),
        _ => false,
    }
}

fn one_roll(node: Node) -> PoolMember {
    let one = Node {
        span: Span::new(node.span.start, node.span.start),
        ty: Type::Int,
        kind: NodeKind::Const(Value::Int(1)),
    };
    PoolMember::Repeat {
        count: one,
        roll: node,
    }
}

/// A die without modifiers and with one die, e.g. `d52`, `d{1..13, 1..13}`.
fn is_plain_die(node: &Node) -> bool {
    let NodeKind::Dice(d) = &node.kind else {
        return false;
    };
    matches!(d.count.kind, NodeKind::Const(Value::Int(1)))
        && matches!(d.sides, SidesNode::Fixed(_))
        && d.before.is_empty()
        && d.after.is_empty()
        && d.explosion.is_none()
        && d.keep == Keep::All
        && d.ends.is_none()
        && d.success.is_none()
        && d.failure.is_none()
        && d.unique.is_none()
        && d.points.is_empty()
}

/// Two readings that certainly give the same value: the same kind with the same constant
/// arguments.
fn same_reading(a: &ReadingNode, b: &ReadingNode) -> bool {
    a.kind == b.kind
        && a.args.len() == b.args.len()
        && a.args
            .iter()
            .zip(&b.args)
            .all(|(x, y)| match (&x.kind, &y.kind) {
                (NodeKind::Const(u), NodeKind::Const(v)) => u == v,
                _ => false,
            })
}
