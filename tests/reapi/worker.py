#!/usr/bin/env python3
"""Test-only stand-in for buildbox-worker (+ buildbox-run), for assetc's REAPI tests.

buildbox-worker is not available from any package registry, so the integration tests
use this small Remote Workers API (Bots v1test2) client instead. It is NOT part of
assetc and gives no sandboxing: commands run as the current user in a scratch folder.

    target/buildgrid/bin/python tests/reapi/worker.py --server 127.0.0.1:PORT \
        [--instance NAME] [--scratch DIR] [--property KEY=VALUE ...]
        [--tls-ca CA.pem [--tls-client-cert CERT.pem --tls-client-key KEY.pem]]

With --tls-ca the worker connects over TLS, trusting only that CA (serve.py --tls).

Loop: CreateBotSession (primary device properties OSFamily=linux and ISA=x86-64, the
latter from uname, unless --property is given), long-poll UpdateBotSession; for each
lease: fetch the Action (payload is an Action or a Digest), its Command and input
root from CAS, materialize the tree in a fresh scratch folder, run Command.arguments
(arguments[0] relative to the input root, cwd = working_directory, env = exactly
Command.environment_variables plus PATH=/usr/bin:/bin if absent, timeout =
Action.timeout or 600 s), upload outputs
(Command.output_paths, or legacy output_files/output_directories), and report an
ActionResult. Digests are SHA-256. Errors in a lease are reported as the lease status
(FAILED_PRECONDITION for missing inputs, DEADLINE_EXCEEDED on timeout, INTERNAL for
anything else) and the worker carries on with the next lease.

Only grpcio and the protos bundled in the buildgrid package are used.
"""

import argparse
import hashlib
import io
import os
import platform
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import traceback
import uuid

import grpc

from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc
from buildgrid._protos.google.bytestream import bytestream_pb2, bytestream_pb2_grpc
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2, bots_pb2_grpc, worker_pb2
from buildgrid._protos.google.rpc import code_pb2, error_details_pb2, status_pb2

BATCH_LIMIT = int(3.5 * 1024 * 1024)  # total payload of one Batch{Read,Update}Blobs call
BATCH_MAX_BLOB = 1024 * 1024           # larger blobs go through ByteStream
CHUNK = 1024 * 1024                    # ByteStream Write chunk size
INLINE_STD_LIMIT = 1024 * 1024         # stdout/stderr below this go into *_raw
DEFAULT_TIMEOUT = 600.0
LONG_POLL = 20.0                       # gRPC deadline of Create/UpdateBotSession (server waits 80 %)
GRPC_OPTIONS = [
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),
    ("grpc.max_send_message_length", 64 * 1024 * 1024),
]
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()

PENDING = bots_pb2.LeaseState.Value("PENDING")
ACTIVE = bots_pb2.LeaseState.Value("ACTIVE")
COMPLETED = bots_pb2.LeaseState.Value("COMPLETED")


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} worker[{os.getpid()}]: {msg}", flush=True)


class LeaseError(Exception):
    def __init__(self, code, message, missing=()):
        super().__init__(message)
        self.code = code
        self.missing = list(missing)  # Digests


def digest_of(data):
    return re_pb2.Digest(hash=hashlib.sha256(data).hexdigest(), size_bytes=len(data))


def dkey(d):
    return (d.hash, d.size_bytes)


