//! Keeps the format pages in `docs/formats/` honest.
//!
//! Every page describes its fixed-size structures as tables under a heading
//! `### Name (N bytes)`, one row per field:
//!
//! ```text
//! | offset | size | type | field | meaning |
//! ```
//!
//! For each `#[repr(C)]` struct of `assetc::format`, the test compares the
//! documented total with `size_of`, and every documented row (name, offset,
//! size) with the real field found by `offset_of!`, in order. For the
//! variable-length records that have no struct (manifest entries, pack TOC
//! records, animation headers and channels) it writes a real file with the
//! crate's writer and reads every documented field back at its documented
//! offset. Rows must be contiguous, start at 0 and end at the documented size,
//! and each row's type must be as wide as its size. Every known layout must
//! be documented exactly once, and every such heading must name a known
//! layout, so a struct and its page cannot drift apart unnoticed. The one
//! reserved path of the formats, a patch pack's `assets.removed`, must have
//! its section in the pack page under the name the code reserves.
//!
//! It needs only the `format` module: `cargo test --test format_docs
//! --no-default-features` builds nothing but `bytemuck`.

use core::mem::{offset_of, size_of};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assetc::format::hanim::{self, AnimChannel, AnimClip, AnimPath, Interpolation};
use assetc::format::hash::asset_hash;
use assetc::format::hatlas::{AtlasHeader, AtlasSprite};
use assetc::format::hfont::{FontFileHeader, GpuGlyph, KerningPair};
use assetc::format::hman::{self, ManHeader, ManifestEntry};
use assetc::format::hmat::{GpuMaterial, MatFileHeader};
use assetc::format::hmesh::{
    ChunkEntry, FileHeader, GpuJoint, GpuSkinVertex, GpuVertex, LodTableHeader, MeshBounds,
    MeshDesc, MeshLod, Meshlet, MeshletBounds, MeshletTriangle, SubMesh,
};
use assetc::format::hpack::{self, PackHeader, PackItem};
use assetc::format::hsnd::SoundRecord;
use assetc::format::kind::{AssetKind, ColorSpace, PackKind};
use assetc::format::ktx2::{Ktx2Header, LevelIndexEntry};
use assetc::format::removed::REMOVED_LIST_PATH;

/// One documented table row.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    /// Byte offset from the start of the structure.
    offset: usize,
    /// Bytes the field takes.
    size: usize,
    /// The type column, e.g. `u32` or `f32[3]`.
    ty: String,
    /// The field name, without backquotes.
    field: String,
}

/// One documented structure: a `### Name (N bytes)` heading and its rows.
#[derive(Debug, Clone)]
struct Table {
    /// The structure's name from the heading.
    name: String,
    /// The total size from the heading.
    size: usize,
    /// The rows in document order.
    rows: Vec<Row>,
    /// `page:line` of the heading, for messages.
    place: String,
}

/// A real field: its documented name, offset and size.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Field {
    /// The name the page must use.
    name: &'static str,
    /// `offset_of!` of the field.
    offset: usize,
    /// `size_of` of the field's type.
    size: usize,
}

/// The size of the field `get` borrows from a `S`.
fn field_size<S, F>(_get: fn(&S) -> &F) -> usize {
    size_of::<F>()
}

/// The fields of a `#[repr(C)]` struct, each as `"docName" => rust_field`.
macro_rules! layout {
    ($ty:ident { $($doc:literal => $field:tt),* $(,)? }) => {
        (
            stringify!($ty),
            size_of::<$ty>(),
            vec![$(Field {
                name: $doc,
                offset: offset_of!($ty, $field),
                size: field_size(|s: &$ty| &s.$field),
            }),*],
        )
    };
}

