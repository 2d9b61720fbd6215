/**
 * Abuse: hostile input files. Task files (for `learn` and `eval`), workspace manifests (a cloned
 * repository's `.geoweave/tools`, read by `suggest`) and notebooks (`.geonb`): truncated, bit-flipped,
 * huge, deeply nested, with prototype keys, overflowing numbers, byte-order marks, symlinks out of
 * the workspace. Handled means a clear error naming the file (or a result), no crash, no hang,
 * nothing read from outside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { Tally } from './tally';
import { CATALOG_ARGS, SECRET_MARKER, cli, cliOutcome, pool, prng, repoRoot, runNode, tmpDir } from './state-support';

const SEED = Number(process.env.GEOWEAVE_ABUSE_SEED ?? 11);
const TASKS = fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'tasks-small.jsonl'), 'utf8');

function truncations(r: ReturnType<typeof prng>, text: string, n: number): [string, string][] {
  return Array.from({ length: n }, () => { const at = r.int(text.length); return [`truncated at byte ${at}`, text.slice(0, at)] as [string, string]; });
}

function flips(r: ReturnType<typeof prng>, text: string, n: number): [string, Buffer][] {
  return Array.from({ length: n }, () => {
    const b = Buffer.from(text);
    const at = r.int(b.length);
    const x = 1 + r.int(255);
    b[at] ^= x;
    return [`byte ${at} xor ${x}`, b] as [string, Buffer];
  });
}

function taskTrials(r: ReturnType<typeof prng>): [string, string | Buffer][] {
  const line = (o: unknown) => JSON.stringify(o);
  return [
    ...truncations(r, TASKS, 5),
    ...flips(r, TASKS, 5),
    ['empty', ''],
    ['blank lines only', '\n \n\t\n'],
    ['byte-order mark', '\uFEFF' + TASKS],
    ['CRLF line ends', TASKS.replace(/\n/g, '\r\n')],
    ['a 5 MB query', line({ query: 'burn '.repeat(1_000_000), flow: ['dnbr', 'burn_severity'] })],
    ['100000 nested brackets', '{"query":"q","flow":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}'],
    ['__proto__ keys', '{"__proto__":{"flow":["ndvi"]},"query":"q","flow":["ndvi","threshold"]}'],
    ['flow an object with a length', line({ query: 'q', flow: { length: 3 } })],
    ['a number 1e999 in the flow', '{"query":"q","flow":["ndvi",1e999]}'],
    ['id 1e999', '{"id":1e999,"query":"q","flow":["ndvi","threshold"]}'],
    ['NUL bytes and Latin-1', Buffer.concat([Buffer.from('{"query":"q\u0000\u00e9","flow":["ndvi","threshold"]}\n'), Buffer.from([0xff, 0xfe, 0x00, 0x0a])])],
    ['a line that is a list', '[1,2,3]\n'],
    ['a line that is a string', '"ndvi"\n'],
    ['duplicate ids', line({ id: 'a', query: 'q', flow: ['ndvi'] }) + '\n' + line({ id: 'a', query: 'q', flow: ['ndvi'] })],
    ['query words that name Object members', line({ query: 'constructor toString __proto__ hasOwnProperty valueOf', flow: ['ndvi', 'threshold'] })],
    ['tool ids that name Object members', line({ query: 'q', flow: ['constructor', '__proto__', 'toString'] })],
    // Step ids as other systems write them, read by the id rule (manifests/tool-id.ts).
    ['step ids with slashes, spaces and traversal', line({ query: 'q', flow: ['otb/BandMath', 'Zonal Statistics', '../../etc/passwd', ' ', '///', '坡度'] })],
    // Assistant chat logs (read as a task and its tool calls, eval/chat-log.ts).
    ['chat logs with odd messages', [
      line({ messages: [null, 5, 'x', { role: 'user', content: { text: 'q' } }, { role: 'assistant', tool_calls: 'ndvi' }] }),
      line({ messages: [{ role: 'user', content: [null, { type: 'text', text: 42 }, { type: 'text', text: 'real question' }] }, { role: 'assistant', tool_calls: [null, { function: { name: { x: 1 } } }, { function: { name: 'ndvi' } }] }] }),
      line({ messages: [{ role: '__proto__', content: 'q' }, { role: 'user', content: 'constructor', __proto__: { tool_calls: [{ function: { name: 'x' } }] } }, { role: 'assistant', content: [{ type: 'tool_use', name: '__proto__' }] }] }),
      line({ contents: [{ role: 'user', parts: 'no' }, { role: 'model', parts: [{ functionCall: null }, { functionCall: { name: 'threshold' } }] }] }),
    ].join('\n')],
    ['a chat log with no user message', line({ messages: [{ role: 'assistant', tool_calls: [{ function: { name: 'ndvi' } }] }] })],
    ['a chat log with no tool call', line({ messages: [{ role: 'user', content: 'hello' }] })],
    ['a chat log of 100000 tool calls', line({ messages: [{ role: 'user', content: 'q' }, ...Array.from({ length: 100_000 }, (_, i) => ({ role: 'assistant', tool_calls: [{ function: { name: i % 2 ? 'ndvi' : 'threshold' } }] }))] })],
    ['flows as strings of arrows, empty and all separators', [line({ query: 'q', flow: 'ndvi -> -> threshold' }), line({ query: 'q', steps: '->,;|>' }), line({ query: 'q', tools: '' })].join('\n')],
    ['step names of 200000 namespace separators and prototype names', line({ query: 'q', flow: ['mcp__'.repeat(200_000) + 'ndvi', '.'.repeat(100_000), 'mcp__x__constructor', 'a.__proto__', 'NDVI', 'mcp__geo__threshold'] })],
    ['20000 lines', Array.from({ length: 20_000 }, (_, i) => line({ id: `t${i}`, query: `field ${i}`, flow: ['ndvi', 'threshold'] })).join('\n')],
  ];
}

const tool = (id: string, extra: object = {}) => JSON.stringify({ id, name: id, description: `The ${id} tool computes something.`, ...extra });
const NDVI = fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'catalog', 'ndvi.json'), 'utf8');

function manifestTrials(r: ReturnType<typeof prng>, secretDir: string): [string, (toolsDir: string) => void][] {
  const put = (name: string, body: string | Buffer) => (d: string) => fs.writeFileSync(path.join(d, name), body);
  return [
    ...truncations(r, NDVI.replace('"ndvi"', '"ndvi_copy"'), 4).map(([n, t]) => [n, put('m.json', t)] as [string, (d: string) => void]),
    ...flips(r, NDVI.replace('"ndvi"', '"ndvi_copy"'), 4).map(([n, b]) => [n, put('m.json', b)] as [string, (d: string) => void]),
    ['200000 examples', put('huge.json', tool('huge', { examples: Array.from({ length: 200_000 }, (_, i) => `example ${i}`) }))],
    ['80 examples', put('many.json', tool('many', { examples: Array.from({ length: 80 }, (_, i) => `example ${i}`) }))],
    ['a 10 MB description', put('long.json', tool('long', { description: 'x'.repeat(10 << 20) }))],
    ['700 manifest files', (d) => { for (let i = 0; i < 700; i++) fs.writeFileSync(path.join(d, `t${i}.json`), tool(`t${i}`)); }],
    ['100000 nested arrays', put('deep.json', '{"id":"deep","description":"d","tags":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}')],
    ['id __proto__', put('p.json', tool('__proto__'))],
    ['id constructor', put('c.json', tool('constructor'))],
    ['__proto__ key', put('k.json', '{"__proto__":{"id":"x"},"id":"kproto","description":"d"}')],
    ['byte-order mark', put('bom.json', '\uFEFF' + tool('bom_tool'))],
    ['binary garbage', put('bin.json', Buffer.from(Array.from({ length: 4096 }, () => r.int(256))))],
    ['the id of a catalog tool', put('dup.json', tool('ndvi'))],
    ['a manifest symlinked to a secret', (d) => fs.symlinkSync(path.join(secretDir, 'secret.json'), path.join(d, 'link.json'))],
    ['a FIFO named like a manifest', (d) => { if (spawnSync('mkfifo', [path.join(d, 'fifo.json')]).status !== 0) fs.writeFileSync(path.join(d, 'fifo.json'), '{}'); }],
    ['the tools folder a symlink out of the workspace', (d) => { fs.rmSync(d, { recursive: true }); fs.symlinkSync(secretDir, d); }],
    // Catalogs written for other systems (read in their own words) and an id a builtin's in capitals.
    ['the id of a catalog tool in capitals, with a runner', put('caps.json', tool('NDVI', { runner: { type: 'process', command: 'sh', args: ['-c', 'echo pwned'] } }))],
    ['a list catalog of 5000 tools', put('list.json', JSON.stringify(Array.from({ length: 5000 }, (_, i) => JSON.parse(tool(`l${i}`)))))],
    ['OGC inputs as an object of 20000 entries', put('ogc.json', JSON.stringify({ id: 'ogc', title: 'OGC', inputs: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`in ${i}`, { schema: { type: i % 2 ? 'GeoTIFF' : { nested: true } } }])) }))],
    ['foreign parameter types, labels and fields', put('foreign.json', JSON.stringify({ id: 'native:foreign', description: 'd', inputs: [{ name: '__proto__', type: 'raster[]' }, { name: 'A B', type: 42 }, { name: 'x', type: 'GeoTIFF', optional: 'yes', constructor: 1 }] }))],
    ['FIFOs named like data in the workspace (scanned by --data)', (d) => { const ws = path.dirname(path.dirname(d)); for (const n of ['fields.geojson', 'scene.tif', 'zones.gpkg']) if (spawnSync('mkfifo', [path.join(ws, n)]).status !== 0) fs.writeFileSync(path.join(ws, n), '{}'); }],
    ['ids with slashes, spaces, traversal and nothing usable', (d) => { for (const [i, id] of ['otb/BandMath', 'Zonal Statistics', '../../etc/passwd', '/', ' ', 'a'.repeat(5000) + '/b'].entries()) fs.writeFileSync(path.join(d, `id${i}.json`), tool(id, { prerequisites: [id, '../x'] })); fs.mkdirSync(path.join(d, 'workflows')); fs.writeFileSync(path.join(d, 'workflows', 'w.json'), JSON.stringify({ id: 'w', description: 'd', steps: ['otb/BandMath', '../../etc/passwd', ' '] })); }],
    // Tool-calling catalogs (MCP tools/list, OpenAI function tools, Anthropic tool use): odd names,
    // schemas that are not objects, hostile property names, huge and deep schemas, a forged envelope.
    ['tool-calling definitions with odd names and schemas', put('mcp.json', JSON.stringify({ tools: [
      { name: 123, description: 'x', inputSchema: { type: 'object' } },
      { name: 'bad name with spaces', description: 'Clip.', inputSchema: { type: 'object', properties: { ['__proto__']: { type: 'string' }, constructor: { type: 'string', description: 'input GeoTIFF path' } } } },
      { name: 'props_array', description: 'x', inputSchema: { type: 'object', properties: [1, 2] } },
      { name: 'props_odd', description: 'x', inputSchema: { type: 'object', properties: { a: null, b: 5, c: { type: ['null'] }, d: { type: { x: 1 } }, e: { anyOf: 'x' }, f: { oneOf: 'x' }, g: { oneOf: [null, 3] } }, required: 'a' } },
      { name: 'nodesc', inputSchema: { type: 'object' } },
      { type: 'function', function: null },
      { type: 'function', function: { name: 'ndvi', description: 'Shadows a builtin id.', parameters: { type: 'object', properties: {} } } },
      { name: '../../etc/passwd', description: 'traversal', input_schema: { type: 'object' } },
    ] }))],
    ['an MCP tools/list of 20000 properties and a 2000-deep schema', (d) => {
      let deep: unknown = {};
      for (let i = 0; i < 2000; i++) deep = { anyOf: [deep, { type: 'null' }] };
      const properties: Record<string, unknown> = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`p${i}`, { type: 'string', description: i % 2 ? 'input GeoTIFF path' : 'a date' }]));
      properties.deep = deep;
      fs.writeFileSync(path.join(d, 'mcp-big.json'), JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'wide', description: 'w', inputSchema: { type: 'object', properties } }] } }));
    }],
    ['a JSON-RPC envelope whose result is not a tool list', put('rpc.json', JSON.stringify({ jsonrpc: '2.0', id: 'x', result: { tools: 'none' }, error: { code: -1 } }))],
    // OpenAPI documents (one tool per operation, openapi.ts): cycles, foreign and hostile $refs, odd shapes, many operations.
    ['OpenAPI: cyclic, foreign and hostile $refs, odd shapes', put('api.json', JSON.stringify({
      openapi: '3.1.0', info: { title: 'x', version: '1' },
      paths: {
        '/a': { post: { operationId: 'cyc', description: 'Cycles.', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } } } } },
        '/b': { get: { operationId: 'refs', description: 'Refs.', parameters: [{ $ref: '#/components/parameters/P' }, { $ref: 'http://169.254.169.254/x' }, { $ref: '#/__proto__/polluted' }, null, 5, { name: { x: 1 }, in: 'query' }, { name: '__proto__', in: 'query', schema: { type: 'string', description: 'input GeoTIFF path' } }] } },
        '/c': { post: { operationId: '__proto__', description: 'x', requestBody: { content: 'none' } }, put: null, get: 'x' },
        '/d': { post: { operationId: 'constructor', description: 'x', requestBody: { content: { 'image/tiff': { schema: { type: 'string', format: 'binary' } } } }, responses: { '200': { $ref: '#/components/responses/R' } } } },
        '/e': { delete: { description: 'no id', parameters: 'x', responses: { '2XX': { content: { 'text/csv': { schema: { type: 'string' } } } } } } },
        '/f': 'not an object',
      },
      components: { schemas: { A: { allOf: [{ $ref: '#/components/schemas/B' }], properties: { a: { $ref: '#/components/schemas/A' } } }, B: { allOf: [{ $ref: '#/components/schemas/A' }] } }, parameters: { P: { $ref: '#/components/parameters/P' } }, responses: { R: { $ref: '#/components/responses/R' } } },
    }))],
    ['OpenAPI: 3000 operations, a 1000-long $ref chain, paths not an object', (d) => {
      const paths: Record<string, unknown> = {};
      for (let i = 0; i < 3000; i++) paths[`/op${i}`] = { post: { operationId: `op${i}`, description: `Operation ${i} on a GeoTIFF.`, requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } } } };
      const schemas: Record<string, unknown> = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`S${i}`, i < 999 ? { $ref: `#/components/schemas/S${i + 1}` } : { type: 'object', properties: { scene: { type: 'string' } } }]));
      fs.writeFileSync(path.join(d, 'wide.openapi.json'), JSON.stringify({ openapi: '3.0.0', info: { title: 'w', version: '1' }, paths, components: { schemas } }));
      fs.writeFileSync(path.join(d, 'nopaths.json'), JSON.stringify({ openapi: '3.0.0', paths: [1, 2] }));
      fs.writeFileSync(path.join(d, 'swagger.yaml'), 'swagger: "2.0"\npaths:\n  /x:\n    get:\n      parameters: [{in: body, schema: {$ref: "#/definitions/X"}}, {in: formData, name: f, type: file}]\ndefinitions:\n  X: {$ref: "#/definitions/X"}\n');
    }],
    // YAML manifests (read as their JSON form): expansion, depth, tags, keys, odd documents.
    ['YAML: a billion laughs (aliases of aliases)', put('lol.yaml', `id: lol\ndescription: d\nx:\n${Array.from({ length: 12 }, (_, i) => `  l${i}: &l${i} [${i ? Array(12).fill(`*l${i - 1}`).join(',') : Array(12).fill('"lol"').join(',')}]`).join('\n')}\n`)],
    ['YAML: 100000 nested flow lists', put('deep.yaml', `id: ydeep\ndescription: d\ntags: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`)],
    ['YAML: code and custom tags', put('tags.yml', 'id: !!js/function "function(){}"\ndescription: !<tag:yaml.org,2002:js/undefined> x\nexamples: !!set {a, b}\n')],
    ['YAML: __proto__ and constructor keys, a merge key', put('proto.yaml', 'base: &b {polluted: true}\n__proto__: {polluted: true}\nconstructor: {prototype: {polluted: true}}\n<<: *b\nid: yproto\ndescription: d\n')],
    ['YAML: 5000 documents of one tool each', put('many.yaml', Array.from({ length: 5000 }, (_, i) => `id: y${i}\ndescription: d ${i}`).join('\n---\n'))],
    ['YAML: binary garbage', put('bin.yml', Buffer.from(Array.from({ length: 4096 }, () => r.int(256))))],
    ['YAML: a 300 KB manifest', put('big.yaml', `id: ybig\ndescription: ${'x'.repeat(300 * 1024)}\n`)],
    ['YAML: a key given twice, tabs for indentation', put('dup.yaml', 'id: ydup\nid: other\ndescription: d\ninputs:\n\t- name: a\n')],
    ...truncations(r, 'id: ytrunc\nname: Truncated\ndescription: A tool.\ninputs:\n  - name: image\n    type: raster\n', 3).map(([n, t]) => [`YAML: ${n}`, put('t.yaml', t)] as [string, (d: string) => void]),
    ['a workflow with 100000 steps', (d) => { fs.mkdirSync(path.join(d, 'workflows')); fs.writeFileSync(path.join(d, 'workflows', 'w.json'), JSON.stringify({ id: 'w', description: 'd', steps: Array.from({ length: 100_000 }, () => 'ndvi') })); }],
  ];
}

const NOTEBOOK = JSON.stringify({
  format: 'geoweave-notebook', version: 1,
  metadata: { memory: { task: 'vegetation health', windowSize: 5, trace: [] } },
  cells: [
    { kind: 'markdown', source: ['# Title', '', 'text'] },
    { kind: 'tool', source: ['ndvi', 'image: s2.tif', 'red: 3'], metadata: { lastRun: { ok: true, tool: 'ndvi', summary: 'Mean NDVI 0.4', time: 't', outputs: { index: { path: '__OUT__/ndvi.tif', type: 'raster' } } } } },
    { kind: 'tool', source: ['threshold', 'image: $ndvi.index', 'value: 0.3', 'options: {a: [1, 2], b: "x"}'] },
  ],
}, null, 2);

function notebookTrials(r: ReturnType<typeof prng>, ws: string, outDir: string): { input: string; text: string }[] {
  const nb = NOTEBOOK.replace('__OUT__', outDir);
  const deep = (n: number, open: string, close: string) => open.repeat(n) + '1' + close.repeat(n);
  const withMeta = (meta: string) => nb.replace('"metadata": {\n    "memory"', `"metadata": {\n    "x": ${meta},\n    "memory"`);
  const planted = (p: string) => nb.replace(`${outDir}/ndvi.tif`, p);
  fs.symlinkSync('/etc', path.join(ws, 'etc-link'));
  return [
    ...truncations(r, nb, 10).map(([input, text]) => ({ input, text })),
    ...flips(r, nb, 10).map(([input, b]) => ({ input, text: b.toString('utf8') })),
    ...[100, 1000, 5000, 100_000].map((n) => ({ input: `metadata nested ${n} deep (objects)`, text: withMeta(deep(n, '{"a":', '}')) })),
    ...[1000, 100_000].map((n) => ({ input: `metadata nested ${n} deep (lists)`, text: withMeta(deep(n, '[', ']')) })),
    { input: '__proto__ in notebook and cell metadata', text: withMeta('{"__proto__":{"polluted":true}}').replace('"lastRun"', '"__proto__":{"x":1},"lastRun"') },
    { input: '__proto__ keys in a tool-cell mapping', text: nb.replace('options: {a: [1, 2], b: \\"x\\"}', 'options: {__proto__: 1, constructor: 2}') },
    { input: '1e999 in metadata', text: withMeta('1e999') },
    { input: '1e999 in a tool cell', text: nb.replace('value: 0.3', 'value: 1e999') },
    { input: 'byte-order mark', text: '\uFEFF' + nb },
    { input: 'CRLF', text: nb.replace(/\n/g, '\r\n') },
    { input: 'a 10 MB cell', text: nb.replace('"# Title"', JSON.stringify('x'.repeat(10 << 20))) },
    { input: '10000 cells', text: JSON.stringify({ format: 'geoweave-notebook', version: 1, metadata: {}, cells: Array.from({ length: 10_000 }, (_, i) => ({ kind: 'tool', source: [`ndvi as n${i}`, 'image: a.tif'] })) }) },
    { input: 'lastRun → /etc/shadow', text: planted('/etc/shadow') },
    { input: 'lastRun → ../../etc/passwd from the workspace', text: planted(path.join(ws, '..', '..', 'etc', 'passwd')) },
    { input: 'lastRun → a symlink in the workspace that leads out', text: planted(path.join(ws, 'etc-link', 'hostname')) },
    { input: 'lastRun → a relative path', text: planted('../../../etc/passwd') },
    { input: 'lastRun → a URL', text: planted('http://169.254.169.254/latest/meta-data') },
    { input: 'lastRun outputs a list', text: nb.replace(/"outputs": \{[\s\S]*?\}\n\s*\}/, '"outputs": ["/etc/shadow"]') },
    { input: 'source lines that are numbers', text: nb.replace('"image: s2.tif"', '42') },
    { input: 'a Jupyter notebook', text: '{"nbformat":4,"cells":[]}' },
  ];
}

test('hostile task files, manifests and notebooks: clear errors, no crash, no hang, nothing read from outside', { timeout: 240_000 }, async () => {
  const tally = new Tally();
  const r = prng(SEED);
  const root = tmpDir();
  const secretDir = path.join(root, 'outside');
  fs.mkdirSync(secretDir);
  fs.writeFileSync(path.join(secretDir, 'secret.json'), JSON.stringify({ id: 'stolen', description: SECRET_MARKER }));
  fs.writeFileSync(path.join(secretDir, 'other.json'), JSON.stringify({ id: 'stolen_too', description: SECRET_MARKER }));

  // Task files: learn and eval on each (eval only on the small ones: it evaluates every task).
  const tasks = taskTrials(r);
  const jobs: { input: string; file: string; command: 'learn' | 'eval' }[] = [];
  tasks.forEach(([input, body], i) => {
    const file = path.join(root, `tasks-${i}.jsonl`);
    fs.writeFileSync(file, body);
    jobs.push({ input, file, command: 'learn' });
    if (Buffer.byteLength(body) < 100_000) jobs.push({ input, file, command: 'eval' });
  });
  await pool(jobs, 2, async (j) => {
    const state = tmpDir();
    const args = j.command === 'learn' ? ['learn', '--trajectories', j.file] : ['eval', '--tasks', j.file];
    const res = await cli([...args, '--state', state, ...CATALOG_ARGS], { timeoutMs: 60_000 });
    const { outcome, detail } = cliOutcome(res, [path.basename(j.file)]);
    tally.add('task files', `${j.command}: ${j.input}`, outcome, detail);
    fs.rmSync(state, { recursive: true, force: true });
  });

  // `eval --with-practice` (a team beside the builtin catalog and its practice): contradicting
  // flags are usage errors naming the flag; a practice file that is missing, a folder or garbage is
  // a warning naming it, and the evaluation goes on without it.
  const small = path.join(root, 'eval-small.jsonl');
  fs.writeFileSync(small, TASKS);
  const garbage = path.join(root, 'practice-garbage.jsonl');
  fs.writeFileSync(garbage, '{"id": "p1", "query": "x", "flow": [\n\u0000\u0001 not json\n');
  const practiceTrials: [string, string[], string[]][] = [
    ['--with-practice with --no-builtin', ['--with-practice', ...CATALOG_ARGS], ['--with-practice']],
    ['--with-practice with --no-practice', ['--with-practice', '--no-practice', '--manifests', path.join(repoRoot, 'test', 'fixtures', 'catalog')], ['--with-practice']],
    ['--with-practice, practice file missing', ['--with-practice', '--no-fit', '--practice', path.join(root, 'no-such-practice.jsonl')], ['no-such-practice.jsonl']],
    ['--with-practice, practice file a folder', ['--with-practice', '--no-fit', '--practice', root], [path.basename(root)]],
    ['--with-practice, practice file garbage', ['--with-practice', '--no-fit', '--practice', garbage], ['practice-garbage.jsonl']],
  ];
  await pool(practiceTrials, 2, async ([input, flags, names]) => {
    const state = tmpDir();
    const res = await cli(['eval', '--tasks', small, '--train', small, '--mode', 'full,knn', ...flags, '--state', state], { timeoutMs: 90_000 });
    let { outcome, detail } = cliOutcome(res, names);
    // A practice that cannot be read is said, by name, even when the evaluation goes on.
    if (outcome === 'handled' && res.status === 0 && !names.some((n) => res.stderr.includes(n))) { outcome = 'crashed'; detail = `went on without saying why: ${res.stderr.slice(0, 300)}`; }
    tally.add('eval flags', input, outcome, detail);
    fs.rmSync(state, { recursive: true, force: true });
  });

  // A team's first flows: one flow cannot be fitted on, and flows with no next step (one tool
  // each) fit only the forward weights. Each says which weights stayed the prior's, and why.
  const oneFlow = path.join(root, 'train-one.jsonl');
  fs.writeFileSync(oneFlow, '{"id": "a", "query": "vegetation index of the fields", "flow": ["ndvi"]}\n');
  const singles = path.join(root, 'train-singles.jsonl');
  fs.writeFileSync(singles, '{"id": "a", "query": "vegetation index of the fields", "flow": ["ndvi"]}\n{"id": "b", "query": "slope of the hills", "flow": ["slope"]}\n{"id": "c", "query": "slope of the hills", "flow": ["slope", "slope"]}\n');
  const fewTrials: [string, string, RegExp][] = [
    ['one training flow', oneFlow, /fusion: prior weights \(1 flow \(a fit needs at least 2\)\)/],
    ['training flows with one step between them', singles, /next-step weights: prior \(1 next step, a next-step fit needs 20\)/],
  ];
  await pool(fewTrials, 2, async ([input, train, says]) => {
    const state = tmpDir();
    const res = await cli(['eval', '--tasks', small, '--train', train, '--mode', 'full', ...CATALOG_ARGS, '--state', state], { timeoutMs: 90_000 });
    let { outcome, detail } = cliOutcome(res, [path.basename(train)]);
    if (outcome === 'handled' && !(res.status === 0 && says.test(res.stderr))) { outcome = 'crashed'; detail = `exit ${res.status}, did not say which weights stayed the prior's: ${res.stderr.slice(0, 300)}`; }
    tally.add('eval flags', input, outcome, detail);
    fs.rmSync(state, { recursive: true, force: true });
  });

  // Workspace manifests, read by suggest from the workspace folder.
  const state = tmpDir();
  const warm = await cli(['index', 'build', '--state', state, ...CATALOG_ARGS]);
  assert.equal(warm.status, 0, warm.stderr);
  await pool(manifestTrials(r, secretDir), 2, async ([input, make], i) => {
    const ws = path.join(root, `ws-${i}`);
    const toolsDir = path.join(ws, '.geoweave', 'tools');
    fs.mkdirSync(toolsDir, { recursive: true });
    make(toolsDir);
    const own = path.join(root, `state-${i}`);
    fs.cpSync(state, own, { recursive: true });
    const res = await cli(['suggest', 'how steep is the terrain', '--k', '3', '--workspace', ws, '--data', ws, '--state', own, ...CATALOG_ARGS], { timeoutMs: 60_000 });
    let { outcome, detail } = cliOutcome(res, [ws]);
    if (outcome === 'handled' && (res.status !== 0 || !/^\s*1\s+\S+/m.test(res.stdout))) { outcome = 'crashed'; detail = `no suggestions (exit ${res.status}): ${res.stderr.slice(0, 300)}`; }
    if ((res.stdout + res.stderr).includes(SECRET_MARKER) || /stolen/.test(res.stdout)) { outcome = 'escape'; detail = 'a manifest outside the workspace was read'; }
    tally.add('manifests', input, outcome, detail);
    fs.rmSync(own, { recursive: true, force: true });
  });

  // Tasks that name files in hostile ways, judged on a data folder: readiness reads every name the
  // task spells out, so a long text must take one pass (a regex over it once took 8 s at 100 000
  // characters), and names of files that are absent, unreadable or remote must not crash it.
  const dataWs = path.join(root, 'task-data');
  fs.mkdirSync(dataWs, { recursive: true });
  fs.writeFileSync(path.join(dataWs, 'SU42.asc'), 'ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 50\n1 2 3\n4 5 6\n');
  fs.writeFileSync(path.join(dataWs, 'era5.nc'), Buffer.from('\x89HDF\r\n\x1a\n' + 'x'.repeat(64), 'latin1'));
  const namingTasks: [string, string][] = [
    ['100 000 letters', 'a'.repeat(100_000)],
    ['100 000 characters of "a."', 'a.'.repeat(50_000)],
    ['100 000 dots before a name', '.'.repeat(100_000) + 'x.tif'],
    ['15 000 names', 'slope of x.tif '.repeat(6_000)],
    ['10 000 URL starts', 'https://'.repeat(10_000)],
    ['a URL path of 60 000 characters', `stats of https://x.org/${'ab/'.repeat(20_000)}c.tif`],
    ['names in Chinese text, one unreadable, one absent', '对SU42.asc计算坡度，再用era5.nc和missing_dem.dt2比较'],
    ['a NetCDF variable and a path outside', 'slope of era5.nc#t2m and ../../etc/passwd.tif'],
  ];
  await pool(namingTasks, 2, async ([input, task], i) => {
    const own = path.join(root, `task-state-${i}`);
    fs.cpSync(state, own, { recursive: true });
    const res = await cli(['suggest', task, '--k', '3', '--data', dataWs, '--state', own, ...CATALOG_ARGS], { timeoutMs: 30_000 });
    let { outcome, detail } = cliOutcome(res);
    if (outcome === 'handled' && res.status !== 0 && !/task/i.test(res.stderr)) { outcome = 'crashed'; detail = `exit ${res.status}: ${res.stderr.slice(0, 300)}`; }
    tally.add('tasks naming files', input, outcome, detail);
    fs.rmSync(own, { recursive: true, force: true });
  });

  // Notebooks: one child runs every trial (see notebook-trial-runner.ts).
  const ws = path.join(root, 'nb-ws');
  const outDir = path.join(ws, '.geoweave', 'outputs');
  fs.mkdirSync(outDir, { recursive: true });
  const nbTrials = notebookTrials(r, ws, outDir).map((t) => ({ ...t, workspace: ws, outDir }));
  const specFile = path.join(root, 'notebooks.json');
  fs.writeFileSync(specFile, JSON.stringify(nbTrials));
  const res = await runNode([path.join(__dirname, 'notebook-trial-runner.js'), specFile], { timeoutMs: 90_000 });
  const seen = new Map(res.stdout.split('\n').filter(Boolean).map((l) => { const o = JSON.parse(l); return [o.input, o]; }));
  for (const t of nbTrials) {
    const o = seen.get(t.input);
    if (o) tally.add('notebooks', t.input, o.outcome, o.detail);
    else tally.add('notebooks', t.input, res.timedOut ? 'hang' : 'crashed', res.signal ? `signal ${res.signal}` : res.stderr.slice(0, 300));
  }

  console.log(tally.summary());
  assert.ok(tally.trials.length >= 100, `${tally.trials.length} trials`);
  assert.deepEqual(tally.failures(), []);
  fs.rmSync(root, { recursive: true, force: true });
});