# ---------------------------------------------------------------------------- CAS client
class Cas:
    def __init__(self, channel, instance):
        self.instance = instance
        self.cas = re_grpc.ContentAddressableStorageStub(channel)
        self.bs = bytestream_pb2_grpc.ByteStreamStub(channel)
        self.prefix = f"{instance}/" if instance else ""

    # -- reads
    def read_many(self, digests):
        """{(hash, size): bytes} for all digests; verifies every blob's SHA-256."""
        out = {}
        todo = {}
        for d in digests:
            if d.size_bytes == 0 and d.hash == EMPTY_SHA256:
                out[dkey(d)] = b""
            elif dkey(d) not in out:
                todo[dkey(d)] = d
        batch, batch_size = [], 0
        missing = []

        def flush():
            nonlocal batch, batch_size
            if not batch:
                return
            resp = self.cas.BatchReadBlobs(
                re_pb2.BatchReadBlobsRequest(instance_name=self.instance, digests=batch), timeout=120)
            for r in resp.responses:
                if r.status.code == code_pb2.NOT_FOUND:
                    missing.append(r.digest)
                elif r.status.code != code_pb2.OK:
                    raise LeaseError(code_pb2.INTERNAL, f"BatchReadBlobs {r.digest.hash}: {r.status.message}")
                else:
                    out[dkey(r.digest)] = r.data
            batch, batch_size = [], 0

        for d in todo.values():
            if d.size_bytes > BATCH_MAX_BLOB:
                try:
                    out[dkey(d)] = self.read_stream(d)
                except grpc.RpcError as e:
                    if e.code() == grpc.StatusCode.NOT_FOUND:
                        missing.append(d)
                    else:
                        raise
                continue
            if batch_size + d.size_bytes > BATCH_LIMIT:
                flush()
            batch.append(d)
            batch_size += d.size_bytes
        flush()
        if missing:
            raise LeaseError(code_pb2.FAILED_PRECONDITION,
                             "missing input blobs: " + ", ".join(f"{d.hash}/{d.size_bytes}" for d in missing),
                             missing)
        for k, d in todo.items():
            data = out.get(k)
            if data is None:
                raise LeaseError(code_pb2.INTERNAL, f"server did not return blob {d.hash}/{d.size_bytes}")
            if len(data) != d.size_bytes or hashlib.sha256(data).hexdigest() != d.hash:
                raise LeaseError(code_pb2.INTERNAL, f"blob {d.hash}/{d.size_bytes} from CAS has wrong content")
        return out

    def read(self, d):
        return self.read_many([d])[dkey(d)]

    def read_message(self, d, cls):
        msg = cls()
        msg.ParseFromString(self.read(d))
        return msg

    def read_stream(self, d):
        name = f"{self.prefix}blobs/{d.hash}/{d.size_bytes}"
        buf = io.BytesIO()
        for resp in self.bs.Read(bytestream_pb2.ReadRequest(resource_name=name), timeout=600):
            buf.write(resp.data)
        return buf.getvalue()

    # -- writes
    def upload(self, blobs):
        """blobs: {(hash, size): (Digest, bytes | path)}. Uploads the ones the server lacks."""
        blobs = {k: v for k, v in blobs.items() if k[1] > 0 or k[0] != EMPTY_SHA256}
        if not blobs:
            return
        digests = [d for d, _ in blobs.values()]
        missing = []
        for i in range(0, len(digests), 1000):
            resp = self.cas.FindMissingBlobs(
                re_pb2.FindMissingBlobsRequest(instance_name=self.instance, blob_digests=digests[i:i + 1000]),
                timeout=60)
            missing.extend(resp.missing_blob_digests)
        batch, batch_size = [], 0

        def flush():
            nonlocal batch, batch_size
            if not batch:
                return
            resp = self.cas.BatchUpdateBlobs(
                re_pb2.BatchUpdateBlobsRequest(instance_name=self.instance, requests=batch), timeout=120)
            for r in resp.responses:
                if r.status.code != code_pb2.OK:
                    raise LeaseError(code_pb2.INTERNAL, f"BatchUpdateBlobs {r.digest.hash}: {r.status.message}")
            batch, batch_size = [], 0

        for m in missing:
            d, src = blobs[dkey(m)]
            if d.size_bytes > BATCH_MAX_BLOB:
                self.write_stream(d, src)
                continue
            data = src if isinstance(src, bytes) else open(src, "rb").read()
            if batch_size + len(data) > BATCH_LIMIT:
                flush()
            batch.append(re_pb2.BatchUpdateBlobsRequest.Request(digest=d, data=data))
            batch_size += len(data)
        flush()

    def write_stream(self, d, src):
        name = f"{self.prefix}uploads/{uuid.uuid4()}/blobs/{d.hash}/{d.size_bytes}"

        def chunks():
            f = io.BytesIO(src) if isinstance(src, bytes) else open(src, "rb")
            with f:
                off = 0
                while True:
                    data = f.read(CHUNK)
                    last = off + len(data) >= d.size_bytes
                    yield bytestream_pb2.WriteRequest(resource_name=name if off == 0 else "", write_offset=off,
                                                      data=data, finish_write=last)
                    off += len(data)
                    if last or not data:
                        return

        resp = self.bs.Write(chunks(), timeout=600)
        if resp.committed_size != d.size_bytes:
            raise LeaseError(code_pb2.INTERNAL, f"ByteStream Write {d.hash}: committed {resp.committed_size}")


