// GeoWeave in a Chinese VS Code: a second code-server started with `--locale zh-cn`. VS Code only
// resolves a display language that an installed language pack contributes, and code-server cannot
// download one, so the test installs a minimal pack from the repository
// (test/e2e/fixtures/zh-cn-pack, packaged here with vsce) through "Extensions: Install from VSIX..."
// — the server's language-pack service writes languagepacks.json on that install, which a CLI
// --install-extension does not — and reloads. Then: the command palette lists GeoWeave's commands
// in Chinese, the panel's labels and reasons are Chinese (a candidate's tooltip its description_zh), a hover
// on a tool id gives the tool's Chinese name and description, and a tool cell's summary and result card are Chinese.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const PACK = path.join(__dirname, '..', 'fixtures', 'zh-cn-pack');
const TASK_ZH = '评估哨兵二号影像的植被健康状况';
const TASK_EN = 'Assess vegetation health in the Sentinel-2 scene';
// package.nls.zh-cn.json: the titles the palette must show.
const ZH_TITLES = ['新建笔记本', '描述任务', '查找工具', '推荐后续工具', '插入工具单元格', '重建工具索引', '打开工具清单', '新建工具清单', '显示日志', '创建示例工作区', '从 MCP 服务器添加工具'];
const EN_TITLES = ['New Notebook', 'Describe Task', 'Find Tool', 'Suggest Next Tools', 'Insert Tool Cell', 'Rebuild Tool Index', 'Open Tool Manifest', 'New Tool Manifest', 'Show Log', 'Create Sample Workspace', 'Add Tools from MCP Servers'];
const HAN = /[\u4e00-\u9fff]/;

/** The language pack as a vsix (VS Code installs extensions from packages, not folders). */
function packFixture(tmp, root) {
  const out = path.join(tmp, 'zh-cn-pack.vsix');
  const vsce = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
  const r = spawnSync(vsce, ['package', '--allow-missing-repository', '--skip-license', '-o', out], { cwd: PACK, encoding: 'utf8', timeout: 300000 });
  if (r.status !== 0 || !fs.existsSync(out)) throw new Error(`vsce could not package the language pack fixture: ${r.stderr || r.stdout}`);
  return out;
}

async function writeWorkspace(ws, root) {
  const out = (...p) => require(path.join(root, 'out', ...p));
  await out('src', 'core', 'raster', 'sample', 'generate.js').writeSampleWorkspace(ws);
  const { serializeNotebook } = out('src', 'core', 'notebook', 'notebook-file.js');
  const { withMemory } = out('src', 'core', 'notebook', 'session.js');
  const { createMemory } = out('src', 'core', 'memory', 'memory.js');
  fs.writeFileSync(path.join(ws, 'zh.geonb'), serializeNotebook({
    metadata: withMemory({}, createMemory(TASK_ZH, 5)),
    cells: [{ kind: 'tool', source: 'ndvi\nimage: s2_scene.tif' }],
  }));
}

/** The labels of the palette's rows as shown (virtualised: the visible ones). */
function paletteRows(page) {
  return page.$$eval('.quick-input-widget .quick-input-list .monaco-list-row', (rows) => rows.map((r) => (r.querySelector('.label-name')?.textContent ?? r.textContent).trim()));
}

async function typeInPalette(page, text) {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget .quick-input-box input', { state: 'visible', timeout: 10000 });
  await page.keyboard.type(text, { delay: 10 });
  await page.waitForTimeout(1200);
}

/** "Extensions: Install from VSIX...", the path typed into VS Code's file dialog; tried again when
 *  the palette or the dialog lost the keys (under load), until code-server logs the install. */
