// Elevation and imaging-spectrometer data as delivered, in the workspace: an SRTM tile (.hgt), a USGS
// SRTM tile as ESRI .bil + .hdr + ArcInfo .prj, an Ordnance Survey-style ESRI ASCII grid (.asc), a DTED tile as EarthExplorer offers SRTM, an ERA5-like NetCDF classic file and a NetCDF-4 one, a MODIS-like HDF4 tile and a VIIRS-like HDF-EOS5 grid of several fields, and an ENVI cube whose 40 bands are named by wavelength.
// The panel sees each: slope is ready on the tiles, NDVI on the cube (red and NIR from the bands nearest
// 665 and 842 nm), and the inserted NDVI cell runs on the cube in the packaged extension.
'use strict';
const path = require('path');
const fs = require('fs');
const { execFileSync } = require('child_process');

const DIR = 'delivered';
const NOTEBOOK = 'deliveries.geonb';

module.exports = {
  name: 'raw formats: an SRTM .hgt, a USGS .bil, an ASCII grid, a DTED tile, NetCDF classic and NetCDF-4 files, MODIS HDF4 and VIIRS HDF-EOS5 tiles and an ENVI cube named by wavelength are ready for slope, statistics and NDVI',
  // Its files exist only while it runs: the cube would be the richest scene for other scenarios'
  // readiness, and the explorer draws only the rows in view.
  async run(t) {
    makeData(t.ws);
    t.writeNotebook(path.join(t.ws, NOTEBOOK), '', ['# Elevation and a hyperspectral flight line']);
    return t.withScenarioFiles(t, [DIR, NOTEBOOK], () => check(t));
  },
};

