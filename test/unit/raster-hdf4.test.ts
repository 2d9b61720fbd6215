/**
 * HDF4 files with HDF-EOS2 grids (MODIS land products) read as GDAL's HDF4 driver reads
 * HDF4_EOS:EOS_GRID:"file":GRID:FIELD. Files are made at test time by the HDF4 and HDF-EOS
 * libraries themselves (test/helpers/hdf4-writer.ts): a MOD13-like sinusoidal grid (int16 NDVI
 * chunked and DEFLATE-compressed with scale/fill/valid_range, int8 reliability, uint16 quality,
 * uint8 QA stored plain, float32 compressed whole with scale and offset), a geographic grid
 * (packed degrees) with 3-D fields stored band-first and band-last, UTM and Lambert azimuthal
 * grids, and plain SD files (linked blocks, run-length, skipping Huffman, DEFLATE, partial edge
 * chunks, chunks never written). Size, bands, nodata, scale/offset, description, geotransform,
 * CRS and every value (full bands and windows across chunk edges) equal GDAL's; a window decodes
 * only the chunks it touches; a swath, a field not named, cut and damaged files are refused
 * saying what to do, quickly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RasterError } from '../../src/core/raster/io/dataset';
import { Hdf4Dataset, hdf4GridFields, isHdf4 } from '../../src/core/raster/io/hdf4';
import { Hdf4File } from '../../src/core/raster/io/hdf4-file';
import { packedDmsToDegrees } from '../../src/core/raster/io/hdfeos-grid';
import { crsOfGeo, parseCrs, sameCrs } from '../../src/core/raster/crs/crs';
import { gdalSkip, gdalWindows, gdalinfoJson, py, tmpDir } from '../helpers/raster-gdal';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { stemOf } from '../../src/core/raster/tools/common';
import { scanDataFolder } from '../../src/core/data/scan';
import { rasterFileView } from '../../src/core/results/raster-view';
import { executability } from '../../src/core/retrieval/executability';
import type { ToolManifest } from '../../src/core/manifests/types';
import { type EosGridSpec, hdf4LibsMissing, writeHdf4 } from '../helpers/hdf4-writer';

function skipWhy(what: string): string | false {
  const gdal = gdalSkip(what);
  if (gdal) return gdal;
  const libs = hdf4LibsMissing();
  if (!libs) return false;
  if (process.env.CI) throw new Error(`HDF-EOS library required in CI: ${libs}`);
  return `${libs}: skipping ${what}`;
}

const fail = (m: string) => new RasterError(m);

async function open(file: string, field?: string): Promise<Hdf4Dataset> {
  const ds = new Hdf4Dataset(file, fail, field);
  await ds.init();
  return ds;
}

/** GDAL's name for a field of an HDF-EOS grid. */
const eosName = (file: string, grid: string, field: string) => `HDF4_EOS:EOS_GRID:"${file}":${grid}:${field}`;

type Window = [number, number, number, number];

/** Every sample of each band window equal to GDAL's (int8 as GDAL 3.6 gives it: its bits as a byte). */
async function sameWindows(ds: Hdf4Dataset, gdalName: string, reads: [number, Window][], what: string): Promise<void> {
  const refs = gdalWindows(gdalName, reads);
  for (const [k, [band, win]] of reads.entries()) {
    const ref = refs[k];
    const raw = await ds.readWindowRaw(band, ...win);
    let bad = 0, first = -1;
    for (let i = 0; i < ref.length; i++) {
      const v = ds.dtype === 'int8' ? raw[i] & 0xff : raw[i];
      if (v !== ref[i] && !(Number.isNaN(v) && Number.isNaN(ref[i]))) { bad++; if (first < 0) first = i; }
    }
    assert.equal(raw.length, ref.length, `${what}: window length`);
    assert.equal(bad, 0, `${what} band ${band} window ${win.join(',')}: ${bad} samples differ, first at ${first}: ${raw[first]} vs GDAL ${ref[first]}`);
  }
}

/** Each band's whole extent and `win`, as reads for sameWindows. */
const bandsAnd = (ds: Hdf4Dataset, win: Window): [number, Window][] =>
  Array.from({ length: ds.bandCount }, (_, b) => [[b + 1, [0, 0, ds.width, ds.height]], [b + 1, win]] as [number, Window][]).flat();

