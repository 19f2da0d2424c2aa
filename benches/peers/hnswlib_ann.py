"""HNSW peer: hnswlib on an ANN set made by ../shared/data/ann/make_ann_dataset.py.

Run with the peers venv (target/peers-venv, with numpy and hnswlib from PyPI):

    target/peers-venv/bin/python benches/peers/hnswlib_ann.py --set DIR --m 16 --ef-construction 200 \
        --build-threads 2 --ef 10,20,50,100 --k 10 --out IDS.bin
        -> {"build_seconds": t, "runs": [{"ef", "batch_qps", "call_qps"}, ...]}

The index is built with `--build-threads` threads (as Strata builds with). Queries run on one
thread, two ways per ef: one `knn_query` call over all queries (`batch_qps`: hnswlib's own
speed, no Python per query) and one call per query (`call_qps`: as a Python program would ask).
The ids of the batch run go to `--out` as little-endian u32, ef by ef, queries in order, k each,
so the bench scores both engines' recall with the same code.

Exactly one JSON object goes to stdout; progress goes to stderr.
"""

import argparse
import json
import sys
import time

import hnswlib
import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", required=True)
    parser.add_argument("--m", type=int, default=16)
    parser.add_argument("--ef-construction", type=int, default=200)
    parser.add_argument("--build-threads", type=int, default=2)
    parser.add_argument("--ef", default="10,20,50,100,200")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    base = np.load(f"{args.set}/base.npy")
    queries = np.load(f"{args.set}/query.npy")
    n, dim = base.shape
    index = hnswlib.Index(space="cosine", dim=dim)
    index.init_index(max_elements=n, ef_construction=args.ef_construction, M=args.m, random_seed=100)
    index.set_num_threads(args.build_threads)
    started = time.perf_counter()
    index.add_items(base, np.arange(n))
    build = time.perf_counter() - started
    print(f"hnswlib: built {n} x {dim} in {build:.1f} s", file=sys.stderr)

    index.set_num_threads(1)
    runs = []
    with open(args.out, "wb") as out:
        for ef in [int(e) for e in args.ef.split(",")]:
            index.set_ef(ef)
            started = time.perf_counter()
            labels, _ = index.knn_query(queries, k=args.k, num_threads=1)
            batch = time.perf_counter() - started
            started = time.perf_counter()
            for q in queries:
                index.knn_query(q, k=args.k, num_threads=1)
            calls = time.perf_counter() - started
            out.write(np.ascontiguousarray(labels, dtype="<u4").tobytes())
            runs.append({"ef": ef, "batch_qps": len(queries) / batch, "call_qps": len(queries) / calls})
            print(f"hnswlib: ef {ef}: {runs[-1]['batch_qps']:.0f} q/s batched", file=sys.stderr)
    json.dump({"build_seconds": build, "runs": runs}, sys.stdout)


if __name__ == "__main__":
    main()
