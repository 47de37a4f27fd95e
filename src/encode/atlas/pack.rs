//! Placing sprite rects on pages: `crunch`'s MaxRects packer (best area
//! fit, largest first), run on a total order of the sprites so the layout
//! depends on nothing but their sizes and names.
//!
//! Each sprite takes its content plus `extrude` texels on every side, and
//! `padding` texels more on its right and bottom. The container is
//! `padding` texels larger than the page, so a sprite's padding may hang past
//! the page's right or bottom edge but its texels never do.
//!
//! When everything fits one `max_size` page, the page shrinks: the smallest
//! square side that still holds it all, then for a few widths at and below
//! that side the smallest height, keeping the least area. Otherwise pages
//! are filled at `max_size` one after the other and the rest takes a last
//! page. Every page gets the size of the largest page's content, rounded up
//! to a multiple of 4 (so block formats tile it).

use crunch::{Item, Rect, Rotation};

/// How to pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackOptions {
    /// The largest page side; only multiples of 4 below it are used.
    pub max_size: u32,
    /// Empty texels between two sprites.
    pub padding: u32,
    /// Texels of edge repeated around each sprite.
    pub extrude: u32,
    /// Whether a sprite may be stored turned 90° clockwise.
    pub rotate: bool,
}

/// Where one sprite's content went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The page.
    pub page: u32,
    /// Left edge of the content (inside its extrusion).
    pub x: u32,
    /// Top edge of the content.
    pub y: u32,
    /// Stored turned 90° clockwise.
    pub rotated: bool,
}

/// The packed pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Width of every page.
    pub width: u32,
    /// Height of every page.
    pub height: u32,
    /// How many pages.
    pub pages: u32,
    /// One per sprite, in the order given; `None` for a sprite without
    /// content (0 x 0), which takes no room.
    pub placements: Vec<Option<Placement>>,
}

/// A sprite that no page can hold: its index, and the side it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge {
    /// The sprite's index in the input.
    pub index: usize,
    /// Width with its extrusion.
    pub width: u32,
    /// Height with its extrusion.
    pub height: u32,
    /// The largest page side used.
    pub limit: u32,
}

/// How many narrower widths the shrinking tries beside the square.
const WIDTH_TRIES: u32 = 8;

/// Packs sprites of content sizes `sizes` (`name` breaks ties in the order,
/// so equal sizes are placed the same way on every run).
pub fn pack(
    sizes: &[(u32, u32)],
    names: &[&str],
    options: &PackOptions,
) -> Result<Layout, TooLarge> {
    let limit = (options.max_size / 4 * 4).max(4);
    let extra = 2 * options.extrude;
    let mut order: Vec<usize> = (0..sizes.len())
        .filter(|&i| sizes[i].0 != 0 && sizes[i].1 != 0)
        .collect();
    for &index in &order {
        let (width, height) = (sizes[index].0 + extra, sizes[index].1 + extra);
        // Pages are square while packing, so turning a sprite never helps it fit.
        if width > limit || height > limit {
            return Err(TooLarge {
                index,
                width,
                height,
                limit,
            });
        }
    }
    let priority = |i: usize| {
        let (w, h) = sizes[i];
        u64::from(w) * u64::from(h) + u64::from(w.max(h))
    };
    order.sort_by(|&a, &b| {
        priority(b)
            .cmp(&priority(a))
            .then_with(|| names[a].cmp(names[b]))
    });
    let items: Vec<Item<usize>> = order
        .iter()
        .map(|&i| {
            let (w, h) = sizes[i];
            let rotation = if options.rotate {
                Rotation::Allowed
            } else {
                Rotation::None
            };
            let grow = |side: u32| (side + extra + options.padding) as usize;
            Item::new(i, grow(w), grow(h), rotation)
        })
        .collect();
    let grown_width: Vec<usize> = sizes
        .iter()
        .map(|&(w, _)| (w + extra + options.padding) as usize)
        .collect();
    let mut placements = vec![None; sizes.len()];
    let mut remaining = items;
    let mut page = 0;
    let (mut width, mut height) = (4, 4);
    while !remaining.is_empty() {
        let packed = match try_pack(&remaining, limit, limit, options.padding) {
            Some(all) => shrink(&remaining, limit, options.padding).unwrap_or(all),
            None => prefix(&remaining, limit, options.padding),
        };
        for item in &packed {
            let index = item.data;
            let rotated = item.rect.w != grown_width[index];
            placements[index] = Some(Placement {
                page,
                x: item.rect.x as u32 + options.extrude,
                y: item.rect.y as u32 + options.extrude,
                rotated,
            });
            width = width.max(round_up_4(item.rect.right() as u32 - options.padding));
            height = height.max(round_up_4(item.rect.bottom() as u32 - options.padding));
        }
        remaining.retain(|item| placements[item.data].is_none());
        page += 1;
    }
    Ok(Layout {
        width: width.min(limit),
        height: height.min(limit),
        pages: page.max(1),
        placements,
    })
}

