//! assetc: a game-asset compiler that lives inside the build system.
//!
//! The crate has two faces:
//!
//! * [`format`](mod@format) is the engine side: zero-copy readers, writers and validators for
//!   every file assetc produces. It is always compiled and depends on `bytemuck`
//!   alone, so an engine can use it with `default-features = false`. Beside
//!   it, [`hot_reload`] (standard library only) follows `assetc watch`.
//! * Everything else (behind the default `tool` feature) is the compiler: the
//!   `assetc.yml` model (`config`), the Ninja generator (`configure`), the
//!   per-asset encoders (`encode`) and the link steps (`link`).

pub mod format;
pub mod hot_reload;

#[cfg(feature = "tool")]
pub mod app;
#[cfg(feature = "tool")]
pub mod build;
#[cfg(feature = "tool")]
pub mod cache;
#[cfg(feature = "tool")]
pub mod cli;
#[cfg(feature = "tool")]
pub mod config;
#[cfg(feature = "tool")]
pub mod configure;
#[cfg(feature = "tool")]
pub mod depfile;
#[cfg(feature = "tool")]
pub mod encode;
#[cfg(feature = "tool")]
pub mod fragment;
#[cfg(feature = "tool")]
pub mod fsutil;
#[cfg(feature = "tool")]
pub mod inspect;
#[cfg(feature = "tool")]
pub mod jobserver;
#[cfg(feature = "tool")]
pub mod link;
#[cfg(feature = "tool")]
pub mod shell;
#[cfg(feature = "tool")]
pub mod view;
#[cfg(feature = "tool")]
pub mod watch;
