//! Remote caching and execution over the Remote Execution API (REAPI v2),
//! spoken only as the standard defines it, so BuildGrid, Buildbarn,
//! BuildBuddy or NativeLink serve it unchanged.
//!
//! * [`merkle`]: SHA-256 digests and directory trees.
//! * [`action`]: an encode edge as an action, its result and the "deps"
//!   action that records which files an edge reads.
//! * [`client`]: the gRPC calls (action cache, CAS, ByteStream, execution).
//! * [`service`]: the build's remote service, which holds one channel for
//!   every edge of the build, looks results up ahead and uploads in the
//!   background.
//! * [`Session`]: what an edge asks of the remote: the files a source read
//!   last time, a cached result, a remote run, an upload; through the
//!   build's service when it can, or itself. An edge that talks to the
//!   server itself and finds it not answering marks it unavailable for a
//!   minute in the build folder, so one build prints one warning and stops
//!   trying, and every edge encodes locally instead.

pub mod action;
pub mod client;
pub mod merkle;
pub mod service;

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;

use self::action::{Action, Input, Outputs, Produced};
use self::client::{Blob, Remote, RemoteError};
use self::service::client::ServiceClient;
use crate::cache::digest::digest_of;
use crate::cli;
use crate::config::RemoteSettings;
use crate::fragment::Fragment;

/// The marker file, in the build folder, of a remote that failed.
const OUTAGE_MARKER: &str = "remote-unavailable";

/// How long a failed remote is left alone.
const OUTAGE_PAUSE: Duration = Duration::from_secs(60);

/// A remote an edge talks to.
pub struct Session<'a> {
    link: Link,
    args: &'a RemoteSettings,
    state: Option<&'a Path>,
}

/// How an edge reaches the server.
enum Link {
    /// Through the build's service.
    Service(ServiceClient),
    /// Over its own connection.
    Direct(Remote),
}

/// What the remote had or made for an edge.
pub struct Fetched {
    /// The files the edge read besides its source.
    pub deps: Vec<String>,
    /// What it produced.
    pub produced: Produced,
}

impl<'a> Session<'a> {
    /// Reaches the remote, unless none is configured or it failed recently
    /// (`state` is the build folder, which holds the marker and the
    /// service's socket): through the build's service for a cache, over the
    /// edge's own connection for remote runs or when there is no service.
    /// `tool` is this binary's SHA-256.
    pub fn open(args: &'a RemoteSettings, state: Option<&'a Path>, tool: &str) -> Option<Self> {
        args.url.as_ref()?;
        if let Some(build) = state.filter(|_| !args.exec && service::enabled())
            && let Some(client) = ServiceClient::open(build, args, tool)
        {
            return Some(Self {
                link: Link::Service(client),
                args,
                state,
            });
        }
        Self::open_direct(args, state)
    }

    /// Reaches the remote over the edge's own connection.
    pub fn open_direct(args: &'a RemoteSettings, state: Option<&'a Path>) -> Option<Self> {
        args.url.as_ref()?;
        if state.is_some_and(recently_failed) {
            return None;
        }
        match Remote::connect(args) {
            Ok(remote) => Some(Self {
                link: Link::Direct(remote),
                args,
                state,
            }),
            Err(error) => {
                mark_unavailable(args, state, &error);
                None
            }
        }
    }

    /// Whether encodes run remotely.
    pub fn executes(&self) -> bool {
        self.args.exec
    }

    /// Whether this edge waited on a remote that the build then gave up.
    pub fn waited(&self) -> bool {
        matches!(&self.link, Link::Service(client) if client.waited())
    }

    /// Reports a failed call: a corrupt answer is a warning for this edge;
    /// anything else marks the remote unavailable (one warning per build).
    /// The service has already warned about a remote it gave up.
    pub fn failed(&self, error: &RemoteError) {
        match error {
            RemoteError::Invalid(_) => cli::warn(
                "assetc-encode",
                &format!("remote {}: {error}; encoding locally", self.url()),
            ),
            RemoteError::Unavailable(_) => {}
            _ => mark_unavailable(self.args, self.state, error),
        }
    }

    fn url(&self) -> &str {
        self.args.url.as_deref().unwrap_or_default()
    }

    fn action_result(&self, action: &re::Digest) -> Result<Option<re::ActionResult>, RemoteError> {
        match &self.link {
            Link::Service(client) => client.action_result(action),
            Link::Direct(remote) => remote.action_result(action),
        }
    }

    fn download(&self, digests: &[re::Digest]) -> Result<Vec<Vec<u8>>, RemoteError> {
        match &self.link {
            Link::Service(client) => client.download(digests),
            Link::Direct(remote) => remote.download(digests),
        }
    }

