// Shared plumbing of the e2e scenario files (test/e2e/scenarios/*.scenario.js): a code-server session
// with the packaged extension, and helpers that read the real UI (webviews are nested iframes).
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const http = require('http');
const net = require('net');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');

function log(msg) {
  process.stdout.write(`[e2e ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
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

/** User settings of a test session: quiet workbench, typed text stays as typed. */
function userSettings(extra = {}) {
  return {
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
    'editor.autoClosingBrackets': 'never',
    'editor.autoClosingQuotes': 'never',
    'editor.autoSurround': 'never',
    'notebook.output.scrolling': false,
    ...extra,
  };
}

/** Chromium's environment: with GEOWEAVE_E2E_FONT_DIR (a folder of fonts, e.g. a CJK font where
 *  none is installed), a fontconfig file that adds it to the system's fonts. */
function chromiumEnv(tmp) {
  const dir = process.env.GEOWEAVE_E2E_FONT_DIR;
  if (!dir) return process.env;
  const conf = path.join(tmp, 'fonts.conf');
  fs.writeFileSync(conf, `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n  <dir>${path.resolve(dir)}</dir>\n  <cachedir>${path.join(tmp, 'fontconfig-cache')}</cachedir>\n</fontconfig>\n`);
  return { ...process.env, FONTCONFIG_FILE: conf };
}

/**
 * Installs `vsix` into a fresh extensions folder, starts code-server on `ws` and opens it in
 * Chromium. Returns { page, close(), setSettings(extra) }. `locale` starts code-server with
 * `--locale` (VS Code resolves it only with a language pack for it installed); `logName` names the
 * server log in `artifacts`.
 */
async function openSession({ vsix, codeServer, chromium, tmp, ws, artifacts, viewport = { width: 1500, height: 950 }, locale, logName = 'code-server-scenarios.log' }) {
  const extDir = path.join(tmp, 'extensions');
  const userDir = path.join(tmp, 'user');
  const r = spawnSync(codeServer, ['--install-extension', vsix, '--extensions-dir', extDir, '--user-data-dir', userDir], { encoding: 'utf8', timeout: 300000 });
  if (r.status !== 0) throw new Error(`installing ${vsix} failed: ${r.stderr}`);
  const settingsFile = path.join(userDir, 'User', 'settings.json');
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  const setSettings = (extra) => fs.writeFileSync(settingsFile, JSON.stringify(userSettings(extra), null, 2));
  setSettings();
  const port = await freePort();
  const serverLog = fs.openSync(path.join(artifacts, logName), 'w');
  const server = spawn(codeServer, ['--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
    '--disable-workspace-trust', ...(locale ? ['--locale', locale] : []), '--extensions-dir', extDir, '--user-data-dir', userDir, ws], { cwd: tmp, stdio: ['ignore', serverLog, serverLog], detached: true });
  log(`code-server pid ${server.pid} on port ${port}, workspace ${ws}`);
  let browser;
  const close = async () => {
    if (browser) await browser.close().catch(() => undefined);
    try {
      process.kill(-server.pid, 'SIGTERM'); // the process group of the server we started
    } catch {
      try { server.kill('SIGTERM'); } catch { /* already gone */ }
    }
    fs.closeSync(serverLog);
  };
  try {
    await until('code-server to answer', () => httpOk(`http://127.0.0.1:${port}/healthz`), 60000);
    log('code-server answers; starting Chromium');
    const { chromium: pw } = require(require.resolve('playwright-core', { paths: [ROOT, path.dirname(path.dirname(path.dirname(codeServer)))] }));
    browser = await pw.launch({ executablePath: chromium, env: chromiumEnv(tmp), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
    const page = await browser.newPage({ viewport });
    log('Chromium up; opening the workbench');
    page.setDefaultTimeout(30000);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await until('the explorer to list s2_scene.tif', async () => (await page.$$eval('.explorer-folders-view .monaco-list-row', (rows) => rows.map((r) => r.textContent))).some((t) => t.includes('s2_scene.tif')), 90000);
    await page.waitForTimeout(3000); // the palette needs the workbench to settle
    log('workbench ready');
    return { page, close, setSettings, userDir, extDir, pid: server.pid, port };
  } catch (e) {
    await close();
    throw e;
  }
}

/** Replaces the user settings through their JSON editor, as a person would (code-server does not
 *  pick up a settings.json rewritten on disk while it runs); `extra` on top of the test defaults. */
async function setUserSettings(page, extra) {
  await palette(page, 'Preferences: Open User Settings (JSON)');
  await until('settings.json in front', async () => (await page.$eval('.tabs-container .tab.active', (el) => el.textContent).catch(() => '')).includes('settings.json'), 20000);
  const editor = await until('the settings editor', () => page.$('.editor-group-container .monaco-editor .view-lines'), 10000);
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(JSON.stringify(userSettings(extra), null, 2));
  await page.keyboard.press('Control+S');
  await page.waitForTimeout(800);
  await palette(page, 'View: Close Editor');
}

/** The first element matching `selector` in any frame. */
async function inFrames(page, selector) {
  for (const frame of page.frames()) {
    const el = await frame.$(selector).catch(() => null);
    if (el) return { frame, el };
  }
  return undefined;
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
  for (const row of exact ? await page.$$('.quick-input-widget .quick-input-list .monaco-list-row') : []) {
    if ((await row.$eval('.label-name', (el) => el.textContent.trim()).catch(() => '')) === text && await row.isVisible()) {
      if (await row.click({ timeout: 3000 }).then(() => true, () => false)) return;
      break;
    }
  }
  await page.keyboard.press('Enter');
}

/** The GeoWeave panel's frame, shown first. */
async function showPanel(page) {
  await palette(page, 'View: Show GeoWeave');
  return (await until('the GeoWeave panel (#task) in a webview', () => inFrames(page, '#task'), 60000)).frame;
}

/** Types a task in the panel, submits it and waits until the panel shows the ranking the extension
 *  logged for it (`userDir`: the session's user data, where the extension log is). */
async function describeTask(page, panel, task, userDir) {
  const logged = () => extensionLog(userDir).split('\n').filter((l) => l.includes(`forward "${task}":`));
  const before = logged().length;
  await panel.fill('#task', task);
  await panel.click('#suggest');
  const ids = await until(`the ranking for "${task}" in the extension log`, () => {
    const lines = logged();
    return lines.length > before ? [...lines[lines.length - 1].split(`"${task}":`)[1].matchAll(/([a-z0-9_]+) -?\d+\.\d+/g)].map((m) => m[1]) : null;
  }, 120000);
  return until(`the panel to show the ranking for "${task}"`, async () => {
    const items = await candidates(panel);
    return ids.every((id, i) => items[i]?.id === id) ? items : null;
  }, 30000);
}

/** The forward candidates as shown: id, reason, readiness line, whether it is ready. */
function candidates(panel) {
  return panel.$$eval('#forward-list li.suggestion', (lis) => lis.map((li) => ({
    id: li.getAttribute('data-tool'),
    reason: li.querySelector('.reason')?.textContent ?? '',
    readiness: (li.querySelector('.ready, .missing')?.textContent ?? '').trim(),
    ready: !!li.querySelector('.ready'),
    caveat: (li.querySelector('.caveat')?.textContent ?? '').trim(),
  })));
}

/** Writes a .geonb with a task and tool cells (markdown cells start with '#'); needs `npx tsc -p .` first. */
function writeNotebook(file, task, cells) {
  const out = (...p) => require(path.join(ROOT, 'out', ...p));
  const { serializeNotebook } = out('src', 'core', 'notebook', 'notebook-file.js');
  const { withMemory } = out('src', 'core', 'notebook', 'session.js');
  const { createMemory } = out('src', 'core', 'memory', 'memory.js');
  fs.writeFileSync(file, serializeNotebook({
    metadata: withMemory({}, createMemory(task, 5)),
    cells: cells.map((source) => ({ kind: source.startsWith('#') ? 'markdown' : 'tool', source })),
  }));
}

/**
 * Runs `fn` while the workspace holds files made for it alone (`names` at the root, folders too):
 * afterwards they are removed first, then the editors closed, and the explorer given time to drop
 * their rows, since the next scenario double-clicks a row of a list that must not shift under it.
 */
async function withScenarioFiles({ ws, page }, names, fn) {
  try { return await fn(); } finally {
    // Editors close before their files go: an editor whose file vanished under it can hold a dialog
    // open that swallows the next scenario's clicks.
    await page.keyboard.press('Escape');
    await palette(page, 'View: Close All Editors');
    await dismissDialog(page);
    for (const f of names) fs.rmSync(path.join(ws, f), { recursive: true, force: true });
    const rows = () => Promise.all(names.map((n) => page.$(`.explorer-folders-view .monaco-list-row[aria-label^="${n}"]`)));
    await until('the explorer to drop the scenario\'s rows', async () => (await rows()).every((r) => r === null) || null, 15000).catch(() => undefined);
    await page.waitForTimeout(500);
  }
}

/** Answers "Don't Save" to a modal dialog left open (a dirty editor asked about on close). */
async function dismissDialog(page) {
  const dialog = await page.$('.monaco-dialog-box');
  if (!dialog) return;
  const dont = await dialog.$('.monaco-button:has-text("Don\'t Save")');
  if (dont) await dont.click(); else await page.keyboard.press('Escape');
  await page.waitForTimeout(300);
}

/** Opens a file at the workspace root from the explorer, as a person would (Quick Open's file search
 *  is slow to index a fresh workspace in code-server). */
async function openFile(page, name) {
  await page.keyboard.press('Escape');
  await palette(page, 'View: Show Explorer');
  const row = `.explorer-folders-view .monaco-list-row[aria-label^="${name}"]`;
  const inFront = async () => (await page.$eval('.tabs-container .tab.active', (el) => el.textContent).catch(() => '')).includes(path.basename(name)) || null;
  // The explorer redraws as other scenarios' files come and go: a double click that landed on a row
  // while it moved is given again, as a person would.
  for (let attempt = 1; ; attempt++) {
    await dismissDialog(page);
    await page.waitForSelector(row, { timeout: 20000 });
    await page.dblclick(row);
    const shown = await until(`${name} in front`, inFront, 10000).catch((e) => { if (attempt === 3) throw e; return null; });
    if (shown) break;
  }
  if (name.endsWith('.geonb')) await until(`the notebook ${name}`, () => page.$('.notebook-editor .monaco-list-row'), 30000);
}

/** Text of notebook output webviews (shadow roots included). */
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

/** Text of every rendered cell of the notebook in front, top to bottom. */
function cellTexts(page) {
  return page.evaluate(() => [...document.querySelectorAll('.notebook-editor .monaco-list-row.code-cell-row')]
    .sort((a, b) => Number(a.getAttribute('aria-posinset')) - Number(b.getAttribute('aria-posinset')))
    .map((row) => (row.querySelector('.monaco-editor .view-lines')?.innerText ?? '').replace(/\u00a0/g, ' ')));
}

/** The (last) rendered code cell whose text matches `re`. */
async function cellRow(page, re) {
  let found = null;
  for (const row of await page.$$('.notebook-editor .monaco-list-row.code-cell-row')) {
    const t = (await row.$eval('.monaco-editor .view-lines', (el) => el.innerText).catch(() => '')).replace(/\u00a0/g, ' ');
    if (re.test(t)) found = row;
  }
  return found;
}

/** running, ok, error or idle for the (last) cell matching `re`; null when it is not rendered. */
function cellState(page, re) {
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

/** Runs the cell matching `re` with its own Run button and waits until it is done; returns its state. */
async function runCell(page, re, timeoutMs = 120000) {
  const row = await until(`the cell ${re}`, () => cellRow(page, re), 20000);
  await row.hover();
  await (await row.$('.run-button-container .action-label')).click();
  await until(`the cell ${re} to start`, async () => (await cellState(page, re)) !== 'idle', 15000, 100).catch(() => undefined);
  return until(`the cell ${re} to finish`, async () => {
    const s = await cellState(page, re);
    return s === 'ok' || s === 'error' ? s : null;
  }, timeoutMs, 300);
}

/** Puts the cursor into the cell matching `re`, at the end of its line `line` (0-based). */
async function cursorInCell(page, re, line) {
  const row = await until(`the cell ${re}`, () => cellRow(page, re), 20000);
  const lines = await row.$$('.monaco-editor .view-line');
  const target = lines[Math.min(line, lines.length - 1)];
  const box = await target.boundingBox();
  await page.mouse.click(box.x + box.width - 2, box.y + box.height / 2);
  await page.keyboard.press('End');
  await page.waitForTimeout(300);
}

/** The GeoWeave log channel's files, oldest first, concatenated. */
function extensionLog(userDir) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name === 'GeoWeave.log') found.push(path.join(d, e.name));
    }
  };
  try { walk(path.join(userDir, 'logs')); } catch { /* no logs yet */ }
  found.sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs);
  return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

