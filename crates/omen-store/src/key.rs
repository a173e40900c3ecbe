//! The signing key: an Ed25519 key kept in a file of its own beside the database (or where `--key` or
//! `OMEN_KEY` say), never in it. Whoever can write the database but not read the key cannot sign, so
//! cannot forge an entry, a seed or the chain head; whoever has only the database (and its public key)
//! can still verify everything.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

use crate::error::StoreError;

/// What the key file starts with, so a stray file is not taken for a key.
const KEY_FILE_TAG: &str = "omen-signing-key-v1";

/// The key file to use: `flag` (`--key`) first, then the `OMEN_KEY` environment variable (when set
/// and not empty), then the database's path with `.key` appended (`omen.db.key`).
pub fn resolve_key_path(flag: Option<PathBuf>, database: &Path) -> PathBuf {
    resolve_key_path_with(
        flag,
        std::env::var_os("OMEN_KEY").map(PathBuf::from),
        database,
    )
}

pub(crate) fn resolve_key_path_with(
    flag: Option<PathBuf>,
    env: Option<PathBuf>,
    database: &Path,
) -> PathBuf {
    match (flag, env) {
        (Some(path), _) => path,
        (None, Some(path)) if !path.as_os_str().is_empty() => path,
        _ => {
            let mut name = database.as_os_str().to_owned();
            name.push(".key");
            PathBuf::from(name)
        }
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// Random bytes from the operating system.
pub(crate) fn random<const N: usize>() -> Result<[u8; N], StoreError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|error| {
        StoreError::Database(format!("the system has no randomness to give: {error}"))
    })?;
    Ok(bytes)
}

/// A new random identity (128 bits, hex) for a campaign or a character: what the log names them by,
/// since names change and row ids are the database's business.
pub(crate) fn new_uid() -> Result<String, StoreError> {
    Ok(hex(&random::<16>()?))
}

/// A public key's fingerprint: the first 16 bytes of its SHA-256, in groups of four hex digits, short
/// enough to read aloud at the table.
pub fn fingerprint(public_key: &str) -> String {
    let bytes = unhex(public_key).unwrap_or_else(|| public_key.as_bytes().to_vec());
    let digest = Sha256::digest(&bytes);
    hex(&digest[..16])
        .as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(":")
}

/// The signing half, held by whoever keeps the log.
#[derive(Clone)]
pub(crate) struct Key {
    signing: SigningKey,
    /// The file it came from (none for a store in memory).
    pub(crate) path: Option<PathBuf>,
}

impl Key {
    pub(crate) fn generate() -> Result<Key, StoreError> {
        Ok(Key {
            signing: SigningKey::from_bytes(&random::<32>()?),
            path: None,
        })
    }

    /// The public key, hex.
    pub(crate) fn public(&self) -> String {
        hex(self.signing.verifying_key().as_bytes())
    }

    pub(crate) fn sign(&self, message: &[u8]) -> String {
        hex(&self.signing.sign(message).to_bytes())
    }

    /// Reads the key at `path`.
    pub(crate) fn read(path: &Path) -> Result<Key, StoreError> {
        let text = fs::read_to_string(path).map_err(|error| StoreError::Key {
            path: path.to_path_buf(),
            message: format!("cannot read it: {error}"),
        })?;
        let bad = || StoreError::Key {
            path: path.to_path_buf(),
            message: "it is not an omen signing key".to_string(),
        };
        let mut lines = text.lines();
        if lines.next() != Some(KEY_FILE_TAG) {
            return Err(bad());
        }
        let secret: [u8; 32] = lines
            .next()
            .and_then(|line| unhex(line.trim()))
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or_else(bad)?;
        Ok(Key {
            signing: SigningKey::from_bytes(&secret),
            path: Some(path.to_path_buf()),
        })
    }

    /// Writes a new key file readable by its owner only; never replaces an existing file. Missing
    /// directories on its path are made, readable by their owner only (the default place of a
    /// PostgreSQL database's key is in a data directory that a fresh machine does not have yet).
    pub(crate) fn create(path: &Path) -> Result<Key, StoreError> {
        let mut key = Key::generate()?;
        key.path = Some(path.to_path_buf());
        let failed = |error: std::io::Error| StoreError::Key {
            path: path.to_path_buf(),
            message: format!("cannot create it: {error}"),
        };
        if let Some(parent) = path.parent()
            && !parent.as_os_str().is_empty()
            && !parent.is_dir()
        {
            let mut directories = fs::DirBuilder::new();
            directories.recursive(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                directories.mode(0o700);
            }
            directories
                .create(parent)
                .map_err(|error| StoreError::Key {
                    path: path.to_path_buf(),
                    message: format!("cannot create its directory: {error}"),
                })?;
        }
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(path).map_err(failed)?;
        let text = format!(
            "{KEY_FILE_TAG}\n{}\npublic {}\n",
            hex(&key.signing.to_bytes()),
            key.public()
        );
        file.write_all(text.as_bytes()).map_err(failed)?;
        file.sync_all().map_err(failed)?;
        Ok(key)
    }
}

