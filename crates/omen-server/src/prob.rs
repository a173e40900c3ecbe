//! The stateless routes: exact odds (`prob`, cached), a roll, and the rule sets with their schemas.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use omen_core::{ChaChaDice, Limits, Probability, ScriptedDice};
use omen_lang::syntax::Dialect;
use omen_lang::{Diagnostic, ExactResult, Options, ValueDistribution, compile, exact, sample};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::AppState;
use crate::error::{ApiError, Body, ErrorBody, PathParams, Problem};
use crate::odds::{OddsCache, language_value};
// The odds moved below the server's state, which caches them; their public path stays.
pub use crate::odds::{Odds, OddsRow, ParamBody};

#[path = "prob_anydice.rs"]
mod anydice;

/// Most expressions one `prob` request compares.
pub const MAX_EXPRESSIONS: usize = 20;

/// `POST /api/v1/prob`: the exact distributions of one or more expressions.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProbRequest {
    /// Expressions or scripts in the chosen dialect (1 to 20).
    #[schema(min_items = 1, max_items = 20)]
    pub expressions: Vec<String>,
    /// `omen` (default), `roll20`, `foundry`, `avrae`, `rpg-dice-roller`, `dice-maiden`, or
    /// `anydice` (each expression a whole program; one result per `output`, its label in `reading`).
    #[serde(default)]
    #[schema(schema_with = anydice::dialect_schema)]
    pub dialect: Option<String>,
    /// Values for the scripts' `param` declarations: numbers, true/false, labels, arrays as tuples.
    #[serde(default)]
    #[schema(schema_with = crate::schema::params)]
    pub params: BTreeMap<String, Value>,
    /// Values for each expression's parameters, in the expressions' order, over `params`: a page
    /// comparing scripts that declare different parameters gives each only its own.
    #[serde(default)]
    #[schema(value_type = Vec<Object>, max_items = 20)]
    pub expression_params: Vec<BTreeMap<String, Value>>,
    /// Extra dice one die may add by exploding (default: the server's, 20; at most its ceiling).
    #[serde(default)]
    pub explode_depth: Option<u64>,
    /// With `"dialect": "anydice"` only: keep about this many significant digits (1 to 1,000)
    /// where a program's exact weights run away, instead of refusing it; every result computed
    /// after a rounding carries the warning `approximate`. Without it every answer is exact.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 1000)]
    pub approximate: Option<u32>,
}

/// The answer to `POST /api/v1/prob`, one entry per expression in the request's order.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ProbResponse {
    pub results: Vec<Odds>,
}

fn key(parts: &[&str]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in parts {
        // Length-prefixed so that no two lists of parts hash alike.
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize().into()
}

fn cached(cache: &OddsCache, key: &[u8; 32]) -> Option<Arc<Odds>> {
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(key)
        .cloned()
}

fn remember(cache: &OddsCache, key: [u8; 32], odds: Arc<Odds>) {
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .put(key, odds);
}

pub(crate) fn dialect(name: Option<&str>) -> Result<&'static Dialect, ApiError> {
    match name {
        None => Ok(&omen_lang::syntax::dialect::OMEN),
        Some(_) if anydice::is_anydice(name) => Err(anydice::refused()),
        Some(name) => Dialect::named(name).ok_or_else(|| {
            let known: Vec<&str> = Dialect::names().collect();
            ApiError::new(
                StatusCode::BAD_REQUEST,
                Problem::new("unknown-dialect", format!("no dialect `{name}`"))
                    .with_help(format!("the dialects are: {}", known.join(", "))),
            )
        }),
    }
}

pub(crate) fn options(
    dialect: &'static Dialect,
    params: &BTreeMap<String, Value>,
    limits: &Limits,
) -> Result<Options, ApiError> {
    let params = params
        .iter()
        .map(|(name, value)| Ok((name.clone(), omen_store::param_value(name, value)?)))
        .collect::<Result<Vec<_>, omen_store::StoreError>>()?;
    Ok(Options {
        limits: limits.clone(),
        params,
        dialect,
        ..Options::default()
    })
}

fn rows<T: Ord + Clone + Serialize>(distribution: &omen_core::Distribution<T>) -> Vec<OddsRow> {
    let total = distribution.total();
    let text = |weight: omen_core::Weight| Probability::new(weight, total.clone()).to_string();
    distribution
        .entries()
        .iter()
        .zip(distribution.cumulative())
        .map(|((outcome, weight), (at_most, at_least))| OddsRow {
            outcome: serde_json::to_value(outcome).unwrap_or(Value::Null),
            probability: text(weight.clone()),
            at_least: Some(text(at_least)),
            at_most: Some(text(at_most)),
        })
        .collect()
}

