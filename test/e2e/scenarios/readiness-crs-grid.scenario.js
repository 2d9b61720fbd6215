// Readiness checks projection, overlap and grid across the inputs it prefills: fields over a
// Brazilian NDVI in another projection with no overlap is not ready and says why; two rasters on
// different grids are not ready and name the alignment step.
'use strict';
const path = require('path');

module.exports = {
  name: 'readiness checks CRS, overlap and grids: zones far away in another projection, rasters on different grids',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'crs.geonb'), '', ['# CRS and grids']);
  },
  async run({ page, session, openFile, showPanel, describeTask, shot }) {
    await openFile(page, 'crs.geonb');
    const panel = await showPanel(page);
    const zonal = (await describeTask(page, panel, 'mean NDVI of ndvi_brazil.tif per field polygon in fields.geojson', session.userDir)).find((c) => c.id === 'zonal_stats');
    if (!zonal) throw new Error('no zonal_stats candidate');
    await shot('zonal');
    if (zonal.ready) throw new Error(`zonal_stats is "${zonal.readiness}" with polygons in another projection, far away`);
    if (!/EPSG:32723/.test(zonal.readiness) || !/EPSG:32650/.test(zonal.readiness) || !/do not overlap/.test(zonal.readiness)) throw new Error(`the reason does not name the projections and the missing overlap: "${zonal.readiness}"`);
    const dnbr = (await describeTask(page, panel, 'burn severity from fire_pre.tif and fire_post_30m.tif', session.userDir)).find((c) => c.id === 'dnbr');
    if (!dnbr) throw new Error('no dnbr candidate');
    await shot('dnbr');
    if (dnbr.ready) throw new Error(`dnbr is "${dnbr.readiness}" on rasters of 10 m and 30 m`);
    if (!/not on the same grid/.test(dnbr.readiness) || !/\((resample|reproject)\)/.test(dnbr.readiness)) throw new Error(`the reason does not name the alignment step: "${dnbr.readiness}"`);
    return `zonal_stats: "${zonal.readiness}"; dnbr: "${dnbr.readiness}"`;
  },
};
