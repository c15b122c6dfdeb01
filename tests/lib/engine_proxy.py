# SPDX-License-Identifier: Apache-2.0
"""A unix-socket proxy in front of the real Engine API, for fault tests.

usage: /usr/bin/python3 engine_proxy.py LISTEN_SOCKET UPSTREAM_SOCKET ACTION ARG [PIDFILE]
  ACTION restart|remove, ARG a container Id: before forwarding the second inspect of
    that container (the collector's final re-inspect), restart or remove it through the
    real engine, so the collector sees the session change while it collects.
  ACTION die-after-file, ARG a folder, PIDFILE the engine's pid file: once a
    *.intoto.json file exists in the folder, the next request kills the engine (SIGKILL,
    by the pid in PIDFILE: an engine the test started) and gets half a reply, and the
    proxy exits: the engine is lost in the middle of the work.
  ACTION none: only forward.
Writes its pid to LISTEN_SOCKET.pid; exits on SIGTERM.
"""
import http.client
import os
import socket
import socketserver
import sys
from http.server import BaseHTTPRequestHandler

import glob
import signal

listen, upstream, action, target = sys.argv[1:5]
pidfile = sys.argv[5] if len(sys.argv) > 5 else None
state = {"inspects": 0, "done": False}


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=60)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def upstream_request(method, path):
    c = UnixHTTPConnection(upstream)
    c.request(method, path, headers={"Host": "docker"})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("Content-Type") or "application/json", body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if action == "die-after-file" and glob.glob(os.path.join(target, "*.intoto.json")):
            with open(pidfile) as f:
                os.kill(int(f.read().strip()), signal.SIGKILL)
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 4096\r\n\r\n{\"Id\":\"")
            self.wfile.flush()
            os._exit(0)
        p = self.path.split("?", 1)[0]
        if "/containers/" in p and p.endswith("/json"):
            state["inspects"] += 1
            if state["inspects"] == 2 and not state["done"]:
                state["done"] = True
                if action == "restart":
                    upstream_request("POST", f"/containers/{target}/restart?t=0")
                elif action == "remove":
                    upstream_request("DELETE", f"/containers/{target}?force=1")
        status, ctype, body = upstream_request("GET", self.path)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


if os.path.exists(listen):
    os.unlink(listen)
srv = Server(listen, Handler)
with open(listen + ".pid", "w") as f:
    f.write(str(os.getpid()))
srv.serve_forever()
