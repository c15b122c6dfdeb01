# SPDX-License-Identifier: Apache-2.0
"""A fake Engine API for audits, on a unix socket, for tests without an engine.

usage: /usr/bin/python3 fake_audit_engine.py SOCKET WORLD_JSON
  WORLD_JSON (read again at every request, so a test may change it) is
    {"id": "<the /info ID>",
     "containers": [{"Id": "<64 hex>", "Name": "n", "State": "running", "StartedAt": "T",
                     "Pid": 42, "Labels": {...}, "listedFrom": 0}, ...]}
  and is served as /_ping, /version, /info, /containers/json (the containers whose listedFrom,
  default 0, is at most the number of listings asked before: a container that starts
  mid-audit) and /containers/<Id>/json (a container inspect: Id, Name, State, Config.Labels);
  404 for anything else. Counts its requests in SOCKET.log (one path a line). Writes its pid
  to SOCKET.pid; exits on SIGTERM. Nothing but this socket is listened on.
"""
import json
import os
import re
import signal
import socketserver
import sys
import threading
from http.server import BaseHTTPRequestHandler

sock, world_file = sys.argv[1:3]
lock = threading.Lock()
listings = [0]


def world():
    with open(world_file, encoding="utf-8") as f:
        return json.load(f)


def inspect(c):
    running = c.get("State", "running") == "running"
    return {"Id": c["Id"], "Name": "/" + c["Name"],
            "State": {"Status": c.get("State", "running"), "Running": running,
                      "Pid": c.get("Pid", 0) if running else 0,
                      "StartedAt": c.get("StartedAt", "0001-01-01T00:00:00Z")},
            "Config": {"Labels": c.get("Labels", {})}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, code, data):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Api-Version", "1.41")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        path = re.sub(r"^/v[0-9]+\.[0-9]+", "", self.path.split("?")[0])
        with open(sock + ".log", "a", encoding="utf-8") as log:
            log.write(path + "\n")
        w = world()
        by_id = {c["Id"]: c for c in w.get("containers", [])}
        m = re.fullmatch(r"/containers/([^/]+)/json", path)
        if path == "/_ping":
            self.reply(200, b"OK")
            return
        if path == "/version":
            data = {"Version": "20.10.24", "ApiVersion": "1.41", "MinAPIVersion": "1.12",
                    "Components": [{"Name": "Engine", "Version": "20.10.24"}]}
        elif path == "/info":
            data = {"ID": w["id"], "Name": "fake"}
        elif path == "/containers/json":
            with lock:
                n = listings[0]
                listings[0] += 1
            data = [{"Id": c["Id"], "Names": ["/" + c["Name"]], "State": c.get("State", "running"),
                     "Labels": c.get("Labels", {})}
                    for c in w.get("containers", []) if c.get("listedFrom", 0) <= n]
        elif m and m.group(1) in by_id:
            data = inspect(by_id[m.group(1)])
        else:
            self.reply(404, json.dumps({"message": "No such container: " + path}).encode())
            return
        self.reply(200, json.dumps(data).encode())


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
with open(sock + ".pid", "w", encoding="utf-8") as f:
    f.write(str(os.getpid()))
with Server(sock, Handler) as srv:
    srv.serve_forever()
