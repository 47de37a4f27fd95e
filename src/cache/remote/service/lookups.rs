//! Lookups: one table of results by action, shared by the edges and the
//! prefetch, and the blobs fetched ahead of their edges.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
use tokio::sync::{Semaphore, mpsc};

use super::prefetch;
use super::state::{Failure, HELD_BYTES, Resolved, Service};
use crate::cache::CacheArgs;
use crate::cache::remote::action;

impl Service {
    /// The result of `action`, fetched once for everyone who asks; the
    /// first asker decides whether its blobs come along (an edge) or are
    /// left to a batch over several results (the prefetch).
    pub(super) async fn result_of(&self, action: re::Digest, with_blobs: bool) -> Resolved {
        let cell = match self.results.lock() {
            Ok(mut results) => results.entry(action.hash.clone()).or_default().clone(),
            Err(_) => return Err(Failure::Invalid("the result table is poisoned".into())),
        };
        cell.get_or_init(|| self.resolve(action, with_blobs))
            .await
            .clone()
    }

    /// Looks `action` up and, `with_blobs`, fetches what a first read of a
    /// result found needs.
    pub(super) async fn resolve(&self, action: re::Digest, with_blobs: bool) -> Resolved {
        let upstream = self.upstream().await?;
        let result = self.guarded(|| upstream.action_result(&action)).await?;
        if with_blobs && let Some(parts) = result.as_ref().and_then(action::parts_of) {
            self.hold(parts.first_reads()).await?;
        }
        Ok(result)
    }

    /// Fetches `wanted` in one download (split into batches by size) and
    /// keeps the blobs for their edges, while the held bytes stay under
    /// their limit; a bad answer is left for the edge's own read to report.
    pub(super) async fn hold(&self, mut wanted: Vec<re::Digest>) -> Result<(), Failure> {
        let room = self.held.lock().is_ok_and(|held| {
            wanted.retain(|d| !held.blobs.contains_key(&d.hash));
            let size: usize = wanted.iter().map(|d| d.size_bytes.max(0) as usize).sum();
            held.bytes + size <= HELD_BYTES
        });
        if wanted.is_empty() || !room {
            return Ok(());
        }
        let upstream = self.upstream().await?;
        match self.guarded(|| upstream.download(&wanted)).await {
            Ok(blobs) => {
                if let Ok(mut held) = self.held.lock() {
                    for (digest, bytes) in wanted.into_iter().zip(blobs) {
                        held.put(digest.hash, bytes);
                    }
                }
                Ok(())
            }
            Err(Failure::Invalid(_)) => Ok(()),
            Err(down) => Err(down),
        }
    }

    /// `digests`: those fetched ahead, and the rest in one download.
    pub(super) async fn read(&self, digests: &[re::Digest]) -> Result<Vec<Vec<u8>>, Failure> {
        let mut found: Vec<Option<Vec<u8>>> = match self.held.lock() {
            Ok(mut held) => digests.iter().map(|d| held.take(&d.hash)).collect(),
            Err(_) => vec![None; digests.len()],
        };
        let missing: Vec<re::Digest> = digests
            .iter()
            .zip(&found)
            .filter(|(_, f)| f.is_none())
            .map(|(d, _)| d.clone())
            .collect();
        if !missing.is_empty() {
            let upstream = self.upstream().await?;
            let mut fetched = self
                .guarded(|| upstream.download(&missing))
                .await?
                .into_iter();
            for slot in found.iter_mut().filter(|f| f.is_none()) {
                *slot = fetched.next();
            }
        }
        Ok(found.into_iter().map(Option::unwrap_or_default).collect())
    }

    /// Looks up, ahead of the edges, every result the build's edges list
    /// lets the service compute the action of. Lookups stream with a fixed
    /// number in flight; the blobs of the results found gather while the
    /// reads before them are on the way, and go in one batch read each.
    pub(super) async fn prefetch(
        self: Arc<Self>,
        args: CacheArgs,
        build: PathBuf,
        keyer: prefetch::Keyer,
    ) {
        if self.upstream().await.is_err() {
            return;
        }
        let started = Instant::now();
        let (send, mut actions) = mpsc::channel::<re::Digest>(256);
        let keyed = tokio::task::spawn_blocking(move || {
            prefetch::actions(&args, &build, keyer, |digest| {
                send.blocking_send(digest).is_ok()
            })
        });
        let (found, wanted) = mpsc::unbounded_channel::<Vec<re::Digest>>();
        let reading = tokio::spawn(self.clone().read_ahead(wanted));
        let lookups = Arc::new(Semaphore::new(prefetch::LOOKUPS));
        let mut asked = 0;
        while let Some(action) = actions.recv().await {
            let Ok(permit) = lookups.clone().acquire_owned().await else {
                break;
            };
            if self.down_reason().is_some() {
                break;
            }
            asked += 1;
            let (service, found) = (self.clone(), found.clone());
            tokio::spawn(async move {
                if let Ok(Some(result)) = service.result_of(action, false).await
                    && let Some(parts) = action::parts_of(&result)
                {
                    let _ = found.send(parts.first_reads());
                }
                drop(permit);
            });
        }
        drop(found);
        let _ = keyed.await;
        let _ = reading.await;
        self.note(&format!(
            "looked up {asked} results ahead in {:.2} s",
            started.elapsed().as_secs_f64()
        ));
    }

    /// Reads the blobs of the results the prefetch found, in batches of
    /// whatever came while the reads before were on the way (see
    /// [`gather`]).
    async fn read_ahead(self: Arc<Self>, mut wanted: mpsc::UnboundedReceiver<Vec<re::Digest>>) {
        let reads = Arc::new(Semaphore::new(prefetch::READS));
        let mut running = tokio::task::JoinSet::new();
        while let Some(first) = wanted.recv().await {
            let Ok(permit) = reads.clone().acquire_owned().await else {
                break;
            };
            let batch = gather(first, &mut wanted).await;
            let service = self.clone();
            running.spawn(async move {
                let _ = service.hold(batch).await;
                drop(permit);
            });
        }
        while running.join_next().await.is_some() {}
    }
}

/// A batch of blobs to read: `first`, then the results that come within
/// [`prefetch::READ_LINGER`], up to [`prefetch::READ_BATCH`] results. On a
/// fast link this keeps the reads few; on a slow one the wait is small
/// beside a round trip.
async fn gather(
    first: Vec<re::Digest>,
    wanted: &mut mpsc::UnboundedReceiver<Vec<re::Digest>>,
) -> Vec<re::Digest> {
    let mut batch = first;
    let deadline = tokio::time::Instant::now() + prefetch::READ_LINGER;
    for _ in 1..prefetch::READ_BATCH {
        match tokio::time::timeout_at(deadline, wanted.recv()).await {
            Ok(Some(more)) => batch.extend(more),
            _ => break,
        }
    }
    batch
}
