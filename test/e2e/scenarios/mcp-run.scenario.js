// A team's MCP server, run from a notebook cell: the workspace's .vscode/mcp.json starts
// test/fixtures/mcp/eo_server.js (the reference SDK on stdio) with a token from ${input:eo-token}.
// "GeoWeave: Add Tools from MCP Servers" asks for the token in a password box, starts the server,
// writes its tools into .geoweave/tools and the status bar counts them; a tool cell then runs
// band_stats through the server, and its mean must be GDAL's.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const CELL = /^band_stats/;
const TOKEN = 'e2e-mcp-token-7a2c';
const SERVER = path.resolve(__dirname, '..', '..', 'fixtures', 'mcp', 'eo_server.js');

module.exports = {
  name: 'an MCP server of .vscode/mcp.json: Add Tools from MCP Servers asks for its token, adds its tools, and a tool cell runs one with GDAL\'s numbers',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'mcp.geonb'), 'mean thermal value of the Landsat scene', ['band_stats\nraster: thermal_landsat.tif\nband: 1']);
  },
  async run({ page, ws, until, palette, statusToolCount, findToolResults, openFile, runCell, outputTexts, shot }) {
    const config = path.join(ws, '.vscode', 'mcp.json');
    const catalog = path.join(ws, '.geoweave', 'tools', 'mcp-eo.json');
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, `{
  // The team's Earth-observation server
  "inputs": [{ "type": "promptString", "id": "eo-token", "description": "EO server token", "password": true }],
  "servers": {
    "eo": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(SERVER)}], "env": { "EO_SERVER_TOKEN": "\${input:eo-token}", "EO_EXPECTED_TOKEN": "${TOKEN}" } },
  },
}
`);
    try {
      await palette(page, 'GeoWeave: Find Tool');
      await findToolResults(page, 'slope of the terrain');
      await page.keyboard.press('Escape');
      const count = await until('the tool count in the status bar', () => statusToolCount(page), 60000);
      await palette(page, 'GeoWeave: Add Tools from MCP Servers');
      await until('the password box for ${input:eo-token}', () => page.evaluate(() => document.querySelector('.quick-input-widget .quick-input-box input')?.type === 'password' || null), 30000);
      const prompt = await page.evaluate(() => document.querySelector('.quick-input-widget')?.textContent ?? '');
      await page.keyboard.type(TOKEN, { delay: 5 });
      await page.keyboard.press('Enter');
      await until(`the status bar at ${count + 7} tools`, async () => (await statusToolCount(page)) === count + 7, 60000);
      const written = JSON.parse(fs.readFileSync(catalog, 'utf8'));
      if (written.server !== 'eo' || written.tools.length !== 7) throw new Error(`the catalog file holds ${JSON.stringify(written).slice(0, 200)}`);
      if (fs.readFileSync(catalog, 'utf8').includes(TOKEN)) throw new Error('the token was written into the catalog file');
      await openFile(page, 'mcp.geonb');
      const state = await runCell(page, CELL);
      const text = await until('the answer in the cell output', async () => { const t = await outputTexts(page); return /answered/.test(t) ? t : null; }, 60000).catch(async () => outputTexts(page));
      await shot('answer');
      if (state !== 'ok') throw new Error(`the cell did not run: ${text.slice(0, 400)}`);
      if (text.includes(TOKEN)) throw new Error('the token shows in the cell output');
      const r = spawnSync('/usr/bin/python3', ['-c', `from osgeo import gdal; import json\nd = gdal.Open(${JSON.stringify(path.join(ws, 'thermal_landsat.tif'))}); b = d.GetRasterBand(1); a = b.ReadAsArray().astype('float64'); nd = b.GetNoDataValue()\nv = a[a != nd] if nd is not None else a.ravel()\nprint(json.dumps(v.mean()))`], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`GDAL could not read the scene: ${r.stderr}`);
      const mean = JSON.parse(r.stdout);
      const line = text.split('\n').find((l) => /eo\/band_stats answered/.test(l)) ?? '';
      const shown = Number(/mean ([\d.]+)/.exec(line)?.[1]);
      if (!(Math.abs(shown - mean) <= Math.abs(mean) * 1e-3)) throw new Error(`the summary's mean ${shown} is not GDAL's ${mean}: ${line || text.slice(0, 400)}`);
      return `password box for \${input:eo-token} (${prompt.includes('EO server token') ? 'with its description' : 'no description'}); status bar ${count} → ${count + 7} tools; "${line.trim().slice(0, 140)}"; GDAL mean ${mean.toFixed(4)}`;
    } finally {
      fs.rmSync(config, { force: true });
      fs.rmSync(catalog, { force: true });
    }
  },
};
