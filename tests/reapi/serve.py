#!/usr/bin/env python3
"""Throwaway REAPI v2 server for assetc's integration tests (test-only).

Runs BuildGrid 0.4.4 (from PyPI, venv made by tests/reapi/install) on loopback:

    target/buildgrid/bin/python tests/reapi/serve.py --dir DIR [--exec] [--workers N] [--tls]

* CAS + ByteStream + ActionCache + Capabilities always; instance names "" and "main"
  (both share one storage and one action cache).
* --exec adds Execution/Operations/Bots backed by BuildGrid's SQL scheduler on a
  throwaway PostgreSQL in DIR/pg, and starts N (default 2) tests/reapi/worker.py
  processes (the test-only stand-in for buildbox-worker).
* When the server answers GetCapabilities, DIR/port is written atomically
  (DIR/port.tmp + rename) holding just the port number, e.g. "41537".
  Connect to http://127.0.0.1:<port> (https://127.0.0.1:<port> with --tls).
* --tls: the port speaks TLS (HTTP/2 over TLS, ALPN h2; plaintext clients fail). A fresh
  throwaway CA and server certificate are made with the openssl CLI into DIR/tls/ on every
  start (EC P-256, ECDSA-SHA256, valid 3 days); DIR/tls/ca.pem exists before DIR/port
  appears, and clients trust it as their only root. The server certificate has
  subjectAltName IP:127.0.0.1 and DNS:localhost (CN localhost), extendedKeyUsage
  serverAuth. Files: ca.pem (CA cert), ca-key.pem, server.pem (leaf only),
  server-key.pem, openssl.cnf; with --tls-client-auth (implies --tls) also client.pem +
  client-key.pem (CN assetc-test-client, clientAuth): the server then rejects clients
  without a certificate signed by ca.pem. Workers (--exec) connect over TLS too.
* --store-limit BYTES: bgd runs in a mount namespace of its own with a tmpfs of BYTES over
  DIR/cas, so uploads past it fail with RESOURCE_EXHAUSTED as on a full disk (see
  tests/reapi/README.md, "A full store"). The blob files are then visible to bgd only.
* Stops on SIGTERM/SIGINT or when stdin reaches EOF (the parent test died or closed
  the pipe); use --ignore-stdin to run it by hand in the background.
  On exit: workers, bgd (SIGTERM, SIGKILL after 10 s) and PostgreSQL
  (pg_ctl stop -m immediate) are stopped, DIR/port is removed, exit status 0.
* Start-up errors: message on stderr, whatever was started is stopped, exit 1.
* Logs: DIR/bgd.log, DIR/postgres.log, DIR/initdb.log, DIR/migrate.log,
  DIR/worker-<i>.log, DIR/tls/openssl.log (--tls). Generated config: DIR/bgd.yml.

On-disk layout of the CAS (BuildGrid's !disk-storage with path DIR/cas, checked
experimentally with 0.4.4): the blob with SHA-256 hex digest HASH (lower case) is the
plain file holding exactly the blob's bytes (no header, no compression) at

    DIR/cas/cas/objects/HASH[0:2]/HASH[2:]

e.g. "hello" (2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824) is
DIR/cas/cas/objects/2c/f24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824.
The size is not part of the path. Uploads are staged in DIR/cas/tmp and hard-linked
into place, so each object file has a single link: overwriting it in place (e.g.
flipping a byte, same length) corrupts what BuildGrid serves; BuildGrid does not
re-hash on read (BatchReadBlobs and ByteStream Read return the corrupted bytes, and
FindMissingBlobs still reports it present). Deleting the file makes the blob missing.
Besides client uploads, the directory also holds BuildGrid's own blobs (serialized
ActionResult / ExecuteResponse messages of the action cache and scheduler).
"""

import argparse
import ctypes
import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_BIN = os.path.join(sys.prefix, "bin")
BGD = os.path.join(VENV_BIN, "bgd")
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
UNSHARE = shutil.which("unshare") or "/usr/bin/unshare"
TLS_DAYS = 3
READY_TIMEOUT = 60.0
PORT_ATTEMPTS = 5

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _die_with_parent(sig):
    """preexec_fn: the child gets `sig` if serve.py dies without cleaning up."""

    def fn():
        _libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)

    return fn


