//! A `:s` call answered as a reading of its pool: when the function's body looks at its collection
//! only through what omen-core's multiset walk can count — the sum, a position (`N@S`), how many
//! dice show or beat a number (`S = 6`, `S >= 5`, `[count V in S]`, `[S contains N]`), the length
//! — the call is one walk over the joint distribution of those readings instead of one run of the
//! body per sorted roll. `[count 20 in S]` over 20d20 has 6.9 × 10¹⁰ sorted rolls and 21 readings.
//!
//! The body is compiled to a small plan first, and anything the plan cannot say for certain (an
//! assignment, a loop, another call, a die, a comparison with something that varies, a variable
//! that is not a number) leaves the call to the enumerating path, so a body gives the same answer
//! on either path. Within the plan, numbers combine with the interpreter's own operators
//! ([`ops::number_op`]), and a body that ends without `result:` gives the empty die, dropped with
//! the rest renormalised, as in the enumerating path.

use std::collections::{BTreeMap, HashSet};
use std::rc::Rc;

use num_integer::Integer;

use omen_core::multiset::{Builtin, Group, Readings, read};
use omen_core::{CoreError, Distribution, Weight};

use super::ast::{Binary, CallPart, Expr, Function, Kind, Stmt, Unary};
use super::builtin::Library;
use super::interp::{Callable, Interp};
use super::ops;
use super::value::{Fault, Frame, Outcome, Val};

/// How deep a plan may nest: past it, the call is left to the enumerating path.
const MAX_PLAN_DEPTH: usize = 64;

/// Most distinct readings one plan walks with: each adds to the walk's state.
const MAX_READINGS: usize = 8;

/// A number the body computes from the readings of one sorted roll.
#[derive(Debug)]
enum Term {
    Const(i64),
    /// The value of the i-th reading.
    Reading(usize),
    /// The value of the i-th variable the body assigned.
    Local(usize),
    Negate(Box<Term>),
    Not(Box<Term>),
    Binary(Binary, Box<Term>, Box<Term>),
}

/// The body's statements, as far as a plan can hold them.
#[derive(Debug)]
enum Step {
    /// `result:` of a number, or of the empty die (`None`), which drops the roll.
    Result(Option<Term>),
    /// `NAME: …` at the body's top level: the i-th variable.
    Assign(usize, Term),
    If {
        branches: Vec<(Term, Vec<Step>)>,
        otherwise: Option<Vec<Step>>,
    },
}

/// What the body needs from the pool, and how its statements read it.
struct Plan {
    readings: Vec<Builtin>,
    /// How many variables the body assigns.
    locals: usize,
    steps: Vec<Step>,
}

/// Compiles a body against its collection parameter and the frame it runs in.
struct Compiler<'a> {
    param: &'a str,
    frame: &'a Frame,
    functions: &'a std::collections::HashMap<String, Callable>,
    count: usize,
    highest_first: bool,
    readings: Vec<Builtin>,
    /// The variables the body assigned so far, by slot.
    locals: Vec<String>,
    /// Every variable the body assigns: one read before its assignment would see, in AnyDice's
    /// shared frame, what the previous roll left there, so such a body is enumerated.
    assigned: HashSet<String>,
}

