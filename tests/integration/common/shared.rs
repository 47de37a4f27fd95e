//! Fixtures made once per run of the suite and shared by every test that
//! only reads them: the demo built with its pack ([`demo`]) and a BuildGrid
//! server filled by one build of the demo ([`super::reapi::filled_server`]).
//!
//! A shared fixture lives in a `static`, which Rust never drops, so each one
//! registers its teardown with [`at_exit`]: the test harness returns from
//! `main` once every test is done, and the C library then runs the
//! teardowns, last registered first, before the process ends.

use std::sync::{Mutex, Once, OnceLock};

use super::Project;

/// A teardown [`at_exit`] keeps.
type Teardown = Box<dyn FnOnce() + Send>;

/// The teardowns to run when the process exits, in registration order.
static TEARDOWNS: Mutex<Vec<Teardown>> = Mutex::new(Vec::new());

/// Runs `teardown` when the process exits normally (after the last test).
pub fn at_exit(teardown: impl FnOnce() + Send + 'static) {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // SAFETY: `run_teardowns` is a plain `extern "C"` function with no
        // arguments that never unwinds (each teardown runs under
        // `catch_unwind`).
        let status = unsafe { libc::atexit(run_teardowns) };
        assert_eq!(status, 0, "atexit failed");
    });
    lock_teardowns().push(Box::new(teardown));
}

/// The list of teardowns, even if a panicking test poisoned its lock.
fn lock_teardowns() -> std::sync::MutexGuard<'static, Vec<Teardown>> {
    TEARDOWNS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs every registered teardown, the last registered first.
extern "C" fn run_teardowns() {
    let teardowns = std::mem::take(&mut *lock_teardowns());
    for teardown in teardowns.into_iter().rev() {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(teardown));
    }
}

/// The demo built with `--pack`, once per run. For tests that only read its
/// outputs or serve them; a test that edits or breaks the project builds its
/// own with [`Project::built_demo`].
pub fn demo() -> &'static Project {
    static DEMO: OnceLock<Project> = OnceLock::new();
    DEMO.get_or_init(|| {
        let demo = Project::built_demo();
        let root = demo.root().to_owned();
        at_exit(move || {
            let _ = std::fs::remove_dir_all(root);
        });
        demo
    })
}
