//! `assetc view`: a local web inspector for compiled output.
//!
//! A small HTTP server on loopback ([`server`]) serves one page (the files in
//! `static/`: HTML, CSS and ES modules named like the modules here, embedded
//! in the binary and listed in [`api::PAGE_FILES`]) and a JSON API ([`api`])
//! over an output folder or a `.hpack` ([`store`]). Every answer comes from
//! the crate's own readers in [`crate::format`]: the figures are `assetc
//! info`'s ([`crate::inspect`]), meshes are decoded by [`mesh`], textures
//! decoded to PNG by [`texture`] (UASTC through the Basis Universal
//! transcoder the encoder already links), fonts by [`font`], sprite atlases
//! (every page with each sprite's outline and name) by [`atlas`], animations by
//! [`anim`], materials by [`material`], SPIR-V modules reflected by
//! [`shader`], embedded files shown as text or hex by [`embed`] and sounds
//! (a record, its waveform, its loudness before and after processing, and
//! its sound as WAV for the browser) by [`sound`]; a texture's PSNR is
//! measured against its source, found through the build's fragments, by
//! [`source`]; the texel probe is [`probe`], the
//! lighting sets of the mesh view [`environment`], and live refresh from
//! `assetc watch` [`live`]. A file that does not parse is
//! answered with its reader's error (file, field and byte offset), never a
//! crash.

pub mod anim;
pub mod api;
pub mod atlas;
pub mod command;
pub mod embed;
pub mod environment;
pub mod font;
pub mod live;
pub mod material;
pub mod mesh;
pub mod probe;
pub mod server;
pub mod shader;
pub mod sound;
pub mod source;
pub mod store;
pub mod texture;

use std::path::PathBuf;

/// Why a request (or the start of the server) failed.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The folder or pack to inspect cannot be used.
    #[error("{}: {what}", path.display())]
    Source {
        /// The folder, pack or file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A path the page asked for is not one the server will read.
    #[error("{path}: refused: {what}")]
    Refused {
        /// The path as asked.
        path: String,
        /// Why.
        what: String,
    },
    /// No such file in the output.
    #[error("{0}: no such file in the output")]
    NotFound(String),
    /// No pack of that name is beside the output folder (or served).
    #[error("no pack named {name:?} here; a pack is named by its file name without .hpack: {}", if known.is_empty() { "there is none".to_owned() } else { known.join(", ") })]
    UnknownPack {
        /// The name asked for.
        name: String,
        /// The names of the packs there are.
        known: Vec<String>,
    },
    /// A query parameter is missing or malformed.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// The file does not parse as its format.
    #[error("{path}: {what}")]
    Invalid {
        /// The runtime path.
        path: String,
        /// The reader's error.
        what: String,
    },
}

impl ViewError {
    /// The HTTP status that answers this error.
    pub fn status(&self) -> u16 {
        match self {
            ViewError::Source { .. } => 500,
            ViewError::Refused { .. } => 403,
            ViewError::NotFound(_) | ViewError::UnknownPack { .. } => 404,
            ViewError::BadRequest(_) => 400,
            ViewError::Invalid { .. } => 422,
        }
    }

    /// A reader's error about the file at runtime path `path`.
    pub fn invalid(path: &str, error: impl std::fmt::Display) -> Self {
        ViewError::Invalid {
            path: path.to_owned(),
            what: error.to_string(),
        }
    }
}
