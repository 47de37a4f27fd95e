//! Stores: answered at once, uploaded in the background a few at a time;
//! a store the server refuses stops uploads for the build, with one warning.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;

use super::protocol::Request;
use super::state::Service;
use crate::cache::remote::client::{Blob, RemoteError};
use crate::cli;

impl Service {
    /// Uploads a result in the background.
    pub(super) fn store(self: &Arc<Self>, request: Request) {
        if self.down_reason().is_some() || self.uploads_off.load(Ordering::SeqCst) {
            return;
        }
        let (Some(action), Some(result)) = (request.action, request.result) else {
            return;
        };
        self.busy.fetch_add(1, Ordering::SeqCst);
        let service = self.clone();
        tokio::spawn(async move {
            if let Ok(_permit) = service.uploads.acquire().await {
                service.upload(&action, result, request.blobs).await;
            }
            service.busy.fetch_sub(1, Ordering::SeqCst);
        });
    }

    pub(super) async fn upload(
        &self,
        action: &re::Digest,
        result: re::ActionResult,
        blobs: Vec<re::batch_update_blobs_request::Request>,
    ) {
        if self.uploads_off.load(Ordering::SeqCst) {
            return;
        }
        let Ok(upstream) = self.upstream().await else {
            return;
        };
        let blobs: Vec<(re::Digest, Blob)> = blobs
            .iter()
            .filter_map(|b| Some((b.digest.clone()?, Blob::Bytes(&b.data))))
            .collect();
        let stored = || async {
            upstream.upload(&blobs).await?;
            upstream.update_action_result(action, result.clone()).await
        };
        // Nothing more to do once stored, or once the remote is down.
        match self.retried(stored).await {
            Ok(()) | Err(None) => {}
            Err(Some(error)) if error.refused_store() || error.busy() => {
                self.stop_uploads(&error);
            }
            Err(Some(RemoteError::Invalid(message))) => {
                self.note(&format!("upload failed: {message}"));
            }
            Err(Some(error)) => {
                self.give_up(&error);
            }
        }
    }

    /// Stops storing for the rest of the build; the first call warns.
    pub(super) fn stop_uploads(&self, error: &RemoteError) {
        if !self.uploads_off.swap(true, Ordering::SeqCst) {
            self.warn(format!(
                "remote {}: upload failed: {}; not storing results for the rest of this build",
                self.url(),
                cli::with_causes(error, ": ")
            ));
        }
    }
}
