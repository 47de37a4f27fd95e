//! The entry of each program: what its command line is and which room runs
//! each command. This is the top floor: it imports `configure`, `inspect`,
//! `build`, `view`, `watch`, `cache` and `link`, and nothing imports it;
//! `build.rs` is `assetc build`'s command line and its configure-if-needed
//! and signal glue; `manual.rs` generates the completion scripts and
//! manual pages of all three command lines. The files
//! in `src/bin/` only call [`assetc::main`], [`encode::main`] and
//! [`link::main`].

pub mod assetc;
pub mod build;
pub mod encode;
pub mod link;
pub mod manual;