def log(msg):
    print(f"serve.py: {msg}", file=sys.stderr, flush=True)


class StartError(Exception):
    pass


def tail(path, n=25):
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
        return "\n".join("    " + l for l in lines[-n:])
    except OSError:
        return "    (no log)"


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def q(s):
    """YAML-safe quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(s)


class Harness:
    def __init__(self, args):
        self.dir = os.path.abspath(args.dir)
        self.exec = args.exec
        self.workers_n = args.workers
        self.queue_timeout = args.queue_timeout
        self.tls_client_auth = args.tls_client_auth
        self.tls = args.tls or args.tls_client_auth
        self.tls_dir = os.path.join(self.dir, "tls")
        self.store_limit = args.store_limit
        self.bgd = None
        self.workers = []
        self.pg = None  # dict(bin=..., data=..., sock=..., proc=..., tmp_sock=bool)
        self.port = None
        self.stop = threading.Event()

    # ------------------------------------------------------------------ PostgreSQL
    def _pg_bindir(self):
        cands = [d for d in glob.glob("/usr/lib/postgresql/*/bin") if os.path.exists(os.path.join(d, "initdb"))]
        if not cands:
            raise StartError("PostgreSQL not found (/usr/lib/postgresql/*/bin/initdb); run tests/reapi/install")

        def ver(d):
            try:
                return float(d.split("/")[-2])
            except ValueError:
                return 0.0

        return max(cands, key=ver)

    def start_postgres(self):
        bindir = self._pg_bindir()
        root = os.geteuid() == 0
        pgroot = os.path.join(self.dir, "pg")
        shutil.rmtree(pgroot, ignore_errors=True)
        os.makedirs(pgroot)
        data = os.path.join(pgroot, "data")
        sock = os.path.join(pgroot, "sock")
        tmp_sock = False
        if len(sock) + len("/.s.PGSQL.5432") > 100:  # sun_path limit is 107 bytes
            sock = tempfile.mkdtemp(prefix="reapi-pg-")
            tmp_sock = True
        else:
            os.makedirs(sock)
        logf = os.path.join(self.dir, "postgres.log")
        open(logf, "wb").close()
        runas = []
        user_kw = {}
        if root:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise StartError("user 'postgres' missing; run tests/reapi/install")
            for p in (pgroot, sock, logf):
                os.chown(p, pw.pw_uid, pw.pw_gid)
            # postgres must be able to traverse DIR (tempdirs are often 0700).
            st = os.stat(self.dir)
            if not st.st_mode & 0o001:
                os.chmod(self.dir, (st.st_mode & 0o7777) | 0o001)
            runas = ["runuser", "-u", "postgres", "--"]
            if subprocess.run(runas + ["test", "-w", pgroot], stdin=subprocess.DEVNULL).returncode != 0:
                raise StartError(f"user postgres cannot reach {pgroot}: use a --dir whose parent folders "
                                 "are world-searchable (e.g. under /tmp or target/tmp)")
            user_kw = dict(user=pw.pw_uid, group=pw.pw_gid, extra_groups=[])
        self.pg = dict(bin=bindir, data=data, sock=sock, tmp_sock=tmp_sock, proc=None, runas=runas)

        initdb_log = os.path.join(self.dir, "initdb.log")
        with open(initdb_log, "wb") as lf:
            r = subprocess.run(
                runas + [os.path.join(bindir, "initdb"), "-D", data, "-U", "postgres", "--auth=trust",
                         "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"],
                stdin=subprocess.DEVNULL, stdout=lf, stderr=subprocess.STDOUT, cwd="/",
            )
        if r.returncode != 0:
            raise StartError(f"initdb failed (exit {r.returncode}):\n{tail(initdb_log)}")
        with open(os.path.join(data, "postgresql.conf"), "a") as f:
            f.write(
                "\n# tests/reapi/serve.py\n"
                "listen_addresses = ''\n"
                f"unix_socket_directories = '{sock}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "max_connections = 100\nshared_buffers = 32MB\n"
            )
        # postmaster runs as our direct child (not daemonized by pg_ctl) so that it gets
        # SIGQUIT (= immediate shutdown) if serve.py is killed without cleaning up.
        lf = open(logf, "ab")
        self.pg["proc"] = subprocess.Popen(
            [os.path.join(bindir, "postgres"), "-D", data],
            stdin=subprocess.DEVNULL, stdout=lf, stderr=subprocess.STDOUT, cwd="/",
            preexec_fn=_die_with_parent(signal.SIGQUIT), **user_kw,
        )
        lf.close()
        deadline = time.monotonic() + 30
        while True:
            if self.pg["proc"].poll() is not None:
                raise StartError(f"postgres exited ({self.pg['proc'].returncode}):\n{tail(logf)}")
            r = subprocess.run([os.path.join(bindir, "pg_isready"), "-q", "-h", sock, "-U", "postgres"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise StartError(f"postgres not ready after 30 s:\n{tail(logf)}")
            time.sleep(0.05)
        r = subprocess.run([os.path.join(bindir, "createdb"), "-h", sock, "-U", "postgres", "bgd"],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if r.returncode != 0:
            raise StartError(f"createdb failed: {r.stderr.strip()}")
        url = f"postgresql+psycopg2://postgres@/bgd?host={sock}"
        mig_log = os.path.join(self.dir, "migrate.log")
        with open(mig_log, "wb") as lf:
            r = subprocess.run([BGD, "migrate", "apply", url], stdin=subprocess.DEVNULL, stdout=lf,
                               stderr=subprocess.STDOUT, cwd=self.dir)
        if r.returncode != 0:
            raise StartError(f"bgd migrate apply failed (exit {r.returncode}):\n{tail(mig_log)}")
        return url

    def stop_postgres(self):
        pg, self.pg = self.pg, None
        if not pg:
            return
        proc = pg["proc"]
        if proc is not None and proc.poll() is None:
            subprocess.run(pg["runas"] + [os.path.join(pg["bin"], "pg_ctl"), "stop", "-D", pg["data"],
                                          "-m", "immediate", "-s", "-w", "-t", "15"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/")
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if pg["tmp_sock"]:
            shutil.rmtree(pg["sock"], ignore_errors=True)

    # ------------------------------------------------------------------ TLS
    def tls_path(self, name):
        return os.path.join(self.tls_dir, name)

    def make_tls(self):
        """Fresh throwaway CA + server (+ client) certificates in DIR/tls, via the openssl CLI."""
        if not os.path.exists(OPENSSL):
            raise StartError(f"--tls needs the openssl CLI ({OPENSSL} not found)")
        shutil.rmtree(self.tls_dir, ignore_errors=True)
        os.makedirs(self.tls_dir)
        cnf = self.tls_path("openssl.cnf")
        # Own config, so the system openssl.cnf adds no extensions of its own.
        with open(cnf, "w") as f:
            f.write("""# generated by tests/reapi/serve.py
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[client_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
""")
        logf = self.tls_path("openssl.log")
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        env = dict(os.environ, OPENSSL_CONF=cnf)

        def run(*argv):
            with open(logf, "ab") as lf:
                lf.write(("$ openssl " + " ".join(argv) + "\n").encode())
                lf.flush()
                r = subprocess.run([OPENSSL, *argv], stdin=subprocess.DEVNULL, stdout=lf, stderr=subprocess.STDOUT,
                                   cwd=self.tls_dir, env=env)
            if r.returncode != 0:
                raise StartError(f"openssl {argv[0]} failed (exit {r.returncode}):\n{tail(logf)}")

        def leaf(name, cn, ext):
            run("req", "-new", "-config", cnf, *ec, "-keyout", f"{name}-key.pem", "-out", f"{name}.csr",
                "-subj", f"/CN={cn}")
            serial = "0x" + (bytes([os.urandom(1)[0] & 0x7F | 0x01]) + os.urandom(15)).hex()
            run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
                "-set_serial", serial, "-days", str(TLS_DAYS), "-sha256",
                "-extfile", cnf, "-extensions", ext, "-out", f"{name}.pem")
            os.unlink(self.tls_path(f"{name}.csr"))

        run("req", "-x509", "-new", "-config", cnf, *ec, "-keyout", "ca-key.pem", "-out", "ca.pem",
            "-days", str(TLS_DAYS), "-sha256", "-subj", "/CN=assetc REAPI test CA (throwaway)",
            "-extensions", "ca_ext")
        leaf("server", "localhost", "server_ext")
        if self.tls_client_auth:
            leaf("client", "assetc-test-client", "client_ext")

    def grpc_channel(self, target):
        """Client channel to our bgd (TLS with DIR/tls/ca.pem as the only root when --tls)."""
        import grpc

        if not self.tls:
            return grpc.insecure_channel(target)

        def rd(name):
            with open(self.tls_path(name), "rb") as f:
                return f.read()

        kw = {}
        if self.tls_client_auth:
            kw = dict(private_key=rd("client-key.pem"), certificate_chain=rd("client.pem"))
        return grpc.secure_channel(target, grpc.ssl_channel_credentials(root_certificates=rd("ca.pem"), **kw))

    # ------------------------------------------------------------------ BuildGrid
    def write_config(self, port, db_url):
        cas = os.path.join(self.dir, "cas")
        if self.tls:
            channel = f"""    insecure-mode: false
    credentials:
      tls-server-key: {q(self.tls_path("server-key.pem"))}
      tls-server-cert: {q(self.tls_path("server.pem"))}
"""
            if self.tls_client_auth:
                # BuildGrid: tls-client-certs = roots for client certificates, and it
                # turns on require_client_auth.
                channel += f"""      tls-client-certs: {q(self.tls_path("ca.pem"))}
"""
        else:
            channel = "    insecure-mode: true\n"
        cfg = f"""# generated by tests/reapi/serve.py
server:
  - !channel
    address: {q(f"127.0.0.1:{port}")}
{channel}
grpc-server-options:
  grpc.so_reuseport: 0

storages:
  - !disk-storage &cas-storage
    path: {q(cas)}

caches:
  - !lru-action-cache &ac
    storage: *cas-storage
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
"""
        if db_url:
            cfg += f"""
connections:
  - !sql-connection &sql
    connection-string: {q(db_url)}
    pool-size: 5
    max-overflow: 10

schedulers:
  - !sql-scheduler &sched
    sql: *sql
    storage: *cas-storage
    action-cache: *ac
    # both instance names share the workers (and the storage)
    instance-pools: [["", "main"]]
    # our worker does not heartbeat while it runs an action
    bot-session-keepalive-timeout: 3600
    # a job no worker can take (e.g. unmatched platform) fails instead of hanging forever
    queue-timeout-job-max-age: {{seconds: {self.queue_timeout}}}
    queue-timeout-period: {{seconds: {max(1, min(10, self.queue_timeout // 3))}}}
    property-set: !dynamic-property-set
      wildcard-property-keys: ["container-image"]
    assigners:
      - !priority-age-assigner
        count: 1
        interval: 0.05
"""
        cfg += """
instances:
  - name: ["", "main"]
    services:
      - !cas
        storage: *cas-storage
      - !bytestream
        stream-blob: false   # 0.4.4: ranged Read (read_limit) -> DATA_LOSS when streaming
        storage: *cas-storage
      - !action-cache
        cache: *ac
"""
        if db_url:
            cfg += """      - !execution
        scheduler: *sched
        endpoints: [execution, operations, bots]
"""
        path = os.path.join(self.dir, "bgd.yml")
        with open(path, "w") as f:
            f.write(cfg)
        return path

    def store_prefix(self):
        """With --store-limit: the command that runs bgd in a mount namespace of its own, on a
        tmpfs of that size mounted over DIR/cas, so the disk storage gets ENOSPC as a full
        disk would give it. Without: nothing. The namespace goes away with bgd."""
        if self.store_limit is None:
            return []
        cas = os.path.join(self.dir, "cas")
        os.makedirs(cas, exist_ok=True)
        user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
        script = 'mount -t tmpfs -o "size=$1" reapi-store "$2" && shift 2 && exec "$@"'
        return ([UNSHARE] + user + ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh",
                                    str(self.store_limit), cas])

    def _capabilities_ok(self, port):
        import grpc
        from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
        from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc

        ch = self.grpc_channel(f"127.0.0.1:{port}")
        try:
            caps = re_grpc.CapabilitiesStub(ch).GetCapabilities(
                re_pb2.GetCapabilitiesRequest(instance_name=""), timeout=2)
            if self.exec and not caps.execution_capabilities.exec_enabled:
                return False
            return True
        except grpc.RpcError:
            return False
        finally:
            ch.close()

    def start_bgd(self, db_url):
        logf = os.path.join(self.dir, "bgd.log")
        pidf = os.path.join(self.dir, "bgd.pid")
        open(logf, "wb").close()
        deadline = time.monotonic() + READY_TIMEOUT
        for attempt in range(1, PORT_ATTEMPTS + 1):
            port = free_port()
            cfg = self.write_config(port, db_url)
            try:
                os.unlink(pidf)
            except FileNotFoundError:
                pass
            with open(logf, "ab") as lf:
                lf.write(f"\n==== serve.py: attempt {attempt}, port {port}\n".encode())
                lf.flush()
                env = dict(os.environ, PYTHONUNBUFFERED="1")
                self.bgd = subprocess.Popen(
                    self.store_prefix() + [BGD, "server", "start", cfg, "--pid-file", pidf],
                    stdin=subprocess.DEVNULL, stdout=lf, stderr=subprocess.STDOUT, cwd=self.dir, env=env,
                    preexec_fn=_die_with_parent(signal.SIGKILL),
                )
            while True:
                if self.stop.is_set():
                    raise StartError("interrupted while starting bgd")
                rc = self.bgd.poll()
                if rc is not None:
                    self.bgd = None
                    text = open(logf, "rb").read().decode("utf-8", "replace")
                    last = text.rsplit("==== serve.py: attempt", 1)[-1]
                    if any(m in last for m in ("Address already in use", "Failed to bind", "Unable to configure socket")):
                        log(f"port {port} was taken, retrying")
                        break
                    raise StartError(f"bgd exited with {rc} during start-up:\n{tail(logf)}")
                # The pid file is written only after bgd has bound its port (so_reuseport 0:
                # a port taken by somebody else makes bgd exit) -> the answer is from our bgd.
                if os.path.exists(pidf) and self._capabilities_ok(port):
                    return port
                if time.monotonic() > deadline:
                    raise StartError(f"bgd not answering GetCapabilities after {READY_TIMEOUT:.0f} s:\n{tail(logf)}")
                time.sleep(0.05)
        raise StartError(f"bgd could not bind a free port in {PORT_ATTEMPTS} attempts:\n{tail(logf)}")

    def stop_bgd(self):
        p, self.bgd = self.bgd, None
        if p is None or p.poll() is not None:
            return
        p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    # ------------------------------------------------------------------ workers
    def start_workers(self, port):
        tls_args = []
        if self.tls:
            tls_args = ["--tls-ca", self.tls_path("ca.pem")]
            if self.tls_client_auth:
                tls_args += ["--tls-client-cert", self.tls_path("client.pem"),
                             "--tls-client-key", self.tls_path("client-key.pem")]
        for i in range(self.workers_n):
            logf = os.path.join(self.dir, f"worker-{i}.log")
            scratch = os.path.join(self.dir, f"worker-{i}")
            with open(logf, "wb") as lf:
                p = subprocess.Popen(
                    [sys.executable, os.path.join(HERE, "worker.py"), "--server", f"127.0.0.1:{port}",
                     "--scratch", scratch] + tls_args,
                    stdin=subprocess.DEVNULL, stdout=lf, stderr=subprocess.STDOUT, cwd=self.dir,
                    env=dict(os.environ, PYTHONUNBUFFERED="1"),
                    preexec_fn=_die_with_parent(signal.SIGTERM),
                )
            self.workers.append(p)

    def stop_workers(self):
        ws, self.workers = self.workers, []
        for p in ws:
            if p.poll() is None:
                p.terminate()
        for p in ws:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    # ------------------------------------------------------------------ lifecycle
    def start(self):
        t0 = time.monotonic()
        os.makedirs(self.dir, exist_ok=True)
        for stale in ("port", "port.tmp"):
            try:
                os.unlink(os.path.join(self.dir, stale))
            except FileNotFoundError:
                pass
        if self.tls:
            self.make_tls()  # DIR/tls/ca.pem exists long before DIR/port
        else:
            shutil.rmtree(self.tls_dir, ignore_errors=True)  # no stale CA from an earlier --tls run
        db_url = self.start_postgres() if self.exec else None
        t_pg = time.monotonic()
        self.port = self.start_bgd(db_url)
        if self.exec:
            self.start_workers(self.port)
        tmp = os.path.join(self.dir, "port.tmp")
        with open(tmp, "w") as f:
            f.write(str(self.port))
        os.rename(tmp, os.path.join(self.dir, "port"))
        t1 = time.monotonic()
        extra = f" (postgres+migrate {t_pg - t0:.1f} s, {self.workers_n} workers)" if self.exec else ""
        if self.tls:
            extra += f"; TLS{' + client auth' if self.tls_client_auth else ''}, CA {self.tls_path('ca.pem')}"
        log(f"ready on 127.0.0.1:{self.port} in {t1 - t0:.1f} s{extra}; dir {self.dir}")

    def shutdown(self):
        t = [time.monotonic()]
        self.stop_workers()
        t.append(time.monotonic())
        self.stop_bgd()
        t.append(time.monotonic())
        self.stop_postgres()
        t.append(time.monotonic())
        self.stop_times = f"workers {t[1] - t[0]:.1f} s, bgd {t[2] - t[1]:.1f} s, postgres {t[3] - t[2]:.1f} s"
        try:
            os.unlink(os.path.join(self.dir, "port"))
        except OSError:
            pass

    def watch(self):
        while not self.stop.wait(0.5):
            if self.bgd is not None and self.bgd.poll() is not None:
                log(f"bgd exited unexpectedly ({self.bgd.returncode}):\n{tail(os.path.join(self.dir, 'bgd.log'))}")
                self.bgd = None
                return 1
            if self.pg and self.pg["proc"] is not None and self.pg["proc"].poll() is not None:
                log(f"postgres exited unexpectedly:\n{tail(os.path.join(self.dir, 'postgres.log'))}")
                self.pg["proc"] = None
                return 1
            for i, p in enumerate(self.workers):
                if p.returncode is None and p.poll() is not None:
                    log(f"worker {i} exited unexpectedly ({p.returncode}); see worker-{i}.log")
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", required=True, help="state/log folder (created if missing)")
    ap.add_argument("--exec", action="store_true", help="also serve remote execution (PostgreSQL + workers)")
    ap.add_argument("--workers", type=int, default=2, help="number of worker.py processes with --exec")
    ap.add_argument("--queue-timeout", type=int, default=300,
                    help="with --exec: fail jobs still queued after this many seconds (default 300)")
    ap.add_argument("--tls", action="store_true",
                    help="serve TLS only, with a throwaway CA and certificates made in DIR/tls (CA: DIR/tls/ca.pem)")
    ap.add_argument("--tls-client-auth", action="store_true",
                    help="implies --tls; also require a client certificate (DIR/tls/client.pem + client-key.pem)")
    ap.add_argument("--store-limit", type=int, metavar="BYTES",
                    help="a CAS that holds at most BYTES (whole 4 KiB pages; each blob takes at least one): "
                         "bgd runs on a tmpfs of that size, and uploads past it fail as on a full disk")
    ap.add_argument("--ignore-stdin", action="store_true", help="do not stop when stdin reaches EOF")
    args = ap.parse_args()
    if args.store_limit is not None and args.store_limit <= 0:
        ap.error("--store-limit must be at least 1 (a tmpfs of size 0 has no limit)")
    if not os.path.exists(BGD):
        log(f"{BGD} not found: run tests/reapi/install and start this script with target/buildgrid/bin/python")
        return 1

    h = Harness(args)

    def on_signal(signum, _frame):
        h.stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    if not args.ignore_stdin:
        def stdin_watch():
            try:
                while os.read(0, 65536):
                    pass
            except OSError:
                pass
            h.stop.set()

        threading.Thread(target=stdin_watch, daemon=True).start()

    try:
        h.start()
    except StartError as e:
        log(f"ERROR: {e}")
        h.shutdown()
        return 1
    except BaseException as e:  # noqa: BLE001 - clean up whatever happened
        log(f"ERROR: unexpected {type(e).__name__}: {e}")
        h.shutdown()
        raise
    rc = h.watch()
    h.shutdown()
    if rc == 0:
        log(f"stopped ({h.stop_times})")
    return rc


if __name__ == "__main__":
    sys.exit(main())
