//! The rule sets' calculators without a campaign: reference tables, analyses, the odds of an action
//! for a character described on the spot, and a sheet checked with every problem at once. Each
//! route serves what the registry in `omen-rules` holds, by name: no game is named here.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use omen_rules::stateful::ActionError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::AppState;
use crate::error::{ApiError, Body, ErrorBody, PathParams, Problem};

fn rule_set(game: &str) -> Result<&'static dyn omen_rules::RuleSet, ApiError> {
    omen_rules::find(game).ok_or_else(|| {
        let known: Vec<&str> = omen_rules::registry().iter().map(|r| r.name()).collect();
        ApiError::new(
            StatusCode::NOT_FOUND,
            Problem::new("not-found", format!("no rule set `{game}`"))
                .with_help(format!("the rule sets are: {}", known.join(", "))),
        )
    })
}

fn stateful(game: &str) -> Result<&'static dyn omen_rules::stateful::Game, ApiError> {
    rule_set(game)?;
    omen_rules::stateful::game(game).ok_or_else(|| {
        ApiError::not_found(format!(
            "a `{game}` character keeps no state and takes no actions"
        ))
    })
}

/// A rule set's refusal: each problem of an invalid sheet or action is its own entry, so a page
/// shows every one at once.
fn refused(error: ActionError) -> ApiError {
    match error {
        ActionError::Invalid(problems) => ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            errors: problems
                .0
                .into_iter()
                .map(|message| Problem::new("invalid", message))
                .collect(),
            warnings: Vec::new(),
            retry_after: None,
        },
        ActionError::Malformed { what, message } => ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            // The schema check lists several problems on lines of their own.
            errors: message
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty() && !line.ends_with("problems:"))
                .map(|line| Problem::new("malformed", format!("{what}: {line}")))
                .collect(),
            warnings: Vec::new(),
            retry_after: None,
        },
        other => ApiError::from(omen_store::StoreError::Rules(other)),
    }
}

/// One of a rule set's reference tables, as its seed prints it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ReferenceTableBody {
    pub name: String,
    pub summary: String,
    pub spec_items: Vec<String>,
    /// The table as text, newline-terminated lines (markdown pipe tables for most).
    pub text: String,
}

/// A reference table of a rule set.
#[utoipa::path(
    get,
    path = "/api/v1/rules/{game}/tables/{table}",
    tag = "rules",
    params(
        ("game" = String, Path, description = "the rule set's name, e.g. `ritual`"),
        ("table" = String, Path, description = "the table's name, as the rule set lists it"),
    ),
    responses(
        (status = 200, description = "the table", body = ReferenceTableBody),
        (status = 404, description = "no such rule set or table", body = ErrorBody),
    )
)]
pub async fn table(
    State(state): State<AppState>,
    PathParams((game, name)): PathParams<(String, String)>,
) -> Result<Json<ReferenceTableBody>, ApiError> {
    let rules = rule_set(&game)?;
    let found = rules
        .tables()
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| {
            let known: Vec<&str> = rules.tables().iter().map(|t| t.name).collect();
            ApiError::new(
                StatusCode::NOT_FOUND,
                Problem::new("not-found", format!("{game} has no table `{name}`"))
                    .with_help(format!("its tables are: {}", known.join(", "))),
            )
        })?;
    let render = found.render;
    // Some tables take a moment (hundreds of exact sums): on the pool, like every computation.
    let text = state.inner.compute.run(render).await?;
    Ok(Json(ReferenceTableBody {
        name: found.name.to_string(),
        summary: found.summary.to_string(),
        spec_items: found.spec_items.iter().map(|s| s.to_string()).collect(),
        text,
    }))
}

/// A table an analysis answers with.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AnalysisTableBody {
    pub caption: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// The answer of an analysis.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct AnalysisBody {
    pub tables: Vec<AnalysisTableBody>,
    /// The analysis's own JSON where it has one, as `omen GAME ANALYSIS --format json` prints it
    /// (seed 000's checks, the luck ranges): its figures as values, exact fractions as text. Absent
    /// when the tables say all.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub json: Option<Value>,
    /// What the rules allow but find unusual in the inputs, one sentence each, as the command line
    /// says them beside its answer (seed 003's creation: dots left unspent, a bonus count the seed
    /// prints unreadably and the rules assume, a rating above the advancement cap). Empty when
    /// nothing is; never a reason the inputs are refused.
    pub warnings: Vec<String>,
    /// Text for the person reading, as the command line prints it beside its answer (seed 003's
    /// creation: each rating's name, the personality's Asset and Flaw and its Nourishment). Absent
    /// when the analysis has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// Runs one of a rule set's analyses on the inputs its schema describes.
