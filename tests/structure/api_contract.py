"""The API contract as documents: the REST API's (server/api/openapi.json) passes its linter (Redocly's
recommended rules, every warning an error: server/api/redocly.yaml), the WebSocket's
(server/api/asyncapi.json) passes @asyncapi/parser's default ruleset with no error or warning
(tests/structure/asyncapi_lint.mjs), each linter refuses a copy with planted flaws, and together they
describe every route of Routes[] and every error code the server can answer. Prints what it counted.
Usage: python3 tests/structure/api_contract.py [ROOT]"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from runner import repo_root, run_checks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'integration'))
import contract as judge  # noqa: E402  (the integration tests' contract module: routes_table, nodes)

ROOT = repo_root(sys.argv)
CONTRACT = os.path.join(ROOT, 'server', 'api', 'openapi.json')
CONFIG = os.path.join(ROOT, 'server', 'api', 'redocly.yaml')
REDOCLY = os.path.join(ROOT, 'web', 'node_modules', '.bin', 'redocly')
STREAM = os.path.join(ROOT, 'server', 'api', 'asyncapi.json')
STREAM_LINT = os.path.join(ROOT, 'tests', 'structure', 'asyncapi_lint.mjs')


def lint(path):
    """(exit status, output) of the linter on path."""
    if not os.path.exists(REDOCLY):
        return 127, f'{REDOCLY} is missing (make web installs it)'
    r = subprocess.run([REDOCLY, 'lint', '--config', CONFIG, '--format', 'stylish', path],
                       capture_output=True, text=True, timeout=120, env={**os.environ, 'REDOCLY_TELEMETRY': 'off',
                                                                         'REDOCLY_SUPPRESS_UPDATE_NOTICE': 'true'})
    return r.returncode, r.stdout + r.stderr


def lint_stream(path):
    """(exit status, output) of @asyncapi/parser on path (openapi.json beside it for its references)."""
    if not os.path.exists(os.path.join(ROOT, 'web', 'node_modules', '@asyncapi', 'parser')):
        return 127, '@asyncapi/parser is missing from web/node_modules (make web installs it)'
    r = subprocess.run(['node', STREAM_LINT, path], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout + r.stderr


def contract(path=CONTRACT):
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def sources(folder, suffix='.c'):
    for base, _, files in os.walk(os.path.join(ROOT, folder)):
        for name in sorted(files):
            if name.endswith(suffix):
                with open(os.path.join(base, name), encoding='utf-8') as f:
                    yield os.path.relpath(os.path.join(base, name), ROOT), f.read()


# An error is made by api_error_set(e, STATUS, "code", ...) or api_reply_fail(r, STATUS, "code", ...)
# (the arguments may span lines), or named by the FEN parser's table of codes.
CALL = re.compile(r'\b(?:api_error_set|api_reply_fail)\(\s*[^,()]+,\s*[^,()]+,\s*"([a-z][a-z0-9_]*)"')
FEN_TABLE = re.compile(r'ErrorCodes\[FEN_ERROR_NB\] = \{(.*?)\};', re.S)


def server_codes(only=None):
    """{code: the first file that makes it}, of every server/ source or of those named in only."""
    codes = {}
    for path, text in sources('server'):
        for m in CALL.finditer(text) if only is None or path in only else ():
            codes.setdefault(m.group(1), path)
    for path, text in sources(os.path.join('engine', 'notation')):
        for table in FEN_TABLE.findall(text):
            for code in re.findall(r'"([a-z_]+)"', table):
                if code != 'ok':
                    codes.setdefault(code, path)
    return codes


def contract_codes(doc, rest=None):
    """Every value an error answer's error.code may take in the contract (through $ref and anyOf):
    a reference 'openapi.json#/...' (the WebSocket's document) is followed into rest, the REST one."""
    found = set()

    def values(code, within=doc):
        if isinstance(code, dict) and '$ref' in code:
            within = rest if code['$ref'].startswith('openapi.json#') else within
            values(judge.pointer(within, code['$ref']), within)
        elif isinstance(code, dict):
            found.update(code.get('enum', []))
            if 'const' in code:
                found.add(code['const'])
            for key in ('anyOf', 'oneOf', 'allOf'):
                for branch in code.get(key, []):
                    values(branch, within)

    for node in judge.nodes(doc):
        values(node.get('properties', {}).get('error', {}).get('properties', {}).get('code', {}))
    return found


def lint_clean():
    rc, out = lint(CONTRACT)
    lines = [line for line in out.splitlines() if re.search(r'\berror\b|missing', line)]
    return [] if rc == 0 else [f'redocly lint exit {rc}'] + lines[:20]


def lint_catches_flaws():
    """A copy without the license, with a dangling $ref and an example that breaks its schema."""
    doc = contract()
    del doc['info']['license']
    health = doc['paths']['/api/health']['get']['responses']
    health['200']['content']['application/json']['schema'] = {'$ref': '#/components/schemas/NoSuchSchema'}
    jobs = doc['paths']['/api/jobs/{id}']['get']['responses']['200']['content']['application/json']
    jobs['example'] = {'id': 7}
    with tempfile.TemporaryDirectory(prefix='contract-') as d:
        path = os.path.join(d, 'openapi.json')
        with open(path, 'w') as f:
            json.dump(doc, f, indent=1)
        rc, out = lint(path)
    problems = [] if rc else ['the linter passed a copy with planted flaws']
    for rule in ('info-license', 'no-unresolved-refs', 'no-invalid-media-type-examples'):
        if rule not in out:
            problems.append(f'not flagged: {rule}')
    return problems


def stream_lint_clean():
    rc, out = lint_stream(STREAM)
    print('    ' + (out.strip().splitlines() or ['(no output)'])[-1])
    return [] if rc == 0 else [f'asyncapi lint exit {rc}'] + out.strip().splitlines()[:20]


def stream_lint_catches_flaws():
    """Copies beside openapi.json: one referring to a schema openapi.json does not have; one without
    info.version and with an operation whose message is not its channel's."""
    dangling, flawed = contract(STREAM), contract(STREAM)
    dangling['components']['messages']['info']['payload']['allOf'] = [
        {'$ref': 'openapi.json#/components/schemas/NoSuchSchema'}]
    del flawed['info']['version']
    flawed['operations']['ping']['messages'] = [{'$ref': '#/components/messages/ping'}]
    out = ''
    problems = []
    with tempfile.TemporaryDirectory(prefix='contract-') as d:
        shutil.copy(CONTRACT, os.path.join(d, 'openapi.json'))
        for name, doc in (('dangling', dangling), ('flawed', flawed)):
            path = os.path.join(d, 'asyncapi.json')
            with open(path, 'w') as f:
                json.dump(doc, f, indent=1)
            rc, text = lint_stream(path)
            out += text
            if rc != 1:
                problems.append(f'the linter did not refuse the {name} copy (exit {rc})')
    for rule in ('invalid-ref', 'asyncapi-document-resolved', 'asyncapi3-operation-messages-from-referred-channel'):
        if rule not in out:
            problems.append(f'not flagged: {rule}')
    return problems


def every_route_described():
    doc = contract()
    listed = {(m.upper(), p) for p, item in doc['paths'].items() for m in item}
    table = judge.routes_table(ROOT)
    answers = sum(len(op['responses']) for item in doc['paths'].values() for op in item.values())
    print(f'    routes: {len(table)} in Routes[], {len(listed)} in the contract, {len(table & listed)} in both; '
          f'{answers} answers (status per operation) described')
    return [f'in Routes[] only: {r}' for r in sorted(table - listed)] + \
        [f'in the contract only: {r}' for r in sorted(listed - table)]


def every_error_code_described():
    """Described in either document: openapi.json's answers or asyncapi.json's error frames."""
    rest, stream = contract_codes(contract()), contract_codes(contract(STREAM), contract())
    made, described = server_codes(), rest | stream
    print(f'    error codes: {len(made)} the server can answer, {len(rest)} in openapi.json, {len(stream)} in '
          f'asyncapi.json, {len(set(made) & described)} described')
    return [f'{code} ({path}) is not in the contract' for code, path in sorted(made.items()) if code not in described]


# The files an op goes through (the ops, the request decoders, tokens and owners) and the FEN table:
# every code they make can reach a WebSocket client as an error frame.
STREAM_SOURCES = ('server/api/ws_ops.c', 'server/api/request.c', 'server/api/auth.c')


def stream_codes_described():
    made = server_codes(STREAM_SOURCES)
    made.update({code: path for code, path in server_codes().items() if path.startswith('engine/')})
    stream = contract_codes(contract(STREAM), contract())
    print(f'    WebSocket error codes: {len(made)} made by {", ".join(os.path.basename(s) for s in STREAM_SOURCES)} '
          f'and the FEN table, {len(stream)} in asyncapi.json\'s error frame')
    return [f'{code} ({path}) is not in asyncapi.json' for code, path in sorted(made.items()) if code not in stream]


WEB = os.path.join(ROOT, 'web')
BIN = os.path.join(WEB, 'node_modules', '.bin')


def typecheck(web):
    """(exit status, output): the types generated from the contract into web/types/api.d.ts, then
    tsc over web/tsconfig.json (the page's client, src/api.js, against them)."""
    if not os.path.exists(os.path.join(BIN, 'tsc')):
        return 127, f'{BIN}/tsc is missing (make web installs it)'
    gen = subprocess.run([os.path.join(BIN, 'openapi-typescript'), CONTRACT, '-o', os.path.join(web, 'types', 'api.d.ts')],
                         capture_output=True, text=True, timeout=120)
    if gen.returncode:
        return gen.returncode, gen.stdout + gen.stderr
    r = subprocess.run([os.path.join(BIN, 'tsc'), '-p', web], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout + r.stderr


def typed_client_compiles():
    rc, out = typecheck(WEB)
    return [] if rc == 0 else [f'tsc exit {rc}'] + out.splitlines()[:20]


def typed_client_catches_flaws():
    """A copy of the page's client calling a route, a method and a body field the contract lacks."""
    with tempfile.TemporaryDirectory(prefix='typed-client-') as d:
        os.makedirs(os.path.join(d, 'src'))
        for name in ('tsconfig.json', 'src/api-types.d.ts'):
            shutil.copy(os.path.join(WEB, name), os.path.join(d, name))
        with open(os.path.join(WEB, 'src', 'api.js'), encoding='utf-8') as f:
            text = f.read()
        flaws = [("call('post', '/api/games', undefined, opts)", "call('post', '/api/gamez', undefined, opts)", '/api/gamez'),
                 ("{ id }, { move })", "{ id }, { mvoe: move })", 'mvoe'),
                 ("call('get', '/api/bot', undefined)", "call('delete', '/api/bot', undefined)", '"delete"')]
        for right, wrong, _ in flaws:
            if right not in text:
                return [f'api.js no longer has {right!r}: update this check']
            text = text.replace(right, wrong)
        with open(os.path.join(d, 'src', 'api.js'), 'w', encoding='utf-8') as f:
            f.write(text)
        os.symlink(os.path.join(WEB, 'node_modules'), os.path.join(d, 'node_modules'))
        rc, out = typecheck(d)
    problems = [] if rc else ['tsc passed a client with planted flaws']
    return problems + [f'not flagged: {needle}' for _, _, needle in flaws if needle not in out]


def code_finder_finds():
    """The error-code finder sees a call spread over lines (its own self-test)."""
    sample = 'api_error_set(\n        e, 400, "bad_thing", "field", "what to fix");'
    return [] if CALL.findall(sample) == ['bad_thing'] else ['the finder missed a call spread over lines']


if __name__ == '__main__':
    sys.exit(run_checks('api-contract', {
        'lint_clean': lint_clean,
        'lint_catches_flaws': lint_catches_flaws,
        'stream_lint_clean': stream_lint_clean,
        'stream_lint_catches_flaws': stream_lint_catches_flaws,
        'every_route_described': every_route_described,
        'every_error_code_described': every_error_code_described,
        'stream_codes_described': stream_codes_described,
        'code_finder_finds': code_finder_finds,
        'typed_client_compiles': typed_client_compiles,
        'typed_client_catches_flaws': typed_client_catches_flaws,
    }))
