"""The API contract, server/api/openapi.json, as the integration tests' judge: check_answer() finds
the operation of a request (method and path template), the response its status selects, and
validates the body against that response's schema (Debian's python3-jsonschema, draft 2020-12).
Any answer under /api/ that the contract does not describe raises AssertionError naming the route,
the status and the schema error. A path no route matches, or a route's path with another method,
is judged by the document's x-unrouted responses (404 not_found, 405 method_not_allowed).
The WebSocket's contract, server/api/asyncapi.json, judges frames: check_frame() every text frame the
server sends (by its type), check_op() every op a test sends (by its op); the harness hands them to
wsclient, so a frame or op the contract does not describe raises AssertionError in the test."""
import json
import os
import re

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONTRACT_PATH = os.path.join(ROOT, "server", "api", "openapi.json")

with open(CONTRACT_PATH, encoding="utf-8") as _f:
    CONTRACT = json.load(_f)

_validators = {}
_ANY = {}  # the schema of a body the contract does not constrain (kept: validators are cached by id)


def pointer(doc, ref):
    """What the JSON pointer of a reference ('#/components/schemas/Job', or 'openapi.json#/...': the
    part after '#') names in doc; None where nothing is there."""
    node = doc
    for part in ref.split("#", 1)[-1].lstrip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _resolve(node):
    """A response object, following a $ref into components/responses."""
    while isinstance(node, dict) and "$ref" in node:
        node = pointer(CONTRACT, node["$ref"])
    return node


def _validator(schema):
    """A validator for one schema of the document, its #/components/... references resolved against
    the whole document (the components ride along in the root, an unknown keyword to the schema)."""
    key = id(schema)  # a schema of CONTRACT, which lives as long as the process: no text key to build
    if key not in _validators:
        root = dict(schema)
        root["components"] = CONTRACT["components"]
        jsonschema.Draft202012Validator.check_schema(root)
        _validators[key] = jsonschema.Draft202012Validator(root)
    return _validators[key]


def _deepest(errors):
    """The most specific of a value's schema errors (the longest path into the value; the first in
    path order among equals), None if there are none. Older jsonschema (Debian's 4.10) adds an
    unevaluatedProperties complaint at the top for a member that failed its own check: the member's
    error is the one that says what is wrong."""
    errors = sorted(errors, key=lambda e: list(map(str, e.absolute_path)))
    return max(errors, key=lambda e: len(e.absolute_path)) if errors else None


def template_of(path):
    """The contract's path template that a concrete path matches ('/api/games/x1/pgn' ->
    '/api/games/{id}/pgn'), or None. A {name} segment matches one non-empty segment."""
    segments = path.split("?", 1)[0].split("/")
    for template in CONTRACT["paths"]:
        parts = template.split("/")
        if len(parts) == len(segments) and all(
                p == s or (p.startswith("{") and p.endswith("}") and s) for p, s in zip(parts, segments)):
            return template
    return None


def operations():
    """Every (METHOD, path template) the contract lists."""
    return {(m.upper(), p) for p, item in CONTRACT["paths"].items() for m in item}


def validate_body(route, status, response, body, content_type=None):
    """Validates one answer against the response object the contract gives for it."""
    content = response.get("content")
    if not content:
        return
    if "application/json" in content:
        if content_type and not content_type.startswith("application/json"):
            raise AssertionError("%s -> %d: the contract says application/json, the answer is %s"
                                 % (route, status, content_type))
        schema = content["application/json"].get("schema", _ANY)
        e = _deepest(_validator(schema).iter_errors(body))
        if e:
            where = "/".join(str(p) for p in e.absolute_path) or "(the body)"
            raise AssertionError("%s -> %d does not match the contract at %s: %s (schema %s)"
                                 % (route, status, where, e.message[:300], "/".join(str(p) for p in e.schema_path)))
    elif not isinstance(body, str):
        raise AssertionError("%s -> %d: the contract says %s, the answer is JSON" % (route, status, list(content)))


def check_answer(method, path, status, body, content_type=None):
    """Raises AssertionError unless the contract describes this answer (status and body). Paths outside
    /api/ are not judged; a HEAD answer is judged as GET's status (it has no body); an OPTIONS
    preflight's 204 neither."""
    if not path.startswith("/api/"):
        return
    method = method.upper()
    if method == "OPTIONS" and status == 204:
        return
    template = template_of(path)
    op = CONTRACT["paths"].get(template, {}).get(("GET" if method == "HEAD" else method).lower())
    route = "%s %s" % (method, template or path.split("?", 1)[0])
    if op is None:  # no route: the server's answers outside its routes
        responses = CONTRACT["x-unrouted"]["responses"]
        why = "is not a route of the contract"
    else:
        responses = op["responses"]
        why = "is not an answer the contract lists for it"
    if str(status) not in responses:
        raise AssertionError("%s -> %d: status %d %s (it lists %s)" % (route, status, status, why,
                                                                      ", ".join(sorted(responses))))
    if method == "HEAD":
        return
    validate_body(route, status, _resolve(responses[str(status)]), body, content_type)


def check_request(method, path, status, body):
    """Raises AssertionError when the server accepted (2xx) a JSON body the contract's requestBody
    schema refuses: the contract must describe every request the server takes. (A body the server
    refused is not judged: the tests send wrong ones on purpose.)"""
    if not path.startswith("/api/") or not 200 <= status < 300 or body is None:
        return
    op = CONTRACT["paths"].get(template_of(path), {}).get(method.lower())
    schema = (op or {}).get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return
    try:
        value = json.loads(body) if isinstance(body, (bytes, str)) else body
    except ValueError:
        return
    e = _deepest(_validator(schema).iter_errors(value))
    if e:
        raise AssertionError("%s %s -> %d: the server took a body its contract refuses: at %s: %s"
                             % (method.upper(), template_of(path), status,
                                "/".join(str(p) for p in e.absolute_path) or "(top)", e.message))


