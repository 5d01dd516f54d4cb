"""The API contract, server/api/openapi.json, as the integration tests' judge: check_answer() finds
the operation of a request (method and path template), the response its status selects, and
validates the body against that response's schema (Debian's python3-jsonschema, draft 2020-12).
Any answer under /api/ that the contract does not describe raises AssertionError naming the route,
the status and the schema error. A path no route matches, or a route's path with another method,
is judged by the document's x-unrouted responses (404 not_found, 405 method_not_allowed)."""
import json
import os
import re

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONTRACT_PATH = os.path.join(ROOT, "server", "api", "openapi.json")

with open(CONTRACT_PATH, encoding="utf-8") as _f:
    CONTRACT = json.load(_f)

_validators = {}


def _resolve(node):
    """A response object, following a $ref into components/responses."""
    while isinstance(node, dict) and "$ref" in node:
        target = CONTRACT
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def _validator(schema):
    """A validator for one schema of the document, its #/components/... references resolved against
    the whole document (the components ride along in the root, an unknown keyword to the schema)."""
    key = json.dumps(schema, sort_keys=True)
    if key not in _validators:
        root = dict(schema)
        root["components"] = CONTRACT["components"]
        jsonschema.Draft202012Validator.check_schema(root)
        _validators[key] = jsonschema.Draft202012Validator(root)
    return _validators[key]


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
        schema = content["application/json"].get("schema", {})
        errors = sorted(_validator(schema).iter_errors(body), key=lambda e: list(e.absolute_path))
        if errors:
            e = errors[0]
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


def routes_table():
    """(METHOD, path) of every entry of Routes[] in server/api/routes.c."""
    with open(os.path.join(ROOT, "server", "api", "routes.c"), encoding="utf-8") as f:
        text = f.read()
    table = text[text.index("const Route Routes[] = {"):]
    table = table[:table.index("};")]
    return set(re.findall(r'\{"(GET|POST|DELETE|PUT|PATCH)",\s*"([^"]+)"', table))
