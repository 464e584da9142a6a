"""Network partitions on loopback for the chaos runs (issue 16): a Kafka-aware
TCP proxy in front of every broker, run as its own process and steered by
the harness.

Each broker advertises the proxy's port for it (advertised.listeners), so
clients and the other brokers reach it only through the proxy. The proxy
names the two ends of every connection: the destination is the broker the
port stands for ("b0", "b1", ...); the source is read from the client id of
the connection's first request: Spool's inter-broker clients call
themselves `spool-broker-<id>` and `spool-txn-markers-<id>` (source
"b<id>"), anything else is "client".

A cut between two ends stops every byte between them in both directions, as
a firewall dropping packets would: data already read is held, nothing more
is read (the senders' kernel buffers fill), and new connections are
accepted but carry nothing. Healing delivers what was held, as TCP would
retransmit it; connections that the ends gave up on in the meantime are
closed by them.

Protocol (one JSON object per line on stdin; one JSON reply per line):
  {"op": "listen", "name": "b0", "port": Q, "upstream": P}  serve Q -> 127.0.0.1:P
  {"op": "route", "name": "b0", "upstream": P}              change the upstream
  {"op": "cut", "pairs": [["client", "b0"], ...]}            replace the set of cuts
  {"op": "heal"}                                             no cuts
  {"op": "stats"}                                            connections and bytes per pair

`NetProxy` below starts the process and speaks this protocol."""

import asyncio
import json
import os
import re
import struct
import subprocess
import sys

BROKER_CLIENT_ID = re.compile(r"^spool-(?:broker|txn-markers)-(\d+)$")


def source_of(first_bytes):
    """The source name from the first request's header, or None while fewer
    bytes than the header are in (size, api key, version, correlation id,
    client id as a nullable int16-length string in every header version)."""
    if len(first_bytes) < 14:
        return None
    (n,) = struct.unpack_from(">h", first_bytes, 12)
    if n < 0:
        return "client"
    if len(first_bytes) < 14 + n:
        return None if n <= 256 else "client"
    m = BROKER_CLIENT_ID.match(first_bytes[14:14 + n].decode("utf-8", "replace"))
    return f"b{m.group(1)}" if m else "client"


class Proxy:
    def __init__(self):
        self.upstream = {}  # name -> port
        self.cuts = set()   # frozenset({a, b})
        self.gates = {}     # frozenset({a, b}) -> asyncio.Event (set = open)
        self.stats = {}     # "a>b" -> [connections, bytes]

    def gate(self, a, b):
        key = frozenset((a, b))
        g = self.gates.get(key)
        if g is None:
            g = self.gates[key] = asyncio.Event()
            if key not in self.cuts:
                g.set()
        return g

    def set_cuts(self, pairs):
        self.cuts = {frozenset(p) for p in pairs if p[0] != p[1]}
        for key, g in self.gates.items():
            g.clear() if key in self.cuts else g.set()

    async def serve(self, name, port):
        async def on_conn(reader, writer):
            await self.connection(name, reader, writer)
        return await asyncio.start_server(on_conn, "127.0.0.1", port, reuse_address=True)

    async def connection(self, dst, creader, cwriter):
        first = b""
        try:
            while (src := source_of(first)) is None:
                chunk = await creader.read(4096)
                if not chunk:
                    cwriter.close()
                    return
                first += chunk
            gate = self.gate(src, dst)
            await gate.wait()
            ureader, uwriter = await asyncio.open_connection("127.0.0.1", self.upstream[dst])
        except (OSError, KeyError):
            cwriter.close()
            return
        st = self.stats.setdefault(f"{src}>{dst}", [0, 0])
        st[0] += 1
        uwriter.write(first)
        st[1] += len(first)
        await asyncio.gather(self.pump(creader, uwriter, gate, st), self.pump(ureader, cwriter, gate, st))

    @staticmethod
    async def pump(reader, writer, gate, st):
        try:
            while True:
                await gate.wait()
                data = await reader.read(65536)
                if not data:
                    break
                await gate.wait()  # a cut while this chunk was in flight holds it
                writer.write(data)
                st[1] += len(data)
                await writer.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            try:
                writer.close()
            except OSError:
                pass


async def main():
    proxy = Proxy()
    servers = {}
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        try:
            cmd = json.loads(line)
            op = cmd["op"]
            reply = {"ok": True}
            if op == "listen":
                proxy.upstream[cmd["name"]] = int(cmd["upstream"])
                servers[cmd["name"]] = await proxy.serve(cmd["name"], int(cmd["port"]))
            elif op == "route":
                proxy.upstream[cmd["name"]] = int(cmd["upstream"])
            elif op == "cut":
                proxy.set_cuts([tuple(p) for p in cmd["pairs"]])
            elif op == "heal":
                proxy.set_cuts([])
            elif op == "stats":
                reply["stats"] = proxy.stats
            else:
                reply = {"ok": False, "error": f"unknown op {op!r}"}
        except (ValueError, KeyError, OSError) as e:
            reply = {"ok": False, "error": str(e)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    # stdin closed: the harness is done; end at once, connections and all
    sys.stdout.flush()
    os._exit(0)


class NetProxy:
    """The harness's handle on a proxy process (see the module text)."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self.ports = {}
        self.cuts = []

    def _call(self, **cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"netproxy exited ({self.proc.poll()})")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise RuntimeError(f"netproxy {cmd}: {reply.get('error')}")
        return reply

    def listen(self, name, port, upstream):
        self.ports[name] = port
        self._call(op="listen", name=name, port=port, upstream=upstream)

    def route(self, name, upstream):
        self._call(op="route", name=name, upstream=upstream)

    def cut(self, pairs):
        self.cuts = [list(p) for p in pairs]
        self._call(op="cut", pairs=self.cuts)

    def heal(self):
        self.cuts = []
        self._call(op="heal")

    def stats(self):
        return self._call(op="stats")["stats"]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


if __name__ == "__main__":
    asyncio.run(main())