# ---------------------------------------------------------------------------- inputs
def check_name(name):
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise LeaseError(code_pb2.INVALID_ARGUMENT, f"invalid name in input tree: {name!r}")
    return name


def materialize(cas, root_digest, dest):
    """Fetch the input root Directory tree and write it below dest (which exists)."""
    dirs = {}  # (hash,size) -> Directory
    level = [root_digest]
    while level:
        fetched = cas.read_many([d for d in level if dkey(d) not in dirs])
        nxt = []
        for k, data in fetched.items():
            msg = re_pb2.Directory()
            msg.ParseFromString(data)
            dirs[k] = msg
            nxt.extend(n.digest for n in msg.directories if dkey(n.digest) not in dirs)
        level = nxt
    files = {}
    for msg in dirs.values():
        for f in msg.files:
            files[dkey(f.digest)] = f.digest
    contents = cas.read_many(list(files.values()))

    def write_dir(d, path):
        msg = dirs[dkey(d)]
        for f in msg.files:
            p = os.path.join(path, check_name(f.name))
            with open(p, "wb") as fh:
                fh.write(contents[dkey(f.digest)])
            os.chmod(p, 0o755 if f.is_executable else 0o644)
        for s in msg.symlinks:
            os.symlink(s.target, os.path.join(path, check_name(s.name)))
        for sub in msg.directories:
            p = os.path.join(path, check_name(sub.name))
            os.mkdir(p)
            write_dir(sub.digest, p)

    write_dir(root_digest, dest)


