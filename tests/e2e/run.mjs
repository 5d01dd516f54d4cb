// End-to-end tests of the page in headless Chromium against the real server.
// Usage: node tests/e2e/run.mjs [name-filter]   (FEELFISH=path/to/binary to test another build)
// Screenshots of each state go to build/e2e-screenshots/. The last line is "e2e: N passed, M failed".
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  FEELFISH,
  ROOT,
  Server,
  clickMove,
  clickSquare,
  moveList,
  play,
  pressThroughRedraw,
  newGame,
  openPage,
  run,
  screenshot,
  sleep,
  squarePoint,
  startGame,
  test,
  waitForEngine,
} from './harness.mjs';

// Failed requests the browser itself reports on the console: allowed only where a test provokes them.
const HTTP_4XX = /Failed to load resource: the server responded with a status of 4\d\d/;
const NET_DOWN = /ERR_CONNECTION_REFUSED|WebSocket connection to .* failed|Failed to load resource: net::/;

const text = (page, sel) => page.locator(sel).innerText();
// chessground draws on the next animation frame: its squares are waited for, not read at once.
const waitCount = (page, sel, n) => page.waitForFunction(([s, k]) => document.querySelectorAll(s).length === k, [sel, n]);

test('start a game, click moves, engine replies, move list updates', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await screenshot(page, '01-start');
  let moves = await startGame(page, { level: 1, color: 'white' });
  assert.deepEqual(moves, []);
  assert.equal(await text(page, '#game-status'), 'Your turn');
  // Clicking a piece shows its legal destinations (dots).
  await clickSquare(page, 'e2');
  await waitCount(page, '#board square.move-dest', 2);
  await screenshot(page, '02-legal-dots');
  await clickSquare(page, 'e4');
  moves = await waitForEngine(page, 2);
  assert.equal(moves[0], 'e4');
  assert.equal(moves.length, 2, `engine should have replied: ${moves}`);
  // Last-move highlight on the engine's move.
  await waitCount(page, '#board square.last-move', 2);
  // The next move by dragging the piece.
  const g1 = await squarePoint(page, 'g1');
  const f3 = await squarePoint(page, 'f3');
  await page.mouse.move(g1.x, g1.y);
  await page.mouse.down();
  await page.mouse.move(f3.x, f3.y, { steps: 8 });
  await page.mouse.up();
  moves = await waitForEngine(page, 4);
  assert.equal(moves.length, 4);
  assert.equal(moves[2], 'Nf3');
  assert.equal(await page.locator('#moves .move.active').innerText(), moves[3]);
  await screenshot(page, '03-after-moves');
});

test('the analysis panel shows lines that update', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await page.waitForFunction(() => document.querySelectorAll('#pv-lines .pv').length === 3);
  const depthOf = async () => Number(((await text(page, '#ceval-stats')).match(/depth (\d+)/) || [0, 0])[1]);
  const d1 = await depthOf();
  await page.waitForFunction((d) => Number((document.querySelector('#ceval-stats').textContent.match(/depth (\d+)/) || [0, 0])[1]) > d, d1);
  const d2 = await depthOf();
  assert.ok(d2 > d1, `depth went from ${d1} to ${d2}`);
  assert.match(await text(page, '#ceval-score'), /^[+-]?\d+\.\d\d$|^#-?\d+$/);
  assert.match(await page.locator('#pv-lines .pv').first().innerText(), /^[+-]?\d+\.\d\d\s+1\.\s*\S+/);
  // The evaluation bar follows the score; an arrow shows the best move.
  assert.ok(await page.locator('#evalbar').getAttribute('aria-valuenow'));
  await page.waitForSelector('#board svg.cg-shapes line', { state: 'attached' });
  // A move on the board restarts the analysis on the new position.
  await clickMove(page, 'd2', 'd4');
  await page.waitForFunction(() => /^\s*1…/.test(document.querySelector('#pv-lines .pv .pv-moves')?.textContent || ''));
  await screenshot(page, '04-analysis');
  // Off and on again.
  await page.click('.switch .slider');
  await page.waitForFunction(() => document.querySelectorAll('#pv-lines .pv').length === 0);
  assert.equal(await text(page, '#ceval-stats'), 'analysis off');
  await page.click('.switch .slider');
  await page.waitForFunction(() => document.querySelectorAll('#pv-lines .pv').length >= 1);
  // Pressing a move of a line previews it on the board, even when the lines are redrawn (a new
  // info) between the press and the release, as they are many times a second at low depths.
  const fenBefore = await page.inputValue('#fen');
  assert.ok(await pressThroughRedraw(page, '#pv-lines .pv:first-child .pv-san', 1), 'the lines were redrawn while pressed');
  await page.waitForSelector('#preview-bar:not([hidden])', { timeout: 5000 });
  assert.notEqual(await page.inputValue('#fen'), fenBefore);
  await screenshot(page, '05-preview');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#preview-bar[hidden]', { state: 'attached' });
  assert.equal(await page.inputValue('#fen'), fenBefore);
});

