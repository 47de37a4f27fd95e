//! Replays the committed fuzz regression corpus: every file under
//! `tests/data/fuzz/<target>/` goes through the body of its fuzz target (see
//! `tests/fuzz/targets.rs` and docs/fuzzing.md). A panic in a reader, or a
//! broken property the target checks, fails the test, and so does a refused
//! `seed-*` file: those are valid files from a real build, and a format change
//! that stops accepting them means the corpus needs new seeds (docs/fuzzing.md).
//! Needs only the `format` module, so it also runs with `--no-default-features`.

#[path = "fuzz/targets.rs"]
mod targets;

use std::collections::BTreeSet;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use assetc::format::hash::asset_hash;
use assetc::format::hatlas::{self, ATLAS_ANIMATION, ATLAS_NEAREST, AtlasTable, SpriteEntry};
use assetc::format::hsnd::{self, SoundCodec, SoundRecord};
use assetc::format::ktx2::{self, Ktx2Image, Ktx2Level, TexelFormat};
use assetc::format::removed;
use targets::{TARGETS, Target};

/// The committed regression corpus, one folder per target.
fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz")
}

/// The fuzz crate's folder of libFuzzer entry points.
fn entry_points() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/fuzz_targets")
}

/// Sorted names of the entries of `dir` whose file names pass `keep`, with
/// `strip` removed from the end.
fn names_in(dir: &Path, strip: &str, keep: impl Fn(&Path) -> bool) -> BTreeSet<String> {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    entries
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .filter(|path| keep(path))
        .filter_map(|path| Some(path.file_name()?.to_str()?.strip_suffix(strip)?.to_owned()))
        .collect()
}

/// The inputs of one target, sorted by name.
fn inputs_of(target: &Target) -> Vec<PathBuf> {
    let dir = corpus_root().join(target.name);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            entry
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .path()
        })
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Prefix of the committed inputs that are valid files from a real build.
const SEED_PREFIX: &str = "seed-";

/// Runs one input through `target`: whether the reader accepted it, or the
/// panic message if it panicked.
fn replay(target: &Target, input: &Path) -> Result<bool, String> {
    let bytes = fs::read(input).map_err(|e| format!("cannot read it: {e}"))?;
    panic::catch_unwind(AssertUnwindSafe(|| (target.run)(&bytes))).map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "a panic without a message".to_owned())
    })
}

