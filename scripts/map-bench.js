#!/usr/bin/env node
// Bench of the result map on a large output: writes a SIZE×SIZE float32 GeoTIFF (default 20000),
// builds the map's overview as the notebook controller does after a run, then opens the real
// renderer bundle (dist/result-renderer.js) in Chromium with the real host side (MapData from out/)
// answering its messages, and measures the time to the first complete map and the renderer
// process's memory, also after zooming to full resolution and panning.
//   npm run build && npx webpack --config-name extension --config-name renderer && node scripts/map-bench.js [--size 20000] [--keep DIR]
// Prints a table and writes test-artifacts/map-bench.json.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');

const ROOT = path.resolve(__dirname, '..');
const argv = process.argv.slice(2);
const opt = (name, d) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : d; };
const SIZE = Number(opt('--size', 20000));
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CODE_SERVER_DIR = process.env.GEOWEAVE_CODE_SERVER_DIR || path.join(ROOT, '.e2e', 'code-server');

const out = (...p) => require(path.join(ROOT, 'out', ...p));

async function writeLarge(file, size) {
  const { GeoTiffWriter } = out('src', 'core', 'raster', 'io', 'writer.js');
  const w = await GeoTiffWriter.create(file, { width: size, height: size, bands: 1, dtype: 'float32', nodata: -9999, descriptions: ['ndvi'],
    geo: { epsg: 32650, geoTransform: [400000, 10, 0, 4500000, 0, -10], geographic: false } });
  w.zlevel = 1;
  for (let by = 0; by < w.tilesDown; by++) {
    for (let bx = 0; bx < w.tilesAcross; bx++) {
      const { w: bw, h: bh } = w.blockSize(bx, by);
      const z = new Float32Array(bw * bh);
      for (let j = 0; j < bh; j++) {
        const y = by * w.tile + j;
        for (let i = 0; i < bw; i++) {
          const x = bx * w.tile + i;
          z[j * bw + i] = 0.8 * Math.sin(x / 900) * Math.cos(y / 700) + 0.1 * Math.sin(x / 31 + y / 47);
        }
      }
      await w.writeBlock(bx, by, [z]);
    }
  }
  await w.finish();
}