/// `value` rounded up to a multiple of 4.
fn round_up_4(value: u32) -> u32 {
    value.div_ceil(4) * 4
}

/// Every item packed into a `width` x `height` page, or `None`.
fn try_pack(
    items: &[Item<usize>],
    width: u32,
    height: u32,
    padding: u32,
) -> Option<Vec<crunch::PackedItem<usize>>> {
    let container = Rect::of_size((width + padding) as usize, (height + padding) as usize);
    crunch::pack(container, items.iter().cloned()).ok()
}

/// The items a full `limit` page takes (at least the first, which fits).
fn prefix(items: &[Item<usize>], limit: u32, padding: u32) -> Vec<crunch::PackedItem<usize>> {
    let container = Rect::of_size((limit + padding) as usize, (limit + padding) as usize);
    match crunch::pack(container, items.iter().cloned()) {
        Ok(all) | Err(all) => all,
    }
}

/// The packing of every item into the smallest page found: the least
/// square side (a multiple of 4), then the least height for that width and
/// a few narrower ones, keeping the smallest area. `None` if no page at or
/// below `limit` holds them (the caller has one that does).
fn shrink(
    items: &[Item<usize>],
    limit: u32,
    padding: u32,
) -> Option<Vec<crunch::PackedItem<usize>>> {
    let area: u64 = items.iter().map(|item| item.w as u64 * item.h as u64).sum();
    let floor = ((area as f64).sqrt() as u32).saturating_sub(padding);
    let side = least(floor.min(limit), limit, |side| {
        try_pack(items, side, side, padding).is_some()
    })?;
    let mut best: Option<(u64, Vec<crunch::PackedItem<usize>>)> = None;
    for step in 0..WIDTH_TRIES {
        let Some(width) = side.checked_sub(4 * step).filter(|&w| w >= 4) else {
            break;
        };
        let Some(height) = least(4, side, |height| {
            try_pack(items, width, height, padding).is_some()
        }) else {
            continue;
        };
        let packed = try_pack(items, width, height, padding)?;
        let used = used_area(&packed, padding);
        if best.as_ref().is_none_or(|(area, _)| used < *area) {
            best = Some((used, packed));
        }
    }
    best.map(|(_, packed)| packed)
}

/// The texels a page needs for `packed`, each side rounded up to 4.
fn used_area(packed: &[crunch::PackedItem<usize>], padding: u32) -> u64 {
    let right = packed
        .iter()
        .map(|p| p.rect.right() as u32 - padding)
        .max()
        .unwrap_or(0);
    let bottom = packed
        .iter()
        .map(|p| p.rect.bottom() as u32 - padding)
        .max()
        .unwrap_or(0);
    u64::from(round_up_4(right)) * u64::from(round_up_4(bottom))
}

