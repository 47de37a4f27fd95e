//! Threads inside one edge: every texture path, cube maps, arrays, fonts
//! and an IBL set (its faces and levels convolved on lent threads) built
//! through real Ninja at one and at four encoder threads
//! (`ASSETC_THREADS`) give the same bytes, and the four-thread build really
//! lent threads (the token log shows them).

use std::collections::BTreeMap;

use crate::common::{Project, rgba_png};

const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

const CONFIG: &str = r#"
input: assets
output: runtime
default:
  texture: { quality: 0, zstd_level: 3 }
  font: { charset: ["0x20-0x7e"], px_per_em: 32 }
  ibl: { size: 32, irradiance: true }
  rules:
    - match: "rdo/*"
      texture: { rdo: 1.0 }
    - match: "bc7/*"
      texture: { format: bc7 }
    - match: "astc/*"
      texture: { format: astc-6x6 }
    - match: "bc6h/*"
      texture: { format: bc6h }
"#;

/// A project whose every texture is large enough to be cut into several
/// strips (16384 blocks each): 1100 wide is 275 blocks a row.
fn project() -> Project {
    let p = Project::new(CONFIG);
    let big = rgba_png(1100, 260, 3);
    for rel in [
        "plain/big.png",
        "rdo/big.png",
        "bc7/big.png",
        "astc/big.png",
        "bc6h/big.png",
    ] {
        p.write(&format!("assets/{rel}"), &big);
    }
    p.write("assets/plain/big.n.png", &rgba_png(1100, 260, 4));
    p.write("assets/plain/big.r.png", &rgba_png(1100, 260, 5));
    for (seed, face) in ["px", "nx", "py", "ny", "pz", "nz"].iter().enumerate() {
        p.write(
            &format!("assets/sky.env/{face}.png"),
            &rgba_png(264, 264, seed as u8),
        );
    }
    for layer in 0..3 {
        p.write(
            &format!("assets/t.array/layer{layer}.png"),
            &rgba_png(600, 300, layer),
        );
    }
    p.write("assets/sky.ibl.hdr", &crate::ibl::hdr_panorama(128, 64));
    let font =
        std::fs::read(DEJAVU).unwrap_or_else(|e| panic!("{DEJAVU}: {e} (run tools/ensure-deps)"));
    p.write("assets/ui/sans.ttf", &font);
    p
}

/// Configures and builds `p` with `threads` encoder threads, logging
/// tokens to `log`; returns the outputs.
fn build(p: &Project, threads: &str, log: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    p.assetc(&["configure"]).expect_ok("configure");
    let log = log.to_str().unwrap();
    let env = [("ASSETC_THREADS", threads), ("ASSETC_JOBSERVER_LOG", log)];
    p.ninja_with(&env, &["-j1"]).expect_ok("ninja");
    p.tree("runtime")
}

#[test]
fn textures_cubes_arrays_fonts_and_ibl_are_the_same_at_one_and_four_threads() {
    let logs = tempfile::tempdir().unwrap();
    let one = project();
    let four = project();
    let single = build(&one, "1", &logs.path().join("one.log"));
    let multi = build(&four, "4", &logs.path().join("four.log"));
    assert_eq!(
        single.keys().collect::<Vec<_>>(),
        multi.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &single {
        assert!(multi[path] == *bytes, "{path} differs at four threads");
    }
    // Thirteen edges besides the link: at one thread none took a token, at
    // four several did.
    let count = |name: &str, event: &str| {
        std::fs::read_to_string(logs.path().join(name))
            .unwrap()
            .lines()
            .filter(|line| line.split(' ').nth(1) == Some(event))
            .count()
    };
    assert_eq!(count("one.log", "acquire"), 0);
    assert!(count("one.log", "start") >= 10);
    assert!(count("four.log", "acquire") >= 10, "threads were not lent");
    assert_eq!(count("four.log", "acquire"), count("four.log", "release"));
}
