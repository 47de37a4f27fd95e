//! `assetc-link pack`: the files every fragment lists, plus a manifest,
//! bundled into one `.hpack`.
//!
//! Two flavours share this code:
//! * the single pack (`pack: true`), `<output>.hpack`: every fragment's files
//!   plus the folder's own `assets.hman`;
//! * a named pack (`packs:`), `<output>.<name>.hpack`, written with
//!   `--own-manifest`: its members' files plus an `assets.hman` built from its
//!   members' fragments alone, so the pack describes itself and can be mounted
//!   without the global manifest.
//!
//! **Identical files are stored once:** files with the same BLAKE3 and size
//! share one payload, placed by the first of them in path order
//! ([`plan_pack`]). The hash of a reused entry is the one its encoder
//! recorded (its bytes were checked against it, or its part is unchanged);
//! every file read from the folder is hashed here. The layout therefore
//! depends only on paths and bytes, as a clean build's does.
//!
//! **Incremental:** rebuilding a pack after an edit does not re-read every
//! file. Each entry of the previous pack (the file being replaced) whose
//! bytes hash to the BLAKE3 value the file's fragment records is taken from
//! it; only the other files (new, changed, or without a record) are read from
//! the output folder. The recorded hash is that of the bytes the encoder
//! wrote, so a reused entry is exactly what a clean build would read, and the
//! new pack is byte for byte the clean build's. Entries of parts that did not
//! change since the step last wrote this very pack file are taken without
//! hashing them ([`super::pack_state`]), and then only the header and TOC of
//! the previous pack are read ([`super::previous_pack`]).
//!
//! **Streamed:** the new pack is laid out first ([`plan_pack`]), then written
//! front to back into its temporary file: read files through a buffer, and
//! each run of reused entries that keep their spacing copied from the
//! previous pack by the kernel, so a one-entry edit of a large pack moves its
//! bytes file to file without this process holding either pack. When the
//! previous pack already holds exactly the planned bytes (same header and
//! TOC, every entry in place) nothing is written, so Ninja's `restat` stops
//! there. Otherwise the file is replaced atomically, so an interrupted link
//! leaves the old pack or the new one. With the environment variable
//! `ASSETC_LINK_STATS` set, the step prints how many entries it reused (and
//! of those, how many without hashing) and read.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::manifest::manifest_bytes;
use super::pack_base::{BaseIndex, index_path};
use super::pack_state::{PackState, identity_of, state_path};
use super::previous_pack::PreviousPack;
use super::{LinkError, part, read_listed};
use crate::format::hman::MANIFEST_FILE;
use crate::format::hpack::{PAYLOAD_ALIGN, PackEntry, PackError, PackPlan, PackSlot, plan_pack};
use crate::format::hpack_layout::{BaseOutcome, plan_pack_over_base};
use crate::format::kind::PackKind;
use crate::fragment::{FileHash, Fragment};
use crate::fsutil::{FileError, read, remove_orphaned_temp, write_atomic_with};

/// The pack of an output folder: `<output>.hpack`, beside the folder.
pub fn pack_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".hpack");
    name.into()
}

/// The named pack `name` of an output folder: `<output>.<name>.hpack`, beside
/// the folder and the single pack. Pack names hold no `.`, so the name and
/// the output folder's own name never run together ambiguously.
pub fn named_pack_path(output: &Path, name: &str) -> PathBuf {
    let mut file = output.as_os_str().to_owned();
    file.push(format!(".{name}.hpack"));
    file.into()
}

/// Where the pack's `assets.hman` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackManifest {
    /// The output folder's `assets.hman`, as the manifest edge wrote it.
    Folder,
    /// Built from the listed fragments (a named pack's subset).
    Own,
}

/// The shipped pack to lay the new one over, and when to give it up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackBase {
    /// The base pack (`--base`); `None` lays the pack out fresh.
    pub base: Option<PathBuf>,
    /// The fraction of the file past which the layout compacts
    /// (`--max-waste`).
    pub max_waste: f64,
}

