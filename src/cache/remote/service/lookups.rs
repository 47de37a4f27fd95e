//! Lookups: one table of results by action, shared by the edges and the
//! prefetch, and the blobs fetched ahead of their edges.

use std::path::PathBuf;
use std::sync::Arc;

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
use tokio::sync::Semaphore;

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
        let Some(upstream) = self.upstream().await else {
            return Err(Failure::Down(self.down_reason().unwrap_or_default()));
        };
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
        if let Ok(held) = self.held.lock() {
            wanted.retain(|d| !held.blobs.contains_key(&d.hash));
        }
        let size: usize = wanted.iter().map(|d| d.size_bytes.max(0) as usize).sum();
        let room = self.held.lock().is_ok_and(|h| h.bytes + size <= HELD_BYTES);
        if wanted.is_empty() || !room {
            return Ok(());
        }
        let Some(upstream) = self.upstream().await else {
            return Err(Failure::Down(self.down_reason().unwrap_or_default()));
        };
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
            let Some(upstream) = self.upstream().await else {
                return Err(Failure::Down(self.down_reason().unwrap_or_default()));
            };
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
    /// lets the service compute the action of: in groups, a few groups at
    /// a time.
    pub(super) async fn prefetch(
        self: Arc<Self>,
        args: CacheArgs,
        build: PathBuf,
        keyer: prefetch::Keyer,
    ) {
        if self.upstream().await.is_none() {
            return;
        }
        let (send, mut receive) = tokio::sync::mpsc::channel::<re::Digest>(256);
        let keyed = tokio::task::spawn_blocking(move || {
            prefetch::actions(&args, &build, keyer, |digest| {
                send.blocking_send(digest).is_ok()
            })
        });
        let groups = Arc::new(Semaphore::new(prefetch::GROUPS));
        let mut group = Vec::with_capacity(prefetch::GROUP);
        loop {
            let next = receive.recv().await;
            let done = next.is_none();
            group.extend(next);
            if group.len() < prefetch::GROUP && !done {
                continue;
            }
            if self.down_reason().is_some() {
                break;
            }
            let Ok(permit) = groups.clone().acquire_owned().await else {
                break;
            };
            let service = self.clone();
            let actions = std::mem::take(&mut group);
            tokio::spawn(async move {
                service.prefetch_group(actions).await;
                drop(permit);
            });
            if done {
                break;
            }
        }
        let _ = keyed.await;
    }

    /// Looks a group of actions up side by side, then fetches the blobs of
    /// every result found in one download.
    pub(super) async fn prefetch_group(self: Arc<Self>, actions: Vec<re::Digest>) {
        let mut lookups = tokio::task::JoinSet::new();
        for action in actions {
            let service = self.clone();
            lookups.spawn(async move { service.result_of(action, false).await });
        }
        let mut wanted = Vec::new();
        while let Some(joined) = lookups.join_next().await {
            match joined {
                Ok(Ok(Some(result))) => wanted.extend(
                    action::parts_of(&result)
                        .map(|p| p.first_reads())
                        .unwrap_or_default(),
                ),
                Ok(Err(Failure::Down(_))) => return,
                _ => {}
            }
        }
        let _ = self.hold(wanted).await;
    }
}
