#!/usr/bin/env bash
# Runs the README's curl walkthroughs verbatim (every ```sh block from "## A Dump deal with curl" up
# to "### Service dealing", and the tournament's) against a fresh debug server, and checks what it printed: the Dump
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
section += text[text.index("### A small tournament with curl"):text.index("## Configuration")]
blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
open(sys.argv[1], "w").write("set -e\n" + "\n".join(blocks))
PY
sed -i "s#B=http://127.0.0.1:8080#B=http://127.0.0.1:$PORT#" "$WORK/walkthrough.sh"
bash "$WORK/walkthrough.sh" > "$WORK/out.txt" 2>&1
fail=0
grep -q $'round,label,multiplier,Ada & Cy,Ben & Di\n' "$WORK/out.txt" || true
python3 - "$WORK/out.txt" <<'PY' || fail=1
import sys
out = open(sys.argv[1]).read()
problems = []
if "round,label,multiplier,Ada & Cy,Ben & Di\n1,Deal 1,1,2,0\ntotal,Total,,2,0\n" not in out:
    problems.append("the Dump score sheet is not the one the README shows")
for code in ["table_action_only", "card_already_played", "declaration_required", "stock_top_expected", "space_taken"]:
    if f'"code":"{code}"' not in out:
        problems.append(f"the documented refusal {code} did not happen")
import re
for line in ["3 rounds, elo", "table 1 ['Ada', 'Di']", "table 2 ['Cy', 'Ben']", "[110, 20] [0] [2, 0]", '"code":"result_impossible"']:
    if line not in out:
        problems.append(f"the tournament walkthrough did not print {line!r}")
standings = re.findall(r"^(\d),[0-9a-f]{32},(\w+),1,0,(\d),(\d+),(\d),2,", out, re.M)
if standings != [("1", "Ada", "1", "110", "2"), ("2", "Ben", "1", "100", "2"), ("3", "Cy", "0", "45", "0"), ("4", "Di", "0", "20", "0")]:
    problems.append(f"the tournament standings are not the README's: {standings}")
if '"status":5' in out or "internal_error" in out:
    problems.append("a server error")
if problems:
    print("README walkthrough FAILED: " + "; ".join(problems))
    print(out[-3000:])
    sys.exit(1)
print(f"README walkthrough: {out.count(chr(10))} lines of output, every documented result seen")
PY
exit $fail
