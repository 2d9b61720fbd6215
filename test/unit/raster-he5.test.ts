/**
 * HDF-EOS5 grids (VIIRS land products, OMI L3) read from `.h5` files the HDF-EOS5 library itself
 * writes at test time (test/helpers/he5-writer.ts, Debian's libhe5-hdfeos0): a VNP13A1-like
 * sinusoidal grid (int16 NDVI with fill and scale_factor 10000, tiled and deflated; uint16 VI
 * quality), a geographic grid (OMI-like float32, packed-degree corners) with a 3-D field. Every raw
 * sample (whole bands and a window) equals GDAL 3.6's through its HDF5 driver, nodata too. GDAL 3.6
 * does not georeference HDF-EOS5 grids (its HDF5 subdatasets of these files have the identity
 * geotransform and no CRS; checked below), so the geotransform is checked against the corners
 * written into the file instead. A swath-only file and a file cut short are refused naming the file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RasterError, openRaster, type RasterDataset } from '../../src/core/raster/io/dataset';
import { gridLayers } from '../../src/core/raster/io/layers';
import { RASTER_FILE, fileLayer } from '../../src/core/raster/raster-files';
import { runTool } from '../../src/core/raster/engine';
import { stemOf } from '../../src/core/raster/tools/common';
import { scanDataFolder } from '../../src/core/data/scan';
import { gdalSkip, gdalWindows, gdalinfoJson, py, tmpDir } from '../helpers/raster-gdal';
import { type He5Spec, he5LibMissing, writeHe5 } from '../helpers/he5-writer';

function skipWhy(what: string): string | false {
  const gdal = gdalSkip(what);
  if (gdal) return gdal;
  const lib = he5LibMissing();
  if (!lib) return false;
  if (process.env.CI) throw new Error(`HDF-EOS5 library required in CI: ${lib}`);
  return `${lib}: skipping ${what}`;
}

const VI_GRID = 'VIIRS_Grid_16Day_VI_500m';
const NDVI = '500 m 16 days NDVI';
const QA = '500 m 16 days VI Quality';
const OMI_GRID = 'OMI Column Amount O3';
/** h18v04's corners on MODIS's sphere, at a much coarser size. */
const UL: [number, number] = [0, 5559752.598333], LR: [number, number] = [1111950.519667, 4447802.078667];

function vnp13Spec(file: string): He5Spec {
  return {
    file,
    grids: [
      {
        name: VI_GRID, xdim: 120, ydim: 100, ul: UL, lr: LR, proj: 'SNSOID', sphere: -1, params: [6371007.181],
        fields: [
          {
            name: NDVI, dims: 'YDim,XDim', type: 'int16', shape: [100, 120], tile: [50, 60], deflate: 6, fill: -15000,
            expr: 'np.where(i % 97 == 5, -15000, (i * 7919) % 12000 - 2000)',
            attrs: { long_name: NDVI, units: 'NDVI', valid_range: ['int16', [-10000, 10000]], scale_factor: ['float64', [10000]], add_offset: ['float64', [0]] },
          },
          { name: QA, dims: 'YDim,XDim', type: 'uint16', shape: [100, 120], tile: [50, 60], deflate: 6, fill: 65535, expr: '(i * 31) % 65536', attrs: { long_name: 'VI quality indicators', units: 'bit field' } },
        ],
      },
      {
        name: OMI_GRID, xdim: 36, ydim: 18, ul: [-180e6, 90e6], lr: [180e6, -90e6], proj: 'GEO', dims: { nLayers: 3 },
        fields: [
          { name: 'ColumnAmountO3', dims: 'YDim,XDim', type: 'float32', shape: [18, 36], expr: 'np.where(i % 13 == 0, -1.2676506e30, 200 + i * 0.37)', fill: -1.2676506e30, attrs: { long_name: 'Best Total Ozone Solution', units: 'DU' } },
          { name: 'O3Layers', dims: 'nLayers,YDim,XDim', type: 'float32', shape: [3, 18, 36], expr: 'i * 0.25 - 7', attrs: { units: 'DU' } },
        ],
      },
    ],
  };
}

