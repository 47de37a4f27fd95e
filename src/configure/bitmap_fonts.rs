//! What configure learns from a BMFont `.fnt` before writing the graph: the
//! page images it names.
//!
//! A page image is compiled into the font's atlas, so it must not also
//! become a texture of its own (as an image a model's material uses is
//! compiled as that model's texture only). Configure reads the `.fnt`'s
//! page records and leaves those images out; the `.fnt` becomes an input of
//! the regeneration edge, so renaming a page re-plans the graph. A `.fnt`
//! that does not parse claims no images: its edge reports the problem.

use std::path::{Path, PathBuf};

use crate::encode::font::bmfont;

/// The pages of one `.fnt`, and the file read to find them.
#[derive(Debug)]
pub struct FontPages {
    /// The page images, as slash paths below the input folder.
    pub images: Vec<String>,
    /// The `.fnt` file, for regeneration.
    pub read: PathBuf,
}

/// The page images of the `.fnt` at `rel` below `input_root`.
pub fn pages(input_root: &Path, rel: &str) -> FontPages {
    let read = input_root.join(rel);
    let folder = rel.rsplit_once('/').map_or("", |(folder, _)| folder);
    let images = std::fs::read(&read)
        .ok()
        .and_then(|bytes| bmfont::parse(&bytes).ok())
        .map(|font| {
            font.pages
                .iter()
                .filter_map(|page| below(folder, &page.file))
                .collect()
        })
        .unwrap_or_default();
    FontPages { images, read }
}

/// `file` (relative to `folder`) as a slash path below the input folder;
/// `None` for a name that leaves the font's folder (the encoder refuses
/// it).
fn below(folder: &str, file: &str) -> Option<String> {
    let parts: Vec<&str> = file
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    if parts.is_empty() || file.starts_with('/') || parts.contains(&"..") {
        return None;
    }
    let name = parts.join("/");
    Some(if folder.is_empty() {
        name
    } else {
        format!("{folder}/{name}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_names_resolve_below_the_fonts_folder() {
        assert_eq!(
            below("ui/fonts", "pix_0.png").as_deref(),
            Some("ui/fonts/pix_0.png")
        );
        assert_eq!(below("", "./pages//p.png").as_deref(), Some("pages/p.png"));
        assert_eq!(below("ui", "../p.png"), None);
        assert_eq!(below("ui", "/etc/p.png"), None);
        assert_eq!(below("ui", ""), None);
    }

    #[test]
    fn reads_the_pages_of_a_font_and_ignores_a_broken_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("ui")).unwrap();
        let text = "info size=8\ncommon lineHeight=8 base=6 scaleW=4 scaleH=4 pages=2\n\
                    page id=0 file=\"a.png\"\npage id=1 file=\"b.png\"\n";
        std::fs::write(dir.path().join("ui/f.fnt"), text).unwrap();
        let found = pages(dir.path(), "ui/f.fnt");
        assert_eq!(found.images, ["ui/a.png", "ui/b.png"]);
        assert_eq!(found.read, dir.path().join("ui/f.fnt"));
        std::fs::write(dir.path().join("ui/f.fnt"), "BMF\x03").unwrap();
        assert!(pages(dir.path(), "ui/f.fnt").images.is_empty());
    }
}