test('a promotion through the chooser', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await startGame(page, { level: 1, color: 'white', position: '4k3/P7/8/8/8/8/5PPP/6K1 w - - 0 1' });
  await clickMove(page, 'a7', 'a8');
  await page.waitForSelector('#promotion:not([hidden]) .promotion-choice');
  assert.equal(await page.locator('#promotion .promotion-choice').count(), 4);
  await screenshot(page, '06-promotion-chooser');
  await page.click('#promotion .promotion-choice[data-role="knight"]');
  const moves = await waitForEngine(page, 2);
  assert.equal(moves[0], 'a8=N');
  assert.equal(moves.length, 2);
  await waitCount(page, '#board piece.knight.white', 1);
  await screenshot(page, '07-promoted');
});

test('affective mode shows the emotion gauge with a label; compare; affective game chart', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  assert.equal(await page.locator('#emotion-panel').isHidden(), true);
  await page.selectOption('#ceval-mode', 'affective');
  await page.waitForSelector('#emotion-panel:not([hidden])');
  await page.waitForFunction(() => ['fear', 'neutral', 'relief'].includes(document.querySelector('#emotion-label').textContent));
  const now = Number(await page.locator('#emotion-gauge').getAttribute('aria-valuenow'));
  assert.ok(now >= -1 && now <= 1);
  assert.match(await text(page, '#emotion-goal'), /reach safety|enclose king|gain advantage/);
  await page.waitForFunction(() => document.querySelectorAll('#pv-lines .pv').length >= 1);
  await screenshot(page, '08-affective-analysis');
  // Compare: the classical choice beside the affective one.
  await page.check('#ceval-compare');
  await page.waitForSelector('#compare .compare-side.classical .compare-move');
  assert.match(await text(page, '#compare'), /affective[\s\S]*classical/i);
  // An affective game: the engine's emotion is charted over its moves.
  await startGame(page, { mode: 'affective', level: 1, color: 'black', temperament: 'anxious' });
  await page.waitForFunction(() => Number(document.querySelector('#emotion-chart').dataset.points) >= 1);
  await page.selectOption('#ceval-mode', 'classical');
  assert.match(await text(page, '#emotion-source'), /feelfish before its move/);
  const moves = await moveList(page);
  assert.equal(moves.length, 1);
  await play(page, 'e7', 'e5');
  await page.waitForFunction(() => Number(document.querySelector('#emotion-chart').dataset.points) >= 2);
  assert.match(await text(page, '.game-meta'), /affective · anxious/);
  await screenshot(page, '09-affective-game');
  // A point of the chart takes the board to its ply, though the panel is redrawn on every info.
  await pressThroughRedraw(page, '#emotion-chart circle.point', 0, 1000);
  await page.waitForFunction(() => document.querySelector('#fen').value.startsWith('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w'));
  assert.match(await text(page, '#emotion-source'), /feelfish before its move at ply 1$/);
});

test("the affective gain: the analysis's slider and the new game's, each temperament's own, kept by the game", async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await page.selectOption('#ceval-mode', 'affective');
  await page.waitForSelector('#ceval-gain-field:not([hidden])');
  await page.waitForFunction(() => /gain 0\.05$/.test(document.querySelector('#emotion-intensity').textContent));
  // The slider moved: the next analysis asks for that gain, and the emotion it returns has it.
  const slide = (sel, v) =>
    page.evaluate(([s, x]) => {
      const input = document.querySelector(s);
      input.value = x;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }, [sel, v]);
  await slide('#ceval-gain', '0.5');
  assert.equal(await text(page, '#ceval-gain-value'), '0.50');
  await page.waitForFunction(() => /gain 0\.50$/.test(document.querySelector('#emotion-intensity').textContent));
  // Another temperament brings its own gain back: the thesis's, 1.
  await page.selectOption('#ceval-temperament', 'thesis');
  assert.equal(await page.locator('#ceval-gain').inputValue(), '1');
  await page.waitForFunction(() => /gain 1\.00$/.test(document.querySelector('#emotion-intensity').textContent));
  // The new-game dialog: the slider follows the temperament chosen, then the game keeps the gain set.
  await page.click('#new-game');
  await page.waitForSelector('#new-game-dialog[open]');
  await page.click('#ng-mode input[value="affective"] + span');
  await page.waitForSelector('#ng-gain-field:not([hidden])');
  await page.click('#ng-temperament input[value="bold"] + span');
  assert.equal(await page.locator('#ng-gain').inputValue(), '0.05');
  await page.click('#ng-temperament input[value="thesis"] + span');
  assert.equal(await page.locator('#ng-gain').inputValue(), '1');
  await slide('#ng-gain', '0.35');
  assert.equal(await text(page, '#ng-gain-value'), '0.35');
  await page.click('#ng-level input[value="1"] + span');
  await page.click('.color-button[value="white"]');
  await page.waitForSelector('#new-game-dialog', { state: 'hidden' });
  await page.waitForFunction(() => /affective · thesis · gain 0\.35/.test(document.querySelector('.game-meta')?.textContent || ''));
  await play(page, 'e2', 'e4');
  await page.waitForFunction(() => Number(document.querySelector('#emotion-chart').dataset.points) >= 1);
  assert.equal(await page.locator('#ceval-gain').inputValue(), '0.35');
});

