#!/usr/bin/env bash
# The affective evaluator's cost and effect, measured (issue 5; not part of make test):
#  1. speed: bench nodes/second with each position's emotion vs classical (target ratio >= 0.8);
#  2. choices: over the first 150 WAC positions and 150 openings at depth 8, the share where the
#     affective best move differs from the classical one (compare mode through the real server);
#  3. strength: feelfish Mode=affective vs Mode=classical, GAMES (default 200) at 10 s + 0.1 s;
#  4. move matching on the master games (feelfish humanlike, POSITIONS, default 2000, at 20k nodes):
#     how often each temperament plays the human's move, by the mover's emotion (docs/affective.md),
#     and the Bayesian mode with the opponent's style when BAYES_DB (default data/feelfish.db) exists.
set -u
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-$(pwd)/feelfish}
DATA=${FEELFISH_DATA:-../shared/data}
GAMES=${GAMES:-200}
TC=${TC:-10+0.1}
echo "== 1. speed (bench, depth 12, one thread)"
c=$("$FF" bench 2>/dev/null | sed -n 's/^Nodes\/second: //p')
a=$("$FF" bench --mode affective 2>/dev/null | sed -n 's/^Nodes\/second: //p')
awk -v a="$a" -v c="$c" 'BEGIN { printf "classical %d nps, affective %d nps: ratio %.2f (target >= 0.8)\n", c, a, a / c }'

echo; echo "== 2. choices (compare mode, depth 8)"
FEELFISH="$FF" DATA="$DATA" python3 - <<'PY'
import json, os, subprocess, tempfile, http.client
ff, data = os.environ["FEELFISH"], os.environ["DATA"]
p = subprocess.Popen([ff, "serve", "--http", "0", "--ws", "0", "--bind", "127.0.0.1", "--workers", "2", "--log-level",
                      "error", "--db", os.path.join(tempfile.mkdtemp(), "a.db")], stdout=subprocess.PIPE, text=True)
port = int(p.stdout.readline().split()[2])
fens = [" ".join(l.split()[:4]) for f in ("epd/wac.epd", "openings.epd") for l in list(open(os.path.join(data, f)))[:150]]
differ, labels = 0, {}
for fen in fens:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("POST", "/api/analyse", json.dumps({"fen": fen, "mode": "affective", "compare": True, "limits": {"depth": 8}}),
              {"Content-Type": "application/json"})
    r = json.loads(c.getresponse().read())
    differ += r["compare"]["affective"]["bestMove"] != r["compare"]["classical"]["bestMove"]
    key = (r["emotion"]["label"], r["emotion"]["goal"])
    labels[key] = labels.get(key, 0) + 1
p.terminate(); p.wait()
print("best moves differ in %d of %d positions (%.1f%%)" % (differ, len(fens), 100.0 * differ / len(fens)))
for (label, goal), n in sorted(labels.items(), key=lambda x: -x[1]):
    print("  %-8s %-15s %d" % (label, goal, n))
PY

echo; echo "== 3. strength: affective vs classical, $GAMES games at $TC"
"$FF" match --engine "cmd=$FF,name=affective,option.Mode=affective,option.Hash=64" \
    --engine "cmd=$FF,name=classical,option.Hash=64" --tc "$TC" --games "$GAMES" --concurrency 2 \
    --openings "$DATA/openings.epd" --pgn "${OUT:-build}/affective-vs-classical.pgn" --quiet 2>/dev/null

echo; echo "== 4. move matching: ${POSITIONS:-2000} positions of the master games, 20000 nodes a move"
BAYES_DB=${BAYES_DB:-data/feelfish.db}
bayesian=""
[ -f "$BAYES_DB" ] && bayesian=",bayesian"
"$FF" humanlike "$DATA"/pgn/*.pgn --positions "${POSITIONS:-2000}" --nodes 20000 --threads 2 --bayes-db "$BAYES_DB" \
    --modes "classical,affective,affective:calm,affective:anxious,affective:bold,affective:thesis$bayesian" 2>/dev/null
