//! The per-asset encoders run by `assetc-encode`: each turns one source file
//! into the files the engine loads.

pub mod image;
pub mod mips;
pub mod texture;