/**
 * The output frame showing the result of tool `tool` (the last one when several do) and the index of
 * that result among the frame's `.gw-result` elements; with `map`, only once its map has rendered.
 */
async function resultFrame(page, tool, { map = false, timeoutMs = 120000, nth = -1, scroll = 0 } = {}) {
  // Outputs are drawn when their cell comes into view: `scroll` wheels the notebook down (or up,
  // negative) between looks.
  let tries = 0;
  return until(`the ${tool} result${map ? ' with its map' : ''} in an output`, async () => {
    if (scroll && tries++ > 0) {
      const list = await page.$eval('.notebook-editor .cell-list-container', (el) => { const b = el.getBoundingClientRect(); return { x: b.left + 20, y: (b.top + b.bottom) / 2 }; }).catch(() => null);
      if (list) { await page.mouse.move(list.x, list.y); await page.mouse.wheel(0, scroll); }
    }
    for (const frame of page.frames()) {
      const at = await frame.evaluate(({ tool, map, nth }) => {
        const all = [...document.querySelectorAll('#container .gw-result')];
        const mine = all.map((e, i) => ({ e, i })).filter(({ e }) => e.querySelector(':scope > .gw-head .gw-tool')?.textContent === tool);
        const hit = mine[nth < 0 ? mine.length + nth : nth];
        if (!hit) return null;
        if (map && !hit.e.querySelector('.gw-map[data-rendered]')) return null;
        return hit.i;
      }, { tool, map, nth }).catch(() => null);
      if (at !== null && at !== undefined) return { frame, index: at };
    }
    return null;
  }, timeoutMs, 500);
}

