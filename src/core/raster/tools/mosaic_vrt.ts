/**
 * mosaic_vrt: adjacent scenes or DEM tiles stitched into one virtual raster without copying pixels,
 * as gdalbuildvrt stitches them (io/vrt/vrt-build.ts), so it runs where GDAL is not installed and
 * every tool (and GDAL, QGIS) reads the result. Or, with `separate`, single-band files stacked as
 * the bands of one raster (Sentinel-2's B04 and B08 as one image for an index).
 */
import * as fs from 'node:fs';
import { defineTool } from './types';
import * as path from 'node:path';
import { openRaster, openVrt, type RasterDataset } from '../io/dataset';
import { buildVrt, gdalTypeName, type BuildSource } from '../io/vrt/vrt-build';
import { writeFileAtomic } from '../io/atomic-file';
import { crsOfGeo, crsLabelOf, sameCrs } from '../crs/crs';
import { epsgDefinition } from '../crs/epsg';
import { bandFileOf } from '../band-files';
import { outPath, readPreview, throwIfAborted } from './common';
import { quicklook, sig } from './analysis-support';

export const mosaicVrtTool = defineTool({
  id: 'mosaic_vrt',
  params: {
    images: { kind: 'raster_list', required: true, glob: true, description: 'rasters to mosaic (same CRS, band count and type), as a list or a glob such as "tiles/*.tif"; later ones win where they overlap' },
    resolution: { kind: 'string', enum: ['average', 'highest', 'lowest'], default: 'average', description: "pixel size of the mosaic when the rasters' differ (gdalbuildvrt -resolution)" },
    separate: { kind: 'boolean', default: false, description: 'stack the first band of each raster as the bands of one image instead of mosaicking (gdalbuildvrt -separate)' },
  },
  async run(ctx) {
    const { images, resolution, separate } = ctx.args;
    if (images.length < 1) throw new Error('argument "images" is empty; give the rasters to mosaic, as a list or a glob such as "tiles/*.tif"');
    const dss: RasterDataset[] = [];
    try {
      for (const img of images) {
        throwIfAborted(ctx.signal);
        dss.push(await openRaster(img, { signal: ctx.signal }));
      }
      const first = dss[0];
      const firstCrs = crsOfGeo(first.geo, first.source);
      const sources: BuildSource[] = dss.map((ds, i) => {
        const gt = ds.geo.geoTransform;
        if (ds.geo.ungeoreferenced) throw new Error(`${ds.source} has no georeferencing; a mosaic places rasters by their coordinates`);
        if (gt[2] !== 0 || gt[4] !== 0) throw new Error(`${ds.source} is on a rotated grid; warp it north-up first (reproject)`);
        if (!(gt[5] < 0)) throw new Error(`${ds.source} has a positive north-south pixel size (the image is stored bottom-up); warp it first (reproject)`);
        if (!gdalTypeName(ds.dtype)) throw new Error(`${ds.source} holds ${ds.dtype} samples, which a VRT mosaic here does not carry; convert it with gdal_translate -ot Float64`);
        if (i > 0) {
          const c = crsOfGeo(ds.geo, ds.source);
          if ((c === undefined) !== (firstCrs === undefined) || (c && firstCrs && !sameCrs(c, firstCrs))) {
            throw new Error(`${ds.source} is in ${crsLabelOf(ds.geo, ds.source)}, ${first.source} in ${crsLabelOf(first.geo, first.source)}; reproject them to one CRS first (reproject, or align to the first)`);
          }
          if (!separate && ds.bandCount !== first.bandCount) throw new Error(`${ds.source} has ${ds.bandCount} band${ds.bandCount === 1 ? '' : 's'}, ${first.source} ${first.bandCount}; a mosaic needs the same bands in every raster (or pass separate=true to stack them)`);
          if (!separate && ds.dtype !== first.dtype) throw new Error(`${ds.source} holds ${ds.dtype} samples, ${first.source} ${first.dtype}; a mosaic needs one sample type (convert with gdal_translate -ot)`);
        }
        return {
          file: ds.source, width: ds.width, height: ds.height, bandCount: ds.bandCount, dtype: ds.dtype, nodata: ds.nodata, geoTransform: gt,
          blockWidth: ds.blockWidth, blockHeight: ds.blockHeight, descriptions: ds.bandDescriptions, scales: ds.scales, offsets: ds.offsets,
        };
      });
      const file = outPath(ctx, separate ? 'stack' : 'mosaic', 'vrt');
      // Source paths are written relative to where the VRT will be (not the staging folder it is written in).
      const final = path.join(ctx.finalDir ?? ctx.outDir, path.basename(file));
      const srs = srsText(first);
      const roles = dss.map((d) => bandFileOf(d.source)?.role);
      const built = buildVrt(sources, { vrtFile: final, srs, resolution, separate, roles });
      if (!built.used.length) throw new Error('none of the rasters overlaps the mosaic extent');
      await fs.promises.mkdir(ctx.outDir, { recursive: true });
      await writeFileAtomic(file, built.xml);
      // Read back through the reader every tool uses: the preview is what the next cell will see.
      const vrt = await openVrt(final, 0, ctx.signal, built.xml);
      try {
        const prev = await readPreview(vrt, 1, 768, ctx.signal);
        let valid = 0; for (const v of prev.data) if (v === v) valid++;
        const png = await quicklook(file.replace(/\.vrt$/, '.png'), prev.data, prev.w, prev.h, { kind: 'continuous', title: separate ? 'Band stack, band 1' : 'Mosaic, band 1' });
        const px = Math.abs(built.geoTransform[1]), py = Math.abs(built.geoTransform[5]);
        const size = px === py ? `${sig(px, 4)}` : `${sig(px, 4)}×${sig(py, 4)}`;
        const skipped = built.skipped.map((i) => images[i]);
        const what = separate ? `Stacked ${built.used.length} raster${built.used.length === 1 ? '' : 's'} as ${vrt.bandCount} band${vrt.bandCount === 1 ? '' : 's'}` : `Mosaic of ${built.used.length} raster${built.used.length === 1 ? '' : 's'}`;
        return {
          tool: 'mosaic_vrt',
          outputs: { mosaic: { path: file, type: 'raster', roles: [separate ? 'stack' : 'mosaic'], description: `${what} (a VRT: the pixels stay in the source files)` } },
          stats: {
            rasters: images.length, placed: built.used.length, skipped, width: built.width, height: built.height, bands: vrt.bandCount,
            pixel_size: [px, py], geotransform: built.geoTransform, resolution, separate, crs: crsLabelOf(first.geo, first.source),
            preview_valid_fraction: sig(valid / Math.max(1, prev.data.length), 4),
          },
          // No source is ever outside the union of their extents; `skipped` only fills for rasters of no area.
          summary: `${what}: ${built.width}×${built.height} pixels at ${size} ${first.geo.geographic ? '°' : 'm'} in ${crsLabelOf(first.geo, first.source)}.`
            + ' The VRT points at the source files: keep them where they are, or convert it (cog_convert) to share it.',
          quicklook: png,
        };
      } finally { await vrt.close(); }
    } finally {
      await Promise.all(dss.map((d) => d.close().catch(() => undefined)));
    }
  },
});

/** The <SRS> text: an EPSG code GDAL and GeoWeave both resolve, or the proj4 form of a CRS without one. */
function srsText(ds: RasterDataset): string | undefined {
  if (ds.geo.epsg !== undefined && epsgDefinition(ds.geo.epsg)) return `EPSG:${ds.geo.epsg}`;
  const c = crsOfGeo(ds.geo, ds.source);
  return c?.def.startsWith('+') ? c.def : c?.epsg !== undefined ? `EPSG:${c.epsg}` : undefined;
}
