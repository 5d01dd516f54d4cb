// What the browser tests share: the real server (started on free ports with a fresh database and
// stopped after), Debian's Chromium driven by playwright-core, console-error capture, helpers to
// click squares and wait for the engine, and the runner that prints "e2e: N passed, M failed".
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(join(ROOT, 'web/package.json'));
const { chromium } = require('playwright-core');

export const FEELFISH = resolve(ROOT, process.env.FEELFISH || './feelfish');
export const WEB = join(ROOT, 'web/dist');
export const SHOTS = join(ROOT, 'build/e2e-screenshots');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* ---------- the server ---------- */

export class Server {
  constructor(opts = {}) {
    this.dir = opts.dir || mkdtempSync(join(tmpdir(), 'feelfish-e2e-'));
    this.ownDir = !opts.dir;
    this.http = opts.http || 0;
    this.ws = opts.ws || 0;
    this.extra = opts.args || [];
  }

  async start() {
    const args = ['serve', '--http', String(this.http), '--ws', String(this.ws), '--bind', '127.0.0.1', '--hash', '16', '--db', join(this.dir, 'e2e.db'), '--web', WEB, '--log-level', 'error', ...this.extra];
    this.proc = spawn(FEELFISH, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => (this.stderr += d));
    const rl = createInterface({ input: this.proc.stdout });
    const line = await new Promise((res, rej) => {
      const t = setTimeout(() => rej(new Error(`server did not start in 10 s: ${this.stderr}`)), 10000);
      rl.once('line', (l) => {
        clearTimeout(t);
        res(l);
      });
      this.proc.once('exit', (code) => rej(new Error(`server exited (${code}) at start: ${this.stderr}`)));
    });
    const m = /^listening http (\d+) ws (\d+)/.exec(line);
    if (!m) throw new Error(`unexpected first line from the server: ${line}`);
    this.http = Number(m[1]);
    this.ws = Number(m[2]);
    this.url = `http://127.0.0.1:${this.http}/`;
    return this;
  }

  async stop() {
    if (!this.proc || this.proc.exitCode !== null) return;
    const p = this.proc;
    const done = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    const t = setTimeout(() => p.kill('SIGKILL'), 8000);
    await done;
    clearTimeout(t);
  }