test("each level shows its rating, and the game the one it plays at", async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  const config = await page.evaluate(() => fetch('/api/config').then((r) => r.json()));
  await page.click('#new-game');
  await page.waitForSelector('#new-game-dialog[open]');
  const shown = await page.locator('#ng-level small.elo').allInnerTexts();
  const want = config.levels.map((l) => (l.elo ? `≈ ${l.elo}` : 'max'));
  assert.deepEqual(shown, want);
  assert.equal(shown.length, 8);
  await startGame(page, { level: 2, color: 'white' });
  await page.waitForFunction((elo) => document.querySelector('.players .elo')?.textContent === ` ≈ ${elo}`, config.levels[1].elo);
});

test('an illegal FEN or PGN paste shows the error', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  // Playing from a bad FEN: the server's code and message.
  await newGame(page, { position: '8/8/8/8/8/8/8/8 w - - 0 1' });
  await page.waitForSelector('#ng-error:not([hidden])');
  assert.match(await text(page, '#ng-error'), /fen_missing_king[\s\S]*white has no king/);
  assert.match(await text(page, '#toasts'), /fen_missing_king/);
  await screenshot(page, '10-bad-fen');
  await newGame(page, { position: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra' });
  await page.waitForFunction(() => /fen_field_count/.test(document.querySelector('#ng-error').textContent));
  await page.click('#ng-close');
  // Analysing a bad FEN or a PGN with an illegal move.
  await page.fill('#paste', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBKR w KQkq - 0 1');
  await page.click('#paste-analyse');
  await page.waitForSelector('#paste-error:not([hidden])');
  assert.match(await text(page, '#paste-error'), /bad_fen/);
  await page.fill('#paste', '1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf9');
  await page.click('#paste-analyse');
  await page.waitForFunction(() => /Nf9 is not legal/.test(document.querySelector('#paste-error').textContent));
  // A good PGN loads into the analysis board.
  await page.fill('#paste', '[Event "x"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *');
  await page.click('#paste-analyse');
  await page.waitForFunction(() => document.querySelectorAll('#moves .move').length === 6);
  assert.deepEqual(await moveList(page), ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6']);
  await screenshot(page, '11-pgn-loaded');
  // And a game can start from it: the PGN's moves stay in the list.
  await startGame(page, { level: 1, color: 'white', position: '1. e4 e5 2. Nf3 Nc6 3. Bb5 a6' });
  const moves = await moveList(page);
  assert.deepEqual(moves.slice(0, 6), ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6']);
  // ... and they are the server game's own moves (its PGN and repetitions see them).
  const stored = await page.evaluate(async () => (await (await fetch(`/api/games/${location.hash.slice(1)}`)).json()).san);
  assert.deepEqual(stored.slice(0, 6), ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5', 'a6']);
}, { allowConsole: [HTTP_4XX] });

test('reload keeps the game (stored server-side)', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await startGame(page, { level: 2, color: 'white' });
  const before = await play(page, 'e2', 'e4');
  const id = (await text(page, '.game-meta')).match(/game (g\w+)/)[1];
  await page.reload();
  await page.waitForSelector('#conn[data-state="open"]');
  await page.waitForFunction(() => document.body.dataset.mode === 'play');
  assert.deepEqual(await moveList(page), before);
  assert.match(await text(page, '.game-meta'), new RegExp(id));
  // A fresh browser (nothing in local storage) with the game's address gets it from the server.
  const other = await newPage();
  await openPage(other, server, `#${id}`);
  await other.waitForFunction(() => document.body.dataset.mode === 'play');
  assert.deepEqual(await moveList(other), before);
  await screenshot(other, '12-reloaded');
  // Reloading while the engine thinks: the page finds the game thinking and waits for the move.
  await startGame(other, { level: 8, color: 'white' });
  await clickMove(other, 'd2', 'd4');
  await other.waitForFunction(() => document.querySelector('#game-info').dataset.status === 'thinking');
  await other.reload();
  const moves = await waitForEngine(other, 2);
  assert.equal(moves.length, 2);
  assert.equal(moves[0], 'd4');
});

test('keyboard: SAN entry and arrow-key navigation', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await startGame(page, { level: 1, color: 'white' });
  await page.fill('#san-input', 'Nf6');
  await page.press('#san-input', 'Enter');
  assert.match(await text(page, '#san-error'), /not a legal move/);
  await page.fill('#san-input', 'e4');
  await page.press('#san-input', 'Enter');
  let moves = await waitForEngine(page, 2);
  assert.equal(moves[0], 'e4');
  await page.fill('#san-input', 'd2d4');
  await page.press('#san-input', 'Enter');
  moves = await waitForEngine(page, 4);
  assert.equal(moves[2], 'd4');
  assert.equal(moves.length, 4);
  await page.locator('#moves').focus();
  const active = () => page.locator('#moves .move.active').getAttribute('data-ply');
  assert.equal(await active(), '4');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await active(), '3');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await active(), '2');
  assert.equal(await page.locator('#board').getAttribute('data-movable'), 'no');
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.locator('#moves .move.active').count(), 0);
  assert.equal(await page.inputValue('#fen'), 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
  await page.keyboard.press('ArrowRight');
  assert.equal(await active(), '1');
  await page.keyboard.press('End');
  assert.equal(await active(), '4');
  assert.equal(await page.locator('#board').getAttribute('data-movable'), 'yes');
  await screenshot(page, '13-keyboard');
});

test('takeback', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await startGame(page, { level: 1, color: 'white' });
  assert.equal(await page.locator('#takeback').isDisabled(), true);
  await play(page, 'e2', 'e4');
  const before = await play(page, 'd2', 'd4');
  assert.equal(before.length, 4);
  const gameId = async () => (await text(page, '.game-meta')).match(/game (g\w+)/)[1];
  const id = await gameId();
  await page.click('#takeback');
  await page.waitForFunction(() => document.querySelectorAll('#moves .move').length === 2);
  // With the server's POST /api/games/{id}/takeback the game stays the same one.
  const serverTakeback = !!(await server.api('GET', '/api/openapi.json')).json.paths['/api/games/{id}/takeback'];
  if (serverTakeback) assert.equal(await gameId(), id);
  assert.deepEqual(await moveList(page), before.slice(0, 2));
  assert.equal(await text(page, '#game-status'), 'Your turn');
  const after = await play(page, 'g1', 'f3');
  assert.deepEqual(after.slice(0, 3), [...before.slice(0, 2), 'Nf3']);
  // The whole line survives a reload.
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll('#moves .move').length === 4);
  assert.deepEqual(await moveList(page), after);
  await screenshot(page, '14-takeback');
  // Taking back into moves that came from a pasted PGN (not in the server's game): the game goes on
  // from two plies back, the earlier moves kept.
  await startGame(page, { level: 1, color: 'white', position: '1. e4 e5 2. Nf3 Nc6' });
  await page.click('#takeback');
  await page.waitForFunction(() => document.querySelectorAll('#moves .move').length === 2);
  assert.deepEqual(await moveList(page), ['e4', 'e5']);
  const again = await play(page, 'g1', 'f3');
  assert.deepEqual(again.slice(0, 3), ['e4', 'e5', 'Nf3']);
});

