#!/usr/bin/env python3
"""The affective mode of POST /api/analyse through the real server: the emotion appraised at the root
comes with the result, temperaments are checked, compare mode gives both searches with their
evaluation terms, a classical result has no emotion. Standard library only. Run it all, or some
checks: test_affective.py [--list] [CHECK_NAME...]; prints 'affective: N passed, N failed'."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import FEN, Server, Suite, check, error_code  # noqa: E402

fen = FEN
suite = Suite("affective", lambda: Server("--workers", "2", "--queue", "8"))


def analyse(body):
    return suite.server().request("POST", "/api/analyse", body)


def emotion_at_root(cfen, label, goal):
    st, r, _ = analyse({"fen": cfen, "mode": "affective", "limits": {"depth": 5}})
    e = r.get("emotion", {}) if isinstance(r, dict) else {}
    check("affective_" + goal, st == 200 and r["mode"] == "affective" and e.get("goal") == goal
          and (label is None or e.get("label") == label)
          and set(e.get("factors", {})) == {"material", "mobility", "kingSafety", "oppKingExposure"}
          and set(e.get("inputs", {})) == {"material", "mobility", "kingSafety", "oppKingExposure"}, r)


for _case in [("6k1/5ppp/8/8/8/3q4/8/4K3 w - - 0 1", "fear", "reach_safety"),
              ("6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1", "relief", "enclose_king"),
              ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", None, "gain_advantage")]:
    suite.add("affective_" + _case[2], emotion_at_root, *_case)


@suite.test()
def affective_gain_bounds_weights():
    """The everyday temperaments raise the thesis's weights (1 + factor * intensity) to the gain 0.05;
    the temperament "thesis" keeps them (gain 1): the weights shown are the ones used."""
    relief = "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1"
    got = {}
    for t in ("neutral", "thesis"):
        st, r, _ = analyse({"fen": relief, "mode": "affective", "affective": {"temperament": t}, "limits": {"depth": 4}})
        got[t] = r.get("emotion", {}) if st == 200 else {"status": st}

    def fits(e, gain):
        keys = ("material", "mobility", "kingSafety", "oppKingExposure")
        return e.get("gain") == gain and all(
            abs(e["weights"][k] - max(0.0, 1 + e["factors"][k] * e["intensity"]) ** gain) < 2e-3 for k in keys)
    n, t = got["neutral"], got["thesis"]
    check("affective_gain_bounds_weights", "weights" in n and "weights" in t and fits(n, 0.05) and fits(t, 1.0)
          and t["weights"]["oppKingExposure"] > 4 and 1 < n["weights"]["oppKingExposure"] < 2, got)


@suite.test()
def affective_gain_asked():
    """"gain" replaces the temperament's: the weights follow it; 0 leaves every weight at 1 and the
    search is the classical one (same best move and nodes at a fixed depth)."""
    relief = "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1"
    got = {}
    for gain in (0, 0.5):
        st, r, _ = analyse({"fen": relief, "mode": "affective", "affective": {"temperament": "thesis", "gain": gain},
                            "limits": {"depth": 6}})
        got[gain] = r if st == 200 else {"status": st, "body": r}
    st, plain, _ = analyse({"fen": relief, "limits": {"depth": 6}})
    e0, e5 = got[0].get("emotion", {}), got[0.5].get("emotion", {})
    keys = ("material", "mobility", "kingSafety", "oppKingExposure")
    check("affective_gain_asked", st == 200 and e0.get("gain") == 0 and e5.get("gain") == 0.5
          and all(e0["weights"][k] == 1 for k in keys)
          and all(abs(e5["weights"][k] - max(0.0, 1 + e5["factors"][k] * e5["intensity"]) ** 0.5) < 2e-3 for k in keys)
          and got[0]["bestMove"] == plain["bestMove"] and got[0]["nodes"] == plain["nodes"], {"gains": got, "classical": plain})


@suite.test()
def affective_bad_gain():
    """A gain that is not a number from 0 to 1 is refused with bad_gain (or bad_type), nothing run."""
    answers = {}
    for gain in (-0.1, 1.5, "0.2", None, True):
        res = analyse({"fen": fen, "mode": "affective", "affective": {"gain": gain}, "limits": {"depth": 3}})
        answers[repr(gain)] = (res[0], error_code(res), res[1].get("error", {}).get("field") if isinstance(res[1], dict) else None)
    check("affective_bad_gain", all(a == (400, "bad_gain", "affective.gain") for a in answers.values()), answers)


@suite.test()
def affective_bad_temperament():
    res = analyse({"fen": fen, "mode": "affective", "affective": {"temperament": "zen"}, "limits": {"depth": 3}})
    check("affective_bad_temperament", res[0] == 400 and error_code(res) == "bad_temperament", res[1])


@suite.test()
def affective_unknown_field():
    res = analyse({"fen": fen, "mode": "affective", "affective": {"temper": "calm"}, "limits": {"depth": 3}})
    check("affective_unknown_field", res[0] == 400 and error_code(res) == "unknown_field"
          and "temperament" in res[1]["error"]["message"], res[1])


@suite.test()
def compare_mode():
    st, r, _ = analyse({"fen": "6k1/5ppp/8/8/8/3q4/8/4K3 w - - 0 1", "mode": "affective", "compare": True,
                        "limits": {"depth": 6}})
    c = r.get("compare", {}) if isinstance(r, dict) else {}
    groups = {"material", "mobility", "king_safety", "opp_king_exposure", "pawn_structure", "other", "total"}
    check("compare_mode", st == 200 and set(c) == {"classical", "affective"}
          and all(c[k]["bestMove"] and c[k]["pvs"] and set(c[k]["terms"]) == groups for k in c)
          and c["affective"]["bestMove"] == r["bestMove"]
          and sum(v for k, v in c["classical"]["terms"].items() if k != "total") == c["classical"]["terms"]["total"], r)


@suite.test()
def compare_needs_affective():
    res = analyse({"fen": fen, "compare": True, "limits": {"depth": 3}})
    check("compare_needs_affective", res[0] == 400 and error_code(res) == "bad_compare", res[1])


@suite.test()
def unknown_mode_400():
    res = analyse({"fen": fen, "mode": "telepathic", "limits": {"depth": 3}})
    check("unknown_mode_400", res[0] == 400 and error_code(res) == "bad_mode", res[1])


@suite.test()
def classical_has_no_emotion():
    st, r, _ = analyse({"fen": fen, "limits": {"depth": 3}})
    check("classical_has_no_emotion", st == 200 and "emotion" not in r, r)


if __name__ == "__main__":
    sys.exit(suite.main())
