#!/usr/bin/env python3
"""Layers: an engine/ or server/ file #includes only its own layer or lower ones (engine/ never server/,
tests/ or server libraries), and no include circle (engine/, server/) or import circle (web/src) exists,
so each layer builds, tests and reads on its own. Usage: layers.py [ROOT] (default: the repository root)."""
import os, posixpath, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402
from runner import run_checks, run_on  # noqa: E402

# ---- Rules. Folder patterns: 'dir/**' = anything under dir, 'dir' = files directly in dir; the most
# specific matching pattern wins. A file may include files of its own tree with rank <= its own.
RULES = {
    'engine': {
        'ranks': {'engine/core/**': 0, 'engine/notation/**': 1, 'engine/eval/**': 2, 'engine/review/**': 4,
                  'engine/search/**': 3,
                  'engine/adapt/**': 4, 'engine/uci/**': 5, 'engine': 6, 'engine/tools/**': 7},
        'never': ('server/', 'tests/'),          # path prefixes this tree may never include
        'foreign': {},                           # other tree -> {folder pattern: highest rank includable}
    },
    'server': {
        'ranks': {'server/base/**': 0, 'server/store/**': 1, 'server/net/**': 2, 'server/jobs/**': 3,
                  'server/domain/**': 4, 'server/bot/**': 5, 'server/api/**': 6, 'server/cmd/**': 7,
                  'server': 8},
        'never': ('tests/',),
        # the engine library (ranks 0-6) everywhere; engine/tools (7) only from server/cmd and server/main.c
        'foreign': {'engine': {'server/**': 6, 'server/cmd/**': 7, 'server': 7}},
    },
}
# Folder prefix -> system headers its files may not include ('x/' forbids every header under x/).
FORBIDDEN_HEADERS = {
    'engine/': ('uv.h', 'microhttpd.h', 'libwebsockets.h', 'jansson.h', 'sqlite3.h', 'curl/curl.h',
                'hiredis/', 'hiredis.h', 'yaml.h'),
    # JSON is the API's: below it, layers pass structs and text.
    'server/base/': ('jansson.h',),
    'server/store/': ('jansson.h',),
    'server/net/': ('jansson.h',),
    'server/jobs/': ('jansson.h', 'microhttpd.h', 'libwebsockets.h'),
    'server/domain/': ('jansson.h', 'microhttpd.h', 'libwebsockets.h'),
    # The bot is a Lichess client: it reads Lichess's JSON, but serves nothing itself.
    'server/bot/': ('microhttpd.h', 'libwebsockets.h'),
}
CIRCLE_TREES = ('engine', 'server')  # module (.c/.h pair) circles are looked for across these
WEB_SRC = 'web/src'

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
IMPORT = re.compile(r'(?:^|[;}])[ \t]*\b(import|export)\s+(?:[\w$*{},\s]+?\s+from\s*)?[\'"]([^\'"]+)[\'"]', re.M)


def match(path, table):
    """The value of the most specific folder pattern in table matching the file path, or None."""
    d, best = posixpath.dirname(path), None
    for pat, val in table.items():
        base, deep = (pat[:-3], True) if pat.endswith('/**') else (pat, False)
        ok = d == base or (deep and d.startswith(base + '/'))
        spec = (len(base), not deep)
        if ok and (best is None or spec > best[0]):
            best = (spec, val)
    return best[1] if best else None


def files(root, top, exts):
    """Paths (relative to root, with /) of the files under top whose names end with one of exts."""
    out = []
    for d, subdirs, names in os.walk(os.path.join(root, top)):
        subdirs.sort()
        out += [os.path.relpath(os.path.join(d, n), root).replace(os.sep, '/')
                for n in sorted(names) if n.endswith(exts)]
    return out


def includes(root, path):
    """(line, '<' or '"', text, target) per #include; a "..." target is resolved relative to the file."""
    out = []
    with open(os.path.join(root, path), errors='replace') as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                kind, text = m.groups()
                target = posixpath.normpath(posixpath.join(posixpath.dirname(path), text)) if kind == '"' else text
                out.append((n, kind, text, target))
    return out


