//! The figures `assetc info` shows for one file, read with the engine-side
//! readers ([`crate::format::open()`]) and judged by the file's extension.
//!
//! A file whose extension names one of our formats but whose bytes do not
//! parse is reported as [`Details::Invalid`] with the reader's error (byte
//! offset and field); any other extension is [`Details::Other`], counted only
//! by size. Every struct here is part of the documented JSON schema, so field
//! names are stable: add fields, never rename them.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::encode::shader::validate_spirv;
use crate::format::bytes::AlignedBytes;
use crate::format::error::{FormatError, FormatResult};
use crate::format::hash::hex_id;
use crate::format::kind::{AssetKind, ColorSpace};
use crate::format::{
    AssetFile, FileType, hanim, hatlas, hfont, hman, hmat, hmesh, hsnd, ktx2, open,
};

/// One file of the output tree and what it holds.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    /// Path relative to the inspected folder, with `/` separators.
    pub path: String,
    /// Size on disk.
    pub bytes: u64,
    /// What the file holds (the JSON `type` field and its figures).
    #[serde(flatten)]
    pub details: Details,
}

/// The figures of one file, by type.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Details {
    /// A `.hmesh`.
    Mesh(MeshStats),
    /// A `.hmat`.
    Material(MaterialStats),
    /// A `.hman`.
    Manifest(ManifestStats),
    /// A `.hanim`.
    Animation(AnimationStats),
    /// A `.hfont`.
    Font(FontStats),
    /// A `.hpack`.
    Pack(PackStats),
    /// A `.hsnd` sound record.
    Sound(SoundStats),
    /// A `.hatlas` sprite table.
    Atlas(AtlasStats),
    /// A `.ktx2` (textures, cubemaps, arrays, LUTs).
    Texture(TextureStats),
    /// A compiled shader the manifest lists.
    Shader(ShaderStats),
    /// A file copied verbatim that the manifest lists.
    Embed,
    /// Any other file.
    Other,
    /// A file of one of our formats that does not parse.
    Invalid {
        /// The format its extension claims, e.g. `mesh`.
        format: &'static str,
        /// The reader's error, with byte offset and field.
        error: String,
    },
}

/// A mesh's shape.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MeshStats {
    /// Vertices in `VTXS`.
    pub vertices: u64,
    /// Indices in `IDXS` (full resolution).
    pub indices: u64,
    /// `indices / 3`.
    pub triangles: u64,
    /// 16 or 32.
    pub index_bits: u8,
    /// Meshlets.
    pub meshlets: u64,
    /// Submeshes (draw ranges).
    pub submeshes: u64,
    /// Material slots.
    pub materials: u64,
    /// Reduced levels per submesh.
    pub lods: u32,
    /// Triangles of each reduced level, summed over submeshes (a stalled
    /// level counts as the level before it, as an engine would draw it).
    pub lod_triangles: Vec<u64>,
    /// Skeleton joints (0 for a static mesh).
    pub joints: u64,
    /// Whether vertices carry real tangents.
    pub tangents: bool,
    /// The mesh's bounds.
    pub bounds: BoundsStats,
}

/// A box and sphere.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BoundsStats {
    /// Box minimum.
    pub min: [f32; 3],
    /// Box maximum.
    pub max: [f32; 3],
    /// Sphere radius.
    pub radius: f32,
}

/// A material table's make-up.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MaterialStats {
    /// Rows.
    pub rows: u64,
    /// Rows that use each texture slot, by slot name.
    pub slots: BTreeMap<&'static str, u64>,
    /// Rows per alpha mode (`opaque`, `mask`, `blend`).
    pub alpha_modes: BTreeMap<&'static str, u64>,
    /// Double-sided rows.
    pub double_sided: u64,
}

/// A manifest's entries by kind and colour space.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ManifestStats {
    /// Entries.
    pub entries: u64,
    /// Entries per asset kind name (every kind listed, zeros included).
    pub kinds: BTreeMap<&'static str, u64>,
    /// Entries per colour space name.
    pub color_spaces: BTreeMap<&'static str, u64>,
}

/// An animation file's clips.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AnimationStats {
    /// Every clip, in file order.
    pub clips: Vec<ClipStats>,
    /// Channels over all clips.
    pub channels: u64,
    /// Keys over all channels.
    pub keys: u64,
    /// The longest clip, in seconds.
    pub duration: f32,
    /// The highest joint index animated, if any channel exists.
    pub max_joint: Option<u32>,
}

