//! Patch packs: a small `.hpack` that turns a shipped base pack into a newer
//! one when it is mounted above it.
//!
//! A patch pack is an ordinary pack (any reader of `.hpack` accepts it) that
//! holds every entry of the new pack whose path the base lacks or whose bytes
//! or kind differ from the base's, plus the reserved entry
//! [`REMOVED_LIST_PATH`] listing the base's paths that the new pack dropped
//! (see [`super::removed`]). [`compare`] sorts two packs' entries into added,
//! removed, changed and unchanged ones; [`write_patch`] writes the patch.
//!
//! [`PatchedPack`] mounts a patch above its base: a path is looked up in the
//! patch first; if the patch does not hold it and lists it as removed, it is
//! gone; otherwise the base answers. The reserved list itself is never an
//! asset, so looking up its path finds nothing. Over a patch written from a
//! base and a new pack, every path of the new pack resolves to the new
//! pack's bytes and kind, and no other path resolves at all.

use core::fmt;

use super::error::{FormatError, FormatResult};
use super::hpack::{Pack, PackEntry, PackError, PackItem, write_pack};
use super::removed::{REMOVED_LIST_PATH, RemovedList, parse_removed_list, write_removed_list};

/// One path both packs hold with different bytes (or kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangedEntry<'o, 'n> {
    /// The old pack's entry.
    pub old: PackEntry<'o>,
    /// The new pack's entry.
    pub new: PackEntry<'n>,
}

/// How the entries of a new pack differ from an old one's, each list in path
/// order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackComparison<'o, 'n> {
    /// Entries whose path only the new pack holds.
    pub added: Vec<PackEntry<'n>>,
    /// Entries whose path only the old pack holds.
    pub removed: Vec<PackEntry<'o>>,
    /// Paths both hold, with other bytes or another kind.
    pub changed: Vec<ChangedEntry<'o, 'n>>,
    /// The new pack's entries whose path, kind and bytes the old one has too.
    pub unchanged: Vec<PackEntry<'n>>,
}

/// Compares the entries of `old` and `new` by path, kind and bytes.
pub fn compare<'o, 'n>(old: &Pack<'o>, new: &Pack<'n>) -> PackComparison<'o, 'n> {
    let mut comparison = PackComparison::default();
    for entry in new.iter() {
        match old.find(entry.path) {
            None => comparison.added.push(entry),
            Some(before) if before.kind == entry.kind && old.data(&before) == new.data(&entry) => {
                comparison.unchanged.push(entry);
            }
            Some(before) => comparison.changed.push(ChangedEntry {
                old: before,
                new: entry,
            }),
        }
    }
    comparison.removed = old
        .iter()
        .filter(|entry| new.find(entry.path).is_none())
        .collect();
    comparison
}

/// Why [`write_patch`] refused its packs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchError {
    /// The new pack holds an entry under the reserved [`REMOVED_LIST_PATH`].
    ReservedPathInNew,
    /// The base pack holds [`REMOVED_LIST_PATH`]: it is a patch itself.
    BaseIsPatch,
    /// A path the base holds and the new pack dropped cannot be listed.
    Unlistable(PackError),
    /// The patch could not be laid out.
    Pack(PackError),
}

