//! Tests of the config module through its public API, on real files in
//! temporary folders.

use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use super::*;

/// Writes `text` to `dir/rel`, creating folders, and returns the path.
fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    path
}

/// Loads `text` as an `assetc.yml` in a fresh temporary folder.
fn load(text: &str) -> (TempDir, Config) {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), CONFIG_FILE_NAME, text);
    let config = Config::load(&file).unwrap_or_else(|e| panic!("load failed: {e}"));
    (dir, config)
}

/// Loads `text` and returns the error it must produce.
fn load_error(text: &str) -> ConfigError {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), CONFIG_FILE_NAME, text);
    match Config::load(&file) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(error) => error,
    }
}

/// The line and column of a parse error, or a panic naming the error.
fn parse_position(error: &ConfigError) -> (usize, usize) {
    match error {
        ConfigError::Parse { line, column, .. } => (*line, *column),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

/// Shorthand for the settings of `path` under `preset`.
fn settings(config: &Config, preset: Option<&str>, path: &str) -> Settings {
    config.select(preset, None).unwrap().settings_for(path)
}

/// Shorthand for building expected settings.
fn expect(compress: bool, merge: bool) -> Settings {
    Settings {
        texture: TextureSettings {
            compress,
            format: FormatSetting::from_compress(compress),
            ..TextureSettings::default()
        },
        mesh: MeshSettings {
            merge,
            ..MeshSettings::default()
        },
        font: FontSettings::default(),
        audio: AudioSettings::default(),
        ibl: Default::default(),
        atlas: AtlasSettings::default(),
    }
}

const LAYERED: &str = r#"
default:
  mesh: { merge: false }
  rules:
    - match: "a/*"
      texture: { compress: false }
    - match: "a/b/*"
      texture: { compress: true }
    - match: "ui/*"
      texture: { compress: true }
presets:
  p:
    mesh: { merge: true }
    texture: { compress: false }
    rules:
      - match: "a/b/c/*"
        texture: { compress: false }
      - match: "a/b/c/d/*"
        mesh: { merge: false }
"#;

#[test]
fn built_in_defaults_apply_without_any_layer() {
    let (_dir, config) = load("");
    assert_eq!(settings(&config, None, "x.png"), expect(true, true));
}

#[test]
fn default_globals_override_built_in_defaults() {
    let (_dir, config) = load(LAYERED);
    assert_eq!(settings(&config, None, "x.png"), expect(true, false));
}

#[test]
fn preset_globals_override_default_globals() {
    let (_dir, config) = load(LAYERED);
    assert_eq!(settings(&config, Some("p"), "x.png"), expect(false, true));
}

#[test]
fn default_rules_override_preset_globals() {
    let (_dir, config) = load(LAYERED);
    assert_eq!(settings(&config, Some("p"), "ui/x.png"), expect(true, true));
}

#[test]
fn every_matching_rule_applies_and_the_later_one_wins() {
    let (_dir, config) = load(LAYERED);
    assert_eq!(settings(&config, None, "a/x.png"), expect(false, false));
    assert_eq!(settings(&config, None, "a/b/x.png"), expect(true, false));
}

#[test]
fn preset_rules_beat_default_rules() {
    let (_dir, config) = load(LAYERED);
    assert_eq!(settings(&config, None, "a/b/c/x.png"), expect(true, false));
    assert_eq!(
        settings(&config, Some("p"), "a/b/c/x.png"),
        expect(false, true)
    );
    assert_eq!(
        settings(&config, Some("p"), "a/b/c/d/x.png"),
        expect(false, false)
    );
}

#[test]
fn preset_rules_win_even_when_presets_come_first_in_the_file() {
    let (_dir, config) = load(
        "presets:\n  p:\n    rules:\n      - match: \"*\"\n        texture: { compress: true }\n\
         default:\n  rules:\n    - match: \"*\"\n      texture: { compress: false }\n",
    );
    assert_eq!(settings(&config, None, "x.png"), expect(false, true));
    assert_eq!(settings(&config, Some("p"), "x.png"), expect(true, true));
}

#[test]
fn the_config_preset_is_used_when_the_cli_names_none() {
    let (_dir, config) = load(&format!("preset: p\n{LAYERED}"));
    let selection = config.select(None, None).unwrap();
    assert_eq!(selection.preset.as_deref(), Some("p"));
    assert_eq!(selection.settings_for("x.png"), expect(false, true));
    let other = config.select(Some("p"), None).unwrap();
    assert_eq!(other.preset.as_deref(), Some("p"));
}

#[test]
fn star_spans_folders() {
    let (_dir, config) = load(
        "embed: [\"data/*.json\"]\ndefault:\n  rules:\n    - match: \"*.png\"\n      texture: { compress: false }\n",
    );
    let selection = config.select(None, None).unwrap();
    assert!(!selection.settings_for("deep/down/x.png").texture.compress);
    assert!(selection.settings_for("deep/down/x.jpg").texture.compress);
    assert!(selection.is_embed("data/x.json"));
    assert!(selection.is_embed("data/sub/x.json"));
    assert!(!selection.is_embed("other/x.json"));
}

#[test]
fn question_mark_is_exactly_one_character() {
    let (_dir, config) =
        load("default:\n  rules:\n    - match: \"tex?.png\"\n      texture: { compress: false }\n");
    let selection = config.select(None, None).unwrap();
    assert!(!selection.settings_for("tex1.png").texture.compress);
    assert!(selection.settings_for("tex12.png").texture.compress);
    assert!(selection.settings_for("tex.png").texture.compress);
}

#[test]
fn paths_are_relative_to_the_config_folder() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "proj/assetc.yml", "input: src/art\n");
    let config = Config::load(&file).unwrap();
    let root = dir.path().join("proj");
    assert_eq!(config.file, root.join("assetc.yml"));
    assert_eq!(config.root, root);
    assert_eq!(config.input, root.join("src/art"));
    assert_eq!(config.output, root.join("runtime"));
    assert!(!config.pack);
    assert_eq!(
        config.select(None, None).unwrap().output,
        root.join("runtime")
    );
}

