"""A TCP proxy that drops connections on demand, for tests of clients
through lost connections: it forwards 127.0.0.1:<port> to an upstream port
byte for byte, and drop_all() closes every connection it carries at once
(both ends), as a broker restart or a middlebox reset would. A request may
then have reached the broker while its answer is lost. Threads only; one
proxy per test."""

import socket
import threading


class DropProxy:
    def __init__(self, port, upstream_port=None):
        self.port = port
        self.upstream_port = upstream_port
        self._lock = threading.Lock()
        self._conns = []  # (client socket, upstream socket)
        self.drops = 0
        self.accepted = 0
        self._listener = socket.create_server(("127.0.0.1", port), reuse_port=False)
        self._listener.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            if self.upstream_port is None:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._conns.append((client, upstream))
                self.accepted += 1
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def drop_all(self):
        with self._lock:
            conns, self._conns = self._conns, []
            if conns:
                self.drops += 1
        for pair in conns:
            for s in pair:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
        return len(conns)

    def close(self):
        self._stop.set()
        self._listener.close()
        self.drop_all()
        self._thread.join(timeout=2)