/// How a pack link got its entries' bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PackStats {
    /// Entries written, the manifest included.
    pub entries: usize,
    /// Files taken from the previous pack.
    pub reused: usize,
    /// Of those, files whose part was unchanged since this step wrote the
    /// pack, taken without hashing them.
    pub trusted: usize,
    /// Files read from the output folder.
    pub read: usize,
    /// How the layout over a base came out, when there was one.
    pub base: Option<BaseOutcome>,
}

/// Writes the pack for the fragments in `list`, reading files below `root`
/// unless the previous pack at `output` already holds their recorded bytes,
/// laid out over `base`'s pack when it names one.
pub fn link_pack(
    list: &Path,
    root: &Path,
    output: &Path,
    manifest: PackManifest,
    base: &PackBase,
) -> Result<PackStats, LinkError> {
    let (parts, fragments) = read_parts(list)?;
    let state_file = state_path(list);
    let state = PackState::load(&state_file);
    let previous = PreviousPack::open(output, state.as_ref().map(|s| s.pack));
    let trusted = state
        .as_ref()
        .filter(|_| previous.as_ref().is_some_and(PreviousPack::is_trusted));
    let wanted = wanted_files(&parts, &fragments, trusted);
    let old = previous.as_ref().and_then(Old::new);
    let mut stats = PackStats::default();
    let mut paths = Vec::with_capacity(wanted.len() + 1);
    let mut sources = Vec::with_capacity(wanted.len() + 1);
    let mut digests = Vec::with_capacity(wanted.len() + 1);
    let mut cursor = 0;
    for file in &wanted {
        let reused = old.as_ref().and_then(|old| old.reusable(file, &mut cursor));
        paths.push(file.path);
        let source = match reused {
            Some((entry, trusted)) => {
                stats.reused += 1;
                stats.trusted += usize::from(trusted);
                Source::Previous(entry)
            }
            None => {
                stats.read += 1;
                Source::Bytes(read(&root.join(file.path))?)
            }
        };
        digests.push(source.digest(file.hash));
        sources.push(source);
    }
    let manifest = Source::Bytes(manifest_of(&fragments, root, output, manifest)?);
    paths.push(MANIFEST_FILE);
    digests.push(manifest.digest(None));
    sources.push(manifest);
    let slots = slots_of(&paths, &sources, &digests);
    let (plan, outcome) = lay_out(&slots, &digests, base, list, output)?;
    stats.base = outcome;
    // Whatever happens to the pack from here, the old record no longer holds.
    PackState::forget(&state_file);
    let write = |file: &File| write_streamed(file, &plan, &sources, old.as_ref());
    let written = if old.as_ref().is_some_and(|old| old.holds(&plan, &sources)) {
        remove_orphaned_temp(output);
        Ok(())
    } else {
        write_atomic_with(output, write)
    };
    written.map_err(|source| FileError::Write {
        path: output.to_owned(),
        source,
    })?;
    if let Some(pack) = identity_of(output) {
        let parts = parts.into_iter().map(|p| (p.listed, p.digest)).collect();
        PackState { pack, parts }.save(&state_file);
    }
    stats.entries = slots.len();
    Ok(stats)
}