def examples():
    """(route, status, example, response) for every example the contract gives."""
    out = []
    for path, item in CONTRACT["paths"].items():
        for method, op in item.items():
            for status, response in op["responses"].items():
                response = _resolve(response)
                for media in response.get("content", {}).values():
                    if "example" in media:
                        out.append(("%s %s" % (method.upper(), path), int(status), media["example"], response))
    return out


def routes_table(root=ROOT):
    """(METHOD, path) of every entry of Routes[] in root's server/api/routes.c."""
    with open(os.path.join(root, "server", "api", "routes.c"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("const Route Routes[] = {"):]
    table = table[:table.index("};")]
    return set(re.findall(r'\{"(GET|POST|DELETE|PUT|PATCH)",\s*"([^"]+)"', table))


def nodes(node):
    """Every object (dict) in a JSON document, depth first."""
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from nodes(v)
    elif isinstance(node, list):
        for v in node:
            yield from nodes(v)


# ---- the WebSocket: server/api/asyncapi.json ----
# Every frame the server sends is judged by its type (the message of a send operation whose payload's
# type is that const), every op a test sends by its op (those of the receive operations: subscribe has
# two); the payloads are JSON Schema 2020-12, their "openapi.json#/..." references resolved against
# the REST contract, as a reader beside /api/asyncapi.json resolves them.

STREAM_PATH = os.path.join(ROOT, "server", "api", "asyncapi.json")

with open(STREAM_PATH, encoding="utf-8") as _f:
    STREAM = json.load(_f)



def _local(node, rest):
    """node with its references made local to one document: asyncapi.json's 'openapi.json#/X' (and,
    inside the REST components copied in, the REST document's own '#/X') become '#/x-rest/X'. So one
    plain Draft 2020-12 validator resolves both documents, with any jsonschema Debian ships (4.10 has
    no registry for references across files)."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str) and (v.startswith("openapi.json#/") or (rest and v.startswith("#/"))):
                out[k] = "#/x-rest/" + v.split("#/", 1)[1]
            else:
                out[k] = _local(v, rest)
        return out
    if isinstance(node, list):
        return [_local(v, rest) for v in node]
    return node


_LOCAL_STREAM = _local(STREAM, False)
_REST_COMPONENTS = {"components": _local(CONTRACT["components"], True)}


def _stream_messages(action, key):
    """{value of the payload's `key` const: [(message name, pointer to its payload)]} of the messages of
    every operation with this action (send: the server's events by type; receive: the ops by op)."""
    out = {}
    for op in STREAM["operations"].values():
        if op["action"] != action:
            continue
        for m in op["messages"]:
            target = pointer(STREAM, m["$ref"])
            ref = target.get("$ref", m["$ref"])
            message = pointer(STREAM, ref)
            name = ref.rsplit("/", 1)[1]
            const = message["payload"]["properties"][key]["const"]
            entry = (name, ref + "/payload")
            if entry not in out.setdefault(const, []):
                out[const].append(entry)
    return out


EVENTS = _stream_messages("send", "type")
OPS = _stream_messages("receive", "op")


def _stream_validator(ref):
    """A validator for the payload at ref, both documents' components riding along in its root."""
    if ref not in _validators:
        root = dict(pointer(_LOCAL_STREAM, ref), components=_LOCAL_STREAM.get("components", {}))
        root["x-rest"] = _REST_COMPONENTS
        jsonschema.Draft202012Validator.check_schema(root)
        _validators[ref] = jsonschema.Draft202012Validator(root)
    return _validators[ref]


def stream_errors(ref, value):
    """The first error of value against the payload at ref, as text, or None."""
    e = _deepest(_stream_validator(ref).iter_errors(value))
    if not e:
        return None
    return "at %s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(the frame)", e.message[:300])


def _judge(what, value, key, messages):
    """None when one of the messages keyed by value[key] describes value, else why not."""
    if not isinstance(value, dict) or not isinstance(value.get(key), str):
        return "%s has no %s: %s" % (what, key, json.dumps(value)[:200])
    candidates = messages.get(value[key])
    if not candidates:
        return "%s %s '%s' is not in asyncapi.json (it has %s)" % (what, key, value[key], ", ".join(sorted(messages)))
    why = []
    for name, ref in candidates:
        problem = stream_errors(ref, value)
        if problem is None:
            return None
        why.append("message %s %s" % (name, problem))
    return "%s %s '%s' does not match asyncapi.json: %s" % (what, key, value[key], "; ".join(why))


def check_frame(text):
    """Raises AssertionError unless a text frame the server sent is an event asyncapi.json describes."""
    try:
        frame = json.loads(text)
    except ValueError:
        raise AssertionError("a WebSocket frame that is not JSON: %r" % text[:200]) from None
    problem = _judge("the WebSocket frame", frame, "type", EVENTS)
    if problem:
        raise AssertionError(problem)


def check_op(op, described=True):
    """Raises AssertionError unless asyncapi.json describes an op a test sends; with described=False
    (a test sending a wrong op on purpose), unless it does not."""
    problem = _judge("the op sent", op, "op", OPS)
    if described and problem:
        raise AssertionError(problem)
    if not described and not problem:
        raise AssertionError("an op sent as a wrong one is one asyncapi.json describes: %s" % json.dumps(op)[:200])


def stream_examples():
    """(message name, example, pointer to its payload) for every example asyncapi.json gives."""
    return [(name, example["payload"], "#/components/messages/%s/payload" % name)
            for name, message in STREAM["components"]["messages"].items() for example in message.get("examples", [])]
