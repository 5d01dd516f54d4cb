#!/usr/bin/env bash
# Command-line tests of the Bayesian model's tools: learn (self-play, resumable), bayes
# show/export/import, bayes-experiment, and UCI's Mode bayesian, on temporary databases.
# Prints "ok NAME" / "FAIL NAME" per test and "learn: N passed, N failed" last.
set -u
cd "$(dirname "$0")/../.."
FF=${FEELFISH:-./feelfish}
DATA=${FEELFISH_DATA:-../shared/data}
export FEELFISH_DATA=$DATA
. tests/cli/lib.sh
games_in() { $FF bayes show --db "$1" 2>/dev/null | sed -n 's/^  "games": \([0-9]*\),$/\1/p'; }

DB=$TMP/a.db
run learn_plays 0 '\] 4/4 games' $FF learn --games 4 --nodes 1500 --concurrency 2 --db "$DB"
[ "$(games_in "$DB")" = 4 ] && ok learn_stores_games || fail learn_stores_games "games: $(games_in "$DB")"
run learn_resumes 0 '4 of 6 self-play games already' $FF learn --games 6 --nodes 1500 --db "$DB"
[ "$(games_in "$DB")" = 6 ] && ok learn_resume_adds_only_missing || fail learn_resume_adds_only_missing "$(games_in "$DB")"
run learn_nothing_to_do 0 '6 of 6 self-play games already' $FF learn --games 6 --db "$DB"
# The counts hold the perturbed side's records only (the default side's are kept, not counted):
# their class totals equal the perturbed side's record rows, and both sides' rows are there.
python3 - "$DB" <<'PY' && ok learn_counts_perturbed_side || fail learn_counts_perturbed_side
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
counted = c.execute("SELECT SUM(n) FROM bayes_classes").fetchone()[0]
b = c.execute("SELECT COUNT(*) FROM bayes_records WHERE side = 'B'").fetchone()[0]
a = c.execute("SELECT COUNT(*) FROM bayes_records WHERE side = 'A'").fetchone()[0]
n = c.execute("SELECT SUM(n0 + n1 + n2 + n3 + n4) FROM bayes_counts WHERE param = 'mobility'").fetchone()[0]
print("    counted %s, perturbed rows %s, default rows %s, mobility's counts %s" % (counted, b, a, n))
sys.exit(0 if counted == b == n and a == b and b > 0 else 1)
PY

# Stopped in the middle, restarted: every finished game is kept, none is played twice.
$FF learn --games 40 --nodes 6000 --db "$TMP/k.db" >"$TMP/k.log" 2>&1 &
pid=$!
for _ in $(seq 300); do
    n=$(games_in "$TMP/k.db")
    [ "${n:-0}" -ge 2 ] && break
    sleep 0.1
done
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null
kept=$(games_in "$TMP/k.db")
out=$($FF learn --games 40 --nodes 1500 --concurrency 2 --db "$TMP/k.db" 2>&1)
if grep -q "^learn: $kept of 40 self-play games already" <<<"$out" && [ "$kept" -ge 2 ] && [ "$kept" -lt 40 ] &&
    [ "$(games_in "$TMP/k.db")" = 40 ]; then
    ok learn_interrupted_loses_nothing
else
    fail learn_interrupted_loses_nothing "kept $kept, then $(games_in "$TMP/k.db")" "$(head -2 <<<"$out")" \
        "the interrupted run said: $(tr '\r' '\n' <"$TMP/k.log" | grep -v '^\[' | tail -3)"
fi

run bayes_show 0 '"parameters": 15,' $FF bayes show --db "$DB"
run bayes_export 0 'exported 6 games' $FF bayes export "$TMP/model.json" --db "$DB"
run bayes_import 0 'imported 6 games' $FF bayes import "$TMP/model.json" --db "$TMP/b.db"
[ "$(games_in "$TMP/b.db")" = 6 ] && ok bayes_import_counts || fail bayes_import_counts "$(games_in "$TMP/b.db")"
$FF bayes export "$TMP/model2.json" --db "$TMP/b.db" >/dev/null 2>&1
python3 - "$TMP/model.json" "$TMP/model2.json" <<'PY' && ok bayes_export_import_round_trip || fail bayes_export_import_round_trip
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sys.exit(0 if a["params"] == b["params"] and a["records"] == b["records"] and a["games"] == b["games"] else 1)
PY
$FF bayes import "$TMP/model.json" --db "$TMP/b.db" >/dev/null 2>&1
[ "$(games_in "$TMP/b.db")" = 12 ] && ok bayes_import_is_additive || fail bayes_import_is_additive "$(games_in "$TMP/b.db")"
echo '{"format": "feelfish-bayes", "version": 1, "games": 1, "records": {}, "params": {}}' >"$TMP/bad.json"
run bayes_import_bad_model 1 'records.opening.win must be a count' $FF bayes import "$TMP/bad.json" --db "$TMP/c.db"
echo 'not json' >"$TMP/bad2.json"
run bayes_import_not_json 1 'bad2.json: ' $FF bayes import "$TMP/bad2.json" --db "$TMP/c.db"
[ "$(games_in "$TMP/c.db")" = 0 ] && ok bayes_bad_import_changes_nothing || fail bayes_bad_import_changes_nothing
run bayes_usage 2 'usage: feelfish bayes' $FF bayes frobnicate
# A database of schema 8 holds a model of the old variables (one per weight): migrating (to 9, then 10)
# clears it, and the tables stay usable (learn plays from game 0 again).
cp "$TMP/b.db" "$TMP/old.db"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version = 8"); c.commit()' "$TMP/old.db"
out=$($FF bayes show --db "$TMP/old.db" 2>&1)
if grep -q 'migrated from schema version 8 to 10' <<<"$out" && [ "$(games_in "$TMP/old.db")" = 0 ]; then
    ok bayes_old_model_cleared
