//! The change feed: every connected client gets each build's block of lines
//! (the protocol is documented in [`crate::hot_reload`]).

use std::io::Write as _;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};

use crate::hot_reload::PROTOCOL_VERSION;

/// The listening socket and its clients.
#[derive(Clone)]
pub struct Feed {
    clients: Arc<Mutex<Clients>>,
    address: SocketAddr,
}

/// The connected clients and the generation they were last told.
struct Clients {
    streams: Vec<TcpStream>,
    generation: u64,
}

impl Feed {
    /// Listens on `address` and accepts clients on a thread of its own.
    pub fn listen(address: SocketAddr) -> std::io::Result<Self> {
        let listener = TcpListener::bind(address)?;
        let feed = Self {
            clients: Arc::new(Mutex::new(Clients {
                streams: Vec::new(),
                generation: 0,
            })),
            address: listener.local_addr()?,
        };
        let accepting = feed.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                accepting.welcome(stream);
            }
        });
        Ok(feed)
    }

    /// Where clients connect.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Greets a new client with the current generation.
    fn welcome(&self, mut stream: TcpStream) {
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        let hello = format!(
            "hello assetc-watch {PROTOCOL_VERSION} {}\n",
            clients.generation
        );
        if stream.write_all(hello.as_bytes()).is_ok() {
            let _ = stream.set_nodelay(true);
            clients.streams.push(stream);
        }
    }

    /// Sends one build's block to every client, dropping those that left.
    pub fn publish(&self, generation: u64, block: &str) {
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        clients.generation = generation;
        clients
            .streams
            .retain_mut(|stream| stream.write_all(block.as_bytes()).is_ok());
    }
}

/// The lines of one build, as [`crate::hot_reload::WatchClient`] reads them.
pub fn block(outcome: &super::build::Outcome) -> String {
    let id = |id: Option<u64>| id.map_or_else(|| "-".to_owned(), crate::format::hash::hex_id);
    let status = if outcome.ok { "ok" } else { "failed" };
    let mut text = format!("build {} {status}\n", outcome.generation);
    for (path, file_id) in &outcome.changed {
        text.push_str(&format!("changed {} {path}\n", id(*file_id)));
    }
    for (path, file_id) in &outcome.removed {
        text.push_str(&format!("removed {} {path}\n", id(Some(*file_id))));
    }
    for pack in &outcome.packs {
        text.push_str(&format!("pack {pack}\n"));
    }
    for error in &outcome.errors {
        text.push_str(&format!("error {}\n", error.replace(['\n', '\r'], " ")));
    }
    text.push_str("end\n");
    text
}