/** GDAL's CRS of a dataset name, as proj4. */
const gdalProj4 = (name: string) => execFileSync('gdalsrsinfo', ['-o', 'proj4', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

/** Metadata of one field equal to GDAL's: size, bands, nodata, scale, offset, description, geotransform. */
function sameMetadata(ds: Hdf4Dataset, name: string, label: string): void {
  const info = gdalinfoJson(name);
  assert.deepEqual([ds.width, ds.height, ds.bandCount], [info.size[0], info.size[1], info.bands.length], `${label} size and bands`);
  for (let b = 0; b < ds.bandCount; b++) {
    const ib = info.bands[b];
    // GDAL 3.6 has no signed byte type: an int8 field is a byte band whose nodata is the fill's bits.
    assert.equal(ds.nodata !== null && ds.dtype === 'int8' ? ds.nodata & 0xff : ds.nodata, ib.noDataValue ?? null, `${label} nodata`);
    // A MODIS divisor (a grid's integer field, scale above 1) is read as one: GDAL multiplies.
    const divisor = (ib.scale ?? 1) > 1 && !ds.dtype.startsWith('float') && name.startsWith('HDF4_EOS:EOS_GRID');
    assert.equal(ds.scales[b], divisor ? 1 / ib.scale : ib.scale ?? 1, `${label} scale`);
    assert.equal(ds.offsets[b], divisor ? -(ib.offset ?? 0) / ib.scale : ib.offset ?? 0, `${label} offset`);
  }
  if (ds.bandCount === 1) assert.equal(ds.bandDescriptions[0], info.bands[0].description ?? null, `${label} description`);
  ds.geo.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - info.geoTransform[i]) <= 1e-6 * Math.max(1, Math.abs(v)), `${label} geotransform[${i}] ${v} vs GDAL ${info.geoTransform[i]}`));
}

const MOD13_GRID = 'MODIS_Grid_16DAY_250m_500m_VI';
/** A MOD13Q1-like tile: the h09v04 corners on MODIS's sphere, at a much coarser size. */
function mod13Spec(file: string): { file: string; grids: EosGridSpec[] } {
  return {
    file,
    grids: [{
      name: MOD13_GRID, xdim: 120, ydim: 100, ul: [-7783653.637667, 5559752.598333], lr: [-6671703.118, 4447802.078667],
      proj: 'SNSOID', sphere: -1, params: [6371007.181],
      fields: [
        {
          name: '250m 16 days NDVI', dims: 'YDim,XDim', type: 'int16', shape: [100, 120], tile: [50, 60], comp: 4, level: 6, fill: -3000,
          expr: "np.where(i % 97 == 5, -3000, (i * 7919) % 12000 - 2000)",
          attrs: { long_name: '250m 16 days NDVI', units: 'NDVI', valid_range: ['int16', [-2000, 10000]], scale_factor: ['float64', [10000]], scale_factor_err: ['float64', [0]], add_offset: ['float64', [0]], calibrated_nt: ['int32', [5]] },
        },
        {
          name: '250m 16 days pixel reliability', dims: 'YDim,XDim', type: 'int8', shape: [100, 120], tile: [25, 40], comp: 4, fill: -1,
          expr: '(i % 5) - 1', attrs: { long_name: '250m pixel reliability summary QA', units: 'rank', valid_range: ['int8', [0, 3]] },
        },
        { name: '250m 16 days VI Quality', dims: 'YDim,XDim', type: 'uint16', shape: [100, 120], tile: [50, 60], comp: 4, fill: 65535, expr: '(i * 2654435761) % 65536', attrs: { long_name: 'VI quality indicators' } },
        { name: 'QA', dims: 'YDim,XDim', type: 'uint8', shape: [100, 120], expr: '(i * 31) % 256' },
        {
          name: 'LST_Day', dims: 'YDim,XDim', type: 'float32', shape: [100, 120], comp: 4, fill: 0, expr: '250 + (i % 120) * 0.5 + (i // 120) * 0.25',
          attrs: { long_name: 'Daytime land surface temperature', units: 'K', scale_factor: ['float32', [0.02]], add_offset: ['float32', [0.5]] },
        },
      ],
    }],
  };
}