  async api(method, path, body) {
    const res = await fetch(`http://127.0.0.1:${this.http}${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      /* PGN and such */
    }
    return { status: res.status, json, text };
  }

  cleanup() {
    if (this.ownDir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/* ---------- the browser ---------- */

export async function launchBrowser() {
  // Playwright gives every launch a fresh, empty --user-data-dir of its own (it refuses one in args).
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

// A page with console errors and page errors collected into page.errors.
export async function newPage(browser, opts = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true, ...opts });
  const page = await context.newPage();
  page.errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') page.errors.push({ text: msg.text(), url: (msg.location() || {}).url || '' });
  });
  page.on('pageerror', (err) => page.errors.push({ text: `uncaught: ${err.message}`, url: '' }));
  page.setDefaultTimeout(30000);
  return page;
}

export async function screenshot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  await sleep(250); // let the board's move animation finish
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/* ---------- page helpers ---------- */

export async function openPage(page, server, hash = '') {
  await page.goto(server.url + hash);
  await page.waitForSelector('#conn[data-state="open"]');
}

// The centre of a square, in page coordinates, for the board's orientation.
export async function squarePoint(page, key) {
  const box = await page.locator('#board').boundingBox();
  const orientation = await page.locator('#board').evaluate((e) => (e.classList.contains('orientation-black') ? 'black' : 'white'));
  const file = key.charCodeAt(0) - 97;
  const rank = Number(key[1]) - 1;
  const col = orientation === 'white' ? file : 7 - file;
  const row = orientation === 'white' ? 7 - rank : rank;
  const s = box.width / 8;
  return { x: box.x + (col + 0.5) * s, y: box.y + (row + 0.5) * s };
}

export async function clickSquare(page, key) {
  const p = await squarePoint(page, key);
  await page.mouse.click(p.x, p.y);
}

// A move by clicking the piece, then its destination.
export async function clickMove(page, from, to) {
  await clickSquare(page, from);
  await sleep(60);
  await clickSquare(page, to);
}

// Presses the nth element matching `selector`, holds the button until that element is redrawn away
// (or `hold` ms pass), then releases: what a user's click does on a panel the analysis redraws many
// times a second. Returns whether it was redrawn while held.
export async function pressThroughRedraw(page, selector, nth = 0, hold = 5000) {
  const at = await (
    await page.waitForFunction(
      ([sel, n]) => {
        const e = (window.pressed = document.querySelectorAll(sel)[n]);
        const r = e && e.getBoundingClientRect();
        return r && r.width > 0 && { x: r.x + r.width / 2, y: r.y + r.height / 2 };
      },
      [selector, nth],
    )
  ).jsonValue();
  await page.mouse.move(at.x, at.y);
  await page.mouse.down();
  const redrawn = await page.waitForFunction(() => !window.pressed.isConnected, null, { timeout: hold }).then(
    () => true,
    () => false,
  );
  await page.mouse.up();
  return redrawn;
}

export const moveList = (page) => page.$$eval('#moves .move:not(.empty)', (els) => els.map((e) => e.textContent));

// Waits until it is the human's turn again (or the game is over) with at least `min` moves in the
// list, then returns the move list. (chessground reports a move a moment after the click.)
export async function waitForEngine(page, min = 0, timeout = 30000) {
  await page.waitForFunction(
    (n) =>
      ['your-turn', 'over'].includes(document.querySelector('#game-info').dataset.status) &&
      !document.querySelector('#moves .move.pending') &&
      (document.querySelectorAll('#moves .move:not(.empty)').length >= n || document.querySelector('#game-info').dataset.status === 'over'),
    min,
    { timeout },
  );
  return moveList(page);
}

// Plays a move by clicking and waits for the engine's reply.
export async function play(page, from, to) {
  const n = (await moveList(page)).length;
  await clickMove(page, from, to);
  return waitForEngine(page, n + 2);
}

// Starts a game through the dialog.
export async function newGame(page, { mode = 'classical', level = 1, color = 'white', position = '', temperament, target } = {}) {
  if (!(await page.locator('#new-game-dialog[open]').count())) await page.click('#new-game');
  await page.waitForSelector('#new-game-dialog[open]');
  await page.click(`#ng-mode input[value="${mode}"] + span`);
  await page.click(`#ng-level input[value="${level}"] + span`);
  if (temperament) await page.click(`#ng-temperament input[value="${temperament}"] + span`);
  if (target) await page.click(`#ng-target input[value="${target}"] + span`);
  await page.fill('#ng-position', position);
  await page.click(`.color-button[value="${color}"]`);
}

export async function startGame(page, opts) {
  await newGame(page, opts);
  await page.waitForSelector('#new-game-dialog', { state: 'hidden' });
  await page.waitForFunction(() => document.body.dataset.mode === 'play');
  return waitForEngine(page);
}

/* ---------- the runner ---------- */

const tests = [];

// opts.allowConsole: regexps of console errors this test provokes on purpose (failed requests).
export function test(name, fn, opts = {}) {
  tests.push({ name, fn, opts });
}

export async function run() {
  const filter = process.argv[2];
  let passed = 0;
  let failed = 0;
  if (!existsSync(join(WEB, 'index.html'))) {
    console.log(`FAIL web/dist is not built (make web)`);
    console.log('e2e: 0 passed, 1 failed');
    process.exit(1);
  }
  if (!existsSync(FEELFISH)) {
    console.log(`FAIL no server binary at ${FEELFISH} (make feelfish)`);
    console.log('e2e: 0 passed, 1 failed');
    process.exit(1);
  }
  mkdirSync(SHOTS, { recursive: true });
  for (const f of readdirSync(SHOTS)) if (f.startsWith('FAILED-')) rmSync(join(SHOTS, f));
  const browser = await launchBrowser();
  const shared = await new Server().start();
  const ctx = { browser, server: shared };
  for (const t of tests) {
    if (filter && !t.name.includes(filter)) continue;
    const started = Date.now();
    const pages = [];
    const tctx = {
      ...ctx,
      page: async (opts) => {
        const p = await newPage(browser, opts);
        pages.push(p);
        return p;
      },
    };
    let error = null;
    let skipped = null;
    try {
      const r = await withTimeout(t.fn(tctx), t.opts.timeout || 120000);
      if (r && r.skip) skipped = r.skip;
    } catch (e) {
      error = e;
    }
    for (const p of pages) {
      const allowed = t.opts.allowConsole || [];
      const bad = p.errors.filter((e) => !allowed.some((re) => re.test(e.text) || re.test(e.url)));
      if (!error && bad.length) error = new Error(`console errors:\n      ${bad.map((e) => `${e.text} ${e.url}`).join('\n      ')}`);
      if (error) await screenshot(p, `FAILED-${t.name}`).catch(() => {});
      await p.context().close().catch(() => {});
    }
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (skipped) console.log(`skip ${t.name}: ${skipped}`);
    else if (error) {
      failed++;
      console.log(`FAIL ${t.name} (${secs} s)\n    ${String(error.stack || error).split('\n').slice(0, 6).join('\n    ')}`);
    } else {
      passed++;
      console.log(`ok   ${t.name} (${secs} s)`);
    }
  }
  await shared.stop();
  shared.cleanup();
  await browser.close();
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

function withTimeout(promise, ms) {
  let t;
  return Promise.race([promise, new Promise((_, rej) => (t = setTimeout(() => rej(new Error(`timed out after ${ms / 1000} s`)), ms)))]).finally(() => clearTimeout(t));
}
