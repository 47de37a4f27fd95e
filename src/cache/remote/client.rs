//! A blocking client for the parts of REAPI v2 an encode edge uses: the
//! action cache, the content-addressable storage (batch calls for small
//! blobs, ByteStream for large ones) and execution.
//!
//! [`Upstream`] is the asynchronous client over one HTTP/2 channel, which
//! the build's remote service shares between every edge; [`Remote`] wraps it
//! in a single-threaded Tokio runtime for an edge that talks to the server
//! itself. Every call has its own short deadline, enforced on this side, so
//! a hung server or a silent link costs seconds, not minutes. Every blob
//! read back is checked against its SHA-256 digest before anyone sees it.

use std::time::Duration;

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
use bazel_remote_apis::google::bytestream as bs;
use bazel_remote_apis::google::longrunning as lro;
use prost::Message;
use tonic::metadata::{AsciiMetadataKey, AsciiMetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

use crate::cache::digest::digest_of;
use crate::config::RemoteSettings;

/// The environment variable holding extra request headers (one
/// `name: value` per line), for authentication tokens: they never appear in
/// `build.ninja`, a key or a log.
pub const HEADERS_ENV: &str = "ASSETC_REMOTE_HEADERS";

/// Blobs up to this size travel in batch calls; larger ones by ByteStream.
/// Below the 4 MiB gRPC message limit every server accepts.
const BATCH_LIMIT: usize = 3 << 20;

/// ByteStream chunk size.
const CHUNK: usize = 1 << 20;

/// How long making the connection may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a lookup (an action result, a missing-blob query) may take.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(3);

/// The base deadline of a call that moves blobs; each MiB adds a second.
const TRANSFER_TIMEOUT: Duration = Duration::from_secs(5);

/// The deadline of a call that moves `bytes`.
fn transfer_timeout(bytes: usize) -> Duration {
    TRANSFER_TIMEOUT + Duration::from_secs((bytes >> 20) as u64)
}

/// What went wrong talking to the remote.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The address or TLS files are unusable.
    #[error("remote {endpoint}: {what}")]
    Setup {
        /// The address.
        endpoint: String,
        /// What is wrong.
        what: String,
    },
    /// No connection could be made.
    #[error("cannot connect to {endpoint}")]
    Connect {
        /// The address.
        endpoint: String,
        /// The cause.
        #[source]
        source: tonic::transport::Error,
    },
    /// A call failed.
    #[error("{call} failed: {status}")]
    Call {
        /// The RPC.
        call: &'static str,
        /// The server's answer.
        status: Box<tonic::Status>,
    },
    /// The server could not run an action (no worker, a queue time-out, a
    /// worker error): the remote is failing, not the edge.
    #[error("the remote run did not complete: {message} (code {code})")]
    Execution {
        /// The `google.rpc.Code`.
        code: i32,
        /// The server's message.
        message: String,
    },
    /// The server would not store a blob (its storage is full, or this
    /// client may not write).
    #[error("the server refused to store blob {hash}: {message} (code {code})")]
    Refused {
        /// The blob.
        hash: String,
        /// The `google.rpc.Code`.
        code: i32,
        /// The server's message.
        message: String,
    },
    /// A call did not finish before its deadline.
    #[error("{call} timed out after {} s", .after.as_secs_f32())]
    TimedOut {
        /// The RPC.
        call: &'static str,
        /// The deadline.
        after: Duration,
    },
    /// A blob did not match its digest, or an answer was malformed.
    #[error("{0}")]
    Invalid(String),
    /// The build's remote service decided, for the whole build, not to use
    /// the remote any more (it already said why, once).
    #[error("the remote is not used for the rest of this build: {0}")]
    Unavailable(String),
    /// The build's remote service went away mid-request; the edge talks to
    /// the server itself instead.
    #[error("the build's remote service failed: {0}")]
    Service(#[source] std::io::Error),
}

impl RemoteError {
    /// Whether the server refused to store (its storage is full, or this
    /// client may not write), rather than that it is gone.
    pub fn refused_store(&self) -> bool {
        matches!(self, RemoteError::Call { status, .. } if matches!(
            status.code(),
            tonic::Code::PermissionDenied | tonic::Code::Unauthenticated
        )) || matches!(self, RemoteError::Refused { .. })
    }

    /// Whether the server turned the call away for now (`RESOURCE_EXHAUSTED`:
    /// too many calls at once, or no room): worth asking again shortly.
    pub fn busy(&self) -> bool {
        matches!(self, RemoteError::Call { status, .. }
            if status.code() == tonic::Code::ResourceExhausted)
    }
}

fn call(name: &'static str) -> impl Fn(tonic::Status) -> RemoteError {
    move |status| RemoteError::Call {
        call: name,
        status: Box::new(status),
    }
}

/// Adds the configured headers to every request.
#[derive(Debug, Clone, Default)]
pub struct Headers(Vec<(AsciiMetadataKey, AsciiMetadataValue)>);

impl Headers {
    /// Reads [`HEADERS_ENV`]; a malformed line is an error naming the line
    /// number (never its text, which may hold a secret).
    fn from_env() -> Result<Self, String> {
        Self::parse(&std::env::var(HEADERS_ENV).unwrap_or_default())
    }

    /// Reads `name: value` lines; blank lines are skipped.
    fn parse(text: &str) -> Result<Self, String> {
        let mut headers = Vec::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed = line.split_once(':').and_then(|(name, value)| {
                let name = name.trim().to_ascii_lowercase().parse().ok()?;
                Some((name, value.trim().parse().ok()?))
            });
            let Some(header) = parsed else {
                return Err(format!(
                    "{HEADERS_ENV} line {} is not `name: value`",
                    index + 1
                ));
            };
            headers.push(header);
        }
        Ok(Self(headers))
    }
}

