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

/// `approximate` without `"dialect": "anydice"`: Omen's notation is always computed exactly, as
/// the command line's `--approximate` without `--dialect anydice` is refused. 422, not 400: the
/// request fits the document (the field is optional for every dialect); only its meaning is refused.
pub(crate) fn approximate_refused() -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        Problem::new(
            "invalid",
            "`approximate` is for AnyDice programs; Omen's notation is always computed exactly",
        )
        .with_help(
            "drop `approximate`, or set `\"dialect\": \"anydice\"` if the expressions are AnyDice \
             programs",
        ),
    )
}

/// The precision a request asks for: exact without `approximate`, else its digits, within
/// [`anydice::MAX_DIGITS`] (the ceiling the OpenAPI document states).
fn precision(approximate: Option<u32>) -> Result<anydice::Precision, ApiError> {
    match approximate {
        None => Ok(anydice::Precision::Exact),
        Some(digits) if (1..=anydice::MAX_DIGITS).contains(&digits) => {
            Ok(anydice::Precision::Digits(digits))
        }
        Some(digits) => Err(ApiError::bad_request(format!(
            "approximate {digits} is out of range; give 1 to {} significant digits, or leave it \
             out for the exact answer",
            anydice::MAX_DIGITS
        ))),
    }
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
    let precision = precision(request.approximate)?;
    let limit = state.inner.config.limits.max_output;
    let mut results = Vec::new();
    let mut bytes: u64 = 0;
    for (index, program) in request.expressions.into_iter().enumerate() {
        let limits = limits.clone();
        let odds = state
            .inner
            .compute
            .run(move || program_odds(&program, &limits, precision))
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

/// One program's outputs as odds; its warnings ride with its first output, except the warning that
/// the answer is approximate, which every output computed after a rounding carries (and no other).
fn program_odds(
    program: &str,
    limits: &omen_core::Limits,
    precision: anydice::Precision,
) -> Result<Vec<Odds>, ApiError> {
    let run = anydice::run_with(program, limits, precision)
        .map_err(|errors| ApiError::language(&errors, &[]))?;
    let (approximate, others): (Vec<_>, Vec<_>) = run
        .warnings
        .iter()
        .map(Problem::from_diagnostic)
        .partition(|w| w.kind == "approximate");
    let mut warnings = others;
    let mut out = Vec::with_capacity(run.outputs.len());
    for output in run.outputs {
        let (outcomes, mode, statistics) = match &output.distribution {
            Some(d) => (rows(d), modes(d), Some(d.statistics())),
            None => (Vec::new(), Vec::new(), None),
        };
        let mut warnings = std::mem::take(&mut warnings);
        if output.approximate {
            warnings.extend(approximate.iter().cloned());
        }
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
            warnings,
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
            anydice::Precision::Exact,
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
        let limits = omen_core::Limits::default();
        assert!(program_odds("output [nothing]", &limits, anydice::Precision::Exact).is_err());
    }

    #[test]
    fn approximate_is_bounded_by_the_ceiling_the_document_states() {
        assert!(precision(None).is_ok_and(|p| p == anydice::Precision::Exact));
        assert!(precision(Some(0)).is_err());
        assert!(precision(Some(anydice::MAX_DIGITS)).is_ok());
        assert!(precision(Some(anydice::MAX_DIGITS + 1)).is_err());
        // The schema's `maximum` is a literal (utoipa's attribute): it must be the engine's ceiling.
        let document = serde_json::to_value(crate::openapi()).unwrap();
        let field = &document["components"]["schemas"]["ProbRequest"]["properties"]["approximate"];
        assert_eq!(
            field["maximum"],
            serde_json::json!(anydice::MAX_DIGITS),
            "{field}"
        );
        assert_eq!(field["minimum"], serde_json::json!(1), "{field}");
    }
}
