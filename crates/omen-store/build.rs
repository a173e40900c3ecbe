//! Decides, when the tests are built, whether there is a PostgreSQL server to test against. Without
//! `OMEN_TEST_POSTGRES_URL` the tests that need one are compiled as ignored, so `cargo test` lists
//! each by name as `ignored` with what it needs, instead of counting it as passed. Under CI (`CI`
//! set) nothing is ignored: a missing server fails those tests there. omen-cli builds with this
//! script too, for its own PostgreSQL tests.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(omen_no_postgres)");
    println!("cargo::rustc-check-cfg=cfg(omen_no_postgres_tls)");
    for variable in ["OMEN_TEST_POSTGRES_URL", "OMEN_TEST_POSTGRES_CA", "CI"] {
        println!("cargo::rerun-if-env-changed={variable}");
    }
    let set = |name: &str| std::env::var_os(name).is_some_and(|value| !value.is_empty());
    if set("CI") {
        return;
    }
    if !set("OMEN_TEST_POSTGRES_URL") {
        println!("cargo::rustc-cfg=omen_no_postgres");
    }
    if !set("OMEN_TEST_POSTGRES_URL") || !set("OMEN_TEST_POSTGRES_CA") {
        println!("cargo::rustc-cfg=omen_no_postgres_tls");
    }
}