/// The call's arguments as a plan sees them: the frame the body runs in (every parameter but the
/// collection and the expanded number set), the collection's die and count, and the `:n`
/// parameter given a die, if any, with that die.
struct Setting<'a> {
    scope: Frame,
    pooled: (&'a str, Rc<Distribution<i64>>, usize),
    expanded: Option<(&'a str, Rc<Distribution<i64>>)>,
}

impl Interp {
    /// Answers a call of a user function with one `:s` parameter given dice, at most one `:n`
    /// parameter given a die, and every other argument fixed, by reading the pool (once per
    /// outcome of the `:n` die); `None` when the body needs each roll (the caller then enumerates
    /// them).
    pub fn read_pool_call(
        &mut self,
        callable: &Callable,
        args: &[Val],
        frame: &Frame,
    ) -> Outcome<Option<Val>> {
        let Callable::User(function) = callable else {
            return Ok(None);
        };
        // Most calls hand no dice to a `:s` parameter: they leave at once, before the frame is
        // copied.
        let pools = function.params.iter().zip(args).filter(|(param, arg)| {
            param.kind == Kind::Sequence && matches!(arg, Val::Die(..) | Val::Pool { .. })
        });
        if pools.count() != 1 {
            return Ok(None);
        }
        let Some(Setting {
            mut scope,
            pooled: (name, die, count),
            expanded,
        }) = self.pool_call_setting(function, args, frame)?
        else {
            return Ok(None);
        };
        let assigned: HashSet<String> = function
            .body
            .iter()
            .filter_map(|stmt| match stmt {
                Stmt::Assign { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect();
        // Without a `:n` die, one walk; with one, a walk per outcome with the number fixed, each
        // weighed by its outcome's weight, the empty results dropped over all of them together
        // (as the enumerating path folds every combination of the expanded arguments).
        let outcomes = match &expanded {
            None => vec![(None, Weight::from(1u8))],
            Some((_, d)) => d
                .entries()
                .iter()
                .map(|(o, w)| (Some(*o), w.clone()))
                .collect(),
        };
        let mut mixed = Mixed::default();
        for (outcome, weight) in outcomes {
            if let (Some((number, _)), Some(n)) = (&expanded, outcome) {
                scope.insert((*number).to_string(), Val::Number(n));
            }
            let mut compiler = Compiler {
                param: name,
                frame: &scope,
                functions: &self.functions,
                count,
                highest_first: self.settings.highest_first,
                readings: Vec::new(),
                locals: Vec::new(),
                assigned: assigned.clone(),
            };
            let Some(steps) = compiler.block(&function.body, 0) else {
                return Ok(None);
            };
            let plan = Plan {
                readings: compiler.readings,
                locals: compiler.locals.len(),
                steps,
            };
            self.work.pay(function.body.len())?;
            let (points, total) = plan.points(&die, count, self)?;
            mixed.add(points, total, weight, &mut self.work)?;
        }
        mixed.finish().map(Some)
    }

    /// The body's frame and what the call reads or expands, or `None` when an argument leaves the
    /// call to the enumerating path (a second collection or `:n` die, or a die for a number that
    /// is empty).
    fn pool_call_setting<'f>(
        &mut self,
        function: &'f Function,
        args: &[Val],
        frame: &Frame,
    ) -> Outcome<Option<Setting<'f>>> {
        // The frame the body would run in: the caller's, with every parameter but the collection
        // set to its coerced value. Only numbers and sequences are read by a plan; a die (`:d`, or
        // a die passed untyped) is left in, so a plan that reads it is refused.
        self.work.pay(frame.len() + args.len())?;
        let mut scope = frame.clone();
        let mut pooled = None;
        let mut expanded = None;
        for (param, arg) in function.params.iter().zip(args) {
            let value = match (param.kind, arg) {
                (Kind::Sequence, Val::Die(die, _)) if pooled.is_none() => {
                    pooled = Some((param.name.as_str(), die.clone(), 1));
                    continue;
                }
                (Kind::Sequence, Val::Pool { count, die, .. }) if pooled.is_none() => {
                    pooled = Some((param.name.as_str(), die.clone(), *count));
                    continue;
                }
                (Kind::Number, Val::Die(..) | Val::Pool { .. }) if expanded.is_none() => {
                    // The die of the number: a pool's sum, as the enumerating path coerces it.
                    let Some(d) = arg.to_die(&mut self.work)? else {
                        return Ok(None);
                    };
                    expanded = Some((param.name.as_str(), d));
                    continue;
                }
                (Kind::Number, Val::Number(_) | Val::Sequence(_)) => {
                    Val::Number(arg.as_number()?.unwrap_or(0))
                }
                (Kind::Sequence, Val::Number(n)) => Val::sequence(vec![*n]),
                (Kind::Sequence, Val::Sequence(_)) | (Kind::Any, _) => arg.clone(),
                (Kind::Die, _) => Val::Empty,
                // A second collection, or a second die for a number: the call expands over it too.
                _ => return Ok(None),
            };
            scope.insert(param.name.clone(), value);
        }
        Ok(pooled.map(|pooled| Setting {
            scope,
            pooled,
            expanded,
        }))
    }
}

/// The results of a plan's walks, each walk's points weighed by its `:n` outcome's weight over
/// the walk's total (the totals are brought to one common multiple, so the weights stay integers).
#[derive(Default)]
struct Mixed {
    walks: Vec<(BTreeMap<i64, Weight>, Weight, Weight)>,
}

impl Mixed {
    fn add(
        &mut self,
        points: BTreeMap<i64, Weight>,
        total: Weight,
        weight: Weight,
        work: &mut super::value::Work,
    ) -> Outcome<()> {
        work.pay(points.len())?;
        self.walks.push((points, total, weight));
        Ok(())
    }

    fn finish(self) -> Outcome<Val> {
        let common = self
            .walks
            .iter()
            .fold(Weight::from(1u8), |acc, (_, total, _)| acc.lcm(total));
        let mut points: BTreeMap<i64, Weight> = BTreeMap::new();
        for (walk, total, weight) in self.walks {
            let scale = &common / &total * &weight;
            for (value, w) in walk {
                *points.entry(value).or_default() += w * &scale;
            }
        }
        if points.is_empty() {
            return Ok(Val::Empty);
        }
        Ok(Val::die(Distribution::from_weights(points)?))
    }
}

impl Plan {
    /// The joint distribution of the readings over `count` dice of `die`, then the body's value for
    /// each: the results' weights (the empty ones dropped) and the walk's total.
    fn points(
        &self,
        die: &Distribution<i64>,
        count: usize,
        interp: &mut Interp,
    ) -> Outcome<(BTreeMap<i64, Weight>, Weight)> {
        let (readings, skipped) = Readings::new(self.readings.clone());
        let groups = [Group::dice(die.clone(), count)];
        let joint = read(
            &groups,
            &readings,
            &interp.work.limits,
            &mut interp.work.budget,
        )?;
        let mut points: BTreeMap<i64, Weight> = BTreeMap::new();
        for (values, weight) in joint.entries() {
            interp.work.budget.check()?;
            let mut locals = vec![0; self.locals];
            let values = &values[skipped..];
            if let Ended::Result(Some(v)) = run_block(&self.steps, values, &mut locals)? {
                *points.entry(v).or_default() += weight;
            }
        }
        Ok((points, joint.total().clone()))
    }
}

/// How a block ended for one set of reading values.
enum Ended {
    /// At its end, without `result:` (the call then gives the empty die).
    Normal,
    /// At `result:`: a number, or the empty die.
    Result(Option<i64>),
}

/// Runs a block for one set of reading values.
fn run_block(steps: &[Step], values: &[i64], locals: &mut [i64]) -> Outcome<Ended> {
    for step in steps {
        match step {
            Step::Result(None) => return Ok(Ended::Result(None)),
            Step::Result(Some(term)) => {
                return evaluate(term, values, locals).map(|v| Ended::Result(Some(v)));
            }
            Step::Assign(slot, term) => locals[*slot] = evaluate(term, values, locals)?,
            Step::If {
                branches,
                otherwise,
            } => {
                let mut taken = None;
                for (condition, body) in branches {
                    if evaluate(condition, values, locals)? != 0 {
                        taken = Some(body);
                        break;
                    }
                }
                if let Some(body) = taken.or(otherwise.as_ref())
                    && let ended @ Ended::Result(_) = run_block(body, values, locals)?
                {
                    return Ok(ended);
                }
            }
        }
    }
    Ok(Ended::Normal)
}

fn evaluate(term: &Term, values: &[i64], locals: &[i64]) -> Outcome<i64> {
    let next = |t: &Term| evaluate(t, values, locals);
    Ok(match term {
        Term::Const(n) => *n,
        Term::Reading(i) => values[*i],
        Term::Local(i) => locals[*i],
        Term::Negate(t) => next(t)?
            .checked_neg()
            .ok_or(Fault::Core(CoreError::Overflow))?,
        Term::Not(t) => (next(t)? == 0) as i64,
        Term::Binary(op, a, b) => ops::number_op(*op, next(a)?, next(b)?)?,
    })
}

impl Compiler<'_> {
    fn block(&mut self, stmts: &[Stmt], depth: usize) -> Option<Vec<Step>> {
        if depth > MAX_PLAN_DEPTH {
            return None;
        }
        let mut steps = Vec::with_capacity(stmts.len());
        for stmt in stmts {
            steps.push(match stmt {
                Stmt::Result(expr) if is_empty_die(expr) => Step::Result(None),
                // Only at the top level, where it runs on every path that goes on past it.
                Stmt::Assign { name, expr } if depth == 0 && name != self.param => {
                    if self.maybe_sequence(expr) {
                        return None;
                    }
                    let term = self.number(expr, depth + 1)?;
                    let slot = match self.locals.iter().position(|l| l == name) {
                        Some(slot) => slot,
                        None => {
                            self.locals.push(name.clone());
                            self.locals.len() - 1
                        }
                    };
                    Step::Assign(slot, term)
                }
                Stmt::Result(expr) => Step::Result(Some(self.number(expr, depth + 1)?)),
                Stmt::If {
                    branches,
                    otherwise,
                } => {
                    let mut compiled = Vec::with_capacity(branches.len());
                    for (condition, body) in branches {
                        compiled.push((
                            self.number(condition, depth + 1)?,
                            self.block(body, depth + 1)?,
                        ));
                    }
                    let otherwise = match otherwise {
                        Some(body) => Some(self.block(body, depth + 1)?),
                        None => None,
                    };
                    Step::If {
                        branches: compiled,
                        otherwise,
                    }
                }
                // Assignments, loops, outputs, definitions and settings: enumerate.
                _ => return None,
            });
        }
        Some(steps)
    }

    /// An expression where a number is wanted (a sequence summed, as AnyDice reads it).
    fn number(&mut self, expr: &Expr, depth: usize) -> Option<Term> {
        if depth > MAX_PLAN_DEPTH {
            return None;
        }
        let next = depth + 1;
        Some(match expr {
            Expr::Number(n, _) => Term::Const(*n),
            Expr::Var(..) if self.is_param(expr) => self.reading(Builtin::Sum)?,
            Expr::Var(name, _) if self.assigned.contains(name) => {
                Term::Local(self.locals.iter().position(|l| l == name)?)
            }
            Expr::Var(name, _) => match self.frame.get(name)? {
                Val::Number(n) => Term::Const(*n),
                _ => return None,
            },
            Expr::Unary(Unary::Plus, operand, _) => self.number(operand, next)?,
            Expr::Unary(Unary::Minus, operand, _) => {
                Term::Negate(Box::new(self.number(operand, next)?))
            }
            Expr::Unary(Unary::Not, operand, _) => Term::Not(Box::new(self.number(operand, next)?)),
            Expr::Unary(Unary::Length, operand, _) if self.is_param(operand) => {
                Term::Const(i64::try_from(self.count).ok()?)
            }
            Expr::Binary(Binary::At, positions, collection, _) if self.is_param(collection) => {
                self.positions(positions)?
            }
            Expr::Binary(op, a, b, _) if is_comparison(*op) => self.comparison(*op, a, b, next)?,
            Expr::Binary(
                op @ (Binary::Plus
                | Binary::Minus
                | Binary::Times
                | Binary::Divide
                | Binary::Power
                | Binary::And
                | Binary::Or),
                a,
                b,
                _,
            ) => Term::Binary(
                *op,
                Box::new(self.number(a, next)?),
                Box::new(self.number(b, next)?),
            ),
            Expr::Call(parts, _) => self.call(parts)?,
            _ => return None,
        })
    }

    /// Whether `expr` is the collection parameter itself (`+S` is `S`).
    fn is_param(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Var(name, _) => name == self.param,
            Expr::Unary(Unary::Plus, operand, _) => self.is_param(operand),
            _ => false,
        }
    }

    /// Whether `expr` could be a sequence, which a comparison reads element by element.
    fn maybe_sequence(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Number(..) => false,
            // The body's own variables hold numbers.
            Expr::Var(name, _) if self.assigned.contains(name) => name == self.param,
            Expr::Var(name, _) => {
                name == self.param || !matches!(self.frame.get(name), Some(Val::Number(_)))
            }
            Expr::Unary(Unary::Plus, operand, _) => self.maybe_sequence(operand),
            Expr::Unary(..) | Expr::Binary(..) => false,
            // The library's count and contains answer numbers; any other call may not.
            Expr::Call(parts, _) => !matches!(
                self.functions.get(&signature(parts)),
                Some(Callable::Library(Library::Count | Library::Contains))
            ),
            Expr::Sequence(..) => true,
        }
    }

    /// A comparison: of two numbers, the number 0 or 1; of the collection and a fixed number, how
    /// many of its dice compare so (AnyDice's reading of a sequence against a number).
    fn comparison(&mut self, op: Binary, a: &Expr, b: &Expr, depth: usize) -> Option<Term> {
        let (op, other) = match (self.is_param(a), self.is_param(b)) {
            (true, false) => (op, b),
            // `N op S` counts the dice x with N op x, that is x (op mirrored) N.
            (false, true) => (mirrored(op), a),
            (false, false) if !self.maybe_sequence(a) && !self.maybe_sequence(b) => {
                return Some(Term::Binary(
                    op,
                    Box::new(self.number(a, depth)?),
                    Box::new(self.number(b, depth)?),
                ));
            }
            _ => return None,
        };
        if self.maybe_sequence(other) {
            return None;
        }
        let Term::Const(n) = self.number(other, depth)? else {
            return None;
        };
        self.count_where(op, n)
    }

    /// How many dice x satisfy `x op n`.
    fn count_where(&mut self, op: Binary, n: i64) -> Option<Term> {
        let count = |low, high| Builtin::Count { low, high };
        let builtin = match op {
            Binary::Equal | Binary::NotEqual => count(n, n),
            Binary::Less => match n.checked_sub(1) {
                Some(high) => count(i64::MIN, high),
                None => return Some(Term::Const(0)),
            },
            Binary::Greater => match n.checked_add(1) {
                Some(low) => count(low, i64::MAX),
                None => return Some(Term::Const(0)),
            },
            Binary::AtMost => count(i64::MIN, n),
            Binary::AtLeast => count(n, i64::MAX),
            _ => return None,
        };
        let counted = self.reading(builtin)?;
        Some(match op {
            Binary::NotEqual => Term::Binary(
                Binary::Minus,
                Box::new(Term::Const(i64::try_from(self.count).ok()?)),
                Box::new(counted),
            ),
            _ => counted,
        })
    }

    /// `P@S` for fixed positions: the dice at those ranks, summed; a position past the dice is 0.
    fn positions(&mut self, positions: &Expr) -> Option<Term> {
        let list = match positions {
            Expr::Number(n, _) => vec![*n],
            Expr::Var(name, _) if name != self.param && !self.assigned.contains(name) => {
                match self.frame.get(name)? {
                    Val::Number(n) => vec![*n],
                    Val::Sequence(s) if s.len() <= MAX_READINGS => s.to_vec(),
                    _ => return None,
                }
            }
            _ => return None,
        };
        let mut term = Term::Const(0);
        for p in list {
            let Some(rank) = usize::try_from(p)
                .ok()
                .filter(|r| (1..=self.count).contains(r))
            else {
                continue;
            };
            let builtin = if self.highest_first {
                Builtin::NthHighest(rank)
            } else {
                Builtin::NthLowest(rank)
            };
            term = Term::Binary(
                Binary::Plus,
                Box::new(term),
                Box::new(self.reading(builtin)?),
            );
        }
        Some(term)
    }

    /// The library's `[count V in S]` and `[S contains N]` on the collection, when the program
    /// has not replaced them.
    fn call(&mut self, parts: &[CallPart]) -> Option<Term> {
        let args: Vec<&Expr> = parts
            .iter()
            .filter_map(|part| match part {
                CallPart::Arg(e) => Some(e),
                CallPart::Word(_) => None,
            })
            .collect();
        let Callable::Library(library) = self.functions.get(&signature(parts))? else {
            return None;
        };
        match (library, args.as_slice()) {
            (Library::Count, [values, collection]) if self.is_param(collection) => {
                let values = match values {
                    Expr::Number(n, _) => vec![*n],
                    Expr::Var(name, _) if name != self.param && !self.assigned.contains(name) => {
                        match self.frame.get(name)? {
                            Val::Number(n) => vec![*n],
                            Val::Sequence(s) if s.len() <= MAX_READINGS => s.to_vec(),
                            _ => return None,
                        }
                    }
                    _ => return None,
                };
                // Each value counted, a repeated one twice, as the library counts.
                let mut term = Term::Const(0);
                for v in values {
                    let counted = self.reading(Builtin::Count { low: v, high: v })?;
                    term = Term::Binary(Binary::Plus, Box::new(term), Box::new(counted));
                }
                Some(term)
            }
            (Library::Contains, [collection, number])
                if self.is_param(collection) && !self.maybe_sequence(number) =>
            {
                let Term::Const(n) = self.number(number, 0)? else {
                    return None;
                };
                let counted = self.reading(Builtin::Count { low: n, high: n })?;
                Some(Term::Binary(
                    Binary::Greater,
                    Box::new(counted),
                    Box::new(Term::Const(0)),
                ))
            }
            _ => None,
        }
    }

    /// The reading's place among the plan's readings, added when new.
    fn reading(&mut self, builtin: Builtin) -> Option<Term> {
        if let Some(i) = self.readings.iter().position(|r| *r == builtin) {
            return Some(Term::Reading(i));
        }
        if self.readings.len() == MAX_READINGS {
            return None;
        }
        self.readings.push(builtin);
        Some(Term::Reading(self.readings.len() - 1))
    }
}

/// A call's signature: its words, and `?` for each argument.
fn signature(parts: &[CallPart]) -> String {
    let words: Vec<&str> = parts
        .iter()
        .map(|part| match part {
            CallPart::Word(w) => w.as_str(),
            CallPart::Arg(_) => "?",
        })
        .collect();
    words.join(" ")
}

/// `d{}`, the empty die, written out: a body's way to drop a roll.
fn is_empty_die(expr: &Expr) -> bool {
    matches!(expr, Expr::Unary(Unary::Die, inner, _) if matches!(&**inner, Expr::Sequence(parts, _) if parts.is_empty()))
}

fn is_comparison(op: Binary) -> bool {
    matches!(
        op,
        Binary::Equal
            | Binary::NotEqual
            | Binary::Less
            | Binary::Greater
            | Binary::AtMost
            | Binary::AtLeast
    )
}

/// `a op b` as `b (mirrored op) a`.
fn mirrored(op: Binary) -> Binary {
    match op {
        Binary::Less => Binary::Greater,
        Binary::Greater => Binary::Less,
        Binary::AtMost => Binary::AtLeast,
        Binary::AtLeast => Binary::AtMost,
        other => other,
    }
}
