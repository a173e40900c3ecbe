//! `GET /api/v1/campaigns/{campaign}/fairness`: the fairness report, bounded as every request is.
//!
//! The entries are counted on a database handle ([`omen_store::Store::fairness_tally_for`], a page
//! at a time), and the handle goes back before any computation starts. The report is then computed
//! on the computation pool under the server's limits ([`crate::Config::limits`]) for each
//! expression, with a total budget for the whole report of [`REPORT_BUDGET_RATIO`] times one
//! computation's: an expression the total cannot pay for is reported as "not checked: over the
//! budget", and the rest of the report goes on. When the request ends early (the client leaves,
//! the server's timeout) the report stops at its next computation. Each expression's exact
//! distribution is kept between reports (keyed by the expression, its parameters and the limits),
//! so a repeated report costs its tests, not its distributions.

use axum::Json;
use axum::extract::State;
use omen_store::{FairnessOptions, Viewer};
use serde_json::Value;

use crate::AppState;
use crate::auth::{Caller, Need, authorise};
use crate::error::{ApiError, ErrorBody, PathParams, QueryParams};

/// A report's total budget, in computations' work budgets.
pub const REPORT_BUDGET_RATIO: u64 = 4;

crate::filters::log_filter_query! {
    /// Which entries the report covers: the CLI's `omen log` filters.
    pub struct FairnessQuery {}
}

/// Trips its handle when dropped (the request answered, timed out or its client gone): the
/// report's running computation stops at its next charge of the budget, and the rest is skipped.
struct CancelOnDrop(omen_core::Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// The fairness report: per die type the faces against uniform, per mechanic the outcomes against
/// the exact distribution, with a goodness-of-fit test, a verdict and the test's power against
/// stated biases, per session and in all. Rolls hidden from the caller are left out.
#[utoipa::path(
    get,
    path = "/api/v1/campaigns/{campaign}/fairness",
    tag = "campaigns",
    security(("bearer" = [])),
    params(("campaign" = String, Path), FairnessQuery),
    responses(
        (status = 200, description = "the report; a mechanic the report's budget could not pay for is `untested`, its reason starting \"not checked: over the budget\"", body = Object),
        (status = 400, description = "a malformed filter", body = ErrorBody),
        (status = 401, description = "no token, or an unknown one", body = ErrorBody),
        (status = 403, description = "a token of another campaign", body = ErrorBody),
        (status = 404, description = "no such campaign", body = ErrorBody),
    )
)]
pub async fn fairness(
    State(state): State<AppState>,
    Caller(member): Caller,
    PathParams(campaign): PathParams<String>,
    QueryParams(query): QueryParams<FairnessQuery>,
) -> Result<Json<Value>, ApiError> {
    let redactor = authorise(&member, &campaign, Need::Read)?;
    let filter = query.filter(&campaign);
    let tally = state
        .inner
        .db
        .with(move |store| {
            store.campaign(&campaign)?;
            store.fairness_tally_for(&campaign, &filter, &Viewer::Member(member))
        })
        .await
        .map_err(|e| redactor.error(e, &[]))?;
    // The request's limits carry its cancellation handle and deadline; the handle is tripped when
    // the request ends, whatever ends it.
    let limits = state.limits();
    let _cancel = CancelOnDrop(limits.cancel.clone());
    let options = FairnessOptions {
        total_budget: Some(limits.work_budget.saturating_mul(REPORT_BUDGET_RATIO)),
        limits,
        cache: Some(state.inner.fairness_cache.clone()),
    };
    let report = state
        .inner
        .compute
        .run(move || tally.report(&options))
        .await?;
    Ok(Json(serde_json::to_value(report).unwrap_or_default()))
}
