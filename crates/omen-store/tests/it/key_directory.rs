//! The signing key of a new database is made where it is asked for, directories included: on a fresh
//! machine the data directory that holds a PostgreSQL database's key does not exist yet.

use omen_store::Store;

#[test]
fn a_key_in_a_missing_directory_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("fresh").join("omen").join("omen.key");
    let mut store = Store::open_with_key(&dir.path().join("omen.db"), &key).unwrap();
    store.create_campaign("Tak").unwrap();
    assert!(key.is_file(), "the key was made");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for made in [
            dir.path().join("fresh"),
            dir.path().join("fresh").join("omen"),
        ] {
            let mode = std::fs::metadata(&made).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", made.display());
        }
    }
    // The key signs: the campaign's log verifies under it.
    let report = store.verify("Tak").unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
}
