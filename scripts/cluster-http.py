#!/usr/bin/env python3
"""Cluster writes from outside, over HTTP: commits/s of real `strata serve` processes.

The issue-28 measurement as a user makes it: `wrk` (Debian `wrk`) sends SPARQL updates
of one new triple each over keep-alive connections (8 by default: 3 + 3 + 2, one `wrk`
per node), for SECONDS. Rows, each started fresh and interleaved ROUNDS times:

- `embedded`: one `strata serve` on its own data, all connections to it;
- `r<R>n<N>`: N nodes on N clustered `nats-server` processes, streams with R replicas,
  the connections spread over the nodes (most of them forwarded to the write leader).

Prints commits/s, the ratio to the embedded row of the same round, non-2xx answers
(must be 0) and each `wrk`'s latency p50 / p99 (the first node started usually leads).

    python3 scripts/cluster-http.py --strata target/release/strata --rows embedded,r3n3
"""

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

LUA = """
counter = 0
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
tag = math.random(1, 1000000000)
request = function()
  counter = counter + 1
  local body = "INSERT DATA { <http://example.org/w" .. tag .. "_" .. counter .. "> <http://example.org/p> " .. counter .. " }"
  return wrk.format("POST", "/graphs/main/update", {["Content-Type"]="application/sparql-update"}, body)
end
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(port, limit=60):
    deadline = time.time() + limit
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"node on port {port} did not answer /healthz within {limit} s")


def post(port, update):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/graphs/main/update",
        data=update.encode(),
        headers={"Content-Type": "application/sparql-update"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()


def start_row(row, strata, work, processes):
    """Starts the processes of one row; returns the HTTP ports of its nodes."""
    def serve(name, extra):
        port = free_port()
        log = open(os.path.join(work, f"{name}.log"), "w")
        processes.append(subprocess.Popen(
            [strata, "--data", os.path.join(work, name), "serve", "--http",
             f"127.0.0.1:{port}", "--no-demo", *extra],
            stdout=log, stderr=subprocess.STDOUT))
        wait_healthy(port)
        return port

    if row == "embedded":
        return [serve("node", [])]
    found = re.fullmatch(r"r(\d)n(\d)", row)
    if not found:
        sys.exit(f"--rows: {row!r} is neither embedded nor r<replicas>n<nodes>")
    replicas, nodes = int(found.group(1)), int(found.group(2))
    clients = [free_port() for _ in range(nodes)]
    routes = [free_port() for _ in range(nodes)]
    for i in range(nodes):
        config = [f"server_name: s{i}", f"listen: 127.0.0.1:{clients[i]}",
                  f'jetstream {{ store_dir: "{os.path.join(work, f"js{i}")}" }}']
        if nodes > 1:
            peers = ", ".join(f"nats-route://127.0.0.1:{p}" for p in routes)
            config.append(f"cluster {{ name: http, listen: 127.0.0.1:{routes[i]}, routes: [{peers}] }}")
        path = os.path.join(work, f"nats{i}.conf")
        with open(path, "w") as f:
            f.write("\n".join(config) + "\n")
        processes.append(subprocess.Popen(
            ["nats-server", "-c", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    time.sleep(4 if nodes > 1 else 1)  # a JetStream cluster elects its meta leader first
    urls = ",".join(f"nats://127.0.0.1:{p}" for p in clients)
    extra = ["--log", urls, "--replicas", str(replicas)]
    ports = [serve("node0", extra)]
    # The first node creates the graph's stream and takes the write lease.
    post(ports[0], "INSERT DATA { <http://example.org/start> <http://example.org/p> 0 }")
    ports += [serve(f"node{i}", extra) for i in range(1, nodes)]
    time.sleep(4)
    return ports


def run_row(row, args, lua):
    work = tempfile.mkdtemp(prefix=f"strata-http-{row}-", dir=args.work)
    processes = []
    try:
        ports = start_row(row, args.strata, work, processes)
        split = [3, 3, 2] if args.connections == 8 else [args.connections]
        loads = []
        for i, connections in enumerate(split):
            port = ports[i % len(ports)]
            loads.append(subprocess.Popen(
                ["wrk", "--latency", "-t1", f"-c{connections}", f"-d{args.seconds}s",
                 "-s", lua, f"http://127.0.0.1:{port}"],
                stdout=subprocess.PIPE, text=True))
        outputs = [load.communicate()[0] for load in loads]
        total, bad, latencies = 0, 0, []
        for out in outputs:
            total += int(re.search(r"(\d+) requests in", out).group(1))
            non = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
            bad += int(non.group(1)) if non else 0
            p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)
            p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)
            latencies.append(f"{p50}/{p99}")
        return total / args.seconds, bad, latencies
    finally:
        for process in reversed(processes):
            process.kill()
            process.wait()
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strata", default="target/release/strata")
    parser.add_argument("--rows", default="embedded,r1n3,r3n3")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--connections", type=int, default=8,
                        help="8 (3 + 3 + 2 over the nodes) or any number through the first node")
    parser.add_argument("--work", default=None, help="where the data directories go")
    args = parser.parse_args()
    for tool in ("wrk", "nats-server"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} not found (Debian: apt-get install {tool})")
    rows = args.rows.split(",")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(LUA)
        lua = f.name
    print(f"# Writes over HTTP, {args.connections} connections, {args.seconds} s per row, "
          f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}\n")
    print("| round | row | commits/s | × embedded | non-2xx | latency p50/p99 per wrk |")
    print("|---|---|---|---|---|---|")
    for round_ in range(1, args.rounds + 1):
        embedded = None
        for row in rows:
            rate, bad, latencies = run_row(row, args, lua)
            if row == "embedded":
                embedded = rate
            ratio = f"{rate / embedded:.2f}" if embedded else "—"
            print(f"| {round_} | {row} | {rate:,.0f} | {ratio} | {bad} | {', '.join(latencies)} |",
                  flush=True)
    os.unlink(lua)


if __name__ == "__main__":
    main()