#[utoipa::path(
    post,
    path = "/api/v1/rules/{game}/analyses/{analysis}",
    tag = "rules",
    params(
        ("game" = String, Path, description = "the rule set's name, e.g. `luck`"),
        ("analysis" = String, Path, description = "the analysis's name, as the rule set lists it"),
    ),
    request_body(content = Object, description = "the inputs, as the analysis's `inputs` schema describes them"),
    responses(
        (status = 200, description = "the tables", body = AnalysisBody),
        (status = 404, description = "no such rule set or analysis", body = ErrorBody),
        (status = 422, description = "the inputs do not fit the schema or the rules", body = ErrorBody),
    )
)]
pub async fn analysis(
    State(state): State<AppState>,
    PathParams((game, name)): PathParams<(String, String)>,
    Body(inputs): Body<Value>,
) -> Result<Json<AnalysisBody>, ApiError> {
    let rules = rule_set(&game)?;
    let found = rules
        .analyses()
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| {
            let known: Vec<&str> = rules.analyses().iter().map(|a| a.name).collect();
            ApiError::new(
                StatusCode::NOT_FOUND,
                Problem::new("not-found", format!("{game} has no analysis `{name}`")).with_help(
                    if known.is_empty() {
                        format!("{game} offers no analyses; see its tables and actions")
                    } else {
                        format!("its analyses are: {}", known.join(", "))
                    },
                ),
            )
        })?;
    let (run, answer) = (found.run, found.answer);
    let limits = state.limits();
    let answer = state
        .inner
        .compute
        .run(move || {
            // The whole answer where the analysis has one: its JSON is what the command line
            // prints, and the API answers with no less.
            match answer {
                Some(answer) => answer(&inputs, &limits),
                None => run(&inputs, &limits).map(omen_rules::analysis::Answer::tables),
            }
            .map_err(|message| {
                ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    Problem::new("invalid", message),
                )
            })
        })
        .await??;
    Ok(Json(AnalysisBody {
        json: answer.json,
        warnings: answer.warnings,
        notes: answer.notes,
        tables: answer
            .tables
            .into_iter()
            .map(|t| AnalysisTableBody {
                caption: t.caption,
                columns: t.columns,
                rows: t.rows,
            })
            .collect(),
    }))
}

/// `POST /api/v1/rules/{game}/odds`: an action's odds for a character described by its sheet.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesOddsRequest {
    /// The character, as the game's `sheet` schema describes it.
    #[schema(value_type = Object)]
    #[serde(deserialize_with = "crate::error::object")]
    pub sheet: Value,
    /// The action, as the game's `action` schema describes it (an object with an `action` field).
    #[schema(value_type = Object)]
    #[serde(deserialize_with = "crate::error::object")]
    pub action: Value,
}

/// The exact odds of an action for a character made on the spot from a sheet: a game's
/// calculators without a campaign (the game master's view: nothing is hidden from whoever typed
/// the sheet in).
#[utoipa::path(
    post,
    path = "/api/v1/rules/{game}/odds",
    tag = "rules",
    params(("game" = String, Path, description = "the rule set's name, e.g. `t13`")),
    request_body = RulesOddsRequest,
    responses(
        (status = 200, description = "the odds, as exact fractions", body = Object),
        (status = 404, description = "no such rule set, or one whose characters take no actions", body = ErrorBody),
        (status = 422, description = "the sheet or the action breaks the rules, each problem listed", body = ErrorBody),
    )
)]
pub async fn odds(
    State(state): State<AppState>,
    PathParams(game): PathParams<String>,
    Body(request): Body<RulesOddsRequest>,
) -> Result<Json<Value>, ApiError> {
    let game = stateful(&game)?;
    let limits = state.limits();
    let odds = state
        .inner
        .compute
        .run(move || {
            let character = game.new_character(&request.sheet).map_err(refused)?;
            game.odds(&character, &request.action, &limits)
                .map_err(refused)
        })
        .await??;
    Ok(Json(odds))
}

/// `POST /api/v1/rules/{game}/sheets`: a character's sheet to check.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SheetRequest {
    #[schema(value_type = Object)]
    #[serde(deserialize_with = "crate::error::object")]
    pub sheet: Value,
}

/// A sheet that the rules accept, with the state a new character starts from.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SheetBody {
    #[schema(value_type = Object)]
    pub state: Value,
    /// What the rules allow but find unusual in the sheet, one sentence each: dots left unspent, a
    /// bonus the seed prints unreadably and the rules assume, a rating above the advancement cap.
    /// Empty when nothing is; never a reason the sheet is refused.
    pub warnings: Vec<String>,
}

/// Checks a character's sheet against the rules without saving anything: the starting state, or
/// every rule it breaks at once (guided character creation).
#[utoipa::path(
    post,
    path = "/api/v1/rules/{game}/sheets",
    tag = "rules",
    params(("game" = String, Path, description = "the rule set's name, e.g. `hprpg`")),
    request_body = SheetRequest,
    responses(
        (status = 200, description = "the sheet is valid: the new character's state, and what the rules find unusual in it", body = SheetBody),
        (status = 404, description = "no such rule set, or one whose characters keep no state", body = ErrorBody),
        (status = 422, description = "every problem with the sheet, one entry each", body = ErrorBody),
    )
)]
pub async fn sheet(
    State(state): State<AppState>,
    PathParams(game): PathParams<String>,
    Body(request): Body<SheetRequest>,
) -> Result<Json<SheetBody>, ApiError> {
    let game = stateful(&game)?;
    let (state_value, warnings) = state
        .inner
        .compute
        .run(move || {
            let created = game.new_character(&request.sheet).map_err(refused)?;
            Ok::<_, ApiError>((created, game.sheet_warnings(&request.sheet)))
        })
        .await??;
    Ok(Json(SheetBody {
        state: state_value,
        warnings,
    }))
}
