//! The latency relay of the remote-cache tests and benchmarks
//! (tests/integration/common/relay.rs) tested on its own, against small upstream servers
//! written here: forwarding, counting calls on hand-made HTTP/2 byte
//! streams, and each fault.

use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::relay::{CallCounter, HTTP2_PREFACE, Relay, Stats};

/// How long a test waits for something that should happen.
const PATIENCE: Duration = Duration::from_secs(10);

/// How long a test watches for something that should not happen.
const QUIET: Duration = Duration::from_millis(300);

/// An upstream that sends back whatever each connection sends it.
fn echo_server() -> SocketAddr {
    serve_each(|mut stream| {
        let mut buffer = [0; 4096];
        while let Ok(n @ 1..) = stream.read(&mut buffer) {
            if stream.write_all(&buffer[..n]).is_err() {
                break;
            }
        }
    })
}

/// An upstream that keeps everything sent to it, all connections together.
fn recording_server() -> (SocketAddr, Arc<Mutex<Vec<u8>>>) {
    let received = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&received);
    let address = serve_each(move |mut stream| {
        let mut buffer = [0; 4096];
        while let Ok(n @ 1..) = stream.read(&mut buffer) {
            sink.lock().unwrap().extend_from_slice(&buffer[..n]);
        }
    });
    (address, received)
}

/// A loopback server running `handle` on a thread per connection.
fn serve_each(handle: impl Fn(TcpStream) + Send + Sync + 'static) -> SocketAddr {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let address = listener.local_addr().unwrap();
    let handle = Arc::new(handle);
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let handle = Arc::clone(&handle);
            thread::spawn(move || handle(stream));
        }
    });
    address
}

fn connect(relay: &Relay) -> TcpStream {
    let stream = TcpStream::connect((Ipv4Addr::LOCALHOST, relay.port())).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream
}

/// A relay in front of an echo server, and a connection through it that
/// was seen to work.
fn relay_with_a_working_connection() -> (Relay, TcpStream) {
    let relay = Relay::start(echo_server()).unwrap();
    let mut stream = connect(&relay);
    stream.write_all(b"ping").unwrap();
    assert_eq!(read_n(&mut stream, 4), b"ping");
    (relay, stream)
}

fn read_n(stream: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut bytes = vec![0; n];
    stream.read_exact(&mut bytes).unwrap();
    bytes
}

/// Whether nothing can be read from `stream` for a while.
fn stays_silent(stream: &mut TcpStream) -> bool {
    stream.set_read_timeout(Some(QUIET)).unwrap();
    let outcome = stream.read(&mut [0; 64]);
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    matches!(outcome, Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut))
}

/// Waits until `condition` holds, failing the test after a while.
fn eventually(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !condition() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        thread::sleep(Duration::from_millis(5));
    }
}