/** Runs `fn(resultElement, arg)` in the page of a result found by `resultFrame`. */
function inResult(found, fn, arg) {
  return found.frame.evaluate(({ src, index, arg }) => {
    const el = document.querySelectorAll('#container .gw-result')[index];
    // eslint-disable-next-line no-new-func
    return new Function('el', 'arg', `return (${src})(el, arg);`)(el, arg);
  }, { src: fn.toString(), index: found.index, arg });
}

/** Scrolls the notebook until the element `selector` inside result `found` is in view. */
async function revealInResult(page, found, selector = '.gw-map') {
  const list = await page.$eval('.notebook-editor .cell-list-container', (el) => {
    const b = el.getBoundingClientRect();
    return { x: b.left + 20, top: b.top, bottom: b.bottom };
  }).catch(() => null);
  if (!list) return;
  await page.mouse.move(list.x, (list.top + list.bottom) / 2);
  for (let i = 0; i < 120; i++) {
    const box = await (await found.frame.frameElement()).boundingBox().catch(() => null);
    const r = await inResult(found, (el, sel) => { const t = el.querySelector(sel) ?? el; const b = t.getBoundingClientRect(); return { top: b.top, bottom: b.bottom }; }, selector).catch(() => null);
    if (!box || !r) return;
    const top = box.y + r.top, bottom = box.y + r.bottom;
    if (top < list.top + 10) await page.mouse.wheel(0, -120);
    else if (bottom > list.bottom - 10 && top > list.top + 40) await page.mouse.wheel(0, 120);
    else return;
    await page.waitForTimeout(60);
  }
}

