//! The HTTP loop of `assetc view`, on `tiny_http`: one request at a time,
//! which is all a local inspector needs.
//!
//! Bound to loopback (the default), it also refuses requests whose `Host`
//! is not a loopback name, so a web page elsewhere cannot reach it through a
//! DNS name rebound to 127.0.0.1. The one request that may wait, the live
//! refresh's long poll, is answered on a thread of its own. A handler that panicked would answer 500
//! and the server would go on; the readers are built never to panic, so that
//! is a last line of defence only.

use std::io::{Read as _, Write as _};
use std::net::{IpAddr, SocketAddr};
use std::panic::{AssertUnwindSafe, catch_unwind};

use tiny_http::{Method, Request, Server, StatusCode};

use super::ViewError;
use super::api::{App, Reply};

/// The largest request body read (the page's error reports).
const MAX_BODY: u64 = 64 * 1024;

/// A bound, not yet serving, server.
pub struct Bound {
    server: Server,
    address: SocketAddr,
}

impl Bound {
    /// Binds `address` (port 0 picks a free port).
    pub fn bind(address: SocketAddr) -> Result<Self, ViewError> {
        let server = Server::http(address).map_err(|e| ViewError::Source {
            path: address.to_string().into(),
            what: format!("cannot listen: {e}"),
        })?;
        let address = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| ViewError::Source {
                path: address.to_string().into(),
                what: "not an IP address".into(),
            })?;
        Ok(Self { server, address })
    }

    /// The address actually bound.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Answers requests with `app` until the process ends.
    pub fn serve(self, mut app: App) {
        for request in self.server.incoming_requests() {
            if host_allowed(&request, self.address)
                && let Some(job) = app.deferred(request.method().as_str(), request.url())
            {
                std::thread::spawn(move || respond(request, &job()));
                continue;
            }
            answer(request, &mut app, self.address);
        }
    }
}

/// Answers one request.
fn answer(mut request: Request, app: &mut App, bound: SocketAddr) {
    let reply = if !host_allowed(&request, bound) {
        Reply {
            status: 403,
            content_type: "text/plain; charset=utf-8",
            body: b"assetc view answers loopback names only".to_vec(),
        }
    } else {
        let mut body = Vec::new();
        let _ = request.as_reader().take(MAX_BODY).read_to_end(&mut body);
        let method = request.method().as_str().to_owned();
        let url = request.url().to_owned();
        catch_unwind(AssertUnwindSafe(|| app.handle(&method, &url, &body))).unwrap_or(Reply {
            status: 500,
            content_type: "text/plain; charset=utf-8",
            body: b"internal error".to_vec(),
        })
    };
    respond(request, &reply);
}

/// Writes `reply` and closes the connection (`Connection: close`).
///
/// tiny_http 0.12 lends each connection a pooled thread for as long as the
/// client keeps it open, and when several connections open at once (the page
/// fetches its ES modules on six) its pool can leave one queued behind the
/// others, unread, for as long as they stay open: the page never finishes
/// loading. Closing every connection after its answer frees the threads.
/// tiny_http's `Response` refuses a `Connection` header, hence the raw
/// writer.
fn respond(request: Request, reply: &Reply) {
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        reply.status,
        StatusCode(reply.status).default_reason_phrase(),
        reply.content_type,
        reply.body.len(),
    );
    let body: &[u8] = if *request.method() == Method::Head {
        &[]
    } else {
        &reply.body
    };
    let mut writer = request.into_writer();
    // A client that went away is its own business.
    let _ = writer
        .write_all(head.as_bytes())
        .and_then(|()| writer.write_all(body))
        .and_then(|()| writer.flush());
}

/// Whether the request's `Host` is acceptable: any, unless the server is on
/// loopback, where it must be a loopback name.
fn host_allowed(request: &Request, bound: SocketAddr) -> bool {
    if !bound.ip().is_loopback() {
        return true;
    }
    let host = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Host"))
        .map(|h| h.value.as_str().to_owned());
    let Some(host) = host else {
        return true;
    };
    let name = host
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(host.as_str(), |(name, _)| name);
    let name = name.trim_start_matches('[').trim_end_matches(']');
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}
