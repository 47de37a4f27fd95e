//! One entry point for every file assetc writes: tell the type from the
//! first bytes, then check the whole file and hand back its typed view.
//!
//! Each format starts with a fixed magic (`HMSH`, `HMAT`, `HMAN`, `HANM`,
//! `HFNT`, `HPAK`, `HSND`, `HATL`) or, for textures and colour lookup tables, the 12-byte KTX
//! 2.0 identifier. [`identify`] looks at nothing else; [`open`] and
//! [`validate`] go on to apply every rule of the identified format.
//!
//! [`open`] lends the file's arrays in place where the format allows it, so
//! `.hmesh`, `.hmat` and `.hatlas` buffers must start on an 8-byte boundary
//! and `.hfont` buffers on a 4-byte one (see [`AlignedBytes`](super::bytes::AlignedBytes));
//! the other formats, and [`validate`], take any alignment.

use core::fmt;

use super::error::{FormatError, FormatResult};
use super::hanim::{self, HAnim};
use super::hatlas::{self, HAtlas};
use super::hfont::{self, HFont};
use super::hman::{self, Manifest};
use super::hmat::{self, GpuMaterial};
use super::hmesh::{self, HMesh};
use super::hpack::{self, Pack};
use super::hsnd::{self, SoundRecord};
use super::ktx2::{self, Ktx2View};

/// The kinds of file assetc writes, as told by their first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileType {
    /// `.hmesh` geometry (`HMSH`).
    Mesh,
    /// `.hmat` material table (`HMAT`).
    Material,
    /// `.hman` manifest (`HMAN`).
    Manifest,
    /// `.hanim` animation clips (`HANM`).
    Animation,
    /// `.hfont` glyph metrics (`HFNT`).
    Font,
    /// `.hpack` archive (`HPAK`).
    Pack,
    /// `.hsnd` sound record (`HSND`).
    Sound,
    /// `.hatlas` sprite table (`HATL`).
    Atlas,
    /// KTX 2.0 texture or colour lookup table.
    Ktx2,
}

impl FileType {
    /// Every type, in declaration order.
    pub const ALL: [FileType; 9] = [
        FileType::Mesh,
        FileType::Material,
        FileType::Manifest,
        FileType::Animation,
        FileType::Font,
        FileType::Pack,
        FileType::Sound,
        FileType::Atlas,
        FileType::Ktx2,
    ];

    /// A lowercase name for messages, e.g. `"mesh"`.
    pub const fn name(self) -> &'static str {
        match self {
            FileType::Mesh => "mesh",
            FileType::Material => "material",
            FileType::Manifest => "manifest",
            FileType::Animation => "animation",
            FileType::Font => "font",
            FileType::Pack => "pack",
            FileType::Sound => "sound",
            FileType::Atlas => "atlas",
            FileType::Ktx2 => "texture",
        }
    }

    /// The extension assetc gives such files, without the dot, e.g. `"hmesh"`.
    /// (A colour lookup table is a KTX 2.0 file named `*.lut.ktx2`.)
    pub const fn extension(self) -> &'static str {
        match self {
            FileType::Mesh => "hmesh",
            FileType::Material => "hmat",
            FileType::Manifest => "hman",
            FileType::Animation => "hanim",
            FileType::Font => "hfont",
            FileType::Pack => "hpack",
            FileType::Sound => "hsnd",
            FileType::Atlas => "hatlas",
            FileType::Ktx2 => "ktx2",
        }
    }

    /// The type whose [`extension`](Self::extension) `path` ends with
    /// (after a `.`), if any. Case-sensitive, like the names assetc writes.
    pub fn from_path(path: &str) -> Option<Self> {
        let (_, extension) = path.rsplit_once('.')?;
        Self::ALL
            .into_iter()
            .find(|file_type| file_type.extension() == extension)
    }

    /// The bytes a file of this type starts with.
    pub const fn magic(self) -> &'static [u8] {
        match self {
            FileType::Mesh => b"HMSH",
            FileType::Material => b"HMAT",
            FileType::Manifest => &hman::MAGIC,
            FileType::Animation => b"HANM",
            FileType::Font => b"HFNT",
            FileType::Pack => &hpack::MAGIC,
            FileType::Sound => b"HSND",
            FileType::Atlas => b"HATL",
            FileType::Ktx2 => &ktx2::IDENTIFIER,
        }
    }
}

