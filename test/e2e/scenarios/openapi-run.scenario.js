// A team's REST service, run from a notebook cell: its OpenAPI document (with the service's
// address in `servers`) goes into .geoweave/tools, a tool cell names one operation, and running the
// cell uploads the scene to the service (multipart, as FastAPI's UploadFile takes it) and shows its
// JSON answer. The service is a Node server started here; it answers with the size and checksum of
// what it received, which must be the workspace file's. The service wants a bearer key (as its
// document's securitySchemes say): the first run is refused and says how to set one; the key is
// set with "GeoWeave: Set Service Key" (a quick pick of the address, a password box), and the
// second run sends it.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const path = require('path');

const CELL = /^heat_uhi_upload/;
const KEY = 'e2e-service-key-4d1f';

function spec(base) {
  return {
    openapi: '3.1.0',
    info: { title: 'heat-runner', version: '1.0.0' },
    servers: [{ url: `${base}/v1` }],
    security: [{ HTTPBearer: [] }],
    components: { securitySchemes: { HTTPBearer: { type: 'http', scheme: 'bearer' } } },
    paths: {
      '/uhi/{city}': {
        post: {
          operationId: 'heat_uhi_upload',
          summary: 'Urban heat island of an uploaded thermal scene',
          description: 'Surface urban heat island intensity of a city from an uploaded land surface temperature GeoTIFF.',
          parameters: [{ name: 'city', in: 'path', required: true, schema: { type: 'string' } }, { name: 'rural_buffer_m', in: 'query', schema: { type: 'number' } }],
          requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: ['lst'], properties: { lst: { type: 'string', format: 'binary', description: 'the land surface temperature GeoTIFF' } } } } } },
          responses: { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'object', properties: { uhi_c: { type: 'number' } } } } } } },
        },
      },
    },
  };
}

module.exports = {
  name: 'an OpenAPI service with an address and a key: refused without one, the key set with Set Service Key, then a tool cell uploads the scene and shows the JSON answer',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'service.geonb'), 'urban heat island of Milan from the thermal scene', ['heat_uhi_upload\ncity: milano centro\nrural_buffer_m: 1500\nlst: thermal_landsat.tif']);
  },
  async run({ page, ws, until, palette, statusToolCount, findToolResults, openFile, runCell, outputTexts, shot }) {
    const seen = [];
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks);
        seen.push(`${req.headers.authorization ?? 'no key'} ${req.url}`);
        if (req.headers.authorization !== `Bearer ${KEY}`) {
          res.writeHead(401, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ detail: 'Not authenticated' }));
          return;
        }
        const form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': req.headers['content-type'] }, body }).formData();
        const lst = form.get('lst');
        const bytes = Buffer.from(await lst.arrayBuffer());
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ city: decodeURIComponent(req.url.split('/')[3].split('?')[0]), received: lst.name, bytes: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16), uhi_c: 3.4 }));
      });
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${server.address().port}`;
    const file = path.join(ws, '.geoweave', 'tools', 'heat-runner.openapi.json');
    try {
      await palette(page, 'GeoWeave: Find Tool');
      await findToolResults(page, 'slope of the terrain');
      await page.keyboard.press('Escape');
      const count = await until('the tool count in the status bar', () => statusToolCount(page), 60000);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(spec(base), null, 2));
      await until(`the status bar at ${count + 1} tools`, async () => (await statusToolCount(page)) === count + 1, 60000);
      await openFile(page, 'service.geonb');
      if ((await runCell(page, CELL)) !== 'error') throw new Error(`the service ran without its key: ${seen.join(', ')}`);
      const refused = await until('the refusal in the cell output', async () => { const t = await outputTexts(page); return /answered 401/.test(t) ? t : null; }, 30000);
      const want401 = `no key is set for ${base}: set one with "GeoWeave: Set Service Key"`;
      if (!refused.includes(want401)) throw new Error(`the refusal does not say how to set the key: ${refused.slice(0, 400)}`);
      await shot('refused');
      // Set Service Key: the catalog's keyed service is offered first; then the key, in a password box.
      await palette(page, 'GeoWeave: Set Service Key');
      const offered = await until('the service address in the quick pick', () => page.evaluate((b) => {
        const rows = [...document.querySelectorAll('.quick-input-widget .quick-input-list .monaco-list-row')].map((r) => r.textContent.trim());
        return rows.some((r) => r.includes(b)) ? rows : null;
      }, base), 20000);
      await page.keyboard.press('Enter');
      await until('the password box', () => page.evaluate(() => document.querySelector('.quick-input-widget .quick-input-box input')?.type === 'password' || null), 15000);
      await page.keyboard.type(KEY, { delay: 5 });
      await page.keyboard.press('Enter');
      await page.waitForTimeout(500);
      const state = await runCell(page, CELL);
      const text = await until('the answer in the cell output', async () => { const t = await outputTexts(page); return /answered/.test(t) ? t : null; }, 60000).catch(async () => outputTexts(page));
      await shot('answer');
      if (state !== 'ok') throw new Error(`the cell did not run: ${text.slice(0, 400)}`);
      const local = fs.readFileSync(path.join(ws, 'thermal_landsat.tif'));
      const sha = crypto.createHash('sha256').update(local).digest('hex').slice(0, 16);
      if (seen.join(' | ') !== `no key /v1/uhi/milano%20centro?rural_buffer_m=1500 | Bearer ${KEY} /v1/uhi/milano%20centro?rural_buffer_m=1500`) throw new Error(`the service was called as ${seen.join(' | ') || 'nothing'}`);
      if (text.includes(KEY)) throw new Error('the key shows in the cell output');
      for (const want of [`POST ${base}/v1/uhi/milano%20centro answered`, 'uhi_c', '3.4', String(local.length), sha]) {
        if (!text.includes(want)) throw new Error(`the output lacks "${want}": ${text.slice(0, 500)}`);
      }
      const line = text.split('\n').find((l) => /answered/.test(l)) ?? '';
      return `without a key: "…${want401.slice(0, 60)}…"; Set Service Key offered ${offered.find((r) => r.includes(base))}; then called ${seen[1].replace(KEY, '<key>')}; ${local.length} bytes uploaded, checksum ${sha} as sent; "${line.trim().slice(0, 140)}"`;
    } finally {
      fs.rmSync(file, { force: true });
      server.closeAllConnections();
      server.close();
    }
  },
};