    fn direct(&self) -> Result<&Remote, RemoteError> {
        match &self.link {
            Link::Direct(remote) => Ok(remote),
            Link::Service(_) => Err(RemoteError::Invalid(
                "remote runs go over the edge's own connection".into(),
            )),
        }
    }

    /// The deps record stored under `deps_action`, if any.
    pub fn deps(&self, deps_action: &Action) -> Result<Option<Vec<u8>>, RemoteError> {
        let Some(result) = self.action_result(&deps_action.digest)? else {
            return Ok(None);
        };
        let Some(digest) = action::deps_digest(&result) else {
            return Ok(None);
        };
        Ok(self.download(&[digest])?.pop())
    }

    /// The cached result of `edge_action`, downloaded and checked.
    pub fn lookup(
        &self,
        edge_action: &Action,
        deps: &[String],
    ) -> Result<Option<Fetched>, RemoteError> {
        match self.action_result(&edge_action.digest)? {
            Some(result) => self.fetch(&result, Some(deps)),
            None => Ok(None),
        }
    }

    /// Runs `edge_action` remotely after uploading what it needs: its
    /// messages, the tool and the `inputs` (read from their project paths).
    /// `None` when the encoder failed there (the local encode that follows
    /// reports it); an error when the server could not run it.
    pub fn execute(
        &self,
        edge_action: &Action,
        tool: &Path,
        tool_digest: &re::Digest,
        inputs: &[Input],
    ) -> Result<Option<Fetched>, RemoteError> {
        let mut blobs: Vec<(re::Digest, Blob)> = edge_action
            .blobs
            .iter()
            .map(|(d, b)| (d.clone(), Blob::Bytes(b)))
            .collect();
        blobs.push((tool_digest.clone(), Blob::File(tool)));
        for input in inputs {
            blobs.push((input.digest.clone(), Blob::File(Path::new(&input.path))));
        }
        let remote = self.direct()?;
        remote.upload(&blobs)?;
        let response = remote.execute(&edge_action.digest)?;
        if let Some(status) = response.status.filter(|s| s.code != 0) {
            return Err(RemoteError::Execution {
                code: status.code,
                message: status.message,
            });
        }
        match response.result {
            Some(result) => self.fetch(&result, None),
            None => Ok(None),
        }
    }

    /// Downloads a successful result; the deps come from `deps` or, for a
    /// remote run, from the depfile it wrote.
    fn fetch(
        &self,
        result: &re::ActionResult,
        deps: Option<&[String]>,
    ) -> Result<Option<Fetched>, RemoteError> {
        let Some(parts) = action::parts_of(result) else {
            return Ok(None);
        };
        let mut found = self.download(&parts.first_reads())?.into_iter();
        let fragment = found.next().unwrap_or_default();
        let depfile = parts
            .depfile
            .as_ref()
            .map(|_| found.next().unwrap_or_default());
        let files = match &parts.outputs {
            Outputs::Files(listed) => listed.iter().map(|(p, _)| p.clone()).zip(found).collect(),
            Outputs::Tree(_) => self.files_of_tree(&found.next().unwrap_or_default())?,
        };
        check_against_fragment(&files, &fragment)?;
        let deps = match deps {
            Some(deps) => deps.to_vec(),
            None => depfile_inputs(&depfile.unwrap_or_default())?,
        };
        let warnings = String::from_utf8_lossy(&result.stderr_raw)
            .lines()
            .filter(|l| l.contains(": warning: "))
            .map(str::to_owned)
            .collect();
        Ok(Some(Fetched {
            deps,
            produced: Produced {
                files,
                fragment,
                warnings,
            },
        }))
    }

    /// The files of an output folder given as a `Tree` message, downloaded.
    fn files_of_tree(&self, tree: &[u8]) -> Result<Vec<(String, Vec<u8>)>, RemoteError> {
        let tree = <re::Tree as prost::Message>::decode(tree)
            .map_err(|e| RemoteError::Invalid(format!("bad output tree: {e}")))?;
        let listed = merkle::files_of_tree(&tree)
            .ok_or_else(|| RemoteError::Invalid("the output tree is malformed".into()))?;
        let digests: Vec<re::Digest> = listed.iter().map(|(_, d)| d.clone()).collect();
        let bytes = self.download(&digests)?;
        Ok(listed.into_iter().map(|(p, _)| p).zip(bytes).collect())
    }

    /// Stores a local encode's result under `edge_action`, and its deps
    /// record (the deps action and the record's text) when other edges
    /// need it to find their inputs.
    pub fn upload(
        &self,
        edge_action: &Action,
        produced: &Produced,
        deps: Option<(&Action, &[u8])>,
    ) -> Result<(), RemoteError> {
        let (result, blobs) = action::result_of(produced);
        self.store(edge_action, result, &blobs)?;
        match deps {
            Some((deps_action, record)) => self.store_deps(deps_action, record),
            None => Ok(()),
        }
    }