#[test]
fn top_level_values_are_read() {
    let (dir, config) = load("input: ./in\noutput: out\npack: true\nembed: [\"a/*\"]\n");
    assert_eq!(config.input, dir.path().join("in"));
    assert_eq!(config.output, dir.path().join("out"));
    assert!(config.pack);
    assert_eq!(config.embed, vec!["a/*".to_owned()]);
    assert_eq!(config.preset, None);
}

#[test]
fn a_preset_may_redirect_the_output() {
    let (dir, config) = load(
        "output: out\npresets:\n  desktop:\n    output: out/desktop\n  plain:\n  abs:\n    output: /elsewhere\n",
    );
    let output = |preset| config.select(Some(preset), None).unwrap().output;
    assert_eq!(output("desktop"), dir.path().join("out/desktop"));
    assert_eq!(output("plain"), dir.path().join("out"));
    assert_eq!(output("abs"), PathBuf::from("/elsewhere"));
    assert_eq!(
        config.select(None, None).unwrap().output,
        dir.path().join("out")
    );
}

#[test]
fn the_cli_output_overrides_everything_relative_to_the_working_directory() {
    let (_dir, config) = load("output: out\npresets:\n  d:\n    output: out/d\n");
    let relative = config
        .select(Some("d"), Some(Path::new("cli/out")))
        .unwrap();
    let cwd = std::env::current_dir().unwrap();
    assert_eq!(relative.output, cwd.join("cli/out"));
    let absolute = config.select(None, Some(Path::new("/abs/out"))).unwrap();
    assert_eq!(absolute.output, PathBuf::from("/abs/out"));
}

#[test]
fn presets_keep_file_order() {
    let (_dir, config) = load("presets:\n  zeta:\n  alpha:\n  mid: {}\n");
    assert_eq!(config.preset_names(), vec!["zeta", "alpha", "mid"]);
}