/// Labelled outcomes in the order the expression writes them, without cumulative probabilities:
/// the alphabetical order values are stored in means nothing for labels (see `omen_lang::labels`).
fn labelled_rows(
    distribution: &omen_core::Distribution<omen_lang::Value>,
    labels: &[omen_lang::Value],
) -> Vec<OddsRow> {
    let total = distribution.total();
    omen_lang::labels::in_written_order(distribution.entries(), labels)
        .into_iter()
        .map(|(outcome, weight)| OddsRow {
            outcome: serde_json::to_value(&outcome).unwrap_or(Value::Null),
            probability: Probability::new(weight, total.clone()).to_string(),
            at_least: None,
            at_most: None,
        })
        .collect()
}

/// The outcomes of greatest weight, ascending; weights compared exactly.
fn modes<T: Ord + Clone + Serialize>(distribution: &omen_core::Distribution<T>) -> Vec<Value> {
    let largest = distribution.entries().iter().map(|(_, w)| w).max();
    distribution
        .entries()
        .iter()
        .filter(|(_, w)| Some(w) == largest)
        .map(|(outcome, _)| serde_json::to_value(outcome).unwrap_or(Value::Null))
        .collect()
}

fn param_bodies(params: &[(String, omen_lang::Value)]) -> Vec<ParamBody> {
    params
        .iter()
        .map(|(name, value)| ParamBody {
            name: name.clone(),
            value: serde_json::to_value(value).unwrap_or(Value::Null),
        })
        .collect()
}

fn odds(expression: &str, checked: &omen_lang::Checked, result: &ExactResult) -> Odds {
    let (outcomes, mode) = match &result.distribution {
        ValueDistribution::Int(d) => (rows(d), modes(d)),
        ValueDistribution::Bool(d) => (rows(d), modes(d)),
        ValueDistribution::Values(d) if omen_lang::labels::any_label(d.outcomes()) => {
            (labelled_rows(d, &result.labels), modes(d))
        }
        ValueDistribution::Values(d) => (rows(d), modes(d)),
    };
    // Numbers, whole or with fractions (real division), have statistics, and so does true/false
    // counted as 1/0 (as the CLI counts it); labels and tuples do not.
    let (statistics, median) = match &result.distribution {
        ValueDistribution::Bool(d) => {
            let s = d.map(|&b| i64::from(b)).statistics();
            let median = Value::Bool(s.median != 0);
            (
                Some((s.mean.clone(), s.variance.clone(), s.standard_deviation())),
                Some(median),
            )
        }
        distribution => match distribution.number_statistics() {
            Some(s) => {
                let deviation = s.standard_deviation();
                let median = serde_json::to_value(&s.median).unwrap_or(Value::Null);
                (Some((s.mean, s.variance, deviation)), Some(median))
            }
            None => (None, None),
        },
    };
    Odds {
        expression: expression.to_string(),
        reading: checked.reading.clone(),
        params: param_bodies(&checked.program.params),
        outcomes,
        mean: statistics.as_ref().map(|s| s.0.to_string()),
        variance: statistics.as_ref().map(|s| s.1.to_string()),
        standard_deviation: statistics.as_ref().map(|s| s.2),
        median,
        mode,
        depth_limit_probability: result.truncated.to_string(),
        expected_steps: result.expected_steps.as_ref().map(ToString::to_string),
        warnings: Vec::new(),
    }
}

fn too_much_output(limit: u64) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        Problem::new(
            "too-much-output",
            format!("the result would be more than {limit} bytes (the server's limit)"),
        )
        .with_help("ask a narrower question, e.g. `(EXPR) >= 30` for one probability"),
    )
}

/// The largest answer the odds cache keeps, by [`size`].
const MAX_CACHED_BYTES: u64 = 256 << 10;

/// About the bytes of `odds` as JSON, from below: each row's fractions and its punctuation.
fn size(odds: &Odds) -> u64 {
    odds.outcomes
        .iter()
        .map(|row| {
            let cumulative = |p: &Option<String>| p.as_ref().map_or(4, String::len);
            60 + (row.probability.len() + cumulative(&row.at_least) + cumulative(&row.at_most))
                as u64
        })
        .sum()
}