impl PatchError {
    /// Whether the fault lies in the base pack rather than the new one.
    pub fn blames_base(&self) -> bool {
        matches!(self, PatchError::BaseIsPatch | PatchError::Unlistable(_))
    }
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatchError::ReservedPathInNew => write!(
                f,
                "it holds an entry named {REMOVED_LIST_PATH:?}, a name reserved for the list \
                 of removed paths of a patch pack"
            ),
            PatchError::BaseIsPatch => write!(
                f,
                "it holds {REMOVED_LIST_PATH:?}, so it is a patch pack itself; a patch is made \
                 against a whole pack"
            ),
            PatchError::Unlistable(error) => {
                write!(f, "a path it holds cannot be listed as removed: {error}")
            }
            PatchError::Pack(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for PatchError {}

/// A patch pack's bytes and what they hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenPatch {
    /// The `.hpack` file.
    pub bytes: Vec<u8>,
    /// Entries of the new pack it holds because the base lacks them.
    pub added: usize,
    /// Entries of the new pack it holds because the base's differ.
    pub changed: usize,
    /// Paths its removed list names.
    pub removed: usize,
}

/// Writes the patch pack that turns `base` into `new`: every entry of `new`
/// that is added or changed against `base` (with its kind), plus the list of
/// the paths of `base` that `new` lacks. Deterministic: the bytes depend only
/// on the two packs' entries.
///
/// Refuses a `new` that holds [`REMOVED_LIST_PATH`], a `base` that does (a
/// patch of a patch would need the chain mounted), and a removed path that
/// the list cannot hold (one with a newline).
pub fn write_patch(base: &Pack<'_>, new: &Pack<'_>) -> Result<WrittenPatch, PatchError> {
    if new.find(REMOVED_LIST_PATH).is_some() {
        return Err(PatchError::ReservedPathInNew);
    }
    if base.find(REMOVED_LIST_PATH).is_some() {
        return Err(PatchError::BaseIsPatch);
    }
    let comparison = compare(base, new);
    let list = write_removed_list(comparison.removed.iter().map(|entry| entry.path))
        .map_err(PatchError::Unlistable)?;
    let items: Vec<PackItem<'_>> = comparison
        .added
        .iter()
        .chain(comparison.changed.iter().map(|changed| &changed.new))
        .map(|entry| PackItem {
            path: entry.path,
            kind: entry.kind,
            data: new.data(entry),
        })
        .chain([PackItem::new(REMOVED_LIST_PATH, &list)])
        .collect();
    let bytes = write_pack(&items).map_err(PatchError::Pack)?;
    Ok(WrittenPatch {
        bytes,
        added: comparison.added.len(),
        changed: comparison.changed.len(),
        removed: comparison.removed.len(),
    })
}

/// Which pack of a [`PatchedPack`] answered a lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The patch, mounted above.
    Patch,
    /// The base, below.
    Base,
}

/// An entry found through a [`PatchedPack`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found<'a> {
    /// The entry, as its pack's TOC has it.
    pub entry: PackEntry<'a>,
    /// The pack that holds it.
    pub layer: Layer,
    /// Its payload, borrowed from that pack.
    pub data: &'a [u8],
}

/// A patch pack mounted above its base pack.
#[derive(Debug, Clone)]
pub struct PatchedPack<'a> {
    patch: Pack<'a>,
    base: Pack<'a>,
    removed: RemovedList<'a>,
}

impl<'a> PatchedPack<'a> {
    /// Mounts `patch` above `base`, reading and checking the patch's removed
    /// list. Fails when the patch holds no [`REMOVED_LIST_PATH`] (it is not a
    /// patch pack) or the list is malformed; error offsets count from the
    /// start of the patch file.
    pub fn new(patch: Pack<'a>, base: Pack<'a>) -> FormatResult<Self> {
        let entry = patch.find(REMOVED_LIST_PATH).ok_or_else(|| {
            FormatError::new(
                0,
                "assets.removed",
                format!("the pack holds no {REMOVED_LIST_PATH:?} entry, so it is not a patch pack"),
            )
        })?;
        let removed = parse_removed_list(patch.data(&entry)).map_err(|error| FormatError {
            offset: error.offset.saturating_add(entry.offset),
            ..error
        })?;
        Ok(Self {
            patch,
            base,
            removed,
        })
    }

    /// The entry `path` resolves to: the patch's, else nothing if the patch
    /// lists it as removed, else the base's. The reserved list's own path
    /// resolves to nothing.
    pub fn find(&self, path: &str) -> Option<Found<'a>> {
        if path == REMOVED_LIST_PATH {
            return None;
        }
        if let Some(entry) = self.patch.find(path) {
            return Some(found(&self.patch, entry, Layer::Patch));
        }
        if self.removed.contains(path) {
            return None;
        }
        let entry = self.base.find(path)?;
        Some(found(&self.base, entry, Layer::Base))
    }

    /// The patch pack.
    pub fn patch(&self) -> &Pack<'a> {
        &self.patch
    }

    /// The base pack.
    pub fn base(&self) -> &Pack<'a> {
        &self.base
    }

    /// The paths of the base the patch removes.
    pub fn removed(&self) -> &RemovedList<'a> {
        &self.removed
    }
}

