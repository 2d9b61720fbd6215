/** What a builtin raster output gets beside it, for a GeoTIFF a process tool (a GDAL command) wrote:
 *  band 1's statistics from every pixel, a PNG quicklook and a QGIS style (`.qml`) in its colours.
 *  A single band with a small set of integer values (at most MAX_CLASSES) is styled as classes, one
 *  palette entry per value; anything else as a pseudocolor ramp stretched over the 2–98 % range.
 *  Three or more bands (a composite, a pansharpened or reprojected scene) are styled as QGIS shows
 *  them by default, a multiband colour composite: red, green and blue from the band descriptions
 *  when they name them, else bands 1, 2, 3, each stretched over its own 2–98 % range; the quicklook
 *  is that same composite. */
import * as path from 'path';
import { openRaster } from '../raster/io/dataset';
import { StatsAccumulator } from '../raster/stats';
import { renderQuicklook, renderRgbQuicklook, takePalette, ownLegend, type QuicklookKind, type RgbChannel } from '../raster/quicklook';
import { readPreview, throwIfAborted } from '../raster/tools/common';
import { qmlMultiband, qmlStyle } from '../results/qml';
import { roleFromDescription } from '../raster/bands';
import type { RasterDataset } from '../raster/io/dataset';
import { writeFileAtomic } from '../raster/io/atomic-file';
import { addGdalMetadata } from '../raster/io/tiff-metadata';
import { provenanceItems, type RunProvenance } from '../raster/provenance';
import type { RunOptions } from '../raster/types';

/** More distinct integer values than this and the raster is continuous. */
export const MAX_CLASSES = 20;

export interface ProcessRasterStyle {
  /** Band 1: min, max, mean, std, valid and nodata pixels, percentiles; `classes` for a class raster. */
  stats: Record<string, unknown>;
  quicklook: string;
  style: string;
}

/**
 * A GeoTIFF a command wrote or a service sent, finished as a builtin output is: the provenance
 * items in the file (gdalinfo lists them; a file that cannot take them, such as a BigTIFF, keeps
 * them in the run's record only), then statistics, a quicklook and a QGIS style beside it.
 */
export async function finishRasterOutput(file: string, provenance: RunProvenance, opts: Pick<RunOptions, 'signal' | 'onProgress'>): Promise<ProcessRasterStyle | undefined> {
  try { await addGdalMetadata(file, provenanceItems(provenance)); } catch { /* the record has it */ }
  opts.onProgress?.(0.9, 'statistics and QGIS style');
  return styleProcessRaster(file, opts.signal);
}

