//! The interpreter: statements in order over one global frame, calls with AnyDice's dynamic scope
//! (a call starts from a copy of its caller's variables), and the settings as they stand when each
//! statement runs.

use std::collections::HashMap;
use std::rc::Rc;

use num_traits::Zero;
use omen_core::{Limits, Probability};

use super::ast::{Binary, Expr, Function, Part, Setting, Stmt, Unary};
use super::builtin::Library;
use super::error::{Run, calculation_error};
use super::output::Output;
use super::value::{Fault, Frame, Outcome, Val, Work};
use super::{approximate, label, ops, pool};
use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// How deep the interpreter's own recursion (expressions, blocks and calls together) may go; the
/// parser bounds one expression, this bounds their nesting through calls.
pub const MAX_WALK_DEPTH: usize = 2_000;

/// Most outputs one program may have: far more columns than anyone reads side by side, few
/// enough that a loop over a long sequence cannot hold memory with them.
pub const MAX_OUTPUTS: usize = 1_000;

/// The deepest "maximum function depth" a program may set: each level is a real recursion.
pub const MAX_FUNCTION_DEPTH: i64 = 100;

pub struct Settings {
    pub explode_depth: u64,
    pub function_depth: usize,
    pub highest_first: bool,
}

/// What a block did: ran to its end, or met `result:`.
pub enum Flow {
    Normal,
    Result(Val),
}

/// A function a call can match: the program's own, or the library's.
#[derive(Clone)]
pub enum Callable {
    User(Rc<Function>),
    Library(Library),
}

pub struct Interp {
    pub work: Work,
    pub settings: Settings,
    pub functions: HashMap<String, Callable>,
    pub outputs: Vec<Output>,
    pub warnings: Vec<Diagnostic>,
    /// Calls of user functions now running.
    pub call_depth: usize,
    walk_depth: usize,
    /// Calls refused for the maximum function depth, and where the first was.
    pub truncated: u64,
    pub truncated_at: Option<Span>,
    /// The share of the value being computed that a call cut by the maximum function depth could
    /// have changed: 1 where a cut call is met directly, and an expanded call's iterations' shares
    /// weighed by their chances. Exact for a recursion through one expanded parameter, an upper
    /// bound otherwise.
    pub affected: Probability,
    /// Bytes of the outputs' labels so far.
    label_bytes: u64,
    /// The significant bits kept in the approximate mode (`None`: exact), how many times values
    /// were rounded, and where first.
    pub precision_bits: Option<u64>,
    pub roundings: u64,
    pub rounded_at: Option<Span>,
    /// The most significant bits of any die's total kept so far: how far exact weights ran, so a
    /// run stopped by the work budget can say whether the approximate mode would help.
    pub largest_total_bits: u64,
}

impl Interp {
    pub fn new(limits: &Limits) -> Self {
        Interp {
            work: Work {
                limits: limits.clone(),
                budget: limits.budget(),
            },
            settings: Settings {
                explode_depth: 2,
                function_depth: 10,
                highest_first: true,
            },
            functions: Library::all()
                .into_iter()
                .map(|l| (l.signature().to_string(), Callable::Library(l)))
                .collect(),
            outputs: Vec::new(),
            warnings: Vec::new(),
            call_depth: 0,
            walk_depth: 0,
            truncated: 0,
            truncated_at: None,
            affected: Probability::zero(),
            label_bytes: 0,
            precision_bits: None,
            roundings: 0,
            rounded_at: None,
            largest_total_bits: 0,
        }
    }

    /// A value about to be kept (assigned, returned, output): in the approximate mode, a die's
    /// weights rounded to the precision; otherwise the value itself.
    pub fn settle(&mut self, v: Val, span: Span) -> Outcome<Val> {
        let total_bits = match &v {
            Val::Die(d, _) => d.total().bits(),
            Val::Pool { die, .. } => die.total().bits(),
            _ => 0,
        };
        self.largest_total_bits = self.largest_total_bits.max(total_bits);
        let Some(bits) = self.precision_bits else {
            return Ok(v);
        };
        let rounded = match &v {
            Val::Die(d, _) => approximate::round(d, bits)?.map(Val::die),
            Val::Pool { count, die, .. } => approximate::round(die, bits)?.map(|d| Val::Pool {
                count: *count,
                die: Rc::new(d),
                shape: None,
            }),
            _ => None,
        };
        let Some(rounded) = rounded else {
            return Ok(v);
        };
        self.work.pay(1)?;
        self.roundings += 1;
        self.rounded_at.get_or_insert(span);
        Ok(rounded)
    }

