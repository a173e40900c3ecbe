//! A character kept in a JSON state file (`--state FILE`): made from its sheet when the file is
//! missing, read back checked against its game, and replaced atomically under a lock, so concurrent
//! updates queue and a failed write leaves the old file whole.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use omen_rules::stateful::Game;
use serde_json::{Value, json};

use crate::json_input::{MAX_JSON_FILE, read_text_at_most};

/// A state file's contents: the rule set, the state's version, the state.
pub fn envelope(game: &dyn Game, state: &Value) -> Value {
    json!({ "rules": game.name(), "version": game.state_version(), "state": state })
}

/// Writes `contents` to `path` through a temporary file in the same directory and a rename, so a reader
/// (or a crash) sees the old file or the new one, never half of one.
pub fn write_atomically(path: &Path, contents: &str) -> io::Result<()> {
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = directory.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = fs::File::create(&temporary)?;
        file.write_all(contents.as_bytes())?;
        file.sync_all()?;
        fs::rename(&temporary, path)?;
        // The rename lives in the directory: syncing it makes the new file survive a crash. Best
        // effort: the new state is in place by now, so a failure here is no failed write.
        #[cfg(unix)]
        if let Ok(dir) = fs::File::open(directory) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// The lock that serialises updates of one state file between processes: an exclusive advisory lock
/// (the standard library's `File::lock`, `flock` on Unix) on `.NAME.lock` beside it, held from
/// reading the state to renaming the new one into place. The lock file is the only file left beside
/// the state; the state itself cannot carry the lock, since each update replaces it.
pub struct StateLock {
    _file: fs::File,
}

/// Waits for the lock of the state file `path`, then removes the temporary files a process killed in
/// the middle of a write left behind (no other writer can be writing one while the lock is held).
pub fn lock_state_file(path: &Path) -> io::Result<StateLock> {
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(directory.join(format!(".{name}.lock")))?;
    file.lock()?;
    let stale = format!(".{name}.");
    if let Ok(entries) = fs::read_dir(directory) {
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let file_name = file_name.to_string_lossy();
            if let Some(middle) = file_name
                .strip_prefix(&stale)
                .and_then(|rest| rest.strip_suffix(".tmp"))
                && middle.bytes().all(|b| b.is_ascii_digit())
            {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    Ok(StateLock { _file: file })
}

/// A new character from `--sheet`; without one, from the empty sheet when the game allows it, else an
/// error saying a sheet is needed (rather than the sheet's shape error about an empty object).
pub fn new_character(
    game: &dyn Game,
    sheet: Option<&Value>,
    missing: Option<&Path>,
) -> Result<Value, String> {
    match sheet {
        Some(sheet) => game.new_character(sheet).map_err(|e| e.to_string()),
        None => game.new_character(&json!({})).map_err(|_| {
            let whose = missing.map_or(String::new(), |path| {
                format!("{} does not exist yet, so ", path.display())
            });
            format!(
                "{whose}a new {} character needs a sheet: give --sheet JSON (or @FILE); \
                 `omen rules` lists what a sheet holds",
                game.name()
            )
        }),
    }
}

pub fn load_state_file(
    game: &dyn Game,
    path: &Path,
    sheet: Option<&Value>,
) -> Result<(Value, bool), String> {
    if !path.exists() {
        return Ok((new_character(game, sheet, Some(path))?, true));
    }
    // The file's character is the one acted for: a sheet given too would be dropped unseen.
    if sheet.is_some() {
        return Err(format!(
            "--sheet makes a new character, but {} already holds one; drop --sheet to act for it, \
             or give another --state file for a new character",
            path.display()
        ));
    }
    let text = read_text_at_most(
        path,
        MAX_JSON_FILE,
        "a state file is far smaller; check the path",
    )?;
    let file: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a state file: {e}", path.display()))?;
    let rules = file.get("rules").and_then(Value::as_str).unwrap_or("");
    if rules != game.name() {
        return Err(format!(
            "{} holds a `{rules}` character, not a `{}` one; use another --state file",
            path.display(),
            game.name()
        ));
    }
    let version = file
        .get("version")
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("{} has no state version", path.display()))?;
    let state = game
        .load(version, file.get("state").unwrap_or(&Value::Null))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((state, false))
}