/// One clip.
#[derive(Debug, Clone, Serialize)]
pub struct ClipStats {
    /// Its name.
    pub name: String,
    /// Seconds.
    pub duration: f32,
    /// Channels.
    pub channels: u64,
    /// Keys over its channels.
    pub keys: u64,
}

/// A SPIR-V module's header version and entry points.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ShaderStats {
    /// The SPIR-V version, e.g. `1.0`.
    pub spirv: String,
    /// Every entry point as `<stage> <name>`, e.g. `vertex main`.
    pub entry_points: Vec<String>,
}

/// A font's glyph table.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FontStats {
    /// Glyphs, `.notdef` included.
    pub glyphs: u64,
    /// Kerning pairs.
    pub kerning_pairs: u64,
    /// Id of the atlas texture, as `0x` and 16 hex digits.
    pub atlas: String,
    /// Atlas width in texels.
    pub atlas_width: u16,
    /// Atlas height in texels.
    pub atlas_height: u16,
    /// Whether the atlas is multi-channel (an MSDF, or RGBA bitmaps).
    pub msdf: bool,
    /// Whether the atlas holds glyph bitmaps, not a distance field.
    pub bitmap: bool,
    /// Baseline-to-baseline distance, in em.
    pub line_advance: f32,
    /// SDF spread in atlas texels.
    pub distance_range: f32,
}

/// A sound record's figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SoundStats {
    /// `pcm16`, `qoa`, `vorbis` or `opus`.
    pub codec: &'static str,
    /// Frames per second.
    pub rate: u32,
    /// Channels.
    pub channels: u32,
    /// Frames per channel.
    pub frames: u64,
    /// `frames / rate`.
    pub seconds: f64,
    /// The loop as `[start, end)` frames; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_frames: Option<[u64; 2]>,
    /// Integrated loudness, LUFS; absent when not measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loudness: Option<f32>,
    /// True peak, dBTP; absent when not measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub true_peak: Option<f32>,
    /// Id of the sound file, as `0x` and 16 hex digits.
    pub sound: String,
}

/// A sprite table's figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AtlasStats {
    /// Sprites (or animation frames).
    pub sprites: u64,
    /// Pages: layers of the `.ktx2`.
    pub pages: u32,
    /// Width of every page.
    pub page_width: u32,
    /// Height of every page.
    pub page_height: u32,
    /// Sprites stored turned 90°.
    pub rotated: u64,
    /// Texels of sprite content over texels of page: how well it packed.
    pub efficiency: f64,
    /// Whether the rows are animation frames.
    pub animation: bool,
    /// Whether the pages want a nearest filter.
    pub nearest: bool,
    /// Id of the pages' `.ktx2`, as `0x` and 16 hex digits.
    pub atlas_tex: String,
}

/// A pack's size.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PackStats {
    /// Entries.
    pub entries: u64,
    /// Payload bytes.
    pub payload: u64,
}

/// A KTX2 file's shape and encoding.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TextureStats {
    /// Level 0 width.
    pub width: u32,
    /// Level 0 height.
    pub height: u32,
    /// Level 0 depth (1 unless 3D).
    pub depth: u32,
    /// Array layers (1 unless an array).
    pub layers: u32,
    /// 1, or 6 for a cubemap.
    pub faces: u32,
    /// Mip levels stored.
    pub mips: u32,
    /// The header's `vkFormat` (0 for UASTC).
    pub vk_format: u32,
    /// The format's name in the texel table, with ` sRGB` when its colour
    /// is sRGB-encoded (`bc7 sRGB`, `astc-6x6`, `rgb9e5`, `uastc sRGB`), or
    /// `ETC1S` or `VkFormat(<n>)` for a format outside the table.
    pub format: String,
    /// The texel block, `4x4` for BCn and UASTC, `6x6` for ASTC 6x6, `1x1`
    /// for uncompressed formats; `None` outside the table.
    pub block: Option<String>,
    /// Bits per texel of level 0 in whole blocks (8 for BC7, 3.56 for
    /// ASTC 6x6); `None` outside the table.
    pub bits_per_texel: Option<f64>,
    /// `none`, `basislz`, `zstd`, `zlib` or `scheme <n>`.
    pub supercompression: String,
    /// The DFD transfer function: `srgb`, `linear` or `transfer <n>`.
    pub transfer: String,
    /// Texels over every level, face and layer.
    pub texels: u64,
    /// The diffuse irradiance of an IBL cube as nine RGB spherical-harmonic
    /// coefficients (`docs/ibl.md`); absent from other textures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub irradiance_sh: Option<[[f32; 3]; 9]>,
    /// Why the texture is in the format it is, when the encoder chose
    /// another than the settings asked for (pixel art, the quality floor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choice: Option<String>,
    /// The sampler filter the texture asks for (`nearest`), when it asks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler: Option<String>,
}