impl fmt::Display for FileType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A checked file of any type, borrowing from the caller's buffer.
#[derive(Debug, Clone)]
#[allow(
    clippy::large_enum_variant,
    reason = "one value per opened file; boxing the mesh view would cost an allocation to save \
              copying a few hundred bytes"
)]
pub enum AssetFile<'a> {
    /// A `.hmesh`, its arrays in place.
    Mesh(HMesh<'a>),
    /// The rows of a `.hmat`, in place.
    Material(&'a [GpuMaterial]),
    /// A `.hman`.
    Manifest(Manifest<'a>),
    /// A `.hanim`, decoded on demand.
    Animation(HAnim<'a>),
    /// A `.hfont`, its tables in place.
    Font(HFont<'a>),
    /// A `.hpack`; [`Pack::open`] opens its entries.
    Pack(Pack<'a>),
    /// A `.hsnd`, copied out of the buffer.
    Sound(SoundRecord),
    /// A `.hatlas`, its rows in place.
    Atlas(HAtlas<'a>),
    /// A KTX 2.0 texture or colour lookup table.
    Texture(Ktx2View<'a>),
}

impl AssetFile<'_> {
    /// The type of the file.
    pub fn file_type(&self) -> FileType {
        match self {
            AssetFile::Mesh(_) => FileType::Mesh,
            AssetFile::Material(_) => FileType::Material,
            AssetFile::Manifest(_) => FileType::Manifest,
            AssetFile::Animation(_) => FileType::Animation,
            AssetFile::Font(_) => FileType::Font,
            AssetFile::Pack(_) => FileType::Pack,
            AssetFile::Sound(_) => FileType::Sound,
            AssetFile::Atlas(_) => FileType::Atlas,
            AssetFile::Texture(_) => FileType::Ktx2,
        }
    }
}

/// The type of file `bytes` hold, judged by the magic alone, or `None` if
/// they start like no file assetc writes (embedded files and shaders, for
/// example, keep their own formats).
pub fn identify(bytes: &[u8]) -> Option<FileType> {
    FileType::ALL
        .into_iter()
        .find(|file_type| bytes.starts_with(file_type.magic()))
}

/// Identifies `bytes`, checks every rule of that format and returns the
/// typed view.
///
/// Fails at offset 0, field `"magic"`, when the file is of no known type;
/// `.hmesh`, `.hmat` and `.hatlas` need an 8-byte aligned buffer and
/// `.hfont` a 4-byte aligned one (the error says so otherwise).
pub fn open(bytes: &[u8]) -> FormatResult<AssetFile<'_>> {
    Ok(match identify_or_fail(bytes)? {
        FileType::Mesh => AssetFile::Mesh(hmesh::parse_hmesh(bytes)?),
        FileType::Material => AssetFile::Material(hmat::parse_hmat(bytes)?),
        FileType::Manifest => AssetFile::Manifest(hman::parse(bytes)?),
        FileType::Animation => AssetFile::Animation(hanim::parse_hanim(bytes)?),
        FileType::Font => AssetFile::Font(hfont::parse_hfont(bytes)?),
        FileType::Pack => AssetFile::Pack(hpack::parse(bytes)?),
        FileType::Sound => AssetFile::Sound(hsnd::read_hsnd(bytes)?),
        FileType::Atlas => AssetFile::Atlas(hatlas::parse_hatlas(bytes)?),
        FileType::Ktx2 => AssetFile::Texture(ktx2::parse(bytes)?),
    })
}

/// Identifies `bytes` and checks every rule of that format, on a buffer of
/// any alignment. A pack's entries are not opened; use [`Pack::open`] on
/// each for that.
pub fn validate(bytes: &[u8]) -> FormatResult<FileType> {
    let file_type = identify_or_fail(bytes)?;
    match file_type {
        FileType::Mesh => hmesh::validate(bytes),
        FileType::Material => hmat::validate(bytes),
        FileType::Manifest => hman::validate(bytes),
        FileType::Animation => hanim::validate(bytes),
        FileType::Font => hfont::validate(bytes),
        FileType::Pack => hpack::validate(bytes),
        FileType::Sound => hsnd::validate(bytes),
        FileType::Atlas => hatlas::validate(bytes),
        FileType::Ktx2 => ktx2::validate(bytes),
    }?;
    Ok(file_type)
}

/// [`identify`], or the error for an unknown file.
fn identify_or_fail(bytes: &[u8]) -> FormatResult<FileType> {
    identify(bytes).ok_or_else(|| {
        let start = bytes.get(..4).unwrap_or(bytes);
        FormatError::new(
            0,
            "magic",
            format!(
                "the file starts with \"{}\", which is not the magic of any file assetc writes",
                start.escape_ascii()
            ),
        )
    })
}

impl<'a> Pack<'a> {
    /// The entry stored under `path`, identified and checked like any file
    /// by [`open`], or `None` if the pack has no such
    /// entry. Error offsets count from the start of the entry.
    ///
    /// Payloads start on multiples of 16 from the start of the pack, so when
    /// the pack buffer is 16-byte aligned (see
    /// [`AlignedBytes`](super::bytes::AlignedBytes)) meshes, materials and
    /// fonts are lent in place like everything else.
    pub fn open(&self, path: &str) -> Option<FormatResult<AssetFile<'a>>> {
        let entry = self.find(path)?;
        Some(open(self.data(&entry)))
    }
}

#[cfg(test)]
mod tests {
    use bytemuck::Zeroable;

    use super::*;
    use crate::format::bytes::AlignedBytes;
    use crate::format::hanim::{AnimChannel, AnimClip, AnimPath, Interpolation};
    use crate::format::hfont::{FontData, GpuGlyph};
    use crate::format::hman::ManifestEntry;
    use crate::format::hmesh::{GpuVertex, MeshBounds, MeshData, SubMesh};
    use crate::format::hpack::PackItem;
    use crate::format::hsnd::SoundCodec;
    use crate::format::kind::{AssetKind, ColorSpace, PackKind};
    use crate::format::ktx2::{Ktx2Image, Ktx2Level, TexelFormat};

    fn font() -> Vec<u8> {
        let notdef = GpuGlyph {
            codepoint: 0,
            advance: 0.5,
            plane_left: 0.0,
            plane_bottom: 0.0,
            plane_right: 0.5,
            plane_top: 0.7,
            uv_left: 0.0,
            uv_top: 0.0,
            uv_right: 0.5,
            uv_bottom: 0.5,
        };
        let data = FontData {
            atlas_tex: 42,
            ascent: 0.9,
            descent: -0.2,
            line_gap: 0.0,
            distance_range: 6.0,
            edge_value: 0.5,
            atlas_width: 64,
            atlas_height: 64,
            flags: 0,
            glyphs: vec![notdef],
            kerning: Vec::new(),
        };
        hfont::write_hfont(&data).unwrap()
    }

    fn sound() -> Vec<u8> {
        let record = SoundRecord::new(SoundCodec::Qoa, 44_100, 2, 4_410, 99).with_loop(0, 4_410);
        hsnd::write_hsnd(&record).unwrap()
    }

    fn atlas() -> Vec<u8> {
        let sprite = hatlas::SpriteEntry {
            name: "coin".into(),
            page: 0,
            rotated: false,
            rect: [0, 0, 4, 4],
            trim: [0, 0],
            source_size: [4, 4],
            pivot: [0.5, 0.5],
            duration_ms: 0,
        };
        let table = hatlas::AtlasTable {
            atlas_tex: 7,
            page_count: 1,
            page_width: 4,
            page_height: 4,
            flags: 0,
            sprites: vec![sprite],
        };
        hatlas::write_hatlas(&table).unwrap()
    }

    fn animation() -> Vec<u8> {
        let clip = AnimClip {
            name: "spin".into(),
            duration: 1.0,
            channels: vec![AnimChannel {
                joint: 0,
                path: AnimPath::Scale,
                interpolation: Interpolation::Linear,
                times: vec![0.0, 1.0],
                values: vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0],
            }],
        };
        hanim::write_hanim(&[clip]).unwrap()
    }

    fn texture() -> Vec<u8> {
        let texels = [0x80_u8; 16];
        ktx2::write_ktx2(&Ktx2Image {
            format: TexelFormat::Rgba8 { srgb: true },
            width: 2,
            height: 2,
            depth: 0,
            layers: 0,
            faces: 1,
            supercompression: ktx2::SUPERCOMPRESSION_NONE,
            swizzle: None,
            levels: &[Ktx2Level {
                data: &texels,
                uncompressed_len: 16,
            }],
        })
    }

    fn manifest() -> Vec<u8> {
        let path = "ui/icon.ktx2";
        hman::write_manifest(&[ManifestEntry {
            hash: AssetKind::Texture.id_for_path(path),
            kind: AssetKind::Texture,
            colorspace: ColorSpace::Srgb,
            path: path.into(),
        }])
        .unwrap()
    }

    /// One triangle without meshlets or materials.
    fn mesh() -> Vec<u8> {
        let corner = |x: f32, y: f32| GpuVertex {
            position: [x, y, 0.0],
            uv: [x, y],
            ..GpuVertex::zeroed()
        };
        let bounds = MeshBounds {
            aabb_min: [0.0; 3],
            aabb_max: [1.0, 1.0, 0.0],
            sphere_center: [0.5, 0.5, 0.0],
            sphere_radius: 0.75,
        };
        let mesh = MeshData {
            vertices: vec![corner(0.0, 0.0), corner(1.0, 0.0), corner(0.0, 1.0)],
            indices: vec![0, 1, 2],
            submeshes: vec![SubMesh {
                first_index: 0,
                index_count: 3,
                first_meshlet: 0,
                meshlet_count: 0,
                material_slot: hmesh::NO_MATERIAL,
                base_vertex: 0,
                bounds,
            }],
            bounds,
            ..MeshData::default()
        };
        hmesh::write_hmesh(&mesh).unwrap()
    }

    /// One small valid file of each type but `.hpack`.
    fn samples() -> Vec<(FileType, Vec<u8>)> {
        vec![
            (FileType::Mesh, mesh()),
            (
                FileType::Material,
                hmat::write_hmat(&[GpuMaterial::default()]),
            ),
            (FileType::Manifest, manifest()),
            (FileType::Animation, animation()),
            (FileType::Font, font()),
            (FileType::Sound, sound()),
            (FileType::Atlas, atlas()),
            (FileType::Ktx2, texture()),
        ]
    }

    fn pack_of(files: &[(FileType, Vec<u8>)]) -> Vec<u8> {
        let paths: Vec<String> = files
            .iter()
            .map(|(file_type, _)| format!("sample.{}", file_type.extension()))
            .collect();
        let mut items: Vec<PackItem<'_>> = files
            .iter()
            .zip(&paths)
            .map(|((_, data), path)| PackItem {
                path,
                kind: PackKind::from_path(path),
                data,
            })
            .collect();
        items.push(PackItem {
            path: "notes.txt",
            kind: PackKind::Other,
            data: b"plain text",
        });
        hpack::write_pack(&items).unwrap()
    }

    #[test]
    fn identifies_and_opens_every_type() {
        let mut files = samples();
        files.push((FileType::Pack, pack_of(&samples())));
        for (expected, bytes) in files {
            let aligned = AlignedBytes::copy_from(&bytes);
            assert_eq!(identify(&aligned), Some(expected));
            let opened = open(&aligned).unwrap_or_else(|err| panic!("{expected}: {err}"));
            assert_eq!(opened.file_type(), expected);
            assert_eq!(validate(&bytes), Ok(expected));
        }
    }

    #[test]
    fn names_extensions_and_magics_are_distinct() {
        for (i, a) in FileType::ALL.into_iter().enumerate() {
            assert_eq!(
                FileType::from_path(&format!("x/y.{}", a.extension())),
                Some(a)
            );
            assert_eq!(identify(a.magic()), Some(a));
            for b in FileType::ALL.into_iter().skip(i + 1) {
                assert_ne!(a.name(), b.name());
                assert_ne!(a.extension(), b.extension());
                assert!(!a.magic().starts_with(b.magic()) && !b.magic().starts_with(a.magic()));
            }
        }
        assert_eq!(FileType::from_path("a.lut.ktx2"), Some(FileType::Ktx2));
        assert_eq!(FileType::from_path("a.HMESH"), None);
        assert_eq!(FileType::from_path("noextension"), None);
        assert_eq!(FileType::Ktx2.to_string(), "texture");
    }

    #[test]
    fn refuses_unknown_or_short_files_at_the_magic() {
        for bytes in [
            &b""[..],
            b"HM",
            b"{\"enemies\": 3}",
            b"\x03\x02\x23\x07 spir-v",
        ] {
            assert_eq!(identify(bytes), None);
            let err = open(bytes).unwrap_err();
            assert_eq!((err.offset, err.field), (0, "magic"), "{err}");
            assert_eq!(validate(bytes).unwrap_err(), err);
        }
        assert_eq!(identify(&ktx2::IDENTIFIER[..11]), None);
    }

    #[test]
    fn a_known_magic_on_a_broken_file_reports_the_format_error() {
        let mut bytes = font();
        bytes.pop();
        assert_eq!(identify(&bytes), Some(FileType::Font));
        let err = validate(&bytes).unwrap_err();
        assert_eq!(err.field, "FontFileHeader.glyphCount");
        assert_eq!(open(&AlignedBytes::copy_from(&bytes)).unwrap_err(), err);
    }

    #[test]
    fn says_when_a_buffer_is_too_misaligned_to_read_in_place() {
        let shifted = AlignedBytes::copy_from(&[&[0; 4][..], &mesh()].concat());
        let err = open(&shifted[4..]).unwrap_err();
        assert!(err.what.contains("8-byte boundary"), "{err}");
        assert_eq!(validate(&shifted[4..]), Ok(FileType::Mesh));
        let shifted = AlignedBytes::copy_from(&[&[0; 2][..], &font()].concat());
        let err = open(&shifted[2..]).unwrap_err();
        assert!(err.what.contains("4-byte boundary"), "{err}");
        assert_eq!(validate(&shifted[2..]), Ok(FileType::Font));
    }

    #[test]
    fn a_pack_opens_its_entries_by_path() {
        let bytes = AlignedBytes::copy_from(&pack_of(&samples()));
        let pack = hpack::parse(&bytes).unwrap();
        for (expected, _) in samples() {
            let path = format!("sample.{}", expected.extension());
            let opened = pack.open(&path).unwrap();
            assert_eq!(opened.map(|file| file.file_type()), Ok(expected), "{path}");
        }
        let text = pack.open("notes.txt").unwrap().unwrap_err();
        assert_eq!(text.field, "magic");
        assert!(pack.open("missing.hmat").is_none());
        match pack.open("sample.hmat") {
            Some(Ok(AssetFile::Material(rows))) => assert_eq!(rows, &[GpuMaterial::default()]),
            other => panic!("expected material rows, got {other:?}"),
        }
    }

    #[test]
    fn survives_corruption_of_every_sample() {
        for (_, bytes) in samples() {
            for at in 0..bytes.len() {
                for value in [0x00, 0x01, 0x7f, 0xff] {
                    let mut corrupt = bytes.clone();
                    corrupt[at] = value;
                    let aligned = AlignedBytes::copy_from(&corrupt);
                    assert_eq!(open(&aligned).is_ok(), validate(&corrupt).is_ok());
                }
            }
        }
    }
}
