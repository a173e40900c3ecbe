//! The thread a command runs on: its stack must fit the deepest walk the language admits, so no
//! input can overflow it.
//!
//! The stack is reserved, not used, until a program goes that deep; but a reservation still counts
//! against an address-space limit (`ulimit -v`, `prlimit --as`), and [`omen_lang::STACK_BYTES`]
//! (512 MiB, sized for a build of the language without optimisation) alone fills a 512 MiB limit. So
//! when that reservation is refused, smaller stacks are tried, down to [`SMALLEST_STACK`]: every
//! build profile of this workspace optimises the language (see `Cargo.toml`), and there the deepest
//! admitted walks (a recursion or a script of `let`s at `omen_lang::MAX_NESTING`, rolled, rendered as
//! text and as JSON) touch about 27 MiB of stack in the unoptimised CLI of a test build. The CLI's
//! test `commands_run_under_a_512_mib_address_space` runs those walks on the smallest stack that
//! limit leaves.

use std::io;
use std::thread::{Builder, JoinHandle};

/// The smallest stack a command runs on: more than twice what the deepest admitted walk was measured
/// to touch (see the module's documentation).
pub const SMALLEST_STACK: usize = 64 << 20;

/// The stacks tried, largest first. Past the first, each is small: under a limit, every byte of
/// stack reserved beyond the deepest walk's needs is a byte the computation's heap cannot have (with
/// 256 MiB of stack, a 512 MiB limit leaves about 80 MiB of heap to a debug build).
fn stack_sizes() -> impl Iterator<Item = usize> {
    [omen_lang::STACK_BYTES, 128 << 20, SMALLEST_STACK]
        .into_iter()
        .filter(|&size| size <= omen_lang::STACK_BYTES)
}

/// The stack `omen serve` runs on: it computes nothing itself (each request's computation gets a
/// worker thread of its own with the deep stack, see omen-server's `work`), and the 512 MiB a deep
/// stack reserves was most of the idle server's address space: under `ulimit -v 524288` the
/// computations' own memory ran out and the whole server aborted.
pub const SERVE_STACK: usize = 8 << 20;

/// Runs `work` on a thread named `omen` with the largest stack of [`stack_sizes`] that the system
/// grants.
///
/// # Errors
/// The system's error for the smallest stack, with a hint, when not even that can be reserved.
pub fn spawn<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> io::Result<JoinHandle<T>> {
    spawn_on(stack_sizes(), work)
}

/// [`spawn`] for `omen serve`, on [`SERVE_STACK`].
///
/// # Errors
/// The system's error when not even that stack can be reserved.
pub fn spawn_server<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> io::Result<JoinHandle<T>> {
    spawn_on([SERVE_STACK].into_iter(), work)
}

fn spawn_on<T: Send + 'static>(
    sizes: impl Iterator<Item = usize>,
    work: impl FnOnce() -> T + Send + 'static,
) -> io::Result<JoinHandle<T>> {
    // The closure is moved into the first spawn that succeeds; a refused spawn hands nothing back,
    // so the work waits in a slot that each attempt takes from only once its thread is running.
    let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(work)));
    let (mut last_error, mut smallest) = (None, 0);
    for size in sizes {
        smallest = size;
        let taken = std::sync::Arc::clone(&slot);
        let started = Builder::new()
            .name("omen".to_string())
            .stack_size(size)
            .spawn(move || {
                let work = taken
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take()
                    .expect("one thread runs the work");
                work()
            });
        match started {
            Ok(handle) => return Ok(handle),
            Err(error) => last_error = Some(error),
        }
    }
    let error = last_error.unwrap_or_else(|| io::Error::other("no stack size to try"));
    Err(io::Error::new(
        error.kind(),
        format!(
            "{error}: not even a {} MiB stack could be reserved; raise the address-space limit (ulimit -v)",
            smallest >> 20
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks_are_tried_largest_first_down_to_the_smallest() {
        let sizes: Vec<usize> = stack_sizes().collect();
        assert_eq!(sizes.first(), Some(&omen_lang::STACK_BYTES));
        assert_eq!(sizes.last(), Some(&SMALLEST_STACK));
        assert!(sizes.windows(2).all(|pair| pair[0] > pair[1]), "{sizes:?}");
    }

    #[test]
    fn the_work_runs_once_and_its_result_comes_back() {
        let handle = spawn(|| 6 * 7).unwrap();
        assert_eq!(handle.join().unwrap(), 42);
    }
}
