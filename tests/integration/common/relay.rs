//! A TCP relay on loopback that stands for a real network between a build
//! and its REAPI server: it delays every chunk it forwards, counts the gRPC
//! calls that cross it, and can fail the way links and servers fail.
//!
//! Std threads only. Every accepted connection gets its own connection to
//! the upstream and two pipes (client → server, "up", and server → client,
//! "down"), each a reader thread and a writer thread joined by a queue of
//! timestamped chunks. A chunk read at `t` is written at `t + D`, `D` being
//! the one-way delay when it was read, so the round trip is `2·D` while
//! chunks still flow back to back (the delay does not cap throughput).
//!
//! **Calls.** On a plaintext HTTP/2 connection a gRPC client sends exactly
//! one HEADERS frame per call, so the relay counts the HEADERS frames of the
//! up pipe ([`CallCounter`]). A connection that does not open with the
//! HTTP/2 preface (TLS, say) is forwarded but not counted.
//!
//! **Faults**, switchable at run time:
//! - [`Relay::hang`]: every connection stays open and new ones are
//!   accepted, but nothing read from then on is forwarded either way (a
//!   blackholed link, a stopped server). [`Relay::resume`] delivers what was
//!   held back, as a link that comes back would.
//! - [`Relay::blackhole_after_calls`]: forwards normally until `n` calls
//!   went through, then hangs from the first byte of call `n + 1`.
//! - [`Relay::refuse`]: closes the listener and every open connection, so
//!   connecting fails with ECONNREFUSED (a dead server).
//! - [`Relay::cut_each_connection_after`]: closes each connection once a
//!   number of bytes came back from the server (a link that drops
//!   mid-download).

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::ops::Sub;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The 24 bytes an HTTP/2 client sends before its first frame (RFC 9113,
/// section 3.4).
pub const HTTP2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// The frame type of HEADERS (RFC 9113, section 6.2).
const HEADERS_FRAME: u8 = 0x1;

/// The size of an HTTP/2 frame header: length (24 bits), type, flags and
/// stream (31 bits and a reserved bit).
const FRAME_HEADER_LEN: usize = 9;

/// The most bytes one read takes from a socket.
const CHUNK: usize = 64 * 1024;

/// How many times [`Relay::resume`] tries to bind its port again.
const REBIND_ATTEMPTS: u32 = 50;

/// What crossed a relay so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Connections accepted (not counting those refused).
    pub connections: u64,
    /// gRPC calls: HEADERS frames sent client → server on plaintext
    /// HTTP/2 connections.
    pub calls: u64,
    /// Bytes forwarded client → server.
    pub bytes_up: u64,
    /// Bytes forwarded server → client.
    pub bytes_down: u64,
}

impl Sub for Stats {
    type Output = Stats;

    /// What crossed between an earlier reading (`earlier`) and this one.
    fn sub(self, earlier: Stats) -> Stats {
        Stats {
            connections: self.connections - earlier.connections,
            calls: self.calls - earlier.calls,
            bytes_up: self.bytes_up - earlier.bytes_up,
            bytes_down: self.bytes_down - earlier.bytes_down,
        }
    }
}

/// Finds the HEADERS frames in the client → server byte stream of one
/// HTTP/2 connection, fed in chunks of any size.
#[derive(Debug, Default)]
pub struct CallCounter {
    /// How many bytes of the preface were seen.
    preface_seen: usize,
    /// The stream did not start with the preface: nothing is counted.
    not_http2: bool,
    /// The frame header being read, and how much of it came.
    header: [u8; FRAME_HEADER_LEN],
    header_len: usize,
    /// Payload bytes of the current frame still to skip.
    payload_left: usize,
}