def check_layers(root, tree):
    """Includes of tree's files that go up a rank, into a banned folder, or beyond a foreign limit."""
    rules, problems = RULES[tree], []
    for path in files(root, tree, ('.c', '.h')):
        rank = match(path, rules['ranks'])
        if rank is None:
            problems.append(f'{path}: its folder has no rank in RULES[{tree!r}]')
            continue
        for n, kind, _, t in includes(root, path):
            if kind != '"' or t.startswith('../'):
                continue
            where = f'{path}:{n} -> {t}'
            if t.startswith(rules['never']):
                problems.append(f'{where} ({tree}/ never includes {t.split("/")[0]}/)')
            elif t.startswith(tree + '/'):
                tr = match(t, rules['ranks'])
                if tr is None:
                    problems.append(f'{where} (included folder has no rank)')
                elif tr > rank:
                    problems.append(f'{where} (rank {rank} includes rank {tr}: upward)')
            else:
                for other, limits in rules['foreign'].items():
                    if t.startswith(other + '/'):
                        tr, limit = match(t, RULES[other]['ranks']), match(path, limits)
                        if tr is None or limit is None or tr > limit:
                            problems.append(f'{where} ({other} rank {tr}, this file may include up to {limit})')
    return problems


def check_forbidden(root, prefix):
    """System headers (or "..." includes not found beside the file) that FORBIDDEN_HEADERS[prefix] bans."""
    banned, problems = FORBIDDEN_HEADERS[prefix], []
    for path in files(root, prefix.rstrip('/'), ('.c', '.h')):
        for n, kind, header, t in includes(root, path):
            if kind == '"' and os.path.exists(os.path.join(root, t)):
                continue
            if any(header == b or (b.endswith('/') and header.startswith(b)) for b in banned):
                problems.append(f'{path}:{n} -> <{header}> (forbidden under {prefix})')
    return problems


def strong_components(graph):
    """Groups of more than one node that all reach one another (plain reachability: the graphs are small)."""
    reach = {}
    for v in graph:
        seen, todo = set(), [v]
        while todo:
            for w in graph[todo.pop()]:
                if w not in seen:
                    seen.add(w); todo.append(w)
        reach[v] = seen
    comps = {tuple(sorted(w for w in reach[v] if v in reach[w])) for v in graph if v in reach[v]}
    return sorted(list(c) for c in comps if len(c) > 1)


def describe_circles(graph, witness, only=lambda comp: True):
    """One problem per circle: the shortest cycle through its first module, each hop's include, the rest."""
    problems = []
    for comp in strong_components(graph):
        if not only(comp):
            continue
        inside, start, paths = set(comp), comp[0], {comp[0]: [comp[0]]}
        queue, cycle = [start], None
        while queue and not cycle:
            v = queue.pop(0)
            for w in sorted(graph[v] & inside):
                if w == start:
                    cycle = paths[v] + [start]; break
                if w not in paths:
                    paths[w] = paths[v] + [w]; queue.append(w)
        text = ' -> '.join(cycle)
        text += ''.join(f'\n        {witness[a, b]}' for a, b in zip(cycle, cycle[1:]))
        rest = [m for m in comp if m not in cycle]
        problems.append(text + (f'\n        (same circle also holds: {", ".join(rest)})' if rest else ''))
    return problems


def module_graph(root):
    """Modules = .c/.h pairs (path minus extension); edge a -> b when a file of a includes a file of b."""
    paths = [p for top in CIRCLE_TREES for p in files(root, top, ('.c', '.h'))]
    mods = {posixpath.splitext(p)[0] for p in paths}
    graph, witness = {m: set() for m in mods}, {}
    for p in paths:
        a = posixpath.splitext(p)[0]
        for n, kind, _, t in includes(root, p):
            b = posixpath.splitext(t)[0]
            if kind == '"' and b in mods and b != a and os.path.exists(os.path.join(root, t)):
                graph[a].add(b)
                witness.setdefault((a, b), f'{p}:{n} -> {t}')
    return graph, witness


def check_circles(root, tree):
    """Module circles that are tree's: only engine modules for engine, any touching server/ for server."""
    graph, witness = module_graph(root)
    if tree == 'engine':
        return describe_circles(graph, witness, lambda comp: all(m.startswith('engine/') for m in comp))
    return describe_circles(graph, witness, lambda comp: any(m.startswith(tree + '/') for m in comp))


