//! The core's one error enum: what can go wrong when building dice or computing a distribution.

use thiserror::Error;

/// Why the core refused a request. Messages are lower case and say how to get unstuck.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CoreError {
    #[error("a die needs at least one side, got {0}")]
    NoSides(i64),
    #[error("a die with custom faces needs at least one face")]
    NoFaces,
    #[error("too many sides: {sides} (limit {limit}); lower the sides or raise --max-sides")]
    TooManySides { sides: i64, limit: u64 },
    #[error("too many dice: {count} (limit {limit}); lower the count or raise --max-dice")]
    TooManyDice { count: i64, limit: u64 },
    #[error("negative number of dice: {0}")]
    NegativeDice(i64),
    #[error("explosion depth {depth} is over the limit {limit}; lower --explode-depth")]
    ExplodeDepth { depth: u64, limit: u64 },
    #[error("every face meets the reroll condition, so the die could never settle")]
    RerollEverything,
    #[error(
        "the distribution would have {count} outcomes (limit {limit}); raise --max-outcomes or simplify"
    )]
    TooManyOutcomes { count: u128, limit: u64 },
    #[error(
        "the work budget of {limit} steps is spent; raise --work-budget or simplify the expression"
    )]
    WorkBudget { limit: u64 },
    #[error(
        "the computation would hold {count} states at once (limit {limit}); raise --max-states or simplify"
    )]
    TooManyStates { count: u128, limit: u64 },
    #[error(
        "the chain has more than {limit} states; raise --max-chain-states or describe the state more coarsely"
    )]
    TooManyChainStates { limit: u64 },
    #[error(
        "the chain never absorbs from reachable state number {state}: it can reach no absorbing state"
    )]
    NeverAbsorbs { state: usize },
    #[error(
        "the process would take more than {limit} steps; lower the number of steps or raise --max-process-steps"
    )]
    TooManyProcessSteps { limit: u64 },
    #[error("the chain's equations have no unique solution")]
    SingularChain,
    #[error("division by zero")]
    DivisionByZero,
    #[error("negative exponent: {0}; powers of whole numbers need an exponent of 0 or more")]
    NegativeExponent(i64),
    #[error("arithmetic overflow: an outcome does not fit in a 64-bit integer")]
    Overflow,
    #[error("an empty distribution has no outcomes")]
    Empty,
    #[error("`{0}` is no symbol: symbol dice faces are written with s, a, T, f, t and D")]
    UnknownSymbol(char),
    #[error("the scripted dice ran out after {0} dice")]
    ScriptExhausted(usize),
    #[error("the scripted die {index} shows {value}, which is not a face of {die}")]
    ScriptFace {
        index: usize,
        value: i64,
        die: String,
    },
    #[error(
        "rerolled {0} times without the die settling; the reroll condition almost always holds"
    )]
    RerollLimit(u64),
    #[error("the computation was cancelled: its request was withdrawn or timed out")]
    Cancelled,
    #[error("the computation ran past its deadline; simplify the expression or allow more time")]
    DeadlinePassed,
    #[error("{0} are not computed yet")]
    Unsupported(&'static str),
}
