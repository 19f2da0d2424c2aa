#!/usr/bin/env python3
"""Runs a command and reports its peak resident memory, split as the kernel counts it.

`/usr/bin/time -v` gives one number, the peak of RSS, which counts the pages of mapped
files the process touched (page cache the kernel can drop at any time) together with its
own anonymous memory (heap, stacks: what it cannot give back without freeing). For an
import that reads its dictionary and segment files through memory maps the two tell
different stories, so this samples `/proc/PID/status` (`RssAnon`, `RssFile`, `VmRSS`)
every `--every` seconds and prints the peak of each, and the wall time:

    python3 scripts/peak-memory.py -- target/release/strata --data D import big.nt.gz

Exit status: the command's. Peaks between two samples can be missed (the default
interval is 0.2 s); `VmHWM` (the kernel's own RSS peak, as /usr/bin/time reports it) is
read at the last sample before exit.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def status(pid: int) -> dict[str, int]:
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                name, _, value = line.partition(":")
                if name in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                    fields[name] = int(value.split()[0]) * 1024
    except OSError:
        pass
    return fields


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=float, default=0.2, help="seconds between samples")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given")
    started = time.monotonic()
    proc = subprocess.Popen(command)
    peak: dict[str, int] = {}
    while proc.poll() is None:
        for name, value in status(proc.pid).items():
            peak[name] = max(peak.get(name, 0), value)
        time.sleep(args.every)
    wall = time.monotonic() - started
    gb = lambda n: f"{n / 1e9:.2f} GB"  # noqa: E731
    print(
        f"peak-memory: wall {wall:.1f} s, exit {proc.returncode}, "
        + ", ".join(f"{name} {gb(peak.get(name, 0))}" for name in ("VmHWM", "VmRSS", "RssAnon", "RssFile")),
        file=sys.stderr,
    )
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
