//! A deterministic shelf packer for the atlas.
//!
//! Rectangles are placed tallest first (ties: wider first, then input
//! order) left to right on shelves; a rectangle that does not fit the rest
//! of a shelf opens a new shelf below. Each rectangle keeps [`GAP`] empty
//! texels to its right and below it, and the first row and column of the
//! atlas stay empty too, so no two glyphs touch and bilinear filtering at a
//! glyph quad's edge never reads a neighbour.
//!
//! The atlas width is the smallest power of two (at least 64) that
//! is not below the widest rectangle and not below the square root of the
//! total area, so atlases come out roughly square; the height is what the
//! shelves use, rounded up to a multiple of 4. A shelf packer wastes a
//! little more space than a skyline packer on mixed sizes, but glyph cells of
//! one font at one size are much alike, and the result is easy to predict.

/// Empty texels between rectangles and at the atlas's top and left edges.
pub const GAP: u32 = 1;

/// The narrowest atlas.
const MIN_WIDTH: u32 = 64;

/// Where the packer put everything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packing {
    /// Atlas width.
    pub width: u32,
    /// Atlas height.
    pub height: u32,
    /// Top-left corner of each rectangle, in input order.
    pub positions: Vec<(u32, u32)>,
}

/// Packs rectangles of `sizes` (width, height), none of them empty.
pub fn pack(sizes: &[(u32, u32)]) -> Packing {
    let padded = |&(w, h): &(u32, u32)| (u64::from(w + GAP), u64::from(h + GAP));
    let area: u64 = sizes.iter().map(padded).map(|(w, h)| w * h).sum();
    let widest = sizes.iter().map(padded).map(|(w, _)| w).max().unwrap_or(0);
    let side = (area as f64).sqrt().ceil() as u64;
    let width = (widest + u64::from(GAP))
        .max(side)
        .max(u64::from(MIN_WIDTH))
        .next_power_of_two();
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(sizes[i].1),
            std::cmp::Reverse(sizes[i].0),
            i,
        )
    });
    let mut positions = vec![(0, 0); sizes.len()];
    let (mut x, mut y, mut shelf_height) = (u64::from(GAP), u64::from(GAP), 0u64);
    for index in order {
        let (w, h) = padded(&sizes[index]);
        if x + w > width {
            x = u64::from(GAP);
            y += shelf_height;
            shelf_height = 0;
        }
        positions[index] = (x as u32, y as u32);
        x += w;
        shelf_height = shelf_height.max(h);
    }
    let height = (y + shelf_height).max(1).next_multiple_of(4);
    Packing {
        width: u32::try_from(width).unwrap_or(u32::MAX),
        height: u32::try_from(height).unwrap_or(u32::MAX),
        positions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlaps(a: (u32, u32, u32, u32), b: (u32, u32, u32, u32)) -> bool {
        a.0 < b.0 + b.2 + GAP
            && b.0 < a.0 + a.2 + GAP
            && a.1 < b.1 + b.3 + GAP
            && b.1 < a.1 + a.3 + GAP
    }

    #[test]
    fn rectangles_stay_apart_and_inside() {
        let sizes: Vec<(u32, u32)> = (0..200).map(|i| (5 + i % 23, 7 + (i * 7) % 31)).collect();
        let packing = pack(&sizes);
        assert!(packing.width.is_power_of_two());
        assert_eq!(packing.height % 4, 0);
        let rects: Vec<_> = sizes
            .iter()
            .zip(&packing.positions)
            .map(|(&(w, h), &(x, y))| (x, y, w, h))
            .collect();
        for (i, a) in rects.iter().enumerate() {
            assert!(a.0 >= GAP && a.1 >= GAP);
            assert!(a.0 + a.2 <= packing.width && a.1 + a.3 <= packing.height);
            for b in &rects[i + 1..] {
                assert!(!overlaps(*a, *b), "{a:?} {b:?}");
            }
        }
        let used: u32 = sizes.iter().map(|(w, h)| w * h).sum();
        let efficiency = f64::from(used) / f64::from(packing.width * packing.height);
        assert!(efficiency > 0.5, "{efficiency}");
    }

    #[test]
    fn one_wide_rectangle_sets_the_width() {
        let packing = pack(&[(300, 10), (10, 10)]);
        assert_eq!(packing.width, 512);
        assert_eq!(packing.positions, [(1, 1), (302, 1)]);
        assert_eq!(packing.height, 12);
    }

    #[test]
    fn packing_is_deterministic() {
        let sizes = [(10, 20), (20, 10), (10, 20), (15, 15)];
        assert_eq!(pack(&sizes), pack(&sizes));
        // Equal sizes keep their input order.
        assert_eq!(pack(&sizes).positions[0], (1, 1));
        assert_eq!(pack(&sizes).positions[2], (12, 1));
    }
}
