/**
 * ENVI and ESRI EHdr rasters (raw data + `.hdr`) read as GDAL's ENVI and EHdr drivers read them: BSQ, BIL and BIP; byte,
 * 16- and 32-bit integers and floats; big-endian with a header offset; band names, wavelengths and
 * `data ignore value`; the geotransform from `map info` (also rotated, and in degrees) and the CRS.
 * Every band, whole and in windows, equals GDAL's ReadAsArray. An imaging spectrometer's cube named
 * by wavelength gets red and NIR from the bands nearest 665 and 842 nm, so NDVI is ready on it and
 * equals numpy over those bands. Broken pairs are refused naming the file and what is wrong.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runTool, describeRaster } from '../../src/core/raster/engine';
import { scanDataFolder } from '../../src/core/data/scan';
import { executability } from '../../src/core/retrieval/executability';
import { wavelengthNm } from '../../src/core/raster/wavelength-roles';
import type { ToolManifest } from '../../src/core/manifests/types';
import { gdalinfoJson, needGdal, py, readF64, tmpDir } from '../helpers/raster-gdal';

const skip = needGdal();

function make(dir: string): void {
  py(String.raw`
import os, numpy as np
from osgeo import gdal, osr
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
s = osr.SpatialReference(); s.ImportFromEPSG(32633)
rng = np.random.default_rng(5)
for il, dt in [('BSQ', gdal.GDT_UInt16), ('BIL', gdal.GDT_Float32), ('BIP', gdal.GDT_Int16), ('BSQ', gdal.GDT_Byte), ('BIP', gdal.GDT_UInt32), ('BIL', gdal.GDT_Float64)]:
    m = gdal.GetDriverByName('MEM').Create('', 70, 50, 4, dt)
    m.SetGeoTransform((500000, 30, 0, 4600000, 0, -30)); m.SetProjection(s.ExportToWkt())
    for b in range(4):
        a = rng.integers(0, 250, (50, 70)) * (1 if dt == gdal.GDT_Byte else 37) + (0.25 if dt in (gdal.GDT_Float32, gdal.GDT_Float64) else 0)
        a[:3, :5] = 0
        m.GetRasterBand(b + 1).WriteArray(a); m.GetRasterBand(b + 1).SetNoDataValue(0); m.GetRasterBand(b + 1).SetDescription('layer %d' % (b + 1))
    gdal.Translate('%s_%s.img' % (il.lower(), gdal.GetDataTypeName(dt).lower()), m, format='ENVI', creationOptions=['INTERLEAVE=' + il])
# Big-endian int32 after a 512-byte header, rotated 30 degrees, in lon/lat (written by hand, as other software does).
a = (np.arange(40 * 30 * 3).reshape(3, 30, 40) * 1000 - 500000).astype('>i4')
open('be.dat', 'wb').write(b'\x00' * 512 + a.tobytes())
open('be.hdr', 'w').write('ENVI\ndescription = {big-endian test}\nsamples = 40\nlines = 30\nbands = 3\nheader offset = 512\nfile type = ENVI Standard\ndata type = 3\ninterleave = bsq\nbyte order = 1\nmap info = {Geographic Lat/Lon, 1.5, 2.5, 11.25, 46.5, 0.001, 0.001, WGS-84, units=Degrees, rotation=30}\nband names = {\n alpha,\n beta, gamma}\n')
# A 60-band imaging spectrometer cube named by wavelength (400-2500 nm), reflectance x 10000.
wl = np.linspace(400, 2500, 60)
refl = np.stack([np.full((25, 30), 800, np.int16) + (i * 40 if w > 700 else i * 5) + rng.integers(0, 50, (25, 30)).astype(np.int16) for i, w in enumerate(wl)])
refl.astype('<i2').tofile('cube.bil.tmp')
bil = np.transpose(refl, (1, 0, 2)).astype('<i2'); bil.tofile('cube.bil')
os.remove('cube.bil.tmp')
np.save('refl.npy', refl)
open('cube.hdr', 'w').write('ENVI\nsamples = 30\nlines = 25\nbands = 60\nheader offset = 0\ndata type = 2\ninterleave = bil\nbyte order = 0\nmap info = {UTM, 1, 1, 300000, 5000000, 5, 5, 32, North, WGS-84}\nwavelength units = Nanometers\nwavelength = {' + ', '.join('%.2f' % w for w in wl) + '}\ndata ignore value = -9999\n')
`);
}

test('ENVI rasters equal GDAL: every interleave and type, big-endian after a header offset, rotated lon/lat map info, names and nodata', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-envi-');
  make(dir);
  const files = fs.readdirSync(dir).filter((f) => /\.(img|dat)$/.test(f)).sort();
  assert.equal(files.length, 7);
  for (const f of files) {
    const file = path.join(dir, f);
    const info = gdalinfoJson(file);
    const ds = await openRaster(file);
    try {
      assert.deepEqual([ds.width, ds.height, ds.bandCount], info.size.concat(info.bands.length), f);
      assert.equal(ds.dtype, { Byte: 'uint8' }[info.bands[0].type as string] ?? String(info.bands[0].type).toLowerCase(), f);
      ds.geo.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - info.geoTransform[i]) < 1e-9, `${f} geotransform[${i}] ${v} vs ${info.geoTransform[i]}`));
      assert.deepEqual(ds.bandDescriptions, info.bands.map((b: { description?: string }) => b.description ?? null), f);
      assert.equal(ds.nodata, info.bands[0].noDataValue ?? null, f);
      assert.equal(ds.geo.epsg, f === 'be.dat' ? 4326 : 32633, f);
      const windows = [[0, 0, ds.width, ds.height], [7, 5, 20, 11], [ds.width - 1, ds.height - 1, 1, 1]];
      // GDAL's reading of every band in every window, in one run: band after band, window after window.
      const ref = readF64(py(`
from osgeo import gdal
import numpy as np, tempfile
d = gdal.Open(${JSON.stringify(file)}); t = tempfile.mktemp()
np.concatenate([d.GetRasterBand(b).ReadAsArray(*w).astype('f8').ravel() for b in range(1, d.RasterCount + 1) for w in ${JSON.stringify(windows)}]).tofile(t); print(t)`).trim());
      let at = 0;
      for (let b = 1; b <= ds.bandCount; b++) {
        for (const [x, y, w, h] of windows) {
          const raw = await ds.readWindowRaw(b, x, y, w, h);
          let bad = 0;
          for (let i = 0; i < raw.length; i++) if (raw[i] !== ref[at + i]) bad++;
          at += raw.length;
          assert.equal(bad, 0, `${f} band ${b} window ${x},${y} ${w}x${h}`);
        }
      }
      assert.equal(at, ref.length);
    } finally {
      await ds.close();
    }
  }
  // The header itself may be given.
  const viaHdr = await openRaster(path.join(dir, 'be.hdr'));
  assert.equal(viaHdr.source, path.join(dir, 'be.dat'));
  assert.deepEqual(viaHdr.bandDescriptions, ['alpha', 'beta', 'gamma']);
  await viaHdr.close();
});

test('a hyperspectral cube named by wavelength: red and NIR are the bands nearest 665 and 842 nm; NDVI ready and equal to numpy; broken pairs refused', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-envi-');
  make(dir);
  assert.equal(wavelengthNm('Band 54 (667.1 Nanometers)'), 667.1);
  assert.ok(Math.abs(wavelengthNm('0.8421 Micrometers')! - 842.1) < 1e-9);
  assert.equal(wavelengthNm('B4'), undefined);
  const item = await describeRaster('cube.hdr', dir);
  const role = (r: string) => item.bands?.find((b) => b.role === r);
  const wl = Array.from({ length: 60 }, (_, i) => 400 + (2100 * i) / 59);
  const nearest = (c: number) => wl.reduce((best, w, i) => (Math.abs(w - c) < Math.abs(wl[best] - c) ? i : best), 0) + 1;
  assert.equal(role('red')?.index, nearest(665));
  assert.equal(role('nir')?.index, nearest(842));
  assert.equal(role('swir1')?.index, nearest(1610));
  const ndviManifest: ToolManifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests/ndvi.json'), 'utf8'));
  const scan = await scanDataFolder(dir);
  const ready = executability(ndviManifest, { items: scan.items.filter((i) => i.path === 'cube.hdr') });
  assert.equal(ready.ready, true, ready.notes.join('; '));
  const run = await runTool('ndvi', { image: 'cube.hdr' }, { outDir: path.join(dir, 'out'), cwd: dir });
  assert.equal(path.basename(run.outputs.index.path), 'cube_ndvi.tif');
  const diff = py(`
import numpy as np
from osgeo import gdal
r = np.load(${JSON.stringify(path.join(dir, 'refl.npy'))}).astype('f8')
red, nir = r[${nearest(665) - 1}], r[${nearest(842) - 1}]
ref = (nir - red) / (nir + red)
d = gdal.Open(${JSON.stringify(run.outputs.index.path)}); a = d.GetRasterBand(1).ReadAsArray().astype('f8')
print(float(np.max(np.abs(a - ref))))`).trim();
  assert.ok(Number(diff) < 1e-6, `NDVI within 1e-6 of numpy (max ${diff})`);

  fs.copyFileSync(path.join(dir, 'be.hdr'), path.join(dir, 'alone.hdr'));
  await assert.rejects(openRaster(path.join(dir, 'alone.hdr')), /alone\.hdr: its data file alone is not beside it/);
  fs.writeFileSync(path.join(dir, 'short.dat'), Buffer.alloc(600));
  fs.copyFileSync(path.join(dir, 'be.hdr'), path.join(dir, 'short.hdr'));
  await assert.rejects(openRaster(path.join(dir, 'short.dat')), /short\.dat: 600 bytes, where the header short\.hdr describes 14912 .*cut short/);
  fs.writeFileSync(path.join(dir, 'cplx.hdr'), 'ENVI\nsamples = 2\nlines = 2\nbands = 1\ndata type = 6\n');
  fs.writeFileSync(path.join(dir, 'cplx.img'), Buffer.alloc(32));
  await assert.rejects(openRaster(path.join(dir, 'cplx.img')), /cplx\.hdr: data type 6 \(complex float32\) is not read; convert it with gdal_translate/);
  fs.writeFileSync(path.join(dir, 'nolines.hdr'), 'ENVI\nsamples = 2\nbands = 1\n');
  fs.writeFileSync(path.join(dir, 'nolines.img'), Buffer.alloc(32));
  await assert.rejects(openRaster(path.join(dir, 'nolines.img')), /nolines\.hdr: "lines = " is not a count/);

});

test('ESRI .hdr rasters equal GDAL EHdr: USGS SRTM .bil with an ArcInfo .prj, PRISM-style BIL, ArcGIS .flt with xllcorner, BIP and BSQ, big-endian', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-ehdr-');
  py(String.raw`
import os, numpy as np
from osgeo import gdal, osr
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
rng = np.random.default_rng(9)
# USGS SRTM 1 arc-second as EarthExplorer's BIL: int16, little-endian, pixel-centre ULXMAP, ArcInfo .prj.
a = (rng.integers(-50, 3000, (61, 61))).astype('<i2'); a[3, 4] = -9999
a.tofile('n37_w122_1arc_v3.bil')
open('n37_w122_1arc_v3.hdr', 'w').write('BYTEORDER      I\nLAYOUT         BIL\nNROWS          61\nNCOLS          61\nNBANDS         1\nNBITS          16\nBANDROWBYTES   122\nTOTALROWBYTES  122\nPIXELTYPE      SIGNEDINT\nULXMAP         -122\nULYMAP         38\nXDIM           0.000277777777777778\nYDIM           0.000277777777777778\nNODATA         -9999\n')
open('n37_w122_1arc_v3.prj', 'w').write('Projection    GEOGRAPHIC\nDatum         WGS84\nZunits        METERS\nUnits         DD\nSpheroid      WGS84\nXshift        0.0000000000\nYshift        0.0000000000\nParameters\n')
# GDAL's own EHdr (BIL, ESRI WKT .prj), 3 bands of float32 in UTM.
s = osr.SpatialReference(); s.ImportFromEPSG(32618)
m = gdal.GetDriverByName('MEM').Create('', 40, 30, 3, gdal.GDT_Float32)
m.SetGeoTransform((400000, 20, 0, 4500000, 0, -20)); m.SetProjection(s.ExportToWkt())
for b in range(3): m.GetRasterBand(b + 1).WriteArray(rng.normal(10, 5, (30, 40))); m.GetRasterBand(b + 1).SetNoDataValue(-3.5)
gdal.Translate('ppt.bil', m, format='EHdr')
# ArcGIS float grid: .flt with xllcorner/yllcorner/cellsize, no NBITS (float by extension).
rng.normal(0, 1, (25, 35)).astype('<f4').tofile('grid.flt')
open('grid.hdr', 'w').write('ncols 35\nnrows 25\nxllcorner 500000\nyllcorner 4200000\ncellsize 100\nNODATA_value -9999\nbyteorder LSBFIRST\n')
# BIP and BSQ, big-endian uint16, after 64 skipped bytes.
for lay in ['BIP', 'BSQ']:
    c = rng.integers(0, 60000, (2, 20, 30)).astype('>u2')
    body = np.transpose(c, (1, 2, 0)) if lay == 'BIP' else c
    open('%s.bil' % lay.lower(), 'wb').write(b'\xff' * 64 + np.ascontiguousarray(body).astype('>u2').tobytes())
    open('%s.hdr' % lay.lower(), 'w').write('NROWS 20\nNCOLS 30\nNBANDS 2\nNBITS 16\nBYTEORDER M\nLAYOUT %s\nSKIPBYTES 64\nULXMAP 10.5\nULYMAP 45.5\nXDIM 0.01\nYDIM 0.01\n' % lay)
`);
  for (const f of ['n37_w122_1arc_v3.bil', 'ppt.bil', 'grid.flt', 'bip.bil', 'bsq.bil']) {
    const file = path.join(dir, f);
    const info = gdalinfoJson(file);
    assert.equal(info.driverShortName, 'EHdr', f);
    const ds = await openRaster(file);
    try {
      assert.deepEqual([ds.width, ds.height, ds.bandCount], info.size.concat(info.bands.length), f);
      assert.equal(ds.dtype, { Byte: 'uint8' }[info.bands[0].type as string] ?? String(info.bands[0].type).toLowerCase(), f);
      ds.geo.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - info.geoTransform[i]) < 1e-9, `${f} geotransform[${i}] ${v} vs ${info.geoTransform[i]}`));
      assert.equal(ds.nodata, info.bands[0].noDataValue ?? null, f);
      assert.equal(ds.geo.epsg, ({ 'n37_w122_1arc_v3.bil': 4326, 'ppt.bil': 32618 } as Record<string, number>)[f], f);
      const ref = readF64(py(`
from osgeo import gdal
import numpy as np, tempfile
d = gdal.Open(${JSON.stringify(file)}); t = tempfile.mktemp()
np.concatenate([d.GetRasterBand(b).ReadAsArray().astype('f8').ravel() for b in range(1, d.RasterCount + 1)]).tofile(t); print(t)`).trim());
      let at = 0, bad = 0;
      for (let b = 1; b <= ds.bandCount; b++) {
        const raw = await ds.readWindowRaw(b, 0, 0, ds.width, ds.height);
        for (let i = 0; i < raw.length; i++) if (raw[i] !== ref[at + i]) bad++;
        at += raw.length;
      }
      assert.equal(bad, 0, f);
    } finally {
      await ds.close();
    }
  }
  // The scan lists the header, a DEM by its SRTM name.
  const item = await describeRaster('n37_w122_1arc_v3.hdr', dir);
  assert.deepEqual(item.roles, ['dem']);
  fs.rmSync(path.join(dir, 'grid.flt'));
  await assert.rejects(openRaster(path.join(dir, 'grid.hdr')), /grid\.hdr: its data file grid\.bil is not beside it/);
});
