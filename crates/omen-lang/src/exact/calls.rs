//! Calls of the program's own functions and processes (`absorb`, `stationary`, …), exactly.

use std::collections::BTreeMap;

use num_traits::Zero;
use omen_core::{Budget, Chain, CoreError, Distribution, Limits, Probability};

use super::{ENTRY_COPY_COST, Eval, Evaluator, NODE_COST, either, ints};
use crate::diagnostic::{Diagnostic, core_diagnostic};
use crate::program::{Node, ProcessQuery, Program};
use crate::span::Span;
use crate::value::Value;

impl Evaluator<'_> {
    /// Calls user function `f` with argument values, in a fresh frame of the globals it sees.
    pub(super) fn call(
        &mut self,
        f: usize,
        args: &[Value],
        span: Span,
    ) -> Result<Eval, Diagnostic> {
        let function = &self.program.functions[f];
        let mut frame: Vec<Value> = self.env[..function.globals].to_vec();
        frame.extend_from_slice(args);
        let key = (f, frame);
        if let Some(hit) = self.memo.get(&key) {
            // A remembered result is copied whole: `f(n - 1) + f(n - 1)` copies a distribution as
            // big as the call's, every outcome and every limb of its weight.
            let limbs = hit.dist.total().bits() / 64 + 1;
            let copy =
                (hit.dist.len() as u64).saturating_mul(limbs.saturating_add(ENTRY_COPY_COST));
            self.budget
                .spend(copy)
                .map_err(|e| core_diagnostic(&e, span))?;
            return Ok(hit.clone());
        }
        if self.depth as u64 >= self.limits.max_call_depth {
            return Err(recursion_error(
                span,
                &function.name,
                self.limits.max_call_depth,
            ));
        }
        self.depth += 1;
        let saved = std::mem::replace(&mut self.env, key.1.clone());
        let r = self.eval(&function.body);
        self.env = saved;
        self.depth -= 1;
        let r = r?;
        self.memo.insert(key, r.clone());
        Ok(r)
    }

    pub(super) fn process(
        &mut self,
        span: Span,
        query: ProcessQuery,
        function: usize,
        start: &Node,
        steps: Option<&Node>,
    ) -> Result<Eval, Diagnostic> {
        let s = self.eval(start)?;
        if query == ProcessQuery::After {
            // Walk forward step by step: only the states reachable in n steps are ever visited.
            let n_node = steps.expect("checked: after has a step count");
            let n = self.eval(n_node)?;
            let n = ints(&n.dist, n_node.span, "the number of steps")?;
            let mut r = self.branch(&n, span, |ev, &k| {
                if k < 0 {
                    return Err(Diagnostic::error(
                        "negative-steps",
                        n_node.span,
                        format!("cannot take {k} steps"),
                    ));
                }
                let mut state = Eval::plain(s.dist.clone(), s.truncated.clone());
                for _ in 0..k {
                    // Each step visits every state (a memoised call, a mixture): it pays for them,
                    // so a huge n is refused by the budget instead of looping, and the states it
                    // may hold are those of any other process.
                    let states = state.dist.len() as u64;
                    ev.budget
                        .spend(NODE_COST.saturating_mul(states))
                        .map_err(|e| core_diagnostic(&e, span))?;
                    let next = ev.branch(&state.dist, span, |ev, x| {
                        ev.call(function, std::slice::from_ref(x), span)
                    })?;
                    if next.dist.len() as u64 > ev.limits.max_chain_states {
                        return Err(core_diagnostic(
                            &CoreError::TooManyChainStates {
                                limit: ev.limits.max_chain_states,
                            },
                            span,
                        ));
                    }
                    let settled = next.dist == state.dist;
                    state = Eval::plain(next.dist, either(&state.truncated, &next.truncated));
                    if settled {
                        break; // a fixed point: every further step gives the same distribution
                    }
                }
                Ok(state)
            })?;
            r.expected_steps = None;
            return Ok(r);
        }
        let limits = self.limits;
        let mut step_truncated = Probability::zero();
        // Exploring spends its own bookkeeping budget; the steps themselves spend the evaluation's.
        let mut explore_budget = limits.budget();
        let chain = Chain::explore(
            &s.dist,
            limits,
            &mut explore_budget,
            |e| core_diagnostic(&e, span),
            |state| {
                let r = self.call(function, std::slice::from_ref(state), span)?;
                if r.truncated > step_truncated {
                    step_truncated = r.truncated.clone();
                }
                Ok(r.dist)
            },
        )?;
        let truncated = either(&s.truncated, &step_truncated);
        if query == ProcessQuery::Absorb {
            let a = chain
                .absorption(self.budget)
                .map_err(|e| process_error(&e, span, &chain))?;
            return Ok(Eval {
                dist: a.distribution,
                truncated,
                expected_steps: Some(a.expected_steps),
            });
        }
        let d = chain
            .stationary(self.budget)
            .map_err(|e| process_error(&e, span, &chain))?;
        Ok(Eval::plain(d, truncated))
    }
}

pub(crate) fn recursion_error(span: Span, name: &str, limit: u64) -> Diagnostic {
    Diagnostic::error(
        "recursion-limit",
        span,
        format!("`{name}` recursed more than {limit} calls deep; raise --max-call-depth if it must"),
    )
    .with_help("make sure the recursion ends; for a random number of repeated steps use a process: `absorb(step, start)`")
}

fn process_error<S: Ord + Clone + std::fmt::Display>(
    e: &CoreError,
    span: Span,
    chain: &Chain<S>,
) -> Diagnostic {
    match e {
        CoreError::NeverAbsorbs { state } => Diagnostic::error(
            "never-absorbs",
            span,
            format!(
                "from the state {} the process can never reach a state it stays in for good",
                chain.states[*state]
            ),
        )
        .with_help("a state is absorbing when its step returns it unchanged; for a chain that never stops use `stationary(step, start)`"),
        other => core_diagnostic(other, span),
    }
}

/// The exact distribution of one call of user function `f` in a frame of `globals` and `args`: what
/// the sampler uses to recognise an absorbing state.
///
/// # Errors
/// As for `exact`.
#[allow(clippy::too_many_arguments)] // the sampler's whole context: budget, nesting, frame, call
pub(crate) fn call_distribution(
    program: &Program,
    limits: &Limits,
    budget: &mut Budget,
    nesting: usize,
    globals: &[Value],
    f: usize,
    args: &[Value],
    span: Span,
) -> Result<Distribution<Value>, Diagnostic> {
    // `nesting` continues the caller's count: this evaluation runs on top of the sampler's stack.
    let mut ev = Evaluator {
        program,
        limits,
        budget,
        env: globals.to_vec(),
        depth: 0,
        nesting,
        memo: BTreeMap::new(),
    };
    Ok(ev.call(f, args, span)?.dist)
}