/// Reads one file's figures. `path` decides the format by its extension;
/// `listed` is the kind the manifest gives the file, which names shaders and
/// embeds.
pub fn analyse(path: &str, bytes: &[u8], listed: Option<AssetKind>) -> FileReport {
    let details = match (FileType::from_path(path), listed) {
        (Some(expected), _) => read_details(expected, bytes).unwrap_or_else(|e| Details::Invalid {
            format: expected.name(),
            error: e.to_string(),
        }),
        (None, Some(AssetKind::Shader)) => shader_details(bytes),
        (None, Some(AssetKind::Embed)) => Details::Embed,
        (None, _) => Details::Other,
    };
    FileReport {
        path: path.to_owned(),
        bytes: bytes.len() as u64,
        details,
    }
}

/// A listed shader's figures, or why naga refuses it.
fn shader_details(bytes: &[u8]) -> Details {
    match validate_spirv(bytes) {
        Ok(summary) => Details::Shader(ShaderStats {
            spirv: format!("{}.{}", summary.version.0, summary.version.1),
            entry_points: summary
                .entry_points
                .iter()
                .map(|(stage, name)| format!("{stage} {name}"))
                .collect(),
        }),
        Err(what) => Details::Invalid {
            format: "SPIR-V",
            error: what,
        },
    }
}

fn read_details(expected: FileType, bytes: &[u8]) -> FormatResult<Details> {
    let aligned = AlignedBytes::copy_from(bytes);
    let file = open(aligned.as_bytes())?;
    if file.file_type() != expected {
        return Err(FormatError::new(
            0,
            "magic",
            format!(
                "the bytes are a {} file, not a {}",
                file.file_type(),
                expected.name()
            ),
        ));
    }
    Ok(match file {
        AssetFile::Mesh(mesh) => Details::Mesh(mesh_stats(&mesh)),
        AssetFile::Material(rows) => Details::Material(material_stats(rows)),
        AssetFile::Manifest(manifest) => Details::Manifest(manifest_stats(&manifest)),
        AssetFile::Animation(anim) => Details::Animation(animation_stats(&anim)),
        AssetFile::Font(font) => Details::Font(font_stats(&font)),
        AssetFile::Pack(pack) => Details::Pack(PackStats {
            entries: pack.len() as u64,
            payload: pack.payload_bytes(),
        }),
        AssetFile::Sound(record) => Details::Sound(sound_stats(&record)),
        AssetFile::Atlas(atlas) => Details::Atlas(atlas_stats(&atlas)),
        AssetFile::Texture(view) => Details::Texture(texture_stats(&view)),
    })
}

fn mesh_stats(mesh: &hmesh::HMesh<'_>) -> MeshStats {
    let indices = mesh.indices.len() as u64;
    MeshStats {
        vertices: mesh.vertices.len() as u64,
        indices,
        triangles: indices / 3,
        index_bits: mesh.indices.width() * 8,
        meshlets: mesh.meshlets.len() as u64,
        submeshes: mesh.submeshes.len() as u64,
        materials: mesh.materials.len() as u64,
        lods: mesh.lod_count,
        lod_triangles: lod_triangles(mesh),
        joints: mesh.skeleton.len() as u64,
        tangents: mesh.desc.flags & hmesh::MESH_FLAG_HAS_TANGENTS != 0,
        bounds: BoundsStats {
            min: mesh.bounds.aabb_min,
            max: mesh.bounds.aabb_max,
            radius: mesh.bounds.sphere_radius,
        },
    }
}