/** Statistics, quicklook and `.qml` for `file` (written beside it), or undefined when GeoWeave cannot read it. */
export async function styleProcessRaster(file: string, signal?: AbortSignal): Promise<ProcessRasterStyle | undefined> {
  let ds;
  try { ds = await openRaster(file, { signal }); } catch { return undefined; }
  try {
    const acc = new StatsAccumulator(ds.width, ds.height);
    const values = new Set<number>();
    let integers = true;
    const rows = Math.max(1, ds.blockHeight);
    for (let y0 = 0; y0 < ds.height; y0 += rows) {
      throwIfAborted(signal);
      const h = Math.min(rows, ds.height - y0);
      const strip = await ds.readWindow(1, 0, y0, ds.width, h, signal);
      acc.add(strip, 0, y0, ds.width, h);
      if (!integers) continue;
      for (let i = 0; i < strip.length; i++) {
        const v = strip[i];
        if (v !== v) continue;
        if (!Number.isInteger(v)) { integers = false; break; }
        if (values.size <= MAX_CLASSES) values.add(v);
      }
    }
    const st = acc.result();
    const classes = integers && st.valid > 0 && values.size <= MAX_CLASSES ? [...values].sort((a, b) => a - b) : undefined;
    const kind: QuicklookKind = classes ? (classes.every((v) => v === 0 || v === 1) ? 'mask' : 'class') : 'continuous';
    const quicklook = file.replace(/\.tiff?$/i, '.png');
    const style = file.replace(/\.tiff?$/i, '.qml');
    // A scene of three or more bands is looked at as a colour composite, not as its first band:
    // in QGIS (the style) and in the quicklook alike, from the same bands and ranges.
    const rgb = ds.bandCount >= 3 ? await composite(ds, signal) : undefined;
    if (rgb) {
      await renderRgbQuicklook(quicklook, rgb.channels, rgb.w, rgb.h, { title: path.basename(file) });
      await writeFileAtomic(style, qmlMultiband(rgb.channels));
    } else {
      const p = await readPreview(ds, 1, 768, signal);
      const range: [number, number] | undefined = !classes && st.percentiles ? [st.percentiles.p2, st.percentiles.p98] : undefined;
      await renderQuicklook(quicklook, p.data, p.w, p.h, {
        kind, title: path.basename(file), ...ownLegend(ds),
        ...(range ? { range } : {}),
        // Every class of the whole raster gets an entry, also one the preview's pixels miss.
        // (A palette raster's style lists them among its table's used entries, named by category names.)
        ...(kind === 'class' && !ds.colorTable ? { labels: Object.fromEntries(classes!.map((v) => [v, String(v)])) } : {}),
        ...(ds.colorTable && classes ? { present: classes } : {}),
      });
      const palette = takePalette(quicklook);
      if (!palette) return undefined;
      await writeFileAtomic(style, qmlStyle(palette));
    }
    return {
      stats: {
        band: 1, min: st.min, max: st.max, mean: st.mean, std: st.std, valid_pixels: st.valid, nodata_pixels: st.nodata,
        ...(st.percentiles ? { p2: st.percentiles.p2, p98: st.percentiles.p98 } : {}),
        ...(classes && !rgb ? { classes } : {}), style: rgb ? 'multiband' : kind === 'continuous' && !ds.colorTable ? 'pseudocolor' : 'paletted',
        ...(rgb ? { rgb: rgb.channels.map((c) => ({ band: c.band, min: c.min, max: c.max })) } : {}),
      },
      quicklook, style,
    };
  } catch (e) {
    if (signal?.aborted) throw e;
    return undefined;
  } finally {
    await ds.close();
  }
}

/** Red, green and blue for a composite: the bands whose descriptions name them (a scene written
 *  with "Red", "Green", "Blue" descriptions shows in true colour), else bands 1, 2, 3. */
export function compositeBands(descriptions: readonly (string | null)[], bandCount: number): [number, number, number] {
  const find = (role: string) => descriptions.findIndex((d) => roleFromDescription(d) === role) + 1;
  const named = [find('red'), find('green'), find('blue')];
  return named.every((b) => b >= 1 && b <= bandCount) && new Set(named).size === 3 ? named as [number, number, number] : [1, 2, 3];
}

/** Each composite band stretched over its 2–98 % range, estimated from a 768-pixel preview (as
 *  QGIS estimates its own cumulative cut); a flat band over its single value. The previews come
 *  along: the quicklook draws them. */
async function composite(ds: RasterDataset, signal?: AbortSignal): Promise<{ channels: [RgbChannel, RgbChannel, RgbChannel]; w: number; h: number }> {
  const out: RgbChannel[] = [];
  let w = 0, h = 0;
  for (const band of compositeBands(ds.bandDescriptions, ds.bandCount)) {
    const p = await readPreview(ds, band, 768, signal);
    w = p.w; h = p.h;
    const acc = new StatsAccumulator(p.w, p.h);
    acc.add(p.data, 0, 0, p.w, p.h);
    const st = acc.result();
    let min = st.percentiles?.p2 ?? st.min ?? 0, max = st.percentiles?.p98 ?? st.max ?? 1;
    if (!(max > min)) { min = st.min ?? min; max = st.max ?? max; }
    if (!(max > min)) max = min + 1;
    out.push({ band, min, max, data: p.data });
  }
  return { channels: out as [RgbChannel, RgbChannel, RgbChannel], w, h };
}
