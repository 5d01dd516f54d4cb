// Writes docs/screenshot-play.png, the README's picture of the page in play: an affective game a
// few moves in, with the live analysis in affective mode and the classical choice beside it.
// Usage: node tests/e2e/screenshot.mjs [out.png]
import { join } from 'node:path';
import { ROOT, Server, launchBrowser, newPage, openPage, sleep, startGame, waitForEngine, moveList } from './harness.mjs';

const out = process.argv[2] || join(ROOT, 'docs/screenshot-play.png');
const server = await new Server().start();
const browser = await launchBrowser();
try {
  const page = await newPage(browser, { viewport: { width: 1440, height: 860 } });
  await openPage(page, server);
  await startGame(page, { mode: 'affective', level: 6, color: 'white', temperament: 'bold' });
  // White plays the analysis's best move (depth 12) each time: a sensible game to look at.
  for (let i = 0; i < 7; i++) {
    const n = (await moveList(page)).length;
    await page.waitForFunction(() => Number((document.querySelector('#ceval-stats').textContent.match(/depth (\d+)/) || [0, 0])[1]) >= 12);
    const san = await page.locator('#pv-lines .pv').first().locator('.pv-san').first().innerText();
    await page.fill('#san-input', san);
    await page.press('#san-input', 'Enter');
    if ((await waitForEngine(page, n + 2)).length < n + 2) break; // the game ended
  }
  await page.selectOption('#ceval-mode', 'affective');
  await page.check('#ceval-compare');
  await page.waitForSelector('#compare .compare-side.classical .compare-move');
  await page.waitForFunction(() => Number((document.querySelector('#ceval-stats').textContent.match(/depth (\d+)/) || [0, 0])[1]) >= 16, null, { timeout: 60000 }).catch(() => {});
  await page.mouse.move(0, 0);
  await sleep(400);
  await page.screenshot({ path: out });
  if (page.errors.length) throw new Error(`console errors: ${page.errors.map((e) => e.text).join('; ')}`);
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await server.stop();
  server.cleanup();
}