/// The layout of `slots` (whose bytes hash to `digests`) for the pack at
/// `output`: over the base pack when `base` names one (its index kept beside
/// `list`), else fresh.
fn lay_out(
    slots: &[PackSlot<'_>],
    digests: &[Option<blake3::Hash>],
    base: &PackBase,
    list: &Path,
    output: &Path,
) -> Result<(PackPlan, Option<BaseOutcome>), LinkError> {
    let cannot = |e: PackError| LinkError::Invalid {
        path: output.to_owned(),
        what: "cannot build the pack".into(),
        source: Some(Box::new(e)),
    };
    let Some(base_path) = &base.base else {
        return Ok((plan_pack(slots).map_err(cannot)?, None));
    };
    let index = BaseIndex::load(base_path, &index_path(list))?;
    let places: Vec<_> = slots
        .iter()
        .zip(digests)
        .map(|(slot, digest)| index.place(slot.path, slot.size, digest.as_ref()))
        .collect();
    let (plan, outcome) =
        plan_pack_over_base(slots, &places, index.shape, base.max_waste).map_err(cannot)?;
    Ok((plan, Some(outcome)))
}

/// Where one entry's bytes come from.
enum Source<'a> {
    /// The previous pack's entry, whose bytes are what a clean build reads.
    Previous(PackEntry<'a>),
    /// Bytes read from the output folder (or built, for a manifest).
    Bytes(Vec<u8>),
}

impl Source<'_> {
    /// The entry's size in bytes.
    fn size(&self) -> u64 {
        match self {
            Source::Previous(entry) => entry.size,
            Source::Bytes(bytes) => bytes.len() as u64,
        }
    }

    /// The BLAKE3 of the entry's bytes: hashed here for bytes just read, the
    /// `recorded` hash for an entry of the previous pack (which holds the
    /// recorded bytes: they were hashed, or their part is unchanged).
    fn digest(&self, recorded: Option<&FileHash>) -> Option<blake3::Hash> {
        match self {
            Source::Previous(_) => recorded.and_then(|h| blake3::Hash::from_hex(&h.blake3).ok()),
            Source::Bytes(bytes) => Some(blake3::hash(bytes)),
        }
    }
}

/// The pack's slots: each path with its kind, its size and, as its content,
/// the index of the first file with the same digest, so that files with
/// identical bytes share one payload.
fn slots_of<'p>(
    paths: &[&'p str],
    sources: &[Source<'_>],
    digests: &[Option<blake3::Hash>],
) -> Vec<PackSlot<'p>> {
    let mut first_with: HashMap<blake3::Hash, usize> = HashMap::new();
    paths
        .iter()
        .zip(sources)
        .zip(digests)
        .enumerate()
        .map(|(index, ((path, source), digest))| PackSlot {
            path,
            kind: PackKind::from_path(path),
            size: source.size(),
            content: digest.map(|d| *first_with.entry(d).or_insert(index)),
        })
        .collect()
}

/// One part file of the pack's list.
struct ListedPart {
    /// Its path as the list names it.
    listed: String,
    /// The BLAKE3 of its bytes.
    digest: blake3::Hash,
    /// Where its fragments are in the list's fragments.
    fragments: Range<usize>,
}

/// Reads every part (or fragment) file that `list` names: the parts, and all
/// their fragments in list order, those of failed sources withdrawn.
fn read_parts(list: &Path) -> Result<(Vec<ListedPart>, Vec<Fragment>), LinkError> {
    let mut parts = Vec::new();
    let mut fragments = Vec::new();
    for (listed, (held, digest)) in read_listed(list, part::read_fragment_file_hashed)? {
        let start = fragments.len();
        fragments.extend(held);
        parts.push(ListedPart {
            listed,
            digest,
            fragments: start..fragments.len(),
        });
    }
    super::withdraw_failed_sources(&mut fragments);
    Ok((parts, fragments))
}

/// A file the pack holds, with what its encoder recorded of it.
struct Wanted<'a> {
    /// Its runtime path.
    path: &'a str,
    /// The hash its encoder recorded, if any.
    hash: Option<&'a FileHash>,
    /// Whether its part is unchanged since the step wrote the previous pack
    /// file, so that pack's entry holds the recorded bytes without hashing.
    unchanged: bool,
}

/// Every file the fragments list but the manifest, in path order (the first
/// listing of a path wins). `state` is the step's record of the previous pack
/// file, when that file still has the identity it records.
fn wanted_files<'a>(
    parts: &[ListedPart],
    fragments: &'a [Fragment],
    state: Option<&PackState>,
) -> Vec<Wanted<'a>> {
    // Parts hold folders, whose paths sort together: taken in the order of
    // their first files, the list is nearly sorted already, and sorting it
    // costs little more than one pass.
    let mut ordered: Vec<(&ListedPart, &[Fragment])> = parts
        .iter()
        .map(|part| {
            (
                part,
                fragments.get(part.fragments.clone()).unwrap_or_default(),
            )
        })
        .collect();
    ordered.sort_by_key(|(_, held)| held.first().and_then(|f| f.files.first()));
    let mut wanted = Vec::new();
    for (part, held) in ordered {
        let unchanged = state.is_some_and(|s| s.parts.get(&part.listed) == Some(&part.digest));
        for fragment in held {
            let files = fragment.files.iter().filter(|p| *p != MANIFEST_FILE);
            wanted.extend(files.map(|path| Wanted {
                path,
                hash: fragment.hashes.iter().find(|h| h.path == *path),
                unchanged,
            }));
        }
    }
    wanted.sort_by(|a, b| a.path.cmp(b.path));
    wanted.dedup_by(|later, first| later.path == first.path);
    wanted
}