async function installFromVsix(t, page, vsix, serverLog, shot) {
  const input = '.quick-input-widget .quick-input-box input';
  const widget = () => page.$eval('.quick-input-widget', (el) => (el.offsetParent !== null ? el.innerText : '')).catch(() => '');
  let seen = '';
  for (let attempt = 1; attempt <= 3; attempt++) {
    await page.keyboard.press('Escape');
    await t.palette(page, 'Extensions: Install from VSIX...', { exact: true });
    const dialog = await t.until('the Install from VSIX file dialog', async () => { const w = await widget(); return /Install from VSIX/.test(w) && !/^>/.test(await page.$eval(input, (el) => el.value).catch(() => '>')) ? w : null; }, 20000).catch(() => null);
    seen = dialog ?? await widget();
    if (dialog) {
      await page.fill(input, vsix);
      await t.until('the path in the file dialog', async () => (await page.$eval(input, (el) => el.value).catch(() => '')) === vsix, 10000).catch(() => undefined);
      await page.waitForTimeout(1000);
      await page.keyboard.press('Enter');
      if (await t.until('code-server to install the pack', () => /Installing extension: geoweave-test\.geoweave-test-language-pack-zh-cn/.test(fs.readFileSync(serverLog, 'utf8')), 30000).then(() => true, () => false)) return;
    }
    t.log(`Install from VSIX attempt ${attempt} did not install the pack; the quick input showed ${JSON.stringify(seen.slice(0, 160))}`);
    await shot(`install-attempt-${attempt}`);
  }
  throw new Error(`Install from VSIX did not install the language pack in 3 attempts; the quick input showed ${JSON.stringify(seen.slice(0, 200))}`);
}

