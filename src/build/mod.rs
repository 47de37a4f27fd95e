//! Running Ninja for `assetc build` and `assetc watch`: under a jobserver
//! that lends the build's idle cores to its big edges, with a progress line
//! and a summary after.
//!
//! * [`tokens`] picks the jobserver: the one `MAKEFLAGS` names (make, an
//!   outer build), else a pool of its own, and how Ninja runs under it
//!   (without `-j` from 1.13 on, which takes its edges from the pool;
//!   `-jN` with one token per assetc process before);
//! * [`mod@run`] starts Ninja, reads its output (status lines become counts,
//!   every other line is passed through) and, after it exits, what it ran
//!   and whether every token came back;
//! * [`running`] finds the edges running now in `/proc`; [`ninja_log`]
//!   reads earlier durations and this build's edges from `.ninja_log`;
//!   [`progress`] turns them into the progress line and its estimate;
//!   [`console`] draws it in place on a terminal or prints plain lines;
//! * [`summary`] prints the slowest edges, the failures and lost tokens;
//! * [`graph`] reads a `build.ninja` header (log folder, preset) and runs
//!   `assetc configure` when the graph is missing or of another preset;
//!   [`ninja`] finds the Ninja program and its version.

pub mod console;
pub mod graph;
pub mod ninja;
pub mod ninja_log;
pub mod progress;
pub mod run;
pub mod running;
pub mod summary;
pub mod tokens;

pub use run::{BuildError, Outcome, Request, run};
