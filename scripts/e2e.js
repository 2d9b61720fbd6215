#!/usr/bin/env node
// End-to-end test of the packaged extension in a real VS Code (code-server 4.99.4 = VS Code 1.99.3)
// driven through Debian Chromium with playwright-core. Scenario and assertions: see STEPS below; then
// the scenario files of test/e2e/scenarios/ (test/e2e/run.js) in a second session.
//   npm run test:e2e                 build, package, install the vsix, run the scenario
//   node scripts/e2e.js --no-package reuse an existing geoweave.vsix
//   GEOWEAVE_E2E_ONLY=regex          run only the checks whose names match (development; later checks
//                                    depend on earlier ones, so keep those they need)
// Screenshots go to test-artifacts/e2e/. Prints "N passed, N failed"; exits 1 on any failure.
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const http = require('http');
const net = require('net');
const os = require('os');
const path = require('path');
const { findToolResults, statusToolCount, problemsText } = require('../test/e2e/support');

const ROOT = path.resolve(__dirname, '..');
const CODE_SERVER_DIR = process.env.GEOWEAVE_CODE_SERVER_DIR || path.join(ROOT, '.e2e', 'code-server');
const CODE_SERVER = path.join(CODE_SERVER_DIR, 'node_modules', '.bin', 'code-server');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'e2e');
const VSIX = path.join(ROOT, 'geoweave.vsix');
const TASK = 'Assess vegetation health in the Sentinel-2 scene';
const MISSING = 'missing_scene.tif';
// A DEM big enough that slope runs for several seconds, to stop it midway.
const BIG_DEM = 'big/dem_large.tif';
const BIG_SIZE = 8000;
const args = new Set(process.argv.slice(2));
const ONLY = process.env.GEOWEAVE_E2E_ONLY ? new RegExp(process.env.GEOWEAVE_E2E_ONLY, 'i') : undefined;
// A workspace tool manifest written through "GeoWeave: New Tool Manifest", then broken and fixed.
const MANIFEST_ID = 'canal_width';

const results = [];
let shot = 0;

function log(msg) {
  process.stdout.write(`[e2e ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

function run(cmd, argv, opts = {}) {
  log(`$ ${cmd} ${argv.join(' ')}`);
  const r = spawnSync(cmd, argv, { cwd: ROOT, stdio: opts.quiet ? 'pipe' : 'inherit', encoding: 'utf8', timeout: opts.timeout ?? 600000, env: { ...process.env, ...opts.env } });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`${cmd} ${argv.join(' ')} exited with ${r.status}${r.stderr ? `: ${r.stderr.slice(-2000)}` : ''}`);
  return r;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function httpOk(url) {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => { res.resume(); resolve(res.statusCode !== undefined && res.statusCode < 500); });
    req.on('error', () => resolve(false));
    req.setTimeout(2000, () => { req.destroy(); resolve(false); });
  });
}

async function until(what, fn, timeoutMs = 60000, everyMs = 500) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
}


function prepare() {
  if (!fs.existsSync(CODE_SERVER)) {
    log(`code-server not found at ${CODE_SERVER}: installing it with scripts/install-code-server.sh`);
    run('bash', [path.join(ROOT, 'scripts', 'install-code-server.sh'), CODE_SERVER_DIR], { timeout: 900000 });
  }
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}; run scripts/install-code-server.sh (it installs Debian's chromium)`);
  // tsc emits even when some file has type errors; the CLI (sample writer) runs from out/.
  run('npx', ['tsc', '-p', '.'], { allowFail: true, quiet: true });
  if (!args.has('--no-package') || !fs.existsSync(VSIX)) run('npm', ['run', 'package', '--silent']);
  if (!fs.existsSync(VSIX)) throw new Error('npm run package did not produce geoweave.vsix');
}

async function main() {
  fs.rmSync(ARTIFACTS, { recursive: true, force: true });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  prepare();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-e2e-'));
  const extDir = path.join(tmp, 'extensions');
  const userDir = path.join(tmp, 'user');
  const ws = path.join(tmp, 'workspace');
  // The sample writer behind `geoweave sample DIR`, called directly (compiled to out/ by tsc above).
  const { writeSampleWorkspace } = require(path.join(ROOT, 'out', 'src', 'core', 'raster', 'sample', 'generate.js'));
  const sample = await writeSampleWorkspace(ws);
  log(`sample workspace: ${sample.files.map((f) => path.basename(f)).join(', ')}`);
  await writeBigDem(path.join(ws, BIG_DEM), BIG_SIZE);
  // The tiny ONNX feature-extraction model the unit tests use, for the transformers embedder.
  const { buildTinyModel } = require(path.join(ROOT, 'out', 'test', 'helpers', 'tiny-model.js'));
  const tinyModel = buildTinyModel(path.join(tmp, 'models'));
  run(CODE_SERVER, ['--install-extension', VSIX, '--extensions-dir', extDir, '--user-data-dir', userDir], { quiet: true });
  const installed = fs.readdirSync(extDir).filter((d) => d.startsWith('geoweave.geoweave-'));
  if (!installed.length) throw new Error(`the vsix did not install into ${extDir}`);
  fs.mkdirSync(path.join(userDir, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userDir, 'User', 'settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'workbench.tips.enabled': false,
    'security.workspace.trust.enabled': false,
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'telemetry.telemetryLevel': 'off',
    'editor.quickSuggestions': { other: false, comments: false, strings: false },
    'editor.suggestOnTriggerCharacters': false,
    'editor.acceptSuggestionOnEnter': 'off',
    // Text typed into editors (insertText runs through the type handlers) stays as typed.
    'editor.autoClosingBrackets': 'never',
    'editor.autoClosingQuotes': 'never',
    'editor.autoSurround': 'never',
    'notebook.output.scrolling': false,
  }, null, 2));

  const port = await freePort();
  const serverLog = fs.openSync(path.join(ARTIFACTS, 'code-server.log'), 'w');
  // cwd outside the repository: nothing the extension loads may resolve from the repo's node_modules.
  const server = spawn(CODE_SERVER, ['--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
    '--disable-workspace-trust', '--extensions-dir', extDir, '--user-data-dir', userDir, ws], { cwd: tmp, stdio: ['ignore', serverLog, serverLog], detached: true });
  log(`code-server pid ${server.pid} on port ${port}, workspace ${ws}`);
  let browser;
  try {
    await until('code-server to answer', () => httpOk(`http://127.0.0.1:${port}/healthz`), 60000);
    const { chromium } = require(require.resolve('playwright-core', { paths: [ROOT, CODE_SERVER_DIR] }));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    page.setDefaultTimeout(30000);
    await scenario(page, { port, ws, userDir, tmp, tinyModel, serverPid: server.pid, extDir });
  } finally {
    if (browser) await browser.close().catch(() => undefined);
    try {
      process.kill(-server.pid, 'SIGTERM'); // the process group of the server we started
    } catch {
      try { server.kill('SIGTERM'); } catch { /* already gone */ }
    }
    fs.closeSync(serverLog);
    if (!args.has('--keep')) fs.rmSync(tmp, { recursive: true, force: true });
  }
  // The scenario files under test/e2e/scenarios/, in their own session and workspace.
  const { runScenarioFiles } = require(path.join(ROOT, 'test', 'e2e', 'run.js'));
  results.push(...await runScenarioFiles({ vsix: VSIX, codeServer: CODE_SERVER, chromium: CHROMIUM, artifacts: ARTIFACTS, keep: args.has('--keep'), only: ONLY }));
}

/** A smooth float32 DEM of size×size written with GeoWeave's own GeoTIFF writer (compiled to out/). */
async function writeBigDem(file, size) {
  const t0 = Date.now();
  const { GeoTiffWriter } = require(path.join(ROOT, 'out', 'src', 'core', 'raster', 'io', 'writer.js'));
  const w = await GeoTiffWriter.create(file, { width: size, height: size, bands: 1, dtype: 'float32', nodata: -9999, descriptions: ['elevation'],
    geo: { epsg: 32650, geoTransform: [400000, 10, 0, 3500000, 0, -10], geographic: false } });
  w.zlevel = 1; // fast to write; the test is about run time, not file size
  for (let by = 0; by < w.tilesDown; by++) {
    for (let bx = 0; bx < w.tilesAcross; bx++) {
      const { w: bw, h: bh } = w.blockSize(bx, by);
      const z = new Float32Array(bw * bh);
      for (let j = 0; j < bh; j++) {
        const y = by * w.tile + j;
        for (let i = 0; i < bw; i++) {
          const x = bx * w.tile + i;
          z[j * bw + i] = 500 + 300 * Math.sin(x / 400) * Math.cos(y / 350) + 40 * Math.sin(x / 37 + y / 53);
        }
      }
      await w.writeBlock(bx, by, [z]);
    }
  }
  await w.finish();
  log(`${path.relative(path.dirname(path.dirname(file)), file)}: ${size}x${size} float32, ${Math.round(fs.statSync(file).size / 1048576)} MB in ${Date.now() - t0} ms`);
}

