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
//! A `format <name> <colourspace> <path>` record gives the texel format of a
//! produced KTX2 file as its header describes it (`bc7 srgb`, `astc-6x6
//! linear`, …; see [`TextureFormat`]). The encode job reads it back from the
//! bytes it wrote, so every encoder gets one without doing anything, and
//! `assetc-link check` compares it with the file. `.hman` has no field for it.
//!
//! Under `keep_going`, an edge whose source failed writes a *failure
//! fragment*: its `source` and one `error <text>` record per line of the
//! error as the encoder printed it, and nothing else. The link leaves the
//! source out of the manifest and the packs and lists the error in its
//! report.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::format::kind::{AssetKind, ColorSpace};
use crate::format::ktx2::{self, DFD_MODEL_ETC1S, DFD_TRANSFER_SRGB, Ktx2View};
use crate::format::texel::{TexelFormat, VK_FORMAT_ASTC_4X4_SFLOAT_BLOCK};

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
    /// The texel format of each produced KTX2 file, in the order written.
    pub formats: Vec<FileFormat>,
    /// The error that stopped the edge, one line per entry, when the source
    /// failed under `keep_going`; empty for a built source.
    pub errors: Vec<String>,
}

/// The texel format of one KTX2 file and its colour space, as the header and
/// Data Format Descriptor describe them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureFormat {
    /// The format's name: the texel table's name (`bc7`, `astc-6x6`,
    /// `rgba16f`, `uastc`, … as [`TexelFormat::name`] spells it), `etc1s`
    /// for a Basis Universal ETC1S payload, or `vk-<n>` for any other
    /// `vkFormat` (a KTX2 source passed through).
    pub name: String,
    /// Whether the colour channels are sRGB-encoded.
    pub colorspace: ColorSpace,
}

impl TextureFormat {
    /// The format `view`'s header and DFD describe.
    pub fn of(view: &Ktx2View<'_>) -> Self {
        let vk_format = view.header().vk_format;
        let (name, srgb) = match view.texel_format() {
            Some(format) => (format.name().to_owned(), format.is_srgb()),
            None => {
                let srgb = view.transfer_function() == Some(DFD_TRANSFER_SRGB);
                let name = if vk_format == 0 && view.color_model() == Some(DFD_MODEL_ETC1S) {
                    "etc1s".to_owned()
                } else {
                    format!("vk-{vk_format}")
                };
                (name, srgb)
            }
        };
        Self {
            name,
            colorspace: if srgb {
                ColorSpace::Srgb
            } else {
                ColorSpace::Linear
            },
        }
    }

    /// The format of the KTX2 file `bytes`, or why its reader refuses it.
    pub fn of_bytes(bytes: &[u8]) -> crate::format::error::FormatResult<Self> {
        ktx2::parse(bytes).map(|view| Self::of(&view))
    }
}

impl std::fmt::Display for TextureFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.name, self.colorspace.name())
    }
}