/// The previous pack, with its entries.
struct Old<'a> {
    /// The previous pack file.
    pack: &'a PreviousPack,
    /// Its entries, in path order.
    entries: Vec<PackEntry<'a>>,
}

impl<'a> Old<'a> {
    /// `None` when the previous pack is not a valid pack.
    fn new(pack: &'a PreviousPack) -> Option<Self> {
        let entries = pack.entries()?;
        Some(Self { pack, entries })
    }

    /// The previous pack's entry of `file`, when its bytes are what its
    /// encoder recorded writing, and whether that was known without hashing
    /// them. Files come in path order; `cursor` is where the search of the
    /// (sorted) entries resumes.
    fn reusable(&self, file: &Wanted<'_>, cursor: &mut usize) -> Option<(PackEntry<'a>, bool)> {
        let hash = file.hash?;
        let skipped = self
            .entries
            .get(*cursor..)?
            .iter()
            .take_while(|entry| entry.path < file.path)
            .count();
        *cursor += skipped;
        let entry = *self.entries.get(*cursor).filter(|e| e.path == file.path)?;
        if file.unchanged {
            return Some((entry, true));
        }
        let data = self.pack.data(&entry).ok()?;
        hash.matches(&data).then_some((entry, false))
    }

    /// Whether the previous pack already holds exactly the pack `plan` and
    /// `sources` describe: the same header and TOC (so every entry at the
    /// same place), reused entries where they were, and read bytes equal to
    /// the bytes in their place. Its padding is zero: the step wrote it, or
    /// it passed the full check.
    fn holds(&self, plan: &PackPlan, sources: &[Source<'_>]) -> bool {
        self.pack.starts_with(&plan.prefix, plan.len)
            && plan
                .placed
                .iter()
                .all(|placed| match sources.get(placed.slot) {
                    Some(Source::Previous(entry)) => entry.offset == placed.offset,
                    Some(Source::Bytes(bytes)) => self
                        .pack
                        .bytes_at(placed.offset, bytes.len() as u64)
                        .is_ok_and(|old| *old == **bytes),
                    None => false,
                })
    }
}

/// Writes the pack `plan` lays out into the empty `file`: read bytes through
/// a buffer, runs of entries that sit at the same distance from each other in
/// the previous pack copied from it by the kernel.
fn write_streamed(
    file: &File,
    plan: &PackPlan,
    sources: &[Source<'_>],
    old: Option<&Old<'_>>,
) -> io::Result<()> {
    let mut out = Streamer {
        out: BufWriter::with_capacity(1 << 16, file),
        at: 0,
        run: None,
    };
    out.write(0, &plan.prefix, old)?;
    for placed in &plan.written_in_file_order() {
        match (sources.get(placed.slot), old) {
            (Some(Source::Previous(entry)), Some(old)) => {
                out.copy(entry.offset, placed.offset, entry.size, old)?;
            }
            (Some(Source::Bytes(bytes)), _) => out.write(placed.offset, bytes, old)?,
            _ => return Err(io::Error::other("a pack entry lost its source")),
        }
    }
    out.finish(old)
}

/// A run of bytes to copy from the previous pack: `size` bytes from `from`
/// there to `to` in the new pack.
struct Run {
    from: u64,
    to: u64,
    size: u64,
}

/// Writes a pack front to back, zero-filling the gaps between payloads.
struct Streamer<'f> {
    out: BufWriter<&'f File>,
    /// The offset the next byte goes to.
    at: u64,
    /// Bytes still to copy from the previous pack, grown while entries follow
    /// each other there as they do here.
    run: Option<Run>,
}

impl Streamer<'_> {
    /// Writes `bytes` at offset `to`.
    fn write(&mut self, to: u64, bytes: &[u8], old: Option<&Old<'_>>) -> io::Result<()> {
        self.copy_run(old)?;
        self.pad_to(to)?;
        self.out.write_all(bytes)?;
        self.at = to + bytes.len() as u64;
        Ok(())
    }