/// The limits of one `prob` request: the server's, with the explosion depth asked for.
fn request_limits(server: &Limits, explode_depth: Option<u64>) -> Result<Limits, ApiError> {
    let mut limits = server.clone();
    if let Some(depth) = explode_depth {
        if depth > server.max_explode_depth {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                Problem::new(
                    "explode-depth",
                    format!(
                        "explode_depth {depth} is over this server's limit of {}",
                        server.max_explode_depth
                    ),
                )
                .with_help("ask for a lower `explode_depth`"),
            ));
        }
        limits.explode_depth = depth;
    }
    Ok(limits)
}

/// One expression's odds: from the cache when the same text, or the same program, was asked
/// before; otherwise computed on the pool.
async fn one(
    state: &AppState,
    expression: String,
    dialect: &'static Dialect,
    params: &BTreeMap<String, Value>,
    limits: &Limits,
) -> Result<(Arc<Odds>, bool), ApiError> {
    let params_text = serde_json::to_string(params).unwrap_or_default();
    // The depth changes the answer; the other limits only whether there is one.
    let depth_text = limits.explode_depth.to_string();
    let text_key = key(&["text", dialect.name, &expression, &params_text, &depth_text]);
    if let Some(hit) = cached(&state.inner.cache, &text_key) {
        return Ok((hit, true));
    }
    let options = options(dialect, params, limits)?;
    let cache = state.inner.cache_handle();
    state
        .inner
        .compute
        .run(move || {
            let checked = compile(&expression, &options)
                .map_err(|errors| ApiError::language(&errors, &[]))?;
            let warnings: Vec<Problem> = checked
                .warnings
                .iter()
                .map(Problem::from_diagnostic)
                .collect();
            let program_key = key(&["program", &checked.reading, &params_text, &depth_text]);
            let with_warnings = |found: &Odds| {
                let mut odds = found.clone();
                odds.expression = expression.clone();
                odds.warnings = warnings.clone();
                Arc::new(odds)
            };
            if let Some(hit) = cached(&cache, &program_key) {
                let odds = with_warnings(&hit);
                remember(&cache, text_key, odds.clone());
                return Ok((odds, true));
            }
            let result = exact(&checked.program, &options.limits).map_err(|error| {
                ApiError::language(std::slice::from_ref(&error), &checked.warnings)
            })?;
            let computed = odds(&expression, &checked, &result);
            let odds = with_warnings(&computed);
            // A large answer is not kept: the cache's bound is in entries, and a few answers of
            // megabytes (`1000d6`) would otherwise hold gigabytes.
            if size(&computed) <= MAX_CACHED_BYTES {
                remember(&cache, program_key, Arc::new(computed));
                remember(&cache, text_key, odds.clone());
            }
            Ok((odds, false))
        })
        .await?
}

/// The exact odds of one or more expressions.
#[utoipa::path(
    post,
    path = "/api/v1/prob",
    tag = "dice",
    request_body = ProbRequest,
    responses(
        (status = 200, description = "the distributions, in the request's order; `X-Omen-Cache` says whether all came from the cache", body = ProbResponse),
        (status = 400, description = "a malformed request", body = ErrorBody),
        (status = 422, description = "an expression does not compile, its computation passes a limit, or `approximate` is given with Omen's own notation", body = ErrorBody),
    )
)]
pub async fn prob(
    State(state): State<AppState>,
    Body(request): Body<ProbRequest>,
) -> Result<(HeaderMap, Json<ProbResponse>), ApiError> {
    if request.expressions.is_empty() || request.expressions.len() > MAX_EXPRESSIONS {
        return Err(ApiError::bad_request(format!(
            "{} expressions given; give 1 to {MAX_EXPRESSIONS}",
            request.expressions.len()
        )));
    }
    if anydice::is_anydice(request.dialect.as_deref()) {
        return anydice::prob(state, request).await;
    }
    if request.approximate.is_some() {
        return Err(anydice::approximate_refused());
    }
    let dialect = dialect(request.dialect.as_deref())?;
    let limits = request_limits(&state.limits(), request.explode_depth)?;
    let mut results = Vec::new();
    let mut all_cached = true;
    let mut bytes: u64 = 0;
    let limit = state.inner.config.limits.max_output;
    if request.expression_params.len() > request.expressions.len() {
        // Well-formed, but its parts disagree: 422, as no schema of the body can say it.
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            Problem::new(
                "bad-request",
                format!(
                    "{} sets of expression parameters for {} expressions; give at most one per expression",
                    request.expression_params.len(),
                    request.expressions.len()
                ),
            ),
        ));
    }
    for (index, expression) in request.expressions.into_iter().enumerate() {
        let mut params = request.params.clone();
        if let Some(own) = request.expression_params.get(index) {
            params.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let (odds, hit) = one(&state, expression, dialect, &params, &limits)
            .await
            .map_err(|error| error.in_expression(index))?;
        all_cached &= hit;
        bytes = bytes.saturating_add(size(&odds));
        if bytes > limit {
            return Err(too_much_output(limit).in_expression(index));
        }
        results.push(Odds::clone(&odds));
    }
    let mut headers = HeaderMap::new();
    headers.insert(
        "x-omen-cache",
        HeaderValue::from_static(if all_cached { "hit" } else { "miss" }),
    );
    Ok((headers, Json(ProbResponse { results })))
}