else
    fail bayes_old_model_cleared "$(head -3 <<<"$out")"
fi
run bayes_learn_after_migration 0 '0 of 2 self-play games already' $FF learn --games 2 --nodes 1500 --db "$TMP/old.db"

run learn_needs_games 2 'usage: feelfish learn' $FF learn --db "$DB"
run learn_bad_nodes 2 "--nodes: 'x' is not a positive number" $FF learn --games 2 --nodes x --db "$DB"
run learn_bad_tc 2 "--tc: '10\+' is not SECONDS" $FF learn --games 2 --tc 10+ --db "$DB"
run learn_bad_openings 1 'openings: cannot open' $FF learn --games 2 --openings "$TMP/none.epd" --db "$DB"

run experiment_table 0 '^ +4 +[0-9]+ +[0-9]+ +[0-9]+ ' $FF bayes-experiment --sizes 0,4 --games 2 --nodes 800 \
    --db "$DB" --csv "$TMP/curve.csv"
[ "$(wc -l <"$TMP/curve.csv")" = 3 ] && ok experiment_csv || fail experiment_csv "$(cat "$TMP/curve.csv")"
run experiment_too_few_games 1 'only 6 self-play games' $FF bayes-experiment --sizes 50 --games 2 --db "$DB"
run experiment_bad_sizes 2 '--sizes: ' $FF bayes-experiment --sizes 5,x --db "$DB"
run experiment_rule_named 0 'perturbed side.s records, rule argmax\)' $FF bayes-experiment --sizes 4 --games 2 --nodes 800 \
    --records perturbed --rule argmax --db "$DB"
run experiment_bad_rule 2 "--rule: 'best' is not evidence or argmax" $FF bayes-experiment --rule best --db "$DB"

# UCI: Mode bayesian reads the model from BayesModel and says what it chose.
out=$( (printf 'uci\nsetoption name Mode value bayesian\nsetoption name BayesModel value %s\n' "$DB"
        printf 'setoption name BayesTarget value aggressive\nposition startpos moves e2e4 e7e5\ngo depth 4\n'
        sleep 1; printf 'quit\n') | $FF 2>&1)
grep -q '^info string bayesian {"phase": "opening", "target": "aggressive", "reason": "requested", "gamesLearned": 6,' \
    <<<"$out" && grep -q '^bestmove ' <<<"$out" && ok uci_mode_bayesian || fail uci_mode_bayesian "$(grep string <<<"$out")"
out=$( (printf 'setoption name Mode value bayesian\nsetoption name BayesModel value %s/none.db\ngo depth 2\n' "$TMP"
        sleep 0.5; printf 'quit\n') | $FF 2>&1)
grep -q 'Bayesian model .*none.db: cannot open' <<<"$out" && grep -q '^bestmove ' <<<"$out" && [ ! -e "$TMP/none.db" ] &&
    ok uci_missing_model_default || fail uci_missing_model_default "$out"
run uci_bad_target 0 'BayesTarget takes one of: auto aggressive conservative' \
    bash -c "printf 'setoption name BayesTarget value wild\nquit\n' | $FF"

run analyse_bayesian 0 '"bayesian": \{"phase": "opening", "target": "aggressive", "reason": "requested", "gamesLearned": 6,' \
    $FF analyse --moves "e2e4 c7c5" --mode bayesian --target aggressive --db "$DB" --depth 5
run analyse_bad_target 2 "target 'wild' is not one of auto, aggressive, conservative" \
    $FF analyse --mode bayesian --target wild --depth 3

echo "learn: $passed passed, $failed failed"
[ "$failed" = 0 ]
