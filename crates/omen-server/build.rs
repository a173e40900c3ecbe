//! Decides, when the tests are built, whether the web page's browser tests can run: they need
//! Chromium (`/usr/bin/chromium`, or `OMEN_CHROMIUM`) and `chromedriver` on the `PATH`. Without them
//! those tests are compiled as ignored, so `cargo test` lists each by name as `ignored` with what it
//! needs. Under CI (`CI` set) nothing is ignored: a missing browser fails those tests there.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(omen_no_browser)");
    for variable in ["PATH", "OMEN_CHROMIUM", "CI", "OMEN_SKIP_BROWSER_TESTS"] {
        println!("cargo::rerun-if-env-changed={variable}");
    }
    let chromium = std::env::var_os("OMEN_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let chromedriver = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain([PathBuf::from("/usr/bin")])
        .map(|dir| dir.join("chromedriver"))
        .find(|path| path.is_file());
    // Installing the browser later must rebuild the tests: watch the file when it is there, else
    // the directory it would appear in.
    for path in [Some(chromium.clone()), chromedriver.clone()]
        .into_iter()
        .flatten()
    {
        println!("cargo::rerun-if-changed={}", path.display());
    }
    let missing = chromedriver.is_none() || !chromium.is_file();
    if missing && let Some(dir) = chromium.parent().filter(|dir| dir.is_dir()) {
        println!("cargo::rerun-if-changed={}", dir.display());
    }
    let ci = std::env::var_os("CI").is_some_and(|value| !value.is_empty());
    let skip = std::env::var_os("OMEN_SKIP_BROWSER_TESTS").is_some();
    if skip || (!ci && missing) {
        println!("cargo::rustc-cfg=omen_no_browser");
    }
}
