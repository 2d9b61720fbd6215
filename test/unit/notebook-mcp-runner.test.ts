/**
 * The MCP runner against a real MCP server on stdio: `test/fixtures/mcp/eo_server.js`, written with
 * the reference SDK (@modelcontextprotocol/sdk), started as the workspace's `.vscode/mcp.json` says.
 * Its tools read GeoTIFFs with geotiff.js and write them with GDAL; the numbers are checked against
 * GDAL/numpy, the files against what the cell's output folder holds afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { runMcpTool, serverCatalog, serverCatalogFile, McpPool } from '../../src/core/notebook/mcp-runner';
import { parseJsonc, readMcpConfig, resolveLaunch } from '../../src/core/notebook/mcp-config';
import type { McpLaunch } from '../../src/core/notebook/mcp-client';
import { loadCatalog } from '../../src/core/manifests/load';
import { executability } from '../../src/core/retrieval/executability';
import { missingArgComments } from '../../src/core/notebook/suggested-cell';
import type { ToolManifest } from '../../src/core/manifests/types';
import { PY, gdalSkip, tmpDir } from '../helpers/raster-gdal';
import { repoRoot, writeJson } from '../fixtures/helpers';

const SERVER = path.join(repoRoot, 'test', 'fixtures', 'mcp', 'eo_server.js');
const TOKEN = 'tok-51f0';

/** A workspace with a 4-band UInt16 scene (nodata border) and the server in its `.vscode/mcp.json` (JSONC, as VS Code writes it). */
function workspace(): { dir: string; scene: string; starts: string } {
  const dir = tmpDir('gw-mcp-');
  const scene = path.join(dir, 'scene.tif');
  const made = spawnSync(PY, ['-c', `
from osgeo import gdal, osr
import numpy as np
rng = np.random.default_rng(11)
d = gdal.GetDriverByName('GTiff').Create('${scene}', 90, 70, 4, gdal.GDT_UInt16)
d.SetGeoTransform([600000, 10, 0, 5100000, 0, -10]); s = osr.SpatialReference(); s.ImportFromEPSG(32632); d.SetProjection(s.ExportToWkt())
for i in range(4):
    a = rng.integers(200, 5000, (70, 90)).astype('uint16'); a[:, :4] = 0
    b = d.GetRasterBand(i + 1); b.SetNoDataValue(0); b.WriteArray(a)
d = None
`], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const starts = path.join(dir, 'starts.txt');
  fs.mkdirSync(path.join(dir, '.vscode'));
  fs.writeFileSync(path.join(dir, '.vscode', 'mcp.json'), `{
  // The team's Earth-observation server.
  "inputs": [{ "type": "promptString", "id": "eo-token", "description": "EO server token", "password": true }],
  "servers": {
    "eo": {
      "type": "stdio",
      "command": "node",
      "args": [${JSON.stringify(SERVER)}],
      "env": { "EO_SERVER_TOKEN": "\${input:eo-token}", "EO_EXPECTED_TOKEN": "${TOKEN}", "EO_STARTS_FILE": "\${workspaceFolder}/starts.txt" },
    },
    "remote": { "type": "http", "url": "https://example.invalid/mcp" },
  },
}
`);
  return { dir, scene, starts };
}

const input = async (spec: { id: string }) => (spec.id === 'eo-token' ? TOKEN : undefined);
const gdal = (code: string) => {
  const r = spawnSync(PY, ['-c', `from osgeo import gdal; import numpy as np, json\n${code}`], { encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stderr} ${r.error?.message ?? ''} ${r.signal ?? ''}`);
  return JSON.parse(r.stdout);
};
/** The port the fixture server started with `--http` or `--sse` prints ("listening PORT"). */
const listening = (server: ReturnType<typeof spawn>) => new Promise<number>((resolve, reject) => {
  server.stdout!.on('data', (d: Buffer) => { const m = /listening (\d+)/.exec(d.toString()); if (m) resolve(Number(m[1])); });
  server.on('exit', (code) => reject(new Error(`the server exited with ${code}`)));
});
const startCount = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).length : 0);
/** Files left in an output folder, staging folders included. */
const listing = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

test('mcp.json is read as VS Code reads it: comments, trailing commas, variables, inputs; a server it cannot start is named with why', async () => {
  assert.deepEqual(parseJsonc('{"a": "// not a comment", /* c */ "b": [1, 2,],}'), { a: '// not a comment', b: [1, 2] });
  const { dir } = workspace();
  const config = readMcpConfig(dir);
  assert.deepEqual([...config.servers.keys()], ['eo', 'remote']);
  const launch = await resolveLaunch(config, 'eo', dir, input) as McpLaunch;
  assert.equal(launch.env.EO_SERVER_TOKEN, TOKEN);
  assert.equal(launch.env.EO_STARTS_FILE, `${dir}/starts.txt`);
  assert.equal(launch.cwd, dir);
  await assert.rejects(resolveLaunch(config, 'eo', dir), /server "eo": "env"."EO_SERVER_TOKEN" needs \$\{input:eo-token\} \(EO server token\), which was not given/);
  assert.deepEqual(await resolveLaunch(config, 'remote', dir), { name: 'remote', url: 'https://example.invalid/mcp', headers: {} });
  fs.mkdirSync(path.join(dir, '.cursor'));
  fs.writeFileSync(path.join(dir, '.cursor', 'mcp.json'), '{"mcpServers": {"old": {"type": "sse", "url": "http://127.0.0.1:9/sse"}, "ws": {"type": "websocket", "url": "ws://127.0.0.1:9/"}, "pw": {"url": "http://u:secret@127.0.0.1:9/mcp"}}}');
  assert.deepEqual(await resolveLaunch(readMcpConfig(dir), 'old', dir), { name: 'old', url: 'http://127.0.0.1:9/sse', headers: {}, sse: true });
  await assert.rejects(resolveLaunch(readMcpConfig(dir), 'ws', dir), /server "ws" is of "type": "websocket", which GeoWeave does not speak; .* Streamable HTTP \("type": "http"\) or the older HTTP\+SSE transport \("type": "sse"\)/);
  await assert.rejects(resolveLaunch(readMcpConfig(dir), 'pw', dir), /server "pw": "url" holds a user name or password; put the key in "headers"/);
  await assert.rejects(resolveLaunch(config, 'eo2', dir), /no MCP server "eo2" is configured in this workspace .*; it configures eo, remote/);
  fs.writeFileSync(path.join(dir, '.mcp.json'), '{"mcpServers": {"bad": {"command": "node", "args": ["x"], "env": {"A": "${command:foo}"}}}}');
  await assert.rejects(resolveLaunch(readMcpConfig(dir), 'bad', dir), /\.mcp\.json: server "bad": "env"."A" uses \$\{command:foo\}, which GeoWeave does not fill in/);
});

test('an MCP server\'s tools become a catalog and run from cells: statistics equal to GDAL\'s, a GeoTIFF written where GeoWeave chose, linked files and images', { skip: gdalSkip('an MCP server writing GeoTIFFs with GDAL', ['gdal_calc.py']), timeout: 120_000 }, async () => {
  const { dir, scene, starts } = workspace();
  // A wrong or missing token: the server refuses to start, and its own words say why.
  await assert.rejects(serverCatalog(dir, 'eo', { input: async () => 'wrong' }), /the MCP server "eo" exited with code 2: eo_server: EO_SERVER_TOKEN is wrong or missing/);
  const listed = await serverCatalog(dir, 'eo', { input });
  assert.equal(listed.info.name, 'eo-test-server');
  assert.deepEqual(listed.tools.map((t) => t.name), ['band_stats', 'ndvi_gdal', 'clip_copy', 'slow_mosaic', 'refuse', 'crash', 'chart']);
  writeJson(serverCatalogFile(dir, 'eo'), { server: 'eo', tools: listed.tools });
  const c = loadCatalog({ noBuiltin: true, workspaceDir: dir });
  assert.deepEqual(c.problems.filter((p) => p.severity === 'error').map((p) => p.message), []);
  const m = (id: string): ToolManifest => c.tools.find((x) => x.manifest.id === id)!.manifest;
  assert.deepEqual(m('ndvi_gdal').runner, { type: 'mcp', server: 'eo', tool: 'ndvi_gdal' });
  assert.equal(m('band_stats').inputs!.find((p) => p.name === 'raster')!.type, 'raster');
  // Where the tool writes is GeoWeave's to choose: not an argument the analyst is asked for.
  assert.deepEqual(executability(m('ndvi_gdal'), { items: [{ path: 'scene.tif', type: 'raster' }] }).notes.filter((n) => n.startsWith('set ')), ['set red (number) — no default', 'set nir (number) — no default']);
  assert.deepEqual(missingArgComments(m('ndvi_gdal'), []).split('\n').filter(Boolean).map((l) => l.split(':')[0]), ['# scene', '# red', '# nir']);
  const o = { outDir: path.join(dir, 'out'), cwd: dir };

  // Band statistics: the scene's path made absolute, the band a number; the structured answer is the statistics.
  const stats = await runMcpTool(m('band_stats'), { raster: 'scene.tif', band: '3' }, o, { input });
  const want = gdal(`d = gdal.Open('${scene}'); a = d.GetRasterBand(3).ReadAsArray().astype('float64'); v = a[a != 0]\nprint(json.dumps([v.mean(), float(v.min()), float(v.max()), int(v.size)]))`);
  assert.ok(Math.abs((stats.stats.mean as number) - want[0]) < 1e-9, `${stats.stats.mean} vs GDAL ${want[0]}`);
  assert.deepEqual([stats.stats.min, stats.stats.max, stats.stats.valid], want.slice(1));
  assert.match(stats.summary, /^eo\/band_stats answered in \d+ ms: mean [\d.]+, min \d+, max \d+, valid 6020\.$/);
  assert.equal(stats.provenance!.inputs[0].path, scene);

  // NDVI: the tool is given a staged path for output_path; the GeoTIFF lands in the output folder whole, finished like any output.
  const ndvi = await runMcpTool(m('ndvi_gdal'), { scene: 'scene.tif', red: 3, nir: 4 }, o, { input });
  const out = ndvi.outputs.output_path;
  assert.equal(out.type, 'raster');
  assert.equal(path.dirname(out.path), o.outDir);
  assert.ok(fs.existsSync(out.path) && ndvi.quicklook && fs.existsSync(ndvi.quicklook));
  const mean = gdal(`d = gdal.Open('${scene}'); r = d.GetRasterBand(3).ReadAsArray().astype('float64'); n = d.GetRasterBand(4).ReadAsArray().astype('float64')\nok = (r != 0)\nv = ((n - r) / (n + r + 1e-12)).astype('float32')[ok]\nprint(json.dumps(float(v.astype('float64').mean())))`);
  assert.ok(Math.abs((ndvi.stats.mean as number) - mean) < 1e-5, `${ndvi.stats.mean} vs numpy ${mean}`);
  assert.deepEqual(gdal(`d = gdal.Open('${out.path}'); print(json.dumps([d.RasterXSize, d.RasterYSize, d.GetGeoTransform()[0]]))`), [90, 70, 600000]);
  // The server quotes the path it was given (a staged one): the summary reads where the file is now.
  assert.ok(ndvi.summary.includes(`NDVI written to ${out.path}`), ndvi.summary);
  assert.ok(!listing(o.outDir).some((f) => f.startsWith('.')), `staging left behind: ${listing(o.outDir)}`);
  // A name the cell gives lands in the output folder; an absolute path is written where it says, and is the output.
  const named = await runMcpTool(m('ndvi_gdal'), { scene: 'scene.tif', red: 3, nir: 4, output_path: 'ndvi_june.tif' }, o, { input });
  assert.equal(named.outputs.output_path.path, path.join(o.outDir, 'ndvi_june.tif'));
  const there = path.join(dir, 'elsewhere.tif');
  const abs = await runMcpTool(m('ndvi_gdal'), { scene: 'scene.tif', red: 3, nir: 4, output_path: there }, o, { input });
  assert.deepEqual(abs.outputs.output_path, { path: there, type: 'raster' });

  // A file the answer links (resource_link) is an output where it is; an image is saved as the quicklook.
  const copy = await runMcpTool(m('clip_copy'), { raster: 'scene.tif' }, o, { input });
  assert.equal(copy.outputs.copy.type, 'raster');
  assert.equal(fs.readFileSync(copy.outputs.copy.path).length, fs.readFileSync(scene).length);
  const chart = await runMcpTool(m('chart'), {}, o, { input });
  assert.ok(chart.quicklook && fs.readFileSync(chart.quicklook).subarray(1, 4).toString() === 'PNG');
  assert.match(chart.summary, /: one bar; wrote chart_image1_\d+\.png\.$/);

  // Failures say who failed and why: the tool's own error, a server that died (its stderr), an argument checked before any start.
  await assert.rejects(runMcpTool(m('refuse'), { reason: 'no scene for 2019' }, o, { input }), /^Error: refuse: eo\/refuse reported an error: cannot do it: no scene for 2019$/);
  await assert.rejects(runMcpTool(m('crash'), {}, o, { input }), /crash: the MCP server "eo" exited with code 3: eo_server: out of memory while reading tile 7/);
  const before = startCount(starts);
  await assert.rejects(runMcpTool(m('band_stats'), { raster: 'scene.tif', band: 'three' }, o, { input }), /band_stats: argument "band" must be a number, got "three"/);
  await assert.rejects(runMcpTool(m('band_stats'), { rastr: 'scene.tif' }, o, { input }), /band_stats: unknown argument "rastr"; band_stats takes raster, band/);
  assert.equal(startCount(starts), before, 'a bad argument must not start the server');

  // A pool keeps one session for consecutive cells.
  const pool = new McpPool();
  try {
    const n0 = startCount(starts);
    await runMcpTool(m('band_stats'), { raster: 'scene.tif', band: 1 }, o, { input, pool });
    await runMcpTool(m('band_stats'), { raster: 'scene.tif', band: 2 }, o, { input, pool });
    assert.equal(startCount(starts) - n0, 1);
  } finally {
    pool.dispose();
  }
});

test('a cancelled MCP call leaves no file and no server behind; progress reaches the cell', { timeout: 60_000 }, async () => {
  const { dir, starts } = workspace();
  writeJson(serverCatalogFile(dir, 'eo'), { server: 'eo', tools: (await serverCatalog(dir, 'eo', { input })).tools });
  const c = loadCatalog({ noBuiltin: true, workspaceDir: dir });
  const slow = c.tools.find((x) => x.manifest.id === 'slow_mosaic')!.manifest;
  const o = { outDir: path.join(dir, 'out'), cwd: dir };
  const ac = new AbortController();
  const seen: string[] = [];
  const pool = new McpPool();
  try {
    const run = runMcpTool(slow, { seconds: 30 }, { ...o, signal: ac.signal, onProgress: (p, msg) => { if (msg?.startsWith('tile')) { seen.push(`${p.toFixed(3)} ${msg}`); if (seen.length === 3) ac.abort(); } } }, { input, pool });
    await assert.rejects(run, /slow_mosaic: cancelled/);
    assert.deepEqual(seen.slice(0, 3), ['0.003 tile 1 of 300', '0.007 tile 2 of 300', '0.010 tile 3 of 300']);
    assert.deepEqual(listing(o.outDir).filter((f) => !f.startsWith('.gw-stale')), []);
    // The session of a cancelled call is closed: its server is gone (it may still have been writing).
    const pid = Number(fs.readFileSync(starts, 'utf8').trim().split('\n').pop());
    let alive = true;
    for (let i = 0; i < 50 && alive; i++) {
      await new Promise((r) => setTimeout(r, 100));
      try { process.kill(pid, 0); } catch { alive = false; }
    }
    assert.equal(alive, false, `server ${pid} still runs after the cancel`);
  } finally {
    pool.dispose();
  }
});

test('geoweave mcp add and geoweave run: a server\'s tools written into the catalog from the command line, run with ${input:ID} from the environment, the key never printed', { timeout: 60_000 }, async () => {
  const { dir, scene } = workspace();
  const cli = (...a: string[]) => spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'geoweave.js'), ...a], { cwd: dir, encoding: 'utf8', env: { ...process.env, GEOWEAVE_MCP_INPUT_EO_TOKEN: TOKEN } });
  const list = cli('mcp', 'list');
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, /^eo\tnode .*eo_server\.js\t\.vscode\/mcp\.json\nremote\thttps:\/\/example\.invalid\/mcp\t\.vscode\/mcp\.json\n$/);
  const add = cli('mcp', 'add', 'eo');
  assert.equal(add.status, 0, add.stderr);
  assert.equal(add.stdout, 'eo: 7 tools written to .geoweave/tools/mcp-eo.json\n');
  const ran = cli('run', 'band_stats', '--arg', 'raster=scene.tif', '--arg', 'band=2', '--json');
  assert.equal(ran.status, 0, ran.stderr);
  const r = JSON.parse(ran.stdout);
  const want = gdal(`d = gdal.Open('${scene}'); a = d.GetRasterBand(2).ReadAsArray().astype('float64'); v = a[a != 0]\nprint(json.dumps(v.mean()))`);
  assert.ok(Math.abs(r.stats.mean - want) < 1e-9, `${r.stats.mean} vs ${want}`);
  // Without the input the server cannot start; the message names the variable, and a wrong key is never shown.
  const none = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'geoweave.js'), 'run', 'band_stats', '--arg', 'raster=scene.tif', '--arg', 'band=2'], { cwd: dir, encoding: 'utf8', env: { ...process.env, GEOWEAVE_MCP_INPUT_EO_TOKEN: undefined } });
  assert.notEqual(none.status, 0);
  assert.match(none.stderr, /needs \$\{input:eo-token\} \(EO server token\), which was not given; set the environment variable GEOWEAVE_MCP_INPUT_EO_TOKEN/);
  const wrong = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'geoweave.js'), 'run', 'crash'], { cwd: dir, encoding: 'utf8', env: { ...process.env, GEOWEAVE_MCP_INPUT_EO_TOKEN: TOKEN } });
  assert.match(wrong.stderr, /exited with code 3: eo_server: out of memory/);
  assert.ok(!`${wrong.stderr}${ran.stdout}${ran.stderr}${add.stdout}`.includes(TOKEN));
  // suggest --data judges a server's tool as the panel does: runnable where the workspace configures
  // its server, and not where the catalog file was copied without the configuration.
  const readiness = (cwd: string) => {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'geoweave.js'), 'suggest', 'band statistics of the scene', '--data', dir, '--k', '40', '--json', '--state', tmpDir('gw-mcp-state-')], { cwd, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return (JSON.parse(r.stdout).candidates as { id: string; readiness: { runnable: boolean; notes: string[] } }[]).find((c) => c.id === 'band_stats')?.readiness;
  };
  assert.equal(readiness(dir)?.runnable, true);
  const copied = tmpDir('gw-mcp-copied-');
  fs.mkdirSync(path.join(copied, '.geoweave', 'tools'), { recursive: true });
  fs.copyFileSync(path.join(dir, '.geoweave', 'tools', 'mcp-eo.json'), path.join(copied, '.geoweave', 'tools', 'mcp-eo.json'));
  const elsewhere = readiness(copied);
  assert.equal(elsewhere?.runnable, false);
  assert.ok(elsewhere?.notes.some((n) => n.includes('needs the MCP server "eo", which this workspace does not configure')), JSON.stringify(elsewhere));
});

test('an MCP server on Streamable HTTP: its key sent as the configuration\'s headers say, statistics equal to GDAL\'s, progress streamed, a cancelled call ends its session', { skip: gdalSkip('an MCP server reading GeoTIFFs'), timeout: 60_000 }, async () => {
  const { dir, scene } = workspace();
  const deletes = path.join(dir, 'deletes.txt');
  const server = spawn(process.execPath, [SERVER, '--http'], { env: { ...process.env, EO_EXPECTED_TOKEN: TOKEN, EO_DELETES_FILE: deletes }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const port = await listening(server);
    fs.writeFileSync(path.join(dir, '.vscode', 'mcp.json'), JSON.stringify({
      inputs: [{ type: 'promptString', id: 'eo-token', description: 'EO server token', password: true }],
      servers: { eohttp: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer ${input:eo-token}' } } },
    }));
    await assert.rejects(serverCatalog(dir, 'eohttp', { input: async () => 'wrong' }), /"eohttp" refused: answered 401 Unauthorized: \{"error":"invalid token"\} \(check the key its "headers" send, in the MCP configuration\)/);
    const listed = await serverCatalog(dir, 'eohttp', { input });
    assert.equal(listed.tools.length, 7);
    writeJson(serverCatalogFile(dir, 'eohttp'), { server: 'eohttp', tools: listed.tools });
    const c = loadCatalog({ noBuiltin: true, workspaceDir: dir });
    const m = (id: string): ToolManifest => c.tools.find((x) => x.manifest.id === id)!.manifest;
    const o = { outDir: path.join(dir, 'out'), cwd: dir };
    const pool = new McpPool();
    try {
      const stats = await runMcpTool(m('band_stats'), { raster: 'scene.tif', band: 4 }, o, { input, pool });
      const want = gdal(`d = gdal.Open('${scene}'); a = d.GetRasterBand(4).ReadAsArray().astype('float64'); v = a[a != 0]\nprint(json.dumps(v.mean()))`);
      assert.ok(Math.abs((stats.stats.mean as number) - want) < 1e-9, `${stats.stats.mean} vs ${want}`);
      assert.match(stats.summary, /^eohttp\/band_stats answered in \d+ ms: mean /);
      const ac = new AbortController();
      const seen: string[] = [];
      await assert.rejects(runMcpTool(m('slow_mosaic'), { seconds: 30 }, { ...o, signal: ac.signal, onProgress: (p, msg) => { if (msg?.startsWith('tile')) { seen.push(msg); if (seen.length === 2) ac.abort(); } } }, { input, pool }), /slow_mosaic: cancelled/);
      assert.deepEqual(seen, ['tile 1 of 300', 'tile 2 of 300']);
      assert.deepEqual(listing(o.outDir).filter((f) => !f.startsWith('.gw-stale')), []);
      // Both sessions were ended (the listing's, and the cancelled call's): the server was sent DELETE for each.
      const ended = () => (fs.existsSync(deletes) ? new Set(fs.readFileSync(deletes, 'utf8').trim().split('\n').filter((x) => x && x !== 'undefined')).size : 0);
      for (let i = 0; i < 50 && ended() < 2; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(ended(), 2);
    } finally {
      pool.dispose();
    }
  } finally {
    server.kill();
  }
});

test('an MCP server on the older HTTP+SSE transport: "type": "sse" and an "http" entry that falls back to it, the key sent, statistics equal to GDAL\'s, a cancelled call ends its stream', { skip: gdalSkip('an MCP server reading GeoTIFFs'), timeout: 60_000 }, async () => {
  const { dir, scene } = workspace();
  const ended = path.join(dir, 'ended.txt');
  const server = spawn(process.execPath, [SERVER, '--sse'], { env: { ...process.env, EO_EXPECTED_TOKEN: TOKEN, EO_DELETES_FILE: ended }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const port = await listening(server);
    const auth = { Authorization: 'Bearer ${input:eo-token}' };
    fs.writeFileSync(path.join(dir, '.vscode', 'mcp.json'), JSON.stringify({
      inputs: [{ type: 'promptString', id: 'eo-token', description: 'EO server token', password: true }],
      servers: {
        eosse: { type: 'sse', url: `http://127.0.0.1:${port}/sse`, headers: auth },
        // VS Code's own entry for such a server: Streamable HTTP is tried first (POST answered 404), then the older transport.
        eoold: { type: 'http', url: `http://127.0.0.1:${port}/sse`, headers: auth },
      },
    }));
    await assert.rejects(serverCatalog(dir, 'eosse', { input: async () => 'wrong' }), /"eosse" answered 401 Unauthorized when its event stream at http:\/\/127\.0\.0\.1:\d+\/sse was opened: \{"error":"invalid token"\} \(check the key its "headers" send/);
    for (const name of ['eosse', 'eoold']) {
      const listed = await serverCatalog(dir, name, { input });
      assert.equal(listed.tools.length, 7, name);
      writeJson(serverCatalogFile(dir, name), { server: name, tools: listed.tools });
    }
    const c = loadCatalog({ noBuiltin: true, workspaceDir: dir });
    const m = (id: string): ToolManifest => c.tools.find((x) => x.manifest.id === id)!.manifest;
    // The first file read (mcp-eoold.json) keeps the plain names; the second server's are qualified.
    assert.deepEqual(m('band_stats').runner, { type: 'mcp', server: 'eoold', tool: 'band_stats' });
    assert.deepEqual(m('eosse.band_stats').runner, { type: 'mcp', server: 'eosse', tool: 'band_stats' });
    const o = { outDir: path.join(dir, 'out'), cwd: dir };
    const pool = new McpPool();
    try {
      const want = gdal(`d = gdal.Open('${scene}'); a = d.GetRasterBand(2).ReadAsArray().astype('float64'); v = a[a != 0]\nprint(json.dumps(v.mean()))`);
      for (const id of ['band_stats', 'eosse.band_stats']) {
        const stats = await runMcpTool(m(id), { raster: 'scene.tif', band: 2 }, o, { input, pool });
        assert.ok(Math.abs((stats.stats.mean as number) - want) < 1e-9, `${id}: ${stats.stats.mean} vs ${want}`);
      }
      const ac = new AbortController();
      const seen: string[] = [];
      await assert.rejects(runMcpTool(m('slow_mosaic'), { seconds: 30 }, { ...o, signal: ac.signal, onProgress: (p, msg) => { if (msg?.startsWith('tile')) { seen.push(msg); if (seen.length === 2) ac.abort(); } } }, { input, pool }), /slow_mosaic: cancelled/);
      assert.deepEqual(seen, ['tile 1 of 300', 'tile 2 of 300']);
    } finally {
      pool.dispose();
    }
    // Every stream GeoWeave opened was closed: the two listings' and one per server in the pool (eoold's
    // ran band_stats and the cancelled call, which closed it; eosse's was closed with the pool). The
    // wrong key's was refused before it opened.
    const closed = () => (fs.existsSync(ended) ? new Set(fs.readFileSync(ended, 'utf8').trim().split('\n').filter(Boolean)).size : 0);
    // Up to 20 s: the server notes a closed stream when its socket ends, late on a loaded machine
    // (5 s were too few once, with two other jobs on both cores).
    for (let i = 0; i < 200 && closed() < 4; i++) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(closed(), 4);
  } finally {
    server.kill();
  }
});

