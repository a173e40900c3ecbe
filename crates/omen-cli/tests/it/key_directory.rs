//! `omen campaign new` on a fresh machine: the signing key's directory does not exist yet (the
//! platform data directory, where a PostgreSQL database's key goes by default), and is made,
//! readable by its owner only.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::campaign::ScratchPostgres;
use crate::{Run, scratch_dir};

/// `omen ARGS` with a home and a data directory of the test's own, neither of which exists yet.
fn on_a_fresh_machine(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_omen"))
        .args(args)
        .env("HOME", dir.join("home"))
        .env(
            "XDG_DATA_HOME",
            dir.join("home").join(".local").join("share"),
        )
        .env_remove("OMEN_KEY")
        .env_remove("OMEN_DB")
        .env_remove("OMEN_DIALECT")
        .output()
        .expect("the omen binary runs");
    Run {
        code: output.status.code().expect("omen exits"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Every file named `name` under `dir`.
fn find(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(find(&path, name));
        } else if path.file_name().is_some_and(|file| file == name) {
            found.push(path);
        }
    }
    found
}

/// The key file is its owner's alone, and so is each directory made for it below `top`.
fn assert_owner_only(key: &Path, top: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(key), 0o600, "{}", key.display());
        let mut directory = key.parent();
        while let Some(made) = directory.filter(|made| made.starts_with(top) && *made != top) {
            assert_eq!(mode(made), 0o700, "{}", made.display());
            directory = made.parent();
        }
    }
    #[cfg(not(unix))]
    let _ = (key, top);
}

#[test]
fn a_key_in_a_missing_directory_is_created() {
    let dir = scratch_dir("key_directory");
    let db = dir.join("omen.db");
    let key = dir.join("keys").join("tak").join("omen.key");
    let run = on_a_fresh_machine(
        &dir,
        &[
            "campaign",
            "new",
            "Tak",
            "--db",
            db.to_str().unwrap(),
            "--key",
            key.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(key.is_file(), "the key was made");
    assert_owner_only(&key, &dir);
    let run = on_a_fresh_machine(
        &dir,
        &[
            "log",
            "verify",
            "Tak",
            "--db",
            db.to_str().unwrap(),
            "--key",
            key.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// The case as reported: a PostgreSQL database, the key in its default place, the data directory
/// missing. Runs when there is a PostgreSQL server to test on.
#[test]
fn a_postgres_campaign_on_a_fresh_machine_makes_its_key_directory() {
    let Some(scratch) = ScratchPostgres::new("fresh_key") else {
        return;
    };
    let dir = scratch_dir("key_directory_postgres");
    let run = on_a_fresh_machine(&dir, &["campaign", "new", "Tak", "--db", &scratch.url]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let keys = find(&dir.join("home"), "postgres.key");
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert_owner_only(&keys[0], &dir.join("home"));
}