test('resign shows the game-over banner', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await startGame(page, { level: 1, color: 'white' });
  await play(page, 'e2', 'e4');
  await page.click('#resign');
  assert.equal(await page.locator('#banner').isHidden(), true, 'one click only arms the button');
  await page.click('#resign');
  await page.waitForSelector('#banner:not([hidden])');
  assert.match(await text(page, '#banner'), /You resigned[\s\S]*0-1/i);
  assert.equal(await page.locator('#board').getAttribute('data-movable'), 'no');
  assert.equal(await page.locator('#resign').isDisabled(), true);
  await screenshot(page, '15-resigned');
  // "Request analysis" at the game's end: the game analysed on review.html.
  await page.click('#request-analysis');
  await page.waitForURL(/review\.html\?/);
  await page.waitForFunction(() => document.body.dataset.review === 'done', null, { timeout: 120000 });
  assert.ok((await page.$$eval('#review-moves .rmove', (els) => els.length)) >= 2, 'the moves of the game are listed');
});

test('a checkmate ends the game with its banner', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await startGame(page, { level: 1, color: 'white', position: '6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1' });
  await clickMove(page, 'a1', 'a8');
  await page.waitForSelector('#banner:not([hidden])');
  assert.match(await text(page, '#banner'), /You win by checkmate[\s\S]*1-0/);
  assert.deepEqual(await moveList(page), ['Ra8#']);
  await waitCount(page, '#board square.check', 1);
  await screenshot(page, '16-checkmate');
});

