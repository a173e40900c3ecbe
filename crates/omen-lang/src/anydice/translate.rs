//! Omen's spelling of an AnyDice program's outputs, where one exists: so designers can learn Omen's
//! notation from their own programs. An output translates when its expression (with the variables
//! assigned before it written out, since every use of a die-valued variable is a new roll in
//! AnyDice) uses only numbers, dice, `+ - *`, and the library's highest and lowest; anything else is
//! named as the reason there is no spelling.

use std::collections::HashMap;

use super::ast::{Binary, CallPart, Expr, Stmt, Unary};

/// One output's translation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translation {
    /// The output's label when it is fixed by the program (a name without `[VAR]`, or `output K`).
    pub label: String,
    /// Omen's notation for the output, or why there is none.
    pub omen: Result<String, String>,
}

/// The longest spelling given: past it, variables written out would repeat too much.
const MAX_SPELLING: usize = 4096;

pub fn program(stmts: &[Stmt]) -> Vec<Translation> {
    let mut vars: HashMap<String, Result<String, String>> = HashMap::new();
    let mut out = Vec::new();
    for stmt in stmts {
        match stmt {
            Stmt::Assign { name, expr } => {
                let spelled = expression(expr, &vars);
                vars.insert(name.clone(), spelled);
            }
            Stmt::Output { expr, name, .. } => {
                let label = match name {
                    Some(n) => n.clone(),
                    None => format!("output {}", out.len() + 1),
                };
                out.push(Translation {
                    label,
                    omen: expression(expr, &vars),
                });
            }
            Stmt::Function(_) | Stmt::Set(..) => {}
            Stmt::Loop { .. } | Stmt::If { .. } | Stmt::Result(_) => {
                // What follows depends on the control flow: stop translating here.
                out.push(Translation {
                    label: "…".into(),
                    omen: Err("loops and branches have no one Omen expression".into()),
                });
                return out;
            }
        }
    }
    out
}

fn expression(
    expr: &Expr,
    vars: &HashMap<String, Result<String, String>>,
) -> Result<String, String> {
    let spelled = spell(expr, vars, 0)?;
    if spelled.len() > MAX_SPELLING {
        return Err("written out, the expression is too long".into());
    }
    Ok(spelled)
}

fn spell(
    expr: &Expr,
    vars: &HashMap<String, Result<String, String>>,
    depth: usize,
) -> Result<String, String> {
    if depth > 64 {
        return Err("the expression nests too deeply to translate".into());
    }
    let next = |e: &Expr| spell(e, vars, depth + 1);
    match expr {
        Expr::Number(n, _) => Ok(n.to_string()),
        Expr::Var(name, _) => match vars.get(name) {
            Some(Ok(s)) => Ok(s.clone()),
            Some(Err(why)) => Err(why.clone()),
            None => Err(format!("{name} is not set before this output")),
        },
        Expr::Unary(Unary::Die, operand, _) => Ok(format!("1d{}", sides(operand)?)),
        Expr::Unary(Unary::Minus, operand, _) if !is_dice(operand) => {
            Ok(format!("-({})", next(operand)?))
        }
        Expr::Unary(Unary::Plus, operand, _) => next(operand),
        Expr::Binary(Binary::Dice, count, faces, _) => match **count {
            Expr::Number(n, _) if n >= 0 => Ok(format!("{n}d{}", sides(faces)?)),
            _ => Err("a rolled or negative number of dice has no plain Omen spelling".into()),
        },
        Expr::Binary(op @ (Binary::Plus | Binary::Minus | Binary::Times), a, b, _) => {
            let symbol = match op {
                Binary::Plus => "+",
                Binary::Minus => "-",
                _ => "*",
            };
            Ok(format!("{} {symbol} {}", grouped(next(a)?), grouped(next(b)?)))
        }
        Expr::Call(parts, _) => call(parts),
        Expr::Binary(Binary::Divide, ..) => Err("AnyDice's `/` rounds toward zero and makes x/0 zero".into()),
        Expr::Binary(..) => Err("AnyDice's comparisons, `&`, `|`, `^` and `@` count and sum where Omen's answer true or false".into()),
        Expr::Sequence(..) => Err("sequences have no Omen counterpart".into()),
        Expr::Unary(..) => Err("`#`, `!` and `-` of dice differ in Omen".into()),
    }
}

/// A spelling as an operand: in parentheses unless it is one term (no space in it).
fn grouped(spelled: String) -> String {
    if spelled.contains(' ') {
        format!("({spelled})")
    } else {
        spelled
    }
}

fn is_dice(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::Unary(Unary::Die, ..) | Expr::Binary(Binary::Dice, ..)
    )
}

/// The faces after `d`: a positive number, or listed faces.
fn sides(expr: &Expr) -> Result<String, String> {
    match expr {
        Expr::Number(n, _) if *n > 0 => Ok(n.to_string()),
        Expr::Sequence(parts, _) => {
            let mut faces = Vec::new();
            for part in parts {
                match (&part.from, &part.to, &part.times) {
                    (Expr::Number(n, _), None, None) => faces.push(n.to_string()),
                    (Expr::Unary(Unary::Minus, inner, _), None, None) => match **inner {
                        Expr::Number(n, _) => faces.push(format!("-{n}")),
                        _ => return Err("only faces listed one by one translate".into()),
                    },
                    _ => return Err("only faces listed one by one translate".into()),
                }
            }
            if faces.is_empty() {
                return Err("the empty die has no Omen counterpart".into());
            }
            Ok(format!("{{{}}}", faces.join(",")))
        }
        _ => Err("only dice with a fixed number of sides or listed faces translate".into()),
    }
}

/// `[highest N of MdX]` is `MdXkhN`, `[lowest N of MdX]` is `MdXklN`.
fn call(parts: &[CallPart]) -> Result<String, String> {
    let (keep, n, dice) = match parts {
        [
            CallPart::Word(w),
            CallPart::Arg(Expr::Number(n, _)),
            CallPart::Word(of),
            CallPart::Arg(dice),
        ] if of == "of" && (w == "highest" || w == "lowest") && *n >= 0 => {
            (if w == "highest" { "kh" } else { "kl" }, *n, dice)
        }
        _ => {
            return Err(
                "only [highest N of D] and [lowest N of D] translate among function calls".into(),
            );
        }
    };
    if n == 0 {
        return Ok("0".into());
    }
    match dice {
        Expr::Binary(Binary::Dice, count, faces, _) => match **count {
            Expr::Number(m, _) if m >= 1 => Ok(format!("{m}d{}{keep}{}", sides(faces)?, n.min(m))),
            _ => Err("the dice must be written MdX".into()),
        },
        _ => Err("the dice must be written MdX".into()),
    }
}