impl Interceptor for Headers {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        for (name, value) in &self.0 {
            request.metadata_mut().insert(name.clone(), value.clone());
        }
        Ok(request)
    }
}

type Transport = InterceptedService<Channel, Headers>;

/// Where the bytes of a blob to upload are.
#[derive(Debug, Clone, Copy)]
pub enum Blob<'a> {
    /// In memory.
    Bytes(&'a [u8]),
    /// In a file, read only if the server does not have the blob.
    File(&'a std::path::Path),
}

impl Blob<'_> {
    fn bytes(&self) -> Result<std::borrow::Cow<'_, [u8]>, RemoteError> {
        match self {
            Blob::Bytes(bytes) => Ok(std::borrow::Cow::Borrowed(bytes)),
            Blob::File(path) => std::fs::read(path)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| RemoteError::Invalid(format!("{}: {e}", path.display()))),
        }
    }
}

/// Runs `call` under `deadline`, enforced on this side: a server that never
/// answers costs the deadline, whatever the server does with the header.
async fn within<T>(
    name: &'static str,
    deadline: Duration,
    call: impl std::future::Future<Output = Result<T, RemoteError>>,
) -> Result<T, RemoteError> {
    tokio::time::timeout(deadline, call)
        .await
        .unwrap_or(Err(RemoteError::TimedOut {
            call: name,
            after: deadline,
        }))
}

/// A request that tells the server its deadline. The header is a little
/// later than the deadline [`within`] enforces here, so the error a client
/// sees is always the plain "timed out".
fn timed<T>(message: T, deadline: Duration) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.set_timeout(deadline + Duration::from_millis(500));
    request
}

/// One unary call `name` under `deadline`: `send` makes it with the request
/// [`timed`] to tell the server, and [`within`] enforces it here.
async fn unary<M, R, F>(
    name: &'static str,
    deadline: Duration,
    message: M,
    send: impl FnOnce(tonic::Request<M>) -> F,
) -> Result<R, RemoteError>
where
    F: std::future::Future<Output = Result<tonic::Response<R>, tonic::Status>>,
{
    let call = async {
        send(timed(message, deadline))
            .await
            .map(tonic::Response::into_inner)
            .map_err(call(name))
    };
    within(name, deadline, call).await
}

/// An asynchronous client of one REAPI instance over one HTTP/2 channel;
/// clones share the channel, so concurrent calls are multiplexed on it.
#[derive(Clone)]
pub struct Upstream {
    channel: Transport,
    instance: String,
}

