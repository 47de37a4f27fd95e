//! Threads lent by a GNU make jobserver.
//!
//! Ninja's `-j` decides how many edges run at once. Inside one edge, the
//! encoder may add threads only while it holds a token of the jobserver the
//! build shares (the protocol of GNU make, which Ninja ≥ 1.13, cargo and
//! `assetc build` speak too): a free token is a free core somewhere in the
//! build. The process's own thread runs on the token its parent already
//! holds for it; every extra thread takes one more token without waiting
//! and gives it back as soon as it runs out of work ([`lend::map`]).
//!
//! * [`client`] reads `MAKEFLAGS` (the `fifo:` and the file-descriptor
//!   forms) and takes and returns tokens, also from a signal handler when
//!   the process is interrupted;
//! * [`server`] is the other side, the pool `assetc build` creates;
//! * [`budget`] is the process's one source of tokens: a jobserver, a fixed
//!   thread count (`--threads`, `ASSETC_THREADS`) or none at all, when the
//!   process stays single-threaded;
//! * `idle` lets a thread that waits for the threads it started lend its
//!   token to the rest of the process meanwhile;
//! * [`log`] records every token taken and returned when
//!   `ASSETC_JOBSERVER_LOG` names a file, so a test can replay a build's
//!   accounting.

pub mod budget;
pub mod client;
mod idle;
pub mod lend;
pub mod log;
pub mod server;

pub use budget::{Token, init, try_token};
pub use lend::{map, map_with};
