//! The C header `include/assetc.h` against the Rust crate.
//!
//! The C programs in `tests/c/` are compiled with the system C compiler (`$CC`,
//! else `cc`) as strict C99 and, where noted, as C++17 (`$CXX`, else `c++`),
//! then their output is compared with the same facts computed here from
//! `assetc::format`:
//!
//! - `layout_check.c` prints every packed struct's size and every field's
//!   offset and size, the constants, the byte-enum names and sample ids;
//! - `read_pack.c` reads the demo project's `.hpack` (built by the real
//!   binaries) through the header's readers: the TOC, the manifest, every
//!   mesh's counts and every material's base-colour texture; and the same
//!   pack with a second copy of every texture, sharing its payload;
//! - `read_atlas.c` reads `.hatlas` tables written by the crate's writer (a
//!   still atlas and an animation) through `assetc_hatlas_read` and
//!   `assetc_hatlas_find`, and refuses each damaged copy exactly when the
//!   Rust reader does;
//! - damaged packs (truncated, corrupted) must make `read_pack` fail with a
//!   message, never crash; the corruption cases run under AddressSanitizer and
//!   UBSan when the compiler supports them.
//!
//! A missing compiler fails the tests with a message saying so.

use std::fmt::Write as _;
use std::mem::{offset_of, size_of, size_of_val};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::shared;
use assetc::format::hanim::{self, AnimPath, Interpolation};
use assetc::format::hash::asset_hash;
use assetc::format::hatlas::{self, AtlasHeader, AtlasSprite};
use assetc::format::hfont::{self, FontFileHeader, GpuGlyph, KerningPair};
use assetc::format::hman::{self, ManHeader, Manifest};
use assetc::format::hmat::{self, AlphaMode, GpuMaterial, MatFileHeader};
use assetc::format::hmesh::{
    self, ChunkEntry, FileHeader, GpuJoint, GpuSkinVertex, GpuVertex, LodTableHeader, MeshBounds,
    MeshDesc, MeshLod, Meshlet, MeshletBounds, MeshletTriangle, SubMesh,
};
use assetc::format::hpack::{self, Pack, PackEntry, PackHeader};
use assetc::format::hsnd::{self, SoundCodec, SoundRecord};
use assetc::format::kind::{AssetKind, ColorSpace, PackKind};
use assetc::format::ktx2;
use assetc::format::removed::REMOVED_LIST_PATH;

// ---------------------------------------------------------------------------
// Compiling and running the C programs.
// ---------------------------------------------------------------------------

/// The repository root.
fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A C source in `tests/c/`.
fn c_source(name: &str) -> PathBuf {
    repo().join("tests/c").join(name)
}

/// The C compiler: `$CC`, else `cc`.
fn c_compiler() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

/// The C++ compiler: `$CXX`, else `c++`.
fn cxx_compiler() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".into())
}

/// The warnings every compile of the header must pass.
const STRICT_C: [&str; 5] = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];
/// The same for C++.
const STRICT_CXX: [&str; 5] = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic"];

