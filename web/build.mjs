// Builds the page into web/dist: one minified JS bundle (the app with chessground and chessops),
// one CSS bundle (the page's style with chessground's board and piece assets, which embed their
// images as data URIs), index.html with content-hashed references, docs.html (the API reference,
// RapiDoc's bundle) and the files of public/.
// `node build.mjs --watch` rebuilds on change (for development; the server loads dist at start).
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  minify: !watch,
  sourcemap: watch ? 'inline' : false,
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  logLevel: 'warning',
  legalComments: 'none',
};

function writeIndex() {
  const hash = (f) => createHash('sha256').update(readFileSync(join(dist, f))).digest('hex').slice(0, 10);
  for (const [page, script] of [['index.html', 'app.js'], ['bot.html', 'bot.js'], ['review.html', 'review.js']]) {
    const html = readFileSync(join(here, page), 'utf8')
      .replace('href="app.css"', `href="app.css?v=${hash('app.css')}"`)
      .replace(`src="${script}"`, `src="${script}?v=${hash(script)}"`);
    writeFileSync(join(dist, page), html);
  }
  // The API reference page (served at /api/docs): RapiDoc's own minified bundle, as npm ships it.
  cpSync(join(here, 'node_modules/rapidoc/dist/rapidoc-min.js'), join(dist, 'docs.js'));
  cpSync(join(here, 'node_modules/rapidoc/dist/rapidoc-min.js.LICENSE.txt'), join(dist, 'rapidoc-min.js.LICENSE.txt')); // the notices its first line names
  const docs = readFileSync(join(here, 'docs.html'), 'utf8').replace('src="/docs.js"', `src="/docs.js?v=${hash('docs.js')}"`);
  writeFileSync(join(dist, 'docs.html'), docs);
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
if (existsSync(join(here, 'public'))) cpSync(join(here, 'public'), dist, { recursive: true });

const js = { ...common, entryPoints: [join(here, 'src/main.js')], outfile: join(dist, 'app.js'), format: 'iife' };
const botJs = { ...common, entryPoints: [join(here, 'src/bot.js')], outfile: join(dist, 'bot.js'), format: 'iife' };
const reviewJs = { ...common, entryPoints: [join(here, 'src/review.js')], outfile: join(dist, 'review.js'), format: 'iife' };
const css = { ...common, entryPoints: [join(here, 'style.css')], outfile: join(dist, 'app.css'), loader: { '.svg': 'dataurl' } };

if (watch) {
  const ready = () => ['app.js', 'bot.js', 'review.js', 'app.css'].every((f) => existsSync(join(dist, f)));
  const done = { name: 'index', setup: (b) => b.onEnd(() => ready() && writeIndex()) };
  const contexts = await Promise.all([js, botJs, reviewJs, css].map((o) => esbuild.context({ ...o, plugins: [done] })));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('watching web/ (rebuilds web/dist; restart feelfish serve to load it)');
} else {
  await Promise.all([esbuild.build(js), esbuild.build(botJs), esbuild.build(reviewJs), esbuild.build(css)]);
  writeIndex();
  console.log('web/dist built');
}