/// The least multiple of 4 in `low..=high` for which `fits` holds, by binary
/// search (only sizes seen to fit are returned), or `None` if `high` does
/// not fit.
fn least(low: u32, high: u32, fits: impl Fn(u32) -> bool) -> Option<u32> {
    let (mut low, mut high) = (low.div_ceil(4).max(1), high / 4);
    if low > high || !fits(high * 4) {
        return None;
    }
    while low < high {
        let middle = (low + high) / 2;
        if fits(middle * 4) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    Some(high * 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTIONS: PackOptions = PackOptions {
        max_size: 64,
        padding: 2,
        extrude: 1,
        rotate: false,
    };

    /// The texels of sprite `i` with its extrusion, as `(page, x0, y0, x1, y1)`.
    fn extent(
        layout: &Layout,
        sizes: &[(u32, u32)],
        i: usize,
        options: &PackOptions,
    ) -> (u32, u32, u32, u32, u32) {
        let p = layout.placements[i].unwrap();
        let (w, h) = if p.rotated {
            (sizes[i].1, sizes[i].0)
        } else {
            sizes[i]
        };
        let e = options.extrude;
        (p.page, p.x - e, p.y - e, p.x + w + e, p.y + h + e)
    }

    /// Checks that every sprite lies in its page and that any two on one
    /// page keep `padding` texels apart.
    fn check(layout: &Layout, sizes: &[(u32, u32)], options: &PackOptions) {
        let placed: Vec<usize> = (0..sizes.len())
            .filter(|&i| layout.placements[i].is_some())
            .collect();
        for &a in &placed {
            let (page, x0, y0, x1, y1) = extent(layout, sizes, a, options);
            assert!(
                page < layout.pages && x1 <= layout.width && y1 <= layout.height,
                "{a}"
            );
            for &b in placed.iter().filter(|&&b| b > a) {
                let (page_b, bx0, by0, bx1, by1) = extent(layout, sizes, b, options);
                let pad = options.padding;
                let apart = page != page_b
                    || bx0 >= x1 + pad
                    || x0 >= bx1 + pad
                    || by0 >= y1 + pad
                    || y0 >= by1 + pad;
                assert!(apart, "{a} and {b} are closer than the padding");
            }
        }
        assert_eq!(layout.width % 4, 0);
        assert_eq!(layout.height % 4, 0);
    }

    fn names(count: usize) -> Vec<String> {
        (0..count).map(|i| format!("s{i:03}")).collect()
    }

    fn sizes(count: usize) -> Vec<(u32, u32)> {
        (0..count as u32)
            .map(|i| (3 + i * 7 % 13, 2 + i * 5 % 11))
            .collect()
    }

    #[test]
    fn sprites_stay_apart_inside_one_small_page() {
        let sizes = sizes(40);
        let names = names(40);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let options = PackOptions {
            max_size: 256,
            ..OPTIONS
        };
        let layout = pack(&sizes, &names, &options).unwrap();
        assert_eq!(layout.pages, 1);
        check(&layout, &sizes, &options);
        // Against the room each sprite takes with its extrusion and padding.
        let room: u32 = sizes.iter().map(|(w, h)| (w + 4) * (h + 4)).sum();
        let efficiency = f64::from(room) / f64::from(layout.width * layout.height);
        assert!(
            efficiency > 0.75,
            "{efficiency} in {}x{}",
            layout.width,
            layout.height
        );
        assert!(layout.width < 256 && layout.height < 256);
    }

    #[test]
    fn the_layout_ignores_input_order() {
        let sizes = sizes(30);
        let names = names(30);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let layout = pack(&sizes, &names, &OPTIONS).unwrap();
        let mut reversed_sizes = sizes.clone();
        reversed_sizes.reverse();
        let mut reversed_names = names.clone();
        reversed_names.reverse();
        let reversed = pack(&reversed_sizes, &reversed_names, &OPTIONS).unwrap();
        let mut back = reversed.placements.clone();
        back.reverse();
        assert_eq!(
            (reversed.width, reversed.height, reversed.pages),
            (layout.width, layout.height, layout.pages)
        );
        assert_eq!(back, layout.placements);
    }

    #[test]
    fn overflow_takes_more_pages_of_one_size() {
        let sizes = vec![(30, 30); 9];
        let names = names(9);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let layout = pack(&sizes, &names, &OPTIONS).unwrap();
        assert!(layout.pages >= 3, "{}", layout.pages);
        assert!(layout.width <= 64 && layout.height <= 64);
        check(&layout, &sizes, &OPTIONS);
    }

    #[test]
    fn rotation_is_used_only_when_allowed() {
        let sizes = vec![(60, 6); 4];
        let tall = vec![(6, 60); 6];
        let sizes: Vec<(u32, u32)> = sizes.into_iter().chain(tall).collect();
        let names = names(sizes.len());
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let still = pack(&sizes, &names, &OPTIONS).unwrap();
        assert!(still.placements.iter().all(|p| !p.unwrap().rotated));
        check(&still, &sizes, &OPTIONS);
        let options = PackOptions {
            rotate: true,
            ..OPTIONS
        };
        let turned = pack(&sizes, &names, &options).unwrap();
        check(&turned, &sizes, &options);
        assert!(turned.pages <= still.pages);
    }

    #[test]
    fn a_sprite_larger_than_a_page_is_named_and_empty_ones_take_no_room() {
        let sizes = [(4, 4), (63, 10), (0, 0)];
        let names = ["a", "b", "c"];
        let error = pack(&sizes, &names, &OPTIONS).unwrap_err();
        assert_eq!(
            error,
            TooLarge {
                index: 1,
                width: 65,
                height: 12,
                limit: 64
            }
        );
        let layout = pack(&[(4, 4), (0, 0)], &["a", "c"], &OPTIONS).unwrap();
        assert_eq!(layout.placements[1], None);
        assert_eq!((layout.width, layout.height), (8, 8));
        let none = pack(&[(0, 0)], &["c"], &OPTIONS).unwrap();
        assert_eq!((none.width, none.height, none.pages), (4, 4, 1));
    }
}