    /// Stores the deps record `text` as the result of `deps_action`.
    pub fn store_deps(&self, deps_action: &Action, text: &[u8]) -> Result<(), RemoteError> {
        let blob = [(digest_of(text), text.to_vec())];
        self.store(deps_action, action::deps_result(text), &blob)
    }

    /// Records `result` (whose blobs are `blobs`) as the result of `action`:
    /// through the service, which uploads after the edge has gone, or now.
    pub fn store(
        &self,
        action: &Action,
        result: re::ActionResult,
        blobs: &[(re::Digest, Vec<u8>)],
    ) -> Result<(), RemoteError> {
        match &self.link {
            Link::Service(client) => {
                let all = blobs.iter().chain(&action.blobs).cloned().collect();
                client.store(&action.digest, result, all)
            }
            Link::Direct(remote) => {
                let all: Vec<(re::Digest, Blob)> = blobs
                    .iter()
                    .chain(&action.blobs)
                    .map(|(d, b)| (d.clone(), Blob::Bytes(b)))
                    .collect();
                remote.upload(&all)?;
                remote.update_action_result(&action.digest, result)
            }
        }
    }
}

/// Checks that a result's files are exactly those its fragment lists, with
/// the BLAKE3 hashes the fragment recorded, so the link reads what the
/// encoder wrote.
fn check_against_fragment(files: &[(String, Vec<u8>)], fragment: &[u8]) -> Result<(), RemoteError> {
    let invalid = |what: &str| RemoteError::Invalid(format!("the result {what}"));
    let fragment = Fragment::parse(&String::from_utf8_lossy(fragment))
        .map_err(|(line, what)| invalid(&format!("has a bad fragment (line {line}: {what})")))?;
    let mut listed = fragment.files.clone();
    let mut produced: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
    listed.sort();
    produced.sort();
    if listed != produced {
        return Err(invalid("holds other files than its fragment lists"));
    }
    for (path, bytes) in files {
        let recorded = fragment.hashes.iter().find(|h| &h.path == path);
        if !recorded.is_some_and(|h| h.matches(bytes)) {
            return Err(invalid(&format!(
                "file {path} does not match its fragment's hash"
            )));
        }
    }
    Ok(())
}

/// The inputs a remote depfile names besides the source.
fn depfile_inputs(bytes: &[u8]) -> Result<Vec<String>, RemoteError> {
    crate::depfile::extra_inputs(&String::from_utf8_lossy(bytes))
        .ok_or_else(|| RemoteError::Invalid("the remote depfile is malformed".into()))
}

fn recently_failed(state: &Path) -> bool {
    let marker = state.join(OUTAGE_MARKER);
    let Ok(modified) = fs::metadata(&marker).and_then(|m| m.modified()) else {
        return false;
    };
    let fresh = SystemTime::now()
        .duration_since(modified)
        .is_ok_and(|age| age < OUTAGE_PAUSE);
    if !fresh {
        let _ = fs::remove_file(&marker);
    }
    fresh
}

/// Marks the remote unavailable; the edge that creates the marker warns.
fn mark_unavailable(args: &RemoteSettings, state: Option<&Path>, error: &RemoteError) {
    let created = match state {
        Some(state) => {
            let _ = fs::create_dir_all(state);
            fs::File::create_new(state.join(OUTAGE_MARKER)).is_ok()
        }
        None => true,
    };
    if created {
        let url = args.url.as_deref().unwrap_or_default();
        let cause = cli::with_causes(error, ": ");
        let pause = OUTAGE_PAUSE.as_secs();
        let warning = if error.refused_store() || error.busy() {
            format!(
                "remote {url}: upload failed: {cause}; not using the remote for the next {pause} s"
            )
        } else {
            format!(
                "remote {url} is unavailable ({cause}); encoding locally for the next {pause} s"
            )
        };
        cli::warn("assetc-encode", &warning);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fragment::FileHash;

    #[test]
    fn a_result_must_hold_what_its_fragment_lists() {
        let fragment = Fragment {
            source: "ui/a.png".into(),
            files: vec!["ui/a.ktx2".into()],
            hashes: vec![FileHash::of("ui/a.ktx2", b"ktx")],
            ..Fragment::default()
        }
        .render();
        let file = |bytes: &[u8]| vec![("ui/a.ktx2".to_owned(), bytes.to_vec())];
        assert!(check_against_fragment(&file(b"ktx"), fragment.as_bytes()).is_ok());
        assert!(check_against_fragment(&file(b"kt?"), fragment.as_bytes()).is_err());
        assert!(check_against_fragment(&[], fragment.as_bytes()).is_err());
        assert!(check_against_fragment(&file(b"ktx"), b"not a fragment").is_err());
    }
}
