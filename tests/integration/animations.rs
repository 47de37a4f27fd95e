//! Animated images through the real binaries and `ninja`: GIF, APNG and
//! animated WebP become texture arrays of their composited frames, with the
//! frames' times in the KTX2 key/value data; damaged ones fail their edge
//! with the file named and nothing written.

use crate::common::{NATIVE_PRESETS, Project};
use assetc::format::ktx2;

/// The fixture `name` of `tests/data/animated/`.
fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/animated/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The frame count, the frame times and the `KTXanimData` of a built file.
fn animation(p: &Project, rel: &str) -> (u32, Vec<u32>, Option<Vec<u32>>) {
    let bytes = std::fs::read(p.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let view = ktx2::parse(&bytes).unwrap();
    let words = |value: &[u8]| -> Vec<u32> {
        value
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    };
    let times = view
        .key_value("assetc.frameTimes")
        .map(words)
        .unwrap_or_default();
    let anim_data = view.key_value("KTXanimData").map(words);
    (view.header().layer_count, times, anim_data)
}

#[test]
fn gif_apng_and_webp_become_arrays_of_their_frames_with_their_times() {
    let p = Project::new(NATIVE_PRESETS);
    p.write("assets/gif/walk.gif", &fixture("walk.gif"));
    p.write("assets/apng/walk.png", &fixture("walk.png"));
    p.write("assets/webp/walk.webp", &fixture("walk.webp"));
    // One time for every frame: KTXanimData says it too.
    let mut even = fixture("walk.gif");
    let mut at = 0;
    while let Some(found) = even[at..].windows(3).position(|w| w == [0x21, 0xf9, 0x04]) {
        let delay = at + found + 4;
        even[delay..delay + 2].copy_from_slice(&5_u16.to_le_bytes());
        at = delay;
    }
    p.write("assets/gif/even.gif", &even);
    p.build(&["--preset", "mobile"]);
    for (rel, frames, times) in [
        ("gif/walk", 4, vec![100, 200, 300, 300]),
        ("apng/walk", 4, vec![100, 200, 300, 300]),
        ("webp/walk", 3, vec![100, 200, 300]),
    ] {
        let (layers, got, anim_data) = animation(&p, &format!("runtime/mobile/{rel}.ktx2"));
        assert_eq!((layers, got), (frames, times), "{rel}");
        assert_eq!(anim_data, None, "{rel}: the times differ");
    }
    let (layers, times, anim_data) = animation(&p, "runtime/mobile/gif/even.ktx2");
    assert_eq!((layers, times), (4, vec![50; 4]));
    assert_eq!(anim_data, Some(vec![50, 1000, 0]));
    p.link(&["check"]).expect_ok("check");
    p.assert_no_op();
    // The frames of the APNG are exact: pixel art, kept raw.
    let bytes = std::fs::read(p.path("runtime/mobile/apng/walk.ktx2")).unwrap();
    let view = ktx2::parse(&bytes).unwrap();
    assert!(view.wants_nearest());
    let level = view.levels()[0];
    let texels =
        zstd::bulk::decompress(view.level_data(0), level.uncompressed_byte_length as usize)
            .unwrap();
    let frame = 16 * 16 * 4;
    // Frame 1 (the second): the blue square moved to (8, 8); red at (2, 2).
    let texel = |layer: usize, x: usize, y: usize| &texels[layer * frame + (y * 16 + x) * 4..][..4];
    assert_eq!(texel(1, 9, 9), [0, 0, 255, 255]);
    assert_eq!(texel(1, 3, 3), [255, 0, 0, 255]);
    assert_eq!(texel(2, 12, 3)[3], 0, "frame 3's right half is cleared");
}

#[test]
fn damaged_animations_name_the_file_and_write_nothing() {
    let p = Project::new(NATIVE_PRESETS);
    let gif = fixture("walk.gif");
    p.write("assets/cut.gif", &gif[..gif.len() / 2]);
    let mut huge = gif.clone();
    huge[6..8].copy_from_slice(&20_000_u16.to_le_bytes());
    p.write("assets/huge.gif", &huge);
    let png = fixture("walk.png");
    p.write("assets/apng/cut.png", &png[..png.len() - 40]);
    p.assetc(&["configure", "--preset", "desktop"])
        .expect_ok("configure");
    let run = p.ninja(&["-k", "0"]);
    assert!(!run.ok);
    let text = format!("{}{}", run.stdout, run.stderr);
    for name in ["cut.gif", "huge.gif", "apng/cut.png"] {
        assert!(
            text.contains(&format!("assetc-encode: error: assets/{name}")),
            "{name}: {text}"
        );
        let output = name.replace(".gif", ".ktx2").replace(".png", ".ktx2");
        assert!(
            !p.path(&format!("runtime/desktop/{output}")).exists(),
            "{name}"
        );
    }
    assert!(text.contains("cannot read the animation"), "{text}");
}
