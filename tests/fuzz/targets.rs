//! The body of every fuzz target, shared by the libFuzzer binaries in
//! `tests/fuzz/fuzz_targets/` and by the corpus replay test
//! `tests/fuzz_corpus.rs`.
//!
//! Each function feeds arbitrary bytes to the readers of one format. An error
//! is an expected outcome; a panic, an abort, a hang or a huge allocation is a
//! bug. When a reader accepts the input, the function walks every accessor of
//! the result (so lazily decoded parts are reached too), checks that the
//! readers of the same format agree with each other, and writes the result
//! back with the format's writer: whatever a reader accepts, the writer must
//! accept, and reading what it wrote must succeed again.
//!
//! Adding a target: write a `pub fn name(data: &[u8])` here, add a row to
//! [`TARGETS`], and add `fuzz_targets/name.rs` plus its `[[bin]]` entry in
//! `tests/fuzz/Cargo.toml`; the replay test then asks for a non-empty
//! `tests/data/fuzz/name/`.

use std::hint::black_box;

use assetc::format::error::{FormatError, FormatResult};
use assetc::format::patch::PatchedPack;
use assetc::format::removed::{self, REMOVED_LIST_PATH};
use assetc::format::{self, AssetFile, hanim, hatlas, hfont, hman, hmat, hmesh, hpack, hsnd, ktx2};

/// One fuzz target: the name shared by its binary and its corpus folder, and
/// the function that runs one input.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// Name of the `cargo fuzz` target and of `tests/data/fuzz/<name>/`.
    pub name: &'static str,
    /// Runs one input and tells whether the reader accepted it; panics on a
    /// bug.
    pub run: fn(&[u8]) -> bool,
}

/// Every fuzz target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "hmesh",
        run: fuzz_hmesh,
    },
    Target {
        name: "hmat",
        run: fuzz_hmat,
    },
    Target {
        name: "hman",
        run: fuzz_hman,
    },
    Target {
        name: "hanim",
        run: fuzz_hanim,
    },
    Target {
        name: "hpack",
        run: fuzz_hpack,
    },
    Target {
        name: "ktx2",
        run: fuzz_ktx2,
    },
    Target {
        name: "hfont",
        run: fuzz_hfont,
    },
    Target {
        name: "hsnd",
        run: fuzz_hsnd,
    },
    Target {
        name: "hatlas",
        run: fuzz_hatlas,
    },
    Target {
        name: "open",
        run: fuzz_open,
    },
    Target {
        name: "removed",
        run: fuzz_removed,
    },
];

// ---------------------------------------------------------------------------
// Buffers and errors.
// ---------------------------------------------------------------------------

/// A copy of some bytes whose first byte sits at a chosen distance from an
/// 8-byte boundary.
struct Placed {
    words: Vec<u64>,
    skew: usize,
    len: usize,
}

impl Placed {
    /// Copies `data` so that it starts `skew` bytes (0..8) past an 8-byte
    /// boundary.
    fn new(data: &[u8], skew: usize) -> Self {
        let mut words = vec![0_u64; (data.len() + skew).div_ceil(8)];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        bytes[skew..skew + data.len()].copy_from_slice(data);
        Self {
            words,
            skew,
            len: data.len(),
        }
    }

    /// The copied bytes.
    fn bytes(&self) -> &[u8] {
        let bytes: &[u8] = bytemuck::cast_slice(&self.words);
        &bytes[self.skew..self.skew + self.len]
    }
}

/// Renders an error the way a tool would print it (exercises the message
/// formatting) and returns it for comparison.
fn rendered(error: &FormatError) -> String {
    black_box(error.to_string())
}

/// Asserts that two readers of the same bytes both succeeded or both failed
/// with the same error, rendering the error.
fn assert_same_verdict<A, B>(first: &FormatResult<A>, second: &FormatResult<B>, what: &str) {
    match (first, second) {
        (Ok(_), Ok(_)) => {}
        (Err(a), Err(b)) => assert_eq!(rendered(a), rendered(b), "{what}: different errors"),
        (Ok(_), Err(b)) => panic!("{what}: only the second reader failed: {b}"),
        (Err(a), Ok(_)) => panic!("{what}: only the first reader failed: {a}"),
    }
}

// ---------------------------------------------------------------------------
// .hmesh
// ---------------------------------------------------------------------------

