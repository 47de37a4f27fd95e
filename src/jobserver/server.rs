//! The jobserver `assetc build` creates when it inherits none: a FIFO in a
//! private temporary folder holding one token per thread beyond the first
//! (the first is Ninja's own), announced to children through `MAKEFLAGS`.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use super::client::{Auth, Client};

/// A pool of tokens, alive as long as this value.
#[derive(Debug)]
pub struct Pool {
    threads: usize,
    path: PathBuf,
    client: Client,
    // Removed, with the FIFO in it, when the pool is dropped.
    _folder: tempfile::TempDir,
}

impl Pool {
    /// A pool for `threads` threads in all (at least 1).
    pub fn create(threads: usize) -> io::Result<Self> {
        let threads = threads.max(1);
        let folder = tempfile::Builder::new()
            .prefix("assetc-jobserver-")
            .tempdir()?;
        let path = folder.path().join("fifo");
        let name = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
        // SAFETY: `name` is a valid C string for the duration of the call.
        if unsafe { libc::mkfifo(name.as_ptr(), 0o600) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let client = Client::open(&Auth::Fifo(path.clone()))?;
        for _ in 1..threads {
            client.give(b'+')?;
        }
        Ok(Self {
            threads,
            path,
            client,
            _folder: folder,
        })
    }

    /// The `MAKEFLAGS` value that hands the pool to a child.
    pub fn makeflags(&self) -> String {
        format!(
            "-j{} --jobserver-auth=fifo:{}",
            self.threads,
            self.path.display()
        )
    }

    /// How many tokens are not back in the pool: run when no child is
    /// left, it is the number a killed process took with it.
    pub fn missing(&self) -> io::Result<usize> {
        let mut back = 0;
        while self.client.try_take()?.is_some() {
            back += 1;
        }
        for _ in 0..back {
            self.client.give(b'+')?;
        }
        Ok((self.threads - 1).saturating_sub(back))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobserver::client::auth_from_makeflags;

    #[test]
    fn a_pool_lends_its_tokens_and_counts_the_missing() {
        let pool = Pool::create(3).unwrap();
        let auth = auth_from_makeflags(&pool.makeflags()).unwrap();
        let client = Client::open(&auth).unwrap();
        assert_eq!(pool.missing().unwrap(), 0);
        let first = client.try_take().unwrap().unwrap();
        assert!(client.try_take().unwrap().is_some());
        assert_eq!(client.try_take().unwrap(), None);
        assert_eq!(pool.missing().unwrap(), 2);
        client.give(first).unwrap();
        assert_eq!(pool.missing().unwrap(), 1);
    }
}