test('flip the board', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  assert.equal(await page.locator('#board.orientation-white').count(), 1);
  const a1 = await squarePoint(page, 'a1');
  await page.click('#flip');
  await page.waitForSelector('#board.orientation-black');
  assert.equal(await page.locator('.board-row.flipped').count(), 1);
  const a1b = await squarePoint(page, 'a1');
  assert.ok(a1b.y < a1.y && a1b.x > a1.x, 'a1 is at the top right once flipped');
  await page.keyboard.press('f');
  await page.waitForSelector('#board.orientation-white');
  // Playing Black orients the board for Black.
  await startGame(page, { level: 1, color: 'black' });
  await page.waitForSelector('#board.orientation-black');
  await screenshot(page, '17-flipped');
});

test('PGN copy and download', async ({ page: newPage, server }) => {
  const page = await newPage({ permissions: ['clipboard-read', 'clipboard-write'] });
  await openPage(page, server);
  await startGame(page, { level: 1, color: 'white' });
  const moves = await play(page, 'e2', 'e4');
  await page.click('#pgn-copy');
  await page.waitForFunction(() => /copied/.test(document.querySelector('#toasts').textContent));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(copied, /\[Event "feelfish game"\]/);
  assert.ok(copied.includes(`1. e4 ${moves[1]}`), copied);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#pgn-download')]);
  assert.match(download.suggestedFilename(), /^feelfish-g\w+\.pgn$/);
  const saved = readFileSync(await download.path(), 'utf8');
  assert.equal(saved, copied);
  // A game with moves kept in the browser (from a pasted PGN) is written here, whole.
  await startGame(page, { level: 1, color: 'white', position: '1. d4 d5' });
  await page.click('#pgn-copy');
  await sleep(200);
  const whole = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(whole, /\n1\. d4 d5 \*\n$/);
  assert.doesNotMatch(whole, /\[FEN /);
  // Both carry the engine's rating as the server writes it: its side's Elo and the mode tag.
  const rating = copied.match(/\[BlackElo "(\d+)"\]/)?.[1];
  assert.ok(rating && !/WhiteElo/.test(copied), copied);
  assert.ok(copied.includes(`[FeelfishMode "classical, level 1, rating ${rating}"]`), copied);
  assert.ok(whole.includes(`[BlackElo "${rating}"]`) && whole.includes(`[FeelfishMode "classical, level 1, rating ${rating}"]`), whole);
});

test('server errors are shown with their code and message', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await startGame(page, { level: 1, color: 'white' });
  // The page names its game by the fullId (the address); the meta line shows the public id.
  const id = await page.evaluate(() => decodeURIComponent(location.hash.slice(1)));
  const publicId = (await text(page, '.game-meta')).match(/game (g\w+)/)[1];
  assert.ok(id.startsWith(publicId) && id.length === publicId.length + 8, `${id} is not ${publicId}'s fullId`);
  assert.equal((await server.api('POST', `/api/games/${publicId}/resign`, {})).status, 403);
  // The game ends behind the page's back (another tab resigned it): the next move is refused.
  const r = await server.api('POST', `/api/games/${id}/resign`, {});
  assert.equal(r.status, 200);
  await clickMove(page, 'e2', 'e4');
  await page.waitForFunction(() => /game_over/.test(document.querySelector('#toasts').textContent));
  assert.match(await text(page, '#toasts'), /game_over[\s\S]*the game is over/);
  await page.waitForSelector('#banner:not([hidden])');
  assert.deepEqual(await moveList(page), []);
  await screenshot(page, '18-server-error');
}, { allowConsole: [HTTP_4XX] });

test('the WebSocket reconnects by itself after a server restart', async ({ page: newPage, server: _shared }) => {
  const server = await new Server().start();
  const { http, ws, dir } = server;
  try {
    const page = await newPage();
    await openPage(page, server);
    await startGame(page, { level: 1, color: 'white' });
    const before = await play(page, 'e2', 'e4');
    await page.waitForFunction(() => document.querySelectorAll('#pv-lines .pv').length >= 1);
    await server.stop();
    await page.waitForSelector('#conn[data-state="reconnecting"]');
    await page.waitForFunction(() => /lost/.test(document.querySelector('#ceval-message').textContent));
    await screenshot(page, '19-connection-lost');
    await sleep(1500);
    const again = await new Server({ dir, http, ws }).start();
    try {
      await page.waitForSelector('#conn[data-state="open"]', { timeout: 30000 });
      await page.waitForFunction(() => document.querySelectorAll('#pv-lines .pv').length >= 1 && !document.querySelector('#ceval-message').textContent);
      // The game is still there (stored), and play goes on.
      assert.deepEqual(await moveList(page), before);
      const after = await play(page, 'g1', 'f3');
      assert.equal(after.length, 4);
      await screenshot(page, '20-reconnected');
    } finally {
      await again.stop();
    }
  } finally {
    await server.stop();
    server.cleanup();
  }
}, { allowConsole: [NET_DOWN] });