async function screenshot(page, name) {
  const file = path.join(ARTIFACTS, `${String(++shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file }).catch((e) => log(`screenshot ${name} failed: ${e.message}`));
  return file;
}

/** Runs one step: a pass/fail with a screenshot either way. Later steps depend on earlier ones. */
async function step(page, name, fn) {
  if (ONLY && !ONLY.test(name)) {
    log(`SKIP ${name}`);
    return true;
  }
  const t0 = Date.now();
  try {
    const detail = await fn();
    results.push({ name, ok: true });
    log(`PASS ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${detail ? `: ${detail}` : ''}`);
    await screenshot(page, name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
    return true;
  } catch (e) {
    results.push({ name, ok: false, error: e.message });
    log(`FAIL ${name}: ${e.message}`);
    await screenshot(page, 'FAILED-' + name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
    return false;
  }
}

/** The first element matching `selector` in any frame (webviews are nested iframes). */
async function inFrames(page, selector) {
  for (const frame of page.frames()) {
    const el = await frame.$(selector).catch(() => null);
    if (el) return { frame, el };
  }
  return undefined;
}

/**
 * GeoWeave: Insert Tool Cell, then the tool `id` in its quick pick. Waits for the pick to open and
 * for `id` to be its first row before Enter: under load the pick can take seconds to open, and a
 * fixed wait let the typed id go nowhere and Enter take the unfiltered first row (another tool).
 */
async function insertToolCell(page, id) {
  await palette(page, 'GeoWeave: Insert Tool Cell');
  await until('the Insert Tool Cell quick pick', async () => /Insert a tool cell/.test(await page.$eval('.quick-input-widget .quick-input-title', (el) => el.textContent).catch(() => '')) || null, 30000);
  const input = '.quick-input-widget .quick-input-box input';
  await page.waitForSelector(input, { state: 'visible', timeout: 15000 });
  await page.fill(input, id);
  await until(`"${id}" first in the quick pick`, async () => {
    const first = await page.$eval('.quick-input-widget .quick-input-list .monaco-list-row[data-index="0"] .label-name', (el) => el.textContent.trim()).catch(() => '');
    return first === id || null;
  }, 15000, 100);
  await page.keyboard.press('Enter');
}

async function palette(page, text, { exact = false } = {}) {
  // The key can land in a webview or an editor that keeps it (under load more often): try again,
  // then with F1, the palette's other binding.
  const input = '.quick-input-widget .quick-input-box input';
  let open = false;
  for (const key of ['Control+Shift+P', 'Control+Shift+P', 'F1', 'F1']) {
    await page.keyboard.press(key);
    open = await page.waitForSelector(input, { state: 'visible', timeout: 5000 }).then(() => true, () => false);
    if (open) break;
    await page.keyboard.press('Escape');
  }
  if (!open) await page.waitForSelector(input, { state: 'visible', timeout: 5000 });
  await page.keyboard.type(text, { delay: 10 });
  await page.waitForTimeout(700);
  // `exact`: the entry whose label is exactly the text. Never-used commands sort alphabetically, so
  // "File: Save" may otherwise pick "File: Compare Active File with Saved".
  for (const row of exact ? await page.$$('.quick-input-widget .quick-input-list .monaco-list-row') : []) {
    if ((await row.$eval('.label-name', (el) => el.textContent.trim()).catch(() => '')) === text && await row.isVisible()) {
      // Rows re-render while the list settles; a row that went away falls back to Enter.
      if (await row.click({ timeout: 3000 }).then(() => true, () => false)) return;
      break;
    }
  }
  await page.keyboard.press('Enter');
}

async function panelFrame(page) {
  return (await until('the GeoWeave panel (#task) in a webview', () => inFrames(page, '#task'), 60000)).frame;
}

/** Text of all frames that are notebook output webviews, shadow roots included (the markdown
 *  renderer draws into one). */
async function outputTexts(page) {
  const texts = [];
  for (const frame of page.frames()) {
    const t = await frame.evaluate(() => {
      const root = document.querySelector('#container');
      if (!root) return '';
      const parts = [];
      const walk = (node) => {
        if (node.nodeType === Node.TEXT_NODE) parts.push(node.textContent);
        if (node.nodeType === Node.ELEMENT_NODE && /^(P|DIV|TR|LI|H[1-6]|PRE|BR)$/.test(node.tagName)) parts.push('\n');
        if (node.nodeType === Node.ELEMENT_NODE && /^(TD|TH)$/.test(node.tagName)) parts.push(' ');
        if (node.shadowRoot) node.shadowRoot.childNodes.forEach(walk);
        node.childNodes.forEach(walk);
      };
      walk(root);
      return parts.join('').replace(/\n{2,}/g, '\n');
    }).catch(() => '');
    if (t) texts.push(t);
  }
  return texts.join('\n');
}

/** Scrolls the notebook in small wheel steps until the element `pick` returns (a rect inside the
 *  output frame) is in view, so screenshots show it. Best effort: screenshots only. */
async function revealOutput(page, frame, pick) {
  const list = await page.$eval('.notebook-editor .cell-list-container', (el) => {
    const b = el.getBoundingClientRect();
    return { x: b.left + 20, top: b.top, bottom: b.bottom };
  }).catch(() => null);
  if (!list) return;
  await page.mouse.move(list.x, (list.top + list.bottom) / 2);
  for (let i = 0; i < 80; i++) {
    const box = await (await frame.frameElement()).boundingBox().catch(() => null);
    const r = await frame.evaluate(pick).catch(() => null);
    if (!box || !r) return;
    const top = box.y + r.top;
    const bottom = box.y + r.bottom;
    if (top < list.top) await page.mouse.wheel(0, -150);
    else if (bottom > list.bottom && top > list.top + 80) await page.mouse.wheel(0, 150);
    else return;
    await page.waitForTimeout(60);
  }
}

/** Hides the bottom panel (Problems, from the IntelliSense step) to give the notebook room. */
async function hideBottomPanel(page) {
  if (!(await page.$('.part.panel.bottom:not(.hidden) .composite.title'))) return;
  await palette(page, 'View: Hide Panel');
  await page.waitForTimeout(800);
}

/** The GeoWeave log channel's file(s) under code-server's logs folder, concatenated. */
function extensionLog(userDir) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name === 'GeoWeave.log') found.push(path.join(d, e.name));
    }
  };
  try { walk(path.join(userDir, 'logs')); } catch { /* no logs yet */ }
  // Oldest first (one file per extension-host start), so the last matching line is the latest.
  found.sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs);
  return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

/** Files matching `re` mapped into `root` or its descendants (Linux /proc), as "pid path" lines. */
function processesMapping(root, re) {
  const children = new Map();
  for (const d of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch { /* exited */ }
  }
  const hits = new Set();
  const todo = [root];
  while (todo.length) {
    const pid = todo.pop();
    todo.push(...(children.get(pid) ?? []));
    try {
      for (const line of fs.readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
        const file = line.slice(line.indexOf('/'));
        if (line.includes('/') && re.test(file)) hits.add(`${pid} ${file}`);
      }
    } catch { /* exited or not ours */ }
  }
  return [...hits];
}

/** The notebook cell row whose editor text matches `re` (the last one when several do). Rows are
 *  virtualized and re-rendered, so look them up again instead of keeping handles. */
async function cellRow(page, re) {
  let found = null;
  for (const row of await page.$$('.notebook-editor .monaco-list-row.code-cell-row')) {
    const t = (await row.$eval('.monaco-editor .view-lines', (el) => el.innerText).catch(() => '')).replace(/\u00a0/g, ' ');
    if (re.test(t)) found = row;
  }
  return found;
}

/** `cellRow`, scrolling the notebook down and then up until the row is rendered (rows far from the
 *  view are virtualized, and result maps make the notebook tall). */
async function findRow(page, re, timeoutMs = 30000) {
  let dir = 300, moved = 0;
  return until(`the cell ${re}`, async () => {
    const row = await cellRow(page, re);
    if (row) return row;
    const list = await page.$eval('.notebook-editor .cell-list-container', (el) => { const b = el.getBoundingClientRect(); return { x: b.left + 12, y: (b.top + b.bottom) / 2 }; }).catch(() => null);
    if (list) {
      await page.mouse.move(list.x, list.y);
      await page.mouse.wheel(0, dir);
      if (++moved === 15) dir = -dir;
    }
    return null;
  }, timeoutMs, 400);
}

/** Replaces the whole text of the cell matching `re` by `text` (typed as a person would), checking
 *  that it took; a click that lands while the list re-lays out is tried again. */
async function replaceCellText(page, re, text) {
  const want = text.replace(/\s+/g, ' ').trim();
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await findRow(page, re);
    await (await row.$('.monaco-editor .view-lines')).click();
    await page.waitForTimeout(500);
    if (attempt === 0) await page.keyboard.press('Control+A');
    else {
      // Select from the end to the start instead (Ctrl+A did not reach the cell's editor).
      await page.keyboard.press('Control+End');
      await page.keyboard.press('Control+Shift+Home');
    }
    await page.waitForTimeout(200);
    await page.keyboard.insertText(text);
    await page.waitForTimeout(500);
    // Unanchored: a mangled attempt ("slopeslope as …") is found again by the line it should have.
    const first = new RegExp(text.split('\n')[0].replace(/[.*+?^${}()|[\]\\$]/g, '\\$&'));
    const now = await cellRow(page, first);
    const got = now ? (await now.$eval('.monaco-editor .view-lines', (el) => el.innerText).catch(() => '')).replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').trim() : '';
    if (got === want) return;
    re = first;
    log(`cell text is "${got}", not "${want}": typing it again`);
  }
  throw new Error(`could not replace the text of the cell with "${want}"`);
}

/** Execution state of the (last) cell whose text matches `re`, from its icons: running (spinner or
 *  stop button), ok, error, idle; null when no such cell is rendered. One round trip, so polling it
 *  measures the UI and not the test. */
async function cellState(page, re) {
  return page.evaluate((source) => {
    const match = new RegExp(source);
    let state = null;
    for (const row of document.querySelectorAll('.notebook-editor .monaco-list-row.code-cell-row')) {
      const text = (row.querySelector('.monaco-editor .view-lines')?.innerText ?? '').replace(/\u00a0/g, ' ');
      if (!match.test(text)) continue;
      if (row.querySelector('.codicon-notebook-state-executing, .codicon-notebook-stop, .codicon-notebook-state-pending')) state = 'running';
      else if (row.querySelector('.codicon-notebook-state-success')) state = 'ok';
      else if (row.querySelector('.codicon-notebook-state-error')) state = 'error';
      else state = 'idle';
    }
    return state;
  }, re.source).catch(() => null);
}

/** Number of cells in the notebook editor (its list rows carry aria-setsize), or null. */
async function cellCount(page) {
  const n = await page.$eval('.notebook-editor .monaco-list-row[aria-setsize]', (el) => Number(el.getAttribute('aria-setsize'))).catch(() => null);
  return Number.isFinite(n) ? n : null;
}

/** Text of the (rendered) notebook cell at 0-based `index`, or null when it is not rendered. */
async function cellTextAt(page, index) {
  return page.evaluate((i) => {
    const row = document.querySelector(`.notebook-editor .monaco-list-row[aria-posinset="${i + 1}"]`);
    return row ? (row.querySelector('.monaco-editor .view-lines')?.innerText ?? '').replace(/\\u00a0/g, ' ') : null;
  }, index).catch(() => null);
}



/** The extension's learned state (learned.json under its workspace storage), newest first found. */
function learnedState(userDir) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name === 'learned.json' && d.includes('geoweave')) found.push(path.join(d, e.name));
    }
  };
  try { walk(path.join(userDir, 'User', 'workspaceStorage')); } catch { /* none yet */ }
  found.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return found.length ? { file: found[0], state: JSON.parse(fs.readFileSync(found[0], 'utf8')) } : undefined;
}

/** The panel as the analyst sees it: task box, candidates, suggestions, workflow, timeline. */
function panelSnapshot(panel) {
  return panel.evaluate(() => ({
    task: document.getElementById('task').value,
    forward: [...document.querySelectorAll('#forward-list li.suggestion')].map((li) => li.getAttribute('data-tool')),
    complementary: [...document.querySelectorAll('#complementary li.suggestion')].map((li) => li.getAttribute('data-tool')),
    memory: [...document.querySelectorAll('#memory li.step')].map((li) => li.textContent),
  }));
}

async function scenario(page, { port, ws, userDir, tmp, tinyModel, serverPid, extDir }) {
  const workbench = await step(page, 'open the sample workspace', async () => {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await until('the explorer to list s2_scene.tif', async () => (await page.$$eval('.explorer-folders-view .monaco-list-row', (rows) => rows.map((r) => r.textContent))).some((t) => t.includes('s2_scene.tif')), 60000);
    await page.waitForTimeout(3000); // the palette needs the workbench to settle
    return 'explorer shows the sample files';
  });
  if (!workbench) return;

  let panel;
  const opened = await step(page, 'open the GeoWeave panel', async () => {
    await palette(page, 'View: Show GeoWeave');
    panel = await panelFrame(page);
    await panel.waitForSelector('#suggest');
    const placeholder = await panel.getAttribute('#task', 'placeholder');
    if (placeholder !== 'Describe your analysis task') throw new Error(`task box placeholder is "${placeholder}"`);
    return 'task box and Suggest button visible';
  });
  if (!opened) return;

  let top3 = [];
  const ranked = await step(page, 'forward candidates for a vegetation task show NDVI in the top three', async () => {
    await panel.fill('#task', TASK);
    await panel.click('#suggest');
    await panel.waitForSelector('#forward-list li.suggestion', { timeout: 120000 });
    top3 = await panel.$$eval('#forward-list li.suggestion', (lis) => lis.slice(0, 3).map((li) => li.getAttribute('data-tool')));
    if (!top3.includes('ndvi')) throw new Error(`top three are ${top3.join(', ')}`);
    const reason = await panel.textContent('#forward-list li[data-tool="ndvi"] .reason');
    const readiness = await panel.textContent('#forward-list li[data-tool="ndvi"] .ready, #forward-list li[data-tool="ndvi"] .missing');
    if (!reason || !reason.trim()) throw new Error('the NDVI candidate shows no reason');
    return `top three: ${top3.join(', ')}; reason "${reason.trim().slice(0, 80)}"; ${readiness.trim().slice(0, 80)}`;
  });
  if (!ranked) return;

  const ran = await step(page, 'insert and run NDVI: the map, the summary and the key statistics in the output', async () => {
    await panel.click('#forward-list li[data-tool="ndvi"] button.insert-run');
    await until('the notebook editor', () => page.$('.notebook-editor'), 60000);
    const map = await until('the interactive map in the cell output', async () => {
      for (const frame of page.frames()) {
        const ok = await frame.evaluate(() => {
          const m = document.querySelector('#container .gw-map[data-rendered]');
          return m ? `${Math.round(m.getBoundingClientRect().width)}x${Math.round(m.getBoundingClientRect().height)} px in ${m.dataset.projection}` : null;
        }).catch(() => null);
        if (ok) return ok;
      }
      return null;
    }, 180000, 1000);
    const text = await until('the summary and the key statistics', async () => {
      const t = await outputTexts(page);
      return /ndvi:/i.test(t) && /Mean/.test(t) && /Median/.test(t) ? t : null;
    }, 30000);
    const summary = text.split('\n').find((l) => /^ndvi:/i.test(l.trim())) ?? text.split('\n')[0];
    return `map ${map}; summary "${summary.trim().slice(0, 140)}"`;
  });
  if (!ran) return;

  let chosen;
  const suggested = await step(page, 'complementary suggestions appear with reasons', async () => {
    await until('complementary suggestions in the panel', () => panel.$('#complementary .group li.suggestion'), 120000);
    const groups = await panel.$$eval('#complementary .group', (gs) => gs.map((g) => ({
      rationale: g.getAttribute('data-rationale'),
      items: [...g.querySelectorAll('li.suggestion')].map((li) => ({ id: li.getAttribute('data-tool'), reason: li.querySelector('.reason')?.textContent ?? '', ready: !!li.querySelector('.ready'), args: li.querySelector('.ready')?.textContent ?? '', score: Number(li.querySelector('.score')?.textContent) })),
    })));
    const all = groups.flatMap((g) => g.items);
    if (all.some((s) => !s.reason.trim())) throw new Error('a suggestion has no reason');
    // Best group first; no long tail far below the best suggestion.
    const heads = groups.map((g) => g.items[0].score);
    if (heads.some((v, i) => i > 0 && v > heads[i - 1])) throw new Error(`groups are not ordered by their best score: ${heads.join(', ')}`);
    // The packaged extension found the shipped analyst practice: its learned graph does not start blank.
    const practice = /learned graph starts from (\d+) analyst flows \((\d+) transitions\) in (\S+)/.exec(extensionLog(userDir));
    if (!practice || Number(practice[1]) < 200 || !practice[3].startsWith(extDir)) throw new Error(`no analyst practice loaded from the installed extension: ${practice ? practice[0] : 'nothing in the log'}`);
    // A two-date tool never gets the same file as both dates (a file is listed both relative and absolute).
    for (const s of all) {
      const pair = /\b(?:before|pre)=([^,]+), (?:after|post)=([^,]+)/.exec(s.args);
      if (pair && pair[1].trim() === pair[2].trim()) throw new Error(`${s.id} is "ready" with one file as both dates: ${s.args}`);
    }
    const best = Math.max(...all.map((s) => s.score));
    if (all.some((s) => s.score < 0.3 * best - 1e-3)) throw new Error(`a suggestion scores under 30% of the best (${best}): ${all.map((s) => `${s.id} ${s.score}`).join(', ')}`);
    const valid = ['quantify', 'explain', 'verify', 'compare', 'extend'];
    if (groups.some((g) => !valid.includes(g.rationale))) throw new Error(`unexpected rationale in ${groups.map((g) => g.rationale).join(', ')}`);
    // Prefer a ready suggestion that needs nothing beyond data (no thresholds or class breaks to choose).
    const plain = ['zonal_stats', 'raster_stats', 'area_by_class', 'otsu_threshold', 'quicklook'];
    chosen = plain.map((id) => all.find((s) => s.id === id && s.ready)).find(Boolean) ?? all.find((s) => s.ready && s.id !== 'ndvi') ?? all[0];
    return groups.map((g) => `${g.rationale}: ${g.items.map((s) => s.id).join(', ')}`).join(' | ') + ` — e.g. "${all[0].reason.slice(0, 100)}"; prior: ${practice[1]} analyst flows, ${practice[2]} transitions`;
  });
  if (!suggested) return;
  // GEOWEAVE_E2E_ONLY skipped the step that picks the suggestion: the rest of the walkthrough builds on it.
  if (!chosen) { log('SKIP the rest of the walkthrough (it builds on the complementary suggestion step, filtered out)'); return; }

  const second = await step(page, `insert and run a complementary suggestion (${chosen.id})`, async () => {
    await panel.click(`#complementary li.suggestion[data-tool="${chosen.id}"] button.insert-run`);
    await until('two steps in the memory timeline', async () => (await panel.$$('#memory li.step')).length >= 2, 180000, 1000);
    const steps = await panel.$$eval('#memory li.step', (lis) => lis.map((li) => li.querySelector('code')?.textContent ?? ''));
    return `${chosen.args}; memory timeline: ${steps.join(' | ')}`;
  });
  if (!second) return;

  await step(page, 'Dismiss a complementary suggestion: it leaves the list and the rejection reaches the learned state', async () => {
    const previous = chosen.id;
    // The suggestions computed after the second run (the extension logs each list).
    await until(`complementary suggestions after ${previous} in the extension log`, () => extensionLog(userDir).includes(`→ ${previous}:`), 120000);
    const target = await until('a complementary suggestion other than the tool just run', async () => {
      const ids = await panel.$$eval('#complementary li.suggestion', (lis) => lis.map((li) => li.getAttribute('data-tool')));
      const busy = await panel.textContent('#status').catch(() => '');
      return !/…/.test(busy) ? ids.find((id) => id !== previous) : null;
    }, 60000);
    const counts = () => learnedState(userDir)?.state.transitions?.[previous]?.[target] ?? { s: 0, f: 0 };
    const before = counts();
    await panel.click(`#complementary li.suggestion[data-tool="${target}"] button.dismiss`);
    await until(`${target} to leave the suggestions`, async () => !(await panel.$(`#complementary li.suggestion[data-tool="${target}"]`)), 15000, 200);
    const line = await until('the feedback line in the extension log', () => extensionLog(userDir).split('\n').find((l) => l.includes(`feedback: dismissed ${target} after ${previous}`)), 30000);
    // The learned transition previous → target now carries the rejection (explicit feedback counts 2).
    const after = await until('the rejection in learned.json', () => {
      const c = counts();
      return c.f >= before.f + 1.99 ? c : null;
    }, 30000);
    const still = await panel.$$eval('#complementary li.suggestion', (lis) => lis.map((li) => li.getAttribute('data-tool')));
    return `dismissed ${target} (after ${previous}); panel now: ${still.join(', ')}; log "${line.replace(/^.*?feedback/, 'feedback').trim()}"; learned ${previous} → ${target}: failures ${before.f.toFixed(2)} → ${after.f.toFixed(2)}, successes ${after.s.toFixed(2)}`;
  });

  await step(page, 'the panel keeps its state when hidden: task, draft, candidates, suggestions and timeline come back', async () => {
    const before = await panelSnapshot(panel);
    if (before.task !== TASK) throw new Error(`task box shows "${before.task}" before hiding`);
    if (!before.forward.length || !before.complementary.length || before.memory.length !== 2) throw new Error(`nothing to keep: ${JSON.stringify(before)}`);
    // Text typed but not submitted must survive too.
    const draft = `${TASK} per field`;
    await panel.fill('#task', draft);
    const old = panel;
    await palette(page, 'View: Show Explorer');
    await page.waitForSelector('.explorer-folders-view', { state: 'visible', timeout: 15000 });
    // Without retainContextWhenHidden the webview's document goes away while hidden.
    const torn = await until('the panel to be hidden', async () => old.isDetached() || !(await old.evaluate(() => document.visibilityState === 'visible' && !!document.getElementById('task')?.offsetParent).catch(() => false)), 15000, 200);
    await screenshot(page, 'panel-hidden-explorer');
    await palette(page, 'View: Show GeoWeave');
    panel = await panelFrame(page);
    const after = await until('the panel to show the same state', async () => {
      const a = await panelSnapshot(panel);
      return a.forward.length && a.memory.length ? a : null;
    }, 30000);
    const same = (k) => JSON.stringify(after[k]) === JSON.stringify(before[k]);
    if (after.task !== draft) throw new Error(`task box shows "${after.task}", not the draft "${draft}"`);
    for (const k of ['forward', 'complementary', 'memory']) if (!same(k)) throw new Error(`${k} changed: ${JSON.stringify(before[k])} → ${JSON.stringify(after[k])}`);
    await panel.fill('#task', TASK);
    return `${old.isDetached() ? 'webview reloaded' : `webview hidden (${torn})`}; back: draft "${after.task}", ${after.forward.length} candidates (${after.forward.slice(0, 3).join(', ')}…), ${after.complementary.length} suggestions, ${after.memory.length} timeline steps, all as before`;
  });

  let notebookFile;
  const reopened = await step(page, 'save, close and reopen: the memory timeline is intact', async () => {
    notebookFile = fs.readdirSync(ws).find((f) => f.endsWith('.geonb'));
    if (!notebookFile) throw new Error('no .geonb notebook in the workspace');
    // Focus the notebook's editor group through its tab (a click into an output would land in a webview).
    await page.click('.tabs-container .tab.active');
    await page.waitForTimeout(500);
    await palette(page, 'File: Save');
    const saved = await until(`${notebookFile} saved with two steps in its memory`, () => {
      const text = fs.readFileSync(path.join(ws, notebookFile), 'utf8');
      const nb = JSON.parse(text);
      return nb.metadata?.memory?.trace?.length === 2 && text.endsWith('\n') ? nb : null;
    }, 30000);
    const before = await panel.$$eval('#memory li.step', (lis) => lis.map((li) => li.textContent));
    await palette(page, 'View: Close All Editors');
    await until('the notebook to close', async () => !(await page.$('.notebook-editor')), 20000);
    // Reload the window: the notebook and the extension host start over from the file on disk.
    await palette(page, 'Developer: Reload Window');
    await page.waitForTimeout(3000);
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await page.waitForFunction(() => (document.querySelector('.statusbar')?.textContent ?? '').includes('GeoWeave'), null, { timeout: 90000 });
    await page.waitForTimeout(3000);
    // Reopen from the explorer, as a person would; then bring the panel back.
    await palette(page, 'View: Show Explorer');
    const row = `.explorer-folders-view .monaco-list-row[aria-label^="${notebookFile}"]`;
    await page.waitForSelector(row, { timeout: 20000 });
    await page.dblclick(row);
    await until('the notebook editor again', () => page.$('.notebook-editor .code-cell-row'), 60000);
    await palette(page, 'View: Show GeoWeave');
    panel = await panelFrame(page);
    const after = await until('the timeline with two steps', async () => {
      const t = await panel.$$eval('#memory li.step', (lis) => lis.map((li) => li.textContent));
      return t.length === 2 ? t : null;
    }, 60000);
    if (JSON.stringify(after) !== JSON.stringify(before)) throw new Error(`timeline changed: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
    return `${notebookFile}: ${saved.metadata.memory.trace.map((s) => s.tool).join(' → ')}, task "${saved.metadata.memory.task}"`;
  });
  if (!reopened) return;

  await step(page, 'run a cell with a missing file: a clear error', async () => {
    await insertToolCell(page, 'ndvi');
    // The inserted cell is selected (cell rows are virtualized, so look for the focused one) ...
    const editor = await until('the inserted ndvi cell', async () => {
      for (const row of await page.$$('.notebook-editor .monaco-list-row')) {
        if (/ndvi\s+as\s+ndvi_\d/.test(await row.innerText().catch(() => ''))) return row.$('.monaco-editor .view-lines');
      }
      return null;
    }, 30000);
    // ... edit it: point its image at a file that does not exist.
    await editor.click();
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(`ndvi as broken\nimage: ${MISSING}\nsensor: sentinel2_l2a`);
    await page.waitForTimeout(500);
    await page.keyboard.press('Escape');
    // Run it with the cell's own Run button.
    const row = await until('the edited cell', async () => {
      for (const r of await page.$$('.notebook-editor .monaco-list-row.code-cell-row')) {
        if (/ndvi\s+as\s+broken/.test(await r.innerText().catch(() => ''))) return r;
      }
      return null;
    }, 20000);
    await row.hover();
    await (await row.$('.run-button-container .action-label')).click();
    const text = await until('an error naming the missing file', async () => {
      const t = await outputTexts(page);
      const line = t.split('\n').find((l) => l.includes(MISSING));
      return line ? line : null;
    }, 120000, 1000);
    if (!/not found|no such|does not exist|cannot (open|read)|missing/i.test(text.replace(MISSING, ''))) throw new Error(`the error does not say what is wrong: "${text}"`);
    return `error: "${text.trim().slice(0, 160)}"`;
  });

  await step(page, 'IntelliSense in a tool cell: file completion and an unknown-tool diagnostic', async () => {
    await page.keyboard.press('Escape');
    await insertToolCell(page, 'hillshade');
    const editor = await until('the inserted hillshade cell', async () => {
      for (const row of await page.$$('.notebook-editor .monaco-list-row.code-cell-row')) {
        if (/hillshade/.test(await row.innerText().catch(() => ''))) return row.$('.monaco-editor .view-lines');
      }
      return null;
    }, 30000);
    await editor.click();
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('ndvj\nimage: ');
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+Space');
    const labels = await until('completions with workspace rasters', async () => {
      const l = await page.$$eval('.suggest-widget .monaco-list-row', (rows) => rows.map((r) => r.getAttribute('aria-label') || r.textContent));
      return l.some((x) => x.includes('s2_scene.tif')) ? l : null;
    }, 30000);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Shift+M'); // Problems view
    const problem = await until('the unknown-tool diagnostic in Problems', async () => {
      const t = await page.$eval('.markers-panel', (el) => el.textContent).catch(() => '');
      return /unknown tool "ndvj"; did you mean "ndvi"\?/.test(t) ? 'unknown tool "ndvj"; did you mean "ndvi"?' : null;
    }, 30000);
    return `completions: ${labels.slice(0, 4).map((l) => l.split(',')[0]).join(', ')}…; problem: ${problem}`;
  });

  await step(page, 'hover on a tool id shows its manifest description; an unknown argument is flagged', async () => {
    const description = JSON.parse(fs.readFileSync(path.join(ROOT, 'tool-manifests', 'ndvi.json'), 'utf8')).description;
    await replaceCellText(page, /^\s*ndvj/, 'ndvi\nimage: s2_scene.tif\nbrightness: 2');
    await page.waitForTimeout(800);
    const cell = await until('the edited ndvi cell', () => cellRow(page, /^\s*ndvi\s*\n\s*image: s2_scene\.tif\s*\n\s*brightness/), 20000);
    // Rest the mouse on the tool id in the first line.
    const token = await until('the tool id token', async () => {
      for (const span of await cell.$$('.view-line span span')) {
        if ((await span.textContent()) === 'ndvi') return span.boundingBox();
      }
      return null;
    }, 10000);
    await page.mouse.move(token.x + token.width / 2, token.y + token.height / 2);
    const hover = await until('a hover with the NDVI manifest description', async () => {
      const texts = await page.$$eval('.monaco-hover', (els) => els.filter((e) => e.offsetParent).map((e) => e.textContent));
      return texts.find((t) => t.replace(/\s+/g, ' ').includes(description.slice(0, 60))) ?? null;
    }, 15000, 300);
    await screenshot(page, 'tool-id-hover');
    await page.mouse.move(10, 400);
    const message = 'ndvi has no argument "brightness"';
    const problems = await until('the unknown-argument diagnostic in Problems', async () => {
      const t = await problemsText(page);
      const at = t.indexOf(message);
      return at >= 0 ? t.slice(at, at + 160) : null;
    }, 30000);
    return `hover: "${hover.replace(/\s+/g, ' ').trim().slice(0, 110)}…"; problem: "${problems.split(/GeoWeave\s*\[Ln|\[Ln/)[0].trim()}"`;
  });

  const activation = path.join(userDir, 'User', 'globalStorage', 'geoweave.geoweave', 'activation.json');
  await step(page, 'activation time recorded; the transformers runtime is not loaded', async () => {
    const a = JSON.parse(fs.readFileSync(activation, 'utf8'));
    if (!(a.activationMs >= 0)) throw new Error(`bad activation record ${JSON.stringify(a)}`);
    activationMs = a.activationMs;
    // The vsix carries onnxruntime; it must load only when the transformers embedder is chosen.
    const loaded = processesMapping(serverPid, /libonnxruntime|onnxruntime_binding/);
    if (loaded.length) throw new Error(`onnxruntime is already loaded with the builtin embedder: ${loaded.join('; ')}`);
    return `activated in ${a.activationMs} ms (loading the bundle ${a.loadMs} ms, activate() ${a.activateMs} ms); no code-server process maps onnxruntime`;
  });

  // A fresh NDVI run after the reload: the result view as a whole.
  await step(page, 'the NDVI result: key statistics (no raw statistics table), the card lists outputs and arguments, raw JSON collapsed', async () => {
    await page.keyboard.press('Escape');
    await hideBottomPanel(page);
    await palette(page, 'View: Show GeoWeave');
    panel = await panelFrame(page);
    await panel.fill('#task', TASK);
    await panel.click('#suggest');
    await panel.waitForSelector('#forward-list li[data-tool="ndvi"] button.insert-run', { timeout: 120000 });
    await panel.click('#forward-list li[data-tool="ndvi"] button.insert-run');
    const pick = () => {
      const cards = [...document.querySelectorAll('#container .gw-result')].filter((e) => e.querySelector(':scope > .gw-head .gw-tool')?.textContent === 'ndvi' && !e.querySelector(':scope > .gw-note'));
      return cards[cards.length - 1];
    };
    const card = await until('a GeoWeave result for ndvi in an output frame', async () => {
      for (const frame of page.frames()) {
        const c = await frame.evaluate((src) => {
          const el = new Function(`return (${src})();`)();
          if (!el || !el.querySelector('.gw-map[data-rendered]')) return null;
          const details = el.querySelector('details.gw-json');
          const box = el.getBoundingClientRect();
          return {
            outputs: [...el.querySelectorAll('.gw-outputs li')].map((li) => li.textContent),
            args: el.querySelector('.gw-args')?.textContent ?? '',
            kpis: [...el.querySelectorAll('.gw-kpi')].map((k) => k.textContent),
            tables: el.querySelectorAll('table').length,
            details: details ? { open: details.open, label: details.querySelector('summary')?.textContent ?? '', jsonVisible: !!details.querySelector('pre')?.checkVisibility() } : null,
            height: box.height,
          };
        }, pick.toString()).catch(() => null);
        if (c) return { frame, ...c };
      }
      return null;
    }, 180000, 1000);
    if (!card.outputs.some((t) => /index\s*→\s*\S+\.tif/.test(t))) throw new Error(`the card lists no index output: ${JSON.stringify(card.outputs)}`);
    if (!/image=s2_scene\.tif/.test(card.args)) throw new Error(`the card shows no arguments with the image: "${card.args}"`);
    // What analysts read: mean, median, p5/p95 and the valid share, not 30 raw rows.
    for (const k of ['Mean', 'Median', 'P5', 'P95', 'Valid']) if (!card.kpis.some((t) => t.startsWith(k))) throw new Error(`the key statistics lack ${k}: ${card.kpis.join(' | ')}`);
    if (card.tables) throw new Error(`the NDVI result shows ${card.tables} table(s); its statistics are key numbers, the raw ones stay in the JSON`);
    if (!card.details) throw new Error('the card has no JSON result <details>');
    if (card.details.open || card.details.jsonVisible) throw new Error('the raw JSON is expanded; it should start collapsed');
    await screenshot(page, 'ndvi-result-collapsed');
    await card.frame.evaluate((src) => new Function(`return (${src})();`)().querySelector('details.gw-json summary').click(), pick.toString());
    const json = await until('the raw JSON to open', () => card.frame.evaluate((src) => {
      const d = new Function(`return (${src})();`)().querySelector('details.gw-json');
      return d.open && d.querySelector('pre').checkVisibility() ? d.querySelector('pre').textContent : null;
    }, pick.toString()), 10000);
    const raw = JSON.parse(json);
    if (raw.tool !== 'ndvi' || typeof raw.stats?.mean !== 'number') throw new Error(`the raw JSON is not the ndvi result: ${json.slice(0, 200)}`);
    // Keyboard focus back to the workbench (it is in the output's webview after the click).
    await page.click('.tabs-container .tab.active');
    return `key statistics ${card.kpis.join(' | ')}; card: ${card.outputs.join('; ').slice(0, 100)}; ${card.args.slice(0, 80)}; ${card.details.label} collapsed (result ${Math.round(card.height)} px), opened: stats.mean=${raw.stats.mean}`;
  });

  await step(page, 'stop a long slope run: progress shows, the cell ends neutral within 2.5 s, no output file left', async () => {
    await page.keyboard.press('Escape');
    await page.click('.tabs-container .tab.active');
    await page.waitForTimeout(500);
    await insertToolCell(page, 'slope');
    await findRow(page, /^\s*slope\b/);
    await replaceCellText(page, /^\s*slope\b/, `slope as big_slope\ndem: ${BIG_DEM}`);
    await page.keyboard.press('Escape');
    const mine = /slope\s+as\s+big_slope/;
    const row = await until('the edited slope cell', () => cellRow(page, mine), 20000);
    await row.hover();
    await (await row.$('.run-button-container .action-label')).click();
    await until('the slope cell to be running', async () => (await cellState(page, mine)) === 'running', 30000, 100);
    // Progress in the cell: percent and stage, moving.
    const progress = await until('progress in the running cell', async () => {
      for (const frame of page.frames()) {
        const p = await frame.evaluate(() => {
          const r = [...document.querySelectorAll('#container .gw-running')].find((e) => e.querySelector('.gw-tool')?.textContent === 'slope');
          return r ? { fraction: Number(r.dataset.fraction), text: r.textContent } : null;
        }).catch(() => null);
        if (p && p.fraction > 0) return p;
      }
      return null;
    }, 20000, 100);
    await page.waitForTimeout(700); // the engine is well into the 8000×8000 DEM by now
    const running = await cellRow(page, mine);
    if ((await cellState(page, mine)) !== 'running') throw new Error('slope finished before it could be stopped; the DEM is too small for this machine');
    await screenshot(page, 'slope-running');
    await running.hover();
    const stop = await running.$('.run-button-container .action-label.codicon-notebook-stop, .run-button-container .codicon-notebook-stop');
    const box = stop && await stop.boundingBox();
    if (!box) throw new Error('the running cell shows no stop button');
    // A plain mouse click at the button, so the clock starts when the click happens.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const clicked = Date.now();
    await page.mouse.down();
    await page.mouse.up();
    const state = await until('the slope cell to stop', async () => {
      const st = await cellState(page, mine);
      return st && st !== 'running' ? st : null;
    }, 15000, 50);
    const stoppedMs = Date.now() - clicked;
    // "Within about 2 s": the engine itself stops in well under a second (the extension logs how
    // long); the rest is VS Code's round trips on two shared cores, hence the bound of 2.5 s.
    if (stoppedMs > 2500) {
      const host = extensionLog(userDir).split('\n').reverse().find((l) => /cancelled: the engine stopped/.test(l)) ?? 'no cancellation line in the extension log';
      throw new Error(`the cell stopped ${stoppedMs} ms after the stop button (clicked at ${new Date(clicked).toISOString().slice(11, 23)}), not within 2.5 s (${host.trim()})`);
    }
    if (state === 'ok' || state === 'error') throw new Error(`the stopped cell shows the ${state} state; stopping is a neutral end`);
    const message = await until('the cancellation message in the cell output', async () => {
      const t = await outputTexts(page);
      return t.split('\n').find((l) => /slope cancelled|Cancelled\./.test(l)) ?? null;
    }, 10000);
    const outDir = path.join(ws, '.geoweave', 'outputs');
    const all = fs.existsSync(outDir) ? fs.readdirSync(outDir, { recursive: true }).map(String) : [];
    const left = all.filter((f) => path.basename(f).startsWith(path.basename(BIG_DEM, '.tif')) || f.includes('.tmp') || f.includes('.geoweave-run-'));
    if (left.length) throw new Error(`files left in ${outDir}: ${left.join(', ')}`);
    const host = extensionLog(userDir).split('\n').reverse().find((l) => /cancelled: the engine stopped/.test(l)) ?? '';
    return `progress "${progress.text.trim()}"; stopped ${stoppedMs} ms after the stop button (extension log: "${host.replace(/^.*?(?=cell \d)/, '').trim()}"); cell state "${state}"; output "${message.trim()}"; nothing from ${BIG_DEM} in .geoweave/outputs`;
  });

  await step(page, 'Find Tool ranks burn severity tools for a before/after query and inserts the pick', async () => {
    const query = 'burn severity from before and after images';
    const wanted = ['dnbr', 'burn_severity'];
    await page.keyboard.press('Escape');
    await palette(page, 'GeoWeave: Find Tool');
    await until('the Find Tool quick pick', async () => /Find Tool/.test(await page.$eval('.quick-input-widget .quick-input-title', (el) => el.textContent).catch(() => '')), 30000);
    const top = await findToolResults(page, query);
    const at = top.findIndex((r) => wanted.includes(r.id));
    if (at < 0) throw new Error(`top three are ${top.map((r) => r.id).join(', ')}`);
    await screenshot(page, 'find-tool-results');
    // The list may be re-ranked while we move (a refit of the fusion landing, learned runs): move to a
    // wanted row and confirm it is the focused one before Enter, rather than counting Down presses.
    const focused = () => page.$eval('.quick-input-widget .quick-input-list .monaco-list-row.focused .label-name', (el) => el.textContent.trim()).catch(() => '');
    const id = await until('a burn severity tool focused in the list', async () => {
      const f = await focused();
      if (wanted.includes(f)) return f;
      await page.keyboard.press('Down');
      await page.waitForTimeout(150);
      return null;
    }, 15000);
    await page.waitForTimeout(300);
    if ((await focused()) !== id) throw new Error(`the focused row changed from ${id} to ${await focused()} before Enter`);
    await page.keyboard.press('Enter');
    const first = await until(`a new tool cell for ${id}`, async () => {
      for (const row of await page.$$('.notebook-editor .monaco-list-row.code-cell-row')) {
        const t = (await row.$eval('.monaco-editor .view-lines', (el) => el.innerText).catch(() => '')).replace(/\u00a0/g, ' ');
        if (t.trim().startsWith(id) && /^\s*\S+/.test(t)) return t.trim().split('\n')[0];
      }
      return null;
    }, 60000);
    if (!new RegExp(`^${id}(\\s|$)`).test(first)) throw new Error(`the new cell starts with "${first}"`);
    return `top three: ${top.map((r) => `${r.id} (${r.description.split('·').pop().trim()})`).join(', ')}; inserted cell "${first}"`;
  });

  await step(page, 'Clear Memory empties the timeline, and the saved notebook holds no steps', async () => {
    await page.keyboard.press('Escape');
    const file = notebookFile ?? fs.readdirSync(ws).find((f) => f.endsWith('.geonb'));
    await palette(page, 'View: Show GeoWeave');
    panel = await panelFrame(page);
    const before = await until('steps in the timeline', async () => {
      const n = (await panel.$$('#memory li.step')).length;
      return n > 0 ? n : null;
    }, 30000);
    // Saved first, so the file holds steps that clearing has to remove.
    await page.click('.tabs-container .tab.active');
    await page.waitForTimeout(500);
    await palette(page, 'File: Save', { exact: true });
    const stored = await until(`${file} saved with its steps`, () => {
      const j = JSON.parse(fs.readFileSync(path.join(ws, file), 'utf8'));
      return j.metadata?.memory?.trace?.length === before ? j.metadata.memory.trace.length : null;
    }, 30000);
    await palette(page, 'GeoWeave: Clear Memory');
    const empty = await until('an empty timeline', async () => {
      if ((await panel.$$('#memory li.step')).length) return null;
      const text = await panel.textContent('#memory li.empty').catch(() => null);
      const disabled = await panel.$eval('#clear', (b) => b.disabled).catch(() => false);
      return text && disabled ? text : null;
    }, 30000);
    await page.click('.tabs-container .tab.active');
    await page.waitForTimeout(300);
    await palette(page, 'File: Save', { exact: true });
    const nb = await until(`${file} saved without steps`, () => {
      const j = JSON.parse(fs.readFileSync(path.join(ws, file), 'utf8'));
      return Array.isArray(j.metadata?.memory?.trace) && j.metadata.memory.trace.length === 0 ? j : null;
    }, 30000);
    return `${before} steps (${stored} in the saved ${file}) → "${empty.trim()}", Clear disabled; saved again: memory.trace = [], task "${nb.metadata.memory.task}" kept`;
  });

  await step(page, 'keyboard only: Describe Task focuses the task box, Enter ranks, Tab reaches Insert cell, Enter inserts', async () => {
    const task = 'compute slope and aspect from the elevation model';
    await page.click('.tabs-container .tab.active');
    await page.waitForTimeout(300);
    const cellsBefore = await until('the notebook cell count', () => cellCount(page), 15000);
    await palette(page, 'GeoWeave: Describe Task');
    panel = await panelFrame(page);
    await until('the keyboard focus in the task box', () => panel.evaluate(() => document.hasFocus() && document.activeElement?.id === 'task'), 15000, 200);
    await page.keyboard.type(task, { delay: 5 });
    await page.keyboard.press('Enter');
    const logged = await until('the ranking for the typed task in the extension log', () => {
      const line = extensionLog(userDir).split('\n').reverse().find((l) => l.includes(`forward "${task}":`));
      return line ? [...line.split(`"${task}":`)[1].matchAll(/([a-z0-9_]+) -?\d+\.\d+/g)].map((m) => m[1]) : null;
    }, 60000);
    await until('the panel to show that ranking', async () => {
      const l = await panel.$$eval('#forward-list li.suggestion', (lis) => lis.map((li) => li.getAttribute('data-tool')));
      return logged.every((id, i) => l[i] === id);
    }, 30000);
    const value = await panel.$eval('#task', (t) => t.value);
    if (value !== task) throw new Error(`Enter did not submit cleanly: the task box holds ${JSON.stringify(value)}`);
    // Task box → Suggest tools → the first candidate's Insert cell.
    const focusOf = () => panel.evaluate(() => {
      const a = document.activeElement;
      const style = getComputedStyle(a);
      return { id: a.id, cls: a.className, tool: a.closest('li.suggestion')?.getAttribute('data-tool') ?? null, outline: `${style.outlineStyle} ${style.outlineWidth}`, label: a.getAttribute('aria-label') ?? a.textContent };
    });
    await page.keyboard.press('Tab');
    const onSuggest = await focusOf();
    if (onSuggest.id !== 'suggest') throw new Error(`Tab from the task box went to ${JSON.stringify(onSuggest)}`);
    await page.keyboard.press('Tab');
    const onInsert = await focusOf();
    if (!/\binsert\b/.test(onInsert.cls) || onInsert.tool !== logged[0]) throw new Error(`second Tab went to ${JSON.stringify(onInsert)}, not the Insert cell button of ${logged[0]}`);
    if (/^none|\b0px$/.test(onInsert.outline)) throw new Error(`the focused button has no visible outline (${onInsert.outline})`);
    await screenshot(page, 'keyboard-focus-insert');
    await page.keyboard.press('Enter');
    const inserted = await until(`a new ${logged[0]} cell`, async () => {
      if ((await cellCount(page)) !== cellsBefore + 1) return null;
      const t = await cellTextAt(page, cellsBefore);
      return t && new RegExp(`^\\s*${logged[0]}\\b`).test(t) ? t.trim().split('\n')[0] : null;
    }, 60000);
    // The focus stays on the button (the lists re-render after the insert) ...
    const kept = await focusOf();
    if (kept.tool !== logged[0] || !/\binsert\b/.test(kept.cls)) throw new Error(`after inserting, the focus is on ${JSON.stringify(kept)}`);
    // ... and Dismiss by keyboard (Space) hands it to the next candidate's Dismiss button.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const onDismiss = await focusOf();
    if (!/\bdismiss\b/.test(onDismiss.cls) || onDismiss.tool !== logged[0]) throw new Error(`two Tabs after Insert cell went to ${JSON.stringify(onDismiss)}`);
    await page.keyboard.press('Space');
    await until(`${logged[0]} to leave the candidates`, async () => !(await panel.$(`#forward-list li.suggestion[data-tool="${logged[0]}"]`)), 15000, 200);
    const next = await until('the focus on the next candidate', async () => {
      const f = await focusOf();
      return f.tool ? f : null;
    }, 5000, 100);
    if (!/\bdismiss\b/.test(next.cls) || next.tool !== logged[1]) throw new Error(`after dismissing ${logged[0]} the focus is on ${JSON.stringify(next)}, not the Dismiss button of ${logged[1]}`);
    return `focus in #task after the command; typed "${task}" + Enter → ${logged.slice(0, 3).join(', ')}; Tab → Suggest, Tab → "${onInsert.label}" (outline ${onInsert.outline}); Enter → cell ${cellsBefore + 1} "${inserted}", focus kept; Tab Tab → "${onDismiss.label}", Space → gone, focus on "${next.label}"`;
  });

  await step(page, 'a task that fits a workflow template shows the burn severity workflow with its steps; Insert workflow adds them', async () => {
    // ("how severe was the burn and how many hectares burned" scores under the workflow threshold.)
    const task = 'how badly did the forest burn and how many hectares per burn severity class';
    const wf = JSON.parse(fs.readFileSync(path.join(ROOT, 'tool-manifests', 'workflows', 'burn_severity.json'), 'utf8'));
    await page.keyboard.press('Escape');
    await palette(page, 'View: Show GeoWeave');
    panel = await panelFrame(page);
    await panel.fill('#task', task);
    await panel.click('#suggest');
    const shown = await until('the workflow section', () => panel.evaluate(() => {
      const s = document.getElementById('workflow-section');
      if (!s || s.hidden) return null;
      return { name: s.querySelector('.name')?.textContent ?? '', steps: s.querySelector('.steps')?.textContent ?? '', button: !!s.querySelector('button.insert-workflow') };
    }), 60000);
    if (shown.name !== wf.name) throw new Error(`workflow "${shown.name}", expected "${wf.name}"`);
    if (shown.steps !== wf.steps.join(' → ')) throw new Error(`steps "${shown.steps}", expected "${wf.steps.join(' → ')}"`);
    if (!shown.button) throw new Error('no Insert workflow button');
    await panel.$eval('#workflow-section', (s) => s.scrollIntoView());
    await screenshot(page, 'workflow-template');
    const cellsBefore = await cellCount(page);
    await panel.click('#workflow-section button.insert-workflow');
    const first = await until(`${wf.steps.length} new cells`, async () => {
      if ((await cellCount(page)) !== cellsBefore + wf.steps.length) return null;
      const t = await cellTextAt(page, cellsBefore);
      return t && new RegExp(`^\\s*${wf.steps[0]}\\b`).test(t) ? t.trim().split('\n')[0] : null;
    }, 60000);
    return `"${shown.name}": ${shown.steps}; Insert workflow → ${wf.steps.length} cells from ${cellsBefore + 1} ("${first}" first)`;
  });

  await step(page, 'manifest authoring: New Tool Manifest, a bad field type in Problems, fixed and re-indexed, findable', async () => {
    const file = path.join(ws, '.geoweave', 'tools', `${MANIFEST_ID}.json`);
    const base = await until('the tool count in the status bar', () => statusToolCount(page), 30000);
    await page.keyboard.press('Escape');
    await palette(page, 'GeoWeave: New Tool Manifest');
    await until('the tool id input box', async () => /New Tool Manifest/.test(await page.$eval('.quick-input-widget .quick-input-title', (el) => el.textContent).catch(() => '')), 15000);
    await page.keyboard.type(MANIFEST_ID, { delay: 10 });
    await page.keyboard.press('Enter');
    await until(`${MANIFEST_ID}.json open in an editor`, async () => fs.existsSync(file) && (await page.$eval('.tabs-container .tab.active', (el) => el.textContent).catch(() => '')).includes(`${MANIFEST_ID}.json`), 30000);
    const scaffold = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (scaffold.id !== MANIFEST_ID) throw new Error(`the scaffold has id ${scaffold.id}`);
    await until(`the status bar at ${base + 1} tools (scaffold indexed)`, async () => (await statusToolCount(page)) === base + 1, 30000);
    const fixed = {
      ...scaffold,
      name: 'Canal width',
      description: 'Measures the width of irrigation canals from a water mask, one value per canal segment, in metres.',
      tags: ['canal width', 'irrigation canal', 'water mask'],
      examples: ['how wide are the irrigation canals'],
    };
    // Edited in its editor and saved, as an author would (one line: typing runs through the editor's
    // auto-indent). A bad field type first: tags must be a list of strings.
    const replaceText = async (text) => {
      const at = await page.evaluate(() => {
        for (const el of document.querySelectorAll('.editor-group-container .monaco-editor .view-lines')) {
          const b = el.getBoundingClientRect();
          if (b.width > 50 && b.height > 20 && !el.closest('.notebook-editor')) return { x: b.left + 50, y: b.top + 10 };
        }
        return null;
      });
      if (!at) throw new Error(`no visible text editor for ${MANIFEST_ID}.json`);
      await page.mouse.click(at.x, at.y);
      await page.waitForTimeout(300);
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      await page.keyboard.insertText(text);
      await page.waitForTimeout(300);
      await palette(page, 'File: Save', { exact: true });
      await until(`${MANIFEST_ID}.json saved`, () => fs.readFileSync(file, 'utf8').trim() === text, 15000);
    };
    await replaceText(JSON.stringify({ ...fixed, tags: 'canal width' }));
    // The GeoWeave marker, under the file it belongs to (rows in order: a file, then its markers).
    const error = await until('the manifest error in Problems, under the manifest file', async () => {
      await problemsText(page);
      return page.evaluate(() => {
        const rows = [...document.querySelectorAll('.markers-panel .monaco-list-row')].sort((a, b) => Number(a.getAttribute('data-index')) - Number(b.getAttribute('data-index')));
        let file = '';
        for (const r of rows) {
          const text = r.textContent;
          if (/\/tags must be array/.test(text)) return { file, message: text.replace(/\[Ln.*$/, '').replace(/GeoWeave\s*$/, '').trim() };
          const name = r.querySelector('.monaco-icon-label .label-name');
          if (name && !/must be|Incorrect type/.test(text)) file = name.textContent.trim();
        }
        return null;
      });
    }, 30000);
    if (error.file !== `${MANIFEST_ID}.json`) throw new Error(`the /tags error sits under "${error.file}", not ${MANIFEST_ID}.json`);
    await screenshot(page, 'manifest-error-in-problems');
    await until(`the status bar back at ${base} tools (invalid manifest dropped)`, async () => (await statusToolCount(page)) === base, 30000);
    await replaceText(JSON.stringify(fixed));
    await until('the error to leave Problems', async () => !/\/tags must be array/.test(await problemsText(page)), 30000);
    await until(`the status bar at ${base + 1} tools (re-indexed)`, async () => (await statusToolCount(page)) === base + 1, 30000);
    const query = 'measure how wide the irrigation canals are';
    await palette(page, 'GeoWeave: Find Tool');
    const top = await findToolResults(page, query);
    if (!top.some((r) => r.id === MANIFEST_ID)) throw new Error(`${MANIFEST_ID} is not in the top three: ${top.map((r) => r.id).join(', ')}`);
    await screenshot(page, 'find-tool-workspace-manifest');
    await page.keyboard.press('Escape');
    return `scaffold .geoweave/tools/${MANIFEST_ID}.json (${base} → ${base + 1} tools); Problems: ${error.file} → "${error.message}", ${base} tools; fixed: error gone, ${base + 1} tools; Find Tool "${query}": ${top.map((r) => `${r.id} (${r.description.split('·').pop().trim()})`).join(', ')}`;
  });

  await step(page, 'a JSON file in front of the notebook: the panel keeps working on the notebook, Insert brings it back with the new cell', async () => {
    const nbName = notebookFile ?? fs.readdirSync(ws).find((f) => f.endsWith('.geonb'));
    await page.keyboard.press('Escape');
    await page.click(`.tabs-container .tab:has-text("${nbName}")`);
    const cellsBefore = await until('the notebook cell count', () => cellCount(page), 15000);
    await page.click(`.tabs-container .tab:has-text("${MANIFEST_ID}.json")`);
    await until(`${MANIFEST_ID}.json in front`, async () => (await page.$eval('.tabs-container .tab.active', (el) => el.textContent).catch(() => '')).includes(`${MANIFEST_ID}.json`), 15000);
    await palette(page, 'View: Show GeoWeave');
    panel = await panelFrame(page);
    const status = await until('the panel status naming the notebook', async () => {
      const t = await panel.$eval('#status', (el) => el.textContent).catch(() => '');
      return t.includes(nbName) ? t : null;
    }, 15000);
    const front = await page.$eval('.tabs-container .tab.active', (el) => el.textContent).catch(() => '');
    if (!front.includes(`${MANIFEST_ID}.json`)) throw new Error(`"${front}" is in front, not the manifest`);
    const tool = await until('a forward candidate', () => panel.$eval('#forward-list li.suggestion', (li) => li.getAttribute('data-tool')).catch(() => null), 30000);
    await panel.click(`#forward-list li.suggestion[data-tool="${tool}"] button.insert`);
    const inserted = await until(`the notebook back in front with a new ${tool} cell`, async () => {
      if (!(await page.$eval('.tabs-container .tab.active', (el) => el.textContent).catch(() => '')).includes(nbName)) return null;
      if ((await cellCount(page)) !== cellsBefore + 1) return null;
      const t = await cellTextAt(page, cellsBefore);
      return t && new RegExp(`^\\s*${tool}\\b`).test(t) ? t.trim().split('\n')[0] : null;
    }, 60000);
    const notebooks = fs.readdirSync(ws).filter((f) => f.endsWith('.geonb'));
    if (notebooks.length !== 1) throw new Error(`a second notebook was created: ${notebooks.join(', ')}`);
    return `${MANIFEST_ID}.json in front, panel status "${status}"; Insert ${tool} → ${nbName} back in front, cell ${cellsBefore + 1} "${inserted}", no new notebook`;
  });

  await step(page, 'walkthrough "Create sample workspace" writes the sample and opens its notebook', async () => {
    await page.keyboard.press('Escape');
    await palette(page, 'Welcome: Open Walkthrough...');
    await until('GeoWeave in the walkthrough picker', async () => (await page.$$eval('.quick-input-widget .quick-input-list .monaco-list-row', (rows) => rows.map((r) => r.textContent))).some((t) => t.includes('Get started with GeoWeave')), 30000);
    await page.keyboard.type('Get started with GeoWeave', { delay: 10 });
    await page.waitForTimeout(700);
    await page.keyboard.press('Enter');
    // The step itself is a <button> containing the link text; the action is the inner monaco button.
    const button = page.locator('.gettingStartedContainer .getting-started-step.expanded .monaco-button').filter({ hasText: /^\s*Create sample workspace\s*$/ }).first();
    await button.waitFor({ state: 'visible', timeout: 30000 });
    await screenshot(page, 'walkthrough');
    await button.click();
    const dir = path.join(ws, 'geoweave-sample');
    const files = ['s2_scene.tif', 'fire_pre.tif', 'fire_post.tif', 'urban_2018.tif', 'urban_2024.tif', 'dem.tif', 'fields.geojson', 'sample.geonb'];
    await until('the sample files in geoweave-sample/', () => files.every((f) => fs.existsSync(path.join(dir, f))), 120000, 1000);
    await until('sample.geonb open in the notebook editor', async () => /sample\.geonb/.test(await page.$eval('.tabs-container .tab.active', (el) => el.textContent).catch(() => '')) && page.$('.notebook-editor'), 60000);
    const nb = JSON.parse(fs.readFileSync(path.join(dir, 'sample.geonb'), 'utf8'));
    if (!nb.metadata?.memory?.task) throw new Error('sample.geonb has no task in its memory');
    return `${files.length} files in geoweave-sample/ (${Math.round(fs.statSync(path.join(dir, 's2_scene.tif')).size / 1024)} KB scene); sample.geonb open, task "${nb.metadata.memory.task}"`;
  });

  await step(page, 'transformers embedder from the vsix: index rebuilt with a local ONNX model, suggestions come back', async () => {
    await page.keyboard.press('Escape');
    const toastTexts = () => page.$$eval('.notification-list-item-message', (els) => els.map((e) => e.textContent)).catch(() => []);
    const settings = (model) => {
      fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
      fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({
        'geoweave.embedder': 'transformers',
        'geoweave.transformers.model': model,
        'geoweave.transformers.cacheFolder': path.join(tmp, 'model-cache'),
      }, null, 2) + '\n');
    };
    // First a model folder that does not exist: a warning that says so, and the builtin embedder.
    const absent = path.join(tmp, 'models', 'no-such-model');
    settings(absent);
    const warned = await until('a warning that the model could not load', async () => (await toastTexts()).find((t) => t.includes('could not load') && t.includes(absent)), 60000);
    await until('the status bar back on the builtin embedder', async () => (await page.$$eval('.statusbar .statusbar-item', (els) => els.map((e) => e.textContent))).some((t) => /GeoWeave: \d+ tools · builtin/.test(t)), 60000);
    await palette(page, 'Notifications: Clear All Notifications');
    settings(tinyModel.dir);
    await page.waitForTimeout(2000);
    await palette(page, 'GeoWeave: Rebuild Tool Index');
    const embedder = `transformers:${path.basename(tinyModel.dir)}@`;
    const status = await until('the status bar to name the transformers embedder', async () => {
      const items = await page.$$eval('.statusbar .statusbar-item', (els) => els.map((e) => e.textContent.trim()));
      return items.find((t) => /^GeoWeave: \d+ tools · /.test(t) && t.includes(embedder)) ?? null;
    }, 120000);
    const toasts = await toastTexts();
    // (A late second warning about the absent model, from a repeated settings event, is not this.)
    const fallback = toasts.find((t) => /builtin embedder for now|falling back/i.test(t) && !t.includes(absent));
    if (fallback) throw new Error(`GeoWeave fell back to the builtin embedder: "${fallback}"`);
    const rebuilt = toasts.find((t) => /index rebuilt/.test(t)) ?? '';
    await palette(page, 'View: Show GeoWeave');
    panel = await panelFrame(page);
    const index = await until('the panel to name the transformers embedder', async () => {
      const t = await panel.textContent('#index').catch(() => '');
      return t && t.includes(embedder) ? t : null;
    }, 60000);
    // The runtime doing the work is the one installed from the vsix, not the repository's node_modules.
    const ort = processesMapping(serverPid, /libonnxruntime\.so/);
    if (!ort.length) throw new Error('no code-server process has onnxruntime loaded');
    const foreign = ort.filter((l) => !l.split(' ')[1].startsWith(extDir));
    if (foreign.length) throw new Error(`onnxruntime loaded from outside the installed extension: ${foreign.join('; ')}`);
    const task = 'map flood water along the river';
    await panel.fill('#task', task);
    await panel.click('#suggest');
    // The extension logs each ranking; the panel must show this query's, not an earlier list.
    const logged = await until('the ranking for the query in the extension log', () => {
      const line = extensionLog(userDir).split('\n').reverse().find((l) => l.includes(`forward "${task}":`));
      return line ? [...line.split(`"${task}":`)[1].matchAll(/([a-z0-9_]+) -?\d+\.\d+/g)].map((m) => m[1]) : null;
    }, 120000);
    const ids = await until('the panel to show the ranking for the query', async () => {
      const l = await panel.$$eval('#forward-list li.suggestion', (lis) => lis.map((li) => li.getAttribute('data-tool')));
      return logged.length && logged.every((id, i) => l[i] === id) ? l : null;
    }, 30000);
    return `missing model: "${warned.trim().slice(0, 90)}…", builtin used; tiny model: status "${status}"; onnxruntime from ${path.relative(extDir, ort[0].split(' ')[1])}; panel "${index.trim()}"; ${rebuilt ? `"${rebuilt.trim()}"; ` : ''}candidates for "${task}": ${ids.slice(0, 5).join(', ')}`;
  });
}

let activationMs;

main().catch((e) => {
  results.push({ name: 'setup', ok: false, error: e.message });
  log(`ERROR ${e.stack ?? e.message}`);
}).finally(() => {
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  if (activationMs !== undefined) log(`extension activation: ${activationMs} ms`);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.writeFileSync(path.join(ARTIFACTS, 'results.json'), JSON.stringify({ results, activationMs }, null, 2) + '\n');
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exitCode = failed || !passed ? 1 : 0;
});