# ---------------------------------------------------------------------------- outputs
class Outputs:
    def __init__(self):
        self.blobs = {}  # (hash,size) -> (Digest, bytes|path)

    def add_bytes(self, data):
        d = digest_of(data)
        self.blobs.setdefault(dkey(d), (d, data))
        return d

    def add_file(self, path):
        h = hashlib.sha256()
        n = 0
        with open(path, "rb") as f:
            while chunk := f.read(CHUNK):
                h.update(chunk)
                n += len(chunk)
        d = re_pb2.Digest(hash=h.hexdigest(), size_bytes=n)
        if n <= BATCH_MAX_BLOB:
            with open(path, "rb") as f:
                self.blobs.setdefault(dkey(d), (d, f.read()))
        else:
            self.blobs.setdefault(dkey(d), (d, path))
        return d

    def directory(self, path, children):
        """Directory message for path (recursively); sub-Directories appended to children."""
        msg = re_pb2.Directory()
        for name in sorted(os.listdir(path)):
            p = os.path.join(path, name)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                msg.symlinks.add(name=name, target=os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                sub = self.directory(p, children)
                children.append(sub)
                msg.directories.add(name=name, digest=self.add_bytes(sub.SerializeToString()))
            elif stat.S_ISREG(st.st_mode):
                msg.files.add(name=name, digest=self.add_file(p), is_executable=bool(st.st_mode & 0o100))
        return msg

    def output_directory(self, rel, path):
        children = []
        root = self.directory(path, children)
        root_d = self.add_bytes(root.SerializeToString())
        # de-duplicate children by digest
        seen, uniq = set(), []
        for c in children:
            k = dkey(digest_of(c.SerializeToString()))
            if k not in seen:
                seen.add(k)
                uniq.append(c)
        tree = re_pb2.Tree(root=root, children=uniq)
        od = re_pb2.OutputDirectory(path=rel, tree_digest=self.add_bytes(tree.SerializeToString()))
        if "root_directory_digest" in re_pb2.OutputDirectory.DESCRIPTOR.fields_by_name:
            od.root_directory_digest.CopyFrom(root_d)
        if "is_topologically_sorted" in re_pb2.OutputDirectory.DESCRIPTOR.fields_by_name:
            od.is_topologically_sorted = False
        return od


def collect_outputs(command, workdir, result, outs):
    def add_path(rel, kind):
        """kind: 'any' (output_paths), 'file' or 'dir' (legacy fields)."""
        p = os.path.join(workdir, rel)
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            return
        except NotADirectoryError:
            return
        if stat.S_ISLNK(st.st_mode):
            target = os.readlink(p)
            sym = re_pb2.OutputSymlink(path=rel, target=target)
            if kind == "any":
                result.output_symlinks.append(sym)
            elif kind == "file":
                result.output_file_symlinks.append(sym)
            else:
                result.output_directory_symlinks.append(sym)
        elif stat.S_ISDIR(st.st_mode):
            if kind != "file":
                result.output_directories.append(outs.output_directory(rel, p))
        elif stat.S_ISREG(st.st_mode):
            if kind != "dir":
                result.output_files.append(re_pb2.OutputFile(
                    path=rel, digest=outs.add_file(p), is_executable=bool(st.st_mode & 0o100)))

    if command.output_paths:
        for rel in command.output_paths:
            add_path(rel, "any")
    else:
        for rel in command.output_files:
            add_path(rel, "file")
        for rel in command.output_directories:
            add_path(rel, "dir")


# ---------------------------------------------------------------------------- execution
def run_action(cas, action, scratch_root):
    command = cas.read_message(action.command_digest, re_pb2.Command)
    scratch = tempfile.mkdtemp(prefix="lease-", dir=scratch_root)
    try:
        root = os.path.join(scratch, "root")
        os.mkdir(root)
        materialize(cas, action.input_root_digest, root)
        workdir = os.path.normpath(os.path.join(root, command.working_directory))
        if not (workdir == root or workdir.startswith(root + os.sep)):
            raise LeaseError(code_pb2.INVALID_ARGUMENT, f"bad working_directory {command.working_directory!r}")
        os.makedirs(workdir, exist_ok=True)
        # REAPI: parent directories of outputs are created by the worker.
        for rel in list(command.output_paths) + list(command.output_files) + list(command.output_directories):
            parent = os.path.dirname(os.path.join(workdir, rel))
            os.makedirs(parent, exist_ok=True)
        if not command.arguments:
            raise LeaseError(code_pb2.INVALID_ARGUMENT, "Command.arguments is empty")
        argv = list(command.arguments)
        if "/" in argv[0] and not os.path.isabs(argv[0]):
            argv[0] = os.path.join(root, argv[0])
        env = {v.name: v.value for v in command.environment_variables}
        env.setdefault("PATH", "/usr/bin:/bin")
        timeout = DEFAULT_TIMEOUT
        if action.HasField("timeout") and action.timeout.ToTimedelta().total_seconds() > 0:
            timeout = action.timeout.ToTimedelta().total_seconds()

        result = re_pb2.ActionResult()
        md = result.execution_metadata
        md.worker = WORKER_ID
        md.execution_start_timestamp.GetCurrentTime()
        out_path = os.path.join(scratch, "stdout")
        err_path = os.path.join(scratch, "stderr")
        timed_out = False
        with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
            try:
                proc = subprocess.Popen(argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=fo,
                                        stderr=fe, start_new_session=True)
            except OSError as e:
                raise LeaseError(code_pb2.INVALID_ARGUMENT, f"cannot run {command.arguments[0]!r}: {e}")
            try:
                rc = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                rc = proc.wait()
            except BaseException:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise
        # whatever the command left running in its session
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        md.execution_completed_timestamp.GetCurrentTime()
        result.exit_code = rc if rc >= 0 else 128 - rc

        md.output_upload_start_timestamp.GetCurrentTime()
        outs = Outputs()
        collect_outputs(command, workdir, result, outs)
        for path, raw_field, digest_field in ((out_path, "stdout_raw", "stdout_digest"),
                                              (err_path, "stderr_raw", "stderr_digest")):
            size = os.path.getsize(path)
            if size == 0:
                continue
            if size < INLINE_STD_LIMIT:
                setattr(result, raw_field, open(path, "rb").read())
            else:
                getattr(result, digest_field).CopyFrom(outs.add_file(path))
        cas.upload(outs.blobs)
        md.output_upload_completed_timestamp.GetCurrentTime()
        status = status_pb2.Status(code=code_pb2.OK)
        if timed_out:
            status = status_pb2.Status(code=code_pb2.DEADLINE_EXCEEDED,
                                       message=f"action timed out after {timeout:g} s")
        return result, status
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def error_status(code, message, missing=()):
    st = status_pb2.Status(code=code, message=message)
    if missing:
        pf = error_details_pb2.PreconditionFailure()
        for d in missing:
            pf.violations.add(type="MISSING", subject=f"blobs/{d.hash}/{d.size_bytes}")
        st.details.add().Pack(pf)
    return st


def handle_lease(cas, lease, scratch_root):
    t0 = time.monotonic()
    try:
        if lease.payload.Is(re_pb2.Action.DESCRIPTOR):
            action = re_pb2.Action()
            lease.payload.Unpack(action)
        elif lease.payload.Is(re_pb2.Digest.DESCRIPTOR):
            d = re_pb2.Digest()
            lease.payload.Unpack(d)
            action = cas.read_message(d, re_pb2.Action)
        else:
            raise LeaseError(code_pb2.INVALID_ARGUMENT, f"unknown lease payload {lease.payload.type_url}")
        result, status = run_action(cas, action, scratch_root)
        lease.result.Pack(result)
        lease.status.CopyFrom(status)
        log(f"lease {lease.id}: exit {result.exit_code}, status {status.code}, {time.monotonic() - t0:.2f} s")
    except LeaseError as e:
        log(f"lease {lease.id}: error {e.code}: {e}")
        lease.ClearField("result")
        lease.status.CopyFrom(error_status(e.code, str(e), e.missing))
    except grpc.RpcError as e:
        log(f"lease {lease.id}: gRPC error {e.code()}: {e.details()}")
        lease.ClearField("result")
        lease.status.CopyFrom(error_status(code_pb2.INTERNAL, f"worker gRPC error {e.code()}: {e.details()}"))
    except Exception as e:  # noqa: BLE001 - report and keep serving
        log(f"lease {lease.id}: exception\n{traceback.format_exc()}")
        lease.ClearField("result")
        lease.status.CopyFrom(error_status(code_pb2.INTERNAL, f"worker exception: {type(e).__name__}: {e}"))
    lease.state = COMPLETED


# ---------------------------------------------------------------------------- bot loop
WORKER_ID = f"reapi-test-worker-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def main():
    ap = argparse.ArgumentParser(description="test-only stand-in for buildbox-worker")
    ap.add_argument("--server", required=True, help="host:port of the Bots/CAS server")
    ap.add_argument("--instance", default="", help="instance name (default: empty)")
    ap.add_argument("--scratch", default=None, help="folder for per-lease scratch folders")
    ap.add_argument("--property", action="append", default=[], metavar="KEY=VALUE",
                    help="device property, repeatable (default: OSFamily=linux ISA=x86-64)")
    ap.add_argument("--tls-ca", default=None, metavar="PEM",
                    help="connect with TLS, trusting only this CA certificate")
    ap.add_argument("--tls-client-cert", default=None, metavar="PEM", help="with --tls-ca: client certificate")
    ap.add_argument("--tls-client-key", default=None, metavar="PEM", help="with --tls-ca: client private key")
    args = ap.parse_args()
    if (args.tls_client_cert or args.tls_client_key) and not (args.tls_ca and args.tls_client_cert
                                                              and args.tls_client_key):
        ap.error("--tls-client-cert and --tls-client-key go together, and need --tls-ca")

    def on_term(signum, _frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)

    scratch_root = os.path.abspath(args.scratch) if args.scratch else tempfile.mkdtemp(prefix="reapi-worker-")
    os.makedirs(scratch_root, exist_ok=True)
    isa = {"x86_64": "x86-64", "amd64": "x86-64"}.get(platform.machine().lower(), platform.machine().lower())
    props = [p.split("=", 1) for p in args.property] or [["OSFamily", "linux"], ["ISA", isa]]
    if args.tls_ca:
        def rd(path):
            with open(path, "rb") as f:
                return f.read()

        creds = grpc.ssl_channel_credentials(
            root_certificates=rd(args.tls_ca),
            private_key=rd(args.tls_client_key) if args.tls_client_key else None,
            certificate_chain=rd(args.tls_client_cert) if args.tls_client_cert else None)
        channel = grpc.secure_channel(args.server, creds, options=GRPC_OPTIONS)
    else:
        channel = grpc.insecure_channel(args.server, options=GRPC_OPTIONS)
    cas = Cas(channel, args.instance)
    bots = bots_pb2_grpc.BotsStub(channel)
    worker = worker_pb2.Worker(devices=[worker_pb2.Device(
        handle="primary", properties=[worker_pb2.Device.Property(key=k, value=v) for k, v in props])])
    log(f"bot_id {WORKER_ID}, server {args.server}{' (TLS)' if args.tls_ca else ''}, instance {args.instance!r}, properties {props}")

    session = None
    backoff = 0.05
    try:
        while True:
            try:
                if session is None:
                    session = bots.CreateBotSession(bots_pb2.CreateBotSessionRequest(
                        parent=args.instance,
                        bot_session=bots_pb2.BotSession(bot_id=WORKER_ID, status=bots_pb2.BotStatus.Value("OK"),
                                                        worker=worker)), timeout=LONG_POLL)
                    log(f"bot session {session.name}")
                else:
                    session = bots.UpdateBotSession(
                        bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session), timeout=LONG_POLL)
                backoff = 0.05
            except grpc.RpcError as e:
                code = e.code()
                if code in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED):
                    continue
                if code == grpc.StatusCode.UNAVAILABLE:
                    time.sleep(backoff)
                    backoff = min(backoff * 2, 1.0)
                    continue
                log(f"bot session error {code}: {e.details()}; starting a new session")
                session = None
                time.sleep(0.5)
                continue
            # Leases we completed are dropped by the server in its reply. A lease id that comes
            # back ACTIVE is a retry (BuildGrid re-queues INTERNAL/UNAVAILABLE results under the
            # same id), so it is run again.
            work = [l for l in session.leases if l.state in (PENDING, ACTIVE)]
            if not work:
                time.sleep(0.05)  # the server long-polls; this only guards against a tight loop
                continue
            for lease in work:
                handle_lease(cas, lease, scratch_root)
    finally:
        if not args.scratch:
            shutil.rmtree(scratch_root, ignore_errors=True)
        channel.close()


if __name__ == "__main__":
    sys.exit(main())
