#!/usr/bin/env python3
"""SIGKILL during a big import, N rounds (issue 24's crash check).

Each round starts from a graph holding one small commit, starts `strata import FILE`
(one commit of millions of quads, the bounded-memory path), kills it with SIGKILL at a
random moment of its run, then checks what the next process finds: the graph at its
previous head (commit 1, one quad) or, when the kill came after the commit's log append,
at commit 2 with every quad; `strata verify` clean; no `.tmp` file left in the graph's
directory or its store after that open. Prints one line per round and a summary; exits
non-zero on the first round that breaks one of these.

    python3 scripts/import-kill.py --strata target/release/strata --rounds 20 bsbm-5m.nt.gz
"""

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def run(strata, data, *args, check=True):
    out = subprocess.run([strata, "--data", data, *args], capture_output=True, text=True)
    if check and out.returncode != 0:
        sys.exit(f"strata {' '.join(args)} failed ({out.returncode}):\n{out.stderr}")
    return out


def count(strata, data):
    out = run(strata, data, "query", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    return int(re.search(r'"(\d+)"\^\^', out.stdout).group(1))


def head(strata, data):
    out = run(strata, data, "log", "--limit", "1")
    match = re.search(r"commit (\d+)", out.stdout)
    return int(match.group(1)) if match else 0


def leftovers(data):
    graph = os.path.join(data, "graphs", "main")
    found = []
    for folder in (graph, os.path.join(graph, "store")):
        if os.path.isdir(folder):
            found += [n for n in os.listdir(folder) if n.endswith(".tmp")]
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="an RDF file to import (millions of quads)")
    parser.add_argument("--strata", default="target/release/strata")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--work", default=None, help="where data directories go")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="import-kill-", dir=args.work)
    data = os.path.join(work, "data")

    # How long a whole import takes here: kills land anywhere in it (and a little past).
    started = time.monotonic()
    run(args.strata, data, "update", "INSERT DATA { <http://e/first> <http://e/p> \"1\" }")
    run(args.strata, data, "import", args.file)
    full = time.monotonic() - started
    total = count(args.strata, data)
    print(f"a whole import: {full:.1f} s, {total} quads", flush=True)

    survived = completed = 0
    for round_no in range(1, args.rounds + 1):
        shutil.rmtree(data)
        run(args.strata, data, "update", "INSERT DATA { <http://e/first> <http://e/p> \"1\" }")
        after = rng.uniform(0.2, full * 1.05)
        child = subprocess.Popen(
            [args.strata, "--data", data, "import", args.file],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(after)
        finished = child.poll() is not None
        if not finished:
            child.send_signal(signal.SIGKILL)
        child.wait()
        seq = head(args.strata, data)
        n = count(args.strata, data)
        left = leftovers(data)
        verify = run(args.strata, data, "verify", check=False)
        ok = verify.returncode == 0 and verify.stdout.startswith("ok:")
        if seq == 1 and n == 1:
            state = "previous head"
            survived += 1
        elif seq == 2 and n == total:
            state = "import committed"
            completed += 1
        else:
            state = f"BROKEN: commit {seq}, {n} quads"
        print(
            f"round {round_no:2}: kill at {after:6.1f} s{' (had ended)' if finished else ''}: "
            f"{state}; verify {'ok' if ok else 'FAILED'}; .tmp left: {left or 'none'}",
            flush=True,
        )
        if state.startswith("BROKEN") or not ok or left:
            print(verify.stdout, verify.stderr)
            sys.exit(1)
    print(
        f"{args.rounds} rounds: {survived} at the previous head, {completed} with the import "
        f"committed, 0 broken; verify clean and no .tmp file after every open"
    )
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