/// `length` payload bytes behind an HTTP/2 frame header.
fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let length = (payload.len() as u32).to_be_bytes();
    let mut bytes = vec![length[1], length[2], length[3], kind, flags];
    bytes.extend_from_slice(&stream.to_be_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const SETTINGS: u8 = 0x4;
const WINDOW_UPDATE: u8 = 0x8;
const CONTINUATION: u8 = 0x9;

/// A client's side of two gRPC calls, and where each HEADERS frame starts.
/// The payloads hold bytes that would read as HEADERS frame headers if the
/// parser lost its place.
fn two_calls() -> (Vec<u8>, Vec<usize>) {
    let fake_header = frame(HEADERS, 0x4, 5, &[]);
    let mut bytes = HTTP2_PREFACE.to_vec();
    bytes.extend(frame(SETTINGS, 0, 0, &[0, 3, 0, 0, 0, 100]));
    let first = bytes.len();
    bytes.extend(frame(HEADERS, 0x0, 1, &fake_header));
    bytes.extend(frame(CONTINUATION, 0x4, 1, &[0x82, 0x86]));
    bytes.extend(frame(DATA, 0x1, 1, &[fake_header.as_slice(); 30].concat()));
    let second = bytes.len();
    bytes.extend(frame(HEADERS, 0x4, 3, &[0x83; 40]));
    bytes.extend(frame(DATA, 0x1, 3, &fake_header));
    bytes.extend(frame(WINDOW_UPDATE, 0, 0, &[0, 0, 1, 0]));
    (bytes, vec![first, second])
}

#[test]
fn the_call_counter_finds_headers_frames_in_chunks_of_any_size() {
    let (stream, starts) = two_calls();
    assert_eq!(CallCounter::new().feed(&stream), starts);
    for size in [1, 2, 7, 9, 10, 24, 25, 100] {
        let mut counter = CallCounter::new();
        let mut found = Vec::new();
        for (index, chunk) in stream.chunks(size).enumerate() {
            let offset = index * size;
            found.extend(counter.feed(chunk).into_iter().map(|at| offset + at));
        }
        // A header split across chunks is reported at the start of the
        // chunk that completes it.
        assert_eq!(found.len(), 2, "chunks of {size}");
        for (found, start) in found.iter().zip(&starts) {
            assert!(*found >= *start && *found < start + 9, "chunks of {size}");
        }
        assert!(counter.is_http2());
    }
    let mut tls = vec![0x16, 0x03, 0x01, 0x02, 0x00];
    tls.extend_from_slice(&stream);
    let mut counter = CallCounter::new();
    assert!(counter.feed(&tls).is_empty());
    assert!(!counter.is_http2());
}

#[test]
fn the_relay_forwards_both_ways_and_counts_connections() {
    let relay = Relay::start(echo_server()).unwrap();
    let payload: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let mut first = connect(&relay);
    let mut second = connect(&relay);
    first.write_all(&payload).unwrap();
    second.write_all(&payload).unwrap();
    assert_eq!(read_n(&mut first, payload.len()), payload);
    assert_eq!(read_n(&mut second, payload.len()), payload);
    eventually("every byte counted", || {
        relay.stats()
            == Stats {
                connections: 2,
                calls: 0,
                bytes_up: 200_000,
                bytes_down: 200_000,
            }
    });
    // The end of stream is passed on: the echo server closes, and so does
    // the relay's side.
    first.shutdown(std::net::Shutdown::Write).unwrap();
    assert_eq!(first.read(&mut [0; 8]).unwrap(), 0);
}

#[test]
fn the_relay_counts_client_headers_frames_on_plaintext_http2_only() {
    let relay = Relay::start(echo_server()).unwrap();
    let (stream, _) = two_calls();
    let mut client = connect(&relay);
    for piece in stream.chunks(7) {
        client.write_all(piece).unwrap();
    }
    // The echo sends the same frames back down: they are not calls.
    assert_eq!(read_n(&mut client, stream.len()), stream);
    assert_eq!(relay.stats().calls, 2);

    let mut tls = connect(&relay);
    let mut bytes = vec![0x16, 0x03, 0x01];
    bytes.extend_from_slice(&stream);
    tls.write_all(&bytes).unwrap();
    assert_eq!(read_n(&mut tls, bytes.len()), bytes);
    assert_eq!(relay.stats().calls, 2);
}

#[test]
fn a_hang_holds_everything_on_old_and_new_connections_until_resumed() {
    let (relay, mut before) = relay_with_a_working_connection();
    relay.hang();
    before.write_all(b"held").unwrap();
    assert!(stays_silent(&mut before));
    let mut after = connect(&relay);
    after.write_all(b"also held").unwrap();
    assert!(stays_silent(&mut after));
    eventually("the new connection accepted", || {
        relay.stats().connections == 2
    });
    assert_eq!(relay.stats().bytes_up, 4, "nothing passed while hung");

    relay.resume().unwrap();
    assert_eq!(read_n(&mut before, 4), b"held");
    assert_eq!(read_n(&mut after, 9), b"also held");
}

#[test]
fn a_blackhole_after_calls_passes_those_calls_then_hangs() {
    let (upstream, received) = recording_server();
    let relay = Relay::start(upstream).unwrap();
    relay.blackhole_after_calls(1);
    let (stream, starts) = two_calls();
    let mut client = connect(&relay);
    client.write_all(&stream).unwrap();
    let passed = starts[1];
    eventually("the first call forwarded", || {
        received.lock().unwrap().len() >= passed
    });
    thread::sleep(QUIET);
    assert_eq!(*received.lock().unwrap(), stream[..passed]);
    assert_eq!(relay.stats().calls, 2);

    // Nothing passes on a new connection either.
    let mut late = connect(&relay);
    late.write_all(b"late").unwrap();
    thread::sleep(QUIET);
    assert_eq!(received.lock().unwrap().len(), passed);

    relay.resume().unwrap();
    let total = stream.len() + 4;
    eventually("everything delivered after resume", || {
        received.lock().unwrap().len() == total
    });
}

#[test]
fn a_refusing_relay_closes_its_port_and_every_connection() {
    let (relay, mut open) = relay_with_a_working_connection();
    relay.refuse();
    assert!(matches!(open.read(&mut [0; 8]), Ok(0) | Err(_)));
    let error = TcpStream::connect((Ipv4Addr::LOCALHOST, relay.port())).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ConnectionRefused);
    assert_eq!(relay.stats().connections, 1);

    relay.resume().unwrap();
    let mut again = connect(&relay);
    again.write_all(b"back").unwrap();
    assert_eq!(read_n(&mut again, 4), b"back");
}

#[test]
fn a_cut_connection_delivers_exactly_the_limit_then_ends() {
    let relay = Relay::start(echo_server()).unwrap();
    relay.cut_each_connection_after(1000);
    let payload: Vec<u8> = (0..5000u32).map(|i| (i % 253) as u8).collect();
    let mut client = connect(&relay);
    client.write_all(&payload).unwrap();
    let mut back = Vec::new();
    let _ = client.read_to_end(&mut back);
    assert_eq!(back, payload[..1000]);
}

#[test]
fn a_delayed_round_trip_never_comes_back_early() {
    let relay = Relay::start(echo_server()).unwrap();
    relay.set_one_way_delay(Duration::from_millis(100));
    let mut client = connect(&relay);
    let start = Instant::now();
    client.write_all(b"ping").unwrap();
    assert_eq!(read_n(&mut client, 4), b"ping");
    assert!(start.elapsed() >= Duration::from_millis(200));
}