test('a MODIS-like sinusoidal grid (chunked DEFLATE int16 NDVI, int8, uint16, plain uint8, float32 compressed whole) equals GDAL HDF4_EOS', { skip: skipWhy('the HDF4 sinusoidal grid test'), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-hdf4-');
  const file = path.join(dir, 'MOD13Q1.A2024001.h09v04.061.hdf');
  writeHdf4(mod13Spec(file));
  assert.ok(isHdf4(fs.readFileSync(file).subarray(0, 8)));
  const fields = ['250m 16 days NDVI', '250m 16 days pixel reliability', '250m 16 days VI Quality', 'QA', 'LST_Day'];
  assert.deepEqual(await hdf4GridFields(file), fields);
  const subdatasets = Object.entries(gdalinfoJson(file).metadata?.SUBDATASETS ?? {}).filter(([k]) => k.endsWith('_NAME')).map(([, v]) => String(v).replace(/^.*:/, '').replace(/"/g, ''));
  assert.deepEqual(subdatasets, fields, 'the fields GDAL lists as subdatasets');
  const gdalCrs = parseCrs(gdalProj4(eosName(file, MOD13_GRID, '"250m 16 days NDVI"')), 'GDAL');
  assert.match(gdalCrs.def, /\+proj=sinu .*\+R=6371007\.181/);
  for (const field of fields) {
    const name = eosName(file, MOD13_GRID, field.includes(' ') ? `"${field}"` : field);
    const ds = await open(file, field);
    try {
      sameMetadata(ds, name, field);
      assert.ok(sameCrs(crsOfGeo(ds.geo, file)!, gdalCrs), `${field}: CRS ${crsOfGeo(ds.geo, file)?.def} equals GDAL's ${gdalCrs.def}`);
      await sameWindows(ds, name, ([[0, 0, 120, 100], [55, 45, 10, 10], [7, 93, 101, 7], [119, 99, 1, 1]] as Window[]).map((w) => [1, w]), field);
    } finally {
      await ds.close();
    }
  }
  // As the tools read them: scale and offset applied as stored (GDAL's reading), the fill left out.
  const lst = await open(file, 'LST_Day');
  try {
    const v = await lst.readWindow(1, 3, 2, 1, 1);
    assert.ok(Math.abs(v[0] - (Math.fround(250 + 3 * 0.5 + 2 * 0.25) * Math.fround(0.02) + Math.fround(0.5))) < 1e-3, `LST_Day (3, 2): ${v[0]}`);
    assert.equal(lst.dtype, 'float32');
  } finally {
    await lst.close();
  }
  const ndvi = await open(file, '250m 16 days NDVI');
  try {
    assert.equal(ndvi.dtype, 'int16');
    assert.deepEqual([ndvi.blockWidth, ndvi.blockHeight], [60, 50], 'blocks are the chunks');
    assert.match(ndvi.warnings?.join(' ') ?? '', /scale_factor is 10000, read as MODIS documents it: value = DN \/ 10000 \(GDAL applies it as DN × 10000\)/);
    // NDVI as MODIS means it: DN / 10000, in −0.2..1, not DN × 10000.
    const raw = await ndvi.readWindowRaw(1, 55, 45, 1, 1);
    const val = await ndvi.readWindow(1, 55, 45, 1, 1);
    assert.ok(Math.abs(val[0] - Number(raw[0]) / 10000) < 1e-6 && Math.abs(val[0]) <= 1, `NDVI ${val[0]} from DN ${raw[0]}`);
    const hole = await ndvi.readWindow(1, 5, 0, 1, 1);
    assert.ok(Number.isNaN(hole[0]), 'the _FillValue reads as no data');
    // A window inside one chunk decodes that chunk only; one across the middle, the four it touches.
    const reader = (ndvi as unknown as { reader: { cacheUse(): { chunks: number } } }).reader;
    await ndvi.readWindowRaw(1, 2, 3, 10, 10);
    assert.equal(reader.cacheUse().chunks, 1);
    await ndvi.readWindowRaw(1, 55, 45, 10, 10);
    assert.equal(reader.cacheUse().chunks, 4);
  } finally {
    await ndvi.close();
  }
});

test('a geographic grid (packed degrees) with 3-D fields band-first and band-last, UTM and Lambert azimuthal grids equal GDAL', { skip: skipWhy('the HDF4 geographic/UTM grid test'), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-hdf4-geo-');
  const file = path.join(dir, 'MCD12C1.A2022001.061.hdf');
  writeHdf4({
    file,
    grids: [
      {
        name: 'MOD12C1', xdim: 72, ydim: 36, ul: [-180000000, 90000000], lr: [180000000, -90000000], proj: 'GEO', sphere: 12, dims: { Num_IGBP_Classes: 3 },
        fields: [
          { name: 'Land_Cover_Type_1_Percent', dims: 'Num_IGBP_Classes,YDim,XDim', type: 'uint8', shape: [3, 36, 72], tile: [1, 12, 24], comp: 4, fill: 255, expr: '(i * 13) % 101' },
          { name: 'Majority_Land_Cover_Type_1', dims: 'YDim,XDim,Num_IGBP_Classes', type: 'int16', shape: [36, 72, 3], expr: '(i * 7) % 300 - 10' },
        ],
      },
      // A window of the globe whose corners are not whole degrees: 10°30' W, 50°15' N to 9°30' E, 40°15' N.
      { name: 'Window', xdim: 40, ydim: 20, ul: [-10030000, 50015000], lr: [9030000, 40015000], proj: 'GEO', fields: [{ name: 'Snow', dims: 'YDim,XDim', type: 'uint8', shape: [20, 40], expr: 'i % 200' }] },
      { name: 'UTM33S', xdim: 72, ydim: 36, ul: [500000, 5000000], lr: [572000, 4964000], proj: 'UTM', zone: -33, sphere: 12, fields: [{ name: 'Albedo', dims: 'YDim,XDim', type: 'float32', shape: [36, 72], expr: 'np.sin(i / 50)' }] },
      {
        name: 'EASE', xdim: 72, ydim: 36, ul: [-1000000, 1000000], lr: [1000000, -1000000], proj: 'LAMAZ', sphere: -1, params: [6371228, 0, 0, 0, -100000000, 45000000],
        fields: [{ name: 'SWE', dims: 'YDim,XDim', type: 'uint16', shape: [36, 72], expr: 'i % 1000' }],
      },
    ],
  });
  assert.deepEqual(await hdf4GridFields(file), ['Land_Cover_Type_1_Percent', 'Majority_Land_Cover_Type_1', 'Snow', 'Albedo', 'SWE']);
  for (const [grid, field] of [['MOD12C1', 'Land_Cover_Type_1_Percent'], ['MOD12C1', 'Majority_Land_Cover_Type_1'], ['Window', 'Snow'], ['UTM33S', 'Albedo'], ['EASE', 'SWE']]) {
    const name = eosName(file, grid, field);
    const ds = await open(file, field);
    try {
      sameMetadata(ds, name, field);
      await sameWindows(ds, name, bandsAnd(ds, [20, 10, 15, 7]), field);
      const ours = crsOfGeo(ds.geo, file)!;
      if (grid === 'UTM33S') {
        assert.equal(ds.geo.epsg, 32733);
        assert.ok(sameCrs(ours, parseCrs(gdalProj4(name), 'GDAL')), `UTM CRS equals GDAL's ${gdalProj4(name)}`);
      } else if (grid === 'EASE') {
        // GCTP keeps angles in packed degrees (-100000000 = 100° W); GDAL 3.6 takes them for radians here.
        assert.match(ours.def, /\+proj=laea \+lat_0=45 \+lon_0=-100 /);
      } else {
        // GDAL names the datum Clarke 1866 (HDF-EOS gives no sphere for GCTP_GEO); MODIS lon/lat grids are WGS 84.
        assert.equal(ds.geo.epsg, 4326);
        assert.match(gdalProj4(name), /^\+proj=longlat /);
      }
    } finally {
      await ds.close();
    }
  }
  const lc = await open(file, 'Land_Cover_Type_1_Percent');
  try {
    assert.deepEqual(lc.bandDescriptions, ['Num_IGBP_Classes=0', 'Num_IGBP_Classes=1', 'Num_IGBP_Classes=2']);
    assert.deepEqual(lc.geo.geoTransform, [-180, 5, 0, 90, 0, -5]);
  } finally {
    await lc.close();
  }
  assert.equal(packedDmsToDegrees(-10030000), -10.5);
  assert.equal(packedDmsToDegrees(50015030.5), 50 + 15 / 60 + 30.5 / 3600);
});

test('plain SD files (linked blocks, run-length, skipping Huffman, DEFLATE, partial edge chunks, chunks never written) equal GDAL HDF4_SDS', { skip: skipWhy('the HDF4 SD test'), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-hdf4-sd-');
  const file = path.join(dir, 'plain.hdf');
  const sds = [
    { name: 'grown', type: 'int16', shape: [50, 70], expr: '(i * 37) % 3001 - 1500', grow: 7, blockSize: 1000 },
    { name: 'grown_too', type: 'float32', shape: [50, 70], expr: 'i / 7.0', grow: 7, blockSize: 3000 },
    { name: 'rle', type: 'uint8', shape: [50, 70], expr: '(i // 23) % 7', compress: [1, 0] as [number, number] },
    { name: 'huff', type: 'int16', shape: [50, 70], expr: '(i * 11) % 251 - 100', compress: [3, 2] as [number, number] },
    { name: 'deflated', type: 'uint16', shape: [50, 70], expr: '(i * 200) % 65536', compress: [4, 4] as [number, number] },
    { name: 'chunky', type: 'float32', shape: [3, 50, 70], expr: 'np.cos(i / 17.0) * 100', chunk: [1, 16, 32], chunkComp: [4, 5] as [number, number], fill: -9 },
    { name: 'holes', type: 'int32', shape: [50, 70], expr: 'i * 3 - 1000', chunk: [16, 32], fill: -99, write: [[0, 0], [10, 20]] as [number[], number[]] },
    { name: 'doubles', type: 'float64', shape: [50, 70], expr: 'i / 3.0', chunk: [20, 20] },
  ];
  writeHdf4({ file, sds });
  const h = await Hdf4File.open(file, fail);
  try {
    // The storage each case is meant to cover is the one the library wrote.
    const layouts = await Promise.all(h.all(702).map((dd) => h.layout(702, dd.ref, `SDS ${dd.ref}`)));
    assert.equal(layouts.filter((l) => l?.kind === 'runs' && l.runs.length > 1).length, 2, 'the two grown SDS are stored in linked blocks');
    assert.deepEqual(layouts.flatMap((l) => (l?.kind === 'compressed' ? [l.coder.name] : [])), ['RLE', 'skipping Huffman', 'DEFLATE']);
    assert.equal(layouts.filter((l) => l?.kind === 'chunked').length, 3);
  } finally {
    await h.close();
  }
  assert.deepEqual(await hdf4GridFields(file), sds.map((s) => s.name));
  for (const [index, s] of sds.entries()) {
    const name = `HDF4_SDS:UNKNOWN:"${file}":${index}`;
    const ds = await open(file, s.name);
    try {
      const info = gdalinfoJson(name);
      assert.deepEqual([ds.width, ds.height, ds.bandCount], [info.size[0], info.size[1], info.bands.length], `${s.name} size and bands`);
      // GDAL gives a plain SDS's _FillValue as metadata only; it is taken as nodata here, as for a grid field.
      const fill = info.metadata?.['']?._FillValue;
      assert.equal(info.bands[0].noDataValue, undefined);
      assert.equal(ds.nodata, fill === undefined ? null : Number(fill), `${s.name} nodata`);
      assert.ok(ds.geo.ungeoreferenced, `${s.name}: no place on the map`);
      assert.match(ds.warnings?.join(' ') ?? '', /has no HDF-EOS grid metadata/);
      await sameWindows(ds, name, bandsAnd(ds, [30, 14, 35, 20]), s.name);
    } finally {
      await ds.close();
    }
  }
});

test('an HDF4 file GDAL wrote (HDF4Image) is placed as GDAL places it', { skip: skipWhy('the GDAL-written HDF4 test'), timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-hdf4-gdal-');
  const file = path.join(dir, 'gdal.hdf');
  py(String.raw`
from osgeo import gdal, osr
import numpy as np
s = osr.SpatialReference(); s.ImportFromEPSG(32633)
m = gdal.GetDriverByName('MEM').Create('', 30, 20, 2, gdal.GDT_Int16)
m.SetGeoTransform((400000, 30, 0, 5000000, 0, -30)); m.SetProjection(s.ExportToWkt())
for b in (1, 2):
    m.GetRasterBand(b).WriteArray((np.arange(600) * b - 7).reshape(20, 30).astype(np.int16)); m.GetRasterBand(b).SetNoDataValue(-7)
gdal.Translate(${JSON.stringify(file)}, m, format='HDF4Image')
`);
  const ds = await open(file);
  try {
    sameMetadata(ds, file, 'gdal.hdf');
    assert.equal(ds.geo.epsg, 32633);
    assert.equal(ds.warnings, undefined);
    await sameWindows(ds, file, bandsAnd(ds, [3, 4, 20, 10]), 'gdal.hdf');
  } finally {
    await ds.close();
  }
});

test('a swath, a field not named, named in two grids or unknown are refused saying what to do', { skip: skipWhy('the HDF4 refusal test'), timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-hdf4-swath-');
  const swath = path.join(dir, 'MOD021KM.A2024001.1200.061.hdf');
  writeHdf4({
    file: swath,
    swaths: [{
      name: 'MODIS_SWATH_Type_L1B', dims: { '2*nscans:MODIS_SWATH_Type_L1B': 20, '1KM_geo_dim:MODIS_SWATH_Type_L1B': 10, Band_1KM_RefSB: 2 },
      fields: [
        { name: 'Latitude', geo: true, dims: '2*nscans:MODIS_SWATH_Type_L1B,1KM_geo_dim:MODIS_SWATH_Type_L1B', type: 'float32', shape: [20, 10], expr: '40 + i / 100' },
        { name: 'Longitude', geo: true, dims: '2*nscans:MODIS_SWATH_Type_L1B,1KM_geo_dim:MODIS_SWATH_Type_L1B', type: 'float32', shape: [20, 10], expr: '-100 + i / 100' },
        { name: 'EV_1KM_RefSB', dims: 'Band_1KM_RefSB,2*nscans:MODIS_SWATH_Type_L1B,1KM_geo_dim:MODIS_SWATH_Type_L1B', type: 'uint16', shape: [2, 20, 10], expr: 'i' },
      ],
    }],
  });
  assert.deepEqual(await hdf4GridFields(swath), []);
  for (const field of [undefined, 'EV_1KM_RefSB']) {
    await assert.rejects(open(swath, field), (e: Error) => {
      assert.ok(e instanceof RasterError);
      assert.match(e.message, /MOD021KM\.A2024001\.1200\.061\.hdf.*: it is an HDF-EOS swath \("MODIS_SWATH_Type_L1B": values on geolocation arrays Latitude\/Longitude/);
      assert.match(e.message, /gdalwarp -geoloc -t_srs EPSG:4326 'HDF4_EOS:EOS_SWATH:"MOD021KM\.A2024001\.1200\.061\.hdf":MODIS_SWATH_Type_L1B:EV_1KM_RefSB' out\.tif/);
      assert.match(e.message, /or use a gridded \(level-3\) product/);
      return true;
    });
  }
  const two = path.join(dir, 'two_grids.hdf');
  const grid = (name: string, ul: [number, number]): EosGridSpec => ({
    name, xdim: 10, ydim: 8, ul, lr: [ul[0] + 10000, ul[1] - 8000], proj: 'SNSOID', sphere: -1, params: [6371007.181],
    fields: [{ name: 'NDVI', dims: 'YDim,XDim', type: 'int16', shape: [8, 10], expr: `i + ${ul[0] / 1000}` }, { name: `QA_${name}`, dims: 'YDim,XDim', type: 'uint8', shape: [8, 10], expr: 'i' }],
  });
  writeHdf4({ file: two, grids: [grid('G500m', [0, 0]), grid('G1km', [100000, 0])] });
  assert.deepEqual(await hdf4GridFields(two), ['G500m/NDVI', 'QA_G500m', 'G1km/NDVI', 'QA_G1km']);
  await assert.rejects(open(two), /two_grids\.hdf: holds 4 fields \(G500m\/NDVI, QA_G500m, G1km\/NDVI, QA_G1km\); name the one to read as two_grids\.hdf#G500m\/NDVI/);
  await assert.rejects(open(two, 'NDVI'), /two_grids\.hdf: field "NDVI" is in 2 grids; name one as two_grids\.hdf#G500m\/NDVI/);
  await assert.rejects(open(two, 'EVI'), /two_grids\.hdf: holds no gridded field "EVI"; its fields: G500m\/NDVI, QA_G500m, G1km\/NDVI, QA_G1km/);
  for (const g of ['G500m', 'G1km']) {
    const ds = await open(two, `${g}/NDVI`);
    try {
      sameMetadata(ds, eosName(two, g, 'NDVI'), `${g}/NDVI`);
      await sameWindows(ds, eosName(two, g, 'NDVI'), [[1, [0, 0, 10, 8]]], `${g}/NDVI`);
    } finally {
      await ds.close();
    }
  }
});

test('cut and damaged HDF4 files give errors naming the file, quickly', { skip: skipWhy('the damaged HDF4 test'), timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-hdf4-bad-');
  const good = path.join(dir, 'good.hdf');
  writeHdf4(mod13Spec(good));
  const whole = fs.readFileSync(good);
  const started = Date.now();
  for (const keep of [3, 40, 1000, Math.floor(whole.length / 2), whole.length - 64]) {
    const cut = path.join(dir, `cut_${keep}.hdf`);
    fs.writeFileSync(cut, whole.subarray(0, keep));
    const attempt = async () => {
      const ds = await open(cut, '250m 16 days NDVI');
      try { await ds.readWindowRaw(1, 0, 0, ds.width, ds.height); } finally { await ds.close(); }
    };
    await assert.rejects(attempt(), (e: Error) => {
      assert.ok(e instanceof RasterError, `cut at ${keep}: ${e}`);
      assert.match(e.message, new RegExp(`cut_${keep}\\.hdf`), `cut at ${keep}: ${e.message}`);
      assert.match(e.message, /cut short|damaged|not an HDF4 file|past the end/, `cut at ${keep}: ${e.message}`);
      return true;
    });
  }
  // DD blocks that point back at the first; a chunk whose compressed bytes are garbage.
  const looped = Buffer.from(whole);
  looped.writeUInt32BE(4, 6);
  fs.writeFileSync(path.join(dir, 'looped.hdf'), looped);
  await assert.rejects(open(path.join(dir, 'looped.hdf'), 'QA'), /looped\.hdf: its DD blocks link back to one another at byte 4; the file is damaged/);
  const h = await Hdf4File.open(good, fail);
  const compressed = h.all(40)[0];
  await h.close();
  const garbled = Buffer.from(whole);
  garbled.fill(0x55, compressed.offset, compressed.offset + compressed.length);
  fs.writeFileSync(path.join(dir, 'garbled.hdf'), garbled);
  const ds = await open(path.join(dir, 'garbled.hdf'), '250m 16 days NDVI');
  try {
    await assert.rejects(ds.readWindowRaw(1, 0, 0, 120, 100), /garbled\.hdf: cannot decode chunk \(0, 0\) of field "250m 16 days NDVI" \(.*\); the file is damaged or cut short/);
  } finally {
    await ds.close();
  }
  assert.ok(Date.now() - started < 20_000, 'damaged files are refused quickly');
  assert.equal(isHdf4(Buffer.from('CDF\x01')), false);
  assert.deepEqual(await hdf4GridFields(path.join(dir, 'cut_3.hdf')), []);
});

test('HDF4 in the scan, readiness and tools: one item per grid field, NDVI as MODIS means it (DN / 10000), outputs named after the field', { skip: skipWhy('the HDF4 scan test'), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-hdf4-scan-');
  const name = 'MOD13Q1.A2024001.h09v04.061.hdf';
  const file = path.join(dir, name);
  writeHdf4(mod13Spec(file));
  const data = await scanDataFolder(dir);
  const fields = ['250m 16 days NDVI', '250m 16 days pixel reliability', '250m 16 days VI Quality', 'QA', 'LST_Day'];
  assert.deepEqual(data.items.map((it) => it.path).sort(), fields.map((f) => `${name}#${f}`).sort());
  const ndviItem = data.items.find((it) => it.path === `${name}#250m 16 days NDVI`)!;
  assert.match(ndviItem.crs ?? '', /MODIS Sinusoidal/);
  // A task asking about NDVI takes the field that holds it (its long name says so), with the other fields named.
  const stats = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests/raster_stats.json'), 'utf8')) as ToolManifest;
  const r = executability(stats, data, { task: `histogram of the NDVI in ${name}` });
  assert.equal(r.args.image, `${name}#250m 16 days NDVI`, r.notes.join(' | '));
  // Taken because it holds what the task asks about: no caveat that another field was passed over.
  assert.deepEqual(r.caveats ?? [], []);
  const blind = executability(stats, data, { task: `histogram of ${name}` });
  assert.match((blind.caveats ?? []).join(' | '), /holds 250m 16 days NDVI, .*: 250m 16 days NDVI is taken; name MOD13Q1\.A2024001\.h09v04\.061\.hdf#<variable> for another/);
  // The tool reads DN / 10000: its mean equals numpy's over GDAL's raw values, divided.
  const run = await runTool('raster_stats', { image: `${name}#250m 16 days NDVI` }, { outDir: path.join(dir, 'out'), cwd: dir });
  const mean = Number(py(`
from osgeo import gdal
a = gdal.Open('HDF4_EOS:EOS_GRID:"${file}":${MOD13_GRID}:"250m 16 days NDVI"').ReadAsArray().astype('f8')
print(a[a != -3000].mean() / 10000)`));
  const ours = Number(/^Mean 250m 16 days NDVI (-?[\d.]+) \(median/.exec(run.summary)?.[1]);
  assert.ok(Math.abs(ours - mean) < 5e-3 && Math.abs(ours) < 1, `${run.summary} vs numpy ${mean}`);
  assert.equal(stemOf(`data/${name}#250m 16 days NDVI`), 'MOD13Q1.A2024001.h09v04.061_250m_16_days_NDVI');
  // Reprojected, the field keeps its stored integers and scale (as gdalwarp does: the same grid),
  // and the summary gives NDVI, not DN.
  const warped = await runTool('reproject', { image: `${name}#250m 16 days NDVI`, dst_crs: 'EPSG:4326' }, { outDir: path.join(dir, 'out'), cwd: dir });
  const gdalWarped = path.join(dir, 'gdal_4326.tif');
  execFileSync('gdalwarp', ['-q', '-t_srs', 'EPSG:4326', eosName(file, MOD13_GRID, '"250m 16 days NDVI"'), gdalWarped]);
  const ref = gdalinfoJson(gdalWarped), mine = gdalinfoJson(warped.outputs.reprojected.path);
  assert.deepEqual(mine.size, ref.size);
  mine.geoTransform.forEach((v: number, i: number) => assert.ok(Math.abs(v - ref.geoTransform[i]) < 1e-9 * Math.max(1, Math.abs(v)), `geotransform[${i}]`));
  assert.equal(mine.bands[0].scale, 0.0001);
  const warpedMean = Number(/band 1 mean (-?[\d.]+)/.exec(warped.summary)?.[1]);
  assert.ok(Math.abs(warpedMean) < 1 && Math.abs(warpedMean - ours) < 0.05, warped.summary);
  // Through openRaster, by the file's name and a field; a file of several fields with none named is refused listing them.
  const ds = await openRaster(`${file}#LST_Day`);
  assert.equal(ds.width, 120);
  await ds.close();
  await assert.rejects(openRaster(file), /250m 16 days NDVI/);
  // Opened from the explorer, the file shows its first field and lists the others.
  const view = await rasterFileView(file);
  assert.match(view.summary, new RegExp(`^${name.replace(/\./g, '\\.')} holds 5 layers; shown: 250m 16 days NDVI\\. Name another as ${name.replace(/\./g, '\\.')}#<layer> in a cell\\. `));
  assert.deepEqual(view.tables[0].rows.map((r) => r[0]), fields);
  assert.ok(view.map, 'the first field is on the map');
});
