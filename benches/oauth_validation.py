#!/usr/bin/env python3
"""What signing in costs per request: the same tiny read over one keep-alive connection
with an API key, a JWT access token (signature checked on every request, RS256, keys
cached) and an opaque token (introspection answer cached for `cache_secs`), against the
real `strata serve` and the test authorization server (`tests/e2e/oauth_server.py`,
Authlib; needs `pip install authlib flask pyjwt cryptography`).

    python3 benches/oauth_validation.py [--binary target/release/strata] [--requests 5000]

The modes take turns request by request, so drift on a shared machine hits all of them
alike; the figure is each mode's median minus the API key's (an API key costs one SHA-256
and a map lookup). Prints a Markdown table.
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def token(issuer, client, secret, resource):
    body = urllib.parse.urlencode({
        "grant_type": "client_credentials", "scope": "strata:read", "resource": resource,
    }).encode()
    request = urllib.request.Request(f"{issuer}/token", data=body, headers={
        "Authorization": "Basic " + base64.b64encode(f"{client}:{secret}".encode()).decode(),
        "Content-Type": "application/x-www-form-urlencoded",
    })
    with urllib.request.urlopen(request) as response:
        return json.load(response)["access_token"]


def wait_for(port, deadline=30):
    until = time.time() + deadline
    while time.time() < until:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"nothing listens on {port}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "target/release/strata"))
    parser.add_argument("--requests", type=int, default=5000, help="per mode")
    args = parser.parse_args()

    auth = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests/e2e/oauth_server.py")],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    issuer = auth.stdout.readline().strip().removeprefix("listening ")
    work = tempfile.mkdtemp(prefix="strata-oauth-bench-")
    port = free_port()
    resource = f"http://127.0.0.1:{port}"
    config = os.path.join(work, "config.json")
    with open(config, "w") as f:
        json.dump({
            "oauth": {"issuer": issuer, "resource": resource,
                      "introspection": {"client_id": "strata", "client_secret": "strata-secret"}},
            "api_keys": [{"name": "bench", "sha256": hashlib.sha256(b"bench-key").hexdigest(),
                          "scopes": ["read"]}],
        }, f)
    server = subprocess.Popen([args.binary, "--data", os.path.join(work, "data"), "serve", "--http",
                               f"127.0.0.1:{port}", "--config", config],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(port)
        modes = {
            "API key": "bench-key",
            "JWT (RS256)": token(issuer, "jwt-client", "jwt-secret", resource),
            "opaque (introspection cached)": token(issuer, "opaque-client", "opaque-secret", resource),
        }
        connection = http.client.HTTPConnection("127.0.0.1", port)
        path = "/sparql?query=" + urllib.parse.quote("ASK {}")

        def once(bearer):
            started = time.perf_counter()
            connection.request("GET", path, headers={
                "Authorization": f"Bearer {bearer}", "Accept": "application/sparql-results+json"})
            response = connection.getresponse()
            response.read()
            elapsed = time.perf_counter() - started
            if response.status != 200:
                sys.exit(f"HTTP {response.status} for {bearer[:12]}…")
            return elapsed

        for bearer in modes.values():  # warm-up: keys fetched, introspection cached
            for _ in range(50):
                once(bearer)
        samples = {name: [] for name in modes}
        for _ in range(args.requests):
            for name, bearer in modes.items():
                samples[name].append(once(bearer))
        base = statistics.median(samples["API key"])
        print(f"# sign-in cost per request: GET /sparql?query=ASK {{}}, {args.requests} requests per mode, "
              f"one keep-alive connection; load average {os.getloadavg()[0]:.2f}\n")
        print("| credential | p50 µs | p90 µs | p50 − API key's, µs |")
        print("|---|---|---|---|")
        for name, times in samples.items():
            times.sort()
            p50 = statistics.median(times)
            p90 = times[int(len(times) * 0.9)]
            print(f"| {name} | {p50 * 1e6:.0f} | {p90 * 1e6:.0f} | {(p50 - base) * 1e6:+.0f} |")
    finally:
        server.terminate()
        server.wait()
        auth.terminate()
        auth.wait()


if __name__ == "__main__":
    main()
