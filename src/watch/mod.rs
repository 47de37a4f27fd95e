//! `assetc watch`: rebuild on save and tell running engines what changed.
//!
//! * [`events`] watches the project with `notify` and folds a burst of file
//!   events (an editor's write-then-rename, a `git checkout`) into one
//!   rebuild; [`inputs`] finds the folders outside the project that hold
//!   files the graph reads, watched too;
//! * [`build`] runs Ninja (which re-runs configure when the graph needs it)
//!   and works out which outputs the build rewrote, from the edges Ninja
//!   logged as run and the files they rewrote (every output is written only
//!   when its bytes change), never from a walk of the output folder;
//! * [`publish`] sends each build's changes to every connected client over
//!   loopback TCP, in the line protocol [`crate::hot_reload`] reads;
//! * [`command`] ties them together.
//!
//! A failed build leaves the last good outputs in place: Ninja runs with
//! `ASSETC_KEEP_LAST_GOOD=1`, which makes a failing encoder keep its previous
//! outputs (instead of removing them and the manifest), and no link step runs
//! after a failure.

pub mod build;
pub mod command;
pub mod events;
pub mod inputs;
pub mod publish;
