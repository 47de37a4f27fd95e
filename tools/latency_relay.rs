//! A TCP relay on loopback that puts a network's round trip between a build
//! and its REAPI server, counts the connections and gRPC calls that cross
//! it, and can hang like a stopped server or a blackholed link. It runs the
//! relay of the integration tests (tests/integration/common/relay.rs); `tools/remote-bench`
//! drives it.
//!
//! ```text
//! latency_relay --listen PORT|0 --upstream HOST:PORT --rtt-ms N
//!     [--blackhole-after-calls N] [--hang] [--port-file F] [--stats F]
//! ```
//!
//! * Each chunk is forwarded `N / 2` ms after it was read, in each direction.
//! * `--blackhole-after-calls N`: forward N calls, then nothing more.
//! * `--hang`: forward nothing from the start (connections are accepted).
//! * `--port-file F`: once listening, writes the port to F (atomically).
//! * `--stats F`: rewrites F every 100 ms, and on exit, with one `name value`
//!   line each for `connections`, `calls`, `bytes_up` and `bytes_down`.
//! * Signals: SIGUSR1 hangs, SIGUSR2 resumes (ends every fault),
//!   SIGTERM and SIGINT write the stats and exit.

#[allow(dead_code)] // the tests use parts of the relay this tool does not
#[path = "../tests/integration/common/relay.rs"]
mod relay;

use std::fs;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use clap::Parser;
use relay::{Relay, Stats};

/// How often the stats file is rewritten and signals are looked at.
const TICK: Duration = Duration::from_millis(100);

/// The command line.
#[derive(Parser)]
#[command(about = "A delaying, call-counting TCP relay in front of a REAPI server")]
struct Cli {
    /// The loopback port to listen on (0: any free port).
    #[arg(long)]
    listen: u16,
    /// The server to forward to, HOST:PORT.
    #[arg(long)]
    upstream: String,
    /// The round trip to add, in milliseconds (half of it each way).
    #[arg(long, default_value_t = 0)]
    rtt_ms: u64,
    /// Forward this many gRPC calls, then nothing more.
    #[arg(long)]
    blackhole_after_calls: Option<u64>,
    /// Forward nothing from the start.
    #[arg(long)]
    hang: bool,
    /// Write the listening port to this file once listening.
    #[arg(long)]
    port_file: Option<PathBuf>,
    /// Keep the counters in this file.
    #[arg(long)]
    stats: Option<PathBuf>,
}

static HANG: AtomicBool = AtomicBool::new(false);
static RESUME: AtomicBool = AtomicBool::new(false);
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(signal: libc::c_int) {
    let flag = match signal {
        libc::SIGUSR1 => &HANG,
        libc::SIGUSR2 => &RESUME,
        _ => &STOP,
    };
    flag.store(true, Ordering::SeqCst);
}

fn install_signal_handlers() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGUSR1, libc::SIGUSR2, libc::SIGTERM, libc::SIGINT] {
        // SAFETY: the handler only stores to atomics, which is
        // async-signal-safe.
        unsafe { libc::signal(signal, handler) };
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("latency_relay: error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> io::Result<()> {
    install_signal_handlers();
    let upstream = resolve(&cli.upstream)?;
    let listen = SocketAddr::from((Ipv4Addr::LOCALHOST, cli.listen));
    let relay = Relay::listen(listen, upstream)?;
    relay.set_one_way_delay(Duration::from_micros(cli.rtt_ms * 500));
    if let Some(calls) = cli.blackhole_after_calls {
        relay.blackhole_after_calls(calls);
    }
    if cli.hang {
        relay.hang();
    }
    if let Some(file) = &cli.port_file {
        write_atomically(file, &format!("{}\n", relay.port()))?;
    }
    while !STOP.load(Ordering::SeqCst) {
        if HANG.swap(false, Ordering::SeqCst) {
            relay.hang();
        }
        if RESUME.swap(false, Ordering::SeqCst) {
            relay.resume()?;
        }
        if let Some(file) = &cli.stats {
            write_atomically(file, &stats_text(relay.stats()))?;
        }
        thread::sleep(TICK);
    }
    if let Some(file) = &cli.stats {
        write_atomically(file, &stats_text(relay.stats()))?;
    }
    Ok(())
}

/// The first address `HOST:PORT` names.
fn resolve(upstream: &str) -> io::Result<SocketAddr> {
    upstream.to_socket_addrs()?.next().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            format!("--upstream {upstream}: no address"),
        )
    })
}

fn stats_text(stats: Stats) -> String {
    format!(
        "connections {}\ncalls {}\nbytes_up {}\nbytes_down {}\n",
        stats.connections, stats.calls, stats.bytes_up, stats.bytes_down
    )
}

/// Writes `text` beside `file` and renames it into place, so readers never
/// see half a file.
fn write_atomically(file: &Path, text: &str) -> io::Result<()> {
    let mut temporary = file.as_os_str().to_owned();
    temporary.push(".tmp");
    fs::write(&temporary, text)
        .and_then(|()| fs::rename(&temporary, file))
        .map_err(|error| io::Error::new(error.kind(), format!("{}: {error}", file.display())))
}
