//! Tokens of threads that wait.
//!
//! A thread that has run out of items in [`super::map_with`] waits for the
//! threads it started to finish theirs. Its token would sit idle meanwhile,
//! and a map nested in one of the items still running (the tangents of a
//! mesh, say, beside its vertices) would get no extra thread. So the waiting
//! thread lends its token ([`lend_own`]) for any thread of the process to
//! borrow ([`borrow`]), and takes a token back before it goes on, waiting if
//! every lent token is still borrowed: threads at work never outnumber the
//! tokens the process holds. Lending stays inside the process; the
//! jobserver sees no change.
//!
//! No thread ever waits for a token while holding one, so some lent token
//! is always free again once the borrowers' items are done.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Lent tokens not borrowed at the moment.
static FREE: Mutex<usize> = Mutex::new(0);
/// Signalled whenever a borrowed token comes back.
static RETURNED: Condvar = Condvar::new();

/// The count of free lent tokens, even if a panic poisoned its lock.
fn free() -> MutexGuard<'static, usize> {
    FREE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Takes a lent token if one is free; never waits.
pub(super) fn borrow() -> bool {
    let mut free = free();
    if *free == 0 {
        return false;
    }
    *free -= 1;
    true
}

/// Gives a borrowed token back to the lenders.
pub(super) fn give_back() {
    *free() += 1;
    RETURNED.notify_all();
}

/// The calling thread's token, lent while the thread waits; dropping it takes
/// a token back for the thread.
#[derive(Debug)]
pub(super) struct Lending(());

/// Lends the calling thread's token until the returned value is dropped.
pub(super) fn lend_own() -> Lending {
    give_back();
    Lending(())
}

impl Drop for Lending {
    fn drop(&mut self) {
        let mut free = free();
        while *free == 0 {
            free = RETURNED.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
    }
}
