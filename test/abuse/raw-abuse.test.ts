/**
 * Hostile raw rasters: ENVI and ESRI (EHdr) headers truncated, bit-flipped and with values no writer
 * uses (negative, huge and non-numeric sizes, header offsets past the end, unknown types, endless
 * `{` lists, megabytes of header), data files that are cut short, FIFOs or folders, and SRTM `.hgt`
 * tiles of wrong sizes and names, and ESRI ASCII grids, DTED tiles, NetCDF classic and NetCDF-4
 * files, MODIS-like HDF4 tiles and VIIRS-like HDF-EOS5 grids damaged the same ways; ERDAS Imagine
 * (.img, HFA) files in their own test: truncated, bit-flipped at random and in their node entries,
 * block tables and dictionary, and with a damaged spill file. Each is opened and read in full in a child process; a trial
 * passes when it reads or fails naming a file of the pair, within its time and memory bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { judge, emptyDir, fingerprint, damaged, trialRoom, closeRoom } from './harness';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';
import { era5LikeBytes } from '../helpers/netcdf-writer';
import { gdalMissing, py, tmpDir } from '../helpers/raster-gdal';
import { hdf4LibsMissing, writeHdf4 } from '../helpers/hdf4-writer';
import { he5LibMissing, writeHe5 } from '../helpers/he5-writer';

const ENVI_HDR = 'ENVI\ndescription = {test}\nsamples = 40\nlines = 30\nbands = 3\nheader offset = 0\nfile type = ENVI Standard\ndata type = 12\ninterleave = bil\nbyte order = 0\nmap info = {UTM, 1, 1, 500000, 4600000, 30, 30, 33, North, WGS-84}\nwavelength units = Nanometers\nwavelength = {665, 705, 842}\ndata ignore value = 0\n';
const EHDR_HDR = 'BYTEORDER I\nLAYOUT BIL\nNROWS 30\nNCOLS 40\nNBANDS 3\nNBITS 16\nPIXELTYPE SIGNEDINT\nULXMAP 10.005\nULYMAP 45.995\nXDIM 0.01\nYDIM 0.01\nNODATA -9999\n';

test('raw abuse: hostile ENVI and EHdr headers and data files, SRTM tiles of the wrong size or name, damaged ASCII grids, DTED tiles, NetCDF, HDF4 and HDF-EOS5 files', { timeout: 900_000 }, async () => {
  const room = trialRoom('gw-abuse-raw-');
  const { inDir, outside, outsideBefore, tally, runner } = room;
  const data = Buffer.alloc(40 * 30 * 3 * 2);
  for (let i = 0; i < data.length; i += 2) data.writeUInt16LE((i * 7) % 60000, i);
  const trial = async (label: string, files: Record<string, Buffer | 'fifo' | 'dir'>, open: string, opts: { mustFail?: boolean; mustSucceed?: boolean } = {}) => {
    emptyDir(inDir);
    for (const [name, body] of Object.entries(files)) {
      const p = path.join(inDir, name);
      if (body === 'fifo') spawnSync('mkfifo', [p]);
      else if (body === 'dir') fs.mkdirSync(p);
      else fs.writeFileSync(p, body);
    }
    const frozen = fingerprint(inDir);
    const r = await runner.run({ kind: 'read', file: path.join(inDir, open) });
    judge(tally, 'raw', label, r, { names: Object.keys(files), mustFail: opts.mustFail, mustSucceed: opts.mustSucceed, frozen: [{ dir: inDir, before: frozen }, { dir: outside, before: outsideBefore }] });
  };
  try {
    const rnd = mulberry32(77);
    for (const [kind, hdr, dataName] of [['ENVI', ENVI_HDR, 'cube.img'], ['EHdr', EHDR_HDR, 'cube.bil']] as const) {
      await trial(`${kind} intact`, { 'cube.hdr': Buffer.from(hdr), [dataName]: data }, dataName, { mustSucceed: true });
      await trial(`${kind} intact, given the header`, { 'cube.hdr': Buffer.from(hdr), [dataName]: data }, 'cube.hdr', { mustSucceed: true });
      for (const [how, bytes] of damaged(Buffer.from(hdr), rnd, 20, 30, 5)) await trial(`${kind} header ${how}`, { 'cube.hdr': bytes, [dataName]: data }, dataName);
      for (const [how, bytes] of damaged(data, rnd, 10, 0)) await trial(`${kind} data ${how}`, { 'cube.hdr': Buffer.from(hdr), [dataName]: bytes }, dataName);
      await trial(`${kind} data a FIFO`, { 'cube.hdr': Buffer.from(hdr), [dataName]: 'fifo' }, 'cube.hdr', { mustFail: true });
      await trial(`${kind} data a folder`, { 'cube.hdr': Buffer.from(hdr), [dataName]: 'dir' }, 'cube.hdr', { mustFail: true });
      await trial(`${kind} header a FIFO`, { 'cube.hdr': 'fifo', [dataName]: data }, dataName, { mustFail: true });
    }
    const envi = (over: string) => Buffer.from(ENVI_HDR + over);
    for (const [label, over] of [
      ['samples 0', 'samples = 0\n'], ['samples -40', 'samples = -40\n'], ['samples 2^40', 'samples = 1099511627776\n'], ['lines NaN', 'lines = many\n'],
      ['bands 10^9', 'bands = 1000000000\n'], ['header offset past the end', 'header offset = 99999999999\n'], ['data type 6', 'data type = 6\n'], ['data type 99', 'data type = 99\n'],
      ['byte order 7', 'byte order = 7\n'], ['interleave xyz', 'interleave = xyz\n'], ['map info of text', 'map info = {UTM, a, b, c, d, e, f, 33, North, WGS-84}\n'],
      ['map info rotation NaN', 'map info = {UTM, 1, 1, 500000, 4600000, 30, 30, 33, North, WGS-84, rotation=x}\n'], ['unknown projection', 'map info = {Mars Polar, 1, 1, 0, 0, 1, 1}\n'],
      ['coordinate system string garbage', 'coordinate system string = {PROJCS["x",GEOGCS[}\n'], ['endless list', `band names = {${'a, '.repeat(200000)}`],
      ['data ignore value text', 'data ignore value = none\n'],
    ] as [string, string][]) await trial(`ENVI ${label}`, { 'cube.hdr': envi(over), 'cube.img': data }, 'cube.img', { mustSucceed: ['interleave xyz', 'unknown projection', 'data ignore value text', 'coordinate system string garbage'].includes(label) });
    await trial('ENVI 5 MB header', { 'cube.hdr': Buffer.concat([Buffer.from(ENVI_HDR), Buffer.alloc(5 << 20, 0x61)]), 'cube.img': data }, 'cube.img', { mustFail: true });
    const ehdr = (over: string) => Buffer.from(over + EHDR_HDR);
    for (const [label, over] of [
      ['NROWS 2^31', 'NROWS 2147483648\n'], ['NCOLS -1', 'NCOLS -1\n'], ['NBITS 12', 'NBITS 12\n'], ['NBITS 64', 'NBITS 64\n'], ['SKIPBYTES huge', 'SKIPBYTES 99999999999\n'],
      ['LAYOUT odd', 'LAYOUT XYZ\n'], ['CELLSIZE NaN', 'CELLSIZE x\nXLLCORNER 1\nYLLCORNER 2\n'], ['NODATA text', 'NODATA none\n'],
    ] as [string, string][]) await trial(`EHdr ${label}`, { 'cube.hdr': ehdr(over), 'cube.bil': data, 'cube.prj': Buffer.from('Projection GEOGRAPHIC\nDatum WGS84\nUnits DS\n') }, 'cube.bil');
    await trial('EHdr with a FIFO .prj', { 'cube.hdr': Buffer.from(EHDR_HDR), 'cube.bil': data, 'cube.prj': 'fifo' }, 'cube.bil', { mustSucceed: true });
    for (const [label, name, size] of [['HGT of 1000 bytes', 'N10E010.hgt', 1000], ['HGT of a 3601² size named badly', 'tile.hgt', 3601 * 3601 * 2], ['HGT at N95', 'N95E010.hgt', 1201 * 1201 * 2], ['HGT empty', 'S01W001.hgt', 0]] as [string, string, number][]) {
      await trial(label, { [name]: Buffer.alloc(size, 1) }, name, { mustFail: true });
    }
    // ESRI ASCII grids: damaged headers and values, sizes no writer uses, a FIFO .prj.
    const asc = ['ncols 40', 'nrows 30', 'xllcorner 430000', 'yllcorner 4560000', 'cellsize 25', 'NODATA_value -9999',
      ...Array.from({ length: 30 }, (_, y) => Array.from({ length: 40 }, (_, x) => ((x * 13 + y * 7) % 500) + (y % 3 ? '' : '.5')).join(' '))].join('\n') + '\n';
    await trial('ASC intact', { 'grid.asc': Buffer.from(asc) }, 'grid.asc', { mustSucceed: true });
    for (const [how, bytes] of damaged(Buffer.from(asc), rnd, 25, 25, 5)) await trial(`ASC ${how}`, { 'grid.asc': bytes }, 'grid.asc');
    for (const [label, head] of [['ncols 0', 'ncols 0'], ['nrows -3', 'nrows -3'], ['ncols 2^40', 'ncols 1099511627776'], ['cellsize -25', 'cellsize -25'], ['cellsize NaN', 'cellsize x'],
      ['nodata null', 'NODATA_value null'], ['nodata 1e400', 'NODATA_value 1e400'], ['xllcorner text', 'xllcorner west']] as [string, string][]) {
      const key = head.split(' ')[0].toLowerCase();
      const text = asc.split('\n').map((l) => (l.toLowerCase().startsWith(key + ' ') ? head : l)).join('\n');
      await trial(`ASC ${label}`, { 'grid.asc': Buffer.from(text) }, 'grid.asc', { mustSucceed: label === 'nodata null' });
    }
    await trial('ASC header only', { 'grid.asc': Buffer.from(asc.split('\n').slice(0, 6).join('\n') + '\n') }, 'grid.asc', { mustFail: true });
    await trial('ASC of 5 MB of one token', { 'grid.asc': Buffer.concat([Buffer.from('ncols 2\nnrows 1\ncellsize 1\n'), Buffer.alloc(5 << 20, 0x37)]) }, 'grid.asc', { mustFail: true });
    await trial('ASC with a FIFO .prj', { 'grid.asc': Buffer.from(asc), 'grid.prj': 'fifo' }, 'grid.asc', { mustSucceed: true });
    // DTED: a level-0 tile written here (UHL, DSI, ACC, 121 column records), damaged and cut.
    const header = (text: string, size: number, fields: [number, string][]) => {
      const b = Buffer.alloc(size, 0x20);
      b.write(text, 0, 'latin1');
      for (const [at, v] of fields) b.write(v, at, 'latin1');
      return b;
    };
    const columns = Array.from({ length: 121 }, (_, c) => {
      const rec = Buffer.alloc(12 + 2 * 121);
      rec[0] = 0xaa; rec.writeUInt16BE(c, 2); rec.writeUInt16BE(c, 4);
      for (let r = 0; r < 121; r++) rec.writeUInt16BE(((c * 7 + r * 3) % 3000) | (r === 60 && c % 9 === 0 ? 0x8000 : 0), 8 + 2 * r);
      return rec;
    });
    const dted = Buffer.concat([header('UHL1', 80, [[4, '0070000E'], [12, '0460000N'], [20, '0300'], [24, '0300'], [47, '0121'], [51, '0121']]),
      header('DSI', 648, [[144, 'WGS84']]), header('ACC', 2700, []), ...columns]);
    await trial('DTED intact', { 'tile.dt0': dted }, 'tile.dt0', { mustSucceed: true });
    for (const [how, bytes] of damaged(dted, rnd, 25, 25, 5)) await trial(`DTED ${how}`, { 'tile.dt0': bytes }, 'tile.dt0');
    for (const [label, at, text] of [['size 0', 47, '0000'], ['size 9999', 47, '9999'], ['interval 0', 20, '0000'], ['latitude text', 12, 'ABCDEFGN']] as [string, number, string][]) {
      const bytes = Buffer.from(dted);
      bytes.write(text, at, 'latin1');
      await trial(`DTED ${label}`, { 'tile.dt0': bytes }, 'tile.dt0');
    }
    // NetCDF classic: the ERA5-like file of each version, damaged and cut.
    for (const version of [1, 2, 5] as const) {
      const nc = era5LikeBytes(version);
      await trial(`NetCDF CDF-${version} intact`, { 'era5.nc': nc }, 'era5.nc', { mustSucceed: true });
      for (const [how, bytes] of damaged(nc, rnd, 20, 20, 5)) await trial(`NetCDF CDF-${version} ${how}`, { 'era5.nc': bytes }, 'era5.nc');
    }
    const nc1 = era5LikeBytes(1);
    for (const [label, at, value] of [['numrecs 2^31', 4, 0x80000000], ['dimension count 2^30', 12, 0x40000000], ['name length 2^31', 16, 0x80000000]] as [string, number, number][]) {
      const bytes = Buffer.from(nc1);
      bytes.writeUInt32BE(value, at);
      await trial(`NetCDF ${label}`, { 'era5.nc': bytes }, 'era5.nc', { mustFail: true });
    }
    await trial('DTED headers only', { 'tile.dt0': dted.subarray(0, 80 + 648 + 2700) }, 'tile.dt0', { mustFail: true });
    // NetCDF-4 (HDF5, read through h5wasm) as GDAL writes it, chunked and deflated; and a MODIS-like
    // HDF4 tile (chunked DEFLATE NDVI, a plain field) as the HDF-EOS library writes it; damaged and cut.
    const made = tmpDir('gw-abuse-hdf-');
    try {
      if (!gdalMissing() || process.env.CI) {
        py(`from osgeo import gdal
import numpy as np
m = gdal.GetDriverByName('MEM').Create('', 60, 40, 1, gdal.GDT_Int16)
m.SetGeoTransform((5, 0.25, 0, 50, 0, -0.25)); m.SetProjection('EPSG:4326')
m.GetRasterBand(1).WriteArray((np.arange(2400).reshape(40, 60) % 700).astype(np.int16)); m.GetRasterBand(1).SetNoDataValue(-1)
gdal.Translate('era5_nc4.nc', m, format='netCDF', creationOptions=['FORMAT=NC4', 'COMPRESS=DEFLATE'])`, made);
        const nc4 = fs.readFileSync(path.join(made, 'era5_nc4.nc'));
        await trial('NetCDF-4 intact', { 'era5.nc': nc4 }, 'era5.nc', { mustSucceed: true });
        for (const [how, bytes] of damaged(nc4, rnd, 15, 15, 5)) await trial(`NetCDF-4 ${how}`, { 'era5.nc': bytes }, 'era5.nc');
      }
      if (!hdf4LibsMissing() || process.env.CI) {
        const file = path.join(made, 'MOD13A2.hdf');
        writeHdf4({ file, grids: [{ name: 'MODIS_Grid_16DAY_1km_VI', xdim: 60, ydim: 40, ul: [-1111950.519667, 5559752.598333], lr: [-555975.26, 5188102.7], proj: 'SNSOID', sphere: -1, params: [6371007.181],
          fields: [{ name: '1 km 16 days NDVI', dims: 'YDim,XDim', type: 'int16', shape: [40, 60], tile: [20, 30], comp: 4, level: 6, fill: -3000, expr: '(i * 7919) % 9000 - 1000', attrs: { scale_factor: ['float64', [10000]] } }] }] });
        const hdf = fs.readFileSync(file);
        await trial('HDF4 intact', { 'MOD13A2.hdf': hdf }, 'MOD13A2.hdf', { mustSucceed: true });
        for (const [how, bytes] of damaged(hdf, rnd, 15, 15, 5)) await trial(`HDF4 ${how}`, { 'MOD13A2.hdf': bytes }, 'MOD13A2.hdf');
      }
      if (!he5LibMissing() || process.env.CI) {
        // A VIIRS-like HDF-EOS5 grid (tiled, deflated NDVI) as the HDF-EOS5 library writes it.
        const file = path.join(made, 'VNP13A1.h5');
        writeHe5({ file, grids: [{ name: 'VIIRS_Grid_16Day_VI_500m', xdim: 60, ydim: 40, ul: [-1111950.519667, 5559752.598333], lr: [-555975.26, 5188102.7], proj: 'SNSOID', sphere: -1, params: [6371007.181],
          fields: [{ name: '500 m 16 days NDVI', dims: 'YDim,XDim', type: 'int16', shape: [40, 60], tile: [20, 30], deflate: 6, fill: -15000, expr: '(i * 7919) % 9000 - 1000', attrs: { scale_factor: ['float64', [10000]] } }] }] });
        const he5 = fs.readFileSync(file);
        await trial('HDF-EOS5 intact', { 'VNP13A1.h5': he5 }, 'VNP13A1.h5', { mustSucceed: true });
        for (const [how, bytes] of damaged(he5, rnd, 15, 15, 5)) await trial(`HDF-EOS5 ${how}`, { 'VNP13A1.h5': bytes }, 'VNP13A1.h5');
      }
    } finally {
      fs.rmSync(made, { recursive: true, force: true });
    }
  } finally {
    closeRoom(room);
  }
  assert.ok(tally.trials.length >= 150, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
});

test('raw abuse: damaged ERDAS Imagine (.img, HFA) files, compressed with a colour table and class names, and with a spill file', { timeout: 900_000 }, async () => {
  if (gdalMissing() && !process.env.CI) return;
  const room = trialRoom('gw-abuse-hfa-');
  const { inDir, outside, outsideBefore, tally, runner } = room;
  const trial = async (label: string, files: Record<string, Buffer>, open: string, opts: { mustSucceed?: boolean } = {}) => {
    emptyDir(inDir);
    for (const [name, body] of Object.entries(files)) fs.writeFileSync(path.join(inDir, name), body);
    const frozen = fingerprint(inDir);
    const r = await runner.run({ kind: 'read', file: path.join(inDir, open) });
    judge(tally, 'raw', label, r, { names: Object.keys(files), mustSucceed: opts.mustSucceed, frozen: [{ dir: inDir, before: frozen }, { dir: outside, before: outsideBefore }] });
  };
  const made = tmpDir('gw-abuse-hfa-src-');
  try {
    py(`from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
s = osr.SpatialReference(); s.ImportFromEPSG(5070)
d = gdal.GetDriverByName('HFA').Create('nlcd.img', 150, 100, 1, gdal.GDT_Byte, ['COMPRESSED=YES'])
d.SetProjection(s.ExportToWkt()); d.SetGeoTransform((-2000000, 30, 0, 3000000, 0, -30))
d.GetRasterBand(1).WriteArray((np.arange(15000).reshape(100, 150) // 13 % 7 * 10 + 11).astype('u1')); d.GetRasterBand(1).SetNoDataValue(0)
rat = gdal.RasterAttributeTable()
rat.CreateColumn('Class_Names', gdal.GFT_String, gdal.GFU_Name)
for c, u in [('Red', gdal.GFU_Red), ('Green', gdal.GFU_Green), ('Blue', gdal.GFU_Blue)]: rat.CreateColumn(c, gdal.GFT_Integer, u)
rat.SetRowCount(80)
for i in range(80):
    rat.SetValueAsString(i, 0, 'class %d' % i)
    for k in range(3): rat.SetValueAsInt(i, 1 + k, (i * 37 * (k + 1)) % 256)
d.GetRasterBand(1).SetDefaultRAT(rat); d = None
m = gdal.GetDriverByName('MEM').Create('', 90, 70, 2, gdal.GDT_Int16)
for b in range(2): m.GetRasterBand(b + 1).WriteArray((np.arange(6300).reshape(70, 90) * (b + 3) % 4000 - 2000).astype('i2'))
m.SetGeoTransform((500000, 30, 0, 4600000, 0, -30)); s.ImportFromEPSG(32633); m.SetProjection(s.ExportToWkt())
gdal.Translate('spill.img', m, format='HFA', creationOptions=['USE_SPILL=YES'])`, made);
    const nlcd = fs.readFileSync(path.join(made, 'nlcd.img'));
    const spillImg = fs.readFileSync(path.join(made, 'spill.img')), ige = fs.readFileSync(path.join(made, 'spill.ige'));
    const rnd = mulberry32(1931);
    await trial('HFA intact', { 'nlcd.img': nlcd }, 'nlcd.img', { mustSucceed: true });
    await trial('HFA spill intact', { 'spill.img': spillImg, 'spill.ige': ige }, 'spill.img', { mustSucceed: true });
    for (const [how, bytes] of damaged(nlcd, rnd, 15, 15, 5)) await trial(`HFA ${how}`, { 'nlcd.img': bytes }, 'nlcd.img');
    // The structure: bits flipped in node entries (pointers, sizes), in their data and in the dictionary.
    const spots: number[] = [nlcd.indexOf('{1:lversion'), nlcd.readUInt32LE(16)];
    for (const name of ['Layer_1', 'RasterDMS', 'Map_Info', 'Projection', 'Descriptor_Table', 'Class_Names', 'Red', 'Eimg_NonInitializedValue', 'ProjectionX']) {
      const at = nlcd.indexOf(Buffer.from(`${name}\0`, 'latin1')) - 24;
      if (at > 0) spots.push(at, nlcd.readUInt32LE(at + 16));
    }
    for (let j = 0; j < 40; j++) {
      const b = Buffer.from(nlcd);
      const spot = spots[j % spots.length] + Math.floor(rnd() * 24);
      if (spot < 0 || spot >= b.length) continue;
      b[spot] ^= 1 << Math.floor(rnd() * 8);
      await trial(`HFA structure bit flipped at ${spot}`, { 'nlcd.img': b }, 'nlcd.img');
    }
    for (const [how, bytes] of damaged(spillImg, rnd, 8, 8, 4)) await trial(`HFA spill .img ${how}`, { 'spill.img': bytes, 'spill.ige': ige }, 'spill.img');
    for (const [how, bytes] of damaged(ige, rnd, 8, 8, 4)) await trial(`HFA spill .ige ${how}`, { 'spill.img': spillImg, 'spill.ige': bytes }, 'spill.img');
    await trial('HFA spill without its .ige', { 'spill.img': spillImg }, 'spill.img');
  } finally {
    fs.rmSync(made, { recursive: true, force: true });
    closeRoom(room);
  }
  assert.ok(tally.trials.length >= 100, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
});