#[test]
fn an_unknown_preset_lists_the_available_ones() {
    let (_dir, config) = load("presets:\n  desktop:\n  mobile:\n");
    let error = config.select(Some("console"), None).unwrap_err();
    match &error {
        ConfigError::UnknownPreset {
            name,
            available,
            suggestion,
            place,
        } => {
            assert_eq!(name, "console");
            assert_eq!(available, &["desktop", "mobile"]);
            assert_eq!(suggestion, &None);
            assert_eq!(place, &None, "a command-line name has no place in the file");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        error.to_string(),
        "unknown preset 'console'; available presets: desktop, mobile"
    );
    let typo = config.select(Some("mobil"), None).unwrap_err();
    assert_eq!(
        typo.to_string(),
        "unknown preset 'mobil' (did you mean 'mobile'?); available presets: desktop, mobile"
    );
}

#[test]
fn an_unknown_config_preset_is_an_error_at_its_line() {
    let (dir, config) = load("input: assets\npreset:   deskop\npresets:\n  desktop:\n  mobile:\n");
    let error = config.select(None, None).unwrap_err();
    assert!(matches!(error, ConfigError::UnknownPreset { ref name, .. } if name == "deskop"));
    let file = dir.path().join(CONFIG_FILE_NAME);
    assert_eq!(
        error.to_string(),
        format!(
            "{}:2:11: unknown preset 'deskop' (did you mean 'desktop'?); available presets: desktop, mobile",
            file.display()
        )
    );
    assert!(config.select(Some("mobile"), None).is_ok());
    assert!(config.select(Some("gone"), None).is_err());
}

#[test]
fn discover_finds_the_nearest_config_above() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "assetc.yml", "output: outer\n");
    let inner = write(dir.path(), "proj/assetc.yml", "output: inner\n");
    let nested = dir.path().join("proj/a/b/c");
    fs::create_dir_all(&nested).unwrap();
    let config = Config::discover(&nested).unwrap();
    assert_eq!(config.file, inner);
    assert_eq!(config.output, dir.path().join("proj/inner"));
    let at_root = Config::discover(dir.path()).unwrap();
    assert_eq!(at_root.output, dir.path().join("outer"));
}

#[test]
fn discover_reports_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let start = dir.path().join("a/b");
    fs::create_dir_all(&start).unwrap();
    match Config::discover(&start) {
        Err(ConfigError::NotFound { start: reported }) => assert_eq!(reported, start),
        other => panic!("expected NotFound, got {other:?}"),
    }
}

#[test]
fn an_unknown_key_warns_with_line_and_column() {
    let (dir, config) = load("input: assets\ndefault:\n  texture:\n    compres: false\n");
    assert_eq!(config.warnings.len(), 1, "{:?}", config.warnings);
    let warning = &config.warnings[0];
    assert_eq!((warning.line, warning.column), (4, 5));
    assert!(
        warning
            .message
            .contains("unknown key 'default.texture.compres'"),
        "{}",
        warning.message
    );
    assert!(warning.message.contains("did you mean 'compress'"));
    let shown = warning.to_string();
    let prefix = format!("{}:4:5: ", dir.path().join(CONFIG_FILE_NAME).display());
    assert!(shown.starts_with(&prefix), "{shown}");
    assert_eq!(settings(&config, None, "x.png"), expect(true, true));
}

#[test]
fn unknown_keys_are_found_at_every_depth() {
    let (_dir, config) = load(
        "texure: {}\npresets:\n  mobile:\n    outptu: x\n    rules:\n      - match: \"*\"\n        texure: { compress: false }\n        mesh: { merge: true, simplify: 2 }\n",
    );
    let found: Vec<(usize, usize, &str)> = config
        .warnings
        .iter()
        .map(|w| (w.line, w.column, w.message.as_str()))
        .collect();
    let paths = [
        (1, 1, "'texure'"),
        (4, 5, "'presets.mobile.outptu'"),
        (7, 9, "'presets.mobile.rules[0].texure'"),
        (8, 30, "'presets.mobile.rules[0].mesh.simplify'"),
    ];
    assert_eq!(found.len(), paths.len(), "{found:?}");
    for ((line, column, message), (want_line, want_column, want_path)) in found.iter().zip(paths) {
        assert_eq!((*line, *column), (want_line, want_column), "{message}");
        assert!(message.contains(want_path), "{message}");
    }
}

