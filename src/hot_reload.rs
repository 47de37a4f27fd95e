//! The engine's side of `assetc watch`: a client of its change feed, on the
//! standard library alone (no feature needed).
//!
//! `assetc watch` serves a line protocol on a loopback TCP port. On connect a
//! client gets one `hello` line; after every build it gets one block:
//!
//! ```text
//! hello assetc-watch 1 <generation>
//! build <generation> ok|failed
//! changed <id> <path>        one per output file whose bytes changed
//! removed <id> <path>        one per manifest entry that went away
//! pack <path>                a pack file that was rewritten
//! error <text>               one per line of a failed build's errors
//! end
//! ```
//!
//! `<id>` is the manifest id as `0x` and 16 hex digits, or `-` for a file the
//! manifest does not list (such as the generated `assets.h`); `<path>` is the
//! runtime path below the output folder (a pack's is as `assetc watch`
//! printed it), and runs to the end of the line. Unknown line types are
//! skipped, so later versions can add some. [`WatchClient`] reads these
//! blocks as [`Build`]s.

use std::io::{self, BufRead, BufReader};
use std::net::{TcpStream, ToSocketAddrs};

/// The file in the build folder (`.assetc/<preset>/`) where `assetc watch`
/// records the address of its feed, one line such as `127.0.0.1:7879`, so
/// that other tools of the project (`assetc view`) find it.
pub const FEED_ADDRESS_FILE: &str = "watch-feed";

/// The protocol version in the `hello` line.
pub const PROTOCOL_VERSION: u32 = 1;

/// One file a build changed or removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    /// Its manifest id, if the manifest lists it.
    pub id: Option<u64>,
    /// Its runtime path.
    pub path: String,
}

/// What one build did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Build {
    /// Counts builds since `assetc watch` started.
    pub generation: u64,
    /// Whether the build succeeded. After a failure the outputs are the last
    /// good ones.
    pub ok: bool,
    /// Files whose bytes changed.
    pub changed: Vec<ChangedFile>,
    /// Manifest entries that went away.
    pub removed: Vec<ChangedFile>,
    /// Packs that were rewritten.
    pub packs: Vec<String>,
    /// The error lines of a failed build.
    pub errors: Vec<String>,
}

/// A connection to `assetc watch`.
pub struct WatchClient {
    reader: BufReader<TcpStream>,
    generation: u64,
}

impl WatchClient {
    /// Connects and reads the `hello` line.
    pub fn connect(address: impl ToSocketAddrs) -> io::Result<Self> {
        let stream = TcpStream::connect(address)?;
        let mut client = Self {
            reader: BufReader::new(stream),
            generation: 0,
        };
        let hello = client.line()?;
        let mut words = hello.split(' ');
        let version = match (words.next(), words.next(), words.next()) {
            (Some("hello"), Some("assetc-watch"), Some(version)) => version.parse::<u32>().ok(),
            _ => None,
        };
        if version != Some(PROTOCOL_VERSION) {
            return Err(invalid(format!("not an assetc watch greeting: {hello:?}")));
        }
        client.generation = words.next().and_then(|g| g.parse().ok()).unwrap_or(0);
        Ok(client)
    }

    /// The generation of the last build the server had finished when this
    /// client connected, or of the last [`Build`] read.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The address of the `assetc watch` this client follows.
    pub fn peer_address(&self) -> io::Result<std::net::SocketAddr> {
        self.reader.get_ref().peer_addr()
    }

    /// Waits for the next build and returns what it did.
    pub fn next_build(&mut self) -> io::Result<Build> {
        let mut build = Build::default();
        loop {
            let line = self.line()?;
            let (kind, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
            match kind {
                "build" => {
                    let (generation, status) = rest.split_once(' ').unwrap_or((rest, ""));
                    build.generation = generation
                        .parse()
                        .map_err(|_| invalid(format!("bad build line {line:?}")))?;
                    build.ok = status == "ok";
                }
                "changed" => build.changed.push(changed_file(rest)?),
                "removed" => build.removed.push(changed_file(rest)?),
                "pack" => build.packs.push(rest.to_owned()),
                "error" => build.errors.push(rest.to_owned()),
                "end" => {
                    self.generation = build.generation;
                    return Ok(build);
                }
                _ => {}
            }
        }
    }

    /// One line without its end; an error at the end of the stream.
    fn line(&mut self) -> io::Result<String> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "assetc watch closed the connection",
            ));
        }
        Ok(line.trim_end_matches(['\n', '\r']).to_owned())
    }
}

/// Parses `<id> <path>`.
fn changed_file(rest: &str) -> io::Result<ChangedFile> {
    let (id, path) = rest
        .split_once(' ')
        .ok_or_else(|| invalid(format!("expected `<id> <path>`, got {rest:?}")))?;
    let id = match id {
        "-" => None,
        hex => Some(
            hex.strip_prefix("0x")
                .and_then(|digits| u64::from_str_radix(digits, 16).ok())
                .ok_or_else(|| invalid(format!("bad id {hex:?}")))?,
        ),
    };
    Ok(ChangedFile {
        id,
        path: path.to_owned(),
    })
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_lines_parse_and_bad_ones_are_refused() {
        assert_eq!(
            changed_file("0x00000000000000ff ui/a b.ktx2").unwrap(),
            ChangedFile {
                id: Some(255),
                path: "ui/a b.ktx2".into()
            }
        );
        assert_eq!(changed_file("- assets.h").unwrap().id, None);
        assert!(changed_file("ff x").is_err());
        assert!(changed_file("0x1").is_err());
    }
}
