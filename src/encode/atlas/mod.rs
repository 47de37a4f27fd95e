//! Sprite atlases: many small images packed onto the pages of one texture
//! array, plus the `.hatlas` table that says where each sprite went
//! (`docs/atlases.md`).
//!
//! Configure lists an atlas's sprite files (a `*.atlas/` folder's files, or
//! the images a rule sends to `atlas: NAME`) in a list file, one path per
//! line relative to the project root; that list is the edge's input and the
//! sprites are its depfile's inputs. The encoder here:
//!
//! 1. reads every sprite (any image a texture may be, at 8 bits; 16-bit ones
//!    are rounded, float ones refused), names it by its path below the
//!    sprite root without its extension, and refuses two with one name;
//! 2. trims each to its visible texels (`trim`);
//! 3. packs the trimmed sizes ([`pack`]) in an order fixed by size and name;
//! 4. draws the pages ([`pixels`]): each sprite at its place, turned if the
//!    packer turned it, its edge repeated `extrude` texels around it.
//!
//! The pages are then encoded as the layers of a texture array by the same
//! code as a `*.array/` folder (`encode::command`), and the table written
//! with [`write_hatlas`](crate::format::hatlas::write_hatlas).

pub mod pack;
pub mod pixels;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::folder::{MAX_TOTAL_PIXELS, decode_image_file, extension_list, invalid, is_image_name};
use super::image::Rgba8Image;
use super::job::EncodeError;
use crate::format::hash::asset_hash;
use crate::format::hatlas::{AtlasTable, SpriteEntry};
use crate::fsutil;
use pack::{Layout, PackOptions};
use pixels::{Blit, Crop};

/// How to build an atlas.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AtlasOptions {
    /// Page size limit, padding, extrusion and rotation.
    pub pack: PackOptions,
    /// Crop the fully transparent borders of each sprite.
    pub trim: bool,
    /// Every sprite's pivot, in its untrimmed normalised coordinates.
    pub pivot: [f32; 2],
    /// The larger side SVG sprites are drawn at (`None`: their own size).
    pub svg_size: Option<u32>,
}

/// A built atlas: the pages, the table (its `atlas_tex` still 0) and the
/// files read.
#[derive(Debug)]
pub struct Atlas {
    /// The pages, all one size, page 0 first.
    pub pages: Vec<Rgba8Image>,
    /// Where every sprite went.
    pub table: AtlasTable,
    /// The sprite files, for the depfile.
    pub inputs: Vec<PathBuf>,
}

/// One decoded sprite.
struct Sprite {
    /// Its file.
    path: PathBuf,
    /// Its name in the table.
    name: String,
    /// Its texels.
    image: Rgba8Image,
    /// The part kept.
    crop: Crop,
}

/// Builds the atlas whose sprite files `list` names (one root-relative path
/// per line), naming sprites by their path below `sprite_root`.
pub fn build_atlas(
    list: &Path,
    sprite_root: &Path,
    options: &AtlasOptions,
) -> Result<Atlas, EncodeError> {
    let paths = listed_sprites(list)?;
    if paths.is_empty() {
        return Err(invalid(
            sprite_root,
            format!(
                "holds no images: an atlas needs at least one sprite ({})",
                extension_list()
            ),
        ));
    }
    let sprites = read_sprites(&paths, sprite_root, options)?;
    let sizes: Vec<(u32, u32)> = sprites.iter().map(|s| (s.crop.w, s.crop.h)).collect();
    let names: Vec<&str> = sprites.iter().map(|s| s.name.as_str()).collect();
    let layout = pack::pack(&sizes, &names, &options.pack).map_err(|too_large| {
        let sprite = &sprites[too_large.index];
        invalid(
            &sprite.path,
            format!(
                "is {}x{} ({}x{} after trimming, {}x{} with its extrusion), larger than an \
                 atlas page may be ({} texels: atlas.max_size rounded down to a multiple of 4)",
                sprite.image.width,
                sprite.image.height,
                sprite.crop.w,
                sprite.crop.h,
                too_large.width,
                too_large.height,
                too_large.limit
            ),
        )
    })?;
    Ok(Atlas {
        pages: draw_pages(&sprites, &layout, options.pack.extrude),
        table: table(&sprites, &layout, options.pivot),
        inputs: paths,
    })
}

/// The paths a list file names, in its order.
fn listed_sprites(list: &Path) -> Result<Vec<PathBuf>, EncodeError> {
    let text = fsutil::read(list)?;
    let text = String::from_utf8(text).map_err(|_| invalid(list, "is not UTF-8 text".into()))?;
    Ok(text
        .lines()
        .filter(|line| !line.is_empty())
        .map(PathBuf::from)
        .collect())
}