function makeData(ws) {
  for (const d of ['dems', 'hyper']) fs.mkdirSync(path.join(ws, DIR, d), { recursive: true });
  execFileSync('/usr/bin/python3', ['-c', `
import sys, os
from osgeo import gdal, osr
import numpy as np
ws = sys.argv[1]
s = osr.SpatialReference(); s.ImportFromEPSG(4326)
n = 1201
m = gdal.GetDriverByName('MEM').Create('', n, n, 1, gdal.GDT_Int16)
m.SetGeoTransform((7 - 0.5 / (n - 1), 1 / (n - 1), 0, 47 + 0.5 / (n - 1), 0, -1 / (n - 1))); m.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:n, 0:n]
m.GetRasterBand(1).WriteArray((1500 + 800 * np.sin(xx / 90.0) * np.cos(yy / 70.0)).astype(np.int16))
gdal.Translate(os.path.join(ws, 'dems', 'N46E007.hgt'), m, format='SRTMHGT')
m.SetGeoTransform((8 - 0.5 / (n - 1), 1 / (n - 1), 0, 47 + 0.5 / (n - 1), 0, -1 / (n - 1)))
gdal.Translate(os.path.join(ws, 'dems', 'n46_e008_3arc_v2.dt1'), m, format='DTED')
a = (1200 + 300 * np.sin(xx[:301, :301] / 30.0)).astype('<i2'); a.tofile(os.path.join(ws, 'dems', 'n37_w122_1arc_v3.bil'))
open(os.path.join(ws, 'dems', 'n37_w122_1arc_v3.hdr'), 'w').write('BYTEORDER I\\nLAYOUT BIL\\nNROWS 301\\nNCOLS 301\\nNBANDS 1\\nNBITS 16\\nPIXELTYPE SIGNEDINT\\nULXMAP -122\\nULYMAP 38\\nXDIM 0.000277777777777778\\nYDIM 0.000277777777777778\\nNODATA -9999\\n')
open(os.path.join(ws, 'dems', 'n37_w122_1arc_v3.prj'), 'w').write('Projection GEOGRAPHIC\\nDatum WGS84\\nUnits DD\\n')
g = (90 + 25 * np.sin(xx[:160, :200] / 12.0) * np.cos(yy[:160, :200] / 17.0)).round(1)
open(os.path.join(ws, 'dems', 'SU42.asc'), 'w').write('ncols 200\\nnrows 160\\nxllcorner 440000\\nyllcorner 120000\\ncellsize 50\\nNODATA_value -9999\\n' + '\\n'.join(' '.join('%.1f' % v for v in row) for row in g) + '\\n')
t = gdal.GetDriverByName('MEM').Create('', 60, 40, 1, gdal.GDT_Int16)
t.SetGeoTransform((5, 0.25, 0, 50, 0, -0.25)); t.SetProjection(s.ExportToWkt())
t.GetRasterBand(1).WriteArray((np.sin(xx[:40, :60] / 9.0) * 4000).astype(np.int16)); t.GetRasterBand(1).SetScale(0.0015); t.GetRasterBand(1).SetOffset(270)
gdal.Translate(os.path.join(ws, 'dems', 'era5_t2m.nc'), t, format='netCDF', creationOptions=['FORMAT=NC'])
gdal.Translate(os.path.join(ws, 'dems', 'era5_land_swvl1.nc'), t, format='netCDF', creationOptions=['FORMAT=NC4', 'COMPRESS=DEFLATE'])
wl = np.linspace(400, 2500, 40)
cube = np.stack([(800 + (i * 40 if w > 700 else i * 5) + 100 * np.sin(xx[:200, :240] / 20.0)).astype('<i2') for i, w in enumerate(wl)])
cube.tofile(os.path.join(ws, 'hyper', 'flightline.img'))
open(os.path.join(ws, 'hyper', 'flightline.hdr'), 'w').write('ENVI\\nsamples = 240\\nlines = 200\\nbands = 40\\nheader offset = 0\\ndata type = 2\\ninterleave = bsq\\nbyte order = 0\\nmap info = {UTM, 1, 1, 600000, 5200000, 2, 2, 32, North, WGS-84}\\nwavelength units = Nanometers\\nwavelength = {' + ', '.join('%.1f' % w for w in wl) + '}\\n')
`, path.join(ws, DIR)]);
  // A MOD13A2-like tile (sinusoidal grid, NDVI int16 chunked and deflated, a quality field), written
  // by the HDF4 and HDF-EOS libraries themselves (test/helpers/hdf4-writer.ts, compiled to out/).
  const { writeHdf4 } = require(path.join(__dirname, '..', '..', '..', 'out', 'test', 'helpers', 'hdf4-writer.js'));
  fs.mkdirSync(path.join(ws, DIR, 'modis'), { recursive: true });
  writeHdf4({
    file: path.join(ws, DIR, 'modis', MODIS),
    grids: [{
      name: 'MODIS_Grid_16DAY_1km_VI', xdim: 120, ydim: 100, ul: [-1111950.519667, 5559752.598333], lr: [0, 4447802.078667],
      proj: 'SNSOID', sphere: -1, params: [6371007.181],
      fields: [
        { name: '1 km 16 days NDVI', dims: 'YDim,XDim', type: 'int16', shape: [100, 120], tile: [50, 60], comp: 4, level: 6, fill: -3000,
          expr: '(i * 7919) % 9000 - 1000',
          attrs: { long_name: '1 km 16 days NDVI', units: 'NDVI', valid_range: ['int16', [-2000, 10000]], scale_factor: ['float64', [10000]], add_offset: ['float64', [0]] } },
        { name: '1 km 16 days VI Quality', dims: 'YDim,XDim', type: 'uint16', shape: [100, 120], tile: [50, 60], comp: 4, fill: 65535, expr: '(i * 31) % 65536', attrs: { long_name: 'VI quality indicators' } },
      ],
    }],
  });
  // A VNP13A1-like HDF-EOS5 grid, written by the HDF-EOS5 library (test/helpers/he5-writer.ts).
  const { writeHe5 } = require(path.join(__dirname, '..', '..', '..', 'out', 'test', 'helpers', 'he5-writer.js'));
  writeHe5({
    file: path.join(ws, DIR, 'modis', VIIRS),
    grids: [{
      name: 'VIIRS_Grid_16Day_VI_500m', xdim: 120, ydim: 100, ul: [-1111950.519667, 5559752.598333], lr: [0, 4447802.078667],
      proj: 'SNSOID', sphere: -1, params: [6371007.181],
      fields: [
        { name: '500 m 16 days NDVI', dims: 'YDim,XDim', type: 'int16', shape: [100, 120], tile: [50, 60], deflate: 6, fill: -15000,
          expr: '(i * 7919) % 9000 - 1000', attrs: { long_name: '500 m 16 days NDVI', scale_factor: ['float64', [10000]] } },
        { name: '500 m 16 days VI Quality', dims: 'YDim,XDim', type: 'uint16', shape: [100, 120], tile: [50, 60], deflate: 6, fill: 65535, expr: '(i * 31) % 65536' },
      ],
    }],
  });
}

