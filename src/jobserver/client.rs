//! The client side of the GNU make jobserver protocol.
//!
//! A jobserver is a pipe (or a named FIFO) holding one byte per free token.
//! Taking a token is reading a byte; giving it back is writing the same byte.
//! `MAKEFLAGS` says where the pipe is: `--jobserver-auth=fifo:PATH` (make
//! 4.4, Ninja's own pools, `assetc build`) or `--jobserver-auth=R,W`
//! (`--jobserver-fds=R,W` before make 4.2), two inherited descriptors.
//!
//! Reads here never block unless asked to: the descriptor is opened anew
//! (`/proc/self/fd/R` for an inherited pipe) with `O_NONBLOCK`, so the
//! setting does not leak into the shared file description of make or Ninja.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Where a jobserver's tokens are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// A named FIFO.
    Fifo(PathBuf),
    /// An inherited pipe: the descriptors to read and to write.
    Fds {
        /// The read end.
        read: RawFd,
        /// The write end.
        write: RawFd,
    },
}

/// The jobserver `MAKEFLAGS` names, if any: its last `--jobserver-auth=` (or
/// `--jobserver-fds=`) word, as make passes the innermost one last.
pub fn auth_from_makeflags(flags: &str) -> Option<Auth> {
    let value = flags
        .split_ascii_whitespace()
        .filter_map(|word| {
            word.strip_prefix("--jobserver-auth=")
                .or_else(|| word.strip_prefix("--jobserver-fds="))
        })
        .next_back()?;
    if let Some(path) = value.strip_prefix("fifo:") {
        return (!path.is_empty()).then(|| Auth::Fifo(PathBuf::from(path)));
    }
    let (read, write) = value.split_once(',')?;
    let read: RawFd = read.parse().ok()?;
    let write: RawFd = write.parse().ok()?;
    (read >= 0 && write >= 0).then_some(Auth::Fds { read, write })
}

/// An open connection to a jobserver.
#[derive(Debug)]
pub struct Client {
    read: OwnedFd,
    write: OwnedFd,
}

impl Client {
    /// Opens the jobserver `auth` names. An inherited descriptor that is
    /// closed or not a pipe (make closes them for recipes it does not mark
    /// as recursive) is an error, and the caller stays single-threaded.
    pub fn open(auth: &Auth) -> io::Result<Self> {
        match auth {
            Auth::Fifo(path) => {
                let fifo = open(path, libc::O_RDWR | libc::O_NONBLOCK)?;
                let write = fifo.try_clone()?;
                Ok(Self { read: fifo, write })
            }
            Auth::Fds { read, write } => {
                require_pipe(*read)?;
                require_pipe(*write)?;
                let read = open(
                    &Path::new("/proc/self/fd").join(read.to_string()),
                    libc::O_RDONLY | libc::O_NONBLOCK,
                )?;
                // SAFETY: `write` was checked to be an open descriptor above;
                // F_DUPFD_CLOEXEC makes a new one this value owns.
                let copy = unsafe { libc::fcntl(*write, libc::F_DUPFD_CLOEXEC, 0) };
                if copy < 0 {
                    return Err(io::Error::last_os_error());
                }
                // SAFETY: `copy` is a fresh descriptor nothing else owns.
                let write = unsafe { OwnedFd::from_raw_fd(copy) };
                Ok(Self { read, write })
            }
        }
    }

    /// Takes a token if one is free right now.
    pub fn try_take(&self) -> io::Result<Option<u8>> {
        let mut byte = 0u8;
        loop {
            // SAFETY: reads at most one byte into `byte`.
            let n = unsafe { libc::read(self.read.as_raw_fd(), (&raw mut byte).cast(), 1) };
            match n {
                1 => return Ok(Some(byte)),
                0 => return Ok(None),
                _ => match io::Error::last_os_error() {
                    e if e.kind() == io::ErrorKind::Interrupted => continue,
                    e if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
                    e => return Err(e),
                },
            }
        }
    }

    /// Takes a token, waiting until one is free.
    pub fn take_waiting(&self) -> io::Result<u8> {
        loop {
            if let Some(byte) = self.try_take()? {
                return Ok(byte);
            }
            let mut poll = libc::pollfd {
                fd: self.read.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd; another client may still win the
            // byte, so the loop tries again.
            if unsafe { libc::poll(&raw mut poll, 1, -1) } < 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }

    /// Gives a token back.
    pub fn give(&self, byte: u8) -> io::Result<()> {
        give_raw(self.write.as_raw_fd(), byte)
    }

    /// The descriptor tokens are given back through, for the signal handler.
    pub fn write_fd(&self) -> RawFd {
        self.write.as_raw_fd()
    }
}

/// Writes one token byte to `fd`, retrying when interrupted. Only calls
/// `write`, so a signal handler may use it.
pub fn give_raw(fd: RawFd, byte: u8) -> io::Result<()> {
    loop {
        // SAFETY: writes one byte from a live local.
        match unsafe { libc::write(fd, (&raw const byte).cast(), 1) } {
            1 => return Ok(()),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// Opens `path` with `flags`, close-on-exec.
fn open(path: &Path, flags: libc::c_int) -> io::Result<OwnedFd> {
    let name = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
    // SAFETY: `name` is a valid C string for the duration of the call.
    let fd = unsafe { libc::open(name.as_ptr(), flags | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Fails unless `fd` is an open pipe or FIFO.
fn require_pipe(fd: RawFd) -> io::Result<()> {
    // SAFETY: `stat` is plain data, filled by `fstat` on success.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fstat` only writes into `stat`; a bad `fd` is an error.
    if unsafe { libc::fstat(fd, &raw mut stat) } < 0 {
        return Err(io::Error::last_os_error());
    }
    if stat.st_mode & libc::S_IFMT != libc::S_IFIFO {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("jobserver descriptor {fd} is not a pipe"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makeflags_forms_are_read() {
        assert_eq!(
            auth_from_makeflags(" -j2 --jobserver-auth=fifo:/tmp/GMfifo1"),
            Some(Auth::Fifo("/tmp/GMfifo1".into()))
        );
        assert_eq!(
            auth_from_makeflags("-j4 --jobserver-auth=3,4"),
            Some(Auth::Fds { read: 3, write: 4 })
        );
        assert_eq!(
            auth_from_makeflags("--jobserver-fds=5,6 -j"),
            Some(Auth::Fds { read: 5, write: 6 })
        );
        // The innermost jobserver comes last.
        assert_eq!(
            auth_from_makeflags("--jobserver-auth=3,4 --jobserver-auth=fifo:/x"),
            Some(Auth::Fifo("/x".into()))
        );
        for none in [
            "",
            "-j2",
            "-j1 --jobserver-auth=",
            "--jobserver-auth=-1,-1",
            "--jobserver-auth=fifo:",
        ] {
            assert_eq!(auth_from_makeflags(none), None, "{none:?}");
        }
    }

    #[test]
    fn a_closed_descriptor_is_refused() {
        let auth = Auth::Fds {
            read: 999,
            write: 998,
        };
        assert!(Client::open(&auth).is_err());
    }

    #[test]
    fn tokens_go_round_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fifo");
        let name = CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let client = Client::open(&Auth::Fifo(path)).unwrap();
        assert_eq!(client.try_take().unwrap(), None);
        client.give(b'x').unwrap();
        assert_eq!(client.take_waiting().unwrap(), b'x');
        assert_eq!(client.try_take().unwrap(), None);
    }
}