impl Upstream {
    /// Connects to the server `args` names, within [`CONNECT_TIMEOUT`].
    pub async fn connect(args: &RemoteSettings) -> Result<Self, RemoteError> {
        let url = args.url.as_deref().unwrap_or_default();
        let setup = |what: String| RemoteError::Setup {
            endpoint: url.to_owned(),
            what,
        };
        let endpoint = endpoint(args).map_err(setup)?;
        let headers = Headers::from_env().map_err(setup)?;
        let connecting = async {
            endpoint
                .connect()
                .await
                .map_err(|source| RemoteError::Connect {
                    endpoint: url.to_owned(),
                    source,
                })
        };
        let channel = within("connect", CONNECT_TIMEOUT, connecting).await?;
        Ok(Self {
            channel: InterceptedService::new(channel, headers),
            instance: args.instance.clone().unwrap_or_default(),
        })
    }

    /// The cached result of `action`, if the server has one.
    pub async fn action_result(
        &self,
        action: &re::Digest,
    ) -> Result<Option<re::ActionResult>, RemoteError> {
        let mut client = re::action_cache_client::ActionCacheClient::new(self.channel.clone());
        let request = re::GetActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            inline_stdout: true,
            inline_stderr: true,
            digest_function: re::digest_function::Value::Sha256 as i32,
            ..Default::default()
        };
        let found = unary("GetActionResult", LOOKUP_TIMEOUT, request, |r| {
            client.get_action_result(r)
        });
        match found.await {
            Ok(result) => Ok(Some(result)),
            Err(RemoteError::Call { status, .. }) if status.code() == tonic::Code::NotFound => {
                Ok(None)
            }
            Err(error) => Err(error),
        }
    }

    /// Stores `result` as the result of `action`.
    pub async fn update_action_result(
        &self,
        action: &re::Digest,
        result: re::ActionResult,
    ) -> Result<(), RemoteError> {
        let mut client = re::action_cache_client::ActionCacheClient::new(self.channel.clone());
        let request = re::UpdateActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            action_result: Some(result),
            digest_function: re::digest_function::Value::Sha256 as i32,
            ..Default::default()
        };
        unary("UpdateActionResult", transfer_timeout(0), request, |r| {
            client.update_action_result(r)
        })
        .await
        .map(drop)
    }

    /// Uploads the blobs the server does not have yet; a file is read only
    /// when it is missing there.
    pub async fn upload(&self, blobs: &[(re::Digest, Blob<'_>)]) -> Result<(), RemoteError> {
        let missing = self.find_missing(blobs).await?;
        let mut batch = Vec::new();
        let mut batch_size = 0;
        for (digest, blob) in blobs.iter().filter(|(d, _)| missing.contains(d)) {
            let bytes = blob.bytes()?;
            if bytes.len() > BATCH_LIMIT {
                self.write_stream(digest, &bytes).await?;
                continue;
            }
            if batch_size + bytes.len() > BATCH_LIMIT {
                self.write_batch(std::mem::take(&mut batch)).await?;
                batch_size = 0;
            }
            batch_size += bytes.len();
            batch.push((digest.clone(), bytes.into_owned()));
        }
        if !batch.is_empty() {
            self.write_batch(batch).await?;
        }
        Ok(())
    }

    async fn find_missing(
        &self,
        blobs: &[(re::Digest, Blob<'_>)],
    ) -> Result<Vec<re::Digest>, RemoteError> {
        let request = re::FindMissingBlobsRequest {
            instance_name: self.instance.clone(),
            blob_digests: blobs.iter().map(|(d, _)| d.clone()).collect(),
            digest_function: re::digest_function::Value::Sha256 as i32,
        };
        let mut cas = self.cas();
        unary("FindMissingBlobs", LOOKUP_TIMEOUT, request, |r| {
            cas.find_missing_blobs(r)
        })
        .await
        .map(|found| found.missing_blob_digests)
    }

    fn cas(
        &self,
    ) -> re::content_addressable_storage_client::ContentAddressableStorageClient<Transport> {
        re::content_addressable_storage_client::ContentAddressableStorageClient::new(
            self.channel.clone(),
        )
    }

    async fn write_batch(&self, blobs: Vec<(re::Digest, Vec<u8>)>) -> Result<(), RemoteError> {
        let size = blobs.iter().map(|(_, b)| b.len()).sum();
        let request = re::BatchUpdateBlobsRequest {
            instance_name: self.instance.clone(),
            requests: blobs
                .into_iter()
                .map(|(digest, data)| re::batch_update_blobs_request::Request {
                    digest: Some(digest),
                    data,
                    ..Default::default()
                })
                .collect(),
            digest_function: re::digest_function::Value::Sha256 as i32,
        };
        let mut cas = self.cas();
        let answers = unary("BatchUpdateBlobs", transfer_timeout(size), request, |r| {
            cas.batch_update_blobs(r)
        })
        .await?;
        match answers
            .responses
            .into_iter()
            .find(|r| r.status.as_ref().is_some_and(|s| s.code != 0))
        {
            Some(refused) => {
                let status = refused.status.unwrap_or_default();
                Err(RemoteError::Refused {
                    hash: refused.digest.map(|d| d.hash).unwrap_or_default(),
                    code: status.code,
                    message: status.message,
                })
            }
            None => Ok(()),
        }
    }

    async fn write_stream(&self, digest: &re::Digest, bytes: &[u8]) -> Result<(), RemoteError> {
        let resource = format!(
            "{}uploads/{}/blobs/{}/{}",
            self.prefix(),
            upload_id(),
            digest.hash,
            digest.size_bytes
        );
        let chunks: Vec<bs::WriteRequest> = bytes
            .chunks(CHUNK)
            .enumerate()
            .map(|(index, chunk)| bs::WriteRequest {
                resource_name: if index == 0 {
                    resource.clone()
                } else {
                    String::new()
                },
                write_offset: (index * CHUNK) as i64,
                finish_write: (index + 1) * CHUNK >= bytes.len(),
                data: chunk.to_vec(),
            })
            .collect();
        let mut client = bs::byte_stream_client::ByteStreamClient::new(self.channel.clone());
        let call = async {
            client
                .write(tokio_stream::iter(chunks))
                .await
                .map_err(call("ByteStream.Write"))
        };
        let written = within("ByteStream.Write", transfer_timeout(bytes.len()), call)
            .await?
            .into_inner();
        if written.committed_size != digest.size_bytes {
            return Err(RemoteError::Invalid(format!(
                "the server kept {} of {} bytes of blob {}",
                written.committed_size, digest.size_bytes, digest.hash
            )));
        }
        Ok(())
    }

    /// `<instance>/`, or nothing for the default instance.
    fn prefix(&self) -> String {
        if self.instance.is_empty() {
            String::new()
        } else {
            format!("{}/", self.instance)
        }
    }

    /// Downloads `digests`, each checked against its SHA-256.
    pub async fn download(&self, digests: &[re::Digest]) -> Result<Vec<Vec<u8>>, RemoteError> {
        let small: Vec<re::Digest> = digests
            .iter()
            .filter(|d| d.size_bytes as usize <= BATCH_LIMIT)
            .cloned()
            .collect();
        let mut batched = self.read_batches(&small).await?;
        let mut found = Vec::with_capacity(digests.len());
        for digest in digests {
            let bytes = match batched.iter().position(|(d, _)| d == digest) {
                Some(index) => batched.swap_remove(index).1,
                None if digest.size_bytes as usize > BATCH_LIMIT => {
                    self.read_stream(digest).await?
                }
                None => {
                    return Err(RemoteError::Invalid(format!(
                        "blob {} was not sent",
                        digest.hash
                    )));
                }
            };
            found.push(checked(digest, bytes)?);
        }
        Ok(found)
    }

    async fn read_batches(
        &self,
        digests: &[re::Digest],
    ) -> Result<Vec<(re::Digest, Vec<u8>)>, RemoteError> {
        let mut found = Vec::new();
        let mut start = 0;
        while start < digests.len() {
            let mut end = start;
            let mut size = 0;
            while end < digests.len()
                && (end == start || size + digests[end].size_bytes as usize <= BATCH_LIMIT)
            {
                size += digests[end].size_bytes as usize;
                end += 1;
            }
            found.extend(self.read_batch(&digests[start..end], size).await?);
            start = end;
        }
        Ok(found)
    }

    async fn read_batch(
        &self,
        digests: &[re::Digest],
        size: usize,
    ) -> Result<Vec<(re::Digest, Vec<u8>)>, RemoteError> {
        let request = re::BatchReadBlobsRequest {
            instance_name: self.instance.clone(),
            digests: digests.to_vec(),
            digest_function: re::digest_function::Value::Sha256 as i32,
            ..Default::default()
        };
        let mut cas = self.cas();
        let answers = unary("BatchReadBlobs", transfer_timeout(size), request, |r| {
            cas.batch_read_blobs(r)
        })
        .await?;
        let mut found = Vec::with_capacity(answers.responses.len());
        for answer in answers.responses {
            if answer.status.as_ref().is_some_and(|s| s.code != 0) {
                let hash = answer.digest.map(|d| d.hash).unwrap_or_default();
                return Err(RemoteError::Invalid(format!(
                    "blob {hash} is not in the storage"
                )));
            }
            if let Some(digest) = answer.digest {
                found.push((digest, answer.data));
            }
        }
        Ok(found)
    }

    async fn read_stream(&self, digest: &re::Digest) -> Result<Vec<u8>, RemoteError> {
        let resource = format!(
            "{}blobs/{}/{}",
            self.prefix(),
            digest.hash,
            digest.size_bytes
        );
        let mut client = bs::byte_stream_client::ByteStreamClient::new(self.channel.clone());
        let request = bs::ReadRequest {
            resource_name: resource,
            read_offset: 0,
            read_limit: 0,
        };
        let deadline = transfer_timeout(digest.size_bytes.max(0) as usize);
        let call = async {
            let mut stream = client
                .read(timed(request, deadline))
                .await
                .map_err(call("ByteStream.Read"))?
                .into_inner();
            let mut bytes = Vec::with_capacity(digest.size_bytes.max(0) as usize);
            while let Some(chunk) = stream.message().await.map_err(call("ByteStream.Read"))? {
                if bytes.len() + chunk.data.len() > digest.size_bytes as usize {
                    return Err(RemoteError::Invalid(format!(
                        "blob {} is longer than its digest",
                        digest.hash
                    )));
                }
                bytes.extend_from_slice(&chunk.data);
            }
            Ok(bytes)
        };
        within("ByteStream.Read", deadline, call).await
    }

    /// Runs `action` on the server's workers (or takes its cached result)
    /// and waits for the answer, however long the run takes.
    pub async fn execute(&self, action: &re::Digest) -> Result<re::ExecuteResponse, RemoteError> {
        let mut client = re::execution_client::ExecutionClient::new(self.channel.clone());
        let request = re::ExecuteRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            skip_cache_lookup: false,
            digest_function: re::digest_function::Value::Sha256 as i32,
            ..Default::default()
        };
        let mut stream = client
            .execute(request)
            .await
            .map_err(call("Execute"))?
            .into_inner();
        let mut name = String::new();
        let mut reconnects = 0;
        loop {
            match stream.message().await.map_err(call("Execute"))? {
                Some(operation) if operation.done => return finished(operation),
                Some(operation) => name = operation.name,
                // The stream may end before the action does: wait on.
                None if !name.is_empty() && reconnects < MAX_WAITS => {
                    reconnects += 1;
                    let wait = re::WaitExecutionRequest { name: name.clone() };
                    stream = client
                        .wait_execution(wait)
                        .await
                        .map_err(call("WaitExecution"))?
                        .into_inner();
                }
                None => {
                    return Err(RemoteError::Invalid(
                        "the execution stream ended before the action finished".into(),
                    ));
                }
            }
        }
    }
}

/// `bytes` if they match `digest`; a mismatch rejects the blob.
pub fn checked(digest: &re::Digest, bytes: Vec<u8>) -> Result<Vec<u8>, RemoteError> {
    if digest_of(&bytes) != *digest {
        return Err(RemoteError::Invalid(format!(
            "blob {} does not match its digest; rejected",
            digest.hash
        )));
    }
    Ok(bytes)
}

/// A blocking connection to one REAPI instance, for an edge that talks to
/// the server itself: an [`Upstream`] on a single-threaded runtime.
pub struct Remote {
    runtime: tokio::runtime::Runtime,
    upstream: Upstream,
}

impl Remote {
    /// Connects to the server `args` names, failing fast when nobody answers.
    pub fn connect(args: &RemoteSettings) -> Result<Self, RemoteError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| RemoteError::Setup {
                endpoint: args.url.clone().unwrap_or_default(),
                what: e.to_string(),
            })?;
        let upstream = runtime.block_on(Upstream::connect(args))?;
        Ok(Self { runtime, upstream })
    }

    /// See [`Upstream::action_result`].
    pub fn action_result(
        &self,
        action: &re::Digest,
    ) -> Result<Option<re::ActionResult>, RemoteError> {
        self.runtime.block_on(self.upstream.action_result(action))
    }

    /// See [`Upstream::update_action_result`].
    pub fn update_action_result(
        &self,
        action: &re::Digest,
        result: re::ActionResult,
    ) -> Result<(), RemoteError> {
        self.runtime
            .block_on(self.upstream.update_action_result(action, result))
    }

    /// See [`Upstream::upload`].
    pub fn upload(&self, blobs: &[(re::Digest, Blob)]) -> Result<(), RemoteError> {
        self.runtime.block_on(self.upstream.upload(blobs))
    }

    /// See [`Upstream::download`].
    pub fn download(&self, digests: &[re::Digest]) -> Result<Vec<Vec<u8>>, RemoteError> {
        self.runtime.block_on(self.upstream.download(digests))
    }

    /// See [`Upstream::execute`].
    pub fn execute(&self, action: &re::Digest) -> Result<re::ExecuteResponse, RemoteError> {
        self.runtime.block_on(self.upstream.execute(action))
    }
}

