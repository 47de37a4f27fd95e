//! The integration suite: the real `assetc` binaries and the real `ninja`
//! over temporary projects, one module per area.
//!
//! Every area is a module of this one test binary rather than a test binary
//! of its own: the suite links once instead of thirty-odd times, the tests of
//! every area share the machine's cores from the first test to the last
//! (there is no tail where one binary's last slow test runs alone), and the
//! fixtures several areas need, such as the plain build of the demo that the
//! REAPI tests compare with, are built once per run (`common`).
//!
//! `tools/test` runs the whole binary once under the Ninja on the `PATH`,
//! then again, under Ninja 1.10 and 1.13, only the tests whose outcome
//! depends on Ninja's version (see its `ninja_sensitive` list). Filter by
//! module as usual: `cargo test --test integration pipeline::`.

mod common;

// Helpers the library's own unit tests also use, compiled in here once.
#[path = "../../src/encode/mesh/fixtures.rs"]
mod fixtures;
#[path = "../../src/encode/image/test_sources.rs"]
mod image_sources;
#[path = "../../src/encode/font/test_font.rs"]
mod test_font;

// One module per area; each says what it covers in its own doc comment.
mod animations;
mod atlases;
mod audio;
mod bitmap_fonts;
mod build;
mod c_header;
mod cache;
mod cli;
mod cmake;
mod configure_memory;
mod determinism;
mod embeds;
mod engine;
mod errors;
mod fonts;
mod gpu_formats;
mod hostile;
mod ibl;
mod ids;
mod inspect;
mod keep_going;
mod layers;
mod link_incremental;
mod manual;
mod meshes;
mod pack_base;
mod pack_patches;
mod packs;
mod pipeline;
mod pixel_art;
mod processors;
mod real_assets;
mod relay;
mod remote;
mod remote_service;
mod robustness;
mod shaders;
mod texture_formats;
mod textures;
mod threads;
mod view;
mod watch;
