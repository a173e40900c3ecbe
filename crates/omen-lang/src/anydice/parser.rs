//! A recursive-descent parser for AnyDice programs, following the published grammar's precedence
//! (tightest first): unary `d + - ! #`, binary `d`, `@`, `^`, `* /`, `+ -`, comparisons, `& |`.
//! Every binary operator is left associative. Nesting is counted against [`MAX_PARSE_DEPTH`], so a
//! hostile program is refused before it can exhaust the stack.

use std::rc::Rc;

use crate::diagnostic::Diagnostic;
use crate::span::Span;

use super::ast::{Binary, CallPart, Expr, Function, Kind, Param, Part, Setting, Stmt, Unary};
use super::error::syntax_error;
use super::lexer::Token;

/// The deepest nesting of expressions and blocks the parser accepts.
pub const MAX_PARSE_DEPTH: usize = 200;

/// Where a statement stands: what it may contain depends on it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Top,
    Function,
}

pub struct Parser<'t> {
    tokens: &'t [(Token, Span)],
    at: usize,
    depth: usize,
    end: usize,
}

type Parsed<T> = Result<T, Diagnostic>;

impl<'t> Parser<'t> {
    pub fn new(tokens: &'t [(Token, Span)], source_len: usize) -> Self {
        Parser {
            tokens,
            at: 0,
            depth: 0,
            end: source_len,
        }
    }

    /// The whole program.
    ///
    /// # Errors
    /// The first syntax error, with its span and a hint.
    pub fn program(&mut self) -> Parsed<Vec<Stmt>> {
        let mut out = Vec::new();
        while self.at < self.tokens.len() {
            out.push(self.statement(Place::Top)?);
        }
        Ok(out)
    }