/// `.hmesh`: the zero-copy view on an aligned copy, `validate` and
/// `read_hmesh` on a misaligned one (their copying path), the view on the
/// misaligned copy, the layout-only view (which must take whatever the full
/// one takes, and lend the same arrays), every view accessor of both, and a
/// write/read round trip.
pub fn fuzz_hmesh(data: &[u8]) -> bool {
    let aligned = Placed::new(data, 0);
    let misaligned = Placed::new(data, 1);
    let layout = hmesh::parse_hmesh_at(aligned.bytes(), hmesh::Depth::Layout);
    if let Ok(layout) = &layout {
        walk_hmesh(layout);
    }
    let view = hmesh::parse_hmesh(aligned.bytes());
    if let Ok(view) = &view {
        assert_eq!(
            layout.as_ref().ok(),
            Some(view),
            "Depth::Layout refused or changed a mesh Depth::Full took"
        );
    }
    assert_same_verdict(
        &view,
        &hmesh::validate(misaligned.bytes()),
        "parse_hmesh/validate",
    );
    let owned = hmesh::read_hmesh(misaligned.bytes());
    assert_same_verdict(&view, &owned, "parse_hmesh/read_hmesh");
    // Refused or not, a misaligned buffer must not make the view panic.
    black_box(hmesh::parse_hmesh(misaligned.bytes()).is_ok());
    let Ok(view) = view else {
        return false;
    };
    walk_hmesh(&view);
    round_trip_hmesh(&view.to_mesh_data());
    true
}

/// Touches every array and accessor of a parsed mesh.
fn walk_hmesh(mesh: &hmesh::HMesh<'_>) {
    black_box((mesh.header, mesh.desc, mesh.bounds, mesh.chunks));
    for entry in mesh.chunks {
        black_box(hmesh::chunk_name(entry.fourcc));
        let payload = mesh.chunk(entry.fourcc);
        assert!(payload.is_some(), "HMesh::chunk misses a listed chunk");
    }
    assert_eq!(
        mesh.chunk_ids().len(),
        mesh.chunks.len(),
        "HMesh::chunk_ids"
    );
    let indices = mesh.indices;
    black_box((indices.width(), indices.is_empty()));
    for (i, value) in indices.iter().enumerate() {
        assert_eq!(indices.get(i), Some(value), "Indices::get({i})");
    }
    assert_eq!(
        indices.get(indices.len()),
        None,
        "Indices::get past the end"
    );
    black_box((mesh.vertices, mesh.meshlets, mesh.meshlet_vertices));
    black_box((mesh.meshlet_triangles, mesh.meshlet_bounds, mesh.materials));
    black_box((mesh.skin, mesh.skeleton, mesh.lod_indices, mesh.lod_table));
    let levels = mesh.lod_count as usize;
    for submesh in 0..mesh.submeshes.len() {
        black_box(mesh.submeshes[submesh]);
        for level in 0..levels {
            let expected = mesh.lod_table.get(submesh * levels + level).copied();
            assert_eq!(mesh.lod(submesh, level), expected, "HMesh::lod");
        }
        assert_eq!(
            mesh.lod(submesh, levels),
            None,
            "HMesh::lod past the last level"
        );
    }
}

/// Writes an accepted mesh again: the writer must take it, the reader must
/// take the result, and a second write must give the same bytes.
fn round_trip_hmesh(mesh: &hmesh::MeshData) {
    let written = hmesh::write_hmesh(mesh)
        .unwrap_or_else(|e| panic!("write_hmesh refused a mesh read_hmesh accepted: {e}"));
    let again = hmesh::read_hmesh(&written)
        .unwrap_or_else(|e| panic!("read_hmesh refused what write_hmesh wrote: {e}"));
    let rewritten = hmesh::write_hmesh(&again)
        .unwrap_or_else(|e| panic!("write_hmesh refused its own output: {e}"));
    assert!(written == rewritten, "write_hmesh is not stable");
}

// ---------------------------------------------------------------------------
// .hmat
// ---------------------------------------------------------------------------

/// `.hmat`: the in-place rows of an aligned copy, `read_hmat` (and the
/// in-place rows) on a misaligned one, every row accessor, and the writer
/// reproducing the file.
pub fn fuzz_hmat(data: &[u8]) -> bool {
    let aligned = Placed::new(data, 0);
    let misaligned = Placed::new(data, 3);
    let view = hmat::parse_hmat(aligned.bytes());
    let owned = hmat::read_hmat(misaligned.bytes());
    assert_same_verdict(&view, &owned, "parse_hmat/read_hmat");
    black_box(hmat::parse_hmat(misaligned.bytes()).is_ok());
    let (Ok(view), Ok(owned)) = (view, owned) else {
        return false;
    };
    let same_rows = bytemuck::cast_slice::<_, u8>(view) == bytemuck::cast_slice::<_, u8>(&owned);
    assert!(same_rows, "parse_hmat and read_hmat return different rows");
    for row in view {
        black_box((row.alpha_mode(), row.double_sided(), row.texture_refs()));
    }
    assert!(
        hmat::write_hmat(view) == data,
        "write_hmat does not reproduce an accepted file"
    );
    true
}