test('phone-sized screen (375 px)', async ({ page: newPage, server }) => {
  const page = await newPage({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await openPage(page, server);
  await startGame(page, { level: 1, color: 'white' });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 375, `no horizontal scrolling (page is ${width} px wide)`);
  const box = await page.locator('#board').boundingBox();
  assert.ok(box.width >= 330 && box.x + box.width <= 375, `board fits: ${JSON.stringify(box)}`);
  // Moves by tapping.
  const e2 = await squarePoint(page, 'e2');
  const e4 = await squarePoint(page, 'e4');
  await page.touchscreen.tap(e2.x, e2.y);
  await sleep(80);
  await page.touchscreen.tap(e4.x, e4.y);
  const moves = await waitForEngine(page, 2);
  assert.equal(moves[0], 'e4');
  await page.waitForFunction(() => document.querySelectorAll('#pv-lines .pv').length >= 1);
  await screenshot(page, '21-phone');
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await screenshot(page, '22-phone-scrolled');
});

// CONDITIONAL: runs only once the server has the bayesian mode (POST /api/analyse with mode
// bayesian answers 200); until then it is reported as "skip" and counted neither way.
test('bayesian mode: the opponent model panel (conditional)', async ({ page: newPage, server }) => {
  const probe = await server.api('POST', '/api/analyse', { moves: ['e2e4'], mode: 'bayesian', limits: { depth: 4 } });
  if (probe.status !== 200) return { skip: `the server has no bayesian mode yet (POST /api/analyse answered ${probe.status} ${probe.json?.error?.code || ''})` };
  const config = await server.api('GET', '/api/config');
  assert.ok(config.json.modes.includes('bayesian'), `the server analyses in mode bayesian but GET /api/config's modes (${config.json.modes}) do not list it: the page offers the modes listed there`);
  const page = await newPage();
  await openPage(page, server);
  await page.selectOption('#ceval-mode', 'bayesian');
  await page.waitForSelector('#opponent-panel:not([hidden])');
  await page.waitForFunction(() => ['aggressive', 'conservative'].includes(document.querySelector('#opponent-target').textContent));
  assert.match(await text(page, '#opponent-learned'), /^\d+$/);
  assert.match(await text(page, '#opponent-phase'), /opening|middlegame|endgame/);
  await screenshot(page, '23-bayesian-analysis');
  // A bayesian game carries the model on the engine's moves.
  await startGame(page, { mode: 'bayesian', level: 1, color: 'black', target: 'conservative' });
  assert.match(await text(page, '.game-meta'), /bayesian · target conservative/);
  await page.selectOption('#ceval-mode', 'classical');
  await page.waitForFunction(() => ['aggressive', 'conservative'].includes(document.querySelector('#opponent-target').textContent));
  await play(page, 'e7', 'e5');
  const bars = await page.$$eval('#style-bars .style-p', (els) => els.map((e) => e.textContent));
  assert.equal(bars.length, 3);
  await screenshot(page, '24-bayesian-game');
});

// The opponent panel's learning curve (GET /api/bayes/curve) on a server whose database learned 12
// self-play games (feelfish learn) and holds bayes-experiment's points at 0 and 10 games.
test('bayesian mode: the model\'s learning curve', async ({ page: newPage }) => {
  const dir = mkdtempSync(join(tmpdir(), 'feelfish-e2e-curve-'));
  const db = join(dir, 'e2e.db');
  for (const args of [
    ['learn', '--games', '12', '--nodes', '300', '--concurrency', '2'],
    ['bayes-experiment', '--sizes', '0,10', '--games', '2', '--nodes', '300'],
  ]) {
    const r = spawnSync(FEELFISH, [...args, '--db', db], { cwd: ROOT, encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, `feelfish ${args[0]}: ${r.stderr}`);
  }
  const server = await new Server({ dir }).start();
  try {
    const page = await newPage();
    await openPage(page, server);
    await page.selectOption('#ceval-mode', 'bayesian');
    await page.waitForSelector('#opponent-panel:not([hidden])');
    await page.waitForSelector('#learning-curve[data-points="2"]');
    assert.equal(await page.$$eval('#learning-curve circle', (els) => els.length), 4, 'two points for each target');
    assert.equal(await page.$$eval('#learning-curve polyline', (els) => els.length), 2);
    const matches = await page.$$eval('#curve-matches li', (els) => els.map((e) => e.textContent));
    assert.equal(matches.length, 2, `the measured points: ${matches}`);
    assert.match(matches[1], /^after 10 games \(aggressive, 300 nodes\): \d+-\d+-\d+, /);
    await screenshot(page, '25-bayesian-learning-curve');
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

// The bot's page against `serve --bot` playing a fake Lichess (tests/bot/fake_lichess.py, Stockfish
// as the opponent): the game listed, its board drawn, the engine's thinking shown, the record after.
test('the bot page: a Lichess game watched live (serve --bot, fake Lichess)', async ({ page: newPage }) => {
  const token = `lip_e2e${Math.random().toString(36).slice(2, 14)}`;
  const dir = mkdtempSync(join(tmpdir(), 'feelfish-e2e-bot-'));
  const fake = spawn('python3', ['-u', join(ROOT, 'tests/bot/fake_lichess.py'), '--port', '0', '--token', token], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let server = null;
  try {
    const first = await new Promise((res, rej) => {
      const t = setTimeout(() => rej(new Error('the fake Lichess did not start in 15 s')), 15000);
      createInterface({ input: fake.stdout }).on('line', (l) => {
        const m = /^fake lichess on (\S+)/.exec(l);
        if (m) {
          clearTimeout(t);
          res(m[1]);
        }
      });
    });
    const config = readFileSync(join(ROOT, 'tests/bot/lichess-bot.config.yml.default'), 'utf8')
      .replace(/^token: .*$/m, `token: "${token}"`)
      .replace(/^url: .*$/m, `url: "${first}"`) + '\nfeelfish:\n  movetime: 1500\n  mode: affective\n';
    const cfgPath = join(dir, 'config.yml');
    writeFileSync(cfgPath, config);
    server = await new Server({ args: ['--bot', cfgPath] }).start();
    const challenge = await fetch(`${first}fake/challenge`, {
      method: 'POST',
      body: JSON.stringify({ clock: [300, 0], bot_color: 'white', game: { movetime: 200, max_plies: 16 } }),
    });
    assert.equal(challenge.status, 200);
    const page = await newPage();
    await page.goto(`${server.url}bot.html`);
    await page.waitForSelector('#conn[data-state="open"]');
    await page.waitForFunction(() => /connected to/.test(document.querySelector('#bot-account').textContent));
    assert.match(await page.locator('#bot-account').textContent(), /FeelBot · connected to .* · affective mode/);
    await page.waitForSelector('#bot-games button[aria-pressed="true"]', { timeout: 20000 });
    // its stream may still be opening ("connecting", no opponent yet): the next poll has the game
    await page.waitForFunction(() => /^vs Opp · white · \d+ plies · started$/.test(document.querySelector('#bot-games button[aria-pressed="true"]').textContent), null, { timeout: 20000 });
    // The board follows the game, and the engine's thinking arrives over the WebSocket.
    await page.waitForFunction(() => document.querySelectorAll('#board piece').length >= 30);
    await page.waitForFunction(() => /depth \d+ · [+-]\d/.test(document.querySelector('#bot-thinking').textContent), null, { timeout: 20000 });
    await page.waitForFunction(() => /^vs Opp · white · ([4-9]|1\d) plies/.test(document.querySelector('#bot-games button').textContent), null, { timeout: 20000 });
    await screenshot(page, '30-bot-page');
    // The game ends (adjudicated at 16 plies): the list empties and the record counts it.
    await page.waitForFunction(() => /drawn 1/.test(document.querySelector('#bot-record').textContent), null, { timeout: 60000 });
    assert.match(await page.locator('#bot-games').textContent(), /No game now/);
    await screenshot(page, '31-bot-page-after');
  } finally {
    if (server) await server.stop();
    fake.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
    if (server) server.cleanup();
  }
});

// Analyse a game (review.html): a master game pasted; the progress bar advances; the Win% graph is
// drawn with the judged moves marked; a click on the graph moves the board; a judged move shows
// its comment and better line; accuracy per player.
test('analyse a game: progress, the eval graph, click to jump, judgements', async ({ page: newPage, server }) => {
  const games = readFileSync(join(process.env.FEELFISH_DATA || join(ROOT, '..', 'shared', 'data'), 'pgn', 'Kasparov.pgn'), 'utf8').split(/\n(?=\[Event )/);
  const pgn = games[0];
  const page = await newPage();
  await page.goto(`${server.url}review.html`);
  await page.waitForSelector('#conn[data-state="open"]');
  await page.fill('#review-pgn', pgn);
  await page.selectOption('#review-nodes', '100000');
  await page.click('#review-go');
  await page.waitForSelector('#review-progress:not([hidden])');
  await page.waitForFunction(() => Number(document.querySelector('#review-progress').dataset.done) > 0, null, { timeout: 30000 });
  await screenshot(page, '40-review-progress');
  await page.waitForFunction(() => document.body.dataset.review === 'done', null, { timeout: 120000 });
  const marks = await page.$$eval('#review-graph .graph-mark', (els) => els.length);
  assert.ok(marks > 0, 'the graph marks the judged moves');
  assert.equal(await page.$$eval('#review-graph polygon', (els) => els.length), 1);
  const acc = await page.$$eval('#review-players td.accuracy', (els) => els.map((e) => e.textContent));
  assert.equal(acc.length, 2);
  for (const a of acc) assert.match(a, /^\d+%$/);
  // A click in the graph's middle moves the board to that ply.
  const before = await page.$$eval('#board piece', (els) => els.map((e) => e.className + e.style.transform).join());
  const box = await page.locator('#review-graph').boundingBox();
  await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.waitForFunction(() => document.querySelector('#review-moves .rmove.active'));
  const ply = Number(await page.locator('#review-moves .rmove.active').getAttribute('data-ply'));
  assert.ok(ply > 30 && ply < 55, `the click at mid-graph chose ply ${ply}`);
  await sleep(300);
  const after = await page.$$eval('#board piece', (els) => els.map((e) => e.className + e.style.transform).join());
  assert.notEqual(after, before, 'the board moved');
  // A judged move: its comment and the better line.
  await page.click('#review-moves .rmove.inaccuracy, #review-moves .rmove.mistake, #review-moves .rmove.blunder');
  await page.waitForFunction(() => /was best\./.test(document.querySelector('#review-comment').textContent));
  assert.match(await page.locator('#review-comment').textContent(), /(Inaccuracy|Mistake|Blunder|Checkmate is now unavoidable|Lost forced checkmate sequence)\. \S+ was best\.Best line: /);
  await screenshot(page, '41-review-done');
  // A game from a FEN with Black to move: its move numbers as the FEN says ("1...", then "2.").
  await page.fill('#review-pgn', '[SetUp "1"]\n[FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"]\n\n1... e5 2. Nf3 Nc6 *');
  await page.click('#review-go');
  await page.waitForFunction(() => document.body.dataset.review === 'done' && document.querySelectorAll('#review-moves .rmove').length === 3, null, { timeout: 60000 });
  assert.deepEqual(await page.$$eval('#review-moves .rnum', (els) => els.map((e) => e.textContent)), ['1...', '2.']);
});

// The search lab panel: the six algorithms on the position shown agree on the value.
test('the search lab panel compares the six algorithms', async ({ page: newPage, server }) => {
  const page = await newPage();
  await openPage(page, server);
  await page.selectOption('#lab-depth', '3');
  await page.click('#lab-run');
  await page.waitForFunction(() => document.querySelectorAll('#lab-table tr[data-algorithm]').length === 6);
  const rows = await page.$$eval('#lab-table tr[data-algorithm]', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), ['minimax', 'alphabeta', 'scout', 'negascout', 'sss', 'mtdf']);
  assert.equal(new Set(rows.map((r) => r[1])).size, 1, `one value: ${JSON.stringify(rows)}`);
  const nodes = rows.map((r) => Number(r[3].replace(/,/g, '')));
  assert.ok(nodes.slice(1).every((n) => nodes[0] > n), `minimax does the most work: ${nodes}`);
  await screenshot(page, '50-search-lab');
});

test('the API reference page (api docs) renders every route of the contract, offline and within the CSP', async ({ page: newPage, server }) => {
  const page = await newPage();
  const outside = [];
  page.on('request', (req) => {
    if (!req.url().startsWith(server.url) && !req.url().startsWith('data:')) outside.push(req.url());
  });
  const res = await page.goto(`${server.url}api/docs`);
  assert.equal(res.status(), 200);
  assert.match(res.headers()['content-security-policy'] || '', /script-src 'self'/);
  const spec = (await server.api('GET', '/api/openapi.json')).json;
  const summaries = Object.values(spec.paths).flatMap((item) => Object.values(item).map((op) => op.summary));
  // RapiDoc renders each operation with its summary (in its shadow DOM, which Playwright's text selectors pierce).
  await page.locator('rapi-doc').getByText(summaries[0], { exact: true }).first().waitFor();
  const missing = [];
  for (const s of summaries) {
    try {
      await page.locator('rapi-doc').getByText(s, { exact: true }).first().waitFor({ timeout: 10000 });
    } catch {
      missing.push(s);
    }
  }
  assert.deepEqual(missing, [], `operations the page does not show: ${missing.join('; ')}`);
  await page.locator('rapi-doc').getByText('Analyse one position and answer when done', { exact: true }).first().scrollIntoViewIfNeeded();
  await screenshot(page, '60-api-docs');
  assert.deepEqual(outside, [], `the page loaded something from elsewhere: ${outside.join(' ')}`);
  // A CSP violation is a console error ("Refused to load ..."): the runner fails the test on any.
});

await run();