#[test]
fn a_rule_names_an_atlas_or_sets_its_settings_and_typos_in_either_warn() {
    let (_dir, config) = load(
        "default:\n  atlas: { padding: 4 }\n  rules:\n    - match: \"sprites/**\"\n      atlas: ui/icons\n    - match: \"sprites/big/**\"\n      atlas: { max_size: 512, pivot: [0.5, 1], pading: 1 }\n",
    );
    let warnings: Vec<&str> = config.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("'default.rules[1].atlas.pading' (did you mean 'padding'?)"),
        "{warnings:?}"
    );
    let plain = settings(&config, None, "ui/x.png").atlas;
    assert_eq!((plain.name.0.as_str(), plain.padding.0), ("", 4));
    let small = settings(&config, None, "sprites/a.png").atlas;
    assert_eq!(
        (small.name.0.as_str(), small.max_size.0),
        ("ui/icons", 2048)
    );
    let big = settings(&config, None, "sprites/big/a.png").atlas;
    assert_eq!((big.name.0.as_str(), big.max_size.0), ("ui/icons", 512));
    assert_eq!(big.pivot, Pivot([0.5, 1.0]));
    let error = load_error("default:\n  rules:\n    - match: \"*\"\n      atlas: /abs\n");
    assert!(
        parse_message(&error).contains("is not a relative path"),
        "{error}"
    );
    let error = load_error("default:\n  atlas: { pivot: [1] }\n");
    assert!(
        parse_message(&error).contains("pivot must be two finite numbers"),
        "{error}"
    );
}

#[test]
fn a_type_error_stops_with_its_line() {
    let error = load_error("default:\n  texture:\n    compress: maybe\n");
    assert_eq!(parse_position(&error), (3, 15));
    let error = load_error("pack: false\ndefault:\n  rules: 5\n");
    assert_eq!(parse_position(&error).0, 3);
    assert!(error.to_string().contains(":3:"), "{error}");
}