def check_web(root):
    """Circles among web/src modules through static imports and re-exports (relative specifiers only)."""
    mods = files(root, WEB_SRC, ('.js', '.mjs'))
    graph, witness = {m: set() for m in mods}, {}
    for p in mods:
        with open(os.path.join(root, p), errors='replace') as f:
            text = f.read()
        for m in IMPORT.finditer(text):
            spec = m.group(2)
            if not spec.startswith('.'):
                continue  # bare package import (chessops, @lichess-org/...)
            t = posixpath.normpath(posixpath.join(posixpath.dirname(p), spec))
            t = next((c for c in (t, t + '.js', t + '/index.js') if c in graph), None)
            if t and t != p:
                graph[p].add(t)
                witness.setdefault((p, t), f'{p}:{text.count(chr(10), 0, m.start(1)) + 1} -> {t}')
    return describe_circles(graph, witness)


# ---- Self-tests: the same checks over small trees built on disk, to prove they can fail.


CLEAN = {
    'engine/core/pos.h': '#include <stdint.h>\n', 'engine/core/pos.c': '#include "pos.h"\n',
    'engine/search/x.h': '#include "../core/pos.h"\n', 'engine/search/x.c': '#include "x.h"\n#include "../core/pos.h"\n',
    'engine/engine.h': '#include "search/x.h"\n', 'engine/tools/match/m.h': '#include "../../engine.h"\n',
    'server/net/y.h': '#include <jansson.h>\n#include "../base/log.h"\n', 'server/base/log.h': '\n',
    'server/api/y.h': '#include "../net/y.h"\n#include "../../engine/engine.h"\n',
    'server/main.c': '#include "api/y.h"\n#include "../engine/tools/match/m.h"\n',
    'web/src/a.js': "import { b } from './b.js';\nimport { Chess } from 'chessops/chess';\n", 'web/src/b.js': 'export const b = 1;\n',
}


def expect(changes, check, needle):
    return runner.expect({**CLEAN, **changes}, check, needle)


def clean_tree():
    checks = [lambda r: check_layers(r, 'engine'), lambda r: check_forbidden(r, 'engine/'),
              lambda r: check_circles(r, 'engine'), lambda r: check_layers(r, 'server'),
              lambda r: check_circles(r, 'server'), check_web]
    return run_on(CLEAN, lambda root: [f'flagged in a clean tree: {p}' for c in checks for p in c(root)])


SELF_TESTS = {
    'self-test upward include': lambda: expect({'engine/core/a.c': '#include "../search/x.h"\n'},
        lambda r: check_layers(r, 'engine'), 'engine/core/a.c:1 -> engine/search/x.h'),
    'self-test include circle': lambda: expect({'engine/search/a.h': '#include "b.h"\n', 'engine/search/b.h': '\n',
                                                 'engine/search/b.c': '#include "b.h"\n#include "a.h"\n'},
        lambda r: check_circles(r, 'engine'), 'engine/search/a -> engine/search/b -> engine/search/a'),
    'self-test forbidden header': lambda: expect({'engine/eval/j.c': '#include <stdio.h>\n#include <jansson.h>\n'},
        lambda r: check_forbidden(r, 'engine/'), 'engine/eval/j.c:2 -> <jansson.h>'),
    'self-test server upward include': lambda: expect({'server/net/z.c': '#include "../api/y.h"\n'},
        lambda r: check_layers(r, 'server'), 'server/net/z.c:1 -> server/api/y.h'),
    'self-test web import cycle': lambda: expect({'web/src/b.js': "import {\n  a,\n} from './a.js';\nexport const b = 1;\n"},
        check_web, 'web/src/a.js -> web/src/b.js -> web/src/a.js'),
    'self-test clean tree': clean_tree,
}


def main():
    root = runner.repo_root(sys.argv)
    checks = {
        'engine layers': lambda: check_layers(root, 'engine'),
        **{f'{prefix.rstrip("/")} forbidden headers': lambda prefix=prefix: check_forbidden(root, prefix)
           for prefix in FORBIDDEN_HEADERS},
        'engine circles': lambda: check_circles(root, 'engine'),
        'server layers': lambda: check_layers(root, 'server'),
        'server circles': lambda: check_circles(root, 'server'),
        'web import circles': lambda: check_web(root),
        **SELF_TESTS,
    }
    return run_checks('layers', checks)


if __name__ == '__main__':
    sys.exit(main())