    pub fn enter(&mut self, span: Span) -> Run<()> {
        self.walk_depth += 1;
        if self.walk_depth > MAX_WALK_DEPTH {
            return Err(calculation_error(
                span,
                Fault::calculation(format!(
                    "the evaluation nests more than {MAX_WALK_DEPTH} levels deep"
                )),
            ));
        }
        Ok(())
    }

    pub fn leave(&mut self) {
        self.walk_depth -= 1;
    }

    /// Runs statements in `frame` until the end or a `result:`.
    pub fn block(&mut self, stmts: &[Stmt], frame: &mut Frame) -> Run<Flow> {
        for stmt in stmts {
            if let Flow::Result(v) = self.statement(stmt, frame)? {
                return Ok(Flow::Result(v));
            }
        }
        Ok(Flow::Normal)
    }

    fn statement(&mut self, stmt: &Stmt, frame: &mut Frame) -> Run<Flow> {
        let at = |span: Span| move |f: Fault| calculation_error(span, f);
        match stmt {
            Stmt::Assign { name, expr, .. } => {
                let v = self.eval(expr, frame)?;
                let v = self.settle(v, expr.span()).map_err(at(expr.span()))?;
                frame.insert(name.clone(), v);
            }
            Stmt::Output { expr, name, span } => {
                self.output(expr, name.as_deref(), *span, frame)?
            }
            Stmt::Function(f) => {
                self.functions
                    .insert(f.signature.clone(), Callable::User(f.clone()));
            }
            Stmt::Result(expr) => {
                let v = self.eval(expr, frame)?;
                let v = self.settle(v, expr.span()).map_err(at(expr.span()))?;
                return Ok(Flow::Result(v));
            }
            Stmt::Loop { var, over, body } => {
                let items = self.eval(over, frame)?;
                let items = self.sequence_items(&items).map_err(at(over.span()))?;
                for item in items.iter() {
                    self.work.pay(1).map_err(at(over.span()))?;
                    frame.insert(var.clone(), Val::Number(*item));
                    if let Flow::Result(v) = self.block(body, frame)? {
                        return Ok(Flow::Result(v));
                    }
                }
            }
            Stmt::If {
                branches,
                otherwise,
            } => {
                for (condition, body) in branches {
                    let v = self.eval(condition, frame)?;
                    if ops::truth(&v).map_err(at(condition.span()))? {
                        return self.block(body, frame);
                    }
                }
                if let Some(body) = otherwise {
                    return self.block(body, frame);
                }
            }
            Stmt::Set(setting, span) => self.set(setting, *span, frame)?,
        }
        Ok(Flow::Normal)
    }

    fn set(&mut self, setting: &Setting, span: Span, frame: &mut Frame) -> Run<()> {
        let positive = |this: &mut Self, e: &Expr, frame: &mut Frame, what: &str, default: i64| {
            let v = this.eval(e, frame)?;
            match v.as_number().map_err(|f| calculation_error(span, f))? {
                Some(n) if n > 0 => Ok(n),
                _ => Err(calculation_error(
                    span,
                    Fault::calculation(format!(
                        "\"{what}\" can only be set to a positive integer (the default is {default})"
                    )),
                )),
            }
        };
        match setting {
            Setting::ExplodeDepth(e) => {
                let n = positive(self, e, frame, "explode depth", 2)? as u64;
                if n > self.work.limits.max_explode_depth {
                    return Err(calculation_error(
                        span,
                        Fault::calculation(format!(
                            "\"explode depth\" {n} is over the limit {}",
                            self.work.limits.max_explode_depth
                        ))
                        .with_help("lower it, or raise --max-explode-depth"),
                    ));
                }
                self.settings.explode_depth = n;
            }
            Setting::FunctionDepth(e) => {
                let n = positive(self, e, frame, "maximum function depth", 10)?;
                if n > MAX_FUNCTION_DEPTH {
                    return Err(calculation_error(
                        span,
                        Fault::calculation(format!(
                            "\"maximum function depth\" {n} is over Omen's limit {MAX_FUNCTION_DEPTH}"
                        )),
                    ));
                }
                self.settings.function_depth = n as usize;
            }
            Setting::PositionOrder { highest_first } => {
                self.settings.highest_first = *highest_first;
            }
        }
        Ok(())
    }

