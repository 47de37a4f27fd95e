//! SHA-256 digests in the shape REAPI names blobs by: the action key
//! ([`super::key`]) and the remote cache ([`super::remote`]) both digest
//! bytes with [`digest_of`].

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
use sha2::{Digest as _, Sha256};

/// The digest of `bytes`.
pub fn digest_of(bytes: &[u8]) -> re::Digest {
    re::Digest {
        hash: hex(&Sha256::digest(bytes)),
        size_bytes: bytes.len() as i64,
    }
}

/// Lower-case hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
