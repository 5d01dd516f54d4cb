"""What the structure checks (layers.py, docs.py) share. A check returns its problems, an empty list
when it passes. run_checks prints ok or FAIL with the problems per check, then 'SUITE: N passed, N
failed', and returns the exit status; run_on and expect let a check's self-test prove it can fail, on
a small tree written to a temporary directory."""
import os
import tempfile


def repo_root(argv):
    """The tree to check: argv[1], else the repository this file is in."""
    return os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))


def run_checks(suite, checks):
    passed = failed = 0
    for name, check in checks.items():
        problems = check()
        failed, passed = failed + bool(problems), passed + (not problems)
        print(f'FAIL {name}: {len(problems)} problem(s)' if problems else f'ok {name}')
        for p in problems:
            print(f'    {p}')
    print(f'{suite}: {passed} passed, {failed} failed')
    return 1 if failed else 0


def run_on(tree, check):
    """check(root) over a temporary directory holding tree ({path: text}), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix='structure-') as root:
        for path, text in tree.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)) or root, exist_ok=True)
            with open(os.path.join(root, path), 'w') as f:
                f.write(text)
        return check(root)


def expect(tree, check, needle):
    """A problem containing needle is what check finds in tree, or the self-test's own problem."""
    problems = run_on(tree, check)
    if not any(needle in p for p in problems):
        return [f'not flagged: {needle} (got: {problems or "nothing"})']
    return []