/** Resident memory (kB) of the largest Chromium renderer process: the page's, once the map is open. */
function rendererRssKb(browserPid) {
  let total = 0;
  for (const d of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (!cmd.includes('--type=renderer')) continue;
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== browserPid && !fs.readFileSync(`/proc/${ppid}/cmdline`, 'utf8').includes('chrom')) continue;
      total = Math.max(total, Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${d}/status`, 'utf8'))?.[1] ?? 0));
    } catch { /* gone */ }
  }
  return total;
}

async function main() {
  const dir = opt('--keep') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-map-bench-'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `large_${SIZE}.tif`);
  const rows = [];
  if (!fs.existsSync(file)) {
    const t0 = Date.now();
    await writeLarge(file, SIZE);
    rows.push(['write the test output', `${SIZE}×${SIZE} float32, ${Math.round(fs.statSync(file).size / 1048576)} MB`, `${((Date.now() - t0) / 1000).toFixed(1)} s`]);
  }
  const { MapData } = out('src', 'core', 'results', 'map-data.js');
  const cacheDir = path.join(dir, 'overviews');
  fs.rmSync(cacheDir, { recursive: true, force: true });
  const data = new MapData({ roots: () => [dir], cacheDir });
  let t0 = Date.now();
  await data.prepare(file);
  const prepMs = Date.now() - t0;
  const ovBytes = fs.readdirSync(cacheDir).reduce((s, f) => s + fs.statSync(path.join(cacheDir, f)).size, 0);
  rows.push(['overview built after the run (once)', `${Math.round(ovBytes / 1048576)} MB on disk`, `${(prepMs / 1000).toFixed(2)} s`]);

  // The host side, fresh (as after a window reload): overview read from the cache folder.
  const host = new MapData({ roots: () => [dir], cacheDir });
  const { encodeFloats } = out('src', 'core', 'results', 'map-data.js');
  let tiles = 0, tileMs = 0, describeMs = 0;
  const answer = async (m) => {
    try {
      switch (m.type) {
        case 'describe': { const s = Date.now(); const layers = await Promise.all(m.layers.map((l) => host.describe(l))); describeMs += Date.now() - s; return { type: 'describe', id: m.id, layers, vectors: [] }; }
        case 'tile': { const s = Date.now(); const b = await host.tile(m.layer, m.z, m.x, m.y); tiles++; tileMs += Date.now() - s; return { type: 'tile', id: m.id, width: 256, height: 256, bands: b.map(encodeFloats) }; }
        case 'pixel': return { type: 'pixel', id: m.id, values: await Promise.all(m.probes.map((p) => host.pixel(p.layer, p.col, p.row))) };
        default: return { type: 'error', id: m.id, message: 'unsupported' };
      }
    } catch (e) { return { type: 'error', id: m.id, message: e.message }; }
  };

  const bundle = fs.readFileSync(path.join(ROOT, 'dist', 'result-renderer.js'));
  const server = http.createServer((req, res) => {
    if (req.url === '/result-renderer.js') { res.writeHead(200, { 'content-type': 'text/javascript' }); res.end(bundle); return; }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><body style="margin:0;--vscode-foreground:#333;--vscode-editor-background:#fff"><div id="out" style="width:1000px"></div></body></html>');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const { chromium } = require(require.resolve('playwright-core', { paths: [ROOT, CODE_SERVER_DIR] }));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  const browserPid = browser.process ? browser.process().pid : undefined;
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    await page.exposeFunction('__geoweaveHost', answer);
    await page.goto(base);
    const idle = rendererRssKb(browserPid);
    const view = {
      view: 'result', version: 1, tool: 'ndvi', summary: `a ${SIZE}×${SIZE} output`, keyStats: [], tables: [], outputs: [{ name: 'index', path: file, type: 'raster' }], args: '', raw: {},
      map: { layers: [{ id: 'out:index', name: 'index', path: file, role: 'output', kind: 'index', bands: [1], range: [-1, 1], visible: true }], vectors: [] },
    };
    t0 = Date.now();
    const openMs = await page.evaluate(async (v) => {
      const mod = await import('/result-renderer.js');
      const listeners = [];
      const ctx = {
        postMessage: (m) => { window.__geoweaveHost(m).then((r) => listeners.forEach((l) => l(r))); },
        onDidReceiveMessage: (l) => { listeners.push(l); return { dispose() {} }; },
      };
      const r = mod.activate(ctx);
      const start = performance.now();
      r.renderOutputItem({ id: 'bench', json: () => v }, document.getElementById('out'));
      await new Promise((resolve, reject) => {
        const t = setInterval(() => { const m = document.querySelector('.gw-map'); if (m && m.dataset.rendered) { clearInterval(t); resolve(); } }, 10);
        setTimeout(() => { clearInterval(t); reject(new Error('no map after 60 s')); }, 60000);
      });
      return performance.now() - start;
    }, view);
    const opened = rendererRssKb(browserPid);
    rows.push(['map opens (first complete render)', `host: describe ${describeMs} ms, ${tiles} tiles ${tileMs} ms`, `${(openMs / 1000).toFixed(2)} s`]);
    await page.screenshot({ path: path.join(ROOT, 'test-artifacts', 'map-bench.png') }).catch(() => undefined);
    // Zoom to full resolution and pan about: tiles of the file itself.
    const box = await page.$eval('.gw-map', (e) => { const b = e.getBoundingClientRect(); return { x: b.left + b.width / 2, y: b.top + b.height / 2 }; });
    tiles = 0; tileMs = 0;
    t0 = Date.now();
    await page.mouse.move(box.x, box.y);
    for (let i = 0; i < 14; i++) { await page.mouse.wheel(0, -300); await page.waitForTimeout(120); }
    for (let i = 0; i < 6; i++) { await page.mouse.move(box.x, box.y); await page.mouse.down(); await page.mouse.move(box.x - 150, box.y - 80, { steps: 5 }); await page.mouse.up(); await page.waitForTimeout(150); }
    const before = await page.$eval('.gw-map', (e) => e.dataset.rendered);
    await page.waitForFunction((b) => document.querySelector('.gw-map').dataset.rendered !== b, before, { timeout: 60000 }).catch(() => undefined);
    await page.waitForTimeout(1500);
    const res = await page.$eval('.gw-map', (e) => Number(e.dataset.resolution));
    const zoomed = rendererRssKb(browserPid);
    rows.push(['zoomed to full resolution and panned', `${tiles} tiles, host ${tileMs} ms (${(tileMs / Math.max(1, tiles)).toFixed(0)} ms/tile); view at ${res.toFixed(2)} m/px`, `${((Date.now() - t0) / 1000).toFixed(1)} s`]);
    rows.push(['page renderer process (RSS)', `blank page ${Math.round(idle / 1024)} MB → map open ${Math.round(opened / 1024)} MB → after zoom/pan ${Math.round(zoomed / 1024)} MB`, '']);
    const heap = await page.evaluate(() => (performance.memory ? Math.round(performance.memory.usedJSHeapSize / 1048576) : null));
    if (heap !== null) rows.push(['JS heap after zoom/pan', `${heap} MB`, '']);
    const result = { size: SIZE, rows, openMs: Math.round(openMs), prepareMs: prepMs, rssMb: { idle: Math.round(idle / 1024), opened: Math.round(opened / 1024), zoomed: Math.round(zoomed / 1024) }, heapMb: heap };
    fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'test-artifacts', 'map-bench.json'), JSON.stringify(result, null, 2) + '\n');
    console.log('| step | what | time |\n|---|---|---|');
    for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  } finally {
    await browser.close();
    server.close();
    await host.dispose();
    await data.dispose();
    if (!opt('--keep')) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e.stack ?? e.message); process.exitCode = 1; });