const MODIS = 'MOD13A2.A2024161.h18v04.061.hdf';
const VIIRS = 'VNP13A1.A2024161.h18v04.002.h5';

async function check({ page, session, openFile, showPanel, describeTask, until, cellTexts, cellState, outputTexts, shot }) {
  await openFile(page, NOTEBOOK);
  // The workspace's file watcher has seen the data once the explorer shows its folder (the panel's
  // file list is refreshed by the same events), as it has for anyone who downloaded it before typing.
  await until(`the explorer to show ${DIR}/`, () => page.$(`.explorer-folders-view .monaco-list-row[aria-label^="${DIR}"]`), 20000);
  await page.waitForTimeout(1000);
  const panel = await showPanel(page);
  const seen = [];
  for (const [task, tool, arg] of [
    ['Compute slope for N46E007.hgt', 'slope', 'dem=N46E007.hgt'],
    ['Compute slope for n37_w122_1arc_v3.bil', 'slope', 'dem=n37_w122_1arc_v3.hdr'],
    ['Compute slope for SU42.asc', 'slope', 'dem=SU42.asc'],
    ['Compute slope for n46_e008_3arc_v2.dt1', 'slope', 'dem=n46_e008_3arc_v2.dt1'],
    ['Summarize the values of era5_t2m.nc: mean, min, max and histogram', 'raster_stats', 'image=era5_t2m.nc'],
    ['Summarize the values of era5_land_swvl1.nc: mean, min, max and histogram', 'raster_stats', 'image=era5_land_swvl1.nc'],
    [`Histogram of the NDVI in ${MODIS}`, 'raster_stats', `image=${MODIS}#1 km 16 days NDVI`],
    [`Histogram of the NDVI in ${VIIRS}`, 'raster_stats', `image=${VIIRS}#500 m 16 days NDVI`],
    ['Compute NDVI for flightline.img', 'ndvi', 'image=flightline.hdr'],
  ]) {
    const list = await describeTask(page, panel, task, session.userDir);
    const c = list.find((x) => x.id === tool);
    if (!c) throw new Error(`no ${tool} candidate for "${task}": ${list.map((x) => x.id).join(', ')}`);
    if (!c.ready || !c.readiness.includes(arg)) throw new Error(`${tool} for "${task}" is "${c.readiness}", not ready with ${arg}`);
    seen.push(`${tool}: "${c.readiness}"`);
  }
  await shot('ndvi-ready');
  await panel.click('#forward-list li[data-tool="ndvi"] button.insert-run');
  await until('the inserted NDVI cell', async () => (await cellTexts(page)).find((t) => /^ndvi/.test(t.trim())), 60000);
  const state = await until('the NDVI cell to finish', async () => { const s = await cellState(page, /^ndvi/); return s === 'ok' || s === 'error' ? s : null; }, 120000);
  const text = await outputTexts(page);
  if (state !== 'ok') throw new Error(`the NDVI run on the ENVI cube failed: ${text.slice(0, 400)}`);
  const line = text.split('\n').find((l) => /Mean NDVI/.test(l)) ?? '';
  if (!line) throw new Error(`no NDVI summary: ${text.slice(0, 300)}`);
  return `${seen.join('; ')}; cell ran: "${line.trim().slice(0, 80)}"`;
}
