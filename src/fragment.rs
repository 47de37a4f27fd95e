//! Manifest fragments: what one encode edge contributes to the link steps.
//!
//! Every encode edge writes a fragment next to its depfile in the build folder.
//! It records the source, the manifest entries the edge registers and every file
//! it produced, all as runtime paths (relative to the output folder). The link
//! steps read fragments instead of walking the output folder, so a stale file
//! left by a deleted asset never reaches the manifest or the pack.
//!
//! The format is line-based UTF-8 text, one record per line, the path last so it
//! may contain spaces:
//!
//! ```text
//! assetc-fragment 1
//! source textures/rock.n.png
//! entry texture linear textures/rock.n.ktx2
//! file textures/rock.n.ktx2
//! hash 5d1c…(64 hex digits) textures/rock.n.ktx2
//! ```
//!
//! A `hash` record gives the BLAKE3 hash of a produced file's bytes as the
//! encoder wrote them, so `assetc-link check` can tell a tampered or stale
//! output from a good one. Fragments written before the record existed simply
//! have none; the header is unchanged. A `copy <path>` record marks a file
//! that is the source itself, byte for byte (an embed), which the check also
//! compares with the source; a processor's output never has one.
//!
//! Under `keep_going`, an edge whose source failed writes a *failure
//! fragment*: its `source` and one `error <text>` record per line of the
//! error as the encoder printed it, and nothing else. The link leaves the
//! source out of the manifest and the packs and lists the error in its
//! report.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::format::kind::{AssetKind, ColorSpace};

/// The first line of every fragment.
pub const HEADER: &str = "assetc-fragment 1";

/// One manifest registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FragmentEntry {
    /// The asset kind, which also fixes how the id is derived from the path.
    pub kind: AssetKind,
    /// The colour space baked into the file (linear for non-textures).
    pub colorspace: ColorSpace,
    /// Runtime path, `/`-separated, relative to the output folder.
    pub path: String,
}

/// Everything one encode edge contributes to the link.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fragment {
    /// Source path relative to the input folder, for messages.
    pub source: String,
    /// Manifest entries.
    pub entries: Vec<FragmentEntry>,
    /// Every file produced, as runtime paths.
    pub files: Vec<String>,
    /// The content hash of produced files, in the order written.
    pub hashes: Vec<FileHash>,
    /// Produced files that are the source itself, byte for byte (embeds;
    /// not a processor's output, whatever its kind).
    pub copies: Vec<String>,
    /// The error that stopped the edge, one line per entry, when the source
    /// failed under `keep_going`; empty for a built source.
    pub errors: Vec<String>,
}

/// The BLAKE3 hash of one produced file, as its encoder wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHash {
    /// Runtime path.
    pub path: String,
    /// The hash, as 64 lowercase hex digits.
    pub blake3: String,
}

impl FileHash {
    /// The hash record of `bytes` written to `path`.
    pub fn of(path: &str, bytes: &[u8]) -> Self {
        Self {
            path: path.to_owned(),
            blake3: blake3::hash(bytes).to_hex().to_string(),
        }
    }

    /// Whether `bytes` are what was recorded.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        blake3::hash(bytes).to_hex().as_str() == self.blake3
    }
}