    fn peek(&self) -> Option<&'t Token> {
        self.tokens.get(self.at).map(|(t, _)| t)
    }

    fn span(&self) -> Span {
        self.tokens
            .get(self.at)
            .map_or(Span::new(self.end, self.end), |(_, s)| *s)
    }

    fn previous_end(&self) -> usize {
        self.at
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map_or(0, |(_, s)| s.end)
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Token::Punct(q)) if *q == p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(q)) if q == w)
    }

    fn expect_punct(&mut self, p: &str, why: &str) -> Parsed<Span> {
        if self.is_punct(p) {
            self.at += 1;
            return Ok(self.tokens[self.at - 1].1);
        }
        Err(syntax_error(
            self.span(),
            format!("I was expecting a \"{p}\" somewhere, {why}"),
        ))
    }

    fn expect_word(&mut self, w: &str) -> Parsed<()> {
        if self.is_word(w) {
            self.at += 1;
            return Ok(());
        }
        Err(syntax_error(
            self.span(),
            format!("I was expecting `{w}` here"),
        ))
    }

    fn enter(&mut self) -> Parsed<()> {
        self.depth += 1;
        if self.depth > MAX_PARSE_DEPTH {
            return Err(syntax_error(
                self.span(),
                format!("the program nests more than {MAX_PARSE_DEPTH} levels deep"),
            )
            .with_help("split the expression with variables or functions"));
        }
        Ok(())
    }

    fn pedantic(&self) -> Diagnostic {
        syntax_error(
            self.span(),
            "Sorry, I'm horribly pedantic. I really don't know what you mean by that, in this context",
        )
    }

    fn statement(&mut self, place: Place) -> Parsed<Stmt> {
        let start = self.span();
        match self.peek() {
            Some(Token::Name(name)) => {
                self.at += 1;
                self.expect_punct(":", "to assign a value to a variable")?;
                let expr = self.expression()?;
                Ok(Stmt::Assign {
                    name: name.clone(),
                    expr,
                })
            }
            Some(Token::Word(word)) => self.keyword_statement(word, start, place),
            _ => Err(self.pedantic()),
        }
    }

    fn keyword_statement(&mut self, word: &str, start: Span, place: Place) -> Parsed<Stmt> {
        match word {
            "output" if place == Place::Top => self.output(start),
            "output" | "function" | "set" if place == Place::Function => Err(syntax_error(
                start,
                format!("`{word}` is not allowed inside a function"),
            )
            .with_help("move it to the top level of the program")),
            "function" => self.function().map(|f| Stmt::Function(Rc::new(f))),
            "result" if place == Place::Function => {
                self.at += 1;
                self.expect_punct(":", "after `result`")?;
                Ok(Stmt::Result(self.expression()?))
            }
            "result" => Err(syntax_error(
                start,
                "`result:` is only allowed inside a function",
            )),
            "loop" => self.repeat(place),
            "if" => self.branch(place),
            "set" => self.setting(start),
            "legacy" => Err(
                syntax_error(start, "AnyDice's legacy syntax is not supported")
                    .with_help("rewrite the program in AnyDice's current syntax"),
            ),
            _ => Err(self.pedantic()),
        }
    }

    fn output(&mut self, start: Span) -> Parsed<Stmt> {
        self.at += 1;
        if self.at >= self.tokens.len() || self.is_word("named") {
            return Err(syntax_error(
                self.span(),
                "I assume you want to define an output, so I expect a value. Something like: output NdN",
            ));
        }
        let expr = self.expression()?;
        let mut span = start.to(expr.span());
        let mut name = None;
        if self.is_word("named") {
            self.at += 1;
            match self.peek() {
                Some(Token::Text(text)) => {
                    name = Some(text.clone());
                    span = span.to(self.span());
                    self.at += 1;
                }
                _ => {
                    return Err(syntax_error(
                        self.span(),
                        "I was expecting a name in double quotes after `named`",
                    ));
                }
            }
        }
        Ok(Stmt::Output { expr, name, span })
    }

    fn block(&mut self, place: Place) -> Parsed<Vec<Stmt>> {
        self.expect_punct("{", "to start a code block")?;
        self.enter()?;
        let mut body = Vec::new();
        while !self.is_punct("}") {
            if self.at >= self.tokens.len() {
                return Err(syntax_error(
                    self.span(),
                    "I was expecting a \"}\" somewhere, to end a code block",
                ));
            }
            body.push(self.statement(place)?);
        }
        self.at += 1;
        self.depth -= 1;
        Ok(body)
    }

    fn function(&mut self) -> Parsed<Function> {
        self.at += 1;
        self.expect_punct(":", "after `function`")?;
        let mut words = Vec::new();
        let mut params = Vec::new();
        loop {
            match self.peek() {
                Some(Token::Word(w)) => {
                    words.push(w.clone());
                    self.at += 1;
                }
                Some(Token::Name(n)) => {
                    self.at += 1;
                    let kind = self.param_kind()?;
                    words.push("?".into());
                    params.push(Param {
                        name: n.clone(),
                        kind,
                    });
                }
                _ => break,
            }
        }
        if words.is_empty() {
            return Err(syntax_error(
                self.span(),
                "I was expecting the function's words and parameters, e.g. `function: roll X:n`",
            ));
        }
        let body = self.block(Place::Function)?;
        Ok(Function {
            signature: words.join(" "),
            params,
            body,
        })
    }

    fn param_kind(&mut self) -> Parsed<Kind> {
        if !self.is_punct(":") {
            return Ok(Kind::Any);
        }
        self.at += 1;
        let kind = match self.peek() {
            Some(Token::Word(w)) if w == "n" => Kind::Number,
            Some(Token::Word(w)) if w == "s" => Kind::Sequence,
            Some(Token::Word(w)) if w == "d" => Kind::Die,
            _ => {
                return Err(syntax_error(
                    self.span(),
                    "a parameter's type is `n` (number), `s` (sequence) or `d` (die)",
                ));
            }
        };
        self.at += 1;
        Ok(kind)
    }

    fn repeat(&mut self, place: Place) -> Parsed<Stmt> {
        self.at += 1;
        let Some(Token::Name(var)) = self.peek() else {
            return Err(syntax_error(
                self.span(),
                "I was expecting a variable name after `loop`, e.g. `loop N over {1..3}`",
            ));
        };
        self.at += 1;
        self.expect_word("over")?;
        let over = self.expression()?;
        let body = self.block(place)?;
        Ok(Stmt::Loop {
            var: var.clone(),
            over,
            body,
        })
    }

    fn branch(&mut self, place: Place) -> Parsed<Stmt> {
        self.at += 1;
        let mut branches = vec![(self.expression()?, self.block(place)?)];
        let mut otherwise = None;
        while self.is_word("else") {
            self.at += 1;
            if self.is_word("if") {
                self.at += 1;
                branches.push((self.expression()?, self.block(place)?));
            } else {
                otherwise = Some(self.block(place)?);
                break;
            }
        }
        Ok(Stmt::If {
            branches,
            otherwise,
        })
    }

    fn setting(&mut self, start: Span) -> Parsed<Stmt> {
        self.at += 1;
        let name_span = self.span();
        let Some(Token::Text(name)) = self.peek() else {
            return Err(syntax_error(
                name_span,
                "I was expecting the setting's name in double quotes after `set`",
            ));
        };
        self.at += 1;
        self.expect_word("to")?;
        let setting = match name.as_str() {
            "explode depth" => Setting::ExplodeDepth(self.expression()?),
            "maximum function depth" => Setting::FunctionDepth(self.expression()?),
            "position order" => {
                let order = match self.peek() {
                    Some(Token::Text(t)) if t == "highest first" => true,
                    Some(Token::Text(t)) if t == "lowest first" => false,
                    _ => {
                        return Err(syntax_error(
                            self.span(),
                            "\"position order\" is \"highest first\" or \"lowest first\"",
                        ));
                    }
                };
                self.at += 1;
                Setting::PositionOrder {
                    highest_first: order,
                }
            }
            _ => {
                return Err(syntax_error(name_span, format!("there is no setting \"{name}\""))
                    .with_help(
                        "the settings are \"explode depth\", \"maximum function depth\" and \"position order\"",
                    ));
            }
        };
        Ok(Stmt::Set(
            setting,
            start.to(Span::new(start.end, self.previous_end())),
        ))
    }
}