/// Decodes, names and crops every sprite, refusing non-images, float
/// images, repeated names and a total past [`MAX_TOTAL_PIXELS`].
fn read_sprites(
    paths: &[PathBuf],
    sprite_root: &Path,
    options: &AtlasOptions,
) -> Result<Vec<Sprite>, EncodeError> {
    let mut sprites: Vec<Sprite> = Vec::with_capacity(paths.len());
    let mut by_hash: HashMap<u64, usize> = HashMap::new();
    let mut total = 0u64;
    for path in paths {
        let name = sprite_name(path, sprite_root)?;
        if let Some(&first) = by_hash.get(&asset_hash(&name)) {
            return Err(invalid(
                path,
                format!(
                    "is sprite {name:?} again ({} has that name): sprite names are paths \
                     without their extension, compared ignoring ASCII case",
                    sprites[first].path.display()
                ),
            ));
        }
        let image = read_sprite(path, options.svg_size)?;
        total += u64::from(image.width) * u64::from(image.height);
        if total > MAX_TOTAL_PIXELS {
            return Err(invalid(
                path,
                format!("takes the atlas's sprites past {MAX_TOTAL_PIXELS} pixels"),
            ));
        }
        let crop = if options.trim {
            pixels::visible_rect(&image)
        } else {
            pixels::whole(&image)
        };
        by_hash.insert(asset_hash(&name), sprites.len());
        sprites.push(Sprite {
            path: path.clone(),
            name,
            image,
            crop,
        });
    }
    Ok(sprites)
}

/// The name of the sprite at `path`: its path below `sprite_root`,
/// `/`-separated, without its extension.
fn sprite_name(path: &Path, sprite_root: &Path) -> Result<String, EncodeError> {
    let relative = fsutil::slash_relative(sprite_root, path)
        .filter(|rel| !rel.is_empty())
        .ok_or_else(|| {
            invalid(
                path,
                format!("is not a UTF-8 path below {}", sprite_root.display()),
            )
        })?;
    let (folder, file) = relative.rsplit_once('/').unwrap_or(("", &relative));
    let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
    Ok(if folder.is_empty() {
        stem.to_owned()
    } else {
        format!("{folder}/{stem}")
    })
}

/// One sprite's texels at 8 bits.
fn read_sprite(path: &Path, svg_size: Option<u32>) -> Result<Rgba8Image, EncodeError> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    if !is_image_name(&file_name) {
        return Err(invalid(
            path,
            format!(
                "is not an image: an atlas folder may hold only {} files",
                extension_list()
            ),
        ));
    }
    decode_image_file(path, svg_size)?.to_ldr().ok_or_else(|| {
        invalid(
            path,
            "is a float (HDR) image; atlas sprites are 8-bit or 16-bit images".into(),
        )
    })
}

/// The pages, each sprite drawn at its place.
fn draw_pages(sprites: &[Sprite], layout: &Layout, extrude: u32) -> Vec<Rgba8Image> {
    let texels = (layout.width * layout.height * 4) as usize;
    let mut pages: Vec<Rgba8Image> = (0..layout.pages)
        .map(|_| Rgba8Image {
            width: layout.width,
            height: layout.height,
            pixels: vec![0; texels],
        })
        .collect();
    for (sprite, placement) in sprites.iter().zip(&layout.placements) {
        let Some(placement) = placement else { continue };
        let blit = Blit {
            crop: sprite.crop,
            x: placement.x,
            y: placement.y,
            rotated: placement.rotated,
            extrude,
        };
        pixels::blit(&mut pages[placement.page as usize], &sprite.image, &blit);
    }
    pages
}

