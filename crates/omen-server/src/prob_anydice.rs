//! `POST /api/v1/prob` with `"dialect": "anydice"`: each expression is a whole AnyDice program, run
//! on the computation pool under the request's limits (its work budget, its cancellation), and each
//! of its `output`s is one entry of `results`, in program order, with `reading` holding the label
//! AnyDice gives it (`output K`, or the name with `[VAR]` filled in).

use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use omen_lang::anydice;
use utoipa::openapi::{RefOr, Schema};

use super::{
    MAX_EXPRESSIONS, Odds, ProbRequest, ProbResponse, modes, request_limits, rows, size,
    too_much_output,
};
use crate::AppState;
use crate::error::{ApiError, Problem};

/// The dialect's name in a request.
pub(crate) const ANYDICE: &str = "anydice";

/// Whether a request names the AnyDice dialect (in any case, with surrounding spaces, as the server
/// reads every dialect's name).
pub(crate) fn is_anydice(name: Option<&str>) -> bool {
    name.is_some_and(|name| name.trim().eq_ignore_ascii_case(ANYDICE))
}

/// `"dialect": "anydice"` where an expression is rolled (`/roll`, a campaign's rolls): an AnyDice
/// program has outputs, not one roll, and only `/prob` runs it.
pub(crate) fn refused() -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        Problem::new(
            "unsupported-dialect",
            "the anydice dialect is a whole AnyDice program, which only POST /api/v1/prob runs",
        )
        .with_help(
            "compute the program's odds with /api/v1/prob, or roll its Omen spelling \
             (`omen translate --from anydice PROGRAM` prints it) in Omen's notation",
        ),
    )
}

/// `/prob`'s dialects: the language's notations and AnyDice's programs. The other routes take the
/// notations only ([`crate::schema::dialect`]).
pub(crate) fn dialect_schema() -> RefOr<Schema> {
    let names: Vec<&str> = omen_lang::syntax::dialect::Dialect::names()
        .chain([ANYDICE])
        .collect();
    crate::schema::nullable(crate::schema::words(
        &names,
        "The dialect the expressions are written in (default `omen`); `anydice` reads each as a \
         whole AnyDice program.",
    ))
}

pub(crate) async fn prob(
    state: AppState,
    request: ProbRequest,
) -> Result<(HeaderMap, Json<ProbResponse>), ApiError> {
    if request.expressions.is_empty() || request.expressions.len() > MAX_EXPRESSIONS {
        return Err(ApiError::bad_request(format!(
            "{} programs given; give 1 to {MAX_EXPRESSIONS}",
            request.expressions.len()
        )));
    }
    if !request.params.is_empty() || !request.expression_params.is_empty() {
        return Err(ApiError::bad_request(
            "AnyDice programs take no params; set a variable in the program instead".to_string(),
        ));
    }
    let limits = request_limits(&state.limits(), request.explode_depth)?;
    let limit = state.inner.config.limits.max_output;
    let mut results = Vec::new();
    let mut bytes: u64 = 0;
    for (index, program) in request.expressions.into_iter().enumerate() {
        let limits = limits.clone();
        let odds = state
            .inner
            .compute
            .run(move || program_odds(&program, &limits))
            .await
            .and_then(|odds| odds)
            .map_err(|error| error.in_expression(index))?;
        for one in odds {
            bytes = bytes.saturating_add(size(&one));
            if bytes > limit {
                return Err(too_much_output(limit).in_expression(index));
            }
            results.push(one);
        }
    }
    let mut headers = HeaderMap::new();
    headers.insert("x-omen-cache", HeaderValue::from_static("miss"));
    Ok((headers, Json(ProbResponse { results })))
}

/// One program's outputs as odds; its warnings ride with its first output.
fn program_odds(program: &str, limits: &omen_core::Limits) -> Result<Vec<Odds>, ApiError> {
    let run = anydice::run(program, limits).map_err(|errors| ApiError::language(&errors, &[]))?;
    let mut warnings: Vec<Problem> = run.warnings.iter().map(Problem::from_diagnostic).collect();
    let mut out = Vec::with_capacity(run.outputs.len());
    for output in run.outputs {
        let (outcomes, mode, statistics) = match &output.distribution {
            Some(d) => (rows(d), modes(d), Some(d.statistics())),
            None => (Vec::new(), Vec::new(), None),
        };
        out.push(Odds {
            expression: program.to_string(),
            reading: output.label,
            params: Vec::new(),
            outcomes,
            mean: statistics.as_ref().map(|s| s.mean.to_string()),
            variance: statistics.as_ref().map(|s| s.variance.to_string()),
            standard_deviation: statistics.as_ref().map(|s| s.standard_deviation()),
            median: statistics
                .as_ref()
                .map(|s| serde_json::Value::from(s.median)),
            mode,
            depth_limit_probability: "0".to_string(),
            expected_steps: None,
            warnings: std::mem::take(&mut warnings),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_output_is_one_result_with_its_label_in_reading() {
        let Ok(odds) = program_odds(
            "output d4\noutput 2d4 named \"two\"",
            &omen_core::Limits::default(),
        ) else {
            panic!("the program runs");
        };
        assert_eq!(odds.len(), 2);
        assert_eq!(
            (odds[0].reading.as_str(), odds[1].reading.as_str()),
            ("output 1", "two")
        );
        // By hand: P(2d4 = 2) = 1/16; the mean of d4 is 5/2.
        assert_eq!(odds[1].outcomes[0].probability, "1/16");
        assert_eq!(odds[0].mean.as_deref(), Some("5/2"));
    }

    #[test]
    fn a_program_error_is_refused() {
        assert!(program_odds("output [nothing]", &omen_core::Limits::default()).is_err());
    }
}
