// The page's weight and first-load time: the bytes of web/dist (as served: the server does not
// compress, and gzipped, as a compressing proxy would send them), then the median over several
// cold loads (a new browser context each, so nothing cached) in headless Chromium on localhost
// of: DOMContentLoaded, the load event, the board drawn, and the engine's first line shown.
// Usage: node tests/bench/web.mjs [runs]   (default 9)
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Server, WEB, launchBrowser, newPage } from '../e2e/harness.mjs';

const runs = Number(process.argv[2] || 9);

function files(dir, base = '') {
  const out = [];
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) out.push(...files(p, `${base}${f}/`));
    else out.push({ name: base + f, path: p });
  }
  return out;
}

let total = 0;
let totalGz = 0;
for (const f of files(WEB).sort((a, b) => a.name.localeCompare(b.name))) {
  const data = readFileSync(f.path);
  const gz = gzipSync(data, { level: 9 }).length;
  total += data.length;
  totalGz += gz;
  console.log(`web: ${f.name.padEnd(12)} ${String(data.length).padStart(7)} bytes, gzip ${String(gz).padStart(6)} bytes`);
}
console.log(`web: bundle total ${total} bytes (${(total / 1024).toFixed(1)} KiB), gzip ${totalGz} bytes (${(totalGz / 1024).toFixed(1)} KiB)`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const server = await new Server().start();
const browser = await launchBrowser();
const m = { dcl: [], load: [], board: [], line: [] };
try {
  for (let i = 0; i < runs + 1; i++) {
    const page = await newPage(browser);
    await page.goto(server.url, { waitUntil: 'load' });
    await page.waitForSelector('#pv-lines .pv');
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const mark = (name) => (performance.getEntriesByName(name)[0] || {}).startTime;
      return { dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, board: mark('feelfish:board'), line: mark('feelfish:first-line') };
    });
    if (page.errors.length) throw new Error(`console errors: ${page.errors.map((e) => e.text).join('; ')}`);
    await page.context().close();
    if (i === 0) continue; // warm-up: the first launch pays for Chromium's own start
    for (const k of Object.keys(m)) m[k].push(t[k]);
  }
} finally {
  await browser.close();
  await server.stop();
  server.cleanup();
}
const f = (xs) => `${median(xs).toFixed(0)} ms`;
console.log(`web: first load on localhost, median of ${runs} cold loads: DOMContentLoaded ${f(m.dcl)}, load ${f(m.load)}, board drawn ${f(m.board)}, first engine line ${f(m.line)}`);