/// Every `#[repr(C)]` on-disk struct with its documented field names.
fn struct_layouts() -> Vec<(&'static str, usize, Vec<Field>)> {
    vec![
        layout!(FileHeader {
            "magic" => magic, "version" => version, "chunkCount" => chunk_count,
            "flags" => flags, "reserved1" => reserved1, "reserved2" => reserved2,
        }),
        layout!(ChunkEntry {
            "fourcc" => fourcc, "flags" => flags, "offset" => offset, "size" => size,
        }),
        layout!(MeshDesc {
            "vertexCount" => vertex_count, "indexCount" => index_count,
            "meshletCount" => meshlet_count, "submeshCount" => submesh_count,
            "materialCount" => material_count, "vertexStride" => vertex_stride,
            "indexWidth" => index_width, "flags" => flags,
            "meshletMaxVertices" => meshlet_max_vertices,
            "meshletMaxTriangles" => meshlet_max_triangles,
        }),
        layout!(MeshBounds {
            "aabbMin" => aabb_min, "aabbMax" => aabb_max,
            "sphereCenter" => sphere_center, "sphereRadius" => sphere_radius,
        }),
        layout!(GpuVertex {
            "position" => position, "normal" => normal, "tangent" => tangent, "uv" => uv,
        }),
        layout!(GpuSkinVertex { "joints" => joints, "weights" => weights }),
        layout!(GpuJoint {
            "inverseBind" => inverse_bind, "bindTranslation" => bind_translation,
            "bindRotation" => bind_rotation, "bindScale" => bind_scale,
            "parent" => parent, "pad" => pad,
        }),
        layout!(Meshlet {
            "vertexOffset" => vertex_offset, "vertexCount" => vertex_count,
            "triangleOffset" => triangle_offset, "triangleCount" => triangle_count,
        }),
        layout!(MeshletTriangle { "indices" => 0 }),
        layout!(MeshletBounds {
            "center" => center, "radius" => radius,
            "coneAxis" => cone_axis, "coneCutoff" => cone_cutoff,
        }),
        layout!(SubMesh {
            "firstIndex" => first_index, "indexCount" => index_count,
            "firstMeshlet" => first_meshlet, "meshletCount" => meshlet_count,
            "materialSlot" => material_slot, "baseVertex" => base_vertex,
            "bounds" => bounds,
        }),
        layout!(MeshLod { "firstIndex" => first_index, "indexCount" => index_count }),
        layout!(LodTableHeader { "lodCount" => lod_count, "submeshCount" => submesh_count }),
        layout!(MatFileHeader {
            "magic" => magic, "version" => version, "count" => count, "flags" => flags,
        }),
        layout!(GpuMaterial {
            "baseColorFactor" => base_color_factor, "emissiveFactor" => emissive_factor,
            "metallicFactor" => metallic_factor, "roughnessFactor" => roughness_factor,
            "normalScale" => normal_scale, "occlusionStrength" => occlusion_strength,
            "alphaCutoff" => alpha_cutoff, "flags" => flags, "pad" => pad,
            "baseColorTex" => base_color_texture,
            "metallicRoughnessTex" => metallic_roughness_texture,
            "normalTex" => normal_texture, "occlusionTex" => occlusion_texture,
            "emissiveTex" => emissive_texture,
        }),
        layout!(ManHeader {
            "magic" => magic, "version" => version, "count" => count, "reserved" => reserved,
        }),
        layout!(PackHeader {
            "magic" => magic, "version" => version, "count" => count, "flags" => flags,
            "tocBytes" => toc_bytes,
        }),
        layout!(FontFileHeader {
            "magic" => magic, "version" => version, "glyphCount" => glyph_count,
            "kerningCount" => kerning_count, "atlasTex" => atlas_tex_words,
            "ascent" => ascent, "descent" => descent, "lineGap" => line_gap,
            "distanceRange" => distance_range, "edgeValue" => edge_value,
            "atlasWidth" => atlas_width, "atlasHeight" => atlas_height, "flags" => flags,
        }),
        layout!(GpuGlyph {
            "codepoint" => codepoint, "advance" => advance,
            "planeLeft" => plane_left, "planeBottom" => plane_bottom,
            "planeRight" => plane_right, "planeTop" => plane_top,
            "uvLeft" => uv_left, "uvTop" => uv_top, "uvRight" => uv_right,
            "uvBottom" => uv_bottom,
        }),
        layout!(KerningPair { "left" => left, "right" => right, "advance" => advance }),
        layout!(SoundRecord {
            "magic" => magic, "version" => version, "codec" => codec, "flags" => flags,
            "rate" => rate, "channels" => channels, "frames" => frames,
            "loopStart" => loop_start, "loopEnd" => loop_end,
            "loudness" => loudness, "truePeak" => true_peak, "sound" => sound,
        }),
        layout!(AtlasHeader {
            "magic" => magic, "version" => version, "spriteCount" => sprite_count,
            "pageCount" => page_count, "pageWidth" => page_width,
            "pageHeight" => page_height, "flags" => flags, "reserved" => reserved,
            "atlasTex" => atlas_tex, "nameBytes" => name_bytes, "reserved2" => reserved2,
        }),
        layout!(AtlasSprite {
            "nameHash" => name_hash, "page" => page, "flags" => flags, "x" => x, "y" => y,
            "w" => w, "h" => h, "trimX" => trim_x, "trimY" => trim_y,
            "sourceW" => source_w, "sourceH" => source_h, "pivotX" => pivot_x,
            "pivotY" => pivot_y, "durationMs" => duration_ms, "nameOffset" => name_offset,
            "nameLen" => name_len, "reserved" => reserved,
        }),
        layout!(Ktx2Header {
            "identifier" => identifier, "vkFormat" => vk_format, "typeSize" => type_size,
            "pixelWidth" => pixel_width, "pixelHeight" => pixel_height,
            "pixelDepth" => pixel_depth, "layerCount" => layer_count,
            "faceCount" => face_count, "levelCount" => level_count,
            "supercompressionScheme" => supercompression_scheme,
            "dfdByteOffset" => dfd_byte_offset, "dfdByteLength" => dfd_byte_length,
            "kvdByteOffset" => kvd_byte_offset, "kvdByteLength" => kvd_byte_length,
            "sgdByteOffset" => sgd_byte_offset, "sgdByteLength" => sgd_byte_length,
        }),
        layout!(LevelIndexEntry {
            "byteOffset" => byte_offset, "byteLength" => byte_length,
            "uncompressedByteLength" => uncompressed_byte_length,
        }),
    ]
}