test('a server\'s tool named as a builtin one ("slope") is read as "<server>.slope", with a warning, and still called by its own name', () => {
  const dir = tmpDir('gw-mcp-names-');
  writeJson(serverCatalogFile(dir, 'eo'), { server: 'eo', tools: [
    { name: 'slope', description: 'Slope of a DEM in degrees.', inputSchema: { type: 'object', properties: { dem: { type: 'string', description: 'the DEM GeoTIFF' } }, required: ['dem'] } },
    { name: 'snow_line', description: 'Snow line elevation per aspect.', inputSchema: { type: 'object', properties: {} } },
  ] });
  const c = loadCatalog({ workspaceDir: dir });
  const ids = c.tools.filter((t) => t.manifest.runner?.type === 'mcp').map((t) => [t.manifest.id, t.manifest.runner]);
  assert.deepEqual(ids, [['eo.slope', { type: 'mcp', server: 'eo', tool: 'slope' }], ['snow_line', { type: 'mcp', server: 'eo', tool: 'snow_line' }]]);
  assert.deepEqual(c.problems.filter((p) => /MCP tool/.test(p.message)).map((p) => p.message), ['the MCP tool "slope" of server "eo" is read as "eo.slope": the catalog already has a tool "slope"']);
  assert.equal(c.problems.filter((p) => p.severity === 'error').length, 0);
});