    /// Copies `size` bytes at `from` in the previous pack to `to`.
    fn copy(&mut self, from: u64, to: u64, size: u64, old: &Old<'_>) -> io::Result<()> {
        if let Some(run) = &mut self.run
            && from.checked_sub(run.from) == to.checked_sub(run.to)
            && to - (run.to + run.size) < PAYLOAD_ALIGN
        {
            // The gap before this entry is alignment padding in both packs
            // (a wider one may hold a payload the new pack dropped): the run
            // grows.
            run.size = to + size - run.to;
            return Ok(());
        }
        self.copy_run(Some(old))?;
        self.pad_to(to)?;
        self.run = Some(Run { from, to, size });
        Ok(())
    }

    /// Zero-fills up to offset `to`.
    fn pad_to(&mut self, to: u64) -> io::Result<()> {
        let gap = to
            .checked_sub(self.at)
            .ok_or_else(|| io::Error::other("pack entries overlap"))?;
        io::copy(&mut io::repeat(0).take(gap), &mut self.out)?;
        self.at = to;
        Ok(())
    }

    /// Copies the pending run, after what the buffer holds.
    fn copy_run(&mut self, old: Option<&Old<'_>>) -> io::Result<()> {
        let (Some(run), Some(old)) = (self.run.take(), old) else {
            return Ok(());
        };
        self.out.flush()?;
        old.pack.copy_to(run.from, run.size, self.out.get_ref())?;
        self.at = run.to + run.size;
        Ok(())
    }

    /// Copies the last run and checks the previous pack did not change
    /// meanwhile.
    fn finish(mut self, old: Option<&Old<'_>>) -> io::Result<()> {
        self.copy_run(old)?;
        self.out.flush()?;
        old.map_or(Ok(()), |old| old.pack.check_unchanged())
    }
}