/** The page coordinates of a point given as fractions (fx, fy) of the element `selector` in result `found`. */
async function pointInResult(found, selector, fx, fy) {
  const box = await (await found.frame.frameElement()).boundingBox();
  const r = await inResult(found, (el, sel) => { const b = el.querySelector(sel).getBoundingClientRect(); return { left: b.left, top: b.top, width: b.width, height: b.height }; }, selector);
  return { x: box.x + r.left + r.width * fx, y: box.y + r.top + r.height * fy };
}

/**
 * The pixels of page region `clip` as the screen shows them: { width, height, data } with data RGBA
 * row by row. The screenshot is decoded by a canvas in `frame` (any frame of the page will do).
 */
async function screenPixels(page, frame, clip) {
  const png = await page.screenshot({ clip });
  return frame.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    return { width: c.width, height: c.height, data: [...ctx.getImageData(0, 0, c.width, c.height).data] };
  }, png.toString('base64'));
}

/**
 * Types `query` into the open Find Tool quick pick and returns its first `n` ranked rows. The text
 * goes in as one input event: typed key by key, a pause lets the search for a prefix land first
 * ("measu" ranks connected_patches first), and its rows, shown while the search for the whole text
 * is still on its way, were once taken for the answer. One event, one search: the first scored
 * rows are the answer, read twice 500 ms apart to be sure the list has settled.
 */