// ---------------------------------------------------------------------------
// .hman
// ---------------------------------------------------------------------------

/// `.hman`: `hman::parse`, every entry and its lookup by id, and the writer
/// reproducing the file.
pub fn fuzz_hman(data: &[u8]) -> bool {
    let manifest = match hman::parse(data) {
        Ok(manifest) => manifest,
        Err(error) => {
            rendered(&error);
            return false;
        }
    };
    black_box((manifest.header(), manifest.is_empty()));
    assert_eq!(
        manifest.iter().len(),
        manifest.len(),
        "Manifest::iter length"
    );
    let mut owned = Vec::with_capacity(manifest.len());
    for entry in manifest.iter() {
        assert_eq!(manifest.find(entry.hash), Some(entry), "Manifest::find");
        black_box((
            entry.id_matches_path(),
            entry.kind.name(),
            entry.colorspace.name(),
        ));
        owned.push(hman::ManifestEntry::from(entry));
    }
    assert_eq!(
        manifest.entries().len(),
        owned.len(),
        "Manifest::entries length"
    );
    let written = hman::write_manifest(&owned)
        .unwrap_or_else(|e| panic!("write_manifest refused a manifest parse accepted: {e}"));
    assert!(
        written == data,
        "write_manifest does not reproduce an accepted file"
    );
    true
}

// ---------------------------------------------------------------------------
// .hanim
// ---------------------------------------------------------------------------

/// `.hanim`: the zero-copy view and the owned reader must agree; every clip,
/// channel and key of the view is decoded, and the writer reproduces the file.
pub fn fuzz_hanim(data: &[u8]) -> bool {
    let view = hanim::parse_hanim(data);
    let owned = hanim::read_hanim(data);
    assert_same_verdict(&view, &owned, "parse_hanim/read_hanim");
    assert_same_verdict(&view, &hanim::validate(data), "parse_hanim/validate");
    let (Ok(view), Ok(clips)) = (view, owned) else {
        return false;
    };
    walk_hanim(&view);
    assert!(view.to_clips() == clips, "the view and read_hanim disagree");
    assert_eq!(view.max_joint(), hanim::max_joint(&clips), "max_joint");
    for clip in &clips {
        for channel in &clip.channels {
            let components = channel.path.components();
            assert_eq!(
                channel.values.len(),
                channel.times.len() * components,
                "AnimChannel values per key"
            );
        }
    }
    let written = hanim::write_hanim(&clips)
        .unwrap_or_else(|e| panic!("write_hanim refused clips read_hanim accepted: {e}"));
    assert!(
        written == data,
        "write_hanim does not reproduce an accepted file"
    );
    true
}

/// Decodes every key of every channel of every clip of the view.
fn walk_hanim(view: &hanim::HAnim<'_>) {
    assert_eq!(view.clips().count(), view.clip_count(), "HAnim::clip_count");
    for clip in view.clips() {
        assert!(view.clip(clip.name).is_some(), "HAnim::clip by name");
        assert_eq!(clip.channels().count(), clip.channel_count());
        for channel in clip.channels() {
            black_box((
                channel.joint,
                channel.path.as_str(),
                channel.interpolation.as_str(),
            ));
            assert_eq!(channel.keys().count(), channel.key_count(), "keys()");
            assert_eq!(channel.key(channel.key_count()), None, "key past the end");
        }
    }
}

// ---------------------------------------------------------------------------
// .hpack
// ---------------------------------------------------------------------------

