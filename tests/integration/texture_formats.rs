//! Each texture's format, recorded by the build through real Ninja: every
//! `.ktx2` output's fragment names the format its header describes, the full
//! part carries it, and `assetc-link check` names a texture whose file or
//! record was changed afterwards.

use crate::common::Project;
use assetc::fragment::{Fragment, TextureFormat};

/// UASTC by default, raw RGBA8 under `ui/`; a normal map is linear.
const CONFIG: &str = r#"
input: assets
output: runtime
default:
  texture: { quality: 0 }
  rules:
    - match: "ui/**"
      texture: { compress: false }
"#;

/// The fragment of `source` in the default build folder.
fn fragment_path(p: &Project, source: &str) -> std::path::PathBuf {
    p.path(&format!(".assetc/default/frag/{source}.frag"))
}

/// The project above, built.
fn built() -> Project {
    let p = Project::new(CONFIG);
    p.png("assets/a.png", 8, 8, 1);
    p.png("assets/rock.n.png", 8, 8, 2);
    p.png("assets/ui/b.png", 8, 8, 3);
    p.build(&[]);
    p
}

#[test]
fn every_texture_records_the_format_its_header_describes() {
    let p = built();
    let cases = [
        ("a.png", "a.ktx2", "uastc srgb"),
        ("rock.n.png", "rock.n.ktx2", "uastc linear"),
        ("ui/b.png", "ui/b.ktx2", "rgba8 srgb"),
    ];
    let mut part_text = String::new();
    for entry in std::fs::read_dir(p.path(".assetc/default/link")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "part") {
            part_text.push_str(&std::fs::read_to_string(path).unwrap());
        }
    }
    for (source, output, expected) in cases {
        let fragment = Fragment::read(&fragment_path(&p, source)).unwrap();
        assert_eq!(fragment.formats.len(), 1, "{source}");
        let recorded = &fragment.formats[0];
        assert_eq!(recorded.path, output);
        assert_eq!(recorded.format.to_string(), expected, "{source}");
        let bytes = std::fs::read(p.path(&format!("runtime/{output}"))).unwrap();
        assert_eq!(TextureFormat::of_bytes(&bytes).unwrap(), recorded.format);
        let line = format!("format {expected} {output}\n");
        assert!(part_text.contains(&line), "{line} not in the parts");
    }
    p.link(&["check"]).expect_ok("check");
}

#[test]
fn check_names_a_texture_whose_file_or_record_changed() {
    let p = built();
    let fragment = fragment_path(&p, "a.png");
    let text = std::fs::read_to_string(&fragment).unwrap();
    let tampered = text.replace("format uastc srgb a.ktx2", "format bc7 srgb a.ktx2");
    assert_ne!(tampered, text);
    std::fs::write(&fragment, tampered).unwrap();
    let run = p.link(&["check"]);
    assert!(!run.ok, "check passed a tampered record:\n{}", run.stdout);
    let expected = "a.ktx2: its header says uastc srgb but the build recorded bc7 srgb";
    assert!(
        run.stdout.contains(expected) || run.stderr.contains(expected),
        "{}{}",
        run.stdout,
        run.stderr
    );
    std::fs::write(&fragment, text).unwrap();
    p.link(&["check"])
        .expect_ok("check with the record restored");

    // A raw RGBA8 file put in place of a UASTC one.
    let raw = std::fs::read(p.path("runtime/ui/b.ktx2")).unwrap();
    std::fs::write(p.path("runtime/a.ktx2"), raw).unwrap();
    let run = p.link(&["check"]);
    let output = format!("{}{}", run.stdout, run.stderr);
    assert!(!run.ok, "check passed a swapped file:\n{output}");
    for expected in [
        "a.ktx2: changed since the build wrote it",
        "a.ktx2: its header says rgba8 srgb but the build recorded uastc srgb",
    ] {
        assert!(output.contains(expected), "{expected} not in:\n{output}");
    }
}