module.exports = {
  name: 'Chinese UI (zh-cn language pack, --locale zh-cn): GeoWeave commands, panel labels, tool hover, summary and result card in Chinese',
  async run(t) {
    const { ROOT, log, until, openSession, showPanel, describeTask, candidates, openFile, runCell, resultFrame, inResult } = t;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-zh-'));
    const ws = path.join(tmp, 'workspace');
    fs.mkdirSync(ws, { recursive: true });
    let session;
    const shot = (name) => session?.page.screenshot({ path: path.join(t.artifacts, `scenario-zh-cn-ui-${name}.png`) }).catch(() => undefined);
    const serverLog = path.join(t.artifacts, 'code-server-zh-cn.log');
    try {
      await writeWorkspace(ws, ROOT);
      const vsix = packFixture(tmp, ROOT);
      session = await openSession({ vsix: t.vsix, codeServer: t.codeServer, chromium: t.chromium, tmp, ws, artifacts: t.artifacts, locale: 'zh-cn', logName: 'code-server-zh-cn.log' });
      const { page, userDir } = session;

      // 1. Install the pack through the running server, as a person would.
      await installFromVsix(t, page, vsix, serverLog, shot);
      const packs = path.join(userDir, 'languagepacks.json');
      await until('VS Code to register the zh-cn language pack (languagepacks.json)', () => fs.existsSync(packs) && JSON.parse(fs.readFileSync(packs, 'utf8'))['zh-cn'], 90000).catch((e) => {
        const lines = fs.readFileSync(serverLog, 'utf8').split('\n').filter((l) => /language|install|error/i.test(l)).slice(-15);
        throw new Error(`${e.message}; code-server log:\n${lines.join('\n')}`);
      });
      log('zh-cn language pack registered; reloading the window');
      await shot('pack-installed');

      // 2. Reload: the workbench and the extension host now start in zh-cn.
      await page.reload({ waitUntil: 'domcontentloaded' });
      await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
      // The reload restores whichever side bar view was open (the GeoWeave panel, often): bring the
      // explorer forward if its rows are not there after a while, as a person would (Ctrl+Shift+E).
      const reloaded = Date.now();
      let explorerKey = false;
      await until('the explorer after the reload', async () => {
        const rows = await page.$$eval('.explorer-folders-view .monaco-list-row', (r) => r.map((x) => x.textContent)).catch(() => []);
        if (rows.some((x) => x.includes('s2_scene.tif'))) return true;
        if (!explorerKey && Date.now() - reloaded > 20000) { explorerKey = true; await page.keyboard.press('Control+Shift+E').catch(() => undefined); }
        return false;
      }, 150000);
      await page.waitForTimeout(3000);
      // The pack's own translation shows VS Code resolved zh-cn (not GeoWeave's doing).
      await typeInPalette(page, 'zzzqqq');
      const none = await until('the translated "no matching commands"', async () => (await page.$eval('.quick-input-widget', (el) => el.innerText).catch(() => '')).includes('没有匹配的命令') || null, 15000)
        .catch(async () => { throw new Error(`VS Code did not switch to zh-cn after the reload: the palette says ${JSON.stringify((await page.$eval('.quick-input-widget', (el) => el.innerText).catch(() => '')).slice(0, 120))}`); });
      if (!none) throw new Error('no palette');

      // 3. The palette lists GeoWeave's commands in Chinese.
      await typeInPalette(page, 'GeoWeave');
      const rows = await until('GeoWeave commands in the palette', async () => { const r = await paletteRows(page); return r.filter((x) => x.startsWith('GeoWeave')).length >= 8 ? r : null; }, 30000);
      await shot('palette');
      const geo = rows.filter((x) => x.startsWith('GeoWeave'));
      const shown = ZH_TITLES.filter((z) => geo.some((r) => r === `GeoWeave: ${z}`));
      const english = geo.filter((r) => EN_TITLES.some((e) => r === `GeoWeave: ${e}`));
      if (english.length) throw new Error(`English GeoWeave commands in the Chinese palette: ${english.join(', ')}`);
      if (shown.length < 8) throw new Error(`the palette shows ${shown.length} of the Chinese titles: ${geo.join(' | ')}`);
      // The English title still finds the command (VS Code matches the original title too).
      await typeInPalette(page, 'GeoWeave: Find Tool');
      const alias = await until('"GeoWeave: Find Tool" to find 查找工具', async () => (await paletteRows(page)).find((r) => r === 'GeoWeave: 查找工具') ?? null, 15000);
      await page.keyboard.press('Escape');

      // 4. The panel's labels are Chinese.
      const panel = await showPanel(page);
      const labels = await until('the Chinese panel labels', async () => {
        const l = await panel.evaluate(() => ({
          task: document.querySelector('#task-h')?.textContent.trim(),
          placeholder: document.querySelector('#task')?.getAttribute('placeholder'),
          suggest: document.querySelector('#suggest')?.textContent.trim(),
          candidates: document.querySelector('#fwd-h')?.textContent.trim(),
          next: document.querySelector('#comp-h')?.textContent.trim(),
          memory: document.querySelector('#mem-h')?.textContent.trim(),
          clear: document.querySelector('#clear')?.textContent.trim(),
          lang: document.documentElement.lang,
          forward: document.querySelector('#forward')?.textContent.trim(),
          steps: document.querySelector('#memory')?.textContent.trim(),
          complementary: document.querySelector('#complementary')?.textContent.trim(),
        }));
        return l.task === '任务' ? l : null;
      }, 30000).catch(async (e) => { throw new Error(`${e.message}: the panel shows ${JSON.stringify(await panel.evaluate(() => document.querySelector('#app')?.innerText.slice(0, 300)).catch(() => ''))}`); });
      const expected = { task: '任务', placeholder: '描述你的分析任务', suggest: '推荐工具', candidates: '候选工具', next: '后续步骤', memory: '记忆', clear: '清除', lang: 'zh-cn', forward: '描述一个任务以查看候选工具。', steps: '暂无步骤。', complementary: '运行一个工具单元格，查看可补充其结果的工具。' };
      for (const [k, v] of Object.entries(expected)) if (labels[k] !== v) throw new Error(`panel ${k}: ${JSON.stringify(labels[k])}, expected ${JSON.stringify(v)}`);
      const items = await describeTask(page, panel, TASK_EN, userDir);
      const ready = items.find((i) => i.ready);
      if (!ready || !/^就绪/.test(ready.readiness)) throw new Error(`readiness line not in Chinese: ${JSON.stringify(items.slice(0, 3))}`);
      // Why each fits, in Chinese too (the task is English: the display language decides).
      const englishReasons = items.filter((i) => !HAN.test(i.reason) || /(^|; )(matches|needs|often|similar in meaning) /.test(i.reason));
      if (englishReasons.length) throw new Error(`reasons not in Chinese: ${JSON.stringify(englishReasons.slice(0, 3).map((i) => i.reason))}`);
      // Each candidate's name carries what the tool does as its tooltip: the manifest's description_zh.
      const manifest = (id) => JSON.parse(fs.readFileSync(path.join(ROOT, 'tool-manifests', `${id}.json`), 'utf8'));
      const tip = await panel.$eval('#forward-list li.suggestion:first-child', (li) => ({ id: li.getAttribute('data-tool'), title: li.querySelector('.name')?.getAttribute('title') ?? '' }));
      const first = manifest(tip.id);
      if (tip.title !== `${first.name_zh}\n${first.description_zh}`) throw new Error(`the ${tip.id} candidate's tooltip: ${JSON.stringify(tip.title.slice(0, 120))}`);
      const buttons = await panel.$$eval('#forward-list li.suggestion:first-child button', (bs) => bs.map((b) => b.getAttribute('title')));
      if (buttons.join('|') !== '插入单元格|插入并运行|忽略') throw new Error(`candidate buttons: ${buttons.join('|')}`);
      const appText = await panel.evaluate(() => document.querySelector('#app').innerText);
      for (const en of ['Task', 'Suggest tools', 'Candidates', 'Next steps', 'Memory', 'Insert cell', 'ready:', 'No steps yet.']) {
        if (new RegExp(`(^|\\n)${en.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).test(appText)) throw new Error(`English label "${en}" in the Chinese panel`);
      }
      await shot('panel');

      // 5. A tool cell: Chinese summary (the task is Chinese too) and Chinese result headings.
      await openFile(page, 'zh.geonb');
      // Hover on the tool id: the tool's Chinese name and description (name_zh, description_zh).
      const ndvi = manifest('ndvi');
      const token = await until('the ndvi tool id in the cell', async () => {
        for (const span of await page.$$('.notebook-editor .view-line span span')) if ((await span.textContent()) === 'ndvi') return span.boundingBox();
        return null;
      }, 20000);
      await page.mouse.move(token.x + token.width / 2, token.y + token.height / 2);
      const squeeze = (x) => x.replace(/\s+/g, '');
      const hover = await until('a hover with the Chinese description', async () => {
        const texts = await page.$$eval('.monaco-hover', (els) => els.filter((e) => e.offsetParent).map((e) => e.textContent));
        return texts.find((x) => squeeze(x).includes(squeeze(ndvi.description_zh).slice(0, 40))) ?? null;
      }, 20000, 300);
      if (!hover.includes(ndvi.name_zh) || hover.includes(ndvi.description.slice(0, 40))) throw new Error(`the hover: ${hover.slice(0, 200)}`);
      await shot('hover');
      await page.mouse.move(10, 400);
      const state = await runCell(page, /ndvi/);
      if (state !== 'ok') throw new Error(`the ndvi cell ended ${state}`);
      const found = await resultFrame(page, 'ndvi');
      const card = await inResult(found, (el) => ({
        summary: el.querySelector('.gw-summary')?.textContent ?? '',
        head: el.querySelector('.gw-head .gw-tool-name')?.textContent ?? '',
        outputs: el.querySelector('.gw-head .gw-muted')?.textContent ?? '',
        kpis: [...el.querySelectorAll('.gw-kpi .gw-label')].map((x) => x.textContent),
        json: el.querySelector('.gw-json summary')?.textContent ?? '',
        lang: el.lang,
      }));
      await shot('result');
      // The tool is named as the manifest's name_zh gives it.
      if (!/^NDVI（归一化植被指数）: 归一化植被指数 \(NDVI\) 均值 -?\d/.test(card.summary)) throw new Error(`summary not in Chinese: ${card.summary}`);
      if (card.head !== 'NDVI（归一化植被指数）') throw new Error(`card heading: ${card.head}`);
      if (card.outputs !== '1 个输出' || card.json !== 'JSON 结果' || !card.kpis.includes('均值') || !card.kpis.includes('中位数')) throw new Error(`result card headings: ${JSON.stringify(card)}`);
      if (card.kpis.some((k) => /^[A-Z][a-z]/.test(k))) throw new Error(`English key statistics: ${card.kpis.join(', ')}`);
      if (!HAN.test(card.summary.split(';')[0])) throw new Error(card.summary);
      // 6. A GeoTIFF opened from the explorer: the raster viewer's summary in Chinese.
      await openFile(page, 's2_scene.tif');
      const viewer = await resultFrame(page, 'raster_info', { map: true, timeoutMs: 90000 });
      const info = await inResult(viewer, (el) => el.querySelector('.gw-summary').textContent);
      if (!/^raster_info: 600×600 像元，8 个 uint16 波段/.test(info)) throw new Error(`the raster viewer's summary: ${info}`);
      await shot('raster-viewer');
      return `VS Code in zh-cn; palette: ${shown.length}/${ZH_TITLES.length} Chinese titles (e.g. "${geo[0]}"), "GeoWeave: Find Tool" → "${alias}"; panel: ${labels.task}/${labels.suggest}/${labels.candidates}, "${ready.readiness.slice(0, 30)}"; `
        + `hover "${hover.replace(/\s+/g, ' ').trim().slice(0, 60)}…"; `
        + `result: "${card.summary.slice(0, 70)}…", ${card.outputs}, ${card.kpis.join('/')}; raster viewer: "${info.slice(0, 50)}…"`;
    } finally {
      if (session) await session.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
};
