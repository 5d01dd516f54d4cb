#!/usr/bin/env python3
"""The Lichess bot bridge inside the server (`feelfish serve --bot FILE`), against a fake Lichess
(fake_lichess.py: the Bot API with real rules and clocks, Stockfish as the opponent), each check with
a server of its own: GET /api/bot before, during and after a game (connected, the game as it goes,
the record; 404 without --bot) and the game stored; an affective bot's PGN carries the engine's
emotion in its comments; a bayesian bot's game is learned and the opponent's style shown. When
`feelfish serve --help` has no --bot, none of them is registered.

    python3 tests/bot/test_bot_serve.py [--list] [CHECK...]   # last line: bot-serve: N passed, N failed
    FEELFISH_BOT_VERBOSE=1 ...                                 # the fake's log"""
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from botlib import config_text, human, log, new_token, run, wait_over  # noqa: E402
from fake_lichess import FakeLichess  # noqa: E402
from harness import FF, Server, Suite, check, tmpdir  # noqa: E402

suite = Suite("bot-serve")


# ---- `feelfish serve --bot FILE` and GET /api/bot ----

def serve_has_bot():
    try:
        rc, out, err = run([FF, "serve", "--help"], timeout=20)
    except Exception:  # noqa: BLE001
        return False
    return "--bot" in out + err


if serve_has_bot():
    @suite.test()
    def serve_bot_status():
        token = new_token()
        fake = FakeLichess(token=token, log=log).start()
        server = None
        try:
            d = tmpdir("feelfish-bot-")
            cfg = os.path.join(d, "config.yml")
            with open(cfg, "w") as f:
                f.write(config_text(fake.url, token, [(r"^abort_time: .*$", "abort_time: 3")],
                                    extra="\nfeelfish:\n  movetime: 100\n"))
            server = Server("--bot", cfg)
            st = None
            for _ in range(100):
                st = server.request("GET", "/api/bot")[1]
                if isinstance(st, dict) and st.get("connected"):
                    break
                time.sleep(0.2)
            cid = fake.challenge(challenger=human(20), clock=(60, 0), bot_color="white",
                                 game={"movetime": 30, "max_plies": 16})
            during = None
            for _ in range(100):
                during = server.request("GET", "/api/bot")[1]
                gs = during.get("games") if isinstance(during, dict) else None
                if gs and any(g.get("id") == cid and g.get("plies", 0) >= 2 for g in gs):
                    break
                time.sleep(0.2)
            wait_over(fake, cid, 60)
            time.sleep(1.5)
            after = server.request("GET", "/api/bot")[1]
            gview = next((g for g in (during or {}).get("games", []) if g.get("id") == cid), {})
            fields = ("id", "game", "opponent", "color", "plies", "fen", "status")  # and job while it thinks
            rec = (after or {}).get("record", {}) if isinstance(after, dict) else {}
            stored = server.request("GET", "/api/games/%s" % gview.get("game")) if gview.get("game") else (None,)
            plain = Server()
            off = plain.request("GET", "/api/bot")
            plain.stop()
            print("    GET /api/bot during the game: %s" % gview)
            print("    after it: record %s, counts %s, errors %s" % (rec, (after or {}).get("counts"),
                                                                  (after or {}).get("errors")))
            ok = (isinstance(st, dict) and st.get("connected") is True and st.get("account") == "FeelBot"
                  and all(k in gview for k in fields) and gview.get("color") == "white"
                  and isinstance(gview.get("job", ""), str)
                  and isinstance(rec, dict) and sum(rec.get(k, 0) for k in ("wins", "losses", "draws")) == 1
                  and isinstance(after, dict) and "errors" in after and stored[0] == 200
                  and token not in str(after) + str(during) and off[0] == 404)
            check("serve_bot_status", ok, "first %s; during the game %s; after %s; GET /api/games/{game} %s; "
                  "GET /api/bot without --bot: %s" % (st, gview, after, stored[0], off[0]))
        finally:
            if server:
                server.stop()
            fake.close()

    def bot_game_in_mode(mode, plies):
        """A game of `plies` plies (adjudicated a draw there) played by `serve --bot` in `mode`: (the
        server, GET /api/bot after it, this server's game id), the server still running."""
        token = new_token()
        fake = FakeLichess(token=token, log=log).start()
        d = tmpdir("feelfish-bot-")
        cfg = os.path.join(d, "config.yml")
        with open(cfg, "w") as f:
            f.write(config_text(fake.url, token, extra="\nfeelfish:\n  mode: %s\n  movetime: 60\n" % mode))
        server = Server("--bot", cfg)
        try:
            for _ in range(100):
                st = server.request("GET", "/api/bot")[1]
                if isinstance(st, dict) and st.get("connected"):
                    break
                time.sleep(0.2)
            cid = fake.challenge(challenger=human(30), clock=(120, 0), bot_color="white",
                                 game={"movetime": 20, "max_plies": plies})
            game_id = None
            for _ in range(150):
                st = server.request("GET", "/api/bot")[1]
                game_id = next((g["game"] for g in (st or {}).get("games", []) if g.get("id") == cid and g["game"]),
                               game_id)
                if game_id:
                    break
                time.sleep(0.2)
            wait_over(fake, cid, 120)
            time.sleep(1.5)
            return server, server.request("GET", "/api/bot")[1], game_id
        finally:
            fake.close()

    @suite.test()
    def affective_pgn_has_emotions():
        server, st, game_id = bot_game_in_mode("affective", 16)
        try:
            status, pgn, _ = server.request("GET", "/api/games/%s/pgn" % game_id)
            comments = re.findall(r"\{([^}]*)\}", pgn if isinstance(pgn, str) else "")
            felt = [c for c in comments if "goal" in c and "intensity" in c]
            print("    affective bot game %s: %d comments with the engine's emotion, e.g. %r" % (
                game_id, len(felt), felt[:1]))
            check("affective_pgn_has_emotions", status == 200 and len(felt) >= 7, (status, comments[:4]))
        finally:
            server.stop()

    @suite.test()
    def bayesian_game_learned_and_style_shown():
        server, st, game_id = bot_game_in_mode("bayesian", 30)
        try:
            model = server.request("GET", "/api/bayes/model")[1]
            game = server.request("GET", "/api/games/%s" % game_id)[1]
            style = (st or {}).get("opponentStyle")
            print("    bayesian bot game %s: learned %s, model games %s, opponentStyle %s" % (
                game_id, (game or {}).get("learned"), (model or {}).get("games"), style))
            check("bayesian_game_learned_and_style_shown", isinstance(game, dict) and game.get("learned") is True
                  and (model or {}).get("games") == 1 and isinstance(style, dict) and style.get("opponent") == "Human30"
                  and style.get("style") in ("attacking", "positional", "mixed"),
                  {"learned": (game or {}).get("learned"), "notLearned": (game or {}).get("notLearned"),
                   "model": (model or {}).get("games"), "style": style})
        finally:
            server.stop()
else:
    print("(serve_bot_status not run: `feelfish serve --help` has no --bot yet)")


if __name__ == "__main__":
    sys.exit(suite.main())