/// A record without a struct, checked against bytes a writer produced.
struct Record {
    /// The heading name.
    name: &'static str,
    /// The fixed size the code agrees on.
    size: usize,
    /// The written file.
    bytes: Vec<u8>,
    /// Where the record starts in `bytes`.
    at: usize,
    /// Every field's expected value (floats as their bit pattern).
    values: Vec<(&'static str, u64)>,
}

/// A manifest with one entry; its record follows the header.
fn manifest_record() -> Record {
    let path = "models/crate.hmesh";
    let entry = ManifestEntry {
        hash: AssetKind::Mesh.id_for_path(path),
        kind: AssetKind::Mesh,
        colorspace: ColorSpace::Srgb,
        path: path.to_owned(),
    };
    let bytes = hman::write_manifest(&[entry]).expect("a valid manifest");
    Record {
        name: "ManEntry",
        size: hman::ENTRY_FIXED_BYTES,
        bytes,
        at: hman::HEADER_BYTES,
        values: vec![
            ("hash", asset_hash(path)),
            ("kind", AssetKind::Mesh as u64),
            ("colorspace", ColorSpace::Srgb as u64),
            ("pathLen", path.len() as u64),
        ],
    }
}

/// A pack with one entry; its TOC record follows the header.
fn pack_record() -> Record {
    let path = "models/crate.hmesh";
    let data = [7u8; 5];
    let item = PackItem {
        path,
        kind: PackKind::from_path(path),
        data: &data,
    };
    let bytes = hpack::write_pack(&[item]).expect("a valid pack");
    let offset = hpack::parse(&bytes).expect("a readable pack").entries()[0].offset;
    Record {
        name: "PackEntry",
        size: hpack::TOC_ENTRY_FIXED_BYTES,
        bytes,
        at: hpack::HEADER_BYTES,
        values: vec![
            ("offset", offset),
            ("size", data.len() as u64),
            ("kind", PackKind::Mesh as u64),
            ("pathLen", path.len() as u64),
        ],
    }
}

/// An animation file of one clip holding `channels`.
fn animation(channels: Vec<AnimChannel>) -> Vec<u8> {
    let clip = AnimClip {
        name: "walk".to_owned(),
        duration: 0.5,
        channels,
    };
    hanim::write_hanim(&[clip]).expect("a valid animation")
}

/// A rotation channel of joint 3 with `keys` keys.
fn rotation_channel(keys: usize) -> AnimChannel {
    AnimChannel {
        joint: 3,
        path: AnimPath::Rotation,
        interpolation: Interpolation::Linear,
        times: (0..keys).map(|k| k as f32 * 0.5).collect(),
        values: [0.0, 0.0, 0.0, 1.0].repeat(keys),
    }
}

/// The header, the clip's fixed tail and a channel of an animation file,
/// their fixed sizes measured from what the writer produces.
fn animation_records() -> Vec<Record> {
    let empty_clip = animation(Vec::new());
    let keyless = animation(vec![rotation_channel(0)]);
    let keyed = animation(vec![rotation_channel(2)]);
    let channel_size = keyless.len() - empty_clip.len();
    let key_bytes = keyed.len() - keyless.len();
    let header = Record {
        name: "AnimHeader",
        size: hanim::HEADER_BYTES,
        bytes: empty_clip.clone(),
        at: 0,
        values: vec![
            ("magic", u64::from(hanim::MAGIC)),
            ("version", u64::from(hanim::VERSION)),
            ("clipCount", 1),
            ("reserved", 0),
        ],
    };
    let name_part = 2 + "walk".len();
    let clip_tail = Record {
        name: "AnimClipTail",
        size: empty_clip.len() - hanim::HEADER_BYTES - name_part,
        bytes: empty_clip.clone(),
        at: hanim::HEADER_BYTES + name_part,
        values: vec![
            ("duration", u64::from(0.5f32.to_bits())),
            ("channelCount", 0),
        ],
    };
    let channel = Record {
        name: "AnimChannel",
        size: channel_size,
        at: keyed.len() - key_bytes - channel_size,
        bytes: keyed,
        values: vec![
            ("joint", 3),
            ("path", AnimPath::Rotation as u64),
            ("interpolation", Interpolation::Linear as u64),
            ("components", 4),
            ("pad", 0),
            ("keyCount", 2),
        ],
    };
    vec![header, clip_tail, channel]
}

/// Every record checked against written bytes.
fn records() -> Vec<Record> {
    let mut all = vec![manifest_record(), pack_record()];
    all.extend(animation_records());
    all
}

/// The folder of the format pages.
fn formats_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/formats")
}

