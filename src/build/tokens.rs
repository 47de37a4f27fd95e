//! The jobserver a build runs under: the one `MAKEFLAGS` already names
//! (make, or an outer `assetc build`), or a pool of its own.
//!
//! A Ninja that speaks the protocol (1.13 and later) runs without `-j` and
//! takes a token for every edge beyond its first; the encoders take more for
//! their extra threads. An older Ninja ignores the jobserver, so it runs
//! with `-jN` and every assetc process first waits for a token of its own
//! (`ASSETC_JOBSERVER_OWN_TOKEN=1`), the pool holding one token per job:
//! the count then covers assetc's processes and their threads, but not
//! other commands (user processors' own programs) Ninja runs.

use std::io;

use crate::jobserver::budget::OWN_TOKEN_VAR;
use crate::jobserver::client::{Client, auth_from_makeflags};
use crate::jobserver::server::Pool;

/// The variable make passes its jobserver in.
pub const MAKEFLAGS_VAR: &str = "MAKEFLAGS";

/// Where the build's tokens come from.
#[derive(Debug)]
enum Source {
    /// The jobserver `MAKEFLAGS` names, shared with whoever started us.
    Inherited,
    /// A pool of this build's own.
    Own(Pool),
}

/// How Ninja is run under the build's jobserver.
#[derive(Debug)]
pub struct Tokens {
    source: Source,
    /// Arguments for Ninja (`-jN` for a Ninja that ignores jobservers).
    pub ninja_args: Vec<String>,
    /// Variables to set (`Some`) or remove (`None`) for Ninja.
    pub env: Vec<(String, Option<String>)>,
}

impl Tokens {
    /// The jobserver for a build of `jobs` jobs run by a Ninja that does
    /// (`ninja_speaks`) or does not take its edges from one.
    pub fn prepare(jobs: usize, ninja_speaks: bool) -> io::Result<Self> {
        let jobs = jobs.max(1);
        let inherited = std::env::var(MAKEFLAGS_VAR)
            .ok()
            .and_then(|flags| auth_from_makeflags(&flags))
            .is_some_and(|auth| Client::open(&auth).is_ok());
        let mut env = Vec::new();
        let source = if inherited {
            Source::Inherited
        } else {
            // Without Ninja's help, every job's own thread needs a token too.
            let threads = if ninja_speaks { jobs } else { jobs + 1 };
            let pool = Pool::create(threads)?;
            env.push((MAKEFLAGS_VAR.to_owned(), Some(pool.makeflags())));
            Source::Own(pool)
        };
        let mut ninja_args = Vec::new();
        if ninja_speaks {
            env.push((OWN_TOKEN_VAR.to_owned(), None));
        } else {
            ninja_args.push(format!("-j{jobs}"));
            env.push((OWN_TOKEN_VAR.to_owned(), Some("1".to_owned())));
        }
        Ok(Self {
            source,
            ninja_args,
            env,
        })
    }

    /// Whether the jobserver was inherited rather than created.
    pub fn inherited(&self) -> bool {
        matches!(self.source, Source::Inherited)
    }

    /// How many tokens of the build's own pool did not come back; `None`
    /// for an inherited jobserver, which its owner checks.
    pub fn missing(&self) -> Option<usize> {
        match &self.source {
            Source::Inherited => None,
            Source::Own(pool) => pool.missing().ok(),
        }
    }
}