/// A fragment that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum FragmentError {
    /// The file could not be read.
    #[error("{}: cannot read fragment", path.display())]
    Io {
        /// The fragment file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A line is malformed.
    #[error("{}:{line}: {what}", path.display())]
    Syntax {
        /// The fragment file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

impl Fragment {
    /// Renders the fragment text.
    pub fn render(&self) -> String {
        let mut text = format!("{HEADER}\nsource {}\n", self.source);
        for e in &self.entries {
            let _ = writeln!(
                text,
                "entry {} {} {}",
                e.kind.name(),
                e.colorspace.name(),
                e.path
            );
        }
        for f in &self.files {
            let _ = writeln!(text, "file {f}");
        }
        for h in &self.hashes {
            let _ = writeln!(text, "hash {} {}", h.blake3, h.path);
        }
        for c in &self.copies {
            let _ = writeln!(text, "copy {c}");
        }
        for e in &self.errors {
            let _ = writeln!(text, "error {e}");
        }
        text
    }

    /// Whether the edge failed (the fragment records an error).
    pub fn failed(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Reads and parses a fragment file.
    pub fn read(path: &Path) -> Result<Self, FragmentError> {
        read_with(path, Self::parse)
    }

    /// Parses fragment text; errors carry the 1-based line number.
    pub fn parse(text: &str) -> Result<Self, (usize, String)> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        match lines.next() {
            Some((_, HEADER)) => {}
            _ => return Err((1, format!("expected header `{HEADER}`"))),
        }
        let mut fragment = Fragment::default();
        for (number, line) in lines {
            fragment.parse_line(line).map_err(|what| (number, what))?;
        }
        Ok(fragment)
    }

    /// Adds the record on one line (not the header) to the fragment.
    pub fn parse_line(&mut self, line: &str) -> Result<(), String> {
        let (tag, rest) = line.split_once(' ').unwrap_or((line, ""));
        match tag {
            "source" => self.source = rest.to_string(),
            "file" => self.files.push(non_empty(rest)?.to_string()),
            "entry" => self.entries.push(parse_entry(rest)?),
            "hash" => self.hashes.push(parse_hash(rest)?),
            "copy" => self.copies.push(non_empty(rest)?.to_string()),
            "error" => self.errors.push(rest.to_string()),
            _ => return Err(format!("unknown record `{tag}`")),
        }
        Ok(())
    }
}

fn parse_entry(rest: &str) -> Result<FragmentEntry, String> {
    let mut parts = rest.splitn(3, ' ');
    let (kind, space, path) = match (parts.next(), parts.next(), parts.next()) {
        (Some(k), Some(c), Some(p)) => (k, c, p),
        _ => return Err("an entry needs a kind, a colour space and a path".into()),
    };
    Ok(FragmentEntry {
        kind: AssetKind::from_name(kind).ok_or_else(|| format!("unknown kind `{kind}`"))?,
        colorspace: ColorSpace::from_name(space)
            .ok_or_else(|| format!("unknown colour space `{space}`"))?,
        path: non_empty(path)?.to_string(),
    })
}

fn parse_hash(rest: &str) -> Result<FileHash, String> {
    let (hex, path) = rest.split_once(' ').unwrap_or((rest, ""));
    let is_hash = hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !is_hash {
        return Err(format!(
            "`{hex}` is not a BLAKE3 hash (64 lowercase hex digits)"
        ));
    }
    Ok(FileHash {
        blake3: hex.to_owned(),
        path: non_empty(path)?.to_owned(),
    })
}

fn non_empty(path: &str) -> Result<&str, String> {
    if path.is_empty() {
        Err("empty path".into())
    } else {
        Ok(path)
    }
}

/// Reads the text file `path` and parses it with `parse`, whose errors carry
/// a 1-based line number; errors name the file. Fragments and the link's part
/// files are both read this way.
pub fn read_with<T>(
    path: &Path,
    parse: impl FnOnce(&str) -> Result<T, (usize, String)>,
) -> Result<T, FragmentError> {
    let text = std::fs::read_to_string(path).map_err(|source| FragmentError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse(&text).map_err(|(line, what)| FragmentError::Syntax {
        path: path.to_owned(),
        line,
        what,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Fragment {
        Fragment {
            source: "ui/my logo.png".into(),
            entries: vec![FragmentEntry {
                kind: AssetKind::Texture,
                colorspace: ColorSpace::Srgb,
                path: "ui/my logo.ktx2".into(),
            }],
            files: vec!["ui/my logo.ktx2".into()],
            hashes: vec![FileHash::of("ui/my logo.ktx2", b"texels")],
            copies: vec!["ui/my logo.ktx2".into()],
            errors: Vec::new(),
        }
    }

    #[test]
    fn round_trips_paths_with_spaces() {
        let f = sample();
        assert_eq!(Fragment::parse(&f.render()).unwrap(), f);
    }

    #[test]
    fn failure_fragments_round_trip_their_error_lines() {
        let failed = Fragment {
            source: "ui/bad.png".into(),
            errors: vec![
                "assetc-encode: error: bad".into(),
                "  caused by: crc".into(),
            ],
            ..Fragment::default()
        };
        let parsed = Fragment::parse(&failed.render()).unwrap();
        assert_eq!(parsed, failed);
        assert!(parsed.failed() && !sample().failed());
    }

    #[test]
    fn reports_the_bad_line() {
        let text = "assetc-fragment 1\nsource a.png\nentry texture purple a.ktx2\n";
        let (line, what) = Fragment::parse(text).unwrap_err();
        assert_eq!(line, 3);
        assert!(what.contains("purple"), "{what}");
        assert_eq!(Fragment::parse("nope\n").unwrap_err().0, 1);
        assert!(Fragment::parse("assetc-fragment 1\nfile \n").is_err());
        let (line, what) = Fragment::parse("assetc-fragment 1\nhash abc a.bin\n").unwrap_err();
        assert_eq!(line, 2);
        assert!(what.contains("not a BLAKE3 hash"), "{what}");
        let zeros = "0".repeat(64);
        assert!(Fragment::parse(&format!("assetc-fragment 1\nhash {zeros} \n")).is_err());
    }

    #[test]
    fn fragments_without_hash_records_still_parse() {
        let text = "assetc-fragment 1\nsource a.json\nentry embed linear a.json\nfile a.json\n";
        let f = Fragment::parse(text).unwrap();
        assert!(f.hashes.is_empty());
        assert_eq!(f.render(), text);
    }

    #[test]
    fn hashes_match_only_their_bytes() {
        let h = FileHash::of("a.bin", b"\x00\xff odd bytes");
        assert_eq!(h.blake3.len(), 64);
        assert!(h.matches(b"\x00\xff odd bytes"));
        assert!(!h.matches(b"\x00\xff odd bytez"));
    }
}
