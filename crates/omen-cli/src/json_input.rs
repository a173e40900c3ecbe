//! JSON given on the command line: as text, or as `@FILE` read with a size limit.

use std::fs;
use std::io;
use std::path::Path;

use serde_json::Value;

/// The most bytes read from a JSON file given as `@FILE`, a `--state` file or a sheet: far more than
/// any character needs, and little enough that `@/dev/zero` is refused at once. (`omen import` has its
/// own flag, `--max-input`.) serde_json refuses nesting deeper than 128 on its own.
pub const MAX_JSON_FILE: u64 = 16 << 20;

/// Reads a UTF-8 file (`-` is stdin) of at most `limit` bytes, without reading more than one byte past
/// it.
///
/// # Errors
/// The file cannot be read, is longer than `limit` (the message names `flag` as the way to raise it)
/// or is not UTF-8.
pub fn read_text_at_most(path: &Path, limit: u64, flag: &str) -> Result<String, String> {
    use std::io::Read;
    let name = path.display();
    let mut bytes = Vec::new();
    let read = if path.as_os_str() == "-" {
        io::stdin().lock().take(limit + 1).read_to_end(&mut bytes)
    } else {
        fs::File::open(path).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
    };
    read.map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "{name} is larger than {limit} bytes (the limit); {flag}"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{name} is not UTF-8 text: invalid byte at offset {}",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Reads JSON given as text or as `@FILE`.
pub fn json_argument(text: &str) -> Result<Value, String> {
    let (origin, content) = match text.strip_prefix('@') {
        Some(path) => (
            path.to_string(),
            read_text_at_most(
                Path::new(path),
                MAX_JSON_FILE,
                "a character or action is far smaller; check the file",
            )?,
        ),
        None => ("the argument".to_string(), text.to_string()),
    };
    serde_json::from_str(&content)
        .map_err(|e| format!("{origin} is not valid JSON: {e}; give an object like {{\"key\": 1}}"))
}
