//! Work on every element of a long array, in chunks of fixed size on the
//! lent threads.
//!
//! The chunks are cut at every [`CHUNK`] elements whatever the thread count,
//! and each element's result depends on that element alone, so the output is
//! the one a plain loop gives.

use std::sync::{Mutex, PoisonError};

use bytemuck::Zeroable;

use crate::jobserver;

/// Elements per chunk: enough work per chunk that handing chunks out costs
/// nothing measurable, few enough that a million elements make a dozen.
pub(super) const CHUNK: usize = 1 << 16;

/// `work` applied to every element of `items` with its index, in order.
pub(super) fn map_chunked<T: Sync, R: Zeroable + Send>(
    items: &[T],
    work: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    map_chunked_with(items, || (), |(), index, item| work(index, item))
}

/// [`map_chunked`] where each chunk also has a scratch value, made by
/// `scratch`, that `work` may use to remember earlier elements' work (a
/// cache); the results must not depend on it.
///
/// The results are written in place, each chunk into its own stretch of
/// one zeroed output, so no thread copies another's results afterwards.
pub(super) fn map_chunked_with<T: Sync, R: Zeroable + Send, S>(
    items: &[T],
    scratch: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize, &T) -> R + Sync,
) -> Vec<R> {
    let fill = |first: usize, out: &mut [R]| {
        let mut scratch = scratch();
        let items = &items[first..][..out.len()];
        for (i, (slot, item)) in out.iter_mut().zip(items).enumerate() {
            *slot = work(&mut scratch, first + i, item);
        }
    };
    let mut all: Vec<R> = bytemuck::allocation::zeroed_vec(items.len());
    if items.len() <= CHUNK {
        fill(0, &mut all);
        return all;
    }
    let stretches: Vec<Mutex<(usize, &mut [R])>> = all
        .chunks_mut(CHUNK)
        .enumerate()
        .map(|(chunk, out)| Mutex::new((chunk * CHUNK, out)))
        .collect();
    jobserver::map(&stretches, |stretch| {
        let mut stretch = stretch.lock().unwrap_or_else(PoisonError::into_inner);
        let (first, out) = &mut *stretch;
        fill(*first, out);
    });
    drop(stretches);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobserver::budget::with_threads;

    #[test]
    fn chunks_come_back_in_order_at_any_thread_count() {
        let items: Vec<u64> = (0..(3 * CHUNK as u64 + 17)).collect();
        let expected: Vec<u64> = items.iter().map(|n| n * 4).collect();
        for threads in [1, 2, 4] {
            let out = with_threads(threads, || map_chunked(&items, |i, n| n * 3 + i as u64));
            assert_eq!(out, expected);
        }
    }
}
