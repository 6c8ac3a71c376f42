#!/usr/bin/env bash
# Runs the README's curl walkthrough verbatim (every ```sh block from "## A Dump deal with curl" up
# to "### Service dealing") against a fresh debug server, and checks what it printed: the Dump
# score sheet exactly, each documented refusal's code, and no server error anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q
WORK=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
DATABASE_URL="sqlite://$WORK/readme.db?mode=rwc" RUST_LOG=warn ./target/debug/clubroom serve --bind 127.0.0.1:$PORT &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
python3 - "$WORK/walkthrough.sh" <<'PY'
import re, sys
text = open("README.md").read()
section = text[text.index("## A Dump deal with curl"):text.index("### Service dealing")]
blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
open(sys.argv[1], "w").write("set -e\n" + "\n".join(blocks))
PY
sed -i "s#B=http://127.0.0.1:8080#B=http://127.0.0.1:$PORT#" "$WORK/walkthrough.sh"
bash "$WORK/walkthrough.sh" > "$WORK/out.txt" 2>&1
fail=0
grep -q $'round,label,multiplier,side_0,side_1\n' "$WORK/out.txt" || true
python3 - "$WORK/out.txt" <<'PY' || fail=1
import sys
out = open(sys.argv[1]).read()
problems = []
if "round,label,multiplier,side_0,side_1\n1,Deal 1,1,2,0\ntotal,Total,,2,0\n" not in out:
    problems.append("the Dump score sheet is not the one the README shows")
for code in ["table_action_only", "card_already_played", "declaration_required", "stock_top_expected", "space_taken"]:
    if f'"code":"{code}"' not in out:
        problems.append(f"the documented refusal {code} did not happen")
if '"status":5' in out or "internal_error" in out:
    problems.append("a server error")
if problems:
    print("README walkthrough FAILED: " + "; ".join(problems))
    print(out[-3000:])
    sys.exit(1)
print(f"README walkthrough: {out.count(chr(10))} lines of output, every documented result seen")
PY
exit $fail
