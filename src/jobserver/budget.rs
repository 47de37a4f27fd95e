//! The process's one source of extra threads, set up once by [`init`].
//!
//! * `--threads N` or `ASSETC_THREADS=N`: a fixed budget of N threads in
//!   all, for benchmarks and tests;
//! * else the jobserver `MAKEFLAGS` names, shared with the whole build;
//! * else none: the process runs on its own thread alone, so a plain
//!   `ninja -jN` never has more than N busy threads.
//!
//! Under a Ninja that does not speak the protocol (before 1.13),
//! `assetc build` sets `ASSETC_JOBSERVER_OWN_TOKEN=1` and each process first
//! waits for a token for its own thread, so the edges Ninja starts and the
//! threads they add still share one count.
//!
//! The tokens a process holds are also kept in a table a signal handler
//! reads: when Ninja interrupts an edge (Ctrl-C, SIGTERM, SIGHUP) the
//! handler gives every held token back before the process dies. Only a
//! `SIGKILL` can lose tokens; `assetc build` counts them at the end.

use std::sync::atomic::{AtomicI32, AtomicU16, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use super::client::{Client, auth_from_makeflags, give_raw};
use super::{idle, log};

/// Overrides the thread budget, as `--threads` does.
pub const THREADS_VAR: &str = "ASSETC_THREADS";
/// Set to `1` when each process must take a token for its own thread.
pub const OWN_TOKEN_VAR: &str = "ASSETC_JOBSERVER_OWN_TOKEN";

/// Where extra threads come from.
#[derive(Debug)]
enum Budget {
    /// No extra threads.
    Alone,
    /// This many spare threads, shared by the process's threads.
    Fixed(AtomicUsize),
    /// The build's jobserver.
    Shared(Client),
}

/// The budget [`try_token`] draws from; none until [`init`].
static BUDGET: RwLock<Option<Arc<Budget>>> = RwLock::new(None);

/// Tokens held at once, at most; more threads than this gain nothing.
const MAX_HELD: usize = 64;
/// An empty slot of [`HELD`].
const EMPTY: u16 = 0;
/// A slot holding token byte `b` stores `HOLDS | b`.
const HOLDS: u16 = 0x100;
/// The bytes of the extra tokens held, for the signal handler.
static HELD: [AtomicU16; MAX_HELD] = [const { AtomicU16::new(EMPTY) }; MAX_HELD];
/// The token taken for the process's own thread, if any.
static OWN: AtomicU16 = AtomicU16::new(EMPTY);
/// Where tokens go back, for the signal handler; -1 without a jobserver.
static GIVE_FD: AtomicI32 = AtomicI32::new(-1);

/// The process's part in the build: created by [`init`], it logs `exit`
/// and gives back the process's own token (if it took one) when dropped.
#[derive(Debug)]
pub struct Session {
    budget: Arc<Budget>,
}

/// Sets up the process's budget: `threads` (from `--threads`), else
/// `ASSETC_THREADS`, else the jobserver of `MAKEFLAGS`, else none. Opens
/// the token log and, under a jobserver, installs the handler that gives
/// tokens back on SIGINT, SIGTERM and SIGHUP. Waits for the process's own
/// token first when `ASSETC_JOBSERVER_OWN_TOKEN=1`.
pub fn init(threads: Option<u32>) -> Session {
    log::open_from_env();
    let threads = threads.or_else(|| std::env::var(THREADS_VAR).ok()?.parse().ok());
    let budget = Arc::new(match threads {
        Some(threads) => Budget::Fixed(AtomicUsize::new(threads.max(1) as usize - 1)),
        None => shared_from_env().map_or(Budget::Alone, Budget::Shared),
    });
    let mode = match &*budget {
        Budget::Alone => "alone".to_owned(),
        Budget::Fixed(spare) => format!("threads {}", spare.load(Ordering::Relaxed) + 1),
        Budget::Shared(client) => {
            GIVE_FD.store(client.write_fd(), Ordering::Relaxed);
            install_signal_handlers();
            if std::env::var(OWN_TOKEN_VAR).is_ok_and(|v| v == "1") {
                take_own_token(client);
            }
            "jobserver".to_owned()
        }
    };
    *BUDGET.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&budget));
    log::record(&format!("start {mode}"));
    Session { budget }
}

impl Drop for Session {
    fn drop(&mut self) {
        log::record("exit");
        if let Budget::Shared(client) = &*self.budget {
            let own = OWN.swap(EMPTY, Ordering::SeqCst);
            if own != EMPTY {
                let _ = client.give(own as u8);
            }
        }
    }
}