/// `entry` of `pack` as a lookup answer from `layer`.
fn found<'a>(pack: &Pack<'a>, entry: PackEntry<'a>, layer: Layer) -> Found<'a> {
    Found {
        entry,
        layer,
        data: pack.data(&entry),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hpack::parse;
    use crate::format::kind::PackKind;

    fn pack_of(items: &[(&str, &[u8])]) -> Vec<u8> {
        let items: Vec<PackItem<'_>> = items
            .iter()
            .map(|(path, data)| PackItem::new(path, data))
            .collect();
        write_pack(&items).unwrap()
    }

    fn base() -> Vec<u8> {
        pack_of(&[
            ("assets.hman", b"old manifest"),
            ("keep.bin", b"same"),
            ("edit.bin", b"before"),
            ("gone.bin", b"dropped"),
            ("gone/deeper.bin", b"dropped too"),
        ])
    }

    fn new() -> Vec<u8> {
        pack_of(&[
            ("assets.hman", b"new manifest"),
            ("keep.bin", b"same"),
            ("edit.bin", b"after"),
            ("added.bin", b"fresh"),
            ("copy.bin", b"same"),
        ])
    }

    fn paths<'a>(entries: impl IntoIterator<Item = &'a PackEntry<'a>>) -> Vec<&'a str> {
        entries.into_iter().map(|entry| entry.path).collect()
    }

    #[test]
    fn compare_sorts_entries_into_the_four_groups() {
        let (old, new) = (base(), new());
        let (old, new) = (parse(&old).unwrap(), parse(&new).unwrap());
        let comparison = compare(&old, &new);
        assert_eq!(paths(&comparison.added), ["added.bin", "copy.bin"]);
        assert_eq!(paths(&comparison.removed), ["gone.bin", "gone/deeper.bin"]);
        let changed: Vec<(&str, u64, u64)> = comparison
            .changed
            .iter()
            .map(|c| (c.new.path, c.old.size, c.new.size))
            .collect();
        assert_eq!(changed, [("assets.hman", 12, 12), ("edit.bin", 6, 5)]);
        assert_eq!(paths(&comparison.unchanged), ["keep.bin"]);
    }

    #[test]
    fn a_kind_change_alone_is_a_change() {
        let item = |kind| PackItem {
            path: "a.bin",
            kind,
            data: b"x",
        };
        let old = write_pack(&[item(PackKind::Other)]).unwrap();
        let new = write_pack(&[item(PackKind::Mesh)]).unwrap();
        let comparison = compare(&parse(&old).unwrap(), &parse(&new).unwrap());
        assert_eq!(comparison.changed.len(), 1);
    }

    #[test]
    fn a_patch_holds_what_changed_and_lists_what_went() {
        let (old, new) = (base(), new());
        let (old, new) = (parse(&old).unwrap(), parse(&new).unwrap());
        let written = write_patch(&old, &new).unwrap();
        assert_eq!((written.added, written.changed, written.removed), (2, 2, 2));
        let patch = parse(&written.bytes).unwrap();
        assert_eq!(
            paths(patch.entries()),
            [
                "added.bin",
                "assets.hman",
                "assets.removed",
                "copy.bin",
                "edit.bin"
            ]
        );
        let list = patch.find(REMOVED_LIST_PATH).unwrap();
        assert_eq!(patch.data(&list), b"gone.bin\ngone/deeper.bin\n");
        assert_eq!(list.kind, PackKind::Other);
        assert_eq!(write_patch(&old, &new).unwrap(), written, "deterministic");
    }

    #[test]
    fn the_patch_above_its_base_resolves_exactly_the_new_tree() {
        let (old_bytes, new_bytes) = (base(), new());
        let (old, new) = (parse(&old_bytes).unwrap(), parse(&new_bytes).unwrap());
        let patch_bytes = write_patch(&old, &new).unwrap().bytes;
        let patch = parse(&patch_bytes).unwrap();
        let mounted = PatchedPack::new(patch.clone(), old.clone()).unwrap();
        for entry in new.iter() {
            let found = mounted.find(entry.path).unwrap();
            assert_eq!(
                (found.data, found.entry.kind),
                (new.data(&entry), entry.kind)
            );
        }
        assert_eq!(mounted.find("keep.bin").unwrap().layer, Layer::Base);
        assert_eq!(mounted.find("edit.bin").unwrap().layer, Layer::Patch);
        let every_path = patch.iter().chain(old.iter()).map(|entry| entry.path);
        for path in every_path.chain(["nowhere.bin", REMOVED_LIST_PATH]) {
            assert_eq!(
                mounted.find(path).is_some(),
                new.find(path).is_some(),
                "{path}"
            );
        }
        assert_eq!(mounted.removed().paths(), ["gone.bin", "gone/deeper.bin"]);
    }

    #[test]
    fn a_patch_of_identical_packs_holds_only_an_empty_list() {
        let old = base();
        let pack = parse(&old).unwrap();
        let patch = write_patch(&pack, &pack).unwrap();
        let parsed = parse(&patch.bytes).unwrap();
        assert_eq!(paths(parsed.entries()), [REMOVED_LIST_PATH]);
        assert_eq!(parsed.entries()[0].size, 0);
    }

    #[test]
    fn refuses_the_reserved_name_in_the_new_pack_and_a_patch_as_base() {
        let old = base();
        let reserved = pack_of(&[("assets.removed", b"x\n")]);
        let (old, reserved) = (parse(&old).unwrap(), parse(&reserved).unwrap());
        let err = write_patch(&old, &reserved).unwrap_err();
        assert_eq!(err, PatchError::ReservedPathInNew);
        assert!(!err.blames_base());
        assert!(err.to_string().contains("reserved"), "{err}");
        let err = write_patch(&reserved, &old).unwrap_err();
        assert_eq!(err, PatchError::BaseIsPatch);
        assert!(err.blames_base());
    }

    #[test]
    fn refuses_a_removed_path_holding_a_newline() {
        let old = pack_of(&[("two\nlines.bin", b"x")]);
        let new = pack_of(&[]);
        let err = write_patch(&parse(&old).unwrap(), &parse(&new).unwrap()).unwrap_err();
        assert!(err.blames_base());
        assert!(err.to_string().contains("newline"), "{err}");
    }

    #[test]
    fn mounting_needs_a_well_formed_list_and_reports_its_file_offset() {
        let old = base();
        let old = parse(&old).unwrap();
        let plain = new();
        let err = PatchedPack::new(parse(&plain).unwrap(), old.clone()).unwrap_err();
        assert!(err.what.contains("not a patch pack"), "{err}");
        let bad = pack_of(&[("a.bin", b"1"), ("assets.removed", b"b\na\n")]);
        let patch = parse(&bad).unwrap();
        let list_at = patch.find(REMOVED_LIST_PATH).unwrap().offset;
        let err = PatchedPack::new(patch, old).unwrap_err();
        assert_eq!((err.offset, err.field), (list_at + 2, "assets.removed"));
    }

    #[test]
    fn a_listed_path_the_patch_also_holds_is_found_in_the_patch() {
        let old = base();
        let patch = pack_of(&[("keep.bin", b"patched"), ("assets.removed", b"keep.bin\n")]);
        let mounted = PatchedPack::new(parse(&patch).unwrap(), parse(&old).unwrap()).unwrap();
        let found = mounted.find("keep.bin").unwrap();
        assert_eq!((found.layer, found.data), (Layer::Patch, &b"patched"[..]));
    }
}
