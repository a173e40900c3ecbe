//! Where a computation runs: on a thread with a stack deep enough for any program the language
//! admits (`omen_lang::STACK_BYTES`), while the calling thread gives up the GIL and wakes every few
//! milliseconds to let Python run its signal handlers. Ctrl-C (a `KeyboardInterrupt` from a
//! handler) trips the computation's `Cancel`, which stops it at its next charge of the work budget;
//! the call waits for the computation to end before it raises, so none outlives its call.
//!
//! Threads are kept for the next call (a few, idle): starting one with a 512 MiB stack costs more
//! than a small computation such as `3d6` does.

use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::Builder;
use std::time::Duration;

use omen_core::Cancel;
use pyo3::exceptions::{PyMemoryError, PyRuntimeError};
use pyo3::prelude::*;

/// How often a waiting call checks for signals: short enough that Ctrl-C feels immediate, long
/// enough that the waiting thread costs nothing measurable.
const POLL: Duration = Duration::from_millis(20);

/// The stacks tried, largest first: an address-space limit (`ulimit -v`) may refuse the largest
/// reservation, and every profile of the workspace optimises the language, whose deepest admitted
/// walk then fits in far less (see the CLI's `worker` module, which measured it).
const STACK_SIZES: [usize; 3] = [omen_lang::STACK_BYTES, 128 << 20, 64 << 20];

/// Idle threads kept for later calls; more calls at once start more threads, which end after.
const MOST_IDLE: usize = 2;

type Job = Box<dyn FnOnce() + Send>;

/// A thread that runs the jobs sent to it, one at a time.
struct Worker {
    jobs: Sender<Job>,
    /// The process that started the thread: a child made by `os.fork()` (multiprocessing) inherits
    /// the list of idle workers but not their threads, and a job sent to one would wait forever.
    process: u32,
}

static IDLE: Mutex<Vec<Worker>> = Mutex::new(Vec::new());

fn idle() -> std::sync::MutexGuard<'static, Vec<Worker>> {
    IDLE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn start() -> std::io::Result<Worker> {
    let mut last_error = None;
    for size in STACK_SIZES {
        let (jobs, queue) = mpsc::channel::<Job>();
        let started = Builder::new()
            .name("omen".to_string())
            .stack_size(size)
            .spawn(move || {
                // Ends when its sender is dropped (more idle threads than kept), or with a panic.
                while let Ok(job) = queue.recv() {
                    job();
                }
            });
        match started {
            Ok(_) => {
                return Ok(Worker {
                    jobs,
                    process: std::process::id(),
                });
            }
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error.unwrap_or_else(|| std::io::Error::other("no stack size to try")))
}

/// Hands `job` to an idle thread, or to a new one.
fn submit(mut job: Job) -> std::io::Result<Worker> {
    loop {
        let Some(worker) = idle().pop() else { break };
        if worker.process != std::process::id() {
            // Inherited through a fork: its thread is in the parent.
            continue;
        }
        match worker.jobs.send(job) {
            Ok(()) => return Ok(worker),
            // That thread died with a panic: try the next.
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    let worker = start()?;
    worker
        .jobs
        .send(job)
        .map_err(|_| std::io::Error::other("the new thread ended at once"))?;
    Ok(worker)
}

fn release(worker: Worker) {
    let mut idle = idle();
    if idle.len() < MOST_IDLE {
        idle.push(worker);
    }
}

/// The stack a program without functions of its own may need at most: its walks are bounded by
/// [`omen_lang::MAX_NESTING`], and the deepest such program measured fits in 512 KiB (release
/// build); this keeps a margin of sixteen.
const SHALLOW_STACK: u64 = 8 << 20;

/// Whether a program without functions of its own may run on the calling thread: only Python's
/// main thread, whose stack is the process's stack limit, and only where that limit is known to be
/// at least [`SHALLOW_STACK`] (another thread's stack may be as small as 128 KiB).
///
/// Asked once per thread: the two system calls cost more than half a microsecond, an eighth of a
/// small `prob` call. A stack limit lowered afterwards (`resource.setrlimit`) is not seen.
#[cfg(target_os = "linux")]
pub fn may_run_shallow_here() -> bool {
    use rustix::process::{Resource, getpid, getrlimit};
    thread_local! {
        static SHALLOW_HERE: std::cell::OnceCell<bool> = const { std::cell::OnceCell::new() };
    }
    SHALLOW_HERE.with(|here| {
        *here.get_or_init(|| {
            rustix::thread::gettid() == getpid()
                && getrlimit(Resource::Stack)
                    .current
                    .is_none_or(|bytes| bytes >= SHALLOW_STACK)
        })
    })
}

/// Elsewhere every computation goes to the worker thread.
#[cfg(not(target_os = "linux"))]
pub fn may_run_shallow_here() -> bool {
    false
}

/// Waits without the GIL for up to [`POLL`].
fn wait<T: Send>(
    py: Python<'_>,
    answers: Receiver<T>,
) -> (Result<T, RecvTimeoutError>, Receiver<T>) {
    py.detach(move || (answers.recv_timeout(POLL), answers))
}

/// Runs `work` on a worker thread without the GIL, stopping it through `cancel` when a signal
/// handler raises (Ctrl-C).
///
/// # Errors
/// The signal handler's exception (`KeyboardInterrupt`), `MemoryError` when no thread with a
/// large enough stack can be started, `RuntimeError` when the computation panicked (a bug).
pub fn run<T: Send + 'static>(
    py: Python<'_>,
    cancel: &Cancel,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (answer, mut answers) = mpsc::sync_channel(1);
    let worker = submit(Box::new(move || {
        // The receiver is gone only if the call itself is gone; nothing to tell then.
        let _ = answer.send(work());
    }))
    .map_err(|error| {
        PyMemoryError::new_err(format!(
            "cannot start the computation's thread: {error}; raise the address-space limit (ulimit -v)"
        ))
    })?;
    let mut interrupt = None;
    loop {
        let (got, back) = wait(py, answers);
        answers = back;
        match got {
            Ok(value) => {
                release(worker);
                return match interrupt {
                    Some(interrupt) => Err(interrupt),
                    None => Ok(value),
                };
            }
            Err(RecvTimeoutError::Timeout) => {
                if interrupt.is_none()
                    && let Err(raised) = py.check_signals()
                {
                    // Stop the computation and wait for it, then raise.
                    cancel.cancel();
                    interrupt = Some(raised);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "internal error: the computation stopped without an answer (a bug in Omen)",
                ));
            }
        }
    }
}
