#!/usr/bin/env python3
"""`feelfish annotate` end to end: master games from ../shared/data/pgn/Kasparov.pgn at a small node
budget; progress on stderr; SIGTERM mid-file; the same command resumes without redoing finished
games; the annotated PGN read back by feelfish's reader; the JSON lines in Lichess's export shape
(spec §8); --json emotions in affective mode. Last line: annotate: N passed, N failed."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FF = os.path.join(ROOT, os.environ.get("FEELFISH", "feelfish"))
DATA = os.environ.get("FEELFISH_DATA", os.path.join(ROOT, "..", "shared", "data"))
KASPAROV = os.path.join(DATA, "pgn", "Kasparov.pgn")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + name)
    else:
        failed += 1
        print("FAIL " + name)
        print("    " + str(detail)[:1500])


def games_in(pgn_text):
    return len(re.findall(r'^\[Event ', pgn_text, flags=re.M))


tmp = tempfile.mkdtemp(prefix="feelfish-annotate-")
out, js = os.path.join(tmp, "k.pgn"), os.path.join(tmp, "k.ndjson")
GAMES = 24
cmd = [FF, "annotate", KASPAROV, "--games", str(GAMES), "--nodes", "4000", "--threads", "2", "--out", out, "--json", js]

# 1. Started, stopped with SIGTERM once a few games are done.
t0 = time.monotonic()
p = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True)
lines = []
while True:
    line = p.stderr.readline()
    if not line:
        break
    lines.append(line.rstrip())
    if len([x for x in lines if " done (" in x]) >= 5:
        p.send_signal(signal.SIGTERM)
        break
rest = p.stderr.read()
lines += rest.splitlines()
rc = p.wait()
first_run = time.monotonic() - t0
with open(out) as f:
    pgn_after_stop = f.read()
kept = games_in(pgn_after_stop)
json_kept = sum(1 for _ in open(js))
print("    first run: %.1f s, exit %s, %d games written (JSON %d); its last lines: %s"
      % (first_run, rc, kept, json_kept, lines[-2:]))
progress_lines = [x for x in lines if re.match(r"annotate: game \d+/%d done \(\d+ positions, \d+ from the cache\), \d+/\d+ positions" % GAMES, x)]
check("progress_shown", len(progress_lines) >= 5, lines[:8])
check("stopped_by_sigterm", rc == 128 + signal.SIGTERM and 5 <= kept < GAMES and json_kept == kept
      and any("interrupted" in x for x in lines) and os.path.exists(out + ".progress"),
      "exit %s, games %d, json %d, progress file %s, lines %s" % (rc, kept, json_kept, os.path.exists(out + ".progress"), lines[-3:]))

# 2. The same command resumes: the finished games kept byte for byte, only the rest analysed.
t1 = time.monotonic()
r = subprocess.run(cmd, cwd=ROOT, stderr=subprocess.PIPE, text=True, timeout=600)
second_run = time.monotonic() - t1
with open(out) as f:
    final = f.read()
done_lines = [x for x in r.stderr.splitlines() if " done (" in x]
summary = [x for x in r.stderr.splitlines() if "this run" in x]
print("    resumed: %.1f s, exit %s; %s; %s" % (second_run, r.returncode,
                                              [x for x in r.stderr.splitlines() if "resuming" in x], summary))
check("resumes_without_redoing", r.returncode == 0 and final.startswith(pgn_after_stop) and games_in(final) == GAMES
      and len(done_lines) == GAMES - kept and ("resuming after %d finished games" % kept) in r.stderr
      and ("(%d this run" % (GAMES - kept)) in r.stderr and not os.path.exists(out + ".progress"),
      "exit %s; prefix kept %s; games %d; analysed this run %d (want %d); stderr %s"
      % (r.returncode, final.startswith(pgn_after_stop), games_in(final), len(done_lines), GAMES - kept, r.stderr[-500:]))

# 3. Read back by feelfish's PGN reader: every game, every move.
rb = subprocess.run([FF, "pgn", out, "--check"], cwd=ROOT, capture_output=True, text=True)
m = re.search(r"games: (\d+) read, (\d+) skipped", rb.stdout + rb.stderr)
check("pgn_read_back", m and int(m.group(1)) == GAMES and int(m.group(2)) == 0, rb.stdout + rb.stderr)

# 4. The annotations: [%eval] on moves, judged moves with glyph, comment and variation, Annotator.
evals = len(re.findall(r"\[%eval -?\d+\.\d+\]|\[%eval #-?\d+\]", final))
judged = re.findall(r"(\S+?)(\?\?|\?!|\?) \{ \((\S+|Mate in \d+) \u2192 (\S+|Mate in \d+)\) "
                    r"(Inaccuracy|Mistake|Blunder|Checkmate is now unavoidable|Lost forced checkmate sequence)\. "
                    r"(\S+) was best\. \} \{ \[%eval [^\]]+\] \} \(", final.replace("\n", " "))
check("pgn_annotations", final.count('[Annotator "feelfish"]') == GAMES and evals > GAMES * 40 and len(judged) >= GAMES,
      "%d [%%eval], %d judged moves with comment and line, e.g. %s" % (evals, len(judged), judged[:2]))

# 5. The JSON lines: Lichess's shape (spec §8) plus winPercent and accuracy.
rows = [json.loads(x) for x in open(js)]
bad = []
for row in rows:
    for side in ("white", "black"):
        pl = row["players"][side]
        if not all(k in pl for k in ("inaccuracy", "mistake", "blunder", "acpl", "accuracy")):
            bad.append((row["game"], side, pl))
    for a in row["analysis"]:
        if not ("eval" in a or "mate" in a or a is row["analysis"][-1]):
            bad.append((row["game"], "no eval", a))
        if "judgment" in a and not ("best" in a and "variation" in a and a["judgment"]["name"] in ("Inaccuracy", "Mistake", "Blunder")):
            bad.append((row["game"], "judgment", a))
        if "accuracy" in a and not 0 <= a["accuracy"] <= 100:
            bad.append((row["game"], "accuracy", a))
accs = [row["players"][s]["accuracy"] for row in rows for s in ("white", "black") if "accuracy" in row["players"][s]]
print("    %d JSON games; accuracies from %s to %s, mean %.1f" % (len(rows), min(accs), max(accs), sum(accs) / len(accs)))
check("json_lichess_shape", len(rows) == GAMES and [r_["game"] for r_ in rows] == list(range(1, GAMES + 1)) and not bad
      and 30 <= sum(accs) / len(accs) <= 100, bad[:3])

# 6. Affective mode: each ply carries the mover's emotion.
aff = os.path.join(tmp, "a.ndjson")
r = subprocess.run([FF, "annotate", KASPAROV, "--games", "1", "--nodes", "2000", "--mode", "affective",
                    "--out", os.path.join(tmp, "a.pgn"), "--json", aff], cwd=ROOT, capture_output=True, text=True)
row = json.loads(open(aff).readline()) if r.returncode == 0 else {"analysis": []}
emo = [a.get("emotion") for a in row["analysis"]]
check("affective_emotional_arc", r.returncode == 0 and emo and all(e and "relief" in e and "label" in e for e in emo),
      "exit %s, %s; first emotions %s" % (r.returncode, r.stderr[-300:], emo[:2]))

# 7. Through an external UCI engine (Stockfish), the same review: the reference for the benchmarks.
sf_js = os.path.join(tmp, "sf.ndjson")
r = subprocess.run([FF, "annotate", KASPAROV, "--games", "1", "--nodes", "5000", "--engine", "/usr/games/stockfish",
                    "--out", os.path.join(tmp, "sf.pgn"), "--json", sf_js], cwd=ROOT, capture_output=True, text=True)
row = json.loads(open(sf_js).readline()) if r.returncode == 0 else {"analysis": [], "players": {}}
with_eval = [a for a in row["analysis"] if "eval" in a or "mate" in a]
check("uci_engine_pipeline", r.returncode == 0 and len(with_eval) >= len(row["analysis"]) - 1 > 40
      and "accuracy" in row["players"].get("white", {}),
      "exit %s; %d of %d plies with an eval; %s" % (r.returncode, len(with_eval), len(row["analysis"]), r.stderr[-300:]))

# 8. --db: the evaluation cache the server uses (the second game reads the opening the first one
# searched). The second run searches nothing and writes the same
# files; a different budget is a different key.
db = os.path.join(tmp, "cache.db")


def with_db(tag, nodes):
    t0 = time.monotonic()
    r_ = subprocess.run([FF, "annotate", KASPAROV, "--games", "2", "--nodes", str(nodes), "--threads", "2", "--db", db,
                         "--out", os.path.join(tmp, tag + ".pgn"), "--json", os.path.join(tmp, tag + ".ndjson")],
                        cwd=ROOT, capture_output=True, text=True)
    m_ = re.search(r"(\d+) positions \((\d+) from the cache\)", r_.stderr)
    return r_, time.monotonic() - t0, m_ and (int(m_.group(1)), int(m_.group(2)))


r1, t1, c1 = with_db("db1", 8000)
r2, t2, c2 = with_db("db2", 8000)
r3, t3, c3 = with_db("db3", 6000)
print("    --db: 2 games at 8000 nodes %.2f s (%s from the cache), again %.2f s (%s), at 6000 nodes %s"
      % (t1, c1, t2, c2, c3))
same = all(open(os.path.join(tmp, "db1" + e)).read() == open(os.path.join(tmp, "db2" + e)).read()
           for e in (".pgn", ".ndjson")) if r1.returncode == r2.returncode == 0 else False
check("db_cache_reused", c1 and c2 and c1[1] < 10 and c2[1] == c2[0] == c1[0] and same and c3 and c3[1] == c1[1],
      (c1, c2, c3, r2.stderr[-300:]))

# 8b. A game a program analysed before (a Lichess export with [%eval] and [%clk]): its evals are replaced by
# ours (two on one move would contradict each other), its clocks and words kept.
src = os.path.join(tmp, "analysed.pgn")
with open(src, "w") as f:
    f.write('[Event "x"]\n\n1. e4 { [%eval 0.17] [%clk 0:03:00] } 1... e5 { [%eval 0.2] } 2. Nf3 { good [%eval 0.1] } *\n')
r = subprocess.run([FF, "annotate", src, "--depth", "2", "--threads", "1", "--out", os.path.join(tmp, "analysed.out.pgn")],
                   cwd=ROOT, capture_output=True, text=True)
text = open(os.path.join(tmp, "analysed.out.pgn")).read() if r.returncode == 0 else ""
evals = text.count("[%eval")
check("earlier_evals_replaced", r.returncode == 0 and evals == 3 and "[%eval 0.17]" not in text
      and "[%clk 0:03:00]" in text and "good" in text, "exit %s; %d evals: %s" % (r.returncode, evals, text[-400:]))

# 8c. The second look: the positions around each move judged a blunder searched again four times deeper
# before the review is final (default), against one search a position as Lichess (--no-second-look): the
# games it looked at again are reviewed from the deeper results (some judgement or eval differs), the others
# are the same to the byte.
def second_look_run(tag, *extra):
    js_ = os.path.join(tmp, tag + ".ndjson")
    r_ = subprocess.run([FF, "annotate", KASPAROV, "--games", "8", "--nodes", "3000", "--threads", "2",
                         "--out", os.path.join(tmp, tag + ".pgn"), "--json", js_] + list(extra),
                        cwd=ROOT, capture_output=True, text=True)
    looks = [int(m_) for m_ in re.findall(r"a second look at (\d+)", r_.stderr)]
    return r_, looks, open(js_).read().splitlines() if r_.returncode == 0 else []


ra, looks_a, rows_a = second_look_run("look")
rb, looks_b, rows_b = second_look_run("once", "--no-second-look")
looked = [i for i, n in enumerate(looks_a) if n]
print("    second look: positions searched again per game %s" % looks_a)
check("second_look", ra.returncode == rb.returncode == 0 and len(looks_a) == len(looks_b) == 8 and looked
      and not any(looks_b)
      and all((rows_a[i] != rows_b[i]) == (i in looked) for i in range(8)),
      (looks_a, looks_b, [rows_a[i] == rows_b[i] for i in range(min(len(rows_a), len(rows_b)))], ra.stderr[-300:]))

# 9. Bad input: a clear error, exit 2, nothing written.
r = subprocess.run([FF, "annotate", KASPAROV, "--nodes", "lots"], cwd=ROOT, capture_output=True, text=True)
check("bad_arguments", r.returncode == 2 and "--nodes takes a number" in r.stderr, r.stderr)
r = subprocess.run([FF, "annotate", os.path.join(tmp, "missing.pgn")], cwd=ROOT, capture_output=True, text=True)
check("missing_input", r.returncode == 1 and "cannot read" in r.stderr, r.stderr)

print("annotate: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
