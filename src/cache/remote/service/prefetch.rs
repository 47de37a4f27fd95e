//! The actions the service looks up before the edges ask.
//!
//! Configure writes the build's cached edges to `remote-edges` in the build
//! folder, one JSON array of `assetc-encode` words per line, in the order
//! of `build.ninja`. For every edge that reads nothing but its source, the
//! action digest follows from the tool, the settings and the source alone,
//! so the service computes it exactly as the edge will and looks it up at
//! once. Other edges (meshes, shaders) are looked up when they ask.

use std::ffi::OsString;
use std::path::Path;

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;

use super::edges_file;
use crate::cache::CacheArgs;

/// Computes the action an edge will look up first from its command line
/// (program name first), when that follows from the command line and the
/// source alone, exactly as the edge computes it.
pub type Keyer = fn(&CacheArgs, &[OsString]) -> Option<re::Digest>;

/// Lookups in flight at once, and batch reads of what they found. Servers
/// limit the calls they take at once (BuildGrid's default thread pool turns
/// the 31st away), and the edges' own calls come on top.
pub const LOOKUPS: usize = 20;
/// See [`LOOKUPS`].
pub const READS: usize = 4;

/// Results whose blobs one batch read fetches at most, and how long it
/// waits for them after the first.
pub const READ_BATCH: usize = 16;
/// See [`READ_BATCH`].
pub const READ_LINGER: std::time::Duration = std::time::Duration::from_millis(4);

/// Hands the action digest of every listed edge that can be keyed ahead to
/// `send`, in the list's order, until `send` returns `false`. A missing or
/// unreadable list, or a line that does not parse, is skipped: the edges
/// still ask for themselves.
pub fn actions(
    args: &CacheArgs,
    build: &Path,
    keyer: Keyer,
    mut send: impl FnMut(re::Digest) -> bool,
) {
    let Ok(text) = std::fs::read_to_string(edges_file(build)) else {
        return;
    };
    for line in text.lines() {
        let Some(digest) = action_of_line(args, keyer, line) else {
            continue;
        };
        if !send(digest) {
            return;
        }
    }
}

/// The action digest of the edge on one line of the list.
fn action_of_line(args: &CacheArgs, keyer: Keyer, line: &str) -> Option<re::Digest> {
    let words: Vec<String> = serde_json::from_str(line).ok()?;
    let argv: Vec<OsString> = std::iter::once("assetc-encode".into())
        .chain(words.into_iter().map(OsString::from))
        .collect();
    keyer(args, &argv)
}

/// One line of the list for an edge whose `assetc-encode` words (after the
/// program and its cache options) are `words`.
pub fn line(words: &[String]) -> String {
    serde_json::to_string(words).unwrap_or_default()
}