/// The recorded texel format of one produced KTX2 file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileFormat {
    /// Runtime path.
    pub path: String,
    /// Its format.
    pub format: TextureFormat,
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
        for f in &self.formats {
            let _ = writeln!(text, "format {} {}", f.format, f.path);
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
            "format" => self.formats.push(parse_format(rest)?),
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

fn parse_format(rest: &str) -> Result<FileFormat, String> {
    let mut parts = rest.splitn(3, ' ');
    let (name, space, path) = match (parts.next(), parts.next(), parts.next()) {
        (Some(n), Some(c), Some(p)) => (n, c, p),
        _ => return Err("a format needs a name, a colour space and a path".into()),
    };
    if !is_format_name(name) {
        return Err(format!("unknown texel format `{name}`"));
    }
    Ok(FileFormat {
        format: TextureFormat {
            name: name.to_owned(),
            colorspace: ColorSpace::from_name(space)
                .ok_or_else(|| format!("unknown colour space `{space}`"))?,
        },
        path: non_empty(path)?.to_owned(),
    })
}

/// Whether `name` is one [`TextureFormat::of`] can give.
fn is_format_name(name: &str) -> bool {
    if let Some(number) = name.strip_prefix("vk-") {
        let canonical = number.parse::<u32>().map(|n| n.to_string());
        return canonical.as_deref() == Ok(number);
    }
    let astc_hdr = VK_FORMAT_ASTC_4X4_SFLOAT_BLOCK..VK_FORMAT_ASTC_4X4_SFLOAT_BLOCK + 8;
    matches!(name, "uastc" | "etc1s")
        || (0..200)
            .chain(astc_hdr)
            .filter_map(TexelFormat::from_vk_format)
            .any(|format| format.name() == name)
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
pub(crate) mod tests {
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
            formats: vec![FileFormat {
                path: "ui/my logo.ktx2".into(),
                format: TextureFormat {
                    name: "astc-6x6".into(),
                    colorspace: ColorSpace::Srgb,
                },
            }],
            errors: Vec::new(),
        }
    }

    /// A one-level 4x4 KTX2 file of `format`.
    pub(crate) fn ktx2_of(format: TexelFormat) -> Vec<u8> {
        let data = vec![0u8; format.image_bytes(4, 4) as usize];
        ktx2::write_single_level(format, 4, 4, &data)
    }

    #[test]
    fn format_records_render_name_colour_space_and_path() {
        let text = sample().render();
        assert!(
            text.ends_with("format astc-6x6 srgb ui/my logo.ktx2\n"),
            "{text}"
        );
    }

    #[test]
    fn texture_formats_are_read_from_the_ktx2_header() {
        use crate::format::texel::AstcBlock;
        let cases = [
            (TexelFormat::Bc7 { srgb: true }, "bc7 srgb"),
            (TexelFormat::Bc5, "bc5 linear"),
            (
                TexelFormat::Astc {
                    block: AstcBlock::B6x6,
                    srgb: false,
                },
                "astc-6x6 linear",
            ),
            (TexelFormat::Rgba16Float, "rgba16f linear"),
            (
                TexelFormat::Uastc {
                    srgb: true,
                    alpha: false,
                },
                "uastc srgb",
            ),
        ];
        for (format, expected) in cases {
            let found = TextureFormat::of_bytes(&ktx2_of(format)).unwrap();
            assert_eq!(found.to_string(), expected);
            let record = format!("{HEADER}\nformat {found} a.ktx2\n");
            let parsed = Fragment::parse(&record).unwrap();
            assert_eq!(parsed.formats[0].format, found, "{record}");
        }
        assert!(TextureFormat::of_bytes(b"not a texture").is_err());
    }

    #[test]
    fn formats_outside_the_table_keep_their_vk_format() {
        let mut bytes = ktx2_of(TexelFormat::R8Unorm);
        // vkFormat 10 (R8_SNORM) is valid KTX2 but not one assetc writes.
        bytes[12..16].copy_from_slice(&10u32.to_le_bytes());
        let found = TextureFormat::of(&ktx2::parse(&bytes).unwrap());
        assert_eq!(found.to_string(), "vk-10 linear");
        assert!(Fragment::parse(&format!("{HEADER}\nformat vk-10 linear a.ktx2\n")).is_ok());
    }

    #[test]
    fn bad_format_records_are_refused_with_their_line() {
        let bad = [
            ("format bc9 srgb a.ktx2", "unknown texel format `bc9`"),
            ("format BC7 srgb a.ktx2", "unknown texel format `BC7`"),
            (
                "format vk-010 linear a.ktx2",
                "unknown texel format `vk-010`",
            ),
            ("format bc7 purple a.ktx2", "unknown colour space `purple`"),
            ("format bc7 srgb", "needs a name, a colour space and a path"),
            ("format bc7 srgb ", "empty path"),
        ];
        for (record, expected) in bad {
            let text = format!("{HEADER}\nsource a.png\n{record}\n");
            let (line, what) = Fragment::parse(&text).unwrap_err();
            assert_eq!(line, 3, "{record}");
            assert!(what.contains(expected), "{record}: {what}");
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
