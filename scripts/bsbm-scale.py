#!/usr/bin/env python3
"""Makes a larger BSBM dataset from a published one by replication with renamed IRIs.

Copy 0 is the input as it is; copy k > 0 renames every instance that belongs to a data
source (products, offers, reviews, reviewers, producers, vendors, rating sites:
`instances/dataFrom…` becomes `instances/r<k>/dataFrom…`) and shares the vocabulary,
product types, product features and standardization institutions, whose triples it does
not repeat. The BSBM explore queries (written for copy 0's IRIs) stay valid, and every
product type then has `copies` times as many products, as a larger BSBM scale would.

    scripts/bsbm-scale.py --copies 50 ../shared/data/bsbm/bsbm-1m.nt.gz > bsbm-50m.nt
"""

import argparse
import gzip
import sys

MARK = "/bizer/bsbm/v01/instances/dataFrom"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a BSBM N-Triples file (.nt or .nt.gz)")
    parser.add_argument("--copies", type=int, required=True, help="copies, at least 1")
    args = parser.parse_args()
    if args.copies < 1:
        parser.error("--copies must be at least 1")
    opener = gzip.open if args.source.endswith(".gz") else open
    out = sys.stdout
    with opener(args.source, "rt", encoding="utf-8") as source:
        lines = source.readlines()
    shared = [line for line in lines if MARK not in line]
    owned = [line for line in lines if MARK in line]
    out.writelines(shared)
    out.writelines(owned)
    for copy in range(1, args.copies):
        renamed = f"/bizer/bsbm/v01/instances/r{copy}/dataFrom"
        out.writelines(line.replace(MARK, renamed) for line in owned)
    return 0


if __name__ == "__main__":
    sys.exit(main())
