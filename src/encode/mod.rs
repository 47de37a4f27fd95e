//! The per-asset encoders behind `assetc-encode`, one module per asset kind.
//!
//! [`job`] holds what every encoder shares: the command-line contract with the
//! Ninja edge (input, outputs, fragment, depfile), atomic output, and clean-up
//! on failure. [`command`] maps subcommands to encoders. Each kind module turns
//! source bytes into output bytes and knows nothing about Ninja.

pub mod animation;
pub mod atlas;
pub mod audio;
pub mod blocks;
pub mod command;
pub mod embed;
pub mod folder;
pub mod font;
pub mod ibl;
pub mod image;
pub mod job;
pub mod limits;
pub mod lut;
pub mod mesh;
pub mod mips;
pub mod process;
pub mod shader;
pub mod strips;
pub mod texture;
pub mod texture_mode;
pub mod uastc;
