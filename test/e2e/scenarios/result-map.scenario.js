// The interactive map of a result, in code-server: pan and zoom change the view, the pixel inspector
// shows the value GDAL reads at that pixel (gdallocationinfo), the swipe compares fire_pre and
// fire_post, burn severity comes as a table in the USGS colours; screenshots in light, dark and
// high contrast.
'use strict';
const path = require('path');
const { spawnSync } = require('child_process');
const { screenPixels } = require('../support');

const CELLS = ['dnbr as burn\npre: fire_pre.tif\npost: fire_post.tif', 'burn_severity as severity\nimage: $burn.dnbr'];
const THEMES = ['Default Light Modern', 'Default Dark Modern', 'Default High Contrast'];

/** Mean colour of a small square around page point p, as the screen shows it. */
async function colourAt(page, frame, p) {
  const { data: d } = await screenPixels(page, frame, { x: Math.round(p.x) - 3, y: Math.round(p.y) - 3, width: 7, height: 7 });
  const m = [0, 0, 0];
  for (let i = 0; i < d.length; i += 4) { m[0] += d[i]; m[1] += d[i + 1]; m[2] += d[i + 2]; }
  const n = d.length / 4;
  return m.map((v) => Math.round(v / n));
}

const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

module.exports = {
  name: 'result map: pan/zoom, inspector equals gdallocationinfo, swipe fire_pre/fire_post, severity table in USGS colours',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'fire-map.geonb'), 'how severe was the fire?', CELLS);
  },
  async run({ page, palette, openFile, until, resultFrame, inResult, revealInResult, pointInResult, setUserSettings, shot }) {
    await openFile(page, 'fire-map.geonb');
    await page.click('.tabs-container .tab.active');
    await palette(page, 'GeoWeave: Run All Tool Cells');
    const found = await resultFrame(page, 'dnbr', { map: true, timeoutMs: 180000 });
    await revealInResult(page, found, '.gw-map');
    const layers = await inResult(found, (el) => [...el.querySelectorAll('.gw-layers input[data-layer]')].map((i) => `${i.dataset.layer}:${i.checked ? 'on' : 'off'}`));
    for (const id of ['in:pre', 'in:post', 'out:dnbr']) if (!layers.some((l) => l.startsWith(`${id}:`))) throw new Error(`the layer list has no ${id}: ${layers.join(', ')}`);
    await shot('dnbr-map');

    // Pan and zoom: the wheel and a drag change the view the map reports.
    const view = () => inResult(found, (el) => { const m = el.querySelector('.gw-map'); return { center: m.dataset.center, resolution: Number(m.dataset.resolution) }; });
    const v0 = await view();
    const mid = await pointInResult(found, '.gw-map', 0.5, 0.5);
    await page.mouse.move(mid.x, mid.y);
    for (let i = 0; i < 3; i++) { await page.mouse.wheel(0, -200); await page.waitForTimeout(250); }
    let v1 = await until('the zoom to change the resolution', async () => { const v = await view(); return v.resolution < v0.resolution * 0.8 ? v : null; }, 15000, 300);
    await page.waitForTimeout(1000); // the wheel's zoom animations end
    const settled = await view();
    Object.assign(v1, settled);
    await page.mouse.move(mid.x, mid.y);
    await page.mouse.down();
    await page.mouse.move(mid.x + 120, mid.y + 60, { steps: 8 });
    await page.mouse.up();
    // Dragged 120 px right: the centre moves about 120 pixels' worth of map units west.
    const shift = (a, b) => { const [ax, ay] = a.split(',').map(Number), [bx, by] = b.split(',').map(Number); return Math.hypot(ax - bx, ay - by); };
    const v2 = await until('the drag to move the centre', async () => { const v = await view(); return shift(v.center, v1.center) > 50 * v1.resolution ? v : null; }, 15000, 300);
    await shot('dnbr-zoomed');

    // Inspector: the value at a pixel equals what GDAL reads there.
    const file = await inResult(found, (el) => [...el.querySelectorAll('.gw-outputs li')].map((li) => li.querySelector('.gw-path').textContent).find((p) => /\.tif$/.test(p)));
    const probe = await pointInResult(found, '.gw-map', 0.42, 0.47);
    await page.mouse.move(probe.x - 5, probe.y - 5);
    await page.mouse.move(probe.x, probe.y, { steps: 3 });
    const read = await until('the inspector to show a value', () => inResult(found, (el) => {
      const i = el.querySelector('.gw-inspector');
      return i.dataset.values && i.dataset.layer === 'out:dnbr' ? { col: Number(i.dataset.col), row: Number(i.dataset.row), value: JSON.parse(i.dataset.values)[0], text: i.textContent } : null;
    }), 15000, 300);
    const gdal = spawnSync('gdallocationinfo', ['-valonly', '-b', '1', file, String(read.col), String(read.row)], { encoding: 'utf8' });
    const expected = Number(gdal.stdout.trim());
    if (gdal.status !== 0 || !Number.isFinite(expected)) throw new Error(`gdallocationinfo failed: ${gdal.stderr || gdal.stdout}`);
    if (!(Math.abs(expected - read.value) <= 1e-6 * Math.max(1, Math.abs(expected)))) throw new Error(`the inspector shows ${read.value} at col ${read.col}, row ${read.row}; GDAL reads ${expected}`);
    if (!/lon -?\d+\.\d+\s+lat -?\d+\.\d+/.test(read.text) || !/EPSG:\d+/.test(read.text)) throw new Error(`the inspector does not give CRS and lon/lat coordinates: ${read.text}`);
    await shot('inspector');

    // Swipe: fire_pre on the left, fire_post on the right of the divider.
    await inResult(found, (el) => el.querySelector('.gw-fit').click());
    await page.waitForTimeout(800);
    await inResult(found, (el) => {
      const on = el.querySelector('.gw-swipe-on');
      el.querySelector('.gw-swipe-left').value = 'in:pre';
      el.querySelector('.gw-swipe-right').value = 'in:post';
      on.checked = true;
      on.dispatchEvent(new Event('change'));
    });
    const setPos = async (v) => {
      await inResult(found, (el, v) => { const r = el.querySelector('.gw-swipe-pos'); r.value = String(v); r.dispatchEvent(new Event('input')); }, v);
      const before = await inResult(found, (el) => el.querySelector('.gw-map').dataset.rendered);
      await until('the map to render the swipe', () => inResult(found, (el, b) => el.querySelector('.gw-map').dataset.rendered !== b, before), 15000, 200).catch(() => undefined);
      await page.waitForTimeout(1200);
    };
    const swipeState = await inResult(found, (el) => el.querySelector('.gw-map').dataset.swipe);
    if (!/^in:pre\|in:post\|/.test(swipeState)) throw new Error(`the swipe compares ${swipeState}`);
    // Where the burn is (north-west), pre and post differ: a point shows pre left of the divider, post right of it.
    const points = [[0.3, 0.3], [0.35, 0.25], [0.25, 0.35], [0.4, 0.4]];
    await setPos(900);
    const pre = [];
    for (const [fx, fy] of points) pre.push(await colourAt(page, found.frame, await pointInResult(found, '.gw-map', fx, fy)));
    await shot('swipe-pre-left');
    await setPos(100);
    const post = [];
    for (const [fx, fy] of points) post.push(await colourAt(page, found.frame, await pointInResult(found, '.gw-map', fx, fy)));
    await shot('swipe-post-right');
    const diffs = pre.map((c, i) => Math.round(dist(c, post[i])));
    if (Math.max(...diffs) < 25) throw new Error(`moving the swipe over the burn does not change the picture (colour distances ${diffs.join(', ')}; pre ${JSON.stringify(pre)}, post ${JSON.stringify(post)})`);

    // Burn severity: every class on screen, sorted by area, in the USGS colours.
    const sev = await resultFrame(page, 'burn_severity', { map: true, timeoutMs: 180000, scroll: 400 });
    await revealInResult(page, sev, '.gw-tablebox');
    const table = await inResult(sev, (el) => {
      const rows = [...el.querySelectorAll('.gw-table tbody tr')].filter((tr) => tr.checkVisibility());
      return rows.map((tr) => ({ text: tr.textContent, swatch: getComputedStyle(tr.querySelector('.gw-swatch') ?? tr).backgroundColor }));
    });
    const high = table.find((r) => /^high severity/.test(r.text));
    const unburned = table.find((r) => /^unburned/.test(r.text));
    if (table.length < 7 || !high || !unburned) throw new Error(`the severity table shows ${table.length} rows: ${table.map((r) => r.text.slice(0, 30)).join(' | ')}`);
    if (high.swatch !== 'rgb(164, 31, 214)' || unburned.swatch !== 'rgb(10, 224, 66)') throw new Error(`severity colours: high ${high.swatch}, unburned ${unburned.swatch} (USGS: purple, green)`);
    const legend = await inResult(sev, (el) => [...el.querySelectorAll('.gw-classes li')].map((li) => li.textContent));
    if (!legend.includes('high severity')) throw new Error(`the map legend lists ${legend.join(', ')}`);
    await shot('severity-table');

    // The map in light, dark and high contrast (saved first: the settings editor may close the notebook's tab).
    await page.click('.tabs-container .tab.active');
    await palette(page, 'File: Save');
    await page.waitForTimeout(1000);
    const themes = [];
    for (const theme of THEMES) {
      await setUserSettings(page, { 'workbench.colorTheme': theme });
      await openFile(page, 'fire-map.geonb');
      await page.waitForTimeout(1500);
      const f = await resultFrame(page, 'dnbr', { map: true, scroll: -400 });
      await revealInResult(page, f, '.gw-mapbox');
      const bg = await inResult(f, (el) => getComputedStyle(el.querySelector('.gw-map')).backgroundColor);
      // Theme-aware: the map sits on the editor's background, light in the light theme, dark in the others.
      const rgb = (bg.match(/\d+/g) ?? []).slice(0, 3).map(Number);
      const light = rgb.length === 3 && rgb.reduce((x, y) => x + y, 0) / 3 > 128;
      if (rgb.length !== 3 || light !== /Light/.test(theme)) throw new Error(`${theme}: the map background is ${bg}`);
      themes.push(`${theme.replace('Default ', '')}: map background ${bg}`);
      await shot(`map-${theme.replace(/\s+/g, '-').toLowerCase()}`);
    }
    await setUserSettings(page, {});
    return `layers ${layers.join(', ')}; zoom ${v0.resolution.toFixed(1)} → ${v1.resolution.toFixed(1)} m/px, drag centre ${v1.center} → ${v2.center}; inspector col ${read.col} row ${read.row} = ${read.value} (GDAL ${expected}); swipe colour change ${diffs.join('/')}; severity rows ${table.length}, high ${high.swatch}; ${themes.join('; ')}`;
  },
};