/// The table: one row per sprite (the writer sorts them).
fn table(sprites: &[Sprite], layout: &Layout, pivot: [f32; 2]) -> AtlasTable {
    let rows = sprites
        .iter()
        .zip(&layout.placements)
        .map(|(sprite, placement)| {
            let crop = sprite.crop;
            let (page, x, y, rotated) =
                placement.map_or((0, 0, 0, false), |p| (p.page, p.x, p.y, p.rotated));
            let (w, h) = if rotated {
                (crop.h, crop.w)
            } else {
                (crop.w, crop.h)
            };
            SpriteEntry {
                name: sprite.name.clone(),
                page,
                rotated,
                rect: [x, y, w, h],
                trim: [crop.x, crop.y],
                source_size: [sprite.image.width, sprite.image.height],
                pivot,
                duration_ms: 0,
            }
        })
        .collect();
    AtlasTable {
        atlas_tex: 0,
        page_count: layout.pages,
        page_width: layout.width,
        page_height: layout.height,
        flags: 0,
        sprites: rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::image::test_images::rgba8_png;
    use crate::format::hatlas::{read_hatlas, write_hatlas};

    const OPTIONS: AtlasOptions = AtlasOptions {
        pack: PackOptions {
            max_size: 64,
            padding: 2,
            extrude: 1,
            rotate: false,
        },
        trim: true,
        pivot: [0.5, 1.0],
        svg_size: None,
    };

    /// A `width` x `height` PNG, transparent but for an opaque `inner`
    /// rect of colour `rgb`.
    fn sprite_png(width: u32, height: u32, inner: Crop, rgb: [u8; 3]) -> Vec<u8> {
        let mut pixels = Vec::new();
        for y in 0..height {
            for x in 0..width {
                let inside = (inner.x..inner.x + inner.w).contains(&x)
                    && (inner.y..inner.y + inner.h).contains(&y);
                pixels.extend(if inside {
                    [rgb[0], rgb[1], rgb[2], 255]
                } else {
                    [0; 4]
                });
            }
        }
        rgba8_png(width, height, &pixels)
    }

    /// Writes `files` under a temporary `root/sprites.atlas/` and its list.
    fn atlas_folder(files: &[(&str, Vec<u8>)]) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sprites.atlas");
        let mut list = String::new();
        for (name, bytes) in files {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
            list += &format!("{}\n", path.display());
        }
        let list_path = dir.path().join("sprites.list");
        std::fs::write(&list_path, list).unwrap();
        (dir, list_path, root)
    }

    fn message(error: EncodeError) -> String {
        crate::encode::job::chained_message(&error)
    }

    #[test]
    fn sprites_are_trimmed_named_and_drawn_where_the_table_says() {
        let inner = Crop {
            x: 2,
            y: 3,
            w: 4,
            h: 5,
        };
        let (_dir, list, root) = atlas_folder(&[
            ("hero.png", sprite_png(10, 12, inner, [200, 10, 10])),
            (
                "ui/coin.png",
                sprite_png(
                    6,
                    6,
                    Crop {
                        x: 0,
                        y: 0,
                        w: 6,
                        h: 6,
                    },
                    [10, 200, 10],
                ),
            ),
        ]);
        let atlas = build_atlas(&list, &root, &OPTIONS).unwrap();
        let table = read_hatlas(&write_hatlas(&atlas.table).unwrap()).unwrap();
        assert_eq!(atlas.pages.len(), 1);
        let hero = table.sprites.iter().find(|s| s.name == "hero").unwrap();
        assert_eq!(hero.trim, [2, 3]);
        assert_eq!(hero.source_size, [10, 12]);
        assert_eq!(&hero.rect[2..], [4, 5]);
        assert_eq!(hero.pivot, [0.5, 1.0]);
        let coin = table.sprites.iter().find(|s| s.name == "ui/coin").unwrap();
        let page = &atlas.pages[0];
        let texel = |x: u32, y: u32| {
            let at = ((y * page.width + x) * 4) as usize;
            page.pixels[at..at + 4].to_vec()
        };
        let [x, y, w, h] = hero.rect;
        assert_eq!(texel(x, y), [200, 10, 10, 255]);
        assert_eq!(texel(x + w - 1, y + h - 1), [200, 10, 10, 255]);
        assert_eq!(texel(x - 1, y - 1), [200, 10, 10, 255], "extruded corner");
        let [cx, cy, ..] = coin.rect;
        assert_eq!(texel(cx, cy), [10, 200, 10, 255]);
        assert_eq!(atlas.inputs.len(), 2);
    }

    #[test]
    fn hostile_folders_name_the_file_at_fault() {
        let (_dir, list, root) = atlas_folder(&[]);
        assert!(
            message(build_atlas(&list, &root, &OPTIONS).unwrap_err())
                .contains("sprites.atlas: holds no images")
        );

        let opaque = sprite_png(
            4,
            4,
            Crop {
                x: 0,
                y: 0,
                w: 4,
                h: 4,
            },
            [1, 2, 3],
        );
        let (_dir, list, root) =
            atlas_folder(&[("a.png", opaque.clone()), ("a.jpg", opaque.clone())]);
        let text = message(build_atlas(&list, &root, &OPTIONS).unwrap_err());
        assert!(
            text.contains("a.png: is sprite \"a\" again")
                || text.contains("a.jpg: is sprite \"a\" again"),
            "{text}"
        );

        let (_dir, list, root) = atlas_folder(&[("notes.txt", b"hi".to_vec())]);
        assert!(
            message(build_atlas(&list, &root, &OPTIONS).unwrap_err())
                .contains("notes.txt: is not an image")
        );

        let mut corrupt = opaque.clone();
        corrupt.truncate(30);
        let (_dir, list, root) = atlas_folder(&[("bad.png", corrupt)]);
        assert!(
            message(build_atlas(&list, &root, &OPTIONS).unwrap_err())
                .contains("bad.png: cannot decode image")
        );

        let big = sprite_png(
            70,
            4,
            Crop {
                x: 0,
                y: 0,
                w: 70,
                h: 4,
            },
            [1, 2, 3],
        );
        let (_dir, list, root) = atlas_folder(&[("big.png", big)]);
        let text = message(build_atlas(&list, &root, &OPTIONS).unwrap_err());
        assert!(text.contains("big.png: is 70x4"), "{text}");
    }

    #[test]
    fn a_fully_transparent_sprite_keeps_its_size_but_takes_no_room() {
        let clear = sprite_png(
            5,
            7,
            Crop {
                x: 0,
                y: 0,
                w: 0,
                h: 0,
            },
            [0; 3],
        );
        let (_dir, list, root) = atlas_folder(&[("clear.png", clear)]);
        let atlas = build_atlas(&list, &root, &OPTIONS).unwrap();
        let row = &atlas.table.sprites[0];
        assert_eq!((row.rect, row.source_size), ([0, 0, 0, 0], [5, 7]));
        assert!(write_hatlas(&atlas.table).is_ok());
    }
}