/// How many times a broken execution stream is resumed.
const MAX_WAITS: u32 = 100;

/// The `ExecuteResponse` inside a finished operation.
fn finished(operation: lro::Operation) -> Result<re::ExecuteResponse, RemoteError> {
    match operation.result {
        Some(lro::operation::Result::Response(any)) => {
            re::ExecuteResponse::decode(any.value.as_slice())
                .map_err(|e| RemoteError::Invalid(format!("bad ExecuteResponse: {e}")))
        }
        Some(lro::operation::Result::Error(status)) => Err(RemoteError::Invalid(format!(
            "the execution failed: {} (code {})",
            status.message, status.code
        ))),
        None => Err(RemoteError::Invalid(
            "a finished operation carries no result".into(),
        )),
    }
}

/// A name unique to this upload.
fn upload_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("assetc-{}-{nanos:x}", std::process::id())
}

/// The tonic endpoint for `--remote`: `grpc://` is plain HTTP/2, `grpcs://`
/// is TLS with the system's roots, plus `--remote-ca` and a client
/// certificate when given.
fn endpoint(args: &RemoteSettings) -> Result<Endpoint, String> {
    let url = args.url.as_deref().unwrap_or_default();
    let (tls, rest) = if let Some(rest) = url
        .strip_prefix("grpcs://")
        .or(url.strip_prefix("https://"))
    {
        (true, rest)
    } else if let Some(rest) = url.strip_prefix("grpc://").or(url.strip_prefix("http://")) {
        (false, rest)
    } else {
        return Err("the address must start with grpc:// or grpcs://".into());
    };
    let scheme = if tls { "https" } else { "http" };
    let mut endpoint = Endpoint::from_shared(format!("{scheme}://{rest}"))
        .map_err(|e| e.to_string())?
        .connect_timeout(CONNECT_TIMEOUT)
        .tcp_nodelay(true);
    if tls {
        let mut config = ClientTlsConfig::new().with_native_roots();
        if let Some(ca) = &args.ca {
            let pem = std::fs::read(ca).map_err(|e| format!("{}: {e}", ca.display()))?;
            config = config.ca_certificate(Certificate::from_pem(pem));
        }
        if let (Some(cert), Some(key)) = (&args.cert, &args.key) {
            let read =
                |p: &std::path::Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
            config = config.identity(Identity::from_pem(read(cert)?, read(key)?));
        }
        endpoint = endpoint.tls_config(config).map_err(|e| e.to_string())?;
    }
    Ok(endpoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_read_and_bad_lines_named_without_their_text() {
        let headers = Headers::parse("Authorization: Bearer s3cret\n\nx-api-key:k ").unwrap();
        let names: Vec<&str> = headers.0.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["authorization", "x-api-key"]);
        assert_eq!(headers.0[0].1, "Bearer s3cret");
        let error = Headers::parse("a: 1\nno colon s3cret").unwrap_err();
        assert!(
            error.contains("line 2") && !error.contains("s3cret"),
            "{error}"
        );
    }

    #[test]
    fn addresses_need_a_grpc_scheme() {
        let args = |url: &str| RemoteSettings {
            url: Some(url.into()),
            ..RemoteSettings::default()
        };
        assert!(endpoint(&args("grpc://127.0.0.1:1")).is_ok());
        assert!(endpoint(&args("grpcs://example.org")).is_ok());
        assert!(endpoint(&args("127.0.0.1:1")).is_err());
        assert!(endpoint(&args("ftp://x")).is_err());
    }
}
