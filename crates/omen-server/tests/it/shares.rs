//! From an attacker's side: one address keeps the computation pool busy with computations that
//! spend the whole work budget, and another address asks small questions. Fairness is checked by
//! counts and by the order in which answers come back, never by how fast they come.

use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::io::AsyncWriteExt;

use crate::connections::{connect_from, read_answer};
use crate::live::start;

/// A `prob` request for `expression` from `source`, on a connection of its own.
async fn prob_from(
    source: &str,
    address: std::net::SocketAddr,
    expression: &str,
) -> crate::connections::Raw {
    let body = json!({ "expressions": [expression] }).to_string();
    let text = format!(
        "POST /api/v1/prob HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = connect_from(source, address).await;
    stream.write_all(text.as_bytes()).await.unwrap();
    read_answer(&mut stream).await.expect("an answer")
}

/// A costly computation: the costliest of the README's performance suite, about 340 million of
/// the 500 million steps of the server's work budget; a new program each time, so the cache never
/// answers it.
fn heavy(n: usize) -> String {
    format!("9d20!>=18dl9<=19 + {n}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_starve_another_of_the_pool() {
    let mut config = crate::config();
    config.compute_threads = 2;
    config.computations_per_client = 4;
    // Long enough that no request here is refused for waiting: only the shares decide.
    config.queue_timeout = std::time::Duration::from_secs(60);
    config.request_timeout = std::time::Duration::from_secs(120);
    let live = start(crate::state_with(config)).await;
    let address = live.address;
    let order = Arc::new(Mutex::new(Vec::new()));
    let (refusals, refused) = tokio::sync::mpsc::unbounded_channel();
    // The attacker: six heavy computations at once from 127.0.0.1.
    let mut attack = Vec::new();
    for n in 0..6 {
        let (order, refusals) = (order.clone(), refusals.clone());
        attack.push(tokio::spawn(async move {
            let answer = prob_from("127.0.0.1", address, &heavy(n)).await;
            if answer.status == 429 {
                assert!(answer.head.contains("retry-after"));
                let _ = refusals.send(());
            } else {
                order.lock().unwrap().push("heavy");
            }
            answer.status
        }));
    }
    drop(refusals);
    // Two of the six are refused at once: four is this address's share.
    let mut refused = refused;
    for _ in 0..2 {
        refused.recv().await.expect("a refusal");
    }
    // Now all four are running or waiting. The other address's small questions are answered
    // before any of the attacker's: one thread is never the attacker's to take.
    for n in 0..5 {
        let answer = prob_from("127.0.0.2", address, &format!("3d6 + {n}")).await;
        assert_eq!(answer.status, 200);
        order.lock().unwrap().push("small");
    }
    let mut statuses = Vec::new();
    for task in attack {
        statuses.push(task.await.unwrap());
    }
    statuses.sort_unstable();
    assert_eq!(
        statuses.iter().filter(|&&s| s == 429).count(),
        2,
        "{statuses:?}"
    );
    let order = order.lock().unwrap().clone();
    assert_eq!(
        &order[..5],
        &["small"; 5],
        "the small questions waited behind the heavy ones: {order:?}"
    );
}

/// A server with one computation thread, a work budget of hours (the ceiling) and a request
/// timeout of `timeout`: a computation is stopped by its request's end or by nothing.
async fn one_thread_no_budget(timeout: std::time::Duration) -> crate::live::Live {
    let mut config = crate::config();
    config.compute_threads = 1;
    config.limits.work_budget = omen_core::Ceilings::WORK_BUDGET;
    config.request_timeout = timeout;
    config.queue_timeout = std::time::Duration::from_secs(60);
    start(crate::state_with(config)).await
}

/// Far more than the test's patience of work at the budget's ceiling, charged as it goes: a
/// recursion that doubles its calls at every level.
fn endless() -> String {
    "fn f(n) = if n <= 0 then d6 else f(n - 1) + f(n - 1); f(40)".to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_computation_stops_when_its_request_times_out() {
    let live = one_thread_no_budget(std::time::Duration::from_millis(300)).await;
    let timed_out = prob_from("127.0.0.1", live.address, &endless()).await;
    assert_eq!(timed_out.status, 503);
    assert!(timed_out.head.contains("retry-after"));
    // The one thread is free again: the endless computation stopped with its request. Asked
    // until answered, since a small question has the same short timeout while the thread is
    // still being given back; without the stop, none is answered for minutes.
    let patience = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let small = prob_from("127.0.0.2", live.address, "3d6").await;
        if small.status == 200 {
            break;
        }
        assert_eq!(small.status, 503);
        assert!(
            std::time::Instant::now() < patience,
            "the thread stayed busy"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_computation_stops_when_its_client_goes_away() {
    let live = one_thread_no_budget(std::time::Duration::from_secs(600)).await;
    let body = json!({ "expressions": [endless()] }).to_string();
    let text = format!(
        "POST /api/v1/prob HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut gone = connect_from("127.0.0.1", live.address).await;
    gone.write_all(text.as_bytes()).await.unwrap();
    // Whether or not the computation has started when the client goes, it must not run on.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    drop(gone);
    let small = prob_from("127.0.0.2", live.address, "3d6").await;
    assert_eq!(small.status, 200);
}
