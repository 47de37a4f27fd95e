//! Laying a pack out over the one already shipped, so that a chunk patcher
//! ships little.
//!
//! A fresh pack ([`plan_pack`](super::hpack::plan_pack)) places payloads back to back in path order,
//! so one changed size moves every payload after it. The TOC names each
//! payload's offset, though, and readers (ours and the reference SDK's) only
//! require ranges that lie in the file and do not overlap. So a pack built
//! against a *base* (the pack players already have):
//!
//! 1. keeps every entry whose path and bytes the base holds at the base's
//!    offset ("kept");
//! 2. puts every other payload, in path order, back where the base had the
//!    same path when it still fits there, else into the first free gap (in
//!    file order) it fits, else after the last payload;
//! 3. keeps the TOC region the base had (the bytes before its first
//!    payload) while the new TOC fits; when it no longer does, the region
//!    grows to the TOC plus a quarter (at least 4 KiB) of slack, and the
//!    payloads it covers are placed again as in 2, so the next entries
//!    added move nothing;
//! 4. compacts, giving up the base, when the layout would waste more than
//!    `max_waste` of the file: the bytes beyond those of a fresh layout of
//!    the same entries (freed gaps, slack, alignment).
//!
//! Every gap is zero, and the file ends at the last payload, so the result
//! passes the same validation as a fresh pack. The layout depends only on
//! the entries (paths, sizes, which hold equal bytes) and on the base's
//! offsets, so the same tree over the same base gives the same bytes.

use std::collections::HashMap;

use super::hpack::{
    HEADER_BYTES, PackError, PackPlan, PackSlot, PlacedSlot, align_payload, plan_sorted, prefix_of,
    sort_and_check, toc_bytes_of,
};

/// Slack the TOC region gets when it has to grow, as a fraction of the TOC:
/// a quarter more entries of the same path lengths fit before the next move.
const TOC_SLACK_DIVISOR: u64 = 4;

/// The waste (bytes beyond a fresh layout, as a fraction of the file) past
/// which a layout over a base compacts, unless told otherwise.
pub const DEFAULT_MAX_WASTE: f64 = 0.25;

/// The least slack a grown TOC region gets.
const MIN_TOC_SLACK: u64 = 4096;

/// What the base pack says about one new slot, looked up by its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BasePlace {
    /// The offset of the base's payload of the same path.
    pub offset: u64,
    /// Whether the base holds exactly the slot's bytes there (the caller
    /// compared them).
    pub same_bytes: bool,
}

/// The base pack's shape, beside the places of its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaseShape {
    /// The end of the base's TOC region: its lowest payload offset, or the
    /// end of its TOC when it holds no payload.
    pub payload_start: u64,
}

/// How a layout over a base came out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BaseOutcome {
    /// Payloads left where the base has them.
    pub kept: usize,
    /// Changed payloads written back where the base had their path.
    pub in_place: usize,
    /// Payloads put into a free gap or after the last one.
    pub placed: usize,
    /// Bytes of the file beyond those of a fresh layout.
    pub waste: u64,
    /// Whether the waste passed the limit, so the pack was laid out fresh.
    pub compacted: bool,
}

