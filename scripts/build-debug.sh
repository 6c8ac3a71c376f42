#!/usr/bin/env bash
# Builds the debug server (`cargo build --bin clubroom`, the profile CI builds) and prints the path
# of the binary cargo produced (wherever CARGO_TARGET_DIR points). Used by scripts/ci-*.sh.
. "$(dirname "$0")/lib.sh"
cargo build --bin clubroom --message-format=json-render-diagnostics "$@" |
  python3 -c 'import json,sys
exe=[m["executable"] for m in map(json.loads, sys.stdin) if m.get("reason")=="compiler-artifact" and m.get("executable")]
assert exe, "cargo built no executable"
print(exe[-1])'
