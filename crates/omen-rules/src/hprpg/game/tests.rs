use super::prepare::fit_allocation;
use crate::hprpg::Degree;
use crate::hprpg::OptionalSuccesses;
use serde_json::json;

#[test]
fn fit_allocation_fills_overpower_then_defy_then_extend() {
    let asked = OptionalSuccesses {
        overpower: 2,
        defy: 2,
        extend: 2,
    };
    assert_eq!(
        fit_allocation(asked, 3),
        OptionalSuccesses {
            overpower: 2,
            defy: 1,
            extend: 0
        }
    );
    assert_eq!(fit_allocation(asked, 9), asked);
}

#[test]
fn degree_names_serialise_in_results() {
    assert_eq!(json!(Degree::Good), json!("good"));
}