/** GDAL's HDF5 subdataset name of a grid field (its spaces as underscores, as GDAL lists them). */
const gdalName = (file: string, grid: string, field: string) => `HDF5:"${file}"://HDFEOS/GRIDS/${grid.replace(/ /g, '_')}/Data_Fields/${field.replace(/ /g, '_')}`;

type Window = [number, number, number, number];

async function sameSamples(ds: RasterDataset, name: string, win: Window, what: string): Promise<void> {
  const reads: [number, Window][] = [];
  for (let b = 1; b <= ds.bandCount; b++) reads.push([b, [0, 0, ds.width, ds.height]], [b, win]);
  const refs = gdalWindows(name, reads);
  for (const [k, [band, w]] of reads.entries()) {
    const raw = await ds.readWindowRaw(band, ...w);
    const ref = refs[k];
    assert.equal(raw.length, ref.length, `${what} band ${band} window ${w}`);
    let bad = 0, first = -1;
    for (let i = 0; i < ref.length; i++) if (raw[i] !== ref[i]) { bad++; if (first < 0) first = i; }
    assert.equal(bad, 0, `${what} band ${band} window ${w.join(',')}: ${bad} samples differ, first at ${first}: ${raw[first]} vs GDAL ${ref[first]}`);
  }
}

test('HDF-EOS5 grids: VIIRS-like sinusoidal NDVI (DN / 10000), uint16 QA, OMI-like geographic float32 and a 3-D field, samples equal GDAL\'s', { skip: skipWhy('the HDF-EOS5 grid test'), timeout: 180_000 }, async () => {
  const dir = tmpDir('gw-he5-');
  const file = path.join(dir, 'VNP13A1.A2024161.h18v04.002.h5');
  writeHe5(vnp13Spec(file));
  assert.deepEqual(await gridLayers(file), [NDVI, QA, 'ColumnAmountO3', 'O3Layers']);

  // GDAL 3.6 places no HDF-EOS5 grid: identity geotransform, no CRS. Ours comes from the corners written.
  const info = gdalinfoJson(gdalName(file, VI_GRID, NDVI));
  assert.ok(!info.coordinateSystem?.wkt, 'GDAL 3.6 gives HDF-EOS5 grids no CRS');
  assert.deepEqual(info.geoTransform ?? [0, 1, 0, 0, 0, 1], [0, 1, 0, 0, 0, 1]);

  const ndvi = await openRaster(`${file}#${NDVI}`);
  try {
    assert.deepEqual([ndvi.width, ndvi.height, ndvi.bandCount, ndvi.dtype], [120, 100, 1, 'int16']);
    assert.deepEqual([ndvi.blockWidth, ndvi.blockHeight], [60, 50], 'blocks are the HDF-EOS5 tiles');
    assert.equal(ndvi.nodata, info.bands[0].noDataValue);
    assert.equal(ndvi.nodata, -15000);
    assert.equal(ndvi.scales[0], 1 / 10000);
    assert.equal(ndvi.offsets[0], 0);
    assert.equal(ndvi.bandDescriptions[0], NDVI);
    assert.match((ndvi.warnings ?? []).join(' | '), /scale_factor is 10000, read as VIIRS and MODIS document it: value = DN \/ 10000/);
    const gt = ndvi.geo.geoTransform;
    const want = [UL[0], (LR[0] - UL[0]) / 120, 0, UL[1], 0, (LR[1] - UL[1]) / 100];
    gt.forEach((v, i) => assert.ok(Math.abs(v - want[i]) < 1e-6, `geotransform[${i}] ${v} vs ${want[i]}`));
    assert.equal(ndvi.geo.wkt, 'MODIS Sinusoidal');
    await sameSamples(ndvi, gdalName(file, VI_GRID, NDVI), [37, 41, 50, 33], 'NDVI');
    // Values in NDVI units; fill is nodata.
    const scaled = await ndvi.readWindow(1, 0, 0, 120, 1);
    const rawRow = await ndvi.readWindowRaw(1, 0, 0, 120, 1);
    for (let i = 0; i < 120; i++) {
      if (rawRow[i] === -15000) assert.ok(Number.isNaN(scaled[i]), 'fill is nodata');
      else assert.ok(Math.abs(scaled[i] - rawRow[i] / 10000) < 1e-6, `NDVI ${scaled[i]} vs ${rawRow[i]} / 10000`);
    }
  } finally { await ndvi.close(); }

  const qa = await openRaster(`${file}#${QA}`);
  try {
    assert.deepEqual([qa.dtype, qa.nodata, qa.scales[0], qa.bandDescriptions[0]], ['uint16', 65535, 1, 'VI quality indicators']);
    await sameSamples(qa, gdalName(file, VI_GRID, QA), [59, 49, 2, 2], 'QA');
  } finally { await qa.close(); }

  const o3 = await openRaster(`${file}#${OMI_GRID}/ColumnAmountO3`);
  try {
    assert.deepEqual([o3.width, o3.height, o3.dtype, o3.geo.epsg, o3.geo.geographic], [36, 18, 'float32', 4326, true]);
    assert.deepEqual(o3.geo.geoTransform, [-180, 10, 0, 90, 0, -10]);
    // gdalinfo -json prints the float32 fill in its shortest form: the same float32.
    assert.equal(o3.nodata, Math.fround(gdalinfoJson(gdalName(file, OMI_GRID, 'ColumnAmountO3')).bands[0].noDataValue));
    await sameSamples(o3, gdalName(file, OMI_GRID, 'ColumnAmountO3'), [5, 3, 20, 10], 'O3');
  } finally { await o3.close(); }

  const layers = await openRaster(`${file}#O3Layers`);
  try {
    assert.deepEqual([layers.width, layers.height, layers.bandCount], [36, 18, 3]);
    assert.deepEqual(layers.bandDescriptions, ['nLayers=0', 'nLayers=1', 'nLayers=2']);
    await sameSamples(layers, gdalName(file, OMI_GRID, 'O3Layers'), [30, 15, 6, 3], '3-D field');
  } finally { await layers.close(); }

  // Not named, or unknown: refused listing the fields.
  await assert.rejects(openRaster(file), /holds 4 fields \(500 m 16 days NDVI, 500 m 16 days VI Quality, ColumnAmountO3, O3Layers\); name the one to read as VNP13A1\.A2024161\.h18v04\.002\.h5#500 m 16 days NDVI/);
  await assert.rejects(openRaster(`${file}#EVI`), /holds no grid field "EVI"; its fields: 500 m 16 days NDVI/);
});

test('HDF-EOS5 field names with spaces are paths the tools and the scan agree on; NetCDF identifiers still work', () => {
  const p = 'data/VNP13A1.A2024161.h18v04.002.h5#500 m 16 days NDVI';
  assert.deepEqual(fileLayer(p), { file: 'data/VNP13A1.A2024161.h18v04.002.h5', variable: '500 m 16 days NDVI' });
  assert.deepEqual(fileLayer('x.he5#OMI Column Amount O3/ColumnAmountO3'), { file: 'x.he5', variable: 'OMI Column Amount O3/ColumnAmountO3' });
  assert.deepEqual(fileLayer('era5.nc#t2m'), { file: 'era5.nc', variable: 't2m' });
  assert.deepEqual(fileLayer('s5p.nc4#PRODUCT/ch4'), { file: 's5p.nc4', variable: 'PRODUCT/ch4' });
  assert.equal(fileLayer('era5.nc#two words'), undefined, 'classic NetCDF names stay identifiers');
  for (const ok of [p, 'a.he5#x y', 'b.hdf5#G/f z', 'c.nc4#t2m', 'era5.nc#t2m']) assert.ok(RASTER_FILE.test(ok), ok);
  assert.equal(stemOf(p), 'VNP13A1.A2024161.h18v04.002_500_m_16_days_NDVI');
});

test('an HDF-EOS5 file of swaths only is refused as a swath, with the gdalwarp -geoloc route; a file cut short names the file', { skip: skipWhy('the HDF-EOS5 refusal test'), timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-he5-swath-');
  const swath = path.join(dir, 'OMI-Aura_L2-OMNO2_2024m0101t0000-o01234.he5');
  writeHe5({
    file: swath,
    swaths: [{
      name: 'ColumnAmountNO2', dims: { nTimes: 20, nXtrack: 12 },
      fields: [
        { name: 'Latitude', geo: true, dims: 'nTimes,nXtrack', type: 'float32', shape: [20, 12], expr: '40 + i * 0.01' },
        { name: 'Longitude', geo: true, dims: 'nTimes,nXtrack', type: 'float32', shape: [20, 12], expr: '10 + i * 0.01' },
        { name: 'ColumnAmountNO2', dims: 'nTimes,nXtrack', type: 'float32', shape: [20, 12], expr: 'i * 1e13' },
      ],
    }],
  });
  assert.deepEqual(await gridLayers(swath), []);
  for (const f of ['', '#ColumnAmountNO2']) {
    await assert.rejects(openRaster(swath + f), (e: Error) => {
      assert.ok(e instanceof RasterError);
      assert.match(e.message, /OMI-Aura_L2-OMNO2_2024m0101t0000-o01234\.he5: it is an HDF-EOS5 swath \("ColumnAmountNO2": values on geolocation arrays/);
      assert.match(e.message, /gdalwarp -geoloc -t_srs EPSG:4326 'HDF5:"OMI-Aura_L2-OMNO2_2024m0101t0000-o01234\.he5":\/\/HDFEOS\/SWATHS\/ColumnAmountNO2\/Data_Fields\/ColumnAmountNO2' out\.tif/);
      return true;
    });
  }

  const whole = path.join(dir, 'VNP13A1.A2024161.h18v04.002.h5');
  writeHe5(vnp13Spec(whole));
  const bytes = fs.readFileSync(whole);
  for (const keep of [bytes.length >> 1, bytes.length - 100]) {
    const cut = path.join(dir, `cut_${keep}.h5`);
    fs.writeFileSync(cut, bytes.subarray(0, keep));
    const t0 = Date.now();
    await assert.rejects(async () => {
      const ds = await openRaster(`${cut}#${NDVI}`);
      try { await ds.readWindowRaw(1, 0, 0, ds.width, ds.height); } finally { await ds.close(); }
    }, (e: Error) => {
      assert.ok(e instanceof RasterError, `cut at ${keep}: ${e}`);
      assert.match(e.message, new RegExp(`cut_${keep}\\.h5`), e.message);
      assert.match(e.message, /cut short|damaged/, e.message);
      return true;
    });
    assert.ok(Date.now() - t0 < 10_000, 'refused quickly');
    assert.deepEqual(await gridLayers(cut).catch(() => []), []);
  }
});

test('HDF-EOS5 in the scan and tools: one item per field, raster_stats in NDVI units equal to numpy over GDAL\'s raw samples / 10000', { skip: skipWhy('the HDF-EOS5 scan test'), timeout: 180_000 }, async () => {
  const dir = tmpDir('gw-he5-scan-');
  const name = 'VNP13A1.A2024161.h18v04.002.h5';
  const file = path.join(dir, name);
  writeHe5(vnp13Spec(file));
  const data = await scanDataFolder(dir);
  assert.deepEqual(data.items.map((it) => it.path).sort(), [NDVI, QA, 'ColumnAmountO3', 'O3Layers'].map((f) => `${name}#${f}`).sort());
  assert.match(data.items.find((it) => it.path === `${name}#${NDVI}`)!.crs ?? '', /MODIS Sinusoidal/);
  const run = await runTool('raster_stats', { image: `${name}#${NDVI}` }, { outDir: path.join(dir, 'out'), cwd: dir });
  const mean = Number(py(`
from osgeo import gdal
a = gdal.Open('${gdalName(file, VI_GRID, NDVI)}').ReadAsArray().astype('f8')
print(a[a != -15000].mean() / 10000)`));
  const ours = Number(/^Mean 500 m 16 days NDVI (-?[\d.]+) \(median/.exec(run.summary)?.[1]);
  assert.ok(Math.abs(ours - mean) < 5e-3 && Math.abs(ours) < 1, `${run.summary} vs numpy ${mean}`);
});