/// Every `.md` page of the formats folder, sorted, with its text.
fn pages() -> Vec<(String, String)> {
    let dir = formats_dir();
    let mut pages: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            (name, text)
        })
        .collect();
    pages.sort();
    pages
}

/// `Name` and `N` of a `### Name (N bytes)` heading.
fn parse_heading(line: &str) -> Option<(String, usize)> {
    let rest = line.strip_prefix("### ")?;
    let (name, size) = rest.split_once(" (")?;
    let size = size.strip_suffix(" bytes)")?.parse().ok()?;
    let is_identifier = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric());
    is_identifier.then(|| (name.to_owned(), size))
}

/// The trimmed cells of a `| a | b |` line.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner
        .split('|')
        .map(|cell| cell.trim().to_owned())
        .collect()
}

/// Parses one data row; `place` names it in messages.
fn parse_row(line: &str, place: &str) -> Row {
    let cells = cells(line);
    assert!(
        cells.len() == 5,
        "{place}: a row needs 5 cells (offset, size, type, field, meaning): {line}"
    );
    let number = |cell: &str, what: &str| -> usize {
        cell.parse()
            .unwrap_or_else(|_| panic!("{place}: the {what} `{cell}` is not a number"))
    };
    Row {
        offset: number(&cells[0], "offset"),
        size: number(&cells[1], "size"),
        ty: cells[2].trim_matches('`').to_owned(),
        field: cells[3].trim_matches('`').to_owned(),
    }
}

/// Every struct table of one page.
fn tables_of(page: &str, text: &str) -> Vec<Table> {
    let mut tables = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        let Some((name, size)) = parse_heading(line) else {
            continue;
        };
        let place = format!("{page}:{}", index + 1);
        while lines.peek().is_some_and(|(_, l)| !l.starts_with('|')) {
            let (_, skipped) = lines.next().unwrap_or_default();
            assert!(
                !skipped.starts_with('#'),
                "{place}: `{name}` has no table before the next heading"
            );
        }
        let mut table_lines = Vec::new();
        while let Some((number, row)) = lines.next_if(|(_, l)| l.starts_with('|')) {
            table_lines.push((number, row));
        }
        assert!(table_lines.len() > 2, "{place}: `{name}` has no rows");
        assert_eq!(
            cells(table_lines[0].1),
            ["offset", "size", "type", "field", "meaning"],
            "{place}: the table header of `{name}`"
        );
        let rows = table_lines[2..]
            .iter()
            .map(|(number, row)| parse_row(row, &format!("{page}:{}", number + 1)))
            .collect();
        tables.push(Table {
            name,
            size,
            rows,
            place,
        });
    }
    tables
}

