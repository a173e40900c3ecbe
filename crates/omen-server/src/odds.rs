//! The exact odds of one expression as the API answers them, and the server's cache of them: part
//! of the server's state, below the routes that compute odds ([`crate::prob`], [`crate::rules`]).

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::error::Problem;

/// The schema of a value of the language as JSON: a number (an integer, or an exact fraction as text
/// such as `"7/4"`), true/false, a label (text), or a tuple (an array of such values).
pub(crate) fn language_value() -> utoipa::openapi::Schema {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
    let of = |t: Type| ObjectBuilder::new().schema_type(t).build();
    let one_of = OneOfBuilder::new()
        .description(Some(
            "A value of the language: an integer, an exact fraction or a label as text, \
             true/false, or a tuple as an array",
        ))
        .item(of(Type::Integer))
        .item(of(Type::String))
        .item(of(Type::Boolean))
        .item(ArrayBuilder::new().build())
        .build();
    Schema::OneOf(one_of)
}

/// A value of the language, or null.
fn optional_language_value() -> utoipa::openapi::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
    let one_of = OneOfBuilder::new()
        .item(language_value())
        .item(ObjectBuilder::new().schema_type(Type::Null).build())
        .build();
    Schema::OneOf(one_of)
}

/// A list of values of the language.
fn language_values() -> utoipa::openapi::Schema {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(utoipa::openapi::RefOr::T(language_value()))
        .build()
        .into()
}

/// One outcome of a distribution, as `omen prob --format json` writes it: every probability an
/// exact fraction in lowest terms, as text (`"1/8"`, `"1"`, `"0"`), so no client reads float noise.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct OddsRow {
    #[schema(schema_with = language_value)]
    pub outcome: Value,
    /// P(= outcome).
    #[schema(example = "1/8")]
    pub probability: String,
    /// P(>= outcome), in the outcomes' order; absent where the outcomes are labels, which have no
    /// order (they are listed in the order the expression writes them), as in the CLI's JSON.
    #[schema(example = "1/2")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_least: Option<String>,
    /// P(<= outcome), as `at_least`.
    #[schema(example = "5/8")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_most: Option<String>,
}

/// A script's parameter with the value it took: the one given, else its default.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ParamBody {
    pub name: String,
    /// A number, true/false, a label or a tuple (an array).
    #[schema(schema_with = language_value)]
    pub value: Value,
}

/// The exact odds of one expression.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Odds {
    pub expression: String,
    /// How the expression was read: Omen's notation, fully parenthesised.
    pub reading: String,
    /// The script's `param` declarations in order, with the values they took (a page makes them
    /// form inputs).
    pub params: Vec<ParamBody>,
    pub outcomes: Vec<OddsRow>,
    /// The exact mean as a fraction in lowest terms (`"21/2"`); null for a result that is not a
    /// number or true/false (true counts 1, false 0).
    pub mean: Option<String>,
    /// The exact variance, as `mean`.
    pub variance: Option<String>,
    /// The one float of the answer: a square root is rarely a fraction. Null as `mean`.
    pub standard_deviation: Option<f64>,
    /// The median outcome, as outcomes are given: a number, true/false, or a fraction as text
    /// (`"7/4"`). Null as `mean`.
    #[schema(schema_with = optional_language_value)]
    pub median: Option<Value>,
    /// The outcomes of greatest probability, ascending (more than one on a tie).
    #[schema(schema_with = language_values)]
    pub mode: Vec<Value>,
    /// P(a die reached the explosion depth limit while it would still explode): the mass cut off.
    pub depth_limit_probability: String,
    /// For an `absorb(…)` query: the exact expected number of steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_steps: Option<String>,
    pub warnings: Vec<Problem>,
}

/// The bounded cache of computed odds, keyed by a hash of the program and the options.
pub(crate) type OddsCache = std::sync::Mutex<lru::LruCache<[u8; 32], Arc<Odds>>>;