impl CallCounter {
    /// A counter at the start of a connection.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next `bytes` of the stream; returns where in `bytes` each
    /// HEADERS frame completed in them starts (0 for one whose header began
    /// in an earlier chunk).
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<usize> {
        let mut starts = Vec::new();
        let mut at = 0;
        while at < bytes.len() && !self.not_http2 {
            let rest = &bytes[at..];
            at += if self.preface_seen < HTTP2_PREFACE.len() {
                self.read_preface(rest)
            } else if self.payload_left > 0 {
                self.skip_payload(rest)
            } else {
                let start = if self.header_len == 0 { at } else { 0 };
                let (taken, headers) = self.read_frame_header(rest);
                if headers {
                    starts.push(start);
                }
                taken
            };
        }
        starts
    }

    /// Whether the stream so far is (the start of) plaintext HTTP/2.
    pub fn is_http2(&self) -> bool {
        !self.not_http2
    }

    fn read_preface(&mut self, bytes: &[u8]) -> usize {
        let expected = &HTTP2_PREFACE[self.preface_seen..];
        let n = expected.len().min(bytes.len());
        if bytes[..n] != expected[..n] {
            self.not_http2 = true;
        }
        self.preface_seen += n;
        n
    }

    fn skip_payload(&mut self, bytes: &[u8]) -> usize {
        let n = self.payload_left.min(bytes.len());
        self.payload_left -= n;
        n
    }

    /// Takes frame header bytes; says whether a HEADERS frame's header was
    /// completed.
    fn read_frame_header(&mut self, bytes: &[u8]) -> (usize, bool) {
        let n = (FRAME_HEADER_LEN - self.header_len).min(bytes.len());
        self.header[self.header_len..self.header_len + n].copy_from_slice(&bytes[..n]);
        self.header_len += n;
        if self.header_len < FRAME_HEADER_LEN {
            return (n, false);
        }
        self.header_len = 0;
        let [a, b, c, kind, ..] = self.header;
        self.payload_left = u32::from_be_bytes([0, a, b, c]) as usize;
        (n, kind == HEADERS_FRAME)
    }
}