/// Every struct table of every page, by name (a name twice is an error).
fn documented() -> BTreeMap<String, Table> {
    let mut by_name = BTreeMap::new();
    for (page, text) in pages() {
        for table in tables_of(&page, &text) {
            let place = table.place.clone();
            if let Some(earlier) = by_name.insert(table.name.clone(), table) {
                panic!(
                    "`{}` is documented twice: {} and {place}",
                    earlier.name, earlier.place
                );
            }
        }
    }
    by_name
}

/// Bytes per element of a primitive type name, or of a documented struct.
fn element_size(name: &str, structs: &BTreeMap<&str, usize>) -> Option<usize> {
    match name {
        "u8" | "i8" | "char" => Some(1),
        "u16" | "i16" => Some(2),
        "u32" | "i32" | "f32" => Some(4),
        "u64" | "i64" | "f64" => Some(8),
        other => structs.get(other).copied(),
    }
}

/// Bytes a type column stands for: `u32`, `f32[3]`, `MeshBounds`.
fn type_size(ty: &str, structs: &BTreeMap<&str, usize>) -> Option<usize> {
    match ty.split_once('[') {
        Some((element, count)) => {
            let count: usize = count.strip_suffix(']')?.parse().ok()?;
            Some(element_size(element, structs)? * count)
        }
        None => element_size(ty, structs),
    }
}

/// Checks what every table must satisfy on its own: rows contiguous from 0 to
/// the documented size, each as wide as its type.
fn check_shape(table: &Table, structs: &BTreeMap<&str, usize>) {
    let mut next = 0;
    for row in &table.rows {
        assert_eq!(
            row.offset, next,
            "{}: `{}.{}` should start at {next} (rows must be contiguous)",
            table.place, table.name, row.field
        );
        let width = type_size(&row.ty, structs).unwrap_or_else(|| {
            panic!(
                "{}: `{}.{}` has an unknown type `{}`",
                table.place, table.name, row.field, row.ty
            )
        });
        assert_eq!(
            width, row.size,
            "{}: `{}.{}` is a `{}` of {width} bytes, documented as {}",
            table.place, table.name, row.field, row.ty, row.size
        );
        next = row.offset + row.size;
    }
    assert_eq!(
        next, table.size,
        "{}: the rows of `{}` end at {next}, the heading says {} bytes",
        table.place, table.name, table.size
    );
}

/// Reads a little-endian unsigned integer of `size` bytes at `at`.
fn read_le(bytes: &[u8], at: usize, size: usize) -> u64 {
    let field = &bytes[at..at + size];
    field
        .iter()
        .rev()
        .fold(0u64, |value, &byte| (value << 8) | u64::from(byte))
}

/// The sizes of every documented struct, for struct-typed rows.
fn struct_sizes() -> BTreeMap<&'static str, usize> {
    struct_layouts()
        .into_iter()
        .map(|(name, size, _)| (name, size))
        .collect()
}

#[test]
fn every_table_is_contiguous_and_as_wide_as_its_types() {
    let structs = struct_sizes();
    let tables = documented();
    assert!(!tables.is_empty(), "no `### Name (N bytes)` table found");
    for table in tables.values() {
        check_shape(table, &structs);
    }
}

#[test]
fn every_struct_is_documented_with_its_real_size_and_offsets() {
    let tables = documented();
    for (name, size, fields) in struct_layouts() {
        let table = tables
            .get(name)
            .unwrap_or_else(|| panic!("`{name}` is not documented in docs/formats/"));
        assert_eq!(
            table.size, size,
            "{}: `{name}` is {size} bytes in src/format, the page says {}",
            table.place, table.size
        );
        let rows: Vec<Field> = table
            .rows
            .iter()
            .map(|row| Field {
                name: fields
                    .iter()
                    .find(|field| field.name == row.field)
                    .map_or("<not a field of the struct>", |field| field.name),
                offset: row.offset,
                size: row.size,
            })
            .collect();
        assert_eq!(
            rows, fields,
            "{}: the rows of `{name}` (left) against the struct (right)",
            table.place
        );
    }
}