/// `POST /api/v1/roll`: one roll of an expression, with a seed or given dice.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RollRequest {
    pub expression: String,
    #[serde(default)]
    #[schema(schema_with = crate::schema::dialect)]
    pub dialect: Option<String>,
    #[serde(default)]
    #[schema(schema_with = crate::schema::params)]
    pub params: BTreeMap<String, Value>,
    /// A seed for the portable seeded roller; a fresh one is chosen (and returned) when absent.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Dice rolled elsewhere, used in order instead of a seed.
    #[serde(default)]
    pub dice: Option<Vec<i64>>,
}

/// A roll with every die shown.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RollResponse {
    pub expression: String,
    pub reading: String,
    /// The seed, so the roll can be replayed (absent for given dice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The roll's value.
    #[schema(schema_with = language_value)]
    pub result: Value,
    /// Every node of the roll with its dice.
    #[schema(value_type = Object)]
    pub tree: Value,
    pub warnings: Vec<Problem>,
}

/// A seed for a roll that names none: SHA-256 of the clock, the process and a counter, so two
/// requests in the same nanosecond still get unrelated seeds. It is returned, so the roll replays.
pub(crate) fn fresh_seed() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let digest = Sha256::new()
        .chain_update(nanos.to_le_bytes())
        .chain_update(COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes())
        .chain_update(std::process::id().to_le_bytes())
        .finalize();
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(bytes)
}

/// Rolls an expression once.
#[utoipa::path(
    post,
    path = "/api/v1/roll",
    tag = "dice",
    request_body = RollRequest,
    responses(
        (status = 200, description = "the roll", body = RollResponse),
        (status = 400, description = "a malformed request", body = ErrorBody),
        (status = 422, description = "the expression does not compile or cannot be rolled", body = ErrorBody),
    )
)]
pub async fn roll(
    State(state): State<AppState>,
    Body(request): Body<RollRequest>,
) -> Result<Json<RollResponse>, ApiError> {
    let dialect = dialect(request.dialect.as_deref())?;
    let options = options(dialect, &request.params, &state.limits())?;
    if request.seed.is_some() && request.dice.is_some() {
        // Well-formed, but its parts disagree: 422, as no schema of the body can say it.
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            Problem::new(
                "bad-request",
                "give a seed or dice, not both: the dice replace the seeded roller",
            ),
        ));
    }
    let seed = match request.dice {
        Some(_) => None,
        None => Some(request.seed.unwrap_or_else(fresh_seed)),
    };
    let RollRequest {
        expression, dice, ..
    } = request;
    state
        .inner
        .compute
        .run(move || {
            let checked = compile(&expression, &options)
                .map_err(|errors| ApiError::language(&errors, &[]))?;
            let mut warnings: Vec<Diagnostic> = checked.warnings.clone();
            let rolled = match (&dice, seed) {
                (Some(values), _) => {
                    let mut source = ScriptedDice::new(values.clone());
                    let rolled = sample(&checked.program, &options.limits, &mut source);
                    if rolled.is_ok() && !source.remaining().is_empty() {
                        warnings.push(Diagnostic::warning(
                            "unused-dice",
                            omen_lang::Span::new(expression.len(), expression.len()),
                            format!(
                                "{} given dice value(s) left unused",
                                source.remaining().len()
                            ),
                        ));
                    }
                    rolled
                }
                (None, seed) => sample(
                    &checked.program,
                    &options.limits,
                    &mut ChaChaDice::from_seed(seed.unwrap_or_default()),
                ),
            };
            let rolled = rolled.map_err(|error| {
                ApiError::language(std::slice::from_ref(&error), &checked.warnings)
            })?;
            let response = RollResponse {
                expression: expression.clone(),
                reading: checked.reading.clone(),
                seed,
                result: serde_json::to_value(&rolled.result).unwrap_or(Value::Null),
                tree: serde_json::to_value(&rolled.tree).unwrap_or(Value::Null),
                warnings: warnings.iter().map(Problem::from_diagnostic).collect(),
            };
            let size = serde_json::to_vec(&response).map_or(u64::MAX, |b| b.len() as u64);
            if size > options.limits.max_output {
                return Err(too_much_output(options.limits.max_output));
            }
            Ok(Json(response))
        })
        .await?
}