/// The message of a parse error, without its position.
fn parse_message(error: &ConfigError) -> &str {
    match error {
        ConfigError::Parse { message, .. } => message,
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn a_value_of_the_wrong_type_is_reported_at_the_value_with_its_quotes() {
    let error = load_error("default:\n  mesh:\n    meshlet_vertices: \"big\"\n");
    assert_eq!(parse_position(&error), (3, 23), "{error}");
    assert_eq!(
        parse_message(&error),
        r#"invalid type: string "big", expected a number"#
    );
    let error = load_error("default:\n  mesh:\n    lods: big\n");
    assert_eq!(parse_position(&error), (3, 11), "{error}");
    let error = load_error("default:\n  mesh:\n    meshlet_vertices: \"a\\nb\"\n");
    assert!(
        parse_message(&error).contains(r#"string "a\nb""#),
        "a newline stays on one line: {error}"
    );
}

#[test]
fn a_list_key_given_one_value_says_it_is_a_list() {
    let cases = [
        (
            "embed: \"x\"\n",
            (1, 8),
            r#"'embed' must be a list, e.g. embed: ["x"]"#,
        ),
        (
            "exclude: tmp/*\n",
            (1, 10),
            r#"'exclude' must be a list, e.g. exclude: ["tmp/*"]"#,
        ),
        (
            "processors:\n  - name: p\n    match: \"*.x\"\n    command: c\n    inputs: tool.py\n",
            (5, 13),
            r#"'processors[0].inputs' must be a list, e.g. inputs: ["tool.py"]"#,
        ),
    ];
    for (text, position, message) in cases {
        let error = load_error(text);
        assert_eq!(parse_position(&error), position, "{error}");
        assert_eq!(parse_message(&error), message);
    }
    let rules = load_error("presets:\n  p:\n    rules: \"x\"\n");
    assert_eq!(parse_position(&rules), (3, 12), "{rules}");
    assert!(
        parse_message(&rules).starts_with("'presets.p.rules' must be a list of mappings")
            && parse_message(&rules).contains("match"),
        "{rules}"
    );
    let mapping = load_error("embed:\n  a: b\n");
    assert_eq!(
        parse_message(&mapping),
        "'embed' must be a list: one `- ` item per line, or [a, b]"
    );
}

#[test]
fn a_section_given_a_scalar_says_it_is_a_mapping() {
    let error = load_error("default:\n  mesh: 5\n");
    assert_eq!(parse_position(&error), (2, 9), "{error}");
    assert!(
        parse_message(&error)
            .starts_with("'default.mesh' must be a mapping with keys such as merge, meshlets"),
        "{error}"
    );
    let error = load_error("packs: [a]\n");
    assert_eq!(
        parse_message(&error),
        "'packs' must be a mapping of names to values, one `name: value` line each"
    );
}

#[test]
fn yaml_1_1_booleans_are_not_booleans() {
    let error = load_error("pack: yes\n");
    assert_eq!(parse_position(&error), (1, 7));
}

#[test]
fn bad_yaml_syntax_stops_with_its_line() {
    let error = load_error("input: assets\ndefault: [\n  mesh: {\n");
    assert!(parse_position(&error).0 >= 2, "{error}");
    let error = load_error("input: assets\noutput: a: b\n");
    assert_eq!(parse_position(&error).0, 2);
}

#[test]
fn a_duplicate_key_is_an_error() {
    let error = load_error("default:\n  mesh: { merge: true }\n  mesh: { merge: false }\n");
    assert_eq!(parse_position(&error), (3, 3));
    let shown = error.to_string();
    assert!(shown.contains("assetc.yml:3:3: "), "{shown}");
    assert!(shown.contains("mesh"), "{shown}");
}

#[test]
fn empty_files_are_valid_and_give_defaults() {
    for text in ["", "\n\n", "# nothing here\n", "---\n"] {
        let (dir, config) = load(text);
        assert!(config.warnings.is_empty());
        assert_eq!(config.input, dir.path().join("assets"));
        assert_eq!(config.output, dir.path().join("runtime"));
        assert!(config.preset_names().is_empty());
        assert_eq!(settings(&config, None, "x.png"), Settings::default());
    }
}

#[test]
fn a_bad_glob_is_an_error_with_its_position() {
    let error = load_error("default:\n  rules:\n    - match: \"ok/*\"\n    - match: \"ui/[*\"\n");
    match &error {
        ConfigError::BadGlob {
            file, line, glob, ..
        } => {
            assert!(file.ends_with(CONFIG_FILE_NAME));
            assert_eq!(*line, 4);
            assert_eq!(glob, "ui/[*");
        }
        other => panic!("expected BadGlob, got {other:?}"),
    }
    let embed = load_error("embed:\n  - \"{a,b\"\n");
    assert!(
        matches!(embed, ConfigError::BadGlob { line: 2, .. }),
        "{embed:?}"
    );
    let preset = load_error("presets:\n  p:\n    rules:\n      - match: \"[\"\n");
    assert!(
        matches!(preset, ConfigError::BadGlob { line: 4, .. }),
        "{preset:?}"
    );
}

#[test]
fn a_rule_without_match_is_an_error() {
    let error = load_error("default:\n  rules:\n    - texture: { compress: false }\n");
    assert!(parse_position(&error).0 >= 3, "{error}");
}

#[test]
fn a_missing_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join(CONFIG_FILE_NAME);
    assert!(matches!(
        Config::load(&missing),
        Err(ConfigError::Io { path, .. }) if path == missing
    ));
}

#[test]
fn the_starter_is_written_once_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_starter(dir.path()).unwrap();
    assert_eq!(path, dir.path().join(CONFIG_FILE_NAME));
    assert_eq!(fs::read_to_string(&path).unwrap(), STARTER_CONFIG);
    fs::write(&path, "pack: true\n").unwrap();
    match write_starter(dir.path()) {
        Err(ConfigError::AlreadyExists { path: existing }) => assert_eq!(existing, path),
        other => panic!("expected AlreadyExists, got {other:?}"),
    }
    assert_eq!(fs::read_to_string(&path).unwrap(), "pack: true\n");
}

#[test]
fn the_starter_loads_without_warnings_and_uses_every_key() {
    let (dir, config) = load(STARTER_CONFIG);
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    for key in [
        "input:", "output:", "pack:", "preset:", "embed:", "default:", "presets:",
    ] {
        assert!(STARTER_CONFIG.contains(key), "starter lacks {key}");
    }
    for key in [
        "mesh:",
        "texture:",
        "rules:",
        "match:",
        "merge:",
        "format: auto",
        "platform: mobile",
        "min_psnr:",
        "pixel_art:",
        "font:",
        "charset:",
        "suffixes:",
        "builtin_suffixes:",
    ] {
        assert!(STARTER_CONFIG.contains(key), "starter lacks {key}");
    }
    assert_eq!(config.preset_names(), vec!["desktop", "mobile"]);
    let selection = config.select(None, None).unwrap();
    assert_eq!(selection.output, dir.path().join("runtime/desktop"));
    assert!(!selection.settings_for("ui/button.png").texture.compress);
    assert!(selection.is_embed("data/levels.json"));
}

#[test]
fn merge_keys_and_anchors_work() {
    let (_dir, config) = load(
        "default:\n  texture: &raw { compress: false }\npresets:\n  p:\n    texture:\n      <<: *raw\n",
    );
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    assert!(!settings(&config, Some("p"), "x.png").texture.compress);
}

#[test]
fn texture_knobs_are_read_and_layered() {
    let (_dir, config) = load(
        r#"
default:
  texture: { quality: 1, rdo: 1.5, zstd_level: 9, mips: false, max_size: 512, svg_size: 64 }
presets:
  mobile:
    texture: { quality: 0, rdo: off, hdr_format: rgb9e5 }
"#,
    );
    let desktop = settings(&config, None, "a.png").texture;
    assert_eq!(desktop.quality, UastcQuality(1));
    assert_eq!(desktop.rdo, Rdo(Some(1.5)));
    assert_eq!(desktop.zstd_level, ZstdLevel(9));
    assert!(!desktop.mips);
    assert_eq!(desktop.max_size, 512);
    assert_eq!(desktop.svg_size, 64);
    assert_eq!(desktop.hdr_format, HdrFormatSetting::Rgba16f);
    let mobile = settings(&config, Some("mobile"), "a.png").texture;
    assert_eq!(mobile.hdr_format, HdrFormatSetting::Rgb9e5);
    assert_eq!(mobile.quality, UastcQuality(0));
    assert_eq!(mobile.rdo, Rdo(None));
    assert_eq!(mobile.zstd_level, ZstdLevel(9));
}

#[test]
fn out_of_range_texture_knobs_name_the_line() {
    for (yaml, expected) in [
        (
            "default:\n  texture:\n    quality: 7\n",
            "quality must be 0 to 4",
        ),
        (
            "default:\n  texture:\n    zstd_level: 30\n",
            "zstd_level must be 0 to 22",
        ),
        (
            "default:\n  texture:\n    rdo: on\n",
            "rdo must be `off` or a number",
        ),
        (
            "default:\n  texture:\n    rdo: -2\n",
            "rdo must be `off` or a number",
        ),
        ("default:\n  texture:\n    max_size: big\n", "invalid u32"),
        ("default:\n  texture:\n    svg_size: -1\n", "invalid u32"),
        ("default:\n  texture:\n    hdr_format: rgb16\n", "rgb9e5"),
    ] {
        let error = load_error(yaml);
        let message = error.to_string();
        assert!(message.contains(expected), "{message}");
        assert_eq!(parse_position(&error).0, 3, "{message}");
    }
}

#[test]
fn mesh_knobs_are_read_and_range_checked_with_their_position() {
    let (_dir, config) = load(
        "default:\n  mesh:\n    meshlet_vertices: 128\n    meshlet_triangles: 256\n    cone_weight: 0.5\n    lods: [0.6, 0.3, 0.1]\n    lod_error: 0.01\n",
    );
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let mesh = settings(&config, None, "m.glb").mesh;
    assert_eq!(mesh.meshlet_vertices, MeshletVertices(128));
    assert_eq!(mesh.meshlet_triangles, MeshletTriangles(256));
    assert_eq!(mesh.cone_weight, ConeWeight(0.5));
    assert_eq!(mesh.lods.to_string(), "0.6,0.3,0.1");
    assert_eq!(mesh.lod_error, LodError(0.01));
    for (bad, line) in [
        ("default:\n  mesh:\n    meshlet_vertices: 300\n", 3),
        ("default:\n  mesh:\n    meshlet_triangles: 0\n", 3),
        ("default:\n  mesh:\n    cone_weight: 2\n", 3),
        ("default:\n  mesh:\n    lods: [0.25, 0.5]\n", 3),
        ("default:\n  mesh:\n    lods: 0.5\n", 3),
    ] {
        let error = load_error(bad);
        assert_eq!(parse_position(&error).0, line, "{bad}: {error}");
    }
}

#[test]
fn font_knobs_cascade_through_presets_and_rules() {
    let (_dir, config) = load(
        r#"
default:
  font: { px_per_em: 64, charset: ["0x20-0x7e", "U+0400-U+04FF"] }
  rules:
    - match: "ui/*"
      font: { mode: msdf }
presets:
  mobile:
    font: { spread: 4 }
"#,
    );
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let desktop = settings(&config, None, "fonts/a.ttf").font;
    assert_eq!(desktop.px_per_em, PxPerEm(64));
    assert_eq!(desktop.spread, Spread(6));
    assert_eq!(desktop.mode, FontMode::Sdf);
    assert_eq!(desktop.charset.to_string(), "0x20-0x7e,0x400-0x4ff");
    let (_dir, whole) = load("default:\n  font: { charset: font }\n");
    assert!(settings(&whole, None, "x.ttf").font.charset.is_font());
    let mobile_ui = settings(&config, Some("mobile"), "ui/a.otf").font;
    assert_eq!(mobile_ui.spread, Spread(4));
    assert_eq!(mobile_ui.mode, FontMode::Msdf);
    assert_eq!(
        settings(&config, None, "x.ttf").font.charset.to_string(),
        "0x20-0x7e,0x400-0x4ff"
    );
    let (_dir, plain) = load("pack: false\n");
    assert_eq!(
        settings(&plain, None, "x.ttf").font,
        FontSettings::default()
    );
}

#[test]
fn bad_font_knobs_name_their_line() {
    for (yaml, expected) in [
        (
            "default:\n  font:\n    charset: [\"0x7e-0x20\"]\n",
            "runs backwards",
        ),
        ("default:\n  font:\n    charset: [\"65-90\"]\n", "0x or U+"),
        ("default:\n  font:\n    charset: []\n", "at least one"),
        (
            "default:\n  font:\n    charset: \"0x20-0x7e\"\n",
            "a list of codepoints",
        ),
        ("default:\n  font:\n    charset: fonts\n", "or `font`"),
        (
            "default:\n  font:\n    px_per_em: 4\n",
            "px_per_em must be 8 to 512",
        ),
        (
            "default:\n  font:\n    spread: 0\n",
            "spread must be 1 to 64",
        ),
        ("default:\n  font:\n    mode: bitmap\n", "bitmap"),
    ] {
        let error = load_error(yaml);
        let message = error.to_string();
        assert!(message.contains(expected), "{message}");
        assert_eq!(parse_position(&error).0, 3, "{message}");
    }
}

#[test]
fn exclude_globs_are_a_known_key_and_match_files_and_folders() {
    let (_dir, config) = load("exclude: [\"ui/icon.jpg\", \"raw\", \"**/*.psd\"]\n");
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let selection = config.select(None, None).unwrap();
    assert!(selection.is_excluded("ui/icon.jpg"));
    assert!(!selection.is_excluded("ui/icon.png"));
    assert!(selection.is_excluded("raw"));
    assert!(selection.is_excluded("a/b/c.psd"));
    let error = load_error("exclude:\n  - \"ok\"\n  - \"[z-a\"\n");
    assert!(
        matches!(error, ConfigError::BadGlob { line: 3, .. }),
        "{error}"
    );
}

#[test]
fn texture_naming_settings_cascade_and_their_keys_are_known() {
    let (_dir, config) = load(
        "default:\n  texture:\n    suffixes: { _Spec: gray, -bump: normal_dx }\n  rules:\n    \
         - match: \"ui/**\"\n      texture: { mode: color, builtin_suffixes: false }\n",
    );
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    let plain = settings(&config, None, "t/rock_spec.png").texture;
    assert_eq!(plain.mode, ModeSetting::Auto);
    assert!(plain.builtin_suffixes);
    assert_eq!(plain.suffixes.get("spec"), Some(ModeSetting::Gray));
    assert_eq!(plain.suffixes.get("bump"), Some(ModeSetting::NormalDx));
    let ui = settings(&config, None, "ui/button_normal.png").texture;
    assert_eq!(ui.mode, ModeSetting::Color);
    assert!(!ui.builtin_suffixes);
    let (_dir, typo) = load("default:\n  texture:\n    suffix: { _spec: gray }\n");
    assert!(
        typo.warnings[0].message.contains("did you mean 'suffixes'"),
        "{:?}",
        typo.warnings
    );
    let error = load_error("default:\n  texture:\n    mode: bumpy\n").to_string();
    assert!(error.contains("bumpy"), "{error}");
}

#[test]
fn format_and_compress_follow_the_last_layer_that_sets_either() {
    let (_dir, config) = load(
        "default:\n  texture: { format: bc7 }\n  rules:\n    - match: \"ui/*\"\n      texture: { compress: false }\n    - match: \"ui/raw/*\"\n      texture: { format: astc-6x6 }\n",
    );
    let selection = config.select(None, None).unwrap();
    let format = |path: &str| {
        let texture = selection.settings_for(path).texture;
        (texture.format, texture.compress)
    };
    assert_eq!(format("a.png"), (FormatSetting::Bc7, true));
    assert_eq!(format("ui/a.png"), (FormatSetting::Rgba8, false));
    assert_eq!(format("ui/raw/a.png"), (FormatSetting::Astc6x6, true));
}

#[test]
fn compress_and_format_may_agree_in_one_layer_but_not_disagree() {
    let (_dir, config) =
        load("default:\n  texture: { compress: true, format: bc5, platform: mobile }\n");
    let texture = config
        .select(None, None)
        .unwrap()
        .settings_for("a.png")
        .texture;
    assert_eq!(texture.format, FormatSetting::Bc5);
    assert_eq!(texture.platform, PlatformSetting::Mobile);
    for (yaml, line) in [
        ("default:\n  texture: { compress: false, format: bc7 }\n", 2),
        (
            "presets:\n  p:\n    texture:\n      compress: true\n      format: rgba16f\n",
            5,
        ),
        (
            "default:\n  rules:\n    - match: \"*\"\n      texture: { format: rgba8, compress: true }\n",
            4,
        ),
    ] {
        let error = load_error(yaml).to_string();
        assert!(
            error.contains(&format!("assetc.yml:{line}:")),
            "{yaml}: {error}"
        );
        assert!(error.contains("disagree"), "{error}");
    }
    let error = load_error("default:\n  texture: { format: bc9 }\n").to_string();
    assert!(error.contains("unknown variant `bc9`"), "{error}");
}

#[test]
fn audio_codecs_loops_and_rates_are_read_from_rules() {
    let (_dir, config) = load(concat!(
        "default:\n",
        "  audio: { format: auto, platform: mobile, stream_after: 4.5, rate: 22050 }\n",
        "  rules:\n",
        "    - match: \"music/*\"\n",
        "      audio: { format: vorbis, vorbis_quality: 3, loop: true, loop_start: 2.5s, loop_end: 96000 }\n",
        "    - match: \"sfx/*\"\n",
        "      audio: { loop: false, rate: off, format: opus, opus_bitrate: 48, normalize: peak }\n",
    ));
    let selection = config.select(None, None).unwrap();
    let base = selection.settings_for("a.wav").audio;
    assert_eq!(base.format, AudioFormatSetting::Auto);
    assert_eq!(base.platform, AudioPlatformSetting::Mobile);
    assert_eq!(base.stream_after, StreamAfter(4.5));
    assert_eq!(base.rate, SampleRate(Some(22050)));
    assert_eq!(base.r#loop, LoopSetting::Auto);
    let music = selection.settings_for("music/theme.flac").audio;
    assert_eq!(music.format.codec(), Some(AudioCodec::Vorbis));
    assert_eq!(music.vorbis_quality, VorbisQuality(3.0));
    assert_eq!(music.r#loop, LoopSetting::On);
    assert_eq!(music.loop_start, LoopPoint::Seconds(2.5));
    assert_eq!(music.loop_end, LoopPoint::Frame(96000));
    assert_eq!(music.rate, SampleRate(Some(22050)));
    let sfx = selection.settings_for("sfx/step.wav").audio;
    assert_eq!(sfx.r#loop, LoopSetting::Off);
    assert_eq!(sfx.rate, SampleRate(None));
    assert_eq!(sfx.opus_bitrate, OpusBitrate(48));
    assert_eq!(sfx.normalize, NormalizeSetting::Peak);
    assert_eq!(music.normalize, NormalizeSetting::Loudness);
    for (bad, says) in [
        ("rate: 7999", "rate must be"),
        ("rate: 44100.5", "rate must be"),
        ("format: mp3", "mp3"),
        ("loop_start: -3", "cannot be negative"),
        ("loop_end: 1.5", "write seconds as \"1.5s\""),
        (
            "loop: sometimes",
            "must be one of auto, true, false, not \"sometimes\"",
        ),
        ("normalize: rms", "rms"),
        ("opus_bitrate: 512", "opus_bitrate must be 6 to 256"),
    ] {
        let error = load_error(&format!("default:\n  audio: {{ {bad} }}\n")).to_string();
        assert!(error.contains(says), "{bad}: {error}");
    }
}