/// `.hpack`: `hpack::parse`, every entry with its lookup by path and its
/// payload, the layout byte counts, and a write/read round trip that must
/// keep every path, kind and payload.
pub fn fuzz_hpack(data: &[u8]) -> bool {
    let toc = toc_of(data);
    let pack = match hpack::parse(data) {
        Ok(pack) => pack,
        Err(error) => {
            rendered(&error);
            return false;
        }
    };
    assert_eq!(
        toc.as_deref(),
        Some(pack.entries()),
        "parse_toc must accept every pack parse accepts, with the same entries"
    );
    black_box((pack.header(), pack.is_empty(), pack.header_bytes()));
    let layout = pack.header_bytes() + pack.toc_bytes() + pack.payload_bytes();
    assert_eq!(
        layout + pack.padding_bytes(),
        pack.file_bytes(),
        "pack byte counts do not add up"
    );
    assert_eq!(pack.file_bytes(), data.len() as u64, "Pack::file_bytes");
    let mut items = Vec::with_capacity(pack.len());
    for entry in pack.iter() {
        assert_eq!(pack.find(entry.path), Some(entry), "Pack::find");
        let payload = pack.data(&entry);
        assert_eq!(payload.len() as u64, entry.size, "Pack::data length");
        black_box((entry.end(), entry.kind.name()));
        items.push(hpack::PackItem {
            path: entry.path,
            kind: entry.kind,
            data: payload,
        });
    }
    assert_eq!(pack.entries().len(), items.len(), "Pack::entries length");
    round_trip_hpack(&items);
    true
}

/// The entries `hpack::parse_toc` reads from the header and TOC of `data`
/// alone (the bytes its header says they take), checked against the whole
/// length; `None` when it refuses them.
fn toc_of(data: &[u8]) -> Option<Vec<hpack::PackEntry<'_>>> {
    let toc_bytes = data
        .get(16..24)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_le_bytes)?;
    let end = usize::try_from(toc_bytes)
        .ok()?
        .checked_add(hpack::HEADER_BYTES)?;
    let prefix = data.get(..end.min(data.len()))?;
    match hpack::parse_toc(prefix, data.len() as u64) {
        Ok(entries) => Some(entries),
        Err(error) => {
            rendered(&error);
            None
        }
    }
}

