// The WebSocket's contract (server/api/asyncapi.json) through @asyncapi/parser (web/node_modules)
// with its default Spectral ruleset: the document's structure against the AsyncAPI schema, every
// $ref resolved (openapi.json's too, beside the file), channels, operations and their messages.
// Prints one line per diagnostic ('error|warning|info|hint RULE at PATH: MESSAGE') and a count;
// exits 1 on any error or warning. Run by tests/structure/api_contract.py.
// Usage: node tests/structure/asyncapi_lint.mjs FILE
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const require = createRequire(new URL('../../web/package.json', import.meta.url));
const { Parser } = require('@asyncapi/parser');

const SEVERITY = ['error', 'warning', 'info', 'hint'];
const file = resolve(process.argv[2] || new URL('../../server/api/asyncapi.json', import.meta.url).pathname);
const { document, diagnostics } = await new Parser().parse(readFileSync(file, 'utf8'), { source: file });
for (const d of diagnostics)
  console.log(`${SEVERITY[d.severity]} ${d.code} at ${(d.path || []).join('/') || '(root)'}: ${d.message}`);
const bad = diagnostics.filter((d) => d.severity <= 1).length;
console.log(`${diagnostics.length} diagnostic(s), ${bad} error(s) or warning(s)${document ? '' : '; not parsed'}`);
process.exit(bad || !document ? 1 : 0);
