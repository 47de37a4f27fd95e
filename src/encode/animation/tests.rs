//! The frames of the fixtures in `tests/data/animated/`, made with ffmpeg
//! from three 16x16 frames shown 100, 200 and 300 ms (ffmpeg rounded the
//! times through its 1/25 s clock; the GIF delays, APNG `fcTL` fractions and
//! WebP `ANMF` durations were set back by hand): a blue square on red
//! at (2, 2), the square at (8, 8), and a left half of green beside
//! transparency. ffmpeg stores the later frames as sub-rectangles blended
//! over (or replacing) the earlier ones, so reading them back tests the
//! compositing.

use super::frames::{Container, FramesError, read_frames};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/animated/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The texel at (x, y) of frame `index` as drawn.
fn expected(index: usize, x: u32, y: u32) -> [u8; 4] {
    let square = |x0: u32| (x0..x0 + 5).contains(&x) && (x0..x0 + 5).contains(&y);
    match index {
        0 if square(2) => [0, 0, 255, 255],
        1 if square(8) => [0, 0, 255, 255],
        0 | 1 => [255, 0, 0, 255],
        _ if x < 8 => [0, 255, 0, 255],
        _ => [0, 0, 0, 0],
    }
}

#[test]
fn every_container_gives_the_composited_frames_and_their_times() {
    for (name, container) in [
        ("walk.gif", Container::Gif),
        ("walk.png", Container::Apng),
        ("walk.webp", Container::WebP),
    ] {
        let bytes = fixture(name);
        assert_eq!(Container::sniff(&bytes), Some(container), "{name}");
        let frames = read_frames(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let times: Vec<u32> = frames.iter().map(|f| f.duration_ms).collect();
        assert_eq!(&times[..3], [100, 200, 300], "{name}");
        for (index, frame) in frames.iter().enumerate().take(3) {
            let image = &frame.image;
            assert_eq!((image.width, image.height), (16, 16), "{name}");
            for (i, texel) in image.pixels.chunks_exact(4).enumerate() {
                let (x, y) = (i as u32 % 16, i as u32 / 16);
                let mut want = expected(index, x, y);
                if container == Container::Gif && want[3] == 0 {
                    // ffmpeg's GIF cannot clear texels a frame kept (its
                    // disposal is "leave in place"): it draws them black.
                    want = [0, 0, 0, 255];
                }
                // A fully transparent texel's colour is not drawn; the GIF's
                // palette (ffmpeg's, dithered) moves colours by up to 36
                // levels and libwebp's blending by 1, far less than a wrong
                // composite would.
                let tolerance = match container {
                    Container::Gif => 48,
                    Container::WebP => 2,
                    Container::Apng => 0,
                };
                let close = texel
                    .iter()
                    .zip(want)
                    .all(|(a, b)| a.abs_diff(b) <= tolerance);
                let same = if want[3] == 0 { texel[3] == 0 } else { close };
                assert!(
                    same,
                    "{name} frame {index} ({x}, {y}): {texel:?}, want {want:?}"
                );
            }
        }
    }
}

#[test]
fn still_images_and_damaged_animations_are_refused() {
    let still = crate::encode::image::test_images::small_png();
    assert_eq!(Container::sniff(&still), None);
    assert!(matches!(read_frames(&still), Err(FramesError::NotAnimated)));
    for name in ["walk.gif", "walk.png", "walk.webp"] {
        let bytes = fixture(name);
        let cut = &bytes[..bytes.len() / 2];
        let error = read_frames(cut).expect_err(name);
        assert!(
            matches!(error, FramesError::Corrupt { .. }),
            "{name}: {error}"
        );
    }
}

#[test]
fn a_gif_canvas_past_the_limit_is_refused_before_decoding() {
    let mut bytes = fixture("walk.gif");
    // The logical screen width, bytes 6 and 7, little-endian.
    bytes[6..8].copy_from_slice(&20_000_u16.to_le_bytes());
    let error = read_frames(&bytes).unwrap_err();
    assert!(
        matches!(
            error,
            FramesError::TooLarge { .. } | FramesError::Corrupt { .. }
        ),
        "{error}"
    );
}