#[test]
fn every_corpus_input_replays_without_a_panic() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for target in TARGETS {
        let inputs = inputs_of(target);
        assert!(
            !inputs.is_empty(),
            "tests/data/fuzz/{}/ holds no inputs",
            target.name
        );
        for input in inputs {
            replayed += 1;
            let is_seed = input
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(SEED_PREFIX));
            match replay(target, &input) {
                Err(message) => failures.push(format!("{}: {message}", input.display())),
                Ok(false) if is_seed => {
                    failures.push(format!("{}: a seed file is refused", input.display()))
                }
                Ok(_) => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {replayed} inputs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_targets_table_the_binaries_and_the_corpus_folders_agree() {
    let table: BTreeSet<String> = TARGETS.iter().map(|t| t.name.to_owned()).collect();
    assert_eq!(table.len(), TARGETS.len(), "a target name is listed twice");
    let binaries = names_in(&entry_points(), ".rs", |path| path.is_file());
    assert_eq!(binaries, table, "tests/fuzz/fuzz_targets/ against TARGETS");
    let folders = names_in(&corpus_root(), "", |path| path.is_dir());
    assert_eq!(folders, table, "tests/data/fuzz/ against TARGETS");
}

#[test]
fn every_target_binary_is_declared_in_the_fuzz_manifest() {
    let manifest_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/Cargo.toml");
    let manifest = fs::read_to_string(&manifest_path)
        .unwrap_or_else(|e| panic!("{}: {e}", manifest_path.display()));
    for target in TARGETS {
        let declared = format!(
            "name = \"{0}\"\npath = \"fuzz_targets/{0}.rs\"",
            target.name
        );
        assert!(
            manifest.contains(&declared),
            "tests/fuzz/Cargo.toml has no [[bin]] for {}",
            target.name
        );
    }
}

/// The committed corpus file `folder/name`, first (re)written with `bytes`
/// (its folder created if need be) when the environment variable
/// `write_var` is set: how the tests below keep generated seeds and faults.
fn committed(write_var: &str, folder: &str, name: &str, bytes: &[u8]) -> Vec<u8> {
    let path = corpus_root().join(folder).join(name);
    if std::env::var_os(write_var).is_some() {
        fs::create_dir_all(corpus_root().join(folder)).unwrap();
        fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (see this test's comment)", path.display()))
}

/// One texture of every format of the texel table, as the corpus's
/// `seed-format-<name>.ktx2` files hold them: 13x7 with two levels, so
/// partial blocks and the mip chain are both reached. The block bytes are a
/// fixed pattern (the readers do not decode them).
fn format_seeds() -> Vec<(TexelFormat, String, Vec<u8>)> {
    let astc_hdr = 1_000_066_000;
    let formats = (0..200)
        .chain(astc_hdr..astc_hdr + 8)
        .filter_map(TexelFormat::from_vk_format)
        .chain([TexelFormat::Uastc {
            srgb: true,
            alpha: true,
        }]);
    formats
        .map(|format| {
            let data: Vec<Vec<u8>> = [(13, 7), (6, 3)]
                .into_iter()
                .map(|(w, h)| {
                    let len = format.image_bytes(w, h) as usize;
                    (0..len).map(|i| (i * 37 % 251) as u8).collect()
                })
                .collect();
            let levels: Vec<Ktx2Level> = data
                .iter()
                .map(|level| Ktx2Level {
                    data: level,
                    uncompressed_len: level.len() as u64,
                })
                .collect();
            let file = ktx2::write_ktx2(&Ktx2Image {
                format,
                width: 13,
                height: 7,
                depth: 0,
                layers: 0,
                faces: 1,
                supercompression: ktx2::SUPERCOMPRESSION_NONE,
                swizzle: None,
                levels: &levels,
            });
            let srgb = if format.is_srgb() { "-srgb" } else { "" };
            let name = format!("seed-format-{}{srgb}.ktx2", format.name());
            (format, name, file)
        })
        .collect()
}

/// The corpus holds a seed of every format of the texel table, valid and
/// read back as that format, so the replay reaches each format's checks.
/// `ASSETC_WRITE_FORMAT_SEEDS=1 cargo test --test fuzz_corpus` (re)writes
/// them after a deliberate change of the writer.
#[test]
fn the_corpus_holds_a_seed_of_every_texel_format() {
    let committed =
        |name: &str, bytes: &[u8]| committed("ASSETC_WRITE_FORMAT_SEEDS", "ktx2", name, bytes);
    let seeds = format_seeds();
    for (format, name, bytes) in &seeds {
        let file = committed(name, bytes);
        let view = ktx2::parse(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(view.texel_format(), Some(*format), "{name}");
    }
    let (_, _, astc) = seeds
        .iter()
        .find(|(_, name, _)| name == "seed-format-astc-6x6-srgb.ktx2")
        .expect("an ASTC 6x6 seed");
    for (name, bytes, field) in format_faults(astc) {
        let file = committed(&name, &bytes);
        let error = ktx2::parse(&file).expect_err(&name);
        assert_eq!(error.field, field, "{name}");
    }
}

/// The corpus's `edge-format-*` files: the ASTC 6x6 seed with one field
/// changed so that it disagrees with its `vkFormat`, each refused naming
/// that field.
fn format_faults(astc: &[u8]) -> Vec<(String, Vec<u8>, &'static str)> {
    let dfd = u32::from_le_bytes(astc[48..52].try_into().unwrap()) as usize;
    // (name, byte offset, new value, field)
    let faults = [
        ("type-size", 16, 4, "Ktx2Header.typeSize"),
        ("color-model", dfd + 12, 134, "dfdBlock.colorModel"),
        ("transfer", dfd + 14, 1, "dfdBlock.transferFunction"),
        ("block-width", dfd + 16, 4, "dfdBlock.texelBlockDimension"),
        ("bytes-plane0", dfd + 20, 8, "dfdBlock.bytesPlane0"),
    ];
    faults
        .into_iter()
        .map(|(name, offset, value, field)| {
            let mut bytes = astc.to_vec();
            bytes[offset] = value;
            (format!("edge-format-{name}.ktx2"), bytes, field)
        })
        .collect()
}

/// The corpus's `seed-*.hsnd` records: every codec, with and without a loop
/// and a loudness measurement, one in 5.1. No build writes sounds yet, so
/// they come from `hsnd::write_hsnd`.
fn sound_seeds() -> Vec<(&'static str, SoundRecord)> {
    let record = |codec, rate, channels, frames, path| {
        SoundRecord::new(codec, rate, channels, frames, asset_hash(path))
    };
    vec![
        (
            "seed-click-pcm16.hsnd",
            record(SoundCodec::Pcm16, 22_050, 1, 441, "ui/click.wav"),
        ),
        (
            "seed-engine-loop-qoa.hsnd",
            record(SoundCodec::Qoa, 32_000, 1, 64_000, "car/engine.qoa").with_loop(0, 64_000),
        ),
        (
            "seed-step-vorbis.hsnd",
            record(SoundCodec::Vorbis, 44_100, 2, 22_050, "sfx/step.ogg")
                .with_loudness(-18.25, -3.5),
        ),
        (
            "seed-wind-loop-opus.hsnd",
            record(SoundCodec::Opus, 48_000, 2, 480_000, "amb/wind.opus")
                .with_loop(4_800, 475_200)
                .with_loudness(-23.0, -6.75),
        ),
        (
            "seed-intro-surround-vorbis.hsnd",
            record(SoundCodec::Vorbis, 48_000, 6, 96_000, "music/intro.ogg")
                .with_loop(48_000, 96_000)
                .with_loudness(-16.0, -1.0),
        ),
    ]
}

/// The corpus's `edge-*.hsnd` files: the looping Opus seed (both flags set)
/// with one field broken, each with the field the reader must blame.
fn sound_faults(seed: &[u8]) -> Vec<(String, Vec<u8>, &'static str)> {
    let u32_at = |value: u32| value.to_le_bytes().to_vec();
    // (name, byte offset, new bytes, field)
    let faults = [
        ("magic", 0, b"HSNX".to_vec(), "SoundRecord.magic"),
        ("version", 4, u32_at(2), "SoundRecord.version"),
        ("codec", 8, u32_at(4), "SoundRecord.codec"),
        ("flags", 12, u32_at(7), "SoundRecord.flags"),
        ("loop-without-flag", 12, u32_at(2), "SoundRecord.loopStart"),
        (
            "loudness-without-flag",
            12,
            u32_at(1),
            "SoundRecord.loudness",
        ),
        ("rate-zero", 16, u32_at(0), "SoundRecord.rate"),
        ("channels-nine", 20, u32_at(9), "SoundRecord.channels"),
        (
            "frames-zero",
            24,
            0_u64.to_le_bytes().to_vec(),
            "SoundRecord.frames",
        ),
        (
            "loop-inverted",
            32,
            475_200_u64.to_le_bytes().to_vec(),
            "SoundRecord.loopStart",
        ),
        (
            "loop-past-end",
            40,
            480_001_u64.to_le_bytes().to_vec(),
            "SoundRecord.loopEnd",
        ),
        (
            "loudness-nan",
            48,
            u32_at(f32::NAN.to_bits()),
            "SoundRecord.loudness",
        ),
    ];
    let mut files: Vec<(String, Vec<u8>, &'static str)> = faults
        .into_iter()
        .map(|(name, at, value, field)| {
            let mut bytes = seed.to_vec();
            bytes[at..at + value.len()].copy_from_slice(&value);
            (format!("edge-{name}.hsnd"), bytes, field)
        })
        .collect();
    files.push(("edge-short.hsnd".into(), seed[..63].to_vec(), "SoundRecord"));
    files.push((
        "edge-long.hsnd".into(),
        [seed, &[0]].concat(),
        "SoundRecord",
    ));
    files
}

/// The corpus holds the sound records above, read back as written, and the
/// broken copies, each refused naming its field; the `open` corpus holds
/// one record too. `ASSETC_WRITE_SOUND_SEEDS=1 cargo test --test
/// fuzz_corpus` (re)writes them after a deliberate change of the format.
#[test]
fn the_corpus_holds_the_sound_record_seeds_and_faults() {
    let committed = |folder: &str, name: &str, bytes: &[u8]| {
        committed("ASSETC_WRITE_SOUND_SEEDS", folder, name, bytes)
    };
    let mut opus = Vec::new();
    for (name, record) in sound_seeds() {
        let bytes = hsnd::write_hsnd(&record).unwrap_or_else(|e| panic!("{name}: {e}"));
        let file = committed("hsnd", name, &bytes);
        assert_eq!(hsnd::read_hsnd(&file), Ok(record), "{name}");
        if record.codec() == Some(SoundCodec::Opus) {
            opus = file;
        }
    }
    committed("open", "seed-wind-loop-opus.hsnd", &opus);
    for (name, bytes, field) in sound_faults(&opus) {
        let file = committed("hsnd", &name, &bytes);
        let error = hsnd::read_hsnd(&file).expect_err(&name);
        assert_eq!(error.field, field, "{name}: {error}");
    }
}

/// The corpus's `seed-*.hatlas` tables written by `hatlas::write_hatlas`: a
/// still atlas of two pages (a sprite turned, one without texels, names in
/// folders) and a three-frame animation. (The `seed-built-*` tables come
/// from real builds.)
fn atlas_seeds() -> Vec<(&'static str, AtlasTable)> {
    let sprite = |name: &str, page, rect: [u32; 4]| SpriteEntry {
        name: name.into(),
        page,
        rotated: false,
        rect,
        trim: [2, 1],
        source_size: [rect[2] + 3, rect[3] + 2],
        pivot: [0.5, 0.5],
        duration_ms: 0,
    };
    let mut turned = sprite("ui/arrow", 1, [2, 2, 10, 4]);
    turned.rotated = true;
    turned.source_size = [4, 10];
    turned.trim = [0, 0];
    let still = AtlasTable {
        atlas_tex: asset_hash("ui/icons.atlas"),
        page_count: 2,
        page_width: 32,
        page_height: 16,
        flags: ATLAS_NEAREST,
        sprites: vec![
            sprite("ui/button", 0, [1, 1, 12, 6]),
            sprite("coin", 0, [16, 1, 6, 6]),
            sprite("clear", 0, [0, 0, 0, 0]),
            turned,
        ],
    };
    let walk = AtlasTable {
        atlas_tex: asset_hash("hero/walk.atlas"),
        page_count: 3,
        page_width: 16,
        page_height: 16,
        flags: ATLAS_ANIMATION,
        sprites: (0..3)
            .map(|i| SpriteEntry {
                trim: [0, 0],
                source_size: [16, 16],
                duration_ms: 80 + 20 * i,
                ..sprite(&format!("walk/{i}"), i, [0, 0, 16, 16])
            })
            .collect(),
    };
    vec![
        ("seed-icons.hatlas", still),
        ("seed-walk-frames.hatlas", walk),
    ]
}

/// The corpus's `edge-*.hatlas` files: the still seed with one field
/// broken, each with the field the reader must blame. Row 0 is `coin` (the
/// lowest hash), row 1 `ui/button`.
fn atlas_faults(seed: &[u8]) -> Vec<(String, Vec<u8>, &'static str)> {
    let u32_at = |value: u32| value.to_le_bytes().to_vec();
    let row = |index: usize, field: usize| 48 + 72 * index + field;
    let faults = [
        ("magic", 0, b"HATX".to_vec(), "AtlasHeader.magic"),
        ("version", 4, u32_at(2), "AtlasHeader.version"),
        ("flags", 24, u32_at(4), "AtlasHeader.flags"),
        ("pages-zero", 12, u32_at(0), "AtlasHeader.pageCount"),
        ("page-side", 16, u32_at(16385), "AtlasHeader.pageWidth"),
        ("sprite-page", row(0, 8), u32_at(2), "AtlasSprite.page"),
        ("rect-outside", row(0, 16), u32_at(30), "AtlasSprite.x"),
        ("overlap", row(0, 16), u32_at(8), "AtlasSprite.x"),
        ("trim", row(0, 32), u32_at(9), "AtlasSprite.trimX"),
        (
            "pivot-nan",
            row(0, 48),
            u32_at(f32::NAN.to_bits()),
            "AtlasSprite.pivotX",
        ),
        ("duration", row(0, 56), u32_at(40), "AtlasSprite.durationMs"),
        (
            "name-range",
            row(0, 64),
            u32_at(999),
            "AtlasSprite.nameOffset",
        ),
        ("name-hash", row(0, 0), u32_at(7), "AtlasSprite.nameHash"),
    ];
    let mut files: Vec<(String, Vec<u8>, &'static str)> = faults
        .into_iter()
        .map(|(name, at, value, field)| {
            let mut bytes = seed.to_vec();
            bytes[at..at + value.len()].copy_from_slice(&value);
            (format!("edge-{name}.hatlas"), bytes, field)
        })
        .collect();
    let short = seed[..seed.len() - 1].to_vec();
    files.push(("edge-short.hatlas".into(), short, "AtlasHeader"));
    files.push((
        "edge-long.hatlas".into(),
        [seed, &[0]].concat(),
        "AtlasHeader",
    ));
    files
}

/// The corpus holds the tables above, read back as written, and the broken
/// copies, each refused naming its field; the `open` corpus holds the still
/// table too. `ASSETC_WRITE_ATLAS_SEEDS=1 cargo test --test fuzz_corpus`
/// (re)writes them after a deliberate change of the format.
#[test]
fn the_corpus_holds_the_atlas_table_seeds_and_faults() {
    let committed = |folder: &str, name: &str, bytes: &[u8]| {
        committed("ASSETC_WRITE_ATLAS_SEEDS", folder, name, bytes)
    };
    let mut still = Vec::new();
    for (name, table) in atlas_seeds() {
        let bytes = hatlas::write_hatlas(&table).unwrap_or_else(|e| panic!("{name}: {e}"));
        let file = committed("hatlas", name, &bytes);
        let read = hatlas::read_hatlas(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(read.sprites.len(), table.sprites.len(), "{name}");
        if table.flags & ATLAS_ANIMATION == 0 {
            still = file;
        }
    }
    committed("open", "seed-icons.hatlas", &still);
    for (name, bytes, field) in atlas_faults(&still) {
        let file = committed("hatlas", &name, &bytes);
        let error = hatlas::validate(&file).expect_err(&name);
        assert_eq!(error.field, field, "{name}: {error}");
    }
}

/// The corpus's `assets.removed` lists: valid ones (`seed-*`; the one-path
/// list is what a patch of the demo-like build in
/// `tests/integration/pack_patches.rs` holds), and one `edge-*` file per
/// rule of the list, with the byte offset the reader must report.
fn removed_lists() -> Vec<(&'static str, &'static [u8], Option<u64>)> {
    vec![
        ("seed-empty", b"", None),
        ("seed-one-removed", b"data/zold.bin\n", None),
        (
            "seed-several",
            "Z.bin\nassets.hman\ncaf\u{e9}/menu.ktx2\nlevels/1/map.tmap\nmodels/crate.hmesh\n\
             models/crate/tex_0.ktx2\n"
                .as_bytes(),
            None,
        ),
        ("edge-no-newline", b"a.bin\nb.bin", Some(6)),
        ("edge-unsorted", b"b\na\n", Some(2)),
        ("edge-twice", b"a\na\n", Some(2)),
        ("edge-empty-line", b"a\n\nb\n", Some(2)),
        ("edge-dot-dot", b"a/../b\n", Some(0)),
        ("edge-absolute", b"/a\n", Some(0)),
        ("edge-backslash", b"a\\b\n", Some(0)),
        ("edge-nul", b"a\0b\n", Some(0)),
        ("edge-not-utf8", b"ok\n\xff\n", Some(3)),
        ("edge-overlong", b"\xc0\xaf\n", Some(0)),
        ("edge-surrogate", b"\xed\xa0\x80\n", Some(0)),
    ]
}

/// The corpus holds the lists above: the seeds read back as written, each
/// edge file refused at its offset. `ASSETC_WRITE_REMOVED_SEEDS=1 cargo test
/// --test fuzz_corpus` (re)writes them.
#[test]
fn the_corpus_holds_the_removed_list_seeds_and_faults() {
    for (name, bytes, offset) in removed_lists() {
        let file = committed("ASSETC_WRITE_REMOVED_SEEDS", "removed", name, bytes);
        assert_eq!(file, bytes, "{name}");
        let parsed = removed::parse_removed_list(&file);
        assert_eq!(
            parsed.as_ref().err().map(|e| e.offset),
            offset,
            "{name}: {parsed:?}"
        );
    }
}