    /// A value read as the elements of a sequence: a number is one, a die its distinct outcomes.
    pub fn sequence_items(&mut self, v: &Val) -> Outcome<Rc<Vec<i64>>> {
        Ok(match v {
            Val::Sequence(s) => s.clone(),
            Val::Number(n) => Rc::new(vec![*n]),
            other => match other.to_die(&mut self.work)? {
                Some(d) => {
                    self.work.pay(d.len())?;
                    Rc::new(d.outcomes().copied().collect())
                }
                None => Rc::new(Vec::new()),
            },
        })
    }

    fn output(&mut self, expr: &Expr, name: Option<&str>, span: Span, frame: &Frame) -> Run<()> {
        if self.outputs.len() >= MAX_OUTPUTS {
            return Err(calculation_error(
                span,
                Fault::calculation(format!("the program has more than {MAX_OUTPUTS} outputs"))
                    .with_help("show fewer outputs, e.g. one loop instead of two"),
            ));
        }
        let before = self.truncated;
        self.affected = Probability::zero();
        let v = self.eval(expr, frame)?;
        let v = self
            .settle(v, expr.span())
            .map_err(|f| calculation_error(expr.span(), f))?;
        let number = self.outputs.len() + 1;
        let label = match name {
            Some(text) => label::fill(text, frame, span)?,
            None => format!("output {number}"),
        };
        // Labels are held until the end: their bytes are paid for and bounded like any output.
        self.label_bytes = self.label_bytes.saturating_add(label.len() as u64);
        let paid = self.work.pay(label.len()).and_then(|()| {
            if self.label_bytes > self.work.limits.max_output {
                return Err(Fault::calculation(format!(
                    "the outputs' names pass {} bytes",
                    self.work.limits.max_output
                ))
                .with_help("shorten the names, or raise --max-output"));
            }
            Ok(())
        });
        paid.map_err(|f| calculation_error(span, f))?;
        let distribution = v
            .output(&mut self.work)
            .map_err(|f| calculation_error(expr.span(), f))?;
        if self.truncated > before {
            let affected = std::mem::replace(&mut self.affected, Probability::zero());
            self.warn_truncated(span, self.truncated - before, &affected);
        }
        self.outputs.push(Output {
            label,
            distribution,
            span,
            // Any rounding so far may have reached this output: an upper bound, never a miss.
            approximate: self.roundings > 0,
        });
        Ok(())
    }

    fn warn_truncated(&mut self, span: Span, calls: u64, affected: &Probability) {
        let depth = self.settings.function_depth;
        self.warnings.push(
            Diagnostic::warning(
                "function-depth",
                self.truncated_at.unwrap_or(span),
                format!(
                    "the maximum function depth ({depth}) cut {calls} call(s) short, which AnyDice does silently: each gave the empty die (counted as 0 in + and -, dropped from a function's results with the rest scaled up); at most {affected} of this output's probability is changed by it"
                ),
            )
            .with_help("raise it with `set \"maximum function depth\" to N` to see how much it matters"),
        );
        self.truncated_at = None;
    }

    /// The value of an expression in `frame`.
    pub fn eval(&mut self, expr: &Expr, frame: &Frame) -> Run<Val> {
        self.enter(expr.span())?;
        let v = self.eval_inner(expr, frame);
        self.leave();
        v
    }