/// Triangles per reduced level; a stalled level (count 0) falls back to the
/// level an engine would draw instead.
fn lod_triangles(mesh: &hmesh::HMesh<'_>) -> Vec<u64> {
    let mut totals = vec![0_u64; mesh.lod_count as usize];
    for (submesh, full) in mesh.submeshes.iter().enumerate() {
        let mut previous = u64::from(full.index_count) / 3;
        for (level, total) in totals.iter_mut().enumerate() {
            let count = mesh.lod(submesh, level).map_or(0, |lod| lod.index_count);
            if count > 0 {
                previous = u64::from(count) / 3;
            }
            *total += previous;
        }
    }
    totals
}

fn material_stats(rows: &[hmat::GpuMaterial]) -> MaterialStats {
    let mut stats = MaterialStats {
        rows: rows.len() as u64,
        slots: hmat::TEXTURE_SLOTS.iter().map(|&slot| (slot, 0)).collect(),
        alpha_modes: ["opaque", "mask", "blend"].map(|m| (m, 0)).into(),
        double_sided: 0,
    };
    for row in rows {
        for (slot, id) in hmat::TEXTURE_SLOTS.iter().zip(row.texture_refs()) {
            if id != 0 {
                *stats.slots.entry(slot).or_default() += 1;
            }
        }
        let mode = row.alpha_mode().map_or("invalid", alpha_mode_name);
        *stats.alpha_modes.entry(mode).or_default() += 1;
        stats.double_sided += u64::from(row.double_sided());
    }
    stats
}

fn alpha_mode_name(mode: hmat::AlphaMode) -> &'static str {
    match mode {
        hmat::AlphaMode::Opaque => "opaque",
        hmat::AlphaMode::Mask => "mask",
        hmat::AlphaMode::Blend => "blend",
    }
}

fn manifest_stats(manifest: &hman::Manifest<'_>) -> ManifestStats {
    let mut stats = ManifestStats {
        entries: manifest.len() as u64,
        kinds: AssetKind::ALL.map(|k| (k.name(), 0)).into(),
        color_spaces: ColorSpace::ALL.map(|c| (c.name(), 0)).into(),
    };
    for entry in manifest.iter() {
        *stats.kinds.entry(entry.kind.name()).or_default() += 1;
        *stats
            .color_spaces
            .entry(entry.colorspace.name())
            .or_default() += 1;
    }
    stats
}

fn animation_stats(anim: &hanim::HAnim<'_>) -> AnimationStats {
    let clips: Vec<ClipStats> = anim
        .clips()
        .map(|clip| ClipStats {
            name: clip.name.to_owned(),
            duration: clip.duration,
            channels: clip.channel_count() as u64,
            keys: clip.channels().map(|c| c.key_count() as u64).sum(),
        })
        .collect();
    AnimationStats {
        channels: clips.iter().map(|c| c.channels).sum(),
        keys: clips.iter().map(|c| c.keys).sum(),
        duration: clips.iter().map(|c| c.duration).fold(0.0, f32::max),
        max_joint: anim.max_joint(),
        clips,
    }
}

fn font_stats(font: &hfont::HFont<'_>) -> FontStats {
    let header = font.header();
    FontStats {
        glyphs: font.glyphs().len() as u64,
        kerning_pairs: font.kerning_pairs().len() as u64,
        atlas: hex_id(font.atlas_tex()),
        atlas_width: header.atlas_width,
        atlas_height: header.atlas_height,
        msdf: header.flags & hfont::FLAG_MSDF != 0,
        bitmap: header.flags & hfont::FLAG_BITMAP != 0,
        line_advance: font.line_advance(),
        distance_range: header.distance_range,
    }
}

fn sound_stats(record: &hsnd::SoundRecord) -> SoundStats {
    let loudness = record.loudness();
    SoundStats {
        codec: record.codec().map_or("unknown", hsnd::SoundCodec::name),
        rate: record.rate,
        channels: record.channels,
        frames: record.frames,
        seconds: record.duration_seconds(),
        loop_frames: record.looping().map(|(start, end)| [start, end]),
        loudness: loudness.map(|(lufs, _)| lufs),
        true_peak: loudness.map(|(_, peak)| peak),
        sound: hex_id(record.sound),
    }
}

