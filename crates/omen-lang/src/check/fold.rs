//! Checking a designer's own readings of a pool: `fold(p, step, start)`,
//! `fold(p, step, start, finish)` and `score(p, f)`.
//!
//! The functions a fold names say what dice already rolled mean, so they must not roll dice
//! themselves: the exact engine computes each transition once and reuses it for every roll that
//! reaches it, and the roller must read its one roll the same way. A bound pool is read where it
//! is bound, so its fold's functions must be declared before it: a function declared after sees
//! bindings that do not exist yet at that point.

use super::Checker;
use crate::diagnostic::Diagnostic;
use crate::program::{
    Function, Node, NodeKind, PoolNode, PoolSource, ReadingKind, ReadingNode, Type,
};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind};

impl Checker<'_> {
    /// The arguments of `fold` or `score` after the pool: the function indices go into the kind,
    /// and a fold's start is the reading's one argument node.
    pub(super) fn fold_args(
        &mut self,
        kind: ReadingKind,
        rest: &[Expr],
        pool_slot: Option<usize>,
    ) -> Option<(ReadingKind, Vec<Node>)> {
        if let ReadingKind::Score(_) = kind {
            let f = self.fold_function(&rest[0], 1, "a score", pool_slot)?;
            return Some((ReadingKind::Score(f), Vec::new()));
        }
        let step = self.fold_function(&rest[0], 3, "a fold's step", pool_slot);
        let start = self.expr(&rest[1]);
        let finish = rest
            .get(2)
            .map(|e| self.fold_function(e, 1, "a fold's finish", pool_slot));
        let finish = match finish {
            Some(f) => Some(f?),
            None => None,
        };
        Some((
            ReadingKind::Fold {
                step: step?,
                finish,
            },
            vec![start?],
        ))
    }

    /// `let q = reroll(p, f);`: the pool `p` with the dice `f` chooses rolled again; `reroll(p, f,
    /// n)` rolls again at most `n` of them, the lowest faces first. `p`'s reading of what is kept
    /// and what is rerolled is taken where `p` is bound; `q` rolls the rerolled dice afresh, each
    /// as the kind of die it was, beside the faces kept.
    pub(super) fn reroll_pool(&mut self, span: Span, args: &[Expr]) -> Option<Node> {
        let help = "e.g. `fn pushed(x) = x != 1 and x != 6; let p = pool 5d6; \
                    let q = reroll(p, pushed);`, or `reroll(p, pushed, 2)` for at most two dice";
        let (Some(first), Some(choice), 2..=3) = (args.first(), args.get(1), args.len()) else {
            return self.refuse(
                Diagnostic::error(
                    "wrong-arguments",
                    span,
                    "`reroll` takes a pool, a function of a face, and at most how many dice",
                )
                .with_help(help),
            );
        };
        let ExprKind::Var(name) = &first.node else {
            return self.refuse(
                Diagnostic::error(
                    "not-a-pool",
                    first.span,
                    "`reroll` rerolls a pool bound by name",
                )
                .with_help(help),
            );
        };
        let Some(slot) = self.lookup(name).filter(|&s| self.pool_at(s)) else {
            return self.refuse(
                Diagnostic::error("not-a-pool", first.span, format!("`{name}` is no pool"))
                    .with_help(help),
            );
        };
        let f = self.fold_function(choice, 1, "a reroll's choice", Some(slot))?;
        let cap = match args.get(2) {
            Some(arg) => {
                let node = self.expr(arg)?;
                if !self.expect_int(&node, "the most dice a reroll rolls again") {
                    return None;
                }
                vec![node]
            }
            None => Vec::new(),
        };
        let binding = self.pools.iter_mut().rev().find(|b| b.slot == slot)?;
        let Some(dice) = binding.dice.clone() else {
            return self.refuse(
                Diagnostic::error(
                    "unsupported-modifier",
                    first.span,
                    "`reroll` rolls dice again as the die each is; this pool holds cards, \
                     symbols or exploding dice",
                )
                .with_help(
                    "reroll a pool of dice such as `pool 5d6` or `pool {d10, d8, d6}`; for \
                     exploding dice, count the dice to reroll and roll them as a pool of their own",
                ),
            );
        };
        let reading = ReadingNode {
            kind: ReadingKind::Kept(f),
            args: cap,
        };
        let index = match binding.readings.iter().position(|r| *r == reading) {
            Some(i) => i,
            None => {
                binding.readings.push(reading);
                binding.readings.len() - 1
            }
        };
        let var = Node {
            span: first.span,
            ty: Type::Tuple,
            kind: NodeKind::Var(slot, name.clone()),
        };
        let kept = Node {
            span: first.span,
            ty: Type::Tuple,
            kind: NodeKind::Field(Box::new(var), index),
        };
        Some(Node {
            span,
            ty: Type::Tuple,
            kind: NodeKind::Pool(Box::new(PoolNode {
                source: PoolSource::Reroll { kept, dice },
                readings: Vec::new(),
            })),
        })
    }

    /// The index of the function named by `arg`, which must take `arity` arguments, roll no dice,
    /// and be declared before the pool bound at `pool_slot`.
    fn fold_function(
        &mut self,
        arg: &Expr,
        arity: usize,
        role: &str,
        pool_slot: Option<usize>,
    ) -> Option<usize> {
        let example = if arity == 3 {
            "`fn step(s, x, n) = s + n;`"
        } else {
            "`fn f(x) = if x >= 7 then 1 else 0;`"
        };
        let ExprKind::Var(name) = &arg.node else {
            return self.refuse(
                Diagnostic::error(
                    "expected-function",
                    arg.span,
                    format!("{role} is the name of a function"),
                )
                .with_help(format!("declare it first, e.g. {example}")),
            );
        };
        let Some((index, n)) = self.function_index(name) else {
            return self.refuse(
                Diagnostic::error(
                    "unknown-function",
                    arg.span,
                    format!("`{name}` is not a function"),
                )
                .with_help(format!("declare it first, e.g. {example}")),
            );
        };
        if n != arity {
            let what = if arity == 3 {
                "three arguments (the state, a face, how many dice show it)".to_string()
            } else {
                "one argument".to_string()
            };
            return self.refuse(Diagnostic::error(
                "wrong-arguments",
                arg.span,
                format!("{role} takes {what}; `{name}` takes {n}"),
            ));
        }
        let Some(function) = self.functions.get(index) else {
            // The function whose body is being checked: it would read a pool by reading itself.
            return self.refuse(Diagnostic::error(
                "fold-function-rolls",
                arg.span,
                format!("{role} cannot be `{name}` inside its own declaration"),
            ));
        };
        if let Some(slot) = pool_slot
            && function.globals > slot
        {
            return self.refuse(
                Diagnostic::error(
                    "fold-after-pool",
                    arg.span,
                    format!("`{name}` is declared after the pool it reads"),
                )
                .with_help("declare the function before `let p = pool …;`"),
            );
        }
        if let Some(at) = first_roll(&self.functions, &function.body) {
            // The caret goes under the dice, inside the function, where the fix is.
            return self.refuse(
                Diagnostic::error(
                    "fold-function-rolls",
                    at,
                    format!(
                        "{role} says what dice already rolled mean, but `{name}` rolls dice here"
                    ),
                )
                .with_help("roll these dice outside the function and bind them with `let`"),
            );
        }
        Some(index)
    }
}

/// Where `body` (or a function it calls) rolls dice: a dice term, a pool or a process.
/// Iterative, so that long chains of calls cannot exhaust the stack.
fn first_roll(functions: &[Function], body: &Node) -> Option<Span> {
    let mut seen = vec![false; functions.len()];
    let mut work: Vec<&Node> = vec![body];
    while let Some(node) = work.pop() {
        match &node.kind {
            NodeKind::Dice(_) | NodeKind::Pool(_) | NodeKind::Process { .. } => {
                return Some(node.span);
            }
            NodeKind::Call(f, _) => {
                if let Some(callee) = functions.get(*f)
                    && !seen[*f]
                {
                    seen[*f] = true;
                    work.push(&callee.body);
                }
            }
            _ => {}
        }
        work.extend(node.operands());
    }
    None
}