/// A running relay from a loopback port to an upstream address; stops, and
/// closes every connection, when dropped.
pub struct Relay {
    port: u16,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl Relay {
    /// A relay on a free loopback port in front of `upstream`, forwarding
    /// without delay.
    pub fn start(upstream: SocketAddr) -> io::Result<Relay> {
        Self::listen(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)), upstream)
    }

    /// A relay listening on `listen` (port 0: any free port) in front of
    /// `upstream`, forwarding without delay.
    pub fn listen(listen: SocketAddr, upstream: SocketAddr) -> io::Result<Relay> {
        let listener = TcpListener::bind(listen)?;
        let address = listener.local_addr()?;
        let shared = Arc::new(Shared::new(upstream, address));
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::spawn(move || accept_loop(listener, &shared))
        };
        Ok(Relay {
            port: address.port(),
            shared,
            acceptor: Some(acceptor),
        })
    }

    /// The loopback port clients connect to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The plaintext gRPC address of the relay, `grpc://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("grpc://127.0.0.1:{}", self.port)
    }

    /// Holds every chunk read from now on `delay` before writing it, in
    /// each direction (a round trip of `2 × delay`).
    pub fn set_one_way_delay(&self, delay: Duration) {
        self.shared.state().delay = delay;
    }

    /// What crossed the relay so far.
    pub fn stats(&self) -> Stats {
        self.shared.stats()
    }

    /// Forwards nothing read from now on, either way, on open and new
    /// connections alike, until [`Relay::resume`].
    pub fn hang(&self) {
        self.shared.update(|state| state.hung = true);
    }

    /// Forwards normally until `calls` calls (counted since the relay
    /// started) went through, then hangs from the first byte of the next
    /// call on. Hangs at once if that many already went through.
    pub fn blackhole_after_calls(&self, calls: u64) {
        let mut state = self.shared.state();
        state.hang_after_calls = Some(calls);
        if self.shared.calls.load(Ordering::SeqCst) >= calls {
            state.hung = true;
        }
    }

    /// Closes every open connection and the listening socket: connecting
    /// now fails with ECONNREFUSED. Returns once the port is closed.
    pub fn refuse(&self) {
        self.shared.update(|state| state.refusing = true);
        // Wakes the acceptor, which sees the flag and drops the listener.
        let _ = TcpStream::connect(self.shared.address);
        let mut state = self.shared.state();
        while state.listening {
            state = self.shared.wait(state);
        }
        drop(state);
        self.shared.close_all();
    }

    /// Ends every fault: forwards what a hang held back, accepts
    /// connections again on the same port after [`Relay::refuse`], and
    /// forgets [`Relay::blackhole_after_calls`] and
    /// [`Relay::cut_each_connection_after`].
    pub fn resume(&self) -> io::Result<()> {
        self.shared.update(|state| {
            state.hung = false;
            state.hang_after_calls = None;
            state.cut_after = None;
            state.refusing = false;
        });
        let mut state = self.shared.state();
        while !state.listening && state.bind_error.is_none() {
            state = self.shared.wait(state);
        }
        match &state.bind_error {
            Some((kind, message)) => Err(io::Error::new(*kind, message.clone())),
            None => Ok(()),
        }
    }

    /// Closes each connection (both ways) once `bytes` bytes were forwarded
    /// to its client, the last chunk cut to fit; applies to connections
    /// accepted from now on.
    pub fn cut_each_connection_after(&self, bytes: u64) {
        self.shared.state().cut_after = Some(bytes);
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.shared.update(|state| state.stopped = true);
        let _ = TcpStream::connect(self.shared.address);
        self.shared.close_all();
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// What the relay's threads share.
struct Shared {
    upstream: SocketAddr,
    /// Where the relay listens (its port stays the same across refusals).
    address: SocketAddr,
    state: Mutex<State>,
    changed: Condvar,
    connections: AtomicU64,
    calls: AtomicU64,
    bytes_up: AtomicU64,
    bytes_down: AtomicU64,
    /// The two sockets of every open connection, to close them on demand.
    open: Mutex<HashMap<u64, Arc<Connection>>>,
}

/// The switchable behaviour of a relay.
#[derive(Debug, Default)]
struct State {
    delay: Duration,
    hung: bool,
    hang_after_calls: Option<u64>,
    cut_after: Option<u64>,
    refusing: bool,
    /// The listener is open (false while refusing).
    listening: bool,
    /// Binding the port again after a refusal failed: the acceptor is gone.
    bind_error: Option<(io::ErrorKind, String)>,
    stopped: bool,
}

impl Shared {
    fn new(upstream: SocketAddr, address: SocketAddr) -> Self {
        Shared {
            upstream,
            address,
            state: Mutex::new(State {
                listening: true,
                ..State::default()
            }),
            changed: Condvar::new(),
            connections: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            bytes_up: AtomicU64::new(0),
            bytes_down: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn wait<'a>(&self, state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed
            .wait(state)
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Changes the state and wakes everyone waiting on it.
    fn update(&self, change: impl FnOnce(&mut State)) {
        change(&mut self.state());
        self.changed.notify_all();
    }

    fn stats(&self) -> Stats {
        Stats {
            connections: self.connections.load(Ordering::SeqCst),
            calls: self.calls.load(Ordering::SeqCst),
            bytes_up: self.bytes_up.load(Ordering::SeqCst),
            bytes_down: self.bytes_down.load(Ordering::SeqCst),
        }
    }

    fn open_connections(&self) -> MutexGuard<'_, HashMap<u64, Arc<Connection>>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Shuts down both sockets of every open connection, which ends their
    /// threads.
    fn close_all(&self) {
        for connection in self.open_connections().values() {
            connection.close();
        }
    }
}

/// Accepts connections until the relay stops; drops the listener while
/// refusing and binds the same port again afterwards.
fn accept_loop(listener: TcpListener, shared: &Arc<Shared>) {
    let mut listener = Some(listener);
    let mut next_id = 0;
    loop {
        let Some(open) = &listener else {
            match rebind(shared) {
                Some(again) => listener = Some(again),
                None => return,
            }
            continue;
        };
        let accepted = open.accept();
        let state = shared.state();
        if state.stopped {
            return;
        }
        if state.refusing {
            drop(state);
            listener = None;
            shared.update(|state| state.listening = false);
            continue;
        }
        drop(state);
        match accepted {
            Ok((client, _)) => {
                next_id += 1;
                shared.connections.fetch_add(1, Ordering::SeqCst);
                let shared = Arc::clone(shared);
                thread::spawn(move || serve(client, next_id, &shared));
            }
            // Out of descriptors, say: try again shortly.
            Err(_) => thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// Waits for the end of a refusal and binds the relay's port again; `None`
/// when the relay stopped or the port could not be had.
fn rebind(shared: &Shared) -> Option<TcpListener> {
    let mut state = shared.state();
    while state.refusing && !state.stopped {
        state = shared.wait(state);
    }
    if state.stopped {
        return None;
    }
    drop(state);
    let mut attempt = 0;
    let outcome = loop {
        match TcpListener::bind(shared.address) {
            Ok(listener) => break Ok(listener),
            Err(error) if attempt + 1 >= REBIND_ATTEMPTS => break Err(error),
            Err(_) => attempt += 1,
        }
        thread::sleep(Duration::from_millis(20));
    };
    match outcome {
        Ok(listener) => {
            shared.update(|state| state.listening = true);
            Some(listener)
        }
        Err(error) => {
            let failure = (
                error.kind(),
                format!("binding {} again: {error}", shared.address),
            );
            shared.update(|state| state.bind_error = Some(failure));
            None
        }
    }
}

/// The two sockets of one relayed connection.
struct Connection {
    client: TcpStream,
    server: TcpStream,
}

impl Connection {
    /// Shuts down both sockets, which ends the connection's threads.
    fn close(&self) {
        let _ = self.client.shutdown(Shutdown::Both);
        let _ = self.server.shutdown(Shutdown::Both);
    }
}

/// One client connection: connects to the upstream and runs both pipes.
fn serve(client: TcpStream, id: u64, shared: &Arc<Shared>) {
    let Ok(server) = TcpStream::connect(shared.upstream) else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let connection = Arc::new(Connection { client, server });
    shared
        .open_connections()
        .insert(id, Arc::clone(&connection));
    let cut_after = shared.state().cut_after;
    let up = Pipe {
        direction: Direction::Up,
        connection: Arc::clone(&connection),
        cut_after: None,
    };
    let down = Pipe {
        direction: Direction::Down,
        connection,
        cut_after,
    };
    let writers = [up.spawn(shared), down.spawn(shared)];
    for writer in writers.into_iter().flatten() {
        let _ = writer.join();
    }
    shared.open_connections().remove(&id);
}

/// Which way a pipe forwards.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// Client to server: calls are counted here.
    Up,
    /// Server to client.
    Down,
}

/// What a reader hands its writer.
enum Item {
    /// Bytes to write at `due`; `held` ones wait for the end of a hang.
    Chunk {
        bytes: Vec<u8>,
        due: Instant,
        held: bool,
    },
    /// The source ended (`clean`: an orderly end of stream) at `due`.
    End { due: Instant, clean: bool },
}

/// One direction of a connection.
struct Pipe {
    direction: Direction,
    connection: Arc<Connection>,
    /// Close the connection after this many bytes were written.
    cut_after: Option<u64>,
}

impl Pipe {
    /// Starts the reader and the writer threads; returns the writer's (the
    /// reader ends before it or with the connection).
    fn spawn(self, shared: &Arc<Shared>) -> Option<JoinHandle<()>> {
        let (source, sink) = match self.direction {
            Direction::Up => (&self.connection.client, &self.connection.server),
            Direction::Down => (&self.connection.server, &self.connection.client),
        };
        let (source, sink) = (source.try_clone().ok()?, sink.try_clone().ok()?);
        let (sender, receiver) = mpsc::channel();
        let direction = self.direction;
        let reader_shared = Arc::clone(shared);
        thread::spawn(move || read_side(source, direction, &sender, &reader_shared));
        let shared = Arc::clone(shared);
        Some(thread::spawn(move || {
            self.write_side(sink, receiver, &shared)
        }))
    }

    /// Writes each chunk when it is due (and not held), then passes the end
    /// of stream on.
    fn write_side(self, mut sink: TcpStream, items: Receiver<Item>, shared: &Shared) {
        let mut written = 0;
        for item in items {
            match item {
                Item::Chunk { bytes, due, held } => {
                    sleep_until(due);
                    if held && !wait_for_resume(shared) {
                        return;
                    }
                    let bytes = match self.cut_after {
                        Some(limit) => &bytes[..bytes.len().min((limit - written) as usize)],
                        None => &bytes[..],
                    };
                    if sink.write_all(bytes).is_err() {
                        self.connection.close();
                        return;
                    }
                    written += bytes.len() as u64;
                    self.count(shared, bytes.len());
                    if self.cut_after.is_some_and(|limit| written >= limit) {
                        self.connection.close();
                        return;
                    }
                }
                Item::End { due, clean } => {
                    sleep_until(due);
                    let _ = sink.shutdown(if clean {
                        Shutdown::Write
                    } else {
                        Shutdown::Both
                    });
                    return;
                }
            }
        }
    }

    fn count(&self, shared: &Shared, bytes: usize) {
        let counter = match self.direction {
            Direction::Up => &shared.bytes_up,
            Direction::Down => &shared.bytes_down,
        };
        counter.fetch_add(bytes as u64, Ordering::SeqCst);
    }
}

/// Reads chunks until the source ends, stamping each with when it is due
/// and whether it is held back; counts calls on the up side.
fn read_side(mut source: TcpStream, direction: Direction, items: &Sender<Item>, shared: &Shared) {
    let mut counter = (direction == Direction::Up).then(CallCounter::new);
    let mut buffer = vec![0; CHUNK];
    loop {
        let n = match source.read(&mut buffer) {
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => {
                let due = Instant::now() + shared.state().delay;
                let _ = items.send(Item::End { due, clean: false });
                return;
            }
        };
        let now = Instant::now();
        if n == 0 {
            let due = now + shared.state().delay;
            let _ = items.send(Item::End { due, clean: true });
            return;
        }
        let starts = counter.as_mut().map(|c| c.feed(&buffer[..n]));
        for chunk in stamp(&buffer[..n], starts.unwrap_or_default(), now, shared) {
            if items.send(chunk).is_err() {
                return;
            }
        }
    }
}

/// Splits a chunk read at `now` into the parts to forward and the part to
/// hold back, counting the calls that start in it (`call_starts`) and
/// starting a hang where a call past the blackhole limit begins.
fn stamp(bytes: &[u8], call_starts: Vec<usize>, now: Instant, shared: &Shared) -> Vec<Item> {
    let mut state = shared.state();
    let due = now + state.delay;
    let mut split = None;
    for start in call_starts {
        let call = shared.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let past_limit = state.hang_after_calls.is_some_and(|limit| call > limit);
        if past_limit && !state.hung {
            state.hung = true;
            split = Some(start);
        }
    }
    let chunk = |part: &[u8], held| Item::Chunk {
        bytes: part.to_vec(),
        due,
        held,
    };
    match split {
        Some(at) => {
            shared.changed.notify_all();
            vec![chunk(&bytes[..at], false), chunk(&bytes[at..], true)]
        }
        None => vec![chunk(bytes, state.hung)],
    }
}

/// Waits while the relay hangs; false when it stopped or refuses instead.
fn wait_for_resume(shared: &Shared) -> bool {
    let mut state = shared.state();
    while state.hung && !state.stopped && !state.refusing {
        state = shared.wait(state);
    }
    !state.stopped && !state.refusing
}

fn sleep_until(due: Instant) {
    if let Some(wait) = due.checked_duration_since(Instant::now()) {
        thread::sleep(wait);
    }
}
