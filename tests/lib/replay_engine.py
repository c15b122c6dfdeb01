# SPDX-License-Identifier: Apache-2.0
"""A fake Engine API that answers with the recorded replies of one fixtures/inspect case.

usage: /usr/bin/python3 replay_engine.py CASE_DIR
  Listens on 127.0.0.1 (a port the kernel picks), prints the port on stdout, then serves
  /_ping, /version, /info, the container's inspect (by Id, by name or as "x"), the image's
  inspect and, when the case has network.json, that network's inspect, each the bytes of
  the recorded file; 404 for anything else. Plain HTTP: a client reaches it as
  tcp://127.0.0.1:PORT with --insecure-engine, so a collection is at level engine and
  reads nothing of this host. Each request is logged on stderr. Exits on SIGTERM.
"""
import json
import os
import signal
import socketserver
import sys
from http.server import BaseHTTPRequestHandler

case = sys.argv[1]


def read(name):
    path = os.path.join(case, name)
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return f.read()


container, image, network = read("container.json"), read("image.json"), read("network.json")
c, img = json.loads(container), json.loads(image)
routes = {
    "/_ping": b"OK",
    "/version": read("version.json"),
    "/info": read("info.json"),
    "/images/%s/json" % img["Id"]: image,
}
for ref in (c["Id"], c["Name"].lstrip("/"), "x"):
    routes["/containers/%s/json" % ref] = container
if network is not None:
    routes["/networks/%s" % json.loads(network)["Name"]] = network


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("replay_engine: %s\n" % (fmt % args))

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path.startswith("/v1.41/"):
            path = path[len("/v1.41"):]
        body, code = routes.get(path), 200
        if body is None:
            body, code = b'{"message":"page not found"}', 404
        self.send_response(code)
        self.send_header("Content-Type", "text/plain" if path == "/_ping" else "application/json")
        self.send_header("Api-Version", "1.41")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True


signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
srv = Server(("127.0.0.1", 0), Handler)
print(srv.server_address[1], flush=True)
srv.serve_forever()
