//! The messages between an edge and the build's remote service, over its
//! Unix socket: each one a little-endian `u32` length, then a protobuf
//! message ([`Request`] or [`Reply`]) that reuses the REAPI types.

use std::io::{self, Read, Write};

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
use prost::Message;

/// The largest message either side accepts.
const MAX_MESSAGE: usize = 1 << 31;

/// What an edge asks (`op` is one of the `OP_` constants).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Request {
    /// The operation.
    #[prost(uint32, tag = "1")]
    pub op: u32,
    /// `OP_HELLO`: the SHA-256 of the edge's `assetc-encode`.
    #[prost(string, tag = "2")]
    pub tool: String,
    /// `OP_HELLO`: the fingerprint of the edge's remote settings.
    #[prost(string, tag = "3")]
    pub settings: String,
    /// `OP_RESULT`, `OP_STORE`: the action.
    #[prost(message, optional, tag = "4")]
    pub action: Option<re::Digest>,
    /// `OP_READ`: the blobs wanted.
    #[prost(message, repeated, tag = "5")]
    pub digests: Vec<re::Digest>,
    /// `OP_STORE`: the result to record.
    #[prost(message, optional, tag = "6")]
    pub result: Option<re::ActionResult>,
    /// `OP_STORE`: the blobs the result and the action need.
    #[prost(message, repeated, tag = "7")]
    pub blobs: Vec<re::batch_update_blobs_request::Request>,
}

/// Opens a session: the service answers [`STATUS_MISMATCH`] when it serves
/// another tool or other settings.
pub const OP_HELLO: u32 = 1;
/// The cached result of an action.
pub const OP_RESULT: u32 = 2;
/// Blobs, in the order asked.
pub const OP_READ: u32 = 3;
/// Stores a result; answered at once, uploaded in the background.
pub const OP_STORE: u32 = 4;

/// The service's answer.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Reply {
    /// One of the `STATUS_` constants.
    #[prost(uint32, tag = "1")]
    pub status: u32,
    /// `OP_RESULT`: the result found.
    #[prost(message, optional, tag = "2")]
    pub result: Option<re::ActionResult>,
    /// `OP_READ`: the blobs, in the order asked.
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub blobs: Vec<Vec<u8>>,
    /// Build-wide warnings the edge prints (each is given to one edge only).
    #[prost(string, repeated, tag = "4")]
    pub warnings: Vec<String>,
    /// What went wrong, for `STATUS_FAILED` and `STATUS_DOWN`.
    #[prost(string, tag = "5")]
    pub message: String,
    /// The request waited on the server for more than a second.
    #[prost(bool, tag = "6")]
    pub waited: bool,
}

/// Done.
pub const STATUS_OK: u32 = 0;
/// The server has no such result.
pub const STATUS_NOT_FOUND: u32 = 1;
/// The remote is not used for the rest of this build.
pub const STATUS_DOWN: u32 = 2;
/// The service serves another tool or other settings.
pub const STATUS_MISMATCH: u32 = 3;
/// This request failed (a malformed answer, a blob that does not match).
pub const STATUS_FAILED: u32 = 4;

/// Writes one framed message.
pub fn write_message(out: &mut impl Write, message: &impl Message) -> io::Result<()> {
    let bytes = message.encode_to_vec();
    let length = u32::try_from(bytes.len())
        .ok()
        .filter(|&n| (n as usize) < MAX_MESSAGE)
        .ok_or_else(|| io::Error::other("message too large for the service socket"))?;
    let mut framed = Vec::with_capacity(bytes.len() + 4);
    framed.extend_from_slice(&length.to_le_bytes());
    framed.extend_from_slice(&bytes);
    out.write_all(&framed)?;
    out.flush()
}

/// Reads one framed message.
pub fn read_message<M: Message + Default>(input: &mut impl Read) -> io::Result<M> {
    let mut length = [0u8; 4];
    input.read_exact(&mut length)?;
    let mut bytes = vec![0u8; frame_length(length)?];
    input.read_exact(&mut bytes)?;
    decode(&bytes)
}

/// The payload length a frame header announces, checked against the limit.
pub fn frame_length(header: [u8; 4]) -> io::Result<usize> {
    let length = u32::from_le_bytes(header) as usize;
    if length >= MAX_MESSAGE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the service socket announced an oversized message",
        ));
    }
    Ok(length)
}

/// Decodes a payload.
pub fn decode<M: Message + Default>(bytes: &[u8]) -> io::Result<M> {
    M::decode(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_through_frames() {
        let request = Request {
            op: OP_READ,
            digests: vec![re::Digest {
                hash: "ab".into(),
                size_bytes: 2,
            }],
            ..Request::default()
        };
        let mut wire = Vec::new();
        write_message(&mut wire, &request).unwrap();
        assert_eq!(wire.len(), 4 + request.encoded_len());
        let back: Request = read_message(&mut wire.as_slice()).unwrap();
        assert_eq!(back, request);
        // A cut frame is an error, not a panic.
        assert!(read_message::<Request>(&mut &wire[..wire.len() - 1]).is_err());
        assert!(frame_length([0xff; 4]).is_err());
    }
}