    fn eval_inner(&mut self, expr: &Expr, frame: &Frame) -> Run<Val> {
        let at = |span: Span| move |f: Fault| calculation_error(span, f);
        match expr {
            Expr::Number(n, _) => Ok(Val::Number(*n)),
            Expr::Var(name, span) => frame.get(name).cloned().ok_or_else(|| {
                calculation_error(
                    *span,
                    Fault::calculation(format!("I cannot find a variable named {name}"))
                        .with_help(format!("assign it before this line, e.g. `{name}: d6`")),
                )
            }),
            Expr::Sequence(parts, span) => {
                self.sequence(parts, frame)
                    .map(Val::Sequence)
                    .map_err(|e| match e {
                        Ok(fault) => calculation_error(*span, fault),
                        Err(d) => d,
                    })
            }
            Expr::Unary(op, operand, span) => {
                let v = self.eval(operand, frame)?;
                match op {
                    Unary::Die => ops::dice(Val::Number(1), v, &mut self.work),
                    _ => ops::unary(*op, v, &mut self.work),
                }
                .map_err(at(*span))
            }
            Expr::Binary(op, left, right, span) => {
                let a = self.eval(left, frame)?;
                let b = self.eval(right, frame)?;
                self.binary(*op, a, b).map_err(at(*span))
            }
            Expr::Call(parts, span) => self.call(parts, *span, frame),
        }
    }

    fn binary(&mut self, op: Binary, a: Val, b: Val) -> Outcome<Val> {
        match op {
            Binary::Dice => ops::dice(a, b, &mut self.work),
            Binary::At => {
                let positions = match &a {
                    Val::Number(n) => Rc::new(vec![*n]),
                    Val::Sequence(s) => s.clone(),
                    other => {
                        return Err(Fault::calculation(format!(
                            "positions must be a number or a sequence, but you provided \"{}\"",
                            other.render()
                        ))
                        .with_help("pass the die to a function with a `:n` parameter"));
                    }
                };
                pool::at(&positions, b, self.settings.highest_first, &mut self.work)
            }
            _ => ops::binary(op, a, b, &mut self.work),
        }
    }

    /// A sequence literal's elements. The error is a fault (at the literal) or a diagnostic from
    /// an expression inside it.
    fn sequence(&mut self, parts: &[Part], frame: &Frame) -> Result<Rc<Vec<i64>>, Run<Fault>> {
        let mut out = Vec::new();
        for part in parts {
            let from = self.eval(&part.from, frame).map_err(Err)?;
            let mut block: Vec<i64> = match &part.to {
                None => self.sequence_items(&from).map_err(Ok)?.to_vec(),
                Some(to) => {
                    let to = self.eval(to, frame).map_err(Err)?;
                    self.range(&from, &to).map_err(Ok)?
                }
            };
            if let Some(times) = &part.times {
                let times = self.eval(times, frame).map_err(Err)?;
                let k = self.count(&times).map_err(Ok)?;
                let len = block.len() as u128 * k as u128;
                self.work
                    .allow_sequence(out.len() as u128 + len)
                    .map_err(Ok)?;
                block = block.repeat(k);
            }
            self.work
                .allow_sequence(out.len() as u128 + block.len() as u128)
                .map_err(Ok)?;
            out.extend(block);
        }
        Ok(Rc::new(out))
    }

    fn count(&mut self, v: &Val) -> Outcome<usize> {
        match v.as_number()? {
            Some(n) => Ok(usize::try_from(n).unwrap_or(0)),
            None => Err(Fault::calculation(format!(
                "a repetition count must be a number, but you provided \"{}\"",
                v.render()
            ))),
        }
    }

    fn range(&mut self, from: &Val, to: &Val) -> Outcome<Vec<i64>> {
        let (Some(a), Some(b)) = (from.as_number()?, to.as_number()?) else {
            return Err(Fault::calculation(
                "a range's ends must be numbers, e.g. {1..6}",
            ));
        };
        if b < a {
            return Ok(Vec::new());
        }
        self.work
            .allow_sequence((b as i128 - a as i128 + 1) as u128)?;
        Ok((a..=b).collect())
    }
}
