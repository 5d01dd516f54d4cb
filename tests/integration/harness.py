"""What every integration test script shares: a check that counts, and the closing summary line."""
counts = {"passed": 0, "failed": 0}


def check(name, cond, detail=""):
    if cond:
        counts["passed"] += 1
        print("ok   " + name)
    else:
        counts["failed"] += 1
        print("FAIL " + name + ("\n    " + str(detail)[:600] if detail else ""))


def summary(runner):
    """Prints 'RUNNER: N passed, N failed' and returns the exit code."""
    print("%s: %d passed, %d failed" % (runner, counts["passed"], counts["failed"]))
    return 1 if counts["failed"] else 0
