//! The token log: one line per token event, appended to the file
//! `ASSETC_JOBSERVER_LOG` names.
//!
//! Every line is `PID EVENT`, written with one `write` to a file opened for
//! appending, so the lines of every process of a build land in the order
//! the events happened. A token is logged as taken after it was read and as
//! given back before it is written, so replaying the file in order never
//! counts fewer tokens in use than there were:
//!
//! * `start MODE` and `exit`: the process's own thread, which runs on the
//!   token its parent holds for it (`MODE` is `alone`, `threads N` or
//!   `jobserver`);
//! * `acquire` and `release`: one extra thread's token (of the jobserver,
//!   or of the fixed budget `--threads` sets);
//! * `killed`: a signal ended the process after it gave its tokens back.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicI32, Ordering};

/// The variable naming the log file.
pub const LOG_VAR: &str = "ASSETC_JOBSERVER_LOG";

/// The open log, or -1.
static LOG_FD: AtomicI32 = AtomicI32::new(-1);

/// Opens the log `ASSETC_JOBSERVER_LOG` names, if any. A log that cannot be
/// opened is not kept; the build does not depend on it.
pub fn open_from_env() {
    let Some(path) = std::env::var_os(LOG_VAR) else {
        return;
    };
    let Ok(name) = CString::new(path.as_bytes()) else {
        return;
    };
    let flags = libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_CLOEXEC;
    // SAFETY: `name` is a valid C string for the duration of the call.
    let fd = unsafe { libc::open(name.as_ptr(), flags, 0o644) };
    if fd >= 0 {
        LOG_FD.store(fd, Ordering::Relaxed);
    }
}

/// Appends `PID EVENT` to the log, if one is open. Formats into a stack
/// buffer and calls only `getpid` and `write`, so a signal handler may use it.
pub fn record(event: &str) {
    let fd = LOG_FD.load(Ordering::Relaxed);
    if fd < 0 {
        return;
    }
    let mut line = [0u8; 96];
    let mut len = 0;
    // SAFETY: `getpid` cannot fail.
    let pid = unsafe { libc::getpid() };
    let pid = decimal(pid.unsigned_abs());
    let first_digit = pid.iter().position(|&b| b != 0).unwrap_or(pid.len() - 1);
    for part in [&pid[first_digit..], b" ", event.as_bytes(), b"\n"] {
        let part = &part[..part.len().min(line.len() - len)];
        line[len..len + part.len()].copy_from_slice(part);
        len += part.len();
    }
    let text = &line[..len];
    // SAFETY: writes `text`, a live slice. A failed write loses a log line,
    // never a token.
    unsafe { libc::write(fd, text.as_ptr().cast(), text.len()) };
}

/// `value` in decimal, right-aligned in ten bytes with leading zero bytes.
fn decimal(mut value: u32) -> [u8; 10] {
    let mut digits = [0u8; 10];
    for slot in digits.iter_mut().rev() {
        *slot = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_right_aligned() {
        assert_eq!(&decimal(0)[9..], b"0");
        assert_eq!(&decimal(4_294_967_295)[..], b"4294967295");
        assert_eq!(&decimal(120)[7..], b"120");
        assert_eq!(decimal(120)[6], 0);
    }
}
