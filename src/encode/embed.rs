//! `assetc-encode embed`: files matched by an `embed:` glob, copied verbatim.
//!
//! An embedded file is registered in the manifest as kind `embed`, keyed by its
//! runtime path with the extension (`data/level1.json`).

use super::job::{EncodeError, Encoded, JobArgs, OutputFile};
use crate::format::kind::{AssetKind, ColorSpace};
use crate::fsutil;

/// Copies the source unchanged.
pub fn encode(args: &JobArgs) -> Result<Encoded, EncodeError> {
    Ok(registered(fsutil::read(&args.input)?, true))
}

/// `bytes` as the edge's one output, registered as an embedded file;
/// `copies_source` says whether they are the source's own bytes.
pub fn registered(bytes: Vec<u8>, copies_source: bool) -> Encoded {
    Encoded {
        files: vec![OutputFile {
            bytes,
            kind: AssetKind::Embed,
            colorspace: ColorSpace::Linear,
        }],
        extra_inputs: Vec::new(),
        copies_source,
    }
}