/// Checks `signature` (hex) of `message` by `public_key` (hex). Strict: a signature has one form.
pub(crate) fn verify(public_key: &str, message: &[u8], signature: &str) -> bool {
    let Some(key) = unhex(public_key)
        .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
        .and_then(|bytes| VerifyingKey::from_bytes(&bytes).ok())
    else {
        return false;
    };
    let Some(signature) = unhex(signature)
        .and_then(|bytes| <[u8; 64]>::try_from(bytes).ok())
        .map(|bytes| Signature::from_bytes(&bytes))
    else {
        return false;
    };
    key.verify_strict(message, &signature).is_ok()
}

/// What an entry's seed proof signs: the campaign, the entry's place and the chain before it, all known
/// before a die is rolled.
pub(crate) fn seed_message(campaign_uid: &str, sequence: u64, previous_hash: &str) -> Vec<u8> {
    format!("omen-seed-v1\n{campaign_uid}\n{sequence}\n{previous_hash}").into_bytes()
}

/// The seed a seed proof gives: the first eight bytes of its SHA-256.
pub(crate) fn seed_from_proof(proof: &str) -> u64 {
    let digest = Sha256::digest(proof.as_bytes());
    u64::from_be_bytes(digest[..8].try_into().expect("eight bytes"))
}

/// What an entry's signature signs.
pub(crate) fn entry_message(hash: &str) -> Vec<u8> {
    format!("omen-entry-v2\n{hash}").into_bytes()
}

/// What the chain head's signature signs.
pub(crate) fn head_message(campaign_uid: &str, sequence: u64, hash: &str) -> Vec<u8> {
    format!("omen-head-v1\n{campaign_uid}\n{sequence}\n{hash}").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_file_is_created_once_owner_only_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("omen.db.key");
        let key = Key::create(&path).unwrap();
        assert_eq!(Key::read(&path).unwrap().public(), key.public());
        assert!(
            Key::create(&path).is_err(),
            "an existing key is never replaced"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    /// A fresh machine has no data directory yet: the key's directories are made, owner-only, and
    /// a directory that already exists keeps its permissions.
    #[test]
    fn a_key_in_a_missing_directory_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data").join("omen").join("omen.key");
        let key = Key::create(&path).unwrap();
        assert_eq!(Key::read(&path).unwrap().public(), key.public());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(&dir.path().join("data")), 0o700);
            assert_eq!(mode(&dir.path().join("data").join("omen")), 0o700);
            let shared = dir.path().join("shared");
            fs::create_dir(&shared).unwrap();
            fs::set_permissions(&shared, fs::Permissions::from_mode(0o755)).unwrap();
            Key::create(&shared.join("omen.key")).unwrap();
            assert_eq!(
                mode(&shared),
                0o755,
                "an existing directory is left as it is"
            );
        }
        // A directory that cannot be made is named in the error.
        let blocked = dir.path().join("file");
        fs::write(&blocked, "not a directory").unwrap();
        let error = Key::create(&blocked.join("sub").join("omen.key"))
            .err()
            .expect("a file in the way");
        assert!(
            error.to_string().contains("cannot create its directory"),
            "{error}"
        );
    }

    #[test]
    fn signatures_verify_only_for_their_message_and_key() {
        let key = Key::generate().unwrap();
        let other = Key::generate().unwrap();
        let signature = key.sign(b"entry 1");
        assert!(verify(&key.public(), b"entry 1", &signature));
        assert!(!verify(&key.public(), b"entry 2", &signature));
        assert!(!verify(&other.public(), b"entry 1", &signature));
        assert!(!verify(&key.public(), b"entry 1", "00"));
    }

    #[test]
    fn seeds_are_deterministic_per_key_and_place() {
        let key = Key::generate().unwrap();
        let message = seed_message("c", 3, "ab");
        assert_eq!(key.sign(&message), key.sign(&message));
        let seed = seed_from_proof(&key.sign(&message));
        assert_ne!(
            seed,
            seed_from_proof(&key.sign(&seed_message("c", 4, "ab")))
        );
    }

    #[test]
    fn the_key_path_comes_from_the_flag_then_the_environment_then_the_database() {
        let db = Path::new("/data/omen.db");
        assert_eq!(
            resolve_key_path_with(Some("k".into()), Some("e".into()), db),
            PathBuf::from("k")
        );
        assert_eq!(
            resolve_key_path_with(None, Some("e".into()), db),
            PathBuf::from("e")
        );
        assert_eq!(
            resolve_key_path_with(None, Some("".into()), db),
            PathBuf::from("/data/omen.db.key")
        );
    }

    #[test]
    fn fingerprints_are_short_and_grouped() {
        let print = fingerprint("abcd");
        assert_eq!(print.len(), 32 + 7);
        assert_eq!(print.split(':').count(), 8);
    }
}