fn atlas_stats(atlas: &hatlas::HAtlas<'_>) -> AtlasStats {
    let header = atlas.header();
    let sprites = atlas.sprites();
    let content: u64 = sprites
        .iter()
        .map(|s| u64::from(s.w) * u64::from(s.h))
        .sum();
    let pages =
        u64::from(header.page_count) * u64::from(header.page_width) * u64::from(header.page_height);
    AtlasStats {
        sprites: sprites.len() as u64,
        pages: header.page_count,
        page_width: header.page_width,
        page_height: header.page_height,
        rotated: sprites.iter().filter(|s| s.is_rotated()).count() as u64,
        efficiency: content as f64 / pages.max(1) as f64,
        animation: atlas.is_animation(),
        nearest: header.flags & hatlas::ATLAS_NEAREST != 0,
        atlas_tex: hex_id(header.atlas_tex),
    }
}

fn texture_stats(view: &ktx2::Ktx2View<'_>) -> TextureStats {
    let header = view.header();
    TextureStats {
        width: header.pixel_width,
        height: header.pixel_height.max(1),
        depth: header.pixel_depth.max(1),
        layers: header.layer_count.max(1),
        faces: header.face_count,
        mips: header.stored_level_count(),
        vk_format: header.vk_format,
        format: format_name(view),
        block: view.texel_format().map(|format| {
            let (width, height) = format.block_dimensions();
            format!("{width}x{height}")
        }),
        bits_per_texel: view.texel_format().map(bits_per_texel),
        supercompression: supercompression_name(header.supercompression_scheme),
        transfer: transfer_name(view.transfer_function()),
        texels: texels(header),
        irradiance_sh: view.irradiance_sh(),
        choice: view.key_text(ktx2::CHOICE_KEY).map(str::to_owned),
        sampler: view.key_text(ktx2::SAMPLER_KEY).map(str::to_owned),
    }
}

/// The texture's format by its table name (see [`TextureStats::format`]).
fn format_name(view: &ktx2::Ktx2View<'_>) -> String {
    match (view.texel_format(), view.color_model()) {
        (Some(format), _) if format.is_srgb() => format!("{} sRGB", format.name()),
        (Some(format), _) => format.name().into(),
        (None, Some(ktx2::DFD_MODEL_ETC1S)) if view.header().vk_format == 0 => "ETC1S".into(),
        (None, _) => format!("VkFormat({})", view.header().vk_format),
    }
}

/// Bits per texel of `format`: a block's bits over the texels it covers.
fn bits_per_texel(format: ktx2::TexelFormat) -> f64 {
    let (width, height) = format.block_dimensions();
    (format.texel_block_size() * 8) as f64 / f64::from(width * height)
}

fn supercompression_name(scheme: u32) -> String {
    match scheme {
        ktx2::SUPERCOMPRESSION_NONE => "none".into(),
        ktx2::SUPERCOMPRESSION_BASISLZ => "basislz".into(),
        ktx2::SUPERCOMPRESSION_ZSTD => "zstd".into(),
        ktx2::SUPERCOMPRESSION_ZLIB => "zlib".into(),
        other => format!("scheme {other}"),
    }
}

fn transfer_name(transfer: Option<u32>) -> String {
    match transfer {
        Some(ktx2::DFD_TRANSFER_LINEAR) => "linear".into(),
        Some(ktx2::DFD_TRANSFER_SRGB) => "srgb".into(),
        Some(other) => format!("transfer {other}"),
        None => "unknown".into(),
    }
}

