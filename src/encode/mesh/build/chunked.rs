//! Work on every element of a long array, in chunks of fixed size on the
//! lent threads.
//!
//! The chunks are cut at every [`CHUNK`] elements whatever the thread count,
//! and each element's result depends on that element alone, so the output is
//! the one a plain loop gives.

use crate::jobserver;

/// Elements per chunk: enough work per chunk that handing chunks out costs
/// nothing measurable, few enough that a million elements make a dozen.
pub(super) const CHUNK: usize = 1 << 16;

/// `work` applied to every element of `items` with its index, in order.
pub(super) fn map_chunked<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    map_chunked_with(items, || (), |(), index, item| work(index, item))
}

/// [`map_chunked`] where each chunk also has a scratch value, made by
/// `scratch`, that `work` may use to remember earlier elements' work (a
/// cache); the results must not depend on it.
pub(super) fn map_chunked_with<T: Sync, R: Send, S>(
    items: &[T],
    scratch: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize, &T) -> R + Sync,
) -> Vec<R> {
    let run = |first: usize, items: &[T]| {
        let mut scratch = scratch();
        let results = items
            .iter()
            .enumerate()
            .map(|(i, item)| work(&mut scratch, first + i, item));
        results.collect::<Vec<R>>()
    };
    if items.len() <= CHUNK {
        return run(0, items);
    }
    let chunks: Vec<(usize, &[T])> = items.chunks(CHUNK).enumerate().collect();
    let done = jobserver::map(&chunks, |&(chunk, items)| run(chunk * CHUNK, items));
    let mut all = Vec::with_capacity(items.len());
    for chunk in done {
        all.extend(chunk);
    }
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
