import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GeoTiffWriter, writeRaster, WriteSpec } from '../../src/core/raster/io/writer';
import { openRaster } from '../../src/core/raster/io/dataset';
import { gdalinfoJson, needGdal, py, readF64, tmpDir } from '../helpers/raster-gdal';

function pattern(n: number, k: number): Float64Array {
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = ((i * 7919 + k * 104729) % 20011) - 9000 + (i % 3) * 0.25;
  return a;
}

test('writer output: gdalinfo reads CRS, geotransform, nodata, descriptions, compression; GDAL reads exact values', needGdal(), async () => {
  const dir = tmpDir();
  const W = 613, H = 389;
  const types: WriteSpec['dtype'][] = ['float32', 'uint8', 'uint16', 'int16', 'int32'];
  for (const dtype of types) {
    const file = path.join(dir, `${dtype}.tif`);
    const nodata = dtype === 'float32' ? -9999 : dtype === 'uint8' ? 255 : dtype === 'uint16' ? 65535 : -32768;
    const bands = [pattern(W * H, 1), pattern(W * H, 2)];
    const lo = { float32: -Infinity, uint8: 0, uint16: 0, int16: -32768, int32: -2147483648 }[dtype];
    const hi = { float32: Infinity, uint8: 255, uint16: 65535, int16: 32767, int32: 2147483647 }[dtype];
    const expected = bands.map((b) => Array.from(b, (v, i) => (i % 101 === 0 ? nodata : dtype === 'float32' ? Math.fround(v) : Math.min(hi, Math.max(lo, Math.round(v))) + 0)));
    const input = bands.map((b) => b.map((v, i) => (i % 101 === 0 ? NaN : v)));
    await writeRaster(file, {
      width: W, height: H, bands: 2, dtype, nodata, descriptions: ['first band', 'second <&> band'], blockSize: 256,
      geo: { epsg: 32650, geographic: false, geoTransform: [500020, 10, 0, 4430010, 0, -10] },
    }, input);
    const info = gdalinfoJson(file);
    assert.deepEqual(info.size, [W, H]);
    assert.deepEqual(info.geoTransform, [500020, 10, 0, 4430010, 0, -10]);
    assert.match(info.coordinateSystem.wkt, /ID\["EPSG",32650\]\]$/);
    assert.equal(info.bands[0].noDataValue, nodata);
    assert.equal(info.bands[0].description, 'first band');
    assert.equal(info.bands[1].description, 'second <&> band');
    assert.deepEqual(info.bands[0].block, [256, 256]);
    assert.equal(info.metadata?.IMAGE_STRUCTURE?.COMPRESSION, 'DEFLATE');
    assert.equal(info.metadata?.IMAGE_STRUCTURE?.PREDICTOR, dtype === 'float32' ? '3' : '2');
    const dump = path.join(dir, `${dtype}.f64`);
    py(`from osgeo import gdal\nimport numpy as np\nd = gdal.Open(${JSON.stringify(file)})\nnp.concatenate([d.GetRasterBand(i).ReadAsArray().astype(np.float64).ravel() for i in (1, 2)]).tofile(${JSON.stringify(dump)})`);
    const got = readF64(dump);
    for (let b = 0; b < 2; b++) {
      for (let i = 0; i < W * H; i++) {
        if (got[b * W * H + i] !== expected[b][i]) assert.fail(`${dtype} band ${b + 1} pixel ${i}: GDAL read ${got[b * W * H + i]}, expected ${expected[b][i]}`);
      }
    }
    // And our own reader agrees.
    const ds = await openRaster(file);
    assert.equal(ds.dtype, dtype);
    assert.deepEqual(ds.bandDescriptions, ['first band', 'second <&> band']);
    const raw = await ds.readWindowRaw(2, 0, 0, W, H);
    for (let i = 0; i < W * H; i += 97) assert.equal(raw[i], expected[1][i]);
    await ds.close();
  }
});

test('geographic output gets GeographicTypeGeoKey; files are written under a temp name and abort deletes it', needGdal(), async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'geo.tif');
  const w = await GeoTiffWriter.create(file, { width: 20, height: 10, bands: 1, dtype: 'uint8', geo: { epsg: 4326, geographic: true, geoTransform: [100, 0.5, 0, 10, 0, -0.5] }, blockSize: 16 });
  await w.writeBlock(0, 0, [new Uint8Array(16 * 10).fill(3)]);
  assert.equal(fs.existsSync(file), false, 'final name appears only at finish');
  assert.equal(fs.readdirSync(dir).length, 1, 'one temp file while writing');
  await w.writeBlock(1, 0, [new Uint8Array(4 * 10).fill(4)]);
  await w.finish();
  assert.deepEqual(fs.readdirSync(dir), ['geo.tif']);
  const info = gdalinfoJson(file);
  assert.match(info.coordinateSystem.wkt, /ID\["EPSG",4326\]\]$/);
  assert.deepEqual(info.geoTransform, [100, 0.5, 0, 10, 0, -0.5]);
  assert.equal(info.bands[0].noDataValue, undefined);

  const file2 = path.join(dir, 'aborted.tif');
  const w2 = await GeoTiffWriter.create(file2, { width: 20, height: 10, bands: 1, dtype: 'float32', geo: { epsg: 32633, geographic: false, geoTransform: [0, 1, 0, 0, 0, -1] } });
  await w2.writeBlock(0, 0, [new Float32Array(200)]);
  await w2.abort();
  assert.deepEqual(fs.readdirSync(dir), ['geo.tif']);
  await assert.rejects(() => writeRaster(path.join(dir, 'bad.tif'), { width: 4, height: 4, bands: 1, dtype: 'uint8', geo: { geographic: false, geoTransform: [0, 1, 0, 0, 0, -1] } }, [new Uint8Array(5)]), /expected 16/);
  assert.deepEqual(fs.readdirSync(dir), ['geo.tif']);
});