/// Lays out `slots` over a base: `base[i]` is what the base holds at slot
/// `i`'s path, if anything. With `max_waste` (a fraction of the file) passed,
/// the fresh layout of [`plan_pack`](super::hpack::plan_pack) is returned instead.
pub fn plan_pack_over_base(
    slots: &[PackSlot<'_>],
    base: &[Option<BasePlace>],
    shape: BaseShape,
    max_waste: f64,
) -> Result<(PackPlan, BaseOutcome), PackError> {
    let sorted = sort_and_check(slots)?;
    let fresh = plan_sorted(&sorted)?;
    let toc_end = (HEADER_BYTES + toc_bytes_of(&sorted)) as u64;
    let region_end = toc_region_end(toc_end, shape.payload_start);
    let mut layout = Layout::new(region_end);
    let mut outcome = BaseOutcome::default();
    let groups = content_groups(&sorted);
    let mut group_offset: Vec<Option<u64>> = vec![None; groups.len()];
    let place_of = |index: usize| base.get(index).copied().flatten();
    for (rank, &(index, slot)) in sorted.iter().enumerate() {
        let group = groups.of[rank];
        if group_offset[group].is_some() || slot.size == 0 {
            continue;
        }
        let kept = place_of(index)
            .filter(|place| place.same_bytes && layout.take_exact(place.offset, slot.size));
        if let Some(place) = kept {
            group_offset[group] = Some(place.offset);
            outcome.kept += 1;
        }
    }
    for (rank, &(index, slot)) in sorted.iter().enumerate() {
        let group = groups.of[rank];
        if group_offset[group].is_some() {
            continue;
        }
        let back = place_of(index).filter(|place| layout.take_exact(place.offset, slot.size));
        let offset = match back {
            Some(place) => {
                outcome.in_place += 1;
                place.offset
            }
            None => {
                outcome.placed += 1;
                layout.take_first_fit(slot.size)
            }
        };
        group_offset[group] = Some(offset);
    }
    let placed = placed_slots(&sorted, &groups, &group_offset);
    let plan = PackPlan {
        prefix: prefix_of(&sorted, &placed)?,
        placed,
        len: layout.end.max(toc_end),
    };
    outcome.waste = plan.len.saturating_sub(fresh.len);
    if outcome.waste as f64 > max_waste * plan.len as f64 {
        let compacted = BaseOutcome {
            compacted: true,
            waste: 0,
            ..BaseOutcome::default()
        };
        return Ok((fresh, compacted));
    }
    Ok((plan, outcome))
}

/// Where payloads may start: the base's TOC region while the new TOC fits
/// in it, else the new TOC plus slack.
fn toc_region_end(toc_end: u64, base_payload_start: u64) -> u64 {
    if toc_end <= base_payload_start {
        return base_payload_start;
    }
    let slack = (toc_end / TOC_SLACK_DIVISOR).max(MIN_TOC_SLACK);
    align_payload(toc_end.saturating_add(slack)).unwrap_or(u64::MAX)
}

/// Slots (by rank in path order) grouped by the bytes they hold: slots with
/// the same non-empty content share one payload, every other slot is a group
/// of its own.
struct Groups {
    /// The group of each rank.
    of: Vec<usize>,
    /// The rank of each group's first slot, which writes the payload.
    first: Vec<usize>,
}

impl Groups {
    /// The number of groups.
    fn len(&self) -> usize {
        self.first.len()
    }
}

/// The content groups of `sorted`.
fn content_groups(sorted: &[(usize, &PackSlot<'_>)]) -> Groups {
    let mut by_key: HashMap<(usize, u64), usize> = HashMap::new();
    let mut groups = Groups {
        of: Vec::with_capacity(sorted.len()),
        first: Vec::new(),
    };
    for (rank, (_, slot)) in sorted.iter().enumerate() {
        let fresh_group = groups.first.len();
        let group = match slot.shared_key() {
            Some(key) => *by_key.entry(key).or_insert(fresh_group),
            None => fresh_group,
        };
        if group == fresh_group {
            groups.first.push(rank);
        }
        groups.of.push(group);
    }
    groups
}

/// Each slot's place in path order: its group's offset, written by the
/// group's first slot and shared by the others.
fn placed_slots(
    sorted: &[(usize, &PackSlot<'_>)],
    groups: &Groups,
    group_offset: &[Option<u64>],
) -> Vec<PlacedSlot> {
    sorted
        .iter()
        .enumerate()
        .map(|(rank, &(index, _))| {
            let group = groups.of[rank];
            PlacedSlot {
                slot: index,
                offset: group_offset[group].unwrap_or(u64::MAX),
                shared: groups.first[group] != rank,
            }
        })
        .collect()
}

/// The payload area being filled: the ranges taken so far, in file order.
struct Layout {
    /// Where payloads may start.
    start: u64,
    /// Taken ranges `(start, end)`, sorted and disjoint.
    taken: Vec<(u64, u64)>,
    /// The end of the last taken range (or `start`).
    end: u64,
}

impl Layout {
    /// An empty payload area from `start`.
    fn new(start: u64) -> Self {
        Self {
            start,
            taken: Vec::new(),
            end: start,
        }
    }

    /// Takes `[offset, offset + size)` if it lies in the payload area, is
    /// aligned and is free. An empty range is never taken here: it has no
    /// bytes to keep in place.
    fn take_exact(&mut self, offset: u64, size: u64) -> bool {
        let Some(end) = offset.checked_add(size) else {
            return false;
        };
        if size == 0 || offset < self.start || align_payload(offset) != Some(offset) {
            return false;
        }
        let at = self.taken.partition_point(|&(start, _)| start < offset);
        let clear_before = at == 0 || self.taken[at - 1].1 <= offset;
        let clear_after = self.taken.get(at).is_none_or(|&(start, _)| end <= start);
        if clear_before && clear_after {
            self.insert(at, offset, end);
        }
        clear_before && clear_after
    }

    /// Takes the first aligned free range of `size` bytes, in file order,
    /// after the last range if no gap holds it; returns its offset.
    fn take_first_fit(&mut self, size: u64) -> u64 {
        let mut gap_start = self.start;
        for at in 0..self.taken.len() {
            let (next_start, next_end) = self.taken[at];
            let offset = align_payload(gap_start).unwrap_or(u64::MAX);
            if offset.saturating_add(size) <= next_start {
                if size > 0 {
                    self.insert(at, offset, offset + size);
                }
                return offset;
            }
            gap_start = next_end;
        }
        let offset = align_payload(gap_start).unwrap_or(u64::MAX);
        if size > 0 {
            self.insert(self.taken.len(), offset, offset.saturating_add(size));
        }
        offset
    }

    /// Records the range `[start, end)` at position `at`.
    fn insert(&mut self, at: usize, start: u64, end: u64) {
        self.taken.insert(at, (start, end));
        self.end = self.end.max(end);
    }
}

#[cfg(test)]
mod tests {
    use super::super::hpack::{PackItem, parse, write_planned};
    use super::*;

    /// Items named `a.bin`, `b.bin`, … holding `sizes` bytes of distinct
    /// values (`tag` changes them all).
    fn items(sizes: &[usize], tag: u8) -> Vec<(String, Vec<u8>)> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| {
                let name = format!("{}.bin", (b'a' + i as u8) as char);
                (name, vec![tag.wrapping_add(i as u8 * 7) | 1; size])
            })
            .collect()
    }

    fn pack_items(files: &[(String, Vec<u8>)]) -> Vec<PackItem<'_>> {
        files
            .iter()
            .map(|(path, data)| PackItem::new(path, data))
            .collect()
    }

    /// The pack of `files` laid over `base` (a pack's bytes).
    fn over(base: &[u8], files: &[(String, Vec<u8>)], max_waste: f64) -> (Vec<u8>, BaseOutcome) {
        let base_pack = parse(base).unwrap();
        let items = pack_items(files);
        let first_with = |data: &[u8]| items.iter().position(|item| item.data == data);
        let slots: Vec<PackSlot<'_>> = items
            .iter()
            .map(|item| PackSlot {
                content: first_with(item.data),
                ..item.slot()
            })
            .collect();
        let places: Vec<Option<BasePlace>> = items
            .iter()
            .map(|item| {
                base_pack.find(item.path).map(|entry| BasePlace {
                    offset: entry.offset,
                    same_bytes: base_pack.data(&entry) == item.data,
                })
            })
            .collect();
        let shape = BaseShape {
            payload_start: base_pack.entries().iter().map(|e| e.offset).min().unwrap(),
        };
        let (plan, outcome) = plan_pack_over_base(&slots, &places, shape, max_waste).unwrap();
        (write_planned(&plan, &items), outcome)
    }

    fn offsets(bytes: &[u8]) -> Vec<(String, u64)> {
        let pack = parse(bytes).unwrap();
        pack.iter().map(|e| (e.path.to_owned(), e.offset)).collect()
    }

    fn fresh(files: &[(String, Vec<u8>)]) -> Vec<u8> {
        super::super::hpack::write_pack(&pack_items(files)).unwrap()
    }

    #[test]
    fn a_grown_entry_moves_alone_and_the_others_keep_their_offsets() {
        let old = items(&[100, 200, 300, 400], 1);
        let base = fresh(&old);
        let mut new = old.clone();
        new[1].1 = vec![9; 260];
        let (bytes, outcome) = over(&base, &new, 0.5);
        let (before, after) = (offsets(&base), offsets(&bytes));
        for name in ["a.bin", "c.bin", "d.bin"] {
            let of = |list: &[(String, u64)]| list.iter().find(|(p, _)| p == name).unwrap().1;
            assert_eq!(of(&before), of(&after), "{name} moved");
        }
        assert_eq!(after[1].1, align_payload(before[3].1 + 400).unwrap());
        assert_eq!((outcome.kept, outcome.in_place, outcome.placed), (3, 0, 1));
        let pack = parse(&bytes).unwrap();
        for (path, data) in &new {
            assert_eq!(pack.data(&pack.find(path).unwrap()), &data[..], "{path}");
        }
    }

    #[test]
    fn a_shrunk_entry_stays_and_a_new_one_fills_the_freed_gap() {
        let old = items(&[100, 200, 300, 400], 1);
        let base = fresh(&old);
        let mut new = old.clone();
        new[1].1 = vec![9; 40];
        // c.bin goes and x.bin comes: the TOC keeps its length.
        new[2] = ("x.bin".into(), vec![5; 100]);
        new.sort();
        let (bytes, outcome) = over(&base, &new, 1.0);
        assert_eq!((outcome.kept, outcome.in_place, outcome.placed), (2, 1, 1));
        let (pack, old_pack) = (parse(&bytes).unwrap(), parse(&base).unwrap());
        let at = |pack: &super::super::hpack::Pack<'_>, path| pack.find(path).unwrap().offset;
        for path in ["a.bin", "b.bin", "d.bin"] {
            assert_eq!(at(&pack, path), at(&old_pack, path), "{path}");
        }
        assert_eq!(
            at(&pack, "x.bin"),
            align_payload(at(&old_pack, "b.bin") + 40).unwrap()
        );
        assert_eq!(bytes.len(), base.len());
    }

    #[test]
    fn a_grown_toc_gets_slack_and_moves_only_what_it_covers() {
        let old = items(&[16, 5000, 300], 1);
        let base = fresh(&old);
        let mut new = old.clone();
        new.push(("e.bin".into(), vec![2; 10]));
        let (bytes, _) = over(&base, &new, 1.0);
        let pack = parse(&bytes).unwrap();
        let first = pack.iter().map(|e| e.offset).min().unwrap();
        assert!(
            first >= pack.header_bytes() + pack.toc_bytes() + MIN_TOC_SLACK,
            "{first}"
        );
        // A second new entry now fits the slack: nothing moves.
        let mut newer = new.clone();
        newer.push(("f.bin".into(), vec![4; 10]));
        let (again, outcome) = over(&bytes, &newer, 1.0);
        assert_eq!(outcome.kept, 4, "{outcome:?}");
        for (path, offset) in offsets(&bytes) {
            assert_eq!(
                parse(&again).unwrap().find(&path).unwrap().offset,
                offset,
                "{path}"
            );
        }
    }

    #[test]
    fn too_much_waste_compacts_to_the_fresh_layout() {
        let old = items(&[1000, 1000, 1000, 1000], 1);
        let base = fresh(&old);
        let mut new = old.clone();
        new.remove(1);
        new.remove(1);
        let (kept, outcome) = over(&base, &new, 0.9);
        assert!(!outcome.compacted && outcome.waste >= 2000, "{outcome:?}");
        assert_ne!(kept, fresh(&new));
        let (compacted, outcome) = over(&base, &new, 0.1);
        assert!(outcome.compacted, "{outcome:?}");
        assert_eq!(compacted, fresh(&new));
    }

    #[test]
    fn identical_files_still_share_one_payload() {
        let mut old = items(&[300, 300], 1);
        old[1].1 = old[0].1.clone();
        let base = fresh(&old);
        let mut new = old.clone();
        new.push(("c.bin".into(), old[0].1.clone()));
        let (bytes, _) = over(&base, &new, 1.0);
        let pack = parse(&bytes).unwrap();
        let at: Vec<u64> = pack.iter().map(|e| e.offset).collect();
        assert!(at.iter().all(|&offset| offset == at[0]), "{at:?}");
        assert_eq!(pack.shared_entries(), 2);
    }

    #[test]
    fn the_same_tree_over_the_same_base_gives_the_same_bytes() {
        let base = fresh(&items(&[100, 200, 300, 400], 1));
        let mut new = items(&[100, 250, 300, 80], 1);
        new.push(("z.bin".into(), vec![1; 33]));
        let once = over(&base, &new, 0.5).0;
        new.reverse();
        assert_eq!(once, over(&base, &new, 0.5).0);
    }
}