/// The bytes of the pack's `assets.hman`.
fn manifest_of(
    fragments: &[Fragment],
    root: &Path,
    output: &Path,
    manifest: PackManifest,
) -> Result<Vec<u8>, LinkError> {
    match manifest {
        PackManifest::Folder => Ok(read(&root.join(MANIFEST_FILE))?),
        PackManifest::Own => manifest_bytes(fragments, output),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::hpack::{self, PackItem, write_pack};
    use crate::link::pack_state::identity_of;

    fn items<'a>(files: &[(&'a str, &'a [u8])]) -> Vec<PackItem<'a>> {
        files
            .iter()
            .map(|&(path, data)| PackItem::new(path, data))
            .collect()
    }

    /// Streams the pack of `files` over the previous pack at `old_path`,
    /// reusing every entry whose bytes are unchanged there.
    fn stream(old_path: &Path, recorded: bool, files: &[(&str, &[u8])]) -> (Vec<u8>, bool) {
        let identity = identity_of(old_path).filter(|_| recorded);
        let previous = PreviousPack::open(old_path, identity).unwrap();
        assert_eq!(previous.is_trusted(), recorded);
        let old = Old::new(&previous).unwrap();
        let sources: Vec<Source<'_>> = files
            .iter()
            .map(|&(path, data)| {
                let entry = old.entries.iter().find(|e| e.path == path);
                match entry.filter(|e| *previous.data(e).unwrap() == *data) {
                    Some(entry) => Source::Previous(*entry),
                    None => Source::Bytes(data.to_vec()),
                }
            })
            .collect();
        let paths: Vec<&str> = files.iter().map(|&(path, _)| path).collect();
        let digests: Vec<Option<blake3::Hash>> = files
            .iter()
            .zip(&sources)
            .map(|(&(path, data), source)| source.digest(Some(&FileHash::of(path, data))))
            .collect();
        let plan = plan_pack(&slots_of(&paths, &sources, &digests)).unwrap();
        let out = old_path.with_extension("new");
        write_atomic_with(&out, |file| {
            write_streamed(file, &plan, &sources, Some(&old))
        })
        .unwrap();
        (std::fs::read(out).unwrap(), old.holds(&plan, &sources))
    }

    #[test]
    fn a_streamed_pack_is_the_pack_written_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let old_path = dir.path().join("old.hpack");
        let before: &[(&str, &[u8])] = &[
            ("a.bin", b"seventeen bytes!!"),
            ("b.bin", b""),
            ("c.bin", b"cc"),
            ("d.bin", &[7; 40]),
            ("e.bin", b"eeee"),
        ];
        std::fs::write(&old_path, write_pack(&items(before)).unwrap()).unwrap();
        let after: &[(&str, &[u8])] = &[
            ("a.bin", b"seventeen bytes!!"),
            ("b.bin", b""),
            ("d.bin", &[8; 40]),
            ("e.bin", b"eeee"),
            ("f.bin", b"new"),
        ];
        for recorded in [false, true] {
            let (bytes, held) = stream(&old_path, recorded, after);
            assert_eq!(bytes, write_pack(&items(after)).unwrap());
            assert!(!held, "a changed pack is not held by the old one");
            let (bytes, held) = stream(&old_path, recorded, before);
            assert_eq!(bytes, std::fs::read(&old_path).unwrap());
            assert!(held, "the same files are held by the old pack");
        }
    }

    #[test]
    fn a_streamed_pack_shares_payloads_as_the_pack_written_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let old_path = dir.path().join("old.hpack");
        let shared: &[u8] = &[5; 33];
        let before: &[(&str, &[u8])] = &[
            ("a/tex_0.ktx2", shared),
            ("b.bin", b"bb"),
            ("c/tex_0.ktx2", shared),
            ("d/tex_0.ktx2", shared),
            ("e.bin", b""),
            ("f.bin", b""),
        ];
        let old_pack = write_pack(&items(before)).unwrap();
        assert_eq!(hpack::parse(&old_pack).unwrap().shared_entries(), 2);
        std::fs::write(&old_path, &old_pack).unwrap();
        let edits: [&[(&str, &[u8])]; 3] = [
            // The entry that placed the shared bytes changes: the next one
            // places them, copied from the old shared payload.
            &[
                ("a/tex_0.ktx2", &[6; 33]),
                ("b.bin", b"bb"),
                ("c/tex_0.ktx2", shared),
                ("d/tex_0.ktx2", shared),
            ],
            // A new file holds the shared bytes, and another one an old
            // file's: both point at the payloads already placed.
            &[
                ("a/tex_0.ktx2", shared),
                ("aa.bin", b"bb"),
                ("b.bin", b"bb"),
                ("c/tex_0.ktx2", shared),
                ("z/tex_0.ktx2", shared),
            ],
            // Nothing shared any more.
            &[
                ("a/tex_0.ktx2", b"a"),
                ("c/tex_0.ktx2", b"c"),
                ("d/tex_0.ktx2", shared),
            ],
        ];
        for recorded in [false, true] {
            for after in edits {
                let (bytes, held) = stream(&old_path, recorded, after);
                assert_eq!(bytes, write_pack(&items(after)).unwrap());
                assert!(!held, "a changed pack is not held by the old one");
            }
            let (bytes, held) = stream(&old_path, recorded, before);
            assert_eq!(bytes, old_pack);
            assert!(held, "the same files are held by the old pack");
        }
    }

    #[test]
    fn named_packs_sit_beside_the_single_pack() {
        let output = Path::new("runtime/desktop");
        assert_eq!(pack_path(output), Path::new("runtime/desktop.hpack"));
        assert_eq!(
            named_pack_path(output, "level1"),
            Path::new("runtime/desktop.level1.hpack")
        );
    }
}
