//! `assetc-link part`: the fragments of one folder merged into two part files,
//! the first level of a two-level link.
//!
//! Configure groups the encode edges by the folder of their source (and, with
//! named packs, by which packs the source belongs to), at most
//! [`MAX_PART_FRAGMENTS`] to a group. Each group is one `link_part` edge that
//! reads the group's fragments and writes:
//!
//! * an **entries part**: every fragment with its `source`, `entry` and
//!   `error` records only, what the manifest, the ids and the failure report
//!   need;
//! * a **full part**: every fragment whole (files, hashes, copies), what the
//!   packs need.
//!
//! Both are written atomically and only when their bytes change, and the edge
//! has `restat = 1`. The top-level link steps read the parts instead of every
//! fragment, so an edit re-merges one folder and the top-level step reads a
//! few hundred part files rather than every fragment. Better still, an edit
//! that changes a file's bytes but not the set of assets leaves the entries
//! part as it was, so Ninja skips the manifest and ids steps altogether.
//!
//! A part is the fragments' own text after one header line:
//!
//! ```text
//! assetc-part 1
//! assetc-fragment 1
//! source ui/a.png
//! entry texture srgb ui/a.ktx2
//! assetc-fragment 1
//! source ui/b.png
//! …
//! ```
//!
//! A file read by a link step is a part when its first line is the part
//! header, a single fragment otherwise ([`read_fragment_file`]), so every
//! list may name either.

use std::path::Path;

use super::{LinkError, read_fragments};
use crate::fragment::{self, Fragment, FragmentError};
use crate::fsutil::write_output;

/// The first line of every part file.
pub const PART_HEADER: &str = "assetc-part 1";

/// The most fragments configure puts in one part, so a flat folder of many
/// thousands of assets still re-merges only a slice of itself after an edit.
pub const MAX_PART_FRAGMENTS: usize = 256;

/// What [`link_part`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartWrites {
    /// Fragments merged.
    pub fragments: usize,
    /// Whether the entries part changed.
    pub entries_written: bool,
    /// Whether the full part changed.
    pub full_written: bool,
}

/// Merges the fragments named in `list` into the entries part `entries` and
/// the full part `full`, each written only if its bytes change.
pub fn link_part(list: &Path, entries: &Path, full: &Path) -> Result<PartWrites, LinkError> {
    let fragments = read_fragments(list)?;
    let entries_written = write_output(entries, render_part(&fragments, true).as_bytes())?;
    let full_written = write_output(full, render_part(&fragments, false).as_bytes())?;
    Ok(PartWrites {
        fragments: fragments.len(),
        entries_written,
        full_written,
    })
}

/// The text of a part holding `fragments`, whole or (`entries_only`) with
/// their `source`, `entry` and `error` records alone.
pub fn render_part(fragments: &[Fragment], entries_only: bool) -> String {
    let mut text = format!("{PART_HEADER}\n");
    for f in fragments {
        if entries_only {
            let slim = Fragment {
                source: f.source.clone(),
                entries: f.entries.clone(),
                errors: f.errors.clone(),
                ..Fragment::default()
            };
            text.push_str(&slim.render());
        } else {
            text.push_str(&f.render());
        }
    }
    text
}

/// Reads a fragment file or a part file: every fragment it holds.
pub fn read_fragment_file(path: &Path) -> Result<Vec<Fragment>, FragmentError> {
    fragment::read_with(path, parse_fragment_file)
}

/// [`read_fragment_file`], plus the BLAKE3 of the file's bytes.
pub fn read_fragment_file_hashed(
    path: &Path,
) -> Result<(Vec<Fragment>, blake3::Hash), FragmentError> {
    fragment::read_with(path, |text| {
        Ok((parse_fragment_file(text)?, blake3::hash(text.as_bytes())))
    })
}

/// Parses a part file, or a single fragment file, as its header says.
fn parse_fragment_file(text: &str) -> Result<Vec<Fragment>, (usize, String)> {
    if text.lines().next() == Some(PART_HEADER) {
        parse_part(text)
    } else {
        Fragment::parse(text).map(|f| vec![f])
    }
}

/// Parses part text (header included); errors carry the 1-based line number
/// in the part.
pub fn parse_part(text: &str) -> Result<Vec<Fragment>, (usize, String)> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    if lines.next().map(|(_, line)| line) != Some(PART_HEADER) {
        return Err((1, format!("expected header `{PART_HEADER}`")));
    }
    let mut fragments: Vec<Fragment> = Vec::new();
    for (number, line) in lines {
        if line == fragment::HEADER {
            fragments.push(Fragment::default());
            continue;
        }
        let Some(current) = fragments.last_mut() else {
            return Err((number, format!("expected header `{}`", fragment::HEADER)));
        };
        current.parse_line(line).map_err(|what| (number, what))?;
    }
    Ok(fragments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::kind::{AssetKind, ColorSpace};
    use crate::fragment::{FileHash, FragmentEntry};

    fn texture(source: &str) -> Fragment {
        let out = source.replace(".png", ".ktx2");
        Fragment {
            source: source.into(),
            entries: vec![FragmentEntry {
                kind: AssetKind::Texture,
                colorspace: ColorSpace::Srgb,
                path: out.clone(),
            }],
            files: vec![out.clone()],
            hashes: vec![FileHash::of(&out, source.as_bytes())],
            copies: Vec::new(),
            formats: Vec::new(),
            errors: Vec::new(),
        }
    }

    #[test]
    fn a_full_part_round_trips_its_fragments() {
        let fragments = vec![texture("ui/a b.png"), texture("ui/c.png")];
        let text = render_part(&fragments, false);
        assert_eq!(parse_part(&text).unwrap(), fragments);
        assert_eq!(parse_part(&render_part(&[], false)).unwrap(), []);
    }

    #[test]
    fn an_entries_part_drops_files_and_hashes() {
        let text = render_part(&[texture("ui/a.png")], true);
        let parsed = parse_part(&text).unwrap();
        assert_eq!(parsed[0].entries, texture("ui/a.png").entries);
        assert_eq!(parsed[0].source, "ui/a.png");
        assert!(parsed[0].files.is_empty() && parsed[0].hashes.is_empty());
    }

    #[test]
    fn errors_name_the_line_of_the_part() {
        let mut text = render_part(&[texture("a.png"), texture("b.png")], false);
        text.push_str("assetc-fragment 1\nsource c.png\nentry texture purple c.ktx2\n");
        let (line, what) = parse_part(&text).unwrap_err();
        assert_eq!(line, text.lines().count());
        assert!(what.contains("purple"), "{what}");
        assert_eq!(parse_part("assetc-fragment 1\n").unwrap_err().0, 1);
    }

    #[test]
    fn a_file_is_read_as_a_part_or_as_one_fragment() {
        let dir = tempfile::tempdir().unwrap();
        let single = dir.path().join("a.frag");
        std::fs::write(&single, texture("a.png").render()).unwrap();
        assert_eq!(read_fragment_file(&single).unwrap(), [texture("a.png")]);
        let part = dir.path().join("p.part");
        let both = [texture("a.png"), texture("b.png")];
        std::fs::write(&part, render_part(&both, false)).unwrap();
        assert_eq!(read_fragment_file(&part).unwrap(), both);
        std::fs::write(&part, "assetc-part 1\nsource x\n").unwrap();
        let error = read_fragment_file(&part).unwrap_err().to_string();
        assert!(error.contains("p.part:2:"), "{error}");
    }
}
