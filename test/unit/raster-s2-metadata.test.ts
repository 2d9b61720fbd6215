/** The Sentinel-2 offset from the product's own metadata (SAFE MTD, STAC item JSON), against numpy over GDAL-written band files. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { runTool } from '../../src/core/raster/engine';
import { parseSafeMtd, safeMetadataFile, scalingFromItem } from '../../src/core/raster/s2-metadata';
import { gdalSkip, pyJson, PY_NDVI_SCALED, splitBand } from '../helpers/raster-gdal';

const skip = gdalSkip('numpy/GDAL comparisons');
let dir = '';

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-s2meta-'));
  await writeSampleWorkspace(dir);
});
after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

const ESA = ['B1', 'B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'B8', 'B8A', 'B9', 'B10', 'B11', 'B12'];

/** An MTD_MSIL2A.xml shaped like ESA's; `offset(id)` gives each band_id its BOA_ADD_OFFSET. */
function mtdL2A(offset: (id: number) => string, opts: { spectral?: boolean; baseline?: string } = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<n1:Level-2A_User_Product xmlns:n1="https://psd-14.sentinel2.eo.esa.int/PSD/User_Product_Level-2A.xsd">
<n1:General_Info><Product_Info><PRODUCT_TYPE>S2MSI2A</PRODUCT_TYPE><PROCESSING_BASELINE>${opts.baseline ?? '05.09'}</PROCESSING_BASELINE>
<Product_Image_Characteristics><QUANTIFICATION_VALUES_LIST><BOA_QUANTIFICATION_VALUE unit="none">10000</BOA_QUANTIFICATION_VALUE>
<AOT_QUANTIFICATION_VALUE unit="none">1000.0</AOT_QUANTIFICATION_VALUE></QUANTIFICATION_VALUES_LIST>
<BOA_ADD_OFFSET_VALUES_LIST>${ESA.map((_, i) => `<BOA_ADD_OFFSET band_id="${i}">${offset(i)}</BOA_ADD_OFFSET>`).join('\n')}</BOA_ADD_OFFSET_VALUES_LIST>
${opts.spectral === false ? '' : `<Spectral_Information_List>${ESA.map((b, i) => `<Spectral_Information bandId="${i}" physicalBand="${b}"><RESOLUTION>10</RESOLUTION></Spectral_Information>`).join('')}</Spectral_Information_List>`}
</Product_Image_Characteristics></Product_Info></n1:General_Info></n1:Level-2A_User_Product>
`;
}

const MTD_L1C = `<?xml version="1.0"?><n1:Level-1C_User_Product xmlns:n1="https://psd-14.sentinel2.eo.esa.int/PSD/User_Product_Level-1C.xsd">
<Product_Info><PROCESSING_BASELINE>05.00</PROCESSING_BASELINE></Product_Info><Product_Image_Characteristics>
<QUANTIFICATION_VALUE unit="none">10000</QUANTIFICATION_VALUE><Radiometric_Offset_List>${ESA.map((_, i) => `<RADIO_ADD_OFFSET band_id="${i}">-1000</RADIO_ADD_OFFSET>`).join('')}</Radiometric_Offset_List>
</Product_Image_Characteristics></n1:Level-1C_User_Product>`;

/** An Earth Search v1 item: assets red/nir point at B04.tif/B08.tif with raster:bands scale and offset. */
function earthSearchItem(rasterBands: unknown = [{ nodata: 0, data_type: 'uint16', spatial_resolution: 10, scale: 0.0001, offset: -0.1 }]): Record<string, unknown> {
  const base = 'https://sentinel-cogs.s3.us-west-2.amazonaws.com/sentinel-s2-l2a-cogs/50/T/MK/2024/6/S2B_50TMK_20240612_0_L2A';
  return {
    type: 'Feature', stac_version: '1.0.0', id: 'S2B_50TMK_20240612_0_L2A',
    properties: { 's2:processing_baseline': '05.10', 's2:product_type': 'S2MSI2A', 'earthsearch:boa_offset_applied': true },
    assets: { red: { href: `${base}/B04.tif`, 'raster:bands': rasterBands }, nir: { href: `${base}/B08.tif`, 'raster:bands': rasterBands } },
  };
}

test('MTD parsing: band_id is ESA\'s 0-based order with B8A at 8, from the product\'s own list or the fixed one; L1C RADIO_ADD_OFFSET; bad values warn', () => {
  const warns: string[] = [];
  const w = (m: string) => warns.push(m);
  const distinct = (i: number) => String(-1000 - i);
  for (const spectral of [true, false]) {
    const xml = mtdL2A(distinct, { spectral });
    assert.equal(parseSafeMtd(xml, '/p/MTD_MSIL2A.xml', 'B04', w)?.offset, -1003, `B04 is band_id 3 (spectral list ${spectral})`);
    assert.equal(parseSafeMtd(xml, '/p/MTD_MSIL2A.xml', 'B08', w)?.offset, -1007);
    assert.equal(parseSafeMtd(xml, '/p/MTD_MSIL2A.xml', 'B8A', w)?.offset, -1008);
    assert.equal(parseSafeMtd(xml, '/p/MTD_MSIL2A.xml', 'B11', w)?.offset, -1011, 'B11 is 11, after B8A and B10');
  }
  const l2a = parseSafeMtd(mtdL2A(() => '-1000'), '/p/MTD_MSIL2A.xml', 'B04', w)!;
  assert.deepEqual([l2a.offset, l2a.scale, l2a.level, l2a.source], [-1000, 0.0001, 'L2A', 'metadata']);
  assert.match(l2a.why, /^MTD_MSIL2A\.xml: BOA_ADD_OFFSET −1000 \(band_id 3 = B04\), BOA_QUANTIFICATION_VALUE 10000, baseline 05\.09$/);
  assert.equal(parseSafeMtd(mtdL2A(() => '-1000'), '/p/MTD_MSIL2A.xml', undefined, w)?.offset, -1000, 'a stack takes the offset every band shares');
  const l1c = parseSafeMtd(MTD_L1C, '/p/MTD_MSIL1C.xml', 'B08', w)!;
  assert.deepEqual([l1c.offset, l1c.level], [-1000, 'L1C']);
  assert.match(l1c.why, /RADIO_ADD_OFFSET −1000 \(band_id 7 = B08\), QUANTIFICATION_VALUE 10000/);
  // A pre-04.00 product has no offset list: its baseline says no offset.
  const old = mtdL2A(() => '', { baseline: '03.01' }).replace(/<BOA_ADD_OFFSET_VALUES_LIST>[^]*<\/BOA_ADD_OFFSET_VALUES_LIST>/, '');
  assert.equal(parseSafeMtd(old, '/p/MTD_MSIL2A.xml', 'B04', w)?.offset, 0);
  assert.equal(warns.length, 0, warns.join(' | '));
  // Hostile values: each is ignored with a warning naming the file.
  const bad: [string, RegExp][] = [
    [mtdL2A((i) => (i === 3 ? 'minus thousand' : '-1000')), /BOA_ADD_OFFSET band_id="3" is "minus thousand", not a number/],
    [mtdL2A(() => ''), /not a number/],
    [mtdL2A(() => '-1e300'), /outside −10000\.\.0/],
    [mtdL2A(() => '5000'), /is 5000, outside −10000\.\.0/],
    [mtdL2A(() => '-1000').replace('>10000<', '>0<'), /BOA_QUANTIFICATION_VALUE "0" is not a positive number/],
    [mtdL2A(() => '-1000').slice(0, 900), /not well-formed XML/],
    ['', /not well-formed XML/],
    ['{"json": "not xml"}', /not well-formed XML/],
  ];
  for (const [xml, re] of bad) {
    warns.length = 0;
    assert.equal(parseSafeMtd(xml, '/p/MTD_MSIL2A.xml', 'B04', w), undefined);
    assert.equal(warns.length, 1, `one warning for ${re}`);
    assert.match(warns[0], /^\/p\/MTD_MSIL2A\.xml: /);
    assert.match(warns[0], re);
  }
});

test('STAC items: raster:bands scale/offset, else s2:processing_baseline; only the item whose asset is the file; wrong types warn', () => {
  const warns: string[] = [];
  const w = (m: string) => warns.push(m);
  const es = scalingFromItem(earthSearchItem(), 'B04.tif', '/d/S2B_50TMK_20240612_0_L2A.json', w)!;
  assert.deepEqual([es.offset, es.scale, es.level], [-1000, 0.0001, 'L2A']);
  assert.equal(es.why, 'STAC item S2B_50TMK_20240612_0_L2A.json: scale 0.0001 offset −0.1, earthsearch:boa_offset_applied true');
  assert.equal(scalingFromItem(earthSearchItem(), 'B05.tif', '/d/x.json', w), undefined, 'no asset is that file');
  assert.equal(scalingFromItem({ ...earthSearchItem(), type: 'FeatureCollection' }, 'B04.tif', '/d/x.json', w), undefined);
  assert.equal(scalingFromItem([earthSearchItem()], 'B04.tif', '/d/x.json', w), undefined, 'a JSON array is not an item');
  // Planetary Computer: signed hrefs, no raster:bands scale, the baseline in the properties.
  const pc = {
    type: 'Feature', stac_version: '1.0.0', id: 'S2B_MSIL2A_20240612T030539_R075_T50TMK_20240612T062214',
    properties: { 's2:processing_baseline': '05.10' },
    assets: { B04: { href: 'https://sentinel2l2a01.blob.core.windows.net/sentinel2-l2/50/T/MK/2024/06/12/x.SAFE/GRANULE/g/IMG_DATA/R10m/T50TMK_20240612T030539_B04_10m.tif?st=2026-12-01&sig=abc%2F' } },
  };
  const p = scalingFromItem(pc, 'T50TMK_20240612T030539_B04_10m.tif', '/d/pc.json', w)!;
  assert.deepEqual([p.offset, p.scale], [-1000, 0.0001]);
  assert.match(p.why, /^STAC item pc\.json: s2:processing_baseline 05\.10 \(≥ 04\.00\): offset −1000$/);
  assert.equal(scalingFromItem({ ...pc, properties: { 's2:processing_baseline': '02.09' } }, 'T50TMK_20240612T030539_B04_10m.tif', '/d/pc.json', w)?.offset, 0);
  assert.equal(warns.length, 0, warns.join(' | '));
  const bad: [unknown, RegExp, number | undefined][] = [
    [earthSearchItem([{ scale: '0.0001', offset: '-0.1' }]), /raster:bands scale "0.0001" offset "-0.1" of B04.tif are not/, -1000],
    [earthSearchItem([{ scale: 0.0001, offset: null }]), /offset null/, -1000],
    [earthSearchItem([{ scale: 1e308 * 10, offset: -0.1 }]), /not a reflectance scale/, -1000],
    [earthSearchItem({ scale: 0.0001 }), /raster:bands of B04.tif is not a list/, -1000],
    [{ ...earthSearchItem([{ scale: 'x' }]), properties: { 's2:processing_baseline': ['05.10'] } }, /s2:processing_baseline \["05.10"\] is not a baseline/, undefined],
  ];
  for (const [item, re, offset] of bad) {
    warns.length = 0;
    assert.equal(scalingFromItem(item, 'B04.tif', '/d/item.json', w)?.offset, offset, `${re}: the baseline decides when it is there`);
    assert.ok(warns.some((m) => m.startsWith('/d/item.json: ') && re.test(m)), `warned ${re}: ${warns.join(' | ')}`);
  }
});

test('SAFE metadata is found from a band file in GRANULE/<id>/IMG_DATA/R10m, and not outside a SAFE', () => {
  const root = path.join(dir, 'find', 'whatever_name');
  const r10 = path.join(root, 'GRANULE', 'L2A_T50TMK_A000001', 'IMG_DATA', 'R10m');
  fs.mkdirSync(r10, { recursive: true });
  fs.writeFileSync(path.join(root, 'MTD_MSIL2A.xml'), mtdL2A(() => '-1000'));
  assert.equal(safeMetadataFile(path.join(r10, 'B04_10m.tif')), path.join(root, 'MTD_MSIL2A.xml'));
  assert.equal(safeMetadataFile(path.join(root, 'GRANULE', 'L2A_T50TMK_A000001', 'IMG_DATA', 'B04.tif')), path.join(root, 'MTD_MSIL2A.xml'));
  assert.equal(safeMetadataFile(path.join(dir, 'B04.tif')), undefined);
});

/** Red and NIR band files of s2_scene.tif (bands 3 and 5) at `r`/`n`, `add` DN on each. */
function bandPair(r: string, n: string, add: number, own?: { scale: number; offset: number }): void {
  const src = path.join(dir, 's2_scene.tif');
  splitBand(src, 3, r, add, own);
  splitBand(src, 5, n, add, own);
}
const ndviDiff = (r: string, n: string, out: string, scale: number, offset: number) => pyJson(PY_NDVI_SCALED, r, n, out, String(scale), String(offset)) as { max: number; n: number };
const hows = (run: { stats: Record<string, unknown> }) => run.stats.bands as Record<string, { how: string }>;

test('a SAFE whose band names carry no baseline or date: MTD_MSIL2A.xml gives the −1000 offset (numpy); a broken MTD warns and the name decides', { skip }, async () => {
  const root = path.join(dir, 'safe', 'product.SAFE');
  const r10 = path.join(root, 'GRANULE', 'L2A_T50TMK_A000001', 'IMG_DATA', 'R10m');
  const red = path.join(r10, 'T50TMK_B04_10m.tif'), nir = path.join(r10, 'T50TMK_B08_10m.tif');
  bandPair(red, nir, 1000);
  fs.writeFileSync(path.join(root, 'MTD_MSIL2A.xml'), mtdL2A(() => '-1000'));
  const a = await runTool('ndvi', { image: r10 }, { outDir: path.join(dir, 'o', 'safe'), cwd: dir });
  const out = Object.values(a.outputs)[0].path;
  const d = ndviDiff(red, nir, out, 0.0001, -0.1);
  assert.ok(d.n > 1000 && d.max < 1e-5, `NDVI of (DN − 1000)/10000 equals numpy (max diff ${d.max})`);
  assert.ok(ndviDiff(red, nir, out, 0.0001, 0).max > 0.01, 'without the offset the NDVI would differ: the check can fail');
  assert.match(hows(a).red.how, /Sentinel-2 L2A reflectance \(DN − 1000\)\/10000, MTD_MSIL2A\.xml: BOA_ADD_OFFSET −1000 \(band_id 3 = B04\)/);
  assert.match(hows(a).nir.how, /BOA_ADD_OFFSET −1000 \(band_id 7 = B08\)/, 'each band names its own entry');
  assert.equal(a.stats.warnings, undefined);

  // The same product with the MTD cut short, band names with a 2024 sensing date: warned, the name decides.
  const root2 = path.join(dir, 'safe2', 'product.SAFE');
  const r10b = path.join(root2, 'GRANULE', 'L2A_T50TMK_A000001', 'IMG_DATA', 'R10m');
  bandPair(path.join(r10b, 'T50TMK_20240612T030539_B04_10m.tif'), path.join(r10b, 'T50TMK_20240612T030539_B08_10m.tif'), 1000);
  fs.writeFileSync(path.join(root2, 'MTD_MSIL2A.xml'), mtdL2A(() => '-1000').slice(0, 700));
  const b = await runTool('ndvi', { image: r10b }, { outDir: path.join(dir, 'o', 'safe2'), cwd: dir });
  assert.match(hows(b).red.how, /\(DN − 1000\)\/10000, sensed 20240612/);
  const warnings = b.stats.warnings as string[];
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /safe2\/product\.SAFE\/MTD_MSIL2A\.xml: not well-formed XML.*the file name decides/);
});

test('a STAC item beside B04.tif/B08.tif: its raster:bands scale and offset (numpy); a harmonised re-export under the old item: the values decide', { skip }, async () => {
  const item = JSON.stringify(earthSearchItem(), null, 2);
  const dl = path.join(dir, 'download');
  bandPair(path.join(dl, 'B04.tif'), path.join(dl, 'B08.tif'), 1000);
  fs.writeFileSync(path.join(dl, 'S2B_50TMK_20240612_0_L2A.json'), item);
  fs.writeFileSync(path.join(dl, 'aoi.json'), JSON.stringify({ type: 'FeatureCollection', features: [] }));
  fs.writeFileSync(path.join(dl, '0-broken.json'), '{"type": "Feature", "stac_version": ');
  const a = await runTool('ndvi', { image: path.join(dl, 'B04.tif') }, { outDir: path.join(dir, 'o', 'stac'), cwd: dir });
  const d = ndviDiff(path.join(dl, 'B04.tif'), path.join(dl, 'B08.tif'), Object.values(a.outputs)[0].path, 0.0001, -0.1);
  assert.ok(d.n > 1000 && d.max < 1e-5, `NDVI of DN × 0.0001 − 0.1 equals numpy (max diff ${d.max})`);
  assert.match(hows(a).red.how, /Sentinel-2 L2A reflectance \(DN − 1000\)\/10000, STAC item S2B_50TMK_20240612_0_L2A\.json: scale 0\.0001 offset −0\.1/);
  assert.ok((a.stats.warnings as string[]).some((m) => /download\/0-broken\.json: not valid JSON/.test(m)), 'the broken JSON is named');

  const hz = path.join(dir, 'harmonised');
  bandPair(path.join(hz, 'B04.tif'), path.join(hz, 'B08.tif'), 0);
  fs.writeFileSync(path.join(hz, 'item.json'), item);
  const b = await runTool('ndvi', { image: path.join(hz, 'B08.tif') }, { outDir: path.join(dir, 'o', 'hz'), cwd: dir });
  const d2 = ndviDiff(path.join(hz, 'B04.tif'), path.join(hz, 'B08.tif'), Object.values(b.outputs)[0].path, 0.0001, 0);
  assert.ok(d2.n > 1000 && d2.max < 1e-5, `NDVI of DN/10000 equals numpy (max diff ${d2.max})`);
  assert.match(hows(b).red.how, /STAC item item\.json: scale 0\.0001 offset −0\.1.* says the DNs carry the offset, but \d+% of sampled DNs are below 1000 .*the values decided/);

  // GDAL's own scale/offset on the band files win, applied once, and the run says so.
  const own = path.join(dir, 'own');
  bandPair(path.join(own, 'B04.tif'), path.join(own, 'B08.tif'), 1000, { scale: 0.0001, offset: -0.1 });
  fs.writeFileSync(path.join(own, 'item.json'), item);
  const c = await runTool('ndvi', { image: path.join(own, 'B04.tif') }, { outDir: path.join(dir, 'o', 'own'), cwd: dir });
  const d3 = ndviDiff(path.join(own, 'B04.tif'), path.join(own, 'B08.tif'), Object.values(c.outputs)[0].path, 0.0001, -0.1);
  assert.ok(d3.n > 1000 && d3.max < 1e-5, `NDVI with the file's own offset applied once equals numpy (max diff ${d3.max})`);
  assert.match(hows(c).red.how, /the file's own scale 0\.0001 offset -0\.1 \(GDAL_METADATA\)/);
});
