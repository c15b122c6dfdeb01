# SPDX-License-Identifier: Apache-2.0
"""An Engine API of recorded replies on a unix socket, for tests without an engine.

usage: /usr/bin/python3 fake_engine.py SOCKET FIXTURE_DIR [HOLD_FILE]
  Serves FIXTURE_DIR's version.json (/version), info.json (/info), container.json
  (/containers/<any>/json), image.json (/images/<any>/json); 404 for anything else (the engine's
  own reply shape, {"message": ...}). While HOLD_FILE exists, a request waits before it is
  answered (a collector caught in the middle of a collection), and HOLD_FILE.seen says a
  request came. Writes its pid to SOCKET.pid;
  exits on SIGTERM. Nothing but this socket is listened on.
"""
import json
import os
import re
import signal
import socketserver
import sys
import time
from http.server import BaseHTTPRequestHandler

sock, fixture = sys.argv[1:3]
hold = sys.argv[3] if len(sys.argv) > 3 else None


def body(name):
    with open(os.path.join(fixture, name), "rb") as f:
        return f.read()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        if hold and os.path.exists(hold):
            open(hold + ".seen", "w").close()
        while hold and os.path.exists(hold):
            time.sleep(0.05)
        path = re.sub(r"^/v[0-9]+\.[0-9]+", "", self.path.split("?")[0])
        if path == "/version":
            data, code = body("version.json"), 200
        elif path == "/info":
            data, code = body("info.json"), 200
        elif re.fullmatch(r"/containers/[^/]+/json", path):
            data, code = body("container.json"), 200
        elif re.fullmatch(r"/images/[^/]+/json", path):
            data, code = body("image.json"), 200
        else:
            data, code = json.dumps({"message": "no such thing here"}).encode(), 404
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


if os.path.exists(sock):
    os.unlink(sock)
srv = Server(sock, Handler)
os.chmod(sock, 0o666)
with open(sock + ".pid", "w") as f:
    f.write(str(os.getpid()))
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
srv.serve_forever()
