#!/usr/bin/env python3
"""Docs: README.md stays a page a newcomer reads (at most 200 lines, opening with `make run` and `make
test` and what they do on a fresh Debian machine), every relative link in README.md and docs/*.md
reaches a file (and, with #anchor, one of that file's headings), every `feelfish COMMAND` shown in
them names a command the binary has (server/cmd/commands.c, engine/tools/tools.c, server/main.c),
and every --flag shown for `feelfish serve` is a setting of server/base/config.c (or --help, or the
global --net). Usage: docs.py [ROOT] (default: the repository root)."""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner  # noqa: E402
from runner import run_checks, run_on  # noqa: E402

README_MAX_LINES = 200
README_OPENING_WORDS = ('Debian', 'root', 'SQLite')  # what the opening block must say make run does
FENCE = re.compile(r'^\s*(```|~~~)')
LINK = re.compile(r'!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
# `feelfish WORD` or `./feelfish WORD`, optionally with the global --net VALUE before WORD; not a path's
# or a URL's feelfish (/var/lib/feelfish, redis://feelfish:...) nor feelfish:latest, feelfish_default.
COMMAND = re.compile(r'(?<![\w./:-])(?:\./)?feelfish(?:[ \t]+--net[ \t]+\S+)?[ \t]+([a-z][a-z0-9-]*)\b(?![:/.=])')
FLAG = re.compile(r'(?<![\w-])(--[a-z][a-z0-9-]*)')


def read(root, path):
    with open(os.path.join(root, path), encoding='utf-8', errors='replace') as f:
        return f.read()


def doc_files(root):
    """README.md and docs/*.md, as paths relative to root."""
    docs = os.path.join(root, 'docs')
    names = sorted(n for n in os.listdir(docs) if n.endswith('.md')) if os.path.isdir(docs) else []
    return (['README.md'] if os.path.exists(os.path.join(root, 'README.md')) else []) + [f'docs/{n}' for n in names]


def split_fences(text):
    """(prose, blocks): the text with each fenced block blanked out (lines kept, so line numbers hold),
    and the blocks as (first line number, [lines])."""
    prose, blocks, block, start = [], [], None, 0
    for n, line in enumerate(text.split('\n'), 1):
        if block is None and FENCE.match(line):
            block, start = [], n
            prose.append('')
        elif block is not None and FENCE.match(line):
            blocks.append((start, block))
            block = None
            prose.append('')
        elif block is not None:
            block.append(line)
            prose.append('')
        else:
            prose.append(line)
    if block is not None:
        blocks.append((start, block))
    return '\n'.join(prose), blocks


def code_spans(prose):
    """(line number, text) of each inline code span, whitespace runs (a span may cross lines) as one space."""
    out = []
    for m in re.finditer(r'(`+)(.+?)\1', prose, re.S):
        out.append((prose.count('\n', 0, m.start()) + 1, re.sub(r'\s+', ' ', m.group(2)).strip()))
    return out


def without_code(prose):
    """The prose with inline code spans blanked (their newlines kept): links are looked for in the rest."""
    return re.sub(r'(`+)(.+?)\1', lambda m: re.sub(r'[^\n]', ' ', m.group(0)), prose, flags=re.S)


def slug(heading):
    """GitHub's anchor for a heading: its text as shown, lower case, punctuation dropped, spaces as '-'."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # a link shows its text
    text = text.replace('`', '').replace('*', '').strip().lower()
    text = ''.join(c for c in text if c.isalnum() or c in '_- ')
    return text.replace(' ', '-')


def anchors(text):
    """Every heading anchor of a markdown text (a repeated heading gets -1, -2, ... as on GitHub)."""
    prose, _ = split_fences(text)
    seen, out = {}, set()
    for line in prose.split('\n'):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f'{base}-{n}')
    return out


# ---- What the binary has, read from its source.
def commands(root):
    """Command names (and aliases) of the two tables, plus what server/main.c answers itself (uci, help)."""
    names = set()
    for path in ('server/cmd/commands.c', 'engine/tools/tools.c'):
        for m in re.finditer(r'\{\s*"([a-z][a-z0-9-]*)",\s*(?:"([a-z][a-z0-9-]*)"|NULL)\s*,', read(root, path)):
            names.update(x for x in m.groups() if x)
    names.update(re.findall(r'strcmp\(name, "([a-z][a-z0-9-]*)"\)', read(root, 'server/main.c')))
    return names


def serve_flags(root):
    """The flags `feelfish serve` takes: the settings table's, the ones config_load answers itself
    (--help), and the global ones server/main.c takes out before any command (--net)."""
    config = read(root, 'server/base/config.c')
    flags = set(re.findall(r'^\s*\{"(--[a-z0-9-]+)",\s*"FEELFISH_', config, re.M))
    flags.update(re.findall(r'strcmp\(argv\[a\], "(--[a-z0-9-]+)"\)', config))
    flags.update(re.findall(r'strcmp\(argv\[i\], "(--[a-z0-9-]+)"\)', read(root, 'server/main.c')))
    return flags


# ---- The checks.
def check_readme_length(root):
    n = read(root, 'README.md').count('\n')
    return [f'README.md has {n} lines (at most {README_MAX_LINES})'] if n > README_MAX_LINES else []


def check_readme_opening(root):
    """The first fenced block opens within the first 5 lines, its first line is `make run`, a later one
    `make test`, and it says where and how: a fresh Debian machine, as root, SQLite."""
    text = read(root, 'README.md')
    _, blocks = split_fences(text)
    if not blocks or blocks[0][0] > 5:
        return ['README.md does not open (within its first 5 lines) with a code block of the two commands']
    lines = [l for l in blocks[0][1] if l.strip()]
    problems = []
    if not lines or not lines[0].startswith('make run'):
        problems.append('the opening block does not start with `make run`')
    if not any(l.startswith('make test') for l in lines[1:]):
        problems.append('the opening block has no `make test` after `make run`')
    block = '\n'.join(lines)
    problems += [f'the opening block does not say {w!r} (what `make run` does, and where)'
                 for w in README_OPENING_WORDS if w.lower() not in block.lower()]
    return problems


def check_links(root, path):
    """Relative links of one file: the target exists; with #anchor, the target (a .md file) has it."""
    text = read(root, path)
    prose, _ = split_fences(text)
    prose = without_code(prose)
    problems = []
    for m in LINK.finditer(prose):
        target = m.group(2)
        line = prose.count('\n', 0, m.start()) + 1
        if re.match(r'^[a-z][a-z0-9+.-]*:', target, re.I):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if not os.path.exists(os.path.join(root, dest)):
            problems.append(f'{path}:{line}: link to {target}: no file {dest}')
            continue
        if anchor:
            if not dest.endswith('.md'):
                problems.append(f'{path}:{line}: link to {target}: an anchor into a file that is not markdown')
            elif anchor not in anchors(read(root, dest)):
                problems.append(f'{path}:{line}: link to {target}: {dest} has no heading #{anchor}')
    return problems


def shown_commands(root):
    """(file, line, subcommand, rest of the command) for every feelfish command in code: fenced blocks
    line by line (backslash continuations joined, a shell comment or the next command cut off), and
    inline code spans."""
    out = []
    for path in doc_files(root):
        prose, blocks = split_fences(read(root, path))
        pieces = code_spans(prose)
        for start, lines in blocks:
            joined, first = '', None
            for k, line in enumerate(lines):
                first = first if joined else start + 1 + k
                if line.rstrip().endswith('\\'):
                    joined += line.rstrip()[:-1] + ' '
                    continue
                pieces.append((first, joined + line))
                joined = ''
        for line, text in pieces:
            for m in COMMAND.finditer(text):
                rest = re.split(r'\s#|[&|;]', text[m.end():])[0]
                out.append((path, line, m.group(1), rest))
    return out


def check_commands(root):
    known = commands(root)
    return [f'{path}:{line}: feelfish {name}: no such command (commands: {", ".join(sorted(known))})'
            for path, line, name, _ in shown_commands(root) if name not in known]


def check_serve_flags(root):
    known = serve_flags(root)
    return [f'{path}:{line}: feelfish serve {flag}: not a setting of server/base/config.c'
            for path, line, name, rest in shown_commands(root) if name == 'serve'
            for flag in FLAG.findall(rest) if flag not in known]


# ---- Self-tests: the same checks over small trees built on disk, to prove they can fail.


CLEAN = {
    'README.md': '# x\n\n```sh\nmake run    # fresh Debian, as root: SQLite\nmake test\n```\nSee [the API](docs/api.md#every-route)'
                 ' and [`serve`](docs/api.md).\n',
    'docs/api.md': '# The API\n\n## Every route\n`./feelfish serve --bind 0.0.0.0 --help`, `feelfish --net none bench`.\n'
                   '```sh\n./feelfish serve --http 8080 \\\n    --ws 8081 &  # --not-a-flag in a comment\n```\n'
                   '[up](../README.md), [here](#the-api), a path `/var/lib/feelfish/feelfish.db`.\n',
    'server/cmd/commands.c': '{"serve", NULL, "[options]", "", serve_command},\n{"analyse", "analyze", "", "", a},\n',
    'engine/tools/tools.c': '{"bench", NULL, "[depth]", "", bench_command},\n',
    'server/main.c': 'if (!strcmp(argv[i], "--net")) ;\nif (!strcmp(name, "uci")) ;\nif (!strcmp(name, "help")) ;\n',
    'server/base/config.c': '    {"--http", "FEELFISH_HTTP_PORT", "httpPort"},\n    {"--ws", "FEELFISH_WS_PORT", "wsPort"},\n'
                            '    {"--bind", "FEELFISH_BIND", "bind"},\n    if (!strcmp(argv[a], "--help")) ;\n',
}
ALL_CHECKS = [check_readme_length, check_readme_opening, check_commands, check_serve_flags,
              lambda r: [p for f in doc_files(r) for p in check_links(r, f)]]


def expect(changes, check, needle):
    return runner.expect({**CLEAN, **changes}, check, needle)


def clean_tree():
    return run_on(CLEAN, lambda root: [f'flagged in a clean tree: {p}' for c in ALL_CHECKS for p in c(root)])


SELF_TESTS = {
    'self-test long README': lambda: expect({'README.md': CLEAN['README.md'] + 'line\n' * 200},
                                            check_readme_length, 'lines (at most 200)'),
    'self-test README without the commands first': lambda: expect(
        {'README.md': '# x\n\nprose\n\nmore\n\n```sh\nmake test\n```\n'}, check_readme_opening, 'does not open'),
    'self-test README opening block without make test': lambda: expect(
        {'README.md': '# x\n```sh\nmake run  # Debian root SQLite\n```\n'}, check_readme_opening, 'no `make test`'),
    'self-test broken link': lambda: expect({'docs/api.md': CLEAN['docs/api.md'] + '[gone](ops.md)\n'},
                                            lambda r: check_links(r, 'docs/api.md'), 'no file docs/ops.md'),
    'self-test broken anchor': lambda: expect({'README.md': CLEAN['README.md'] + '[x](docs/api.md#errors)\n'},
                                              lambda r: check_links(r, 'README.md'), 'has no heading #errors'),
    'self-test unknown command': lambda: expect({'docs/api.md': CLEAN['docs/api.md'] + '`./feelfish serv --http 1`\n'},
                                                check_commands, 'feelfish serv: no such command'),
    'self-test unknown serve flag': lambda: expect(
        {'docs/api.md': CLEAN['docs/api.md'] + '```\n$ feelfish serve --http 1 \\\n   --port 2\n```\n'},
        check_serve_flags, 'feelfish serve --port'),
    'self-test clean tree': clean_tree,
}


def main():
    root = runner.repo_root(sys.argv)
    checks = {
        'README.md length': lambda: check_readme_length(root),
        'README.md opens with make run and make test': lambda: check_readme_opening(root),
        **{f'links in {path}': lambda path=path: check_links(root, path) for path in doc_files(root)},
        'feelfish commands shown exist': lambda: check_commands(root),
        'feelfish serve flags shown exist': lambda: check_serve_flags(root),
        **SELF_TESTS,
    }
    return run_checks('docs', checks)


if __name__ == '__main__':
    sys.exit(main())
