"""On-disk BSBM peer: Oxigraph's RocksDB-backed store, driven through pyoxigraph.

Run with the peers venv (python3 -m venv target/peers-venv && target/peers-venv/bin/pip
install pyoxigraph):

    target/peers-venv/bin/python benches/peers/pyoxigraph_bsbm.py load --data FILE.nt[.gz] --store DIR
        -> {"triples": n, "seconds": t}          # t = bulk load only
    target/peers-venv/bin/python benches/peers/pyoxigraph_bsbm.py open --store DIR
        -> {"open_seconds": t}                   # Store(DIR) + ASK {}
    target/peers-venv/bin/python benches/peers/pyoxigraph_bsbm.py queries --store DIR --queries QDIR --passes P
        -> {"queries": [{"name", "best_seconds", "rows"}, ...], "total_best_seconds": s}

QDIR is a BSBM query directory with manifest.tsv (columns: query, template, form, ...) and the
qNN-MMM.rq files it names. Each query gets one warm-up run, then P timed runs; the best is kept.
A timed run covers parsing, evaluation and fully draining the result iterator.

Exactly one JSON object goes to stdout; progress goes to stderr.
"""

import argparse
import csv
import gzip
import json
import os
import sys
import time

from pyoxigraph import QueryBoolean, RdfFormat, Store


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def cmd_load(args):
    if os.path.exists(args.store) and os.listdir(args.store):
        sys.exit(f"store directory {args.store} is not empty")
    store = Store(args.store)
    t0 = time.perf_counter()
    if args.data.endswith(".gz"):
        # Stream-decompress rather than inflating to a temp file, so the disk footprint and
        # the measured work are the store's alone (plus gzip CPU, which is unavoidable).
        with gzip.open(args.data, "rb") as f:
            store.bulk_load(f, RdfFormat.N_TRIPLES)
    else:
        store.bulk_load(path=args.data, format=RdfFormat.N_TRIPLES)
    seconds = time.perf_counter() - t0
    # bulk_load ingests finished SST files, so the data is durable once it returns; flush and
    # optimize (compaction) are post-load housekeeping and are kept out of the reported time.
    t1 = time.perf_counter()
    store.flush()
    store.optimize()
    log(f"loaded in {seconds:.3f}s; flush+optimize {time.perf_counter() - t1:.3f}s")
    n = len(store)  # counted after timing: it scans the whole store
    del store  # pyoxigraph has no close(); dropping the last reference closes RocksDB
    return {"triples": n, "seconds": seconds}


def cmd_open(args):
    t0 = time.perf_counter()
    store = Store(args.store)
    # A trivial query forces any lazy initialisation to happen inside the timed window.
    bool(store.query("ASK {}"))
    return {"open_seconds": time.perf_counter() - t0}


def run(store, text):
    """Evaluate a query and drain its results; returns the row/triple count."""
    res = store.query(text)
    if isinstance(res, QueryBoolean):
        bool(res)
        return 1
    return sum(1 for _ in res)  # QuerySolutions and QueryTriples are lazy iterators


def cmd_queries(args):
    # Read-only mode skips the write-side setup and mirrors a query-only benchmark.
    store = Store.read_only(args.store) if hasattr(Store, "read_only") else Store(args.store)
    with open(os.path.join(args.queries, "manifest.tsv"), newline="") as f:
        manifest = list(csv.DictReader(f, delimiter="\t"))
    out = []
    for row in manifest:
        name = row["query"].removesuffix(".rq")
        with open(os.path.join(args.queries, row["query"])) as f:
            text = f.read()
        rows = run(store, text)  # warm-up
        best = float("inf")
        for _ in range(args.passes):
            t0 = time.perf_counter()
            rows = run(store, text)
            best = min(best, time.perf_counter() - t0)
        out.append({"name": name, "best_seconds": best, "rows": rows})
        log(f"{name} {row['form']:9} rows={rows:<4} best={best * 1e3:.3f} ms")
    return {"queries": out, "total_best_seconds": sum(q["best_seconds"] for q in out)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("load")
    s.add_argument("--data", required=True)
    s.add_argument("--store", required=True)
    s = sub.add_parser("open")
    s.add_argument("--store", required=True)
    s = sub.add_parser("queries")
    s.add_argument("--store", required=True)
    s.add_argument("--queries", required=True)
    s.add_argument("--passes", type=int, default=1)
    args = p.parse_args()
    if args.cmd == "queries" and args.passes < 1:
        p.error("--passes must be >= 1")
    result = {"load": cmd_load, "open": cmd_open, "queries": cmd_queries}[args.cmd](args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
