#!/usr/bin/env bash
# Runs the documents' curl sessions verbatim against a fresh debug server and checks what they
# printed: README.md's session (every ```sh block under "## A session with curl"), the Dump
# walkthrough of docs/walkthrough.md (from "## A Dump deal with curl" up to "## Service dealing")
# and the tournament of docs/tournaments.md (from "## A small tournament with curl"). Each session
# runs in a shell of its own. Checked: the score sheets exactly, each documented refusal's code,
# the tournament's printed lines and standings, and no server error anywhere.
. "$(dirname "$0")/lib.sh"
BIN=$(debug_bin)
WORK=$(mktemp -d)
trap 'stop_server; rm -rf "$WORK"' EXIT
start_server readme-check "$WORK"
PORT=${BASE##*:}
python3 - "$WORK" <<'PY'
import re, sys
# (name, file, where the session starts, where it ends: None for the end of the file)
sessions = [
    ("readme", "README.md", "## A session with curl", "\n## "),
    ("walkthrough", "docs/walkthrough.md", "## A Dump deal with curl", "## Service dealing"),
    ("tournament", "docs/tournaments.md", "## A small tournament with curl", None),
]
for name, path, start, end in sessions:
    text = open(path).read()
    a = text.index(start)
    b = text.index(end, a + len(start)) if end else len(text)
    blocks = re.findall(r"```sh\n(.*?)```", text[a:b], re.S)
    if not blocks:
        sys.exit(f"{path}: no sh block under {start!r}")
    open(f"{sys.argv[1]}/{name}.sh", "w").write("set -e\n" + "\n".join(blocks))
PY
fail=0
for s in readme walkthrough tournament; do
  sed -i "s#B=http://127.0.0.1:8080#B=http://127.0.0.1:$PORT#" "$WORK/$s.sh"
  grep -q "B=http://127.0.0.1:$PORT" "$WORK/$s.sh" || { echo "$s: the session does not set B=http://127.0.0.1:8080"; fail=1; }
  bash "$WORK/$s.sh" > "$WORK/$s.txt" 2>&1 || { echo "$s: the session failed"; tail -20 "$WORK/$s.txt"; fail=1; }
done
python3 - "$WORK" <<'PY' || fail=1
import re, sys
out = {s: open(f"{sys.argv[1]}/{s}.txt").read() for s in ["readme", "walkthrough", "tournament"]}
problems = []
def sheet(session, body):
    if body not in out[session]:
        problems.append(f"the {session} session's Dump score sheet is not the one its document shows")
sheet("readme", "round,label,multiplier,Ada & Cy,Ben & Di\n1,Deal 1,1,15,0\ntotal,Total,,15,0\n")
sheet("walkthrough", "round,label,multiplier,Ada & Cy,Ben & Di\n1,Deal 1,1,2,0\ntotal,Total,,2,0\n")
codes = {
    "readme": ["not_your_turn"],
    "walkthrough": ["table_action_only", "card_already_played", "declaration_required", "stock_top_expected", "space_taken"],
}
for session, wanted in codes.items():
    for code in wanted:
        if f'"code":"{code}"' not in out[session]:
            problems.append(f"the documented refusal {code} did not happen in the {session} session")
for line in ["3 rounds, elo", "table 1 ['Ada', 'Di']", "table 2 ['Cy', 'Ben']", "[110, 20] [0] [2, 0]", '"code":"result_impossible"']:
    if line not in out["tournament"]:
        problems.append(f"the tournament session did not print {line!r}")
standings = re.findall(r"^(\d),[0-9a-f]{32},(\w+),1,0,(\d),(\d+),(\d),2,", out["tournament"], re.M)
if standings != [("1", "Ada", "1", "110", "2"), ("2", "Ben", "1", "100", "2"), ("3", "Cy", "0", "45", "0"), ("4", "Di", "0", "20", "0")]:
    problems.append(f"the tournament standings are not the document's: {standings}")
for session, text in out.items():
    if '"status":5' in text or "internal_error" in text:
        problems.append(f"a server error in the {session} session")
if problems:
    print("documents' curl sessions FAILED: " + "; ".join(problems))
    for session, text in out.items():
        print(f"--- {session} (last 1500 characters)\n{text[-1500:]}")
    sys.exit(1)
lines = {s: t.count(chr(10)) for s, t in out.items()}
print(f"documents' curl sessions: {lines} lines of output, every documented result seen")
PY
exit $fail
