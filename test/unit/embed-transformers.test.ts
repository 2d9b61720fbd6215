import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TransformersEmbedder } from '../../src/core/embed/transformers';
import { createEmbedder } from '../../src/core/embed/factory';
import { buildTinyModel, type TinyModel } from '../helpers/tiny-model';

let tmp: string;
let tiny: TinyModel;
let emb: TransformersEmbedder;

function cos(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-embed-tf-'));
  tiny = buildTinyModel(tmp, 'tiny-bert', 16);
  emb = await TransformersEmbedder.load(
    { kind: 'transformers', model: tiny.dir, cacheDir: path.join(tmp, 'cache'), allowDownload: false },
    { batchSize: 2 },
  );
});

after(async () => {
  await emb?.dispose();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('loads a local ONNX model folder and reports its hidden size', () => {
  assert.equal(emb.dimension, tiny.dimension);
  assert.match(emb.id, /^transformers:tiny-bert@[0-9a-f]{8}$/);
});

test('vectors are normalised, deterministic and independent of batching', async () => {
  const texts = ['ndvi vegetation index', 'flood water map', 'steep slope of the terrain', 'burn area', 'cloud mask'];
  const a = await emb.embed(texts);
  assert.equal(a.length, texts.length);
  for (const v of a) {
    assert.equal(v.length, tiny.dimension);
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
  }
  const b = await emb.embed(texts.slice().reverse());
  for (let i = 0; i < texts.length; i++) {
    const x = a[i];
    const y = b[texts.length - 1 - i];
    for (let j = 0; j < x.length; j++) assert.ok(Math.abs(x[j] - y[j]) < 1e-5, 'padding/batching changed a vector');
  }
  // a fresh load of the same folder gives the same vectors
  const again = await TransformersEmbedder.load({
    kind: 'transformers',
    model: tiny.dir,
    cacheDir: path.join(tmp, 'cache'),
    allowDownload: false,
  });
  const [c] = await again.embed([texts[0]]);
  assert.ok(cos(a[0], c) > 0.99999);
  await again.dispose();
});

test('texts sharing tokens are closer than unrelated ones', async () => {
  const [ndvi, ndviMap, slope, zh1, zh2] = await emb.embed([
    'ndvi vegetation index',
    'compute the ndvi vegetation index map',
    'steep slope of the terrain dem',
    '植被指数',
    '植被',
  ]);
  assert.ok(cos(ndvi, ndviMap) > cos(ndvi, slope) + 0.2, `${cos(ndvi, ndviMap)} vs ${cos(ndvi, slope)}`);
  assert.ok(cos(zh1, zh2) > cos(zh1, slope));
});

test('an aborted signal stops between batches', async () => {
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(emb.embed(['a', 'b', 'c'], ac.signal));
});

test('missing model with downloads disabled gives the actionable error', async () => {
  const missing = path.join(tmp, 'no-such-model');
  await assert.rejects(
    TransformersEmbedder.load({ kind: 'transformers', model: missing, cacheDir: path.join(tmp, 'cache'), allowDownload: false }),
    (e: Error) =>
      e.message.includes(`model ${missing} not found in`) &&
      e.message.includes('geoweave.transformers.allowDownload') &&
      e.message.includes('--allow-download'),
  );
  // a hub id that is not in the cache folder, downloads disabled: no network attempted, same error
  await assert.rejects(
    createEmbedder({ kind: 'transformers', model: 'acme/not-cached', cacheDir: path.join(tmp, 'cache'), allowDownload: false }),
    /model acme\/not-cached not found in .*cache; allow downloads \(VS Code setting geoweave\.transformers\.allowDownload/,
  );
  // a folder with corrupt weights fails loudly, not silently
  const broken = path.join(tmp, 'broken');
  fs.cpSync(tiny.dir, broken, { recursive: true });
  fs.writeFileSync(path.join(broken, 'onnx', 'model.onnx'), Buffer.from('not an onnx file'));
  await assert.rejects(
    TransformersEmbedder.load({ kind: 'transformers', model: broken, cacheDir: path.join(tmp, 'cache'), allowDownload: false }),
    /loading embedding model .*broken failed: /,
  );
});

test('a hub-style id resolves inside cacheDir when the files are there', async () => {
  const cacheDir = path.join(tmp, 'hub-cache');
  buildTinyModel(path.join(cacheDir, 'acme'), 'tiny-hub', 8, 3);
  const e = await createEmbedder({ kind: 'transformers', model: 'acme/tiny-hub', cacheDir, allowDownload: false });
  assert.equal(e.id, 'transformers:acme/tiny-hub');
  assert.equal(e.dimension, 8);
  const [v] = await e.embed(['water flood']);
  assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
  await e.dispose?.();
});

test('cacheDir inside node_modules is refused', async () => {
  await assert.rejects(
    TransformersEmbedder.load({
      kind: 'transformers',
      model: tiny.dir,
      cacheDir: path.join(tmp, 'node_modules', 'x'),
      allowDownload: false,
    }),
    /inside node_modules/,
  );
});