/// Texels over the whole mip chain, every face and layer.
fn texels(header: &ktx2::Ktx2Header) -> u64 {
    let per_level = |level: u32| {
        let size = |extent: u32| u64::from((extent >> level).max(1));
        size(header.pixel_width) * size(header.pixel_height) * size(header.pixel_depth)
    };
    let images = u64::from(header.face_count) * u64::from(header.layer_count.max(1));
    (0..header.stored_level_count())
        .map(|level| per_level(level).saturating_mul(images))
        .fold(0_u64, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::info::type_name;

    /// A font with only its `.notdef` glyph and one kerning-free atlas.
    fn one_glyph_font() -> Vec<u8> {
        let notdef = hfont::GpuGlyph {
            codepoint: 0,
            advance: 0.5,
            plane_right: 0.5,
            plane_top: 0.75,
            uv_right: 1.0,
            uv_bottom: 1.0,
            ..bytemuck::Zeroable::zeroed()
        };
        let font = hfont::FontData {
            atlas_tex: 0xabc,
            ascent: 0.75,
            descent: -0.25,
            line_gap: 0.125,
            distance_range: 6.0,
            edge_value: 0.5,
            atlas_width: 64,
            atlas_height: 32,
            flags: 0,
            glyphs: vec![notdef],
            kerning: vec![],
        };
        hfont::write_hfont(&font).unwrap()
    }

    /// A one-level 12x12 texture of `format`, its blocks made up.
    fn texture_of(format: crate::format::ktx2::TexelFormat) -> Vec<u8> {
        let data = vec![0; format.image_bytes(12, 12) as usize];
        ktx2::write_single_level(format, 12, 12, &data)
    }

    #[test]
    fn textures_report_their_format_block_and_bits_per_texel() {
        use crate::format::ktx2::{AstcBlock, TexelFormat};
        let cases = [
            (TexelFormat::Bc7 { srgb: true }, "bc7 sRGB", "4x4", 8.0),
            (TexelFormat::Bc1 { srgb: false }, "bc1", "4x4", 4.0),
            (
                TexelFormat::Astc {
                    block: AstcBlock::B6x6,
                    srgb: false,
                },
                "astc-6x6",
                "6x6",
                128.0 / 36.0,
            ),
            (
                TexelFormat::AstcHdr {
                    block: AstcBlock::B8x8,
                },
                "astc-hdr-8x8",
                "8x8",
                2.0,
            ),
            (TexelFormat::Rgb9e5, "rgb9e5", "1x1", 32.0),
            (TexelFormat::Rgba16Float, "rgba16f", "1x1", 64.0),
        ];
        for (format, name, block, bits) in cases {
            let report = analyse("t.ktx2", &texture_of(format), None);
            let Details::Texture(stats) = report.details else {
                panic!("{name}: {:?}", report.details);
            };
            assert_eq!(stats.format, name);
            assert_eq!(stats.block.as_deref(), Some(block), "{name}");
            assert!(
                (stats.bits_per_texel.unwrap() - bits).abs() < 1e-9,
                "{name}"
            );
        }
    }

    #[test]
    fn fonts_report_glyphs_atlas_and_line_advance() {
        let report = analyse("ui/inter.hfont", &one_glyph_font(), Some(AssetKind::Font));
        let Details::Font(font) = report.details else {
            panic!("not a font: {report:?}");
        };
        assert_eq!(font.glyphs, 1);
        assert_eq!(font.kerning_pairs, 0);
        assert_eq!(font.atlas, "0x0000000000000abc");
        assert_eq!((font.atlas_width, font.atlas_height), (64, 32));
        assert!(!font.msdf);
        assert!(!font.bitmap);
        assert_eq!(font.line_advance, 1.125);
    }

    #[test]
    fn a_file_whose_magic_disagrees_with_its_extension_is_invalid() {
        let report = analyse("models/chair.hmesh", &one_glyph_font(), None);
        let Details::Invalid { format, error } = report.details else {
            panic!("accepted: {report:?}");
        };
        assert_eq!(format, "mesh");
        assert!(error.contains("a font file, not a mesh"), "{error}");
    }

    #[test]
    fn the_manifest_names_files_of_no_format_of_ours() {
        let kind = |listed| type_name(&analyse("data/level.json", b"{}", listed).details);
        assert_eq!(kind(Some(AssetKind::Embed)), "embed");
        assert_eq!(kind(None), "other");
        let not_spirv = analyse("fx/a.spv", b"{}", Some(AssetKind::Shader)).details;
        assert!(
            matches!(&not_spirv, Details::Invalid { format: "SPIR-V", error } if error.contains("shorter")),
            "{not_spirv:?}"
        );
    }

    #[test]
    fn shaders_report_their_version_and_entry_points() {
        let source = "@fragment fn fsMain() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }";
        let module = naga::front::wgsl::parse_str(source).unwrap();
        let info = crate::encode::shader::compile::validator()
            .validate(&module)
            .unwrap();
        let words = naga::back::spv::write_vec(&module, &info, &Default::default(), None).unwrap();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let Details::Shader(stats) = analyse("fx/fs.spv", &bytes, Some(AssetKind::Shader)).details
        else {
            panic!("not a shader");
        };
        assert_eq!(stats.entry_points, ["fragment fsMain"]);
        assert!(stats.spirv.starts_with("1."), "{}", stats.spirv);
    }
}
