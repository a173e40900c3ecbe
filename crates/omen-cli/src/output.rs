//! Where a command's result goes: stdout, or the file `-o FILE` names.
//!
//! Every command writes its result through [`result`]. With `-o FILE` the result is written to a
//! temporary file beside FILE and renamed over it only when the command succeeds, so a failed command or
//! a failed write leaves an existing FILE as it was. Diagnostics always go to stderr.

use std::fs::File;
use std::io::{self, StdoutLock, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use tempfile::NamedTempFile;

/// The file being written, and where it goes when the command succeeds.
pub struct Pending {
    path: PathBuf,
    temporary: NamedTempFile,
}

static PENDING: OnceLock<Mutex<Option<Pending>>> = OnceLock::new();

fn pending() -> MutexGuard<'static, Option<Pending>> {
    PENDING
        .get_or_init(|| Mutex::new(None))
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Sends results to `path` instead of stdout, from now until [`finish`].
///
/// # Errors
/// The directory of `path` does not exist or a file cannot be created in it.
pub fn to_file(path: &Path) -> io::Result<()> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    // A result file is an ordinary file, readable like any other the user writes (a temporary file
    // would otherwise stay private to its owner).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let temporary = builder.tempfile_in(directory)?;
    *pending() = Some(Pending {
        path: path.to_path_buf(),
        temporary,
    });
    Ok(())
}

/// The file results go to, if `-o` named one.
pub fn file() -> Option<PathBuf> {
    pending().as_ref().map(|p| p.path.clone())
}

/// Keeps what was written (renamed over the named file) when `keep`, or throws it away.
///
/// # Errors
/// Flushing or renaming the file failed; the named file is then unchanged.
pub fn finish(keep: bool) -> io::Result<()> {
    let Some(Pending { path, temporary }) = pending().take() else {
        return Ok(());
    };
    if keep {
        temporary.as_file().sync_all()?;
        temporary.persist(&path).map_err(|e| e.error)?;
        // The rename is durable once the directory is synced.
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
            && let Ok(directory) = File::open(parent)
        {
            let _ = directory.sync_all();
        }
    }
    Ok(())
}

/// The writer for a command's result.
pub fn result() -> Out {
    let guard = pending();
    if guard.is_some() {
        Out::File(guard)
    } else {
        drop(guard);
        Out::Stdout(io::stdout().lock())
    }
}

pub enum Out {
    Stdout(StdoutLock<'static>),
    File(MutexGuard<'static, Option<Pending>>),
}

impl Out {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Out::Stdout(out) => out,
            Out::File(guard) => match guard.as_mut() {
                Some(pending) => pending.temporary.as_file_mut(),
                // `result` hands out a file guard only while a file is pending.
                None => unreachable!("no pending file"),
            },
        }
    }

    /// Whether the result goes to a terminal (and so may be fitted to its width).
    pub fn is_terminal(&self) -> bool {
        use std::io::IsTerminal;
        matches!(self, Out::Stdout(out) if out.is_terminal())
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}
