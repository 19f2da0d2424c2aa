#!/usr/bin/env python3
"""A big import through one node of a cluster (issue 24): time and peak memory per node.

Starts one NATS server with JetStream (its store under --work), three `strata serve
--log` nodes, sends FILE (N-Triples, gzip) to the first as one Graph Store `POST` with
`Content-Encoding: gzip`, and waits until every node has applied the commit. Then starts
a fourth node, which must start from the store files the writer published, and waits
for it. Prints, per node, when it had the commit and its peak resident memory (VmHWM
from /proc), and the disk each data directory and the NATS store use.

    python3 scripts/cluster-import.py --strata target/release/strata bsbm-50m.nt.gz
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def peak_rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def metric(base, name):
    text = urllib.request.urlopen(f"{base}/metrics", timeout=30).read().decode()
    match = re.search(rf'^{name}{{graph="main"}} (\d+)', text, re.M)
    return int(match.group(1)) if match else 0


def du(path):
    out = subprocess.run(["du", "-sb", path], capture_output=True, text=True)
    return int(out.stdout.split()[0]) if out.returncode == 0 else 0


def start_node(strata, data, nats_url, env):
    child = subprocess.Popen(
        [strata, "--data", data, "serve", "--http", "127.0.0.1:0", "--no-demo",
         "--log", nats_url, "--replicas", "1", "--config", os.path.join(data + ".json")],
        stdout=subprocess.PIPE,
        stderr=open(data + ".log", "w"),
        text=True,
        env=env,
    )
    for line in child.stdout:
        match = re.search(r"(http://127\.0\.0\.1:\d+)", line)
        if match:
            return child, match.group(1)
    sys.exit(f"node {data} did not start: see {data}.log")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="an N-Triples file, gzip")
    parser.add_argument("--strata", default="target/release/strata")
    parser.add_argument("--work", default=None)
    parser.add_argument("--keep", action="store_true", help="keep the directories")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="cluster-import-", dir=args.work)
    strata = os.path.abspath(args.strata)
    port = free_port()
    nats_conf = os.path.join(work, "nats.conf")
    with open(nats_conf, "w") as f:
        f.write(f'port: {port}\nlisten: 127.0.0.1:{port}\n'
                f'jetstream {{ store_dir: "{work}/nats", max_memory_store: 64MB, '
                f'max_file_store: 200GB }}\n')
    nats = subprocess.Popen(["/usr/sbin/nats-server", "-c", nats_conf],
                            stdout=subprocess.DEVNULL, stderr=open(f"{work}/nats.log", "w"))
    nats_url = f"nats://127.0.0.1:{port}"
    time.sleep(1.5)
    env = dict(os.environ)
    nodes = []
    try:
        for i in range(3):
            data = os.path.join(work, f"node{i}")
            with open(data + ".json", "w") as f:
                json.dump({"body_limit_bytes": 1 << 40}, f)
            nodes.append((data, *start_node(strata, data, nats_url, env)))
        writer = nodes[0][2]
        size = os.path.getsize(args.file)
        print(f"{args.file}: {size / 1e9:.2f} GB; 3 nodes + 1 NATS server (JetStream, R1)",
              flush=True)
        started = time.monotonic()
        post = subprocess.Popen(
            ["curl", "-sS", "-X", "POST", "-T", args.file,
             "-H", "Content-Type: application/n-triples", "-H", "Content-Encoding: gzip",
             "-H", "Expect:", f"{writer}/graphs/main/store?default"],
            stdout=subprocess.PIPE, text=True)
        had = {}
        while len(had) < 3:
            time.sleep(2)
            for data, child, base in nodes:
                if data in had:
                    continue
                try:
                    if metric(base, "strata_store_files_seq") >= 1:
                        had[data] = time.monotonic() - started
                        print(f"{os.path.basename(data)} has the commit at {had[data]:.0f} s",
                              flush=True)
                except OSError:
                    pass
            if post.poll() is not None and post.returncode != 0:
                sys.exit(f"the POST failed: {post.stdout.read()}")
        answer = post.communicate()[0]
        print(f"the writer answered: {answer.strip()[:300]}", flush=True)
        while metric(writer, "strata_store_files_published_seq") < 1:
            time.sleep(2)
        published = time.monotonic() - started
        print(f"the writer published its files at {published:.0f} s", flush=True)
        data = os.path.join(work, "node3")
        with open(data + ".json", "w") as f:
            json.dump({"body_limit_bytes": 1 << 40}, f)
        joined = time.monotonic()
        child, base = start_node(strata, data, nats_url, env)
        nodes.append((data, child, base))
        while metric(base, "strata_store_files_seq") < 1:
            time.sleep(1)
        print(f"node3 (new) started from the published files in "
              f"{time.monotonic() - joined:.0f} s", flush=True)
        for data, child, base in nodes:
            count = urllib.request.urlopen(
                f"{base}/graphs/main/sparql?query=SELECT%20(COUNT(*)%20AS%20%3Fn)%20WHERE%20%7B%3Fs%20%3Fp%20%3Fo%7D",
                timeout=600).read().decode()
            n = re.search(r'"value"\s*:\s*"(\d+)"', count)
            print(f"{os.path.basename(data)}: peak RSS {peak_rss_mb(child.pid):.0f} MB, "
                  f"{n.group(1) if n else '?'} quads, disk {du(data) / 1e9:.2f} GB", flush=True)
        print(f"NATS store: {du(os.path.join(work, 'nats')) / 1e9:.2f} GB, "
              f"peak RSS {peak_rss_mb(nats.pid):.0f} MB")
    finally:
        for _, child, _ in nodes:
            child.terminate()
        for _, child, _ in nodes:
            child.wait()
        nats.terminate()
        nats.wait()
        if not args.keep:
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
