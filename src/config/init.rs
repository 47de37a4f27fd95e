//! `assetc init`: the commented starter `assetc.yml` and the function that
//! writes it without ever replacing an existing file.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::CONFIG_FILE_NAME;
use super::error::ConfigError;

/// A commented starter `assetc.yml` that sets every key to a sensible value.
///
/// It loads without warnings; a test keeps it that way.
pub const STARTER_CONFIG: &str = r#"# assetc.yml - settings for the assetc asset compiler.
#
# Every key is optional: delete whatever you do not need and the built-in
# default takes its place. Paths are relative to the folder of this file.

# Folder holding the source assets. Every preset reads the same sources.
input: assets

# Folder the compiled files are written to. A preset may send its build
# somewhere else, and `-o` on the command line beats both.
output: runtime

# Also bundle the whole output folder into a single <output>.hpack file.
pack: false

# Build every asset that can be built even when some fail: the manifest and
# packs leave the failed ones out, <build-dir>/failed.txt lists them, and the
# build still fails. Keep false for CI.
keep_going: false

# Preset used when `--preset` is not given. Remove this line to build with
# the `default` section alone.
preset: desktop

# Sources copied byte for byte instead of compiled (globs, see `rules` below).
embed:
  - "data/*.json"

# Files and folders left out of the build altogether (globs). Use it to rule
# one of two clashing sources away, such as icon.jpg beside icon.png.
# exclude:
#   - "raw/**"

# Your own compilers for sources assetc does not know (docs/processors.md).
# The first processor whose glob matches a file claims it.
# processors:
#   - name: tiled
#     match: "maps/*.tmj"
#     command: python3 tools/processors/tiled.py $in $out $depfile
#     extension: .tmap
#     kind: embed

# Named packs, each <output>.<name>.hpack with its own manifest
# (docs/packs.md).
# packs:
#   preload: ["ui/*"]
#   level1: ["models/*", "maps/*"]

# Asset ids as constants for game code: a C header and a Rust file. `true`
# writes <output>/assets.h and <output>/assets.rs; `false` writes neither; a
# mapping writes the languages it lists, each at a path or `true`.
ids:
  c: true
  rust: true

# Settings shared by every build.
default:
  mesh:
    # true: bake glTF node transforms into one mesh in world space.
    # false: keep each part's geometry in its own local space.
    merge: true
    # Meshlets for mesh shaders and cluster culling (false: none), their
    # limits (3 to 256 vertices, 1 to 512 triangles) and how much they
    # favour tight normal cones (0 to 1).
    meshlets: true
    meshlet_vertices: 64
    meshlet_triangles: 124
    cone_weight: 0.25
    # Reduced levels of detail as fractions of the triangles; [] for none.
    lods: [0.5, 0.25]
    # The simplifier's error budget, relative to the mesh's size.
    lod_error: 0.05
  texture:
    # The GPU format. auto: the native format of `platform` for each
    # texture (desktop: BC7 colour, BC5 normal maps, BC4 masks; mobile:
    # ASTC 6x6, normal maps ASTC 4x4). Or name one for every texture: uastc
    # (one file for every GPU, transcoded when loaded), bc7, bc5, bc4, bc1,
    # astc-4x4 … astc-8x8, or rgba8 (raw with lossless Zstd, exact to the
    # pixel). The presets below set `platform`.
    format: auto
    platform: desktop
    # Encoder effort: 0 (fastest) to 4 (slowest, best).
    quality: 2
    # UASTC only: rate-distortion optimisation, off or a lambda (0.5 to 4 is
    # typical); higher compresses better under Zstandard and looks worse.
    rdo: off
    # Zstandard level of every mip level (1 to 22); 0 stores them as is.
    zstd_level: 12
    # true: the full mip chain; false: the base level only.
    mips: true
    # Halve larger sources until neither side exceeds this; 0: no limit.
    max_size: 0
    # The quality floor of colour textures in dB: an encode that reads back
    # below it steps up to a finer format (ASTC 6x6 -> 5x5 -> 4x4 -> rgba8,
    # BC1 -> BC7 -> rgba8), so small sprites stay sharp. off: no floor.
    min_psnr: 40
    # Pixel art: raw, without mips, with a nearest-filter hint for the
    # engine. auto: decided from the image (few colours, hard edges) and
    # folder names such as pixel_art/; true or false: that, always.
    pixel_art: auto
    # How texels are read. auto: by the name (rock_normal.png is a normal
    # map, rock_NormalDX.png one with green flipped, rock_ao.png grayscale,
    # rock_orm.png linear data; docs/textures.md has the table). color,
    # normal, normal_dx, gray or linear: that, whatever the name.
    mode: auto
    # Name suffixes added to the built-in table, such as { _spec: gray }.
    suffixes: {}
    # false: only assetc's own .n, .ao, .h and .r names select a mode.
    builtin_suffixes: true
    # SVG sources: the larger side in pixels; 0: the file's own size.
    svg_size: 0
    # Float sources (.hdr, .exr, float TIFF). auto: BC6H on desktop, ASTC
    # HDR on mobile; or rgba16f, rgb9e5 (half the size; no alpha, no
    # negatives), bc6h, astc-hdr-6x6.
    hdr_format: auto
  font:
    # Codepoints to compile, as hexadecimal codepoints or ranges (0x or U+);
    # those the font lacks are skipped. This is ASCII plus Latin-1; `font`
    # takes whatever the font covers (Thai, kana, icons …).
    charset: ["0x20-0x7e", "0xa0-0xff"]
    # Atlas texels per em, and how far (in texels) the distance field
    # reaches on each side of an outline.
    px_per_em: 48
    spread: 6
    # sdf: one-channel atlas; msdf: multi-channel, keeps corners sharp.
    mode: sdf
  # Per-path overrides. `match` is a glob over the path inside `input`, with
  # '/' between folders: `*` may cross folders, `?` is exactly one character.
  # Every rule that matches is applied in order, so later rules win.
  rules:
    - match: "ui/*"
      texture:
        # UI art stays exact to the pixel, and is colour even when named
        # like button_normal.png.
        format: rgba8
        mode: color

# Named variants of the build, picked with `--preset <name>`. A preset's
# settings sit on top of `default`, and its rules win over the default rules.
# These two differ in the GPUs they target: `format: auto` writes BCn for
# desktop and ASTC for mobile.
presets:
  desktop:
    output: runtime/desktop
    texture:
      platform: desktop
  mobile:
    output: runtime/mobile
    texture:
      platform: mobile
      # Smaller downloads for slower, one-off compression.
      zstd_level: 18
"#;

/// Writes [`STARTER_CONFIG`] to `dir/assetc.yml` and returns that path.
///
/// The file is created with `create_new`, so an existing file is never
/// replaced ([`ConfigError::AlreadyExists`]), even if one appears concurrently.
/// If writing the contents fails, the partial file is removed.
pub fn write_starter(dir: &Path) -> Result<PathBuf, ConfigError> {
    let path = dir.join(CONFIG_FILE_NAME);
    let io_error = |source: io::Error| ConfigError::Io {
        path: path.clone(),
        source,
    };
    let mut file = match OpenOptions::new().write(true).create_new(true).open(&path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            return Err(ConfigError::AlreadyExists { path });
        }
        Err(error) => return Err(io_error(error)),
    };
    let written = file
        .write_all(STARTER_CONFIG.as_bytes())
        .and_then(|()| file.sync_all());
    if let Err(error) = written {
        drop(file);
        let _ = fs::remove_file(&path);
        return Err(io_error(error));
    }
    Ok(path)
}