/// A rule set as data: what it is, its mechanics and options, what only the game master sees, and
/// for a game whose characters keep state, its actions and the JSON Schemas of its sheet, state and
/// actions.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RuleSetBody {
    pub name: String,
    pub description: String,
    pub seed_file: String,
    pub spec_items: Vec<String>,
    #[schema(value_type = Vec<Object>)]
    pub mechanics: Value,
    #[schema(value_type = Vec<Object>)]
    pub options: Value,
    /// The paths of each part (action, sheet, state, result, odds) that a player never receives.
    #[schema(value_type = Object)]
    pub game_master_only: Value,
    #[schema(value_type = Vec<Object>)]
    pub actions: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_version: Option<u32>,
    /// The reference tables (`GET /api/v1/rules/{game}/tables/{table}`): name, summary, spec items.
    #[schema(value_type = Vec<Object>)]
    pub tables: Value,
    /// The analyses (`POST /api/v1/rules/{game}/analyses/{analysis}`), each with the JSON Schema of
    /// its inputs.
    #[schema(value_type = Vec<Object>)]
    pub analyses: Value,
    /// `{"sheet": …, "state": …, "action": …}`, JSON Schemas (absent for a game that keeps no state).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Object)]
    pub schemas: Option<Value>,
}

fn rule_set(rules: &'static dyn omen_rules::RuleSet) -> RuleSetBody {
    let game = omen_rules::stateful::game(rules.name());
    RuleSetBody {
        name: rules.name().to_string(),
        description: rules.description().to_string(),
        seed_file: rules.seed_file().to_string(),
        spec_items: rules.spec_items().iter().map(|s| s.to_string()).collect(),
        mechanics: serde_json::to_value(rules.mechanics()).unwrap_or_default(),
        options: serde_json::to_value(rules.options()).unwrap_or_default(),
        game_master_only: serde_json::to_value(rules.game_master_only()).unwrap_or_default(),
        actions: serde_json::to_value(game.map_or(&[][..], |g| g.actions())).unwrap_or_default(),
        tables: rules
            .tables()
            .iter()
            .map(|t| {
                serde_json::json!({
                    "name": t.name, "summary": t.summary, "spec_items": t.spec_items,
                })
            })
            .collect(),
        analyses: rules
            .analyses()
            .iter()
            .map(|a| {
                serde_json::json!({
                    "name": a.name, "summary": a.summary, "spec_items": a.spec_items,
                    "inputs": (a.inputs)(),
                })
            })
            .collect(),
        state_version: game.map(|g| g.state_version()),
        schemas: game.map(|g| g.schemas()),
    }
}

/// Every registered rule set, with its schemas.
#[utoipa::path(
    get,
    path = "/api/v1/rules",
    tag = "rules",
    responses((status = 200, description = "the rule sets, in seed order", body = Vec<RuleSetBody>))
)]
pub async fn rules() -> Json<Vec<RuleSetBody>> {
    Json(
        omen_rules::registry()
            .iter()
            .map(|r| rule_set(*r))
            .collect(),
    )
}

/// One rule set, with its schemas.
#[utoipa::path(
    get,
    path = "/api/v1/rules/{game}",
    tag = "rules",
    params(("game" = String, Path, description = "the rule set's name, e.g. `luck`")),
    responses(
        (status = 200, description = "the rule set", body = RuleSetBody),
        (status = 404, description = "no such rule set", body = ErrorBody),
    )
)]
pub async fn rule(PathParams(game): PathParams<String>) -> Result<Json<RuleSetBody>, ApiError> {
    omen_rules::find(&game)
        .map(|r| Json(rule_set(r)))
        .ok_or_else(|| {
            let known: Vec<&str> = omen_rules::registry().iter().map(|r| r.name()).collect();
            ApiError::new(
                StatusCode::NOT_FOUND,
                Problem::new("not-found", format!("no rule set `{game}`"))
                    .with_help(format!("the rule sets are: {}", known.join(", "))),
            )
        })
}