/// The binary operators of one precedence level, loosest first.
const LEVELS: [&[(&str, Binary)]; 6] = [
    &[("&", Binary::And), ("|", Binary::Or)],
    &[
        ("=", Binary::Equal),
        ("!=", Binary::NotEqual),
        ("<", Binary::Less),
        (">", Binary::Greater),
        ("<=", Binary::AtMost),
        (">=", Binary::AtLeast),
    ],
    &[("+", Binary::Plus), ("-", Binary::Minus)],
    &[("*", Binary::Times), ("/", Binary::Divide)],
    &[("^", Binary::Power)],
    &[("@", Binary::At)],
];

impl Parser<'_> {
    /// An expression at the loosest level.
    ///
    /// # Errors
    /// A syntax error where no value can start, or nesting past [`MAX_PARSE_DEPTH`].
    pub fn expression(&mut self) -> Parsed<Expr> {
        self.enter()?;
        let expr = self.level(0);
        self.depth -= 1;
        expr
    }

    fn level(&mut self, level: usize) -> Parsed<Expr> {
        if level == LEVELS.len() {
            return self.dice();
        }
        let mut left = self.level(level + 1)?;
        loop {
            let op = LEVELS[level].iter().find(|(p, _)| self.is_punct(p));
            let Some((_, op)) = op else { break };
            self.at += 1;
            let right = self.level(level + 1)?;
            let span = left.span().to(right.span());
            left = Expr::Binary(*op, Box::new(left), Box::new(right), span);
        }
        Ok(left)
    }

    fn dice(&mut self) -> Parsed<Expr> {
        let mut left = self.unary()?;
        while self.is_word("d") {
            self.at += 1;
            let right = self.unary()?;
            let span = left.span().to(right.span());
            left = Expr::Binary(Binary::Dice, Box::new(left), Box::new(right), span);
        }
        Ok(left)
    }

    fn unary(&mut self) -> Parsed<Expr> {
        let start = self.span();
        let op = match self.peek() {
            Some(Token::Word(w)) if w == "d" => Some(Unary::Die),
            Some(Token::Punct("+")) => Some(Unary::Plus),
            Some(Token::Punct("-")) => Some(Unary::Minus),
            Some(Token::Punct("!")) => Some(Unary::Not),
            Some(Token::Punct("#")) => Some(Unary::Length),
            _ => None,
        };
        let Some(op) = op else {
            return self.primary();
        };
        self.at += 1;
        self.enter()?;
        let operand = self.unary();
        self.depth -= 1;
        let operand = operand?;
        let span = start.to(operand.span());
        Ok(Expr::Unary(op, Box::new(operand), span))
    }

    fn primary(&mut self) -> Parsed<Expr> {
        let start = self.span();
        match self.peek() {
            Some(Token::Number(n)) => {
                self.at += 1;
                Ok(Expr::Number(*n, start))
            }
            Some(Token::Name(name)) => {
                self.at += 1;
                Ok(Expr::Var(name.clone(), start))
            }
            Some(Token::Punct("(")) => {
                self.at += 1;
                let inner = self.expression()?;
                self.expect_punct(")", "to close the parenthesis")?;
                Ok(inner)
            }
            Some(Token::Punct("{")) => self.sequence(start),
            Some(Token::Punct("[")) => self.call(start),
            None => Err(syntax_error(
                start,
                "the program ends where I was expecting a value",
            )),
            _ => Err(syntax_error(start, "I was expecting a value here")
                .with_help("a value is a number, a VARIABLE, a die such as d6, a {sequence} or a [function call]")),
        }
    }

    fn sequence(&mut self, start: Span) -> Parsed<Expr> {
        self.at += 1;
        let mut parts = Vec::new();
        if !self.is_punct("}") {
            loop {
                let from = self.expression()?;
                let to = if self.is_punct("..") {
                    self.at += 1;
                    Some(self.expression()?)
                } else {
                    None
                };
                let times = if self.is_punct(":") {
                    self.at += 1;
                    Some(self.expression()?)
                } else {
                    None
                };
                parts.push(Part { from, to, times });
                if !self.is_punct(",") {
                    break;
                }
                self.at += 1;
            }
        }
        let end = self.expect_punct("}", "to end the sequence")?;
        Ok(Expr::Sequence(parts, start.to(end)))
    }

    fn call(&mut self, start: Span) -> Parsed<Expr> {
        self.at += 1;
        let mut parts = Vec::new();
        loop {
            match self.peek() {
                Some(Token::Punct("]")) => break,
                Some(Token::Word(w)) if w != "d" => {
                    parts.push(CallPart::Word(w.clone()));
                    self.at += 1;
                }
                None => {
                    return Err(syntax_error(
                        self.span(),
                        "I was expecting a \"]\" somewhere, to end the function call",
                    ));
                }
                _ => parts.push(CallPart::Arg(self.expression()?)),
            }
        }
        let end = self.span();
        self.at += 1;
        if parts.is_empty() {
            return Err(syntax_error(start.to(end), "an empty function call"));
        }
        Ok(Expr::Call(parts, start.to(end)))
    }
}