/// Writes the items of an accepted pack again and checks that reading the
/// result gives back the same entries and payloads.
fn round_trip_hpack(items: &[hpack::PackItem<'_>]) {
    let written = hpack::write_pack(items)
        .unwrap_or_else(|e| panic!("write_pack refused a pack parse accepted: {e}"));
    let again = hpack::parse(&written)
        .unwrap_or_else(|e| panic!("parse refused what write_pack wrote: {e}"));
    assert_eq!(again.len(), items.len(), "round trip entry count");
    for (item, entry) in items.iter().zip(again.iter()) {
        assert_eq!((item.path, item.kind), (entry.path, entry.kind));
        assert!(again.data(&entry) == item.data, "round trip payload");
    }
}

// ---------------------------------------------------------------------------
// .ktx2
// ---------------------------------------------------------------------------

/// KTX 2.0: `ktx2::parse`, the header, every level's data, the DFD and every
/// key/value pair with its lookup by key.
pub fn fuzz_ktx2(data: &[u8]) -> bool {
    let view = match ktx2::parse(data) {
        Ok(view) => view,
        Err(error) => {
            rendered(&error);
            return false;
        }
    };
    let header = *view.header();
    assert_eq!(
        view.levels().len(),
        header.stored_level_count() as usize,
        "one level index entry per stored level"
    );
    for (index, level) in view.levels().iter().enumerate() {
        let bytes = view.level_data(index);
        assert_eq!(
            bytes.len() as u64,
            level.byte_length,
            "level {index} length"
        );
        black_box((bytes, level.uncompressed_byte_length));
    }
    black_box((view.dfd(), header.to_bytes()));
    if let Some(format) = view.texel_format() {
        // A format of the table: the reader checked the DFD against it, so
        // level 0 holds whole blocks of it for every image.
        let images = u64::from(header.face_count)
            * u64::from(header.layer_count.max(1))
            * u64::from(header.pixel_depth.max(1));
        let level0 = format.image_bytes(header.pixel_width, header.pixel_height.max(1));
        let expected = level0.checked_mul(images);
        let stored = view.levels().first().map(|l| l.uncompressed_byte_length);
        assert_eq!(
            stored,
            expected,
            "level 0 of {} holds whole blocks",
            format.name()
        );
    }
    for (key, value) in view.key_values() {
        let first = view.key_value(key);
        assert!(first.is_some(), "key_value misses the key {key:?}");
        black_box(value);
    }
    true
}

// ---------------------------------------------------------------------------
// .hfont
// ---------------------------------------------------------------------------

/// `.hfont`: the zero-copy view on an aligned copy, `read_hfont` and
/// `validate` on a misaligned one, every glyph and kerning lookup, and the
/// writer reproducing the file.
pub fn fuzz_hfont(data: &[u8]) -> bool {
    let aligned = Placed::new(data, 0);
    let misaligned = Placed::new(data, 1);
    let view = hfont::parse_hfont(aligned.bytes());
    let owned = hfont::read_hfont(misaligned.bytes());
    assert_same_verdict(&view, &owned, "parse_hfont/read_hfont");
    assert_same_verdict(
        &view,
        &hfont::validate(misaligned.bytes()),
        "parse_hfont/validate",
    );
    black_box(hfont::parse_hfont(misaligned.bytes()).is_ok());
    let (Ok(view), Ok(font)) = (view, owned) else {
        return false;
    };
    for glyph in view.glyphs() {
        assert_eq!(view.find_glyph(glyph.codepoint), Some(glyph), "find_glyph");
        black_box(glyph.is_blank());
    }
    let notdef = view.glyph(u32::MAX);
    assert_eq!(notdef.codepoint, 0, "a miss falls back to .notdef");
    for pair in view.kerning_pairs() {
        assert_eq!(
            view.kerning(pair.left, pair.right).to_bits(),
            pair.advance.to_bits()
        );
    }
    black_box((view.line_advance(), view.atlas_tex(), view.header()));
    assert!(
        view.to_font_data() == font,
        "the view and read_hfont disagree"
    );
    let written = hfont::write_hfont(&font)
        .unwrap_or_else(|e| panic!("write_hfont refused a font read_hfont accepted: {e}"));
    assert!(
        written == data,
        "write_hfont does not reproduce an accepted file"
    );
    true
}

// ---------------------------------------------------------------------------
// .hsnd
// ---------------------------------------------------------------------------

/// `.hsnd`: `read_hsnd` on the input and on a misaligned copy, `validate` on
/// the copy, every helper of an accepted record against the rules it
/// promises, and the writer reproducing the file.
pub fn fuzz_hsnd(data: &[u8]) -> bool {
    let misaligned = Placed::new(data, 3);
    let record = hsnd::read_hsnd(data);
    assert_same_verdict(
        &record,
        &hsnd::read_hsnd(misaligned.bytes()),
        "read_hsnd/read_hsnd misaligned",
    );
    assert_same_verdict(
        &record,
        &hsnd::validate(misaligned.bytes()),
        "read_hsnd/validate",
    );
    let Ok(record) = record else {
        return false;
    };
    let codec = record.codec();
    assert!(codec.is_some(), "read_hsnd accepted an unknown codec");
    black_box(codec.map(hsnd::SoundCodec::name));
    let loops = record.flags & hsnd::FLAG_LOOPS != 0;
    assert_eq!(record.looping().is_some(), loops, "looping() and the flag");
    if let Some((start, end)) = record.looping() {
        assert!(start < end && end <= record.frames, "an accepted loop");
    }
    if let Some((loudness, true_peak)) = record.loudness() {
        assert!(loudness.is_finite() && true_peak.is_finite(), "loudness()");
    }
    let seconds = record.duration_seconds();
    assert!(seconds > 0.0 && seconds.is_finite(), "duration_seconds()");
    let written = hsnd::write_hsnd(&record)
        .unwrap_or_else(|e| panic!("write_hsnd refused a record read_hsnd accepted: {e}"));
    assert!(
        written == data,
        "write_hsnd does not reproduce an accepted file"
    );
    true
}

// ---------------------------------------------------------------------------
// .hatlas
// ---------------------------------------------------------------------------

/// `.hatlas`: `parse_hatlas` on an aligned copy, `read_hatlas` and
/// `validate` on a misaligned one, all agreeing; an accepted table keeps its
/// promises (every row found by its name and hash, inside its page), the
/// view and the owned reader agree, and `write_hatlas` reproduces the file.
pub fn fuzz_hatlas(data: &[u8]) -> bool {
    let aligned = Placed::new(data, 0);
    let misaligned = Placed::new(data, 3);
    let view = hatlas::parse_hatlas(aligned.bytes());
    let owned = hatlas::read_hatlas(misaligned.bytes());
    assert_same_verdict(&view, &owned, "parse_hatlas/read_hatlas");
    assert_same_verdict(
        &view,
        &hatlas::validate(misaligned.bytes()),
        "parse_hatlas/validate",
    );
    black_box(hatlas::parse_hatlas(misaligned.bytes()).is_ok());
    let (Ok(view), Ok(table)) = (view, owned) else {
        return false;
    };
    let header = view.header();
    for sprite in view.sprites() {
        let name = view.name(sprite);
        assert_eq!(view.find(name), Some(sprite), "find({name:?})");
        assert_eq!(view.find_hash(sprite.name_hash), Some(sprite), "find_hash");
        let right = u64::from(sprite.x) + u64::from(sprite.w);
        let bottom = u64::from(sprite.y) + u64::from(sprite.h);
        assert!(
            right <= u64::from(header.page_width),
            "a rect inside its page"
        );
        assert!(
            bottom <= u64::from(header.page_height),
            "a rect inside its page"
        );
        assert!(sprite.page < header.page_count, "a page that exists");
        black_box((sprite.content_size(), sprite.has_content()));
    }
    assert!(
        view.to_table() == table,
        "the view and read_hatlas disagree"
    );
    let written = hatlas::write_hatlas(&table)
        .unwrap_or_else(|e| panic!("write_hatlas refused a table read_hatlas accepted: {e}"));
    assert!(
        written == data,
        "write_hatlas does not reproduce an accepted file"
    );
    true
}

// ---------------------------------------------------------------------------
// Any file
// ---------------------------------------------------------------------------

/// `format::open`: identification by magic, the typed view of whatever the
/// bytes are (on a 16-byte-aligned copy), `format::open::validate` agreeing
/// on a misaligned copy, and, for a pack, every entry opened through
/// `Pack::open`.
pub fn fuzz_open(data: &[u8]) -> bool {
    let aligned = Placed::new(data, 0);
    let misaligned = Placed::new(data, 5);
    let opened = format::open(aligned.bytes());
    let checked = format::open::validate(misaligned.bytes());
    assert_same_verdict(&opened, &checked, "open/validate");
    let Ok(file) = opened else {
        return false;
    };
    assert_eq!(format::identify(data), Some(file.file_type()), "identify");
    if let AssetFile::Pack(pack) = file {
        for entry in pack.iter() {
            if let Some(Err(error)) = pack.open(entry.path) {
                rendered(&error);
            }
        }
    }
    true
}

// ---------------------------------------------------------------------------
// assets.removed
// ---------------------------------------------------------------------------

/// A patch pack's `assets.removed` list: `removed::parse_removed_list`, every
/// listed path found by `contains`, the writer reproducing an accepted list
/// byte for byte; and the same bytes as the list of a patch pack mounted above
/// a base that holds every listed path, which `PatchedPack::new` must accept
/// exactly when the list reader does (at the same file offset when not), and
/// where every listed path then resolves to nothing.
pub fn fuzz_removed(data: &[u8]) -> bool {
    let parsed = removed::parse_removed_list(data);
    let patch = hpack::write_pack(&[hpack::PackItem::new(REMOVED_LIST_PATH, data)])
        .unwrap_or_else(|e| panic!("write_pack refused a lone list entry: {e}"));
    let patch = hpack::parse(&patch).unwrap_or_else(|e| panic!("the patch does not parse: {e}"));
    let list_at = patch.entries()[0].offset;
    let listed: Vec<&str> = parsed
        .as_ref()
        .map(|l| l.paths().to_vec())
        .unwrap_or_default();
    let base_items: Vec<hpack::PackItem<'_>> = listed
        .iter()
        .map(|path| hpack::PackItem::new(path, path.as_bytes()))
        .collect();
    let base = hpack::write_pack(&base_items)
        .unwrap_or_else(|e| panic!("write_pack refused the listed paths: {e}"));
    let base = hpack::parse(&base).unwrap_or_else(|e| panic!("the base does not parse: {e}"));
    let mounted = PatchedPack::new(patch, base);
    let list = match (parsed, mounted) {
        (Err(error), Err(mount_error)) => {
            assert_eq!(
                mount_error.offset,
                list_at + error.offset,
                "mount error offset"
            );
            rendered(&error);
            return false;
        }
        (Ok(list), Ok(mounted)) => {
            for path in list.paths() {
                assert!(list.contains(path), "RemovedList::contains misses {path:?}");
                assert!(mounted.find(path).is_none(), "a removed path resolves");
            }
            list
        }
        (Ok(_), Err(e)) => panic!("PatchedPack::new refused a list the reader accepts: {e}"),
        (Err(e), Ok(_)) => panic!("PatchedPack::new accepted a list the reader refuses: {e}"),
    };
    let written = removed::write_removed_list(list.paths().iter().copied())
        .unwrap_or_else(|e| panic!("write_removed_list refused a list the reader accepted: {e}"));
    assert!(
        written == data,
        "write_removed_list does not reproduce an accepted list"
    );
    true
}
