//! [`map`] and [`map_with`]: a list of independent jobs, run on the calling
//! thread and on as many more as the budget lends tokens for.

use std::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::Scope;

use super::budget::try_token;
use super::idle;

/// Stack of a lent thread: as much as a main thread gets, since encoders
/// written for one thread (Basis Universal's among them) keep large frames.
const STACK_BYTES: usize = 8 << 20;

/// `work` applied to every item, in order. The calling thread always works;
/// before it starts each item that leaves others waiting, a thread tries to
/// take a token without waiting and, if it gets one, starts another thread,
/// which takes items until none are left and then gives its token back.
/// The results do not depend on how many threads ran, as long as `work`
/// depends on its item alone.
///
/// A panic in `work` is raised again here, after every thread has stopped.
pub fn map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_with(items, |_: &mut (), item| work(item))
}

/// [`map`] where each thread keeps a state of its own between items (an
/// encoder context that is costly to build), starting from
/// `S::default()`. The results must not depend on the state's history.
pub fn map_with<T: Sync, S: Default, R: Send>(
    items: &[T],
    work: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    if items.len() < 2 {
        let mut state = S::default();
        return items.iter().map(|item| work(&mut state, item)).collect();
    }
    let jobs = Jobs {
        items,
        work: &work,
        next: AtomicUsize::new(0),
        recruited: AtomicBool::new(false),
        results: Mutex::new(items.iter().map(|_| None).collect()),
        state: PhantomData,
    };
    let lending = std::thread::scope(|scope| {
        jobs.run(scope);
        // Out of items: until the threads started here are done (the scope
        // joins them before it returns), this thread's token may serve a map
        // nested in one of their items. With no thread started there is
        // nothing to wait for, and nothing to lend.
        jobs.recruited.load(Ordering::Acquire).then(idle::lend_own)
    });
    // Dropping takes a token back for this thread, waiting if need be.
    drop(lending);
    jobs.results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|result| result.expect("every job ran"))
        .collect()
}

/// The shared part of one [`map_with`].
struct Jobs<'a, T, S, R, W> {
    items: &'a [T],
    work: &'a W,
    /// The index of the next item to take.
    next: AtomicUsize,
    /// Whether any thread was started for these items.
    recruited: AtomicBool,
    results: Mutex<Vec<Option<R>>>,
    /// Each thread's state is its own; only its type is shared.
    state: PhantomData<fn() -> S>,
}

impl<'a, T: Sync, S: Default, R: Send, W: Fn(&mut S, &T) -> R + Sync> Jobs<'a, T, S, R, W> {
    /// Takes items until none are left, lending work to a new thread first
    /// whenever items would still be waiting.
    fn run<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>) {
        let mut state = S::default();
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = self.items.get(index) else {
                return;
            };
            if index + 1 < self.items.len() {
                self.recruit(scope);
            }
            let result = (self.work)(&mut state, item);
            self.results.lock().unwrap_or_else(|e| e.into_inner())[index] = Some(result);
        }
    }

    /// Starts one more thread if a token is free.
    fn recruit<'scope>(&'scope self, scope: &'scope Scope<'scope, '_>) {
        let Some(token) = try_token() else {
            return;
        };
        let spawned = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, move || {
                self.run(scope);
                drop(token);
            });
        // A thread that cannot start gives its token back with the closure.
        if spawned.is_ok() {
            self.recruited.store(true, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobserver::budget::with_threads;
    use std::collections::BTreeSet;
    use std::sync::atomic::AtomicUsize;

    /// Runs a slow map at `threads`; returns its results and how many
    /// distinct threads did work and how many ran at once at most.
    fn squares(threads: u32) -> (Vec<u64>, usize, usize) {
        let busy = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let ids = Mutex::new(BTreeSet::new());
        let items: Vec<u64> = (0..24).collect();
        let out = with_threads(threads, || {
            map(&items, |&n| {
                let now = busy.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                ids.lock()
                    .unwrap()
                    .insert(format!("{:?}", std::thread::current().id()));
                std::thread::sleep(std::time::Duration::from_millis(5));
                busy.fetch_sub(1, Ordering::SeqCst);
                n * n
            })
        });
        let threads_seen = ids.into_inner().unwrap().len();
        (out, threads_seen, peak.into_inner())
    }

    #[test]
    fn results_keep_order_at_any_thread_count() {
        let expected: Vec<u64> = (0..24u64).map(|n| n * n).collect();
        for threads in [1, 2, 4] {
            let (out, seen, peak) = squares(threads);
            assert_eq!(out, expected);
            assert!(
                peak <= threads as usize,
                "{peak} busy with {threads} threads"
            );
            if threads == 1 {
                assert_eq!(seen, 1);
            } else {
                assert!(seen > 1, "no thread was lent at {threads}");
            }
        }
    }

    /// With two threads in all, the caller finishes its short item first
    /// and waits; the long item's nested map then gets the caller's token.
    #[test]
    fn a_waiting_caller_lends_its_token_to_a_nested_map() {
        let busy = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let nested_threads = Mutex::new(BTreeSet::new());
        let inner: Vec<u64> = (0..24).collect();
        let sums = with_threads(2, || {
            map(&[false, true], |&long| {
                if !long {
                    return 0;
                }
                map(&inner, |&n| {
                    let now = busy.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    nested_threads
                        .lock()
                        .unwrap()
                        .insert(format!("{:?}", std::thread::current().id()));
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    busy.fetch_sub(1, Ordering::SeqCst);
                    n
                })
                .iter()
                .sum::<u64>()
            })
        });
        assert_eq!(sums, [0, (0..24).sum::<u64>()]);
        assert!(
            nested_threads.into_inner().unwrap().len() > 1,
            "the nested map got no thread"
        );
        assert!(peak.into_inner() <= 2, "more threads than tokens");
    }

    #[test]
    fn a_panic_reaches_the_caller() {
        let items: Vec<u32> = (0..8).collect();
        let caught = std::panic::catch_unwind(|| {
            with_threads(3, || {
                map(&items, |&n| {
                    assert!(n != 5, "job five fails");
                    n
                })
            })
        });
        assert!(caught.is_err());
    }
}
