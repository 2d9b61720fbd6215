import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BuiltinEmbedder } from '../../src/core/embed/builtin';
import { tokenize, stem } from '../../src/core/embed/tokenize';
import { expandConcepts } from '../../src/core/embed/lexicon';
import { allTexts } from '../../src/core/index/text';
import { poolSimilarities } from '../../src/core/index/tool-index';
import type { ToolManifest } from '../../src/core/manifests/types';

function cos(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

// small catalog in the style of the tool manifests (name + description + tags + examples)
const CATALOG: Record<string, string> = {
  ndvi: 'NDVI. Normalized difference vegetation index from red and NIR bands. vegetation index, greenness. Map crop health; 计算植被指数',
  mndwi: 'MNDWI. Modified normalized difference water index from green and SWIR1. water index, open water. Map flooded areas; 提取水体',
  slope: 'Slope. Terrain slope in degrees from a DEM. terrain, slope. How steep are the hillsides? 计算坡度',
  hillshade: 'Hillshade. Shaded relief from a DEM with sun azimuth and altitude. terrain, visualization. Make a relief map; 山体阴影',
  dnbr: 'dNBR. Differenced normalized burn ratio between pre-fire and post-fire images. burn, fire. Map the wildfire scar; 火灾烧毁区域',
  area_by_class: 'Area by class. Pixel counts and area in m2, ha, km2 per class of a class raster. area, statistics. How many hectares are flooded? 统计面积',
  reproject: 'Reproject. Warp a raster to another CRS (EPSG code) with gdalwarp. projection, CRS. Convert to WGS84; 重投影',
  clip_bbox: 'Clip to bbox. Crop a raster to a bounding box in native or lon/lat coordinates. clip, subset, AOI. Cut out my study area; 裁剪影像',
  cloud_mask: 'Cloud mask. Mask clouds, cloud shadows and cirrus from the SCL or QA_PIXEL band. cloud, mask. Remove cloudy pixels; 去云',
  kmeans_classify: 'K-means classification. Unsupervised clustering of pixels into k classes. classification, clustering. Group similar pixels; 非监督分类',
  land_surface_temperature: 'Land surface temperature. LST in °C from the thermal band with NDVI-based emissivity. temperature, heat. Urban heat island; 地表温度',
  vectorize_mask: 'Vectorize mask. Turn a mask into GeoJSON polygons. vector, polygons, outline. Export the flood outline as polygons; 矢量化',
};

test('embeddings are deterministic, L2-normalised, of the declared dimension', async () => {
  const e = new BuiltinEmbedder();
  assert.equal(e.id, 'builtin:v6');
  const texts = ['NDVI from Sentinel-2', '计算坡度', 'how much area burned?'];
  const a = await e.embed(texts);
  const b = await new BuiltinEmbedder().embed(texts);
  assert.equal(a.length, 3);
  for (let i = 0; i < a.length; i++) {
    assert.equal(a[i].length, e.dimension);
    assert.ok(Math.abs(cos(a[i], a[i]) - 1) < 1e-5, `vector ${i} is not unit length`);
    assert.deepEqual(Array.from(a[i]), Array.from(b[i]));
  }
  // no features -> zero vector, not NaN
  const [z] = await e.embed(['   ...  ']);
  assert.ok(z.every((x) => x === 0));
});

test('tokenizer stems English word families and segments Chinese with dictionary translations', () => {
  assert.equal(stem('classification'), stem('classified'));
  assert.equal(stem('classify'), stem('classifying'));
  assert.equal(stem('calculation'), stem('calculated'));
  assert.equal(stem('vegetation'), stem('vegetated'));
  assert.equal(stem('slopes'), stem('slope'));
  assert.equal(stem('mapping'), 'map');
  assert.equal(stem('landsat'), 'landsat');
  // noun forms meet their verbs; short words and "catchment" keep their own stem
  assert.equal(stem('distribution'), stem('distributed'));
  assert.equal(stem('comparison'), stem('compare'));
  assert.equal(stem('measurement'), stem('measured'));
  assert.equal(stem('segment'), 'segment');
  assert.notEqual(stem('catchment'), stem('catch'));
  assert.deepEqual(tokenize('The NDVI of fields'), ['ndvi', 'field']);
  const zh = tokenize('计算植被指数');
  for (const t of ['植被', '指数', '植被指数', 'ndvi', stem('vegetation'), 'index']) assert.ok(zh.includes(t), `missing ${t} in ${zh.join(' ')}`);
  assert.ok(!zh.includes('的'));
});

test('words keep their vowel marks (optional accents and vowel signs folded), and Japanese kana and Thai are read in bigrams apart from Latin words', async () => {
  // Devanagari writes vowels as combining marks: the words stay whole.
  const hi = tokenize('बाढ़ का नक्शा');
  for (const t of ['बाढ़', 'नक्शा']) assert.ok(hi.includes(t), `missing ${t} in ${hi.join(' ')}`);
  assert.ok(!hi.includes('ब'), hi.join(' '));
  // Arabic vowel signs, hamza and tatweel, Greek accents and Hebrew points are optional: a word reads the same with or without them.
  assert.deepEqual(tokenize('خَرِيطَة أراضي الفيـضانات'), tokenize('خريطة اراضي الفيضانات'));
  assert.deepEqual(tokenize('Χάρτης πλημμύρας'), tokenize('χαρτης πλημμυρας'));
  assert.deepEqual(tokenize('מַפָּה'), tokenize('מפה'));
  // A sensor written next to kana is still the sensor (it was "をsentinel").
  const ja = tokenize('洪水範囲をSentinel-1で抽出');
  for (const t of ['sentinel', '1', '洪水', 'flood']) assert.ok(ja.includes(t), `missing ${t} in ${ja.join(' ')}`);
  assert.ok(!ja.some((t) => /[a-z]/.test(t) && /[\u3040-\u30ff]/.test(t)), ja.join(' '));
  assert.deepEqual(tokenize('センチネル'), ['セン', 'ンチ', 'チネ', 'ネル']);
  // Thai has no spaces: two tasks that share a word meet through its bigrams.
  const e = new BuiltinEmbedder();
  const [flood, floodToo, slope] = await e.embed(['แผนที่น้ำท่วมจังหวัด', 'พื้นที่น้ำท่วมปีนี้', 'ความลาดชันของภูเขา']);
  assert.ok(cos(flood, floodToo) > cos(flood, slope) + 0.1, `${cos(flood, floodToo)} vs ${cos(flood, slope)}`);
});

test('concept expansion maps synonyms, abbreviations and Chinese words to the same concepts', () => {
  const has = (text: string, concept: string): boolean => expandConcepts(tokenize(text)).includes(concept);
  for (const t of ['NDVI', 'vegetation index', 'greenness', 'plant health', '植被指数']) assert.ok(has(t, 'vegetation_index'), t);
  for (const t of ['flood', 'inundation', 'MNDWI', '洪水']) assert.ok(has(t, 'water'), t);
  for (const t of ['dNBR', 'wildfire scar', '火灾', '过火']) assert.ok(has(t, 'burn'), t);
  for (const t of ['built-up', 'urban sprawl', 'NDBI', '建成区']) assert.ok(has(t, 'urban'), t);
  for (const t of ['reproject', 'EPSG', 'warp', '重投影']) assert.ok(has(t, 'reproject'), t);
  for (const t of ['how much', 'hectares', 'km²', '面积']) assert.ok(has(t, 'area'), t);
  for (const t of ['k-means', 'kmeans', 'unsupervised']) assert.ok(has(t, 'clustering'), t);
  assert.deepEqual(expandConcepts(tokenize('the and of')), []);
});

test('the words of application domains meet their catalog\'s words: policyholders and the insured portfolio, biomass and carbon', async () => {
  const has = (text: string, concept: string): boolean => expandConcepts(tokenize(text)).includes(concept);
  for (const t of ['policyholders', 'insured value', 'TIV', '保单']) assert.ok(has(t, 'insurance'), t);
  for (const t of ['aboveground biomass', 'carbon stock', '碳储量']) assert.ok(has(t, 'carbon'), t);
  for (const t of ['canopy height model', 'LiDAR point cloud', '树高']) assert.ok(has(t, 'lidar'), t);
  for (const t of ['building footprints', 'homes', '房屋']) assert.ok(has(t, 'buildings'), t);
  const e = new BuiltinEmbedder();
  const [q, portfolio, slope] = await e.embed(['How many of our policyholders are flooded?', 'Loads the in-force property portfolio (insured value, occupancy) as of a date.', 'Slope in degrees from a DEM.']);
  assert.ok(cos(q, portfolio) > cos(q, slope) + 0.1, `${cos(q, portfolio)} vs ${cos(q, slope)}`);
});

test('Chinese and English synonyms land close; unrelated tasks stay apart', async () => {
  const e = new BuiltinEmbedder();
  const [zhNdvi, enNdvi, slope, zhFlood, enFlood, zhSlope] = await e.embed([
    '植被指数',
    'NDVI vegetation index',
    'slope from DEM',
    '洪水淹没范围',
    'flood inundation extent from a water index',
    '坡度',
  ]);
  assert.ok(cos(zhNdvi, enNdvi) > cos(zhNdvi, slope) + 0.3, `${cos(zhNdvi, enNdvi)} vs ${cos(zhNdvi, slope)}`);
  assert.ok(cos(zhFlood, enFlood) > cos(zhFlood, enNdvi) + 0.2);
  assert.ok(cos(zhSlope, slope) > cos(zhSlope, enNdvi) + 0.2);
  // synonyms without any shared word
  const [green, index] = await e.embed(['greenness of the plants', 'normalized difference vegetation index']);
  const [steep] = await e.embed(['steepness of terrain']);
  assert.ok(cos(green, index) > cos(green, steep) + 0.1);
});

test('character n-grams keep typos close to the intended word', async () => {
  const e = new BuiltinEmbedder();
  const [typo, right, other] = await e.embed(['vegitation indx', 'vegetation index', 'terrain hillshade']);
  assert.ok(cos(typo, right) > 0.1, `typo similarity ${cos(typo, right)}`);
  assert.ok(cos(typo, right) > cos(typo, other) + 0.1);
});

test('ranks the right tool first on a small catalog, with and without IDF', async () => {
  const ids = Object.keys(CATALOG);
  const queries: [string, string][] = [
    ['compute plant greenness for my farm', 'ndvi'],
    ['计算植被指数', 'ndvi'],
    ['how steep is the terrain', 'slope'],
    ['洪水淹没水体', 'mndwi'],
    ['map the area burned by the wildfire', 'dnbr'],
    ['how many hectares per class', 'area_by_class'],
    ['change the projection to EPSG:4326', 'reproject'],
    ['cut out my AOI', 'clip_bbox'],
    ['remove cloudy pixels', 'cloud_mask'],
    ['unsupervised kmeans clusters', 'kmeans_classify'],
    ['城市热岛 温度', 'land_surface_temperature'],
    ['export the outline as polygons', 'vectorize_mask'],
    ['shaded relief map', 'hillshade'],
  ];
  for (const fit of [false, true]) {
    const e = new BuiltinEmbedder();
    if (fit) e.fit(ids.map((id) => CATALOG[id]));
    const docs = await e.embed(ids.map((id) => CATALOG[id]));
    for (const [q, gold] of queries) {
      const [qv] = await e.embed([q]);
      const ranked = ids.map((id, i) => ({ id, s: cos(qv, docs[i]) })).sort((a, b) => b.s - a.s);
      assert.equal(ranked[0].id, gold, `fit=${fit} "${q}" -> ${ranked.slice(0, 3).map((r) => `${r.id}:${r.s.toFixed(3)}`).join(' ')}`);
    }
  }
});

test('fit changes weights; toJSON/fromJSON round trip embeds identically', async () => {
  const corpus = Object.values(CATALOG);
  const fitted = new BuiltinEmbedder().fit(corpus);
  assert.ok(fitted.fitted);
  const plain = new BuiltinEmbedder();
  const q = 'NDVI per field from the Sentinel-2 scene';
  const [a] = await fitted.embed([q]);
  const [p] = await plain.embed([q]);
  assert.ok(cos(a, p) < 0.999, 'IDF should change the vector');
  const restored = BuiltinEmbedder.fromJSON(JSON.parse(JSON.stringify(fitted.toJSON())));
  assert.ok(restored.fitted);
  const [b] = await restored.embed([q]);
  assert.deepEqual(Array.from(a), Array.from(b));
  assert.throws(() => BuiltinEmbedder.fromJSON({ id: 'builtin:v1', dimension: 1024, docCount: 1, df: {} }), /rebuild the index/);
  assert.throws(() => BuiltinEmbedder.fromJSON({ id: fitted.id, dimension: 1024 }), /docCount/);
});

test('embedding honours an aborted signal', async () => {
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(new BuiltinEmbedder().embed(['a', 'b'], ac.signal));
});

test('dense retrieval on the labelled benchmark beats plain BM25 (R@5 and R@10)', async (t) => {
  const root = path.resolve(__dirname, '../../..');
  const tasksFile = path.join(root, 'bench', 'tasks.jsonl');
  const dir = path.join(root, 'tool-manifests');
  if (!fs.existsSync(tasksFile) || !fs.existsSync(dir)) {
    if (process.env.CI) assert.fail(`missing ${tasksFile} or ${dir}`);
    t.skip('benchmark files not present');
    return;
  }
  const manifests = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'schema.json')
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ToolManifest)
    .filter((m) => m.id);
  const tasks = fs
    .readFileSync(tasksFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { query: string; gold: string[] });
  assert.ok(manifests.length > 20 && tasks.length > 50);

  const recallAt = (k: number, ranked: string[], gold: string[]): number => {
    const top = new Set(ranked.slice(0, k));
    return gold.filter((g) => top.has(g)).length / gold.length;
  };

  // dense: one vector per tool text (main + each example), soft-pooled per tool, as the index does
  const e = new BuiltinEmbedder().fit(manifests.flatMap((m) => allTexts(m)));
  const vecs = manifests.map((m) => allTexts(m).map((x) => e.embedOne(x)));
  // plain BM25 over the same texts, words only (no concepts)
  const docs = manifests.map((m) => {
    const tf = new Map<string, number>();
    const toks = allTexts(m).flatMap((x) => tokenize(x));
    for (const x of toks) tf.set(x, (tf.get(x) ?? 0) + 1);
    return { tf, len: toks.length };
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const k of d.tf.keys()) df.set(k, (df.get(k) ?? 0) + 1);
  const avg = docs.reduce((a, d) => a + d.len, 0) / docs.length;
  const N = docs.length;

  let dense = 0;
  let bm25 = 0;
  let dense5 = 0;
  let bm255 = 0;
  for (const task of tasks) {
    const q = e.embedOne(task.query);
    const d = manifests
      .map((m, i) => ({ id: m.id, s: poolSimilarities(vecs[i].map((v) => cos(q, v))) }))
      .sort((a, b) => b.s - a.s);
    dense += recallAt(10, d.map((x) => x.id), task.gold);
    dense5 += recallAt(5, d.map((x) => x.id), task.gold);
    const terms = [...new Set(tokenize(task.query))];
    const b = manifests
      .map((m, i) => {
        let s = 0;
        for (const term of terms) {
          const f = docs[i].tf.get(term);
          if (!f) continue;
          const n = df.get(term)!;
          s += (Math.log(1 + (N - n + 0.5) / (n + 0.5)) * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * docs[i].len) / avg));
        }
        return { id: m.id, s };
      })
      .sort((x, y) => y.s - x.s);
    bm25 += recallAt(10, b.map((x) => x.id), task.gold);
    bm255 += recallAt(5, b.map((x) => x.id), task.gold);
  }
  [dense, bm25, dense5, bm255] = [dense, bm25, dense5, bm255].map((x) => x / tasks.length);
  t.diagnostic(`dense R@5 ${dense5.toFixed(3)} R@10 ${dense.toFixed(3)}, plain BM25 R@5 ${bm255.toFixed(3)} R@10 ${bm25.toFixed(3)} over ${tasks.length} tasks`);
  assert.ok(dense >= 0.85, `dense R@10 ${dense.toFixed(3)}`);
  assert.ok(dense > bm25, `R@10: dense ${dense.toFixed(3)} <= BM25 ${bm25.toFixed(3)}`);
  assert.ok(dense5 > bm255, `R@5: dense ${dense5.toFixed(3)} <= BM25 ${bm255.toFixed(3)}`);
});

test('pooling over a tool\'s texts: a soft maximum between the mean and the best, rewarding several matching examples', () => {
  assert.equal(poolSimilarities([0.7]), 0.7);
  assert.ok(Math.abs(poolSimilarities([0.3, 0.3, 0.3]) - 0.3) < 1e-12, 'equal similarities pool to themselves');
  const one = poolSimilarities([0.6, 0.05, 0.05, 0.05, 0.05]);
  const three = poolSimilarities([0.6, 0.5, 0.5, 0.05, 0.05]);
  assert.ok(one < 0.6 && one > 0.17, `${one}: below the best, above the mean`);
  assert.ok(three > one, 'more examples that match score higher');
  // No bonus for merely having many examples: none matching stays near zero however many there are.
  assert.ok(poolSimilarities(Array(12).fill(0.02)) < 0.03);
  assert.equal(poolSimilarities([]), 0);
});