#[test]
fn every_record_reads_back_from_a_written_file() {
    let tables = documented();
    for record in records() {
        let table = tables
            .get(record.name)
            .unwrap_or_else(|| panic!("`{}` is not documented in docs/formats/", record.name));
        assert_eq!(
            table.size, record.size,
            "{}: `{}` has {} fixed bytes in the code, the page says {}",
            table.place, record.name, record.size, table.size
        );
        let documented: Vec<&str> = table.rows.iter().map(|row| row.field.as_str()).collect();
        let expected: Vec<&str> = record.values.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            documented, expected,
            "{}: the fields of `{}`",
            table.place, record.name
        );
        for (row, (_, value)) in table.rows.iter().zip(&record.values) {
            let found = read_le(&record.bytes, record.at + row.offset, row.size);
            assert_eq!(
                found, *value,
                "{}: `{}.{}` at offset {} does not hold what the writer put there",
                table.place, record.name, row.field, row.offset
            );
        }
    }
}

#[test]
fn every_table_names_a_known_layout() {
    let mut known: Vec<&str> = struct_layouts().iter().map(|(name, _, _)| *name).collect();
    known.extend(records().iter().map(|record| record.name));
    for table in documented().values() {
        assert!(
            known.contains(&table.name.as_str()),
            "{}: `{}` is neither a struct of src/format nor a checked record; \
             add it to tests/format_docs.rs",
            table.place,
            table.name
        );
    }
}

/// The names of the public `#[repr(C)]` structs declared in `src/format/`.
fn repr_c_structs_in_source() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/format");
    let mut names = Vec::new();
    for path in rust_files_below(&dir) {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut after_repr = false;
        for line in text.lines().map(str::trim) {
            if line == "#[repr(C)]" {
                after_repr = true;
            } else if after_repr && let Some(rest) = line.strip_prefix("pub struct ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                names.push(name);
                after_repr = false;
            } else if !line.starts_with("#[") {
                after_repr = false;
            }
        }
    }
    names.sort();
    names
}

/// The `.rs` files in `dir` and its subfolders (a format split into a
/// folder, such as `hmesh/`, keeps its structs in several files).
fn rust_files_below(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files.extend(rust_files_below(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

#[test]
fn every_repr_c_struct_of_src_format_is_in_the_checked_list() {
    let checked: Vec<&str> = struct_layouts().iter().map(|(name, _, _)| *name).collect();
    let declared = repr_c_structs_in_source();
    assert!(declared.len() >= checked.len(), "found only {declared:?}");
    for name in &declared {
        assert!(
            checked.contains(&name.as_str()),
            "src/format declares the on-disk struct `{name}`: document it in \
             docs/formats/ and add it to struct_layouts() in tests/format_docs.rs"
        );
    }
}

#[test]
fn the_heading_and_row_parsers_accept_only_the_agreed_shape() {
    assert_eq!(
        parse_heading("### GpuVertex (28 bytes)"),
        Some(("GpuVertex".to_owned(), 28))
    );
    assert_eq!(parse_heading("### GpuVertex"), None);
    assert_eq!(parse_heading("### Two words (4 bytes)"), None);
    assert_eq!(parse_heading("## GpuVertex (28 bytes)"), None);
    let row = parse_row("| 12 | 4 | `i16[2]` | `normal` | packed |", "test");
    assert_eq!(
        row,
        Row {
            offset: 12,
            size: 4,
            ty: "i16[2]".to_owned(),
            field: "normal".to_owned(),
        }
    );
    let structs = struct_sizes();
    assert_eq!(type_size("f32[3]", &structs), Some(12));
    assert_eq!(type_size("MeshBounds", &structs), Some(40));
    assert_eq!(type_size("widget", &structs), None);
    assert_eq!(read_le(&[0x34, 0x12, 0xff], 0, 2), 0x1234);
}

/// The reserved entry of a patch pack has its section in the pack page,
/// under the name the code reserves.
#[test]
fn the_patch_pack_entry_is_documented_under_its_name() {
    let page = formats_dir().join("hpack.md");
    let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    let heading = format!("## Patch packs: `{REMOVED_LIST_PATH}`");
    assert!(
        text.lines().any(|line| line == heading),
        "{}: no `{heading}` section",
        page.display()
    );
}