/// Runs `compiler args...`, failing the test (with the compiler's output) on
/// any error, or with a clear message when the compiler cannot be started.
fn compile(compiler: &str, args: &[&str]) {
    let output = try_compile(compiler, args).unwrap_or_else(|err| {
        panic!(
            "no usable compiler: `{compiler}` could not be started ({err}); install gcc/g++ or \
             clang, or point CC/CXX at one"
        )
    });
    assert!(
        output.status.success(),
        "`{compiler} {}` failed:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs `compiler args...` and returns its output, or why it could not start.
fn try_compile(compiler: &str, args: &[&str]) -> std::io::Result<Output> {
    Command::new(compiler)
        .args(args)
        .current_dir(repo())
        .output()
}

/// `-I <repo>/include`, as two arguments.
fn include_flag() -> [String; 2] {
    ["-I".into(), repo().join("include").display().to_string()]
}

/// Compiles `source` as strict C99 into `dir/name`, with `extra` flags.
fn build_c(source: &str, dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let exe = dir.join(name);
    let args = c_args(source, &exe, extra);
    compile(
        &c_compiler(),
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    exe
}

/// The argument list that compiles `source` as strict C99 into `exe`.
fn c_args(source: &str, exe: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = STRICT_C.iter().map(|s| s.to_string()).collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(include_flag());
    args.push(c_source(source).display().to_string());
    args.push("-o".into());
    args.push(exe.display().to_string());
    args
}

/// The result of one run of a compiled program.
struct Run {
    /// The exit code; `None` if a signal ended it.
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `exe args...` with sanitizer reports forced onto distinctive exit codes.
fn run(exe: &Path, args: &[&Path]) -> Run {
    let output = Command::new(exe)
        .args(args)
        .env("ASAN_OPTIONS", "detect_leaks=0:exitcode=86")
        .env("UBSAN_OPTIONS", "halt_on_error=1:exitcode=87")
        .output()
        .unwrap_or_else(|err| panic!("cannot run {}: {err}", exe.display()));
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Asserts two texts are equal line by line, naming the first difference.
fn assert_same_lines(what: &str, actual: &str, expected: &str) {
    let mismatch = actual
        .lines()
        .zip(expected.lines())
        .enumerate()
        .find(|(_, (a, e))| a != e);
    if let Some((line, (a, e))) = mismatch {
        panic!(
            "{what}: line {} differs\n  C:    {a}\n  Rust: {e}\n--- C output ---\n{actual}",
            line + 1
        );
    }
    assert_eq!(
        actual.lines().count(),
        expected.lines().count(),
        "{what}: line counts differ\n--- C ---\n{actual}\n--- Rust ---\n{expected}"
    );
}

// ---------------------------------------------------------------------------
// The demo pack.
// ---------------------------------------------------------------------------

/// A scratch folder for one test's programs and damaged packs, and the path
/// of the single pack of the demo built with `--pack` (shared by the tests;
/// its named packs sit beside it).
fn demo_pack() -> (tempfile::TempDir, PathBuf) {
    let pack = shared::demo().path("runtime/desktop.hpack");
    assert!(pack.is_file(), "{} missing", pack.display());
    (tempfile::tempdir().unwrap(), pack)
}

/// `bytes` copied into a buffer that starts on an 8-byte boundary, as
/// `hmesh::parse_hmesh` needs.
fn aligned(bytes: &[u8]) -> Vec<u64> {
    let mut words = vec![0_u64; bytes.len().div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
    words
}

/// What `read_pack` should print for `pack`, computed with the Rust readers.
fn expected_listing(bytes: &[u8]) -> String {
    let pack = hpack::parse(bytes).expect("the demo pack is valid");
    let mut out = String::new();
    for entry in pack.iter() {
        let _ = writeln!(out, "entry {} {} {}", entry.kind, entry.size, entry.path);
    }
    let manifest_entry = pack
        .find("assets.hman")
        .expect("the pack holds assets.hman");
    let manifest = hman::parse(pack.data(&manifest_entry)).expect("valid manifest");
    let _ = writeln!(out, "manifest assets.hman {}", manifest.len());
    for entry in pack.iter() {
        match entry.kind {
            PackKind::Mesh => describe_mesh(&mut out, &pack, &manifest, &entry),
            PackKind::Material => describe_material(&mut out, &pack, &manifest, &entry),
            PackKind::Texture => {
                let view = ktx2::parse(pack.data(&entry)).expect("valid texture");
                let sampler = if view.wants_nearest() {
                    "nearest"
                } else {
                    "linear"
                };
                let _ = writeln!(out, "texture {} {sampler}", entry.path);
            }
            _ => {}
        }
    }
    out
}

/// The id of a pack file, after checking the manifest maps it back to it.
fn manifest_id(manifest: &Manifest<'_>, kind: AssetKind, path: &str) -> u64 {
    let id = kind.id_for_path(path);
    let found = manifest
        .find(id)
        .expect("every mesh and material is in the manifest");
    assert_eq!((found.kind, found.path), (kind, path));
    id
}

/// The `mesh` line of one `.hmesh` entry.
fn describe_mesh(out: &mut String, pack: &Pack<'_>, manifest: &Manifest<'_>, entry: &PackEntry) {
    let id = manifest_id(manifest, AssetKind::Mesh, entry.path);
    let words = aligned(pack.data(entry));
    let bytes = &bytemuck::cast_slice::<u64, u8>(&words)[..pack.data(entry).len()];
    let mesh = hmesh::parse_hmesh(bytes).expect("valid mesh");
    let _ = writeln!(
        out,
        "mesh {} {id:016x} vertices={} indices={} index_width={} meshlets={} submeshes={} \
         materials={} chunks={}",
        entry.path,
        mesh.vertices.len(),
        mesh.indices.len(),
        mesh.indices.width(),
        mesh.meshlets.len(),
        mesh.submeshes.len(),
        mesh.materials.len(),
        mesh.chunks.len()
    );
}

/// The `material` lines of one `.hmat` entry.
fn describe_material(
    out: &mut String,
    pack: &Pack<'_>,
    manifest: &Manifest<'_>,
    entry: &PackEntry,
) {
    let id = manifest_id(manifest, AssetKind::Material, entry.path);
    let rows = hmat::read_hmat(pack.data(entry)).expect("valid material table");
    let _ = writeln!(out, "material {} {id:016x} rows={}", entry.path, rows.len());
    for (index, row) in rows.iter().enumerate() {
        let texture = row.base_color_texture;
        let target = match (texture, manifest.find(texture)) {
            (0, _) => "base_color=none".to_string(),
            (_, None) => format!("base_color={texture:016x} unresolved"),
            (_, Some(found)) => format!(
                "base_color={texture:016x} -> {} {} in_pack={}",
                found.kind,
                found.path,
                if pack.find(found.path).is_some() {
                    "yes"
                } else {
                    "no"
                }
            ),
        };
        let _ = writeln!(out, "material {} row={index} {target}", entry.path);
    }
}

#[test]
fn read_pack_reads_the_demo_pack_like_the_rust_crate() {
    let (scratch, pack) = demo_pack();
    let exe = build_c("read_pack.c", scratch.path(), "read_pack", &[]);
    let bytes = std::fs::read(&pack).expect("read the pack");
    let expected = expected_listing(&bytes);
    // The demo must exercise every branch worth comparing.
    for needle in ["\nmesh ", "\nmaterial ", " -> texture ", "base_color=none"] {
        assert!(
            expected.contains(needle),
            "demo lacks {needle:?}:\n{expected}"
        );
    }
    let result = run(&exe, &[&pack]);
    assert_eq!(result.code, Some(0), "read_pack failed:\n{}", result.stderr);
    assert_same_lines("read_pack on the demo pack", &result.stdout, &expected);
}

/// A still table (one sprite turned, one without texels) and an animation.
fn sample_tables() -> [Vec<u8>; 2] {
    let sprite = |name: &str, page, rect: [u32; 4]| hatlas::SpriteEntry {
        name: name.into(),
        page,
        rotated: false,
        rect,
        trim: [1, 0],
        source_size: [rect[2] + 1, rect[3] + 2],
        pivot: [0.5, 1.0],
        duration_ms: 0,
    };
    let mut turned = sprite("ui/Arrow", 1, [0, 0, 6, 3]);
    turned.rotated = true;
    turned.source_size = [3, 6];
    turned.trim = [0, 0];
    let still = hatlas::AtlasTable {
        atlas_tex: asset_hash("ui/icons.atlas"),
        page_count: 2,
        page_width: 16,
        page_height: 8,
        flags: hatlas::ATLAS_NEAREST,
        sprites: vec![
            sprite("button", 0, [0, 0, 8, 4]),
            sprite("coin", 0, [10, 0, 4, 4]),
            sprite("clear", 0, [0, 0, 0, 0]),
            turned,
        ],
    };
    let frames = hatlas::AtlasTable {
        flags: hatlas::ATLAS_ANIMATION,
        page_count: 3,
        sprites: (0..3)
            .map(|i| hatlas::SpriteEntry {
                duration_ms: 40 * (i + 1),
                ..sprite(&format!("walk/{}", 2 - i), i, [0, 0, 16, 8])
            })
            .collect(),
        ..still.clone()
    };
    [still, frames].map(|table| hatlas::write_hatlas(&table).unwrap())
}

/// What `read_atlas` should print for `bytes`, from the Rust reader.
fn expected_atlas(bytes: &[u8]) -> String {
    let table = hatlas::read_hatlas(bytes).unwrap();
    let mut out = format!(
        "atlas sprites {} pages {} size {} {} flags {} tex {:016x}\n",
        table.sprites.len(),
        table.page_count,
        table.page_width,
        table.page_height,
        table.flags,
        table.atlas_tex
    );
    for s in &table.sprites {
        let [x, y, w, h] = s.rect;
        let _ = writeln!(
            out,
            "sprite {} page {} rotated {} rect {x} {y} {w} {h} trim {} {} source {} {} pivot {:08x} {:08x} ms {}",
            s.name,
            s.page,
            u8::from(s.rotated),
            s.trim[0],
            s.trim[1],
            s.source_size[0],
            s.source_size[1],
            s.pivot[0].to_bits(),
            s.pivot[1].to_bits(),
            s.duration_ms
        );
    }
    out
}

#[test]
fn read_atlas_reads_tables_like_the_rust_crate_and_refuses_what_it_refuses() {
    let scratch = tempfile::tempdir().unwrap();
    let exe = build_c("read_atlas.c", scratch.path(), "read_atlas", &[]);
    let file = scratch.path().join("table.hatlas");
    for bytes in sample_tables() {
        std::fs::write(&file, &bytes).unwrap();
        let result = run(&exe, &[&file]);
        assert_eq!(
            result.code,
            Some(0),
            "read_atlas failed:\n{}",
            result.stderr
        );
        assert_same_lines("read_atlas", &result.stdout, &expected_atlas(&bytes));
        let mut refused = 0;
        for at in 0..bytes.len() {
            for value in [0x00, 0x01, 0xff] {
                let mut damaged = bytes.clone();
                damaged[at] = value;
                if damaged == bytes {
                    continue;
                }
                std::fs::write(&file, &damaged).unwrap();
                let c_accepts = run(&exe, &[&file]).code == Some(0);
                let rust_accepts = hatlas::validate(&damaged).is_ok();
                assert_eq!(c_accepts, rust_accepts, "byte {at} set to {value:#04x}");
                refused += usize::from(!rust_accepts);
            }
        }
        assert!(
            refused > bytes.len(),
            "only {refused} damaged copies refused"
        );
        for len in [0, 47, 48, bytes.len() - 1] {
            std::fs::write(&file, &bytes[..len]).unwrap();
            assert_eq!(run(&exe, &[&file]).code, Some(1), "{len} bytes");
        }
    }
}

#[test]
fn read_pack_reads_shared_payloads_like_the_rust_crate() {
    let (scratch, pack) = demo_pack();
    let exe = build_c("read_pack.c", scratch.path(), "read_pack", &[]);
    let bytes = std::fs::read(&pack).expect("read the pack");
    let demo = hpack::parse(&bytes).expect("the demo pack is valid");
    // Every texture again under a second path: the copies share its payload.
    let copies: Vec<(String, &[u8])> = demo
        .iter()
        .filter(|entry| entry.kind == PackKind::Texture)
        .map(|entry| (format!("zz/{}", entry.path), demo.data(&entry)))
        .collect();
    let items: Vec<hpack::PackItem<'_>> = demo
        .iter()
        .map(|entry| hpack::PackItem::new(entry.path, demo.data(&entry)))
        .chain(
            copies
                .iter()
                .map(|(path, data)| hpack::PackItem::new(path, data)),
        )
        .collect();
    let shared = hpack::write_pack(&items).expect("write the pack");
    let parsed = hpack::parse(&shared).expect("the shared pack is valid");
    assert!(parsed.shared_entries() >= copies.len() && !copies.is_empty());
    let file = scratch.path().join("shared.hpack");
    std::fs::write(&file, &shared).expect("write the shared pack");
    let result = run(&exe, &[&file]);
    assert_eq!(result.code, Some(0), "read_pack failed:\n{}", result.stderr);
    assert_same_lines(
        "read_pack on a pack with shared payloads",
        &result.stdout,
        &expected_listing(&shared),
    );
}

// ---------------------------------------------------------------------------
// Damaged packs.
// ---------------------------------------------------------------------------

/// Asserts that `read_pack` refused `bytes` cleanly: exit code 1 and a message.
fn assert_refused(exe: &Path, dir: &Path, bytes: &[u8], what: &str) -> Run {
    let file = dir.join("damaged.hpack");
    std::fs::write(&file, bytes).expect("write the damaged pack");
    let result = run(exe, &[&file]);
    assert_eq!(
        result.code,
        Some(1),
        "{what}: expected a format error\nstdout:\n{}\nstderr:\n{}",
        result.stdout,
        result.stderr
    );
    assert!(
        result.stderr.starts_with("read_pack: ") && result.stderr.lines().count() == 1,
        "{what}: expected one error line, got:\n{}",
        result.stderr
    );
    result
}

/// Where the TOC of a pack ends.
fn toc_end(bytes: &[u8]) -> usize {
    let pack = hpack::parse(bytes).expect("valid pack");
    hpack::HEADER_BYTES + pack.toc_bytes() as usize
}

#[test]
fn read_pack_refuses_truncated_packs() {
    let (scratch, pack) = demo_pack();
    let exe = build_c("read_pack.c", scratch.path(), "read_pack", &[]);
    let bytes = std::fs::read(&pack).expect("read the pack");
    let toc = toc_end(&bytes);
    let cuts = [
        0,
        3,
        hpack::HEADER_BYTES - 1,
        hpack::HEADER_BYTES,
        hpack::HEADER_BYTES + 10,
        toc - 1,
        toc,
        bytes.len() / 2,
        bytes.len() - 1,
    ];
    for cut in cuts {
        let result = assert_refused(
            &exe,
            scratch.path(),
            &bytes[..cut],
            &format!("cut at {cut}"),
        );
        assert!(
            result.stderr.contains("truncated") || result.stderr.contains("out of range"),
            "cut at {cut}: {}",
            result.stderr
        );
    }
}

/// Overwrites `bytes[at..]` with `value` in little-endian order.
fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// The file offset of field `field` of the chunk-table row of `id` in the
/// mesh stored at `path` inside the pack.
fn mesh_chunk_field(bytes: &[u8], path: &str, id: u32, field: usize) -> usize {
    let pack = hpack::parse(bytes).expect("valid pack");
    let entry = pack.find(path).expect("mesh in pack");
    let words = aligned(pack.data(&entry));
    let data = &bytemuck::cast_slice::<u64, u8>(&words)[..entry.size as usize];
    let mesh = hmesh::parse_hmesh(data).expect("valid mesh");
    let row = mesh
        .chunks
        .iter()
        .position(|c| c.fourcc == id)
        .expect("chunk present");
    entry.offset as usize + hmesh::HEADER_BYTES + row * hmesh::ENTRY_BYTES + field
}

/// Where the `pathLen` field of the last TOC record of the pack lies.
fn last_toc_path_len(bytes: &[u8]) -> usize {
    let pack = hpack::parse(bytes).expect("valid pack");
    let before_last: usize = pack.entries()[..pack.len() - 1]
        .iter()
        .map(|entry| hpack::TOC_ENTRY_FIXED_BYTES + entry.path.len())
        .sum();
    hpack::HEADER_BYTES + before_last + 17
}

/// Where the `pathLen` field of the last manifest entry in the pack lies.
fn last_manifest_path_len(bytes: &[u8]) -> usize {
    let pack = hpack::parse(bytes).expect("valid pack");
    let entry = pack.find("assets.hman").expect("manifest in pack");
    let manifest = hman::parse(pack.data(&entry)).expect("valid manifest");
    let before_last: usize = manifest.entries()[..manifest.len() - 1]
        .iter()
        .map(|entry| hman::ENTRY_FIXED_BYTES + entry.path.len())
        .sum();
    entry.offset as usize + hman::HEADER_BYTES + before_last + 10
}

#[test]
fn read_pack_refuses_paths_that_run_past_their_table() {
    let (scratch, pack) = demo_pack();
    let exe = sanitized_read_pack(scratch.path());
    let bytes = std::fs::read(&pack).expect("read the pack");
    for (at, what) in [
        (last_toc_path_len(&bytes), "TOC"),
        (last_manifest_path_len(&bytes), "assets.hman"),
    ] {
        let mut long_path = bytes.clone();
        long_path[at..at + 2].copy_from_slice(&u16::MAX.to_le_bytes());
        let result = assert_refused(&exe, scratch.path(), &long_path, what);
        assert!(
            result.stderr.contains("truncated"),
            "{what}: {}",
            result.stderr
        );
    }
}

#[test]
fn read_pack_reports_damage_inside_the_nested_files() {
    let (scratch, pack) = demo_pack();
    let exe = sanitized_read_pack(scratch.path());
    let bytes = std::fs::read(&pack).expect("read the pack");
    let mesh = "models/crate.hmesh";

    let mut huge_chunk = bytes.clone();
    let size_at = mesh_chunk_field(&bytes, mesh, hmesh::chunk::VTXS, 16);
    put_u64(&mut huge_chunk, size_at, u64::MAX - 8);
    let result = assert_refused(&exe, scratch.path(), &huge_chunk, "huge VTXS");
    assert!(result.stderr.contains(mesh), "{}", result.stderr);

    let mut short_vertices = bytes.clone();
    put_u64(&mut short_vertices, size_at, 28);
    let result = assert_refused(&exe, scratch.path(), &short_vertices, "short VTXS");
    assert!(result.stderr.contains("hmesh DESC"), "{}", result.stderr);

    let parsed = hpack::parse(&bytes).expect("valid pack");
    let manifest = parsed.find("assets.hman").expect("manifest in pack");
    let mut bad_count = bytes.clone();
    bad_count[manifest.offset as usize + 8..][..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let result = assert_refused(&exe, scratch.path(), &bad_count, "manifest count");
    assert!(result.stderr.contains("assets.hman"), "{}", result.stderr);
}

/// A small deterministic xorshift generator.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in `0..bound`.
    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

/// The byte ranges the C readers parse: header and TOC, and the manifest,
/// meshes and materials (texture payloads are never looked inside).
fn parsed_regions(bytes: &[u8]) -> Vec<(usize, usize)> {
    let pack = hpack::parse(bytes).expect("valid pack");
    let mut regions = vec![(0, toc_end(bytes))];
    for entry in pack.iter() {
        if matches!(
            entry.kind,
            PackKind::Manifest | PackKind::Mesh | PackKind::Material
        ) {
            regions.push((entry.offset as usize, entry.end() as usize));
        }
    }
    regions
}

/// `read_pack` built with AddressSanitizer and UBSan if the compiler has
/// them, else the plain build (saying so on stderr).
pub(crate) fn sanitized_read_pack(dir: &Path) -> PathBuf {
    let exe = dir.join("read_pack_sanitized");
    let flags = [
        "-g",
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all",
    ];
    let args = c_args("read_pack.c", &exe, &flags);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match try_compile(&c_compiler(), &args) {
        Ok(output) if output.status.success() => exe,
        _ => {
            eprintln!(
                "note: {} cannot build with sanitizers; using a plain build",
                c_compiler()
            );
            build_c("read_pack.c", dir, "read_pack", &[])
        }
    }
}

#[test]
fn read_pack_survives_random_corruption() {
    let (scratch, pack) = demo_pack();
    let exe = sanitized_read_pack(scratch.path());
    let bytes = std::fs::read(&pack).expect("read the pack");
    let regions = parsed_regions(&bytes);
    let file = scratch.path().join("corrupt.hpack");
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let (mut refused, cases) = (0, 200);
    for case in 0..cases {
        let mut corrupt = bytes.clone();
        for _ in 0..=rng.below(3) {
            let (start, end) = regions[rng.below(regions.len())];
            let at = start + rng.below(end - start);
            corrupt[at] = match rng.below(4) {
                0 => 0,
                1 => 0xFF,
                2 => corrupt[at] ^ (1 << rng.below(8)),
                _ => rng.next() as u8,
            };
        }
        std::fs::write(&file, &corrupt).expect("write the corrupt pack");
        let result = run(&exe, &[&file]);
        match result.code {
            Some(0) => {}
            Some(1) if result.stderr.starts_with("read_pack: ") => refused += 1,
            _ => panic!(
                "case {case}: read_pack ended with {:?}\n{}",
                result.code, result.stderr
            ),
        }
    }
    // Most of these bytes matter; a reader that accepted everything fails here.
    assert!(
        refused > cases / 2,
        "only {refused} of {cases} corruptions refused"
    );
}

// ---------------------------------------------------------------------------
// Layouts and constants.
// ---------------------------------------------------------------------------

/// Appends a struct's size and each field's offset and size, in the format of
/// `layout_check.c`. A field written `rust as c` has different names on the
/// two sides.
macro_rules! layout {
    (@name $field:tt as $c_field:ident) => {
        stringify!($c_field)
    };
    (@name $field:tt) => {
        stringify!($field)
    };
    ($out:ident, $c_name:literal, $ty:ty { $($field:tt $(as $c_field:ident)?),* $(,)? }) => {{
        let _ = writeln!($out, "{} size {}", $c_name, size_of::<$ty>());
        let zero = <$ty as bytemuck::Zeroable>::zeroed();
        $(
            let _ = writeln!(
                $out,
                "{}.{} {} {}",
                $c_name,
                layout!(@name $field $(as $c_field)?),
                offset_of!($ty, $field),
                size_of_val(&zero.$field)
            );
        )*
    }};
}

/// A record that has no Rust struct (yet): its documented size and fields.
struct Documented {
    c_name: &'static str,
    size: usize,
    fields: &'static [(&'static str, usize, usize)],
}

/// The `.hanim` header, from `hanim`'s module docs.
const ANIM_HEADER: Documented = Documented {
    c_name: "assetc_anim_header",
    size: hanim::HEADER_BYTES,
    fields: &[
        ("magic", 0, 4),
        ("version", 4, 4),
        ("clip_count", 8, 4),
        ("reserved", 12, 4),
    ],
};

/// Appends a documented record in the format of `layout_check.c`.
fn documented(out: &mut String, record: &Documented) {
    let _ = writeln!(out, "{} size {}", record.c_name, record.size);
    for (field, offset, size) in record.fields {
        let _ = writeln!(out, "{}.{field} {offset} {size}", record.c_name);
    }
}

/// The `.hmesh` records.
fn mesh_layouts(out: &mut String) {
    layout!(
        out,
        "assetc_mesh_file_header",
        FileHeader {
            magic,
            version,
            chunk_count,
            flags,
            reserved1,
            reserved2
        }
    );
    layout!(
        out,
        "assetc_chunk_entry",
        ChunkEntry {
            fourcc,
            flags,
            offset,
            size
        }
    );
    layout!(
        out,
        "assetc_mesh_desc",
        MeshDesc {
            vertex_count,
            index_count,
            meshlet_count,
            submesh_count,
            material_count,
            vertex_stride,
            index_width,
            flags,
            meshlet_max_vertices,
            meshlet_max_triangles
        }
    );
    layout!(
        out,
        "assetc_mesh_bounds",
        MeshBounds {
            aabb_min,
            aabb_max,
            sphere_center,
            sphere_radius
        }
    );
    layout!(
        out,
        "assetc_gpu_vertex",
        GpuVertex {
            position,
            normal,
            tangent,
            uv
        }
    );
    layout!(
        out,
        "assetc_gpu_skin_vertex",
        GpuSkinVertex { joints, weights }
    );
    layout!(
        out,
        "assetc_gpu_joint",
        GpuJoint {
            inverse_bind,
            bind_translation,
            bind_rotation,
            bind_scale,
            parent,
            pad
        }
    );
    layout!(
        out,
        "assetc_meshlet",
        Meshlet {
            vertex_offset,
            vertex_count,
            triangle_offset,
            triangle_count
        }
    );
    layout!(out, "assetc_meshlet_triangle", MeshletTriangle { 0 as indices });
    layout!(
        out,
        "assetc_meshlet_bounds",
        MeshletBounds {
            center,
            radius,
            cone_axis,
            cone_cutoff
        }
    );
    layout!(
        out,
        "assetc_submesh",
        SubMesh {
            first_index,
            index_count,
            first_meshlet,
            meshlet_count,
            material_slot,
            base_vertex,
            bounds
        }
    );
    layout!(
        out,
        "assetc_mesh_lod",
        MeshLod {
            first_index,
            index_count
        }
    );
    layout!(
        out,
        "assetc_lod_table_header",
        LodTableHeader {
            lod_count,
            submesh_count
        }
    );
}

/// The `.hmat`, `.hman`, `.hpack`, `.hanim`, `.hfont` and `.hsnd` records.
fn other_layouts(out: &mut String) {
    layout!(
        out,
        "assetc_mat_file_header",
        MatFileHeader {
            magic,
            version,
            count,
            flags
        }
    );
    layout!(
        out,
        "assetc_gpu_material",
        GpuMaterial {
            base_color_factor,
            emissive_factor,
            metallic_factor,
            roughness_factor,
            normal_scale,
            occlusion_strength,
            alpha_cutoff,
            flags,
            pad,
            base_color_texture,
            metallic_roughness_texture,
            normal_texture,
            occlusion_texture,
            emissive_texture
        }
    );
    layout!(
        out,
        "assetc_man_header",
        ManHeader {
            magic,
            version,
            count,
            reserved
        }
    );
    layout!(
        out,
        "assetc_pack_header",
        PackHeader {
            magic,
            version,
            count,
            flags,
            toc_bytes
        }
    );
    documented(out, &ANIM_HEADER);
    font_layouts(out);
    sound_layouts(out);
    atlas_layouts(out);
}

/// The `.hfont` records.
fn font_layouts(out: &mut String) {
    layout!(
        out,
        "assetc_font_file_header",
        FontFileHeader {
            magic,
            version,
            glyph_count,
            kerning_count,
            atlas_tex_words as atlas_tex,
            ascent,
            descent,
            line_gap,
            distance_range,
            edge_value,
            atlas_width,
            atlas_height,
            flags
        }
    );
    layout!(
        out,
        "assetc_gpu_glyph",
        GpuGlyph {
            codepoint,
            advance,
            plane_left,
            plane_bottom,
            plane_right,
            plane_top,
            uv_left,
            uv_top,
            uv_right,
            uv_bottom
        }
    );
    layout!(
        out,
        "assetc_kerning_pair",
        KerningPair {
            left,
            right,
            advance
        }
    );
}

/// The `.hsnd` record.
fn sound_layouts(out: &mut String) {
    layout!(
        out,
        "assetc_sound_record",
        SoundRecord {
            magic,
            version,
            codec,
            flags,
            rate,
            channels,
            frames,
            loop_start,
            loop_end,
            loudness,
            true_peak,
            sound
        }
    );
}

/// The `.hatlas` records.
fn atlas_layouts(out: &mut String) {
    layout!(
        out,
        "assetc_atlas_header",
        AtlasHeader {
            magic,
            version,
            sprite_count,
            page_count,
            page_width,
            page_height,
            flags,
            reserved,
            atlas_tex,
            name_bytes,
            reserved2
        }
    );
    layout!(
        out,
        "assetc_atlas_sprite",
        AtlasSprite {
            name_hash,
            page,
            flags,
            x,
            y,
            w,
            h,
            trim_x,
            trim_y,
            source_w,
            source_h,
            pivot_x,
            pivot_y,
            duration_ms,
            name_offset,
            name_len,
            reserved
        }
    );
}

/// The constants, in the order `layout_check.c` prints them.
fn constants(out: &mut String) {
    let le = u32::from_le_bytes;
    let mut values: Vec<(String, u64)> = [
        ("HMESH_MAGIC", u64::from(hmesh::MAGIC)),
        ("HMESH_VERSION", hmesh::VERSION.into()),
        ("HMAT_MAGIC", hmat::MAGIC.into()),
        ("HMAT_VERSION", hmat::VERSION.into()),
        ("HMAN_MAGIC", le(hman::MAGIC).into()),
        ("HMAN_VERSION", hman::VERSION.into()),
        ("HANIM_MAGIC", hanim::MAGIC.into()),
        ("HANIM_VERSION", hanim::VERSION.into()),
        ("HFONT_MAGIC", hfont::MAGIC.into()),
        ("HFONT_VERSION", hfont::VERSION.into()),
        ("HPACK_MAGIC", le(hpack::MAGIC).into()),
        ("HPACK_VERSION", hpack::VERSION.into()),
        ("HSND_MAGIC", hsnd::MAGIC.into()),
        ("HSND_VERSION", hsnd::VERSION.into()),
        ("HATLAS_MAGIC", hatlas::MAGIC.into()),
        ("HATLAS_VERSION", hatlas::VERSION.into()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value))
    .collect();
    for id in hmesh::KNOWN_CHUNKS {
        values.push((format!("CHUNK_{}", hmesh::chunk_name(id)), id.into()));
    }
    values.extend(
        [
            ("KNOWN_CHUNK_COUNT", hmesh::KNOWN_CHUNKS.len() as u64),
            ("HMESH_CHUNK_ALIGN", hmesh::CHUNK_ALIGN as u64),
            ("HMESH_VERTEX_STRIDE", size_of::<GpuVertex>() as u64),
            (
                "MESH_FLAG_HAS_TANGENTS",
                hmesh::MESH_FLAG_HAS_TANGENTS.into(),
            ),
            ("MESH_KNOWN_FLAGS", hmesh::KNOWN_MESH_FLAGS.into()),
            ("NO_MATERIAL", hmesh::NO_MATERIAL.into()),
            ("MATERIAL_FLAG_DOUBLE_SIDED", hmat::FLAG_DOUBLE_SIDED.into()),
            ("MATERIAL_ALPHA_MODE_SHIFT", hmat::ALPHA_MODE_SHIFT.into()),
            ("MATERIAL_ALPHA_MODE_MASK", hmat::ALPHA_MODE_MASK.into()),
            ("MATERIAL_KNOWN_FLAGS", hmat::KNOWN_FLAGS.into()),
            ("ALPHA_OPAQUE", AlphaMode::Opaque as u64),
            ("ALPHA_MASK", AlphaMode::Mask as u64),
            ("ALPHA_BLEND", AlphaMode::Blend as u64),
            ("ANIM_TRANSLATION", AnimPath::Translation as u64),
            ("ANIM_ROTATION", AnimPath::Rotation as u64),
            ("ANIM_SCALE", AnimPath::Scale as u64),
            ("ANIM_STEP", Interpolation::Step as u64),
            ("ANIM_LINEAR", Interpolation::Linear as u64),
            ("FONT_FLAG_MSDF", hfont::FLAG_MSDF.into()),
            ("FONT_FLAG_BITMAP", hfont::FLAG_BITMAP.into()),
            ("HSND_BYTES", hsnd::RECORD_BYTES as u64),
            ("SOUND_FLAG_LOOPS", hsnd::FLAG_LOOPS.into()),
            ("SOUND_FLAG_LOUDNESS", hsnd::FLAG_LOUDNESS.into()),
            ("SOUND_KNOWN_FLAGS", hsnd::KNOWN_FLAGS.into()),
            ("SOUND_MAX_CHANNELS", hsnd::MAX_CHANNELS.into()),
            ("SOUND_MAX_RATE", hsnd::MAX_RATE.into()),
            ("SOUND_PCM16", SoundCodec::Pcm16 as u64),
            ("SOUND_QOA", SoundCodec::Qoa as u64),
            ("SOUND_VORBIS", SoundCodec::Vorbis as u64),
            ("SOUND_OPUS", SoundCodec::Opus as u64),
            ("ATLAS_FLAG_NEAREST", hatlas::ATLAS_NEAREST.into()),
            ("ATLAS_FLAG_ANIMATION", hatlas::ATLAS_ANIMATION.into()),
            ("ATLAS_KNOWN_FLAGS", hatlas::KNOWN_FLAGS.into()),
            ("SPRITE_FLAG_ROTATED", hatlas::SPRITE_ROTATED.into()),
            ("ATLAS_MAX_PAGE_SIDE", hatlas::MAX_PAGE_SIDE.into()),
            ("HMAN_HEADER_BYTES", hman::HEADER_BYTES as u64),
            ("HMAN_ENTRY_FIXED_BYTES", hman::ENTRY_FIXED_BYTES as u64),
            ("HPACK_HEADER_BYTES", hpack::HEADER_BYTES as u64),
            ("HPACK_TOC_FIXED_BYTES", hpack::TOC_ENTRY_FIXED_BYTES as u64),
            ("HPACK_PAYLOAD_ALIGN", hpack::PAYLOAD_ALIGN),
            ("HPACK_REMOVED_PATH_BYTES", REMOVED_LIST_PATH.len() as u64),
        ]
        .map(|(name, value)| (name.to_string(), value)),
    );
    use ktx2::{AstcBlock, TexelFormat};
    let vk_formats = [
        ("R8_UNORM", TexelFormat::R8Unorm),
        ("R8G8B8A8_UNORM", TexelFormat::Rgba8 { srgb: false }),
        ("R8G8B8A8_SRGB", TexelFormat::Rgba8 { srgb: true }),
        ("R16_UNORM", TexelFormat::R16Unorm),
        ("R16G16_UNORM", TexelFormat::Rg16Unorm),
        ("R16G16_SFLOAT", TexelFormat::Rg16Float),
        ("R16G16B16A16_UNORM", TexelFormat::Rgba16Unorm),
        ("R16G16B16A16_SFLOAT", TexelFormat::Rgba16Float),
        ("E5B9G9R9_UFLOAT_PACK32", TexelFormat::Rgb9e5),
        ("BC1_RGB_UNORM_BLOCK", TexelFormat::Bc1 { srgb: false }),
        ("BC1_RGB_SRGB_BLOCK", TexelFormat::Bc1 { srgb: true }),
        ("BC4_UNORM_BLOCK", TexelFormat::Bc4),
        ("BC5_UNORM_BLOCK", TexelFormat::Bc5),
        ("BC6H_UFLOAT_BLOCK", TexelFormat::Bc6h),
        ("BC7_UNORM_BLOCK", TexelFormat::Bc7 { srgb: false }),
        ("BC7_SRGB_BLOCK", TexelFormat::Bc7 { srgb: true }),
        (
            "ASTC_4x4_UNORM_BLOCK",
            TexelFormat::Astc {
                block: AstcBlock::B4x4,
                srgb: false,
            },
        ),
        (
            "ASTC_8x8_SRGB_BLOCK",
            TexelFormat::Astc {
                block: AstcBlock::B8x8,
                srgb: true,
            },
        ),
        (
            "ASTC_4x4_SFLOAT_BLOCK",
            TexelFormat::AstcHdr {
                block: AstcBlock::B4x4,
            },
        ),
        (
            "ASTC_8x8_SFLOAT_BLOCK",
            TexelFormat::AstcHdr {
                block: AstcBlock::B8x8,
            },
        ),
    ];
    for (name, format) in vk_formats {
        values.push((format!("VK_FORMAT_{name}"), format.vk_format().into()));
    }
    for (name, value) in values {
        let _ = writeln!(out, "ASSETC_{name} {value}");
    }
    let identifier: Vec<String> = ktx2::IDENTIFIER.iter().map(u8::to_string).collect();
    let _ = writeln!(out, "ASSETC_KTX2_IDENTIFIER {}", identifier.join(" "));
    let removed: Vec<String> = REMOVED_LIST_PATH.bytes().map(|b| b.to_string()).collect();
    let _ = writeln!(out, "ASSETC_HPACK_REMOVED_PATH {}", removed.join(" "));
}

/// The names of the byte enums and the sound codecs for the values 0..9,
/// `-` for unknown values.
fn enum_names(out: &mut String) {
    for byte in 0..10_u8 {
        let asset = AssetKind::from_u8(byte).map_or("-", AssetKind::name);
        let space = ColorSpace::from_u8(byte).map_or("-", ColorSpace::name);
        let pack = PackKind::from_u8(byte).map_or("-", PackKind::name);
        let codec = SoundCodec::from_u32(byte.into()).map_or("-", SoundCodec::name);
        let _ = writeln!(out, "asset_kind {byte} {asset}");
        let _ = writeln!(out, "color_space {byte} {space}");
        let _ = writeln!(out, "pack_kind {byte} {pack}");
        let _ = writeln!(out, "sound_codec {byte} {codec}");
    }
}

/// Ids of the sample refs and runtime files `layout_check.c` hashes.
fn sample_ids(out: &mut String) {
    for text in ["", "a", "court/tex_0", "Court/TEX_0", "café/É"] {
        let _ = writeln!(out, "hash \"{text}\" {:016x}", asset_hash(text));
    }
    let files = [
        (AssetKind::Texture, "models/crate/tex_0.ktx2"),
        (AssetKind::Lut, "grading/warm.lut.ktx2"),
        (AssetKind::Shader, "fx/blur/vertex.spv"),
        (AssetKind::Mesh, "models/crate.hmesh"),
        (AssetKind::Material, "models/crate.hmat"),
        (AssetKind::Texture, "ui/icon.KTX2"),
        (AssetKind::Embed, "data/level1.json"),
        (AssetKind::Font, "ui/inter.hfont"),
    ];
    for (kind, path) in files {
        let _ = writeln!(out, "id {kind} {path} {:016x}", kind.id_for_path(path));
    }
}

/// Everything `layout_check.c` should print, from the Rust crate.
fn expected_layout() -> String {
    let mut out = String::new();
    mesh_layouts(&mut out);
    other_layouts(&mut out);
    constants(&mut out);
    enum_names(&mut out);
    sample_ids(&mut out);
    texel_blocks(&mut out);
    out
}

/// The block of every format of the texel table (UASTC aside, whose
/// vkFormat is 0), and the bytes of a 13x7 image, as `assetc_vk_format_block`
/// and `assetc_image_bytes` must give them.
fn texel_blocks(out: &mut String) {
    let astc_hdr = 1_000_066_000;
    let formats = (0..200)
        .chain(astc_hdr..astc_hdr + 8)
        .filter_map(ktx2::TexelFormat::from_vk_format);
    for format in formats {
        let (width, height) = format.block_dimensions();
        let _ = writeln!(
            out,
            "texel_block {} {width}x{height} {} {}",
            format.vk_format(),
            format.texel_block_size(),
            format.image_bytes(13, 7)
        );
    }
}

#[test]
fn c_layouts_constants_and_ids_match_the_rust_crate() {
    let dir = tempfile::tempdir().expect("temp dir");
    let exe = build_c("layout_check.c", dir.path(), "layout_check", &[]);
    let result = run(&exe, &[]);
    assert_eq!(
        result.code,
        Some(0),
        "layout_check failed:\n{}",
        result.stderr
    );
    assert_same_lines("layout_check (C99)", &result.stdout, &expected_layout());
}

#[test]
fn the_header_compiles_as_cpp17_with_the_same_layouts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let include = include_flag();
    let tiny = c_source("include_twice.cpp").display().to_string();
    let mut args: Vec<&str> = STRICT_CXX.to_vec();
    args.extend(["-fsyntax-only", &include[0], &include[1], &tiny]);
    compile(&cxx_compiler(), &args);

    let exe = dir.path().join("layout_check_cpp").display().to_string();
    let source = c_source("layout_check.c").display().to_string();
    let mut args: Vec<&str> = STRICT_CXX.to_vec();
    args.extend([&include[0], &include[1], "-x", "c++", &source, "-o", &exe]);
    compile(&cxx_compiler(), &args);
    let result = run(Path::new(&exe), &[]);
    assert_eq!(
        result.code,
        Some(0),
        "layout_check failed:\n{}",
        result.stderr
    );
    assert_same_lines("layout_check (C++17)", &result.stdout, &expected_layout());
}
