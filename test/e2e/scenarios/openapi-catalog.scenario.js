// A team drops its REST service's OpenAPI spec (YAML, as FastAPI-style services publish it) into
// .geoweave/tools: each operation becomes a tool (the status bar counts them), an operation with a
// summary only is flagged in Problems on its own operation's line (not the file's first
// "description"), and Find Tool finds the service's tool by what it does. The spec is removed
// afterwards so later scenarios see the catalog as before.
'use strict';
const fs = require('fs');
const path = require('path');

const SPEC = [
  'openapi: 3.1.0',
  'info:',
  '  title: heat-service',
  '  description: Urban heat analyses of the climate unit.',
  '  version: 2.0.1',
  'paths:',
  '  /uhi/intensity:',
  '    post:',
  '      operationId: uhi_intensity_by_district',
  '      summary: Surface urban heat island intensity',
  '      description: Surface urban heat island intensity per district, the urban minus the rural land surface temperature of a thermal scene.',
  '      requestBody:',
  '        required: true',
  '        content:',
  '          application/json:',
  '            schema: {$ref: "#/components/schemas/UhiRequest"}',
  '  /stations/{station_id}:',
  '    get:',
  '      operationId: station_info',
  '      summary: Weather station metadata',
  '      parameters:',
  '        - {name: station_id, in: path, required: true, schema: {type: string}}',
  'components:',
  '  schemas:',
  '    UhiRequest:',
  '      type: object',
  '      required: [lst_raster, districts_geojson]',
  '      properties:',
  '        lst_raster: {type: string, description: URL of the land surface temperature GeoTIFF}',
  '        districts_geojson: {type: string, description: district polygons}',
  '        rural_buffer_m: {type: number, default: 2000}',
  '',
].join('\n');

module.exports = {
  name: 'an OpenAPI spec in .geoweave/tools: its operations indexed as tools, a summary-only operation flagged on its own line, Find Tool finds it',
  async run({ page, ws, until, palette, statusToolCount, problemsText, findToolResults, shot }) {
    // The index loads on first use (a search here); the status bar counts its tools from then on.
    await palette(page, 'GeoWeave: Find Tool');
    await findToolResults(page, 'slope of the terrain');
    await page.keyboard.press('Escape');
    const file = path.join(ws, '.geoweave', 'tools', 'heat-service.openapi.yaml');
    const base = await until('the tool count in the status bar', () => statusToolCount(page), 60000);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, SPEC);
    try {
      await until(`the status bar at ${base + 2} tools (two operations indexed)`, async () => (await statusToolCount(page)) === base + 2, 60000);
      const want = SPEC.split('\n').indexOf('    get:') + 1;
      const row = await until('the summary-only warning in Problems', async () => {
        await problemsText(page);
        return page.evaluate(() => {
          for (const r of document.querySelectorAll('.markers-panel .monaco-list-row')) {
            const t = r.textContent;
            if (/no description; the title is used/.test(t)) return t;
          }
          return null;
        });
      }, 30000);
      const line = Number(/Ln (\d+)/.exec(row)?.[1]);
      if (line !== want) throw new Error(`the warning is on line ${line}, not on the operation's "get:" (line ${want}): ${row}`);
      await shot('problems');
      await page.keyboard.press('Escape');
      await palette(page, 'GeoWeave: Find Tool');
      const top = await findToolResults(page, 'urban heat island intensity per district');
      await shot('find-tool');
      await page.keyboard.press('Escape');
      if (top[0]?.id !== 'uhi_intensity_by_district') throw new Error(`Find Tool ranks ${top.map((r) => r.id).join(', ')}`);
      return `${base} → ${base + 2} tools; warning on line ${line} (the operation's get:); Find Tool: ${top.map((r) => r.id).join(', ')}`;
    } finally {
      fs.rmSync(file, { force: true });
      await until(`the status bar back at ${base} tools`, async () => (await statusToolCount(page)) === base, 60000).catch(() => undefined);
    }
  },
};