async function findToolResults(page, query, n = 3) {
  await page.waitForSelector('.quick-input-widget .quick-input-box input', { state: 'visible', timeout: 15000 });
  await page.keyboard.insertText(query);
  let previous = '';
  return until(`ranked results for "${query}"`, async () => {
    if (await page.$eval('.quick-input-widget .quick-input-box input', (el) => el.value).catch(() => '') !== query) return null;
    const rows = await page.$$eval('.quick-input-widget .quick-input-list .monaco-list-row', (els) => els.map((r) => ({
      index: Number(r.getAttribute('data-index')),
      id: r.querySelector('.label-name')?.textContent?.trim() ?? '',
      description: r.querySelector('.label-description')?.textContent ?? '',
    })));
    rows.sort((a, b) => a.index - b.index);
    const first = rows.slice(0, n);
    // Ranked items carry "name · score" in their description; the unfiltered list does not.
    const key = first.length === n && first.every((r) => / · \d/.test(r.description)) ? JSON.stringify(first) : '';
    const settled = key !== '' && key === previous;
    previous = key;
    return settled ? first : null;
  }, 60000);
}

/** The tool count in the GeoWeave status bar item ("GeoWeave: 63 tools · builtin"), or null. */
async function statusToolCount(page) {
  const items = await page.$$eval('.statusbar .statusbar-item', (els) => els.map((e) => e.textContent.trim())).catch(() => []);
  const m = items.map((t) => /GeoWeave: (\d+) tools/.exec(t)).find(Boolean);
  return m ? Number(m[1]) : null;
}

/** Text of the Problems view, opening it first when the bottom panel does not show it. */
async function problemsText(page) {
  const shown = await page.$('.part.panel.bottom:not(.hidden) .markers-panel');
  if (!shown || !(await shown.isVisible())) {
    await palette(page, 'View: Toggle Problems');
    await page.waitForSelector('.markers-panel', { state: 'visible', timeout: 15000 });
  }
  return page.$eval('.markers-panel', (el) => el.textContent).catch(() => '');
}

/**
 * Closes every editor and reloads the window, so notebooks and the extension host start over from
 * the files on disk; returns once GeoWeave is back in the status bar (`settle` ms later).
 */
async function reloadWindow(page, settle = 2000) {
  await palette(page, 'View: Close All Editors');
  await until('the editors to close', async () => !(await page.$('.notebook-editor')), 20000);
  await palette(page, 'Developer: Reload Window');
  await page.waitForTimeout(3000);
  await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
  await page.waitForFunction(() => (document.querySelector('.statusbar')?.textContent ?? '').includes('GeoWeave'), null, { timeout: 90000 });
  await page.waitForTimeout(settle);
}

module.exports = {
  resultFrame, inResult, revealInResult, pointInResult, screenPixels,
  ROOT, log, until, openSession, writeNotebook, withScenarioFiles, setUserSettings, inFrames, palette, showPanel, describeTask, candidates, openFile, outputTexts,
  cellTexts, cellRow, cellState, runCell, cursorInCell, extensionLog, findToolResults, statusToolCount, problemsText, reloadWindow,
};