/// The jobserver of `MAKEFLAGS`, if it names one that opens.
fn shared_from_env() -> Option<Client> {
    let flags = std::env::var("MAKEFLAGS").ok()?;
    Client::open(&auth_from_makeflags(&flags)?).ok()
}

/// Waits for the token of the process's own thread. If the jobserver fails,
/// the process runs anyway, as it would without one.
fn take_own_token(client: &Client) {
    if let Ok(byte) = client.take_waiting() {
        OWN.store(HOLDS | u16::from(byte), Ordering::SeqCst);
    }
}

/// One extra thread's token; given back when dropped.
#[derive(Debug)]
pub struct Token(Held);

/// Where a [`Token`] came from, and so where it goes back.
#[derive(Debug)]
enum Held {
    /// From the budget: one of a fixed count, or the jobserver token in
    /// slot `slot` of [`HELD`].
    Budget { budget: Arc<Budget>, slot: usize },
    /// Lent by a thread of this process while it waits ([`idle`]).
    Borrowed,
}

/// A token for one more thread, if the budget allows more than one and a
/// token is free right now: first one that a waiting thread lent (module
/// `idle`), else one from the budget. Never waits.
pub fn try_token() -> Option<Token> {
    let budget = BUDGET.read().unwrap_or_else(|e| e.into_inner()).clone()?;
    let slot = match &*budget {
        Budget::Alone => return None,
        _ if idle::borrow() => return Some(Token(Held::Borrowed)),
        Budget::Fixed(spare) => {
            spare
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
                .ok()?;
            log::record("acquire");
            0
        }
        Budget::Shared(client) => hold(client, client.try_take().ok()??)?,
    };
    Some(Token(Held::Budget { budget, slot }))
}

/// Records `byte` in a free slot of [`HELD`]; gives it straight back when
/// every slot is taken.
fn hold(client: &Client, byte: u8) -> Option<usize> {
    let value = HOLDS | u16::from(byte);
    let free = HELD.iter().position(|slot| {
        slot.compare_exchange(EMPTY, value, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    });
    match free {
        Some(slot) => {
            log::record("acquire");
            Some(slot)
        }
        None => {
            let _ = client.give(byte);
            None
        }
    }
}

impl Drop for Token {
    fn drop(&mut self) {
        let Held::Budget { budget, slot } = &self.0 else {
            idle::give_back();
            return;
        };
        match &**budget {
            Budget::Alone => {}
            Budget::Fixed(spare) => {
                log::record("release");
                spare.fetch_add(1, Ordering::AcqRel);
            }
            Budget::Shared(client) => {
                let value = HELD[*slot].swap(EMPTY, Ordering::SeqCst);
                if value != EMPTY {
                    log::record("release");
                    let _ = client.give(value as u8);
                }
            }
        }
    }
}

/// Installs [`give_back_and_die`] for the signals Ninja and terminals send.
fn install_signal_handlers() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: `sigaction` is plain data; the handler only calls
        // async-signal-safe functions (`write`, `getpid`, `signal`, `raise`).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = give_back_and_die as *const () as libc::sighandler_t;
            libc::sigemptyset(&raw mut action.sa_mask);
            libc::sigaction(signal, &raw const action, std::ptr::null_mut());
        }
    }
}

/// The signal handler: gives every held token back, logs it, and lets the
/// signal end the process as it would have without a handler.
extern "C" fn give_back_and_die(signal: libc::c_int) {
    let fd = GIVE_FD.load(Ordering::Relaxed);
    for slot in HELD.iter().chain([&OWN]) {
        let value = slot.swap(EMPTY, Ordering::SeqCst);
        if value != EMPTY {
            if !std::ptr::eq(slot, &OWN) {
                log::record("release");
            }
            let _ = give_raw(fd, value as u8);
        }
    }
    log::record("killed");
    // SAFETY: restores the default action; the signal, blocked while this
    // handler runs, is delivered again when it returns and ends the process.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Runs `f` with a fixed budget of `threads`, restoring the previous budget
/// after, even if `f` panics; for tests that compare outputs at several
/// thread counts. Calls are serialised, as the budget is process-wide.
#[cfg(test)]
pub(crate) fn with_threads<R>(threads: u32, f: impl FnOnce() -> R) -> R {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    /// Puts the previous budget back when dropped.
    struct Restore(Option<Arc<Budget>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            *BUDGET.write().unwrap_or_else(|e| e.into_inner()) = self.0.take();
        }
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let fixed = Arc::new(Budget::Fixed(AtomicUsize::new(threads.max(1) as usize - 1)));
    let _restore = Restore(
        BUDGET
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .replace(fixed),
    );
    f()
}
