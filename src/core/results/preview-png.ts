/** A small PNG of a result's main raster, kept in the notebook for when the output files are gone. */
import type { MapLayerSpec } from '../../shared/result-protocol';
import { openRaster } from '../raster/io/dataset';
import { readPreview } from '../raster/tools/common';
import { encodePng } from '../raster/render/png';
import { classColors, colorize, colorizeRgb, labelsFromText, valueStats } from './palettes';

/** Size of the saved PNG (base64 characters). */
export const MAX_PREVIEW = 48_000;

/** A PNG data URL of the layer, at most `maxSide` pixels a side and MAX_PREVIEW characters. */
export async function previewPng(layer: MapLayerSpec, maxSide = 256): Promise<string | undefined> {
  const ds = await openRaster(layer.path);
  try {
    for (let side = maxSide; side >= 64; side = Math.floor(side * 0.7)) {
      const bands = layer.kind === 'rgb' ? layer.bands.slice(0, 3) : [layer.bands[0] ?? 1];
      const reads = [];
      for (const b of bands) reads.push(await readPreview(ds, Math.min(b, ds.bandCount), side));
      const { w, h } = reads[0];
      let rgba: Uint8ClampedArray;
      if (layer.kind === 'rgb') rgba = colorizeRgb(reads.map((r) => r.data), reads.map((r) => { const s = valueStats(r.data); return [s.p2, s.p98] as [number, number]; }));
      else {
        const s = valueStats(reads[0].data);
        let classes = layer.classes;
        if (!classes && (layer.kind === 'class' || layer.kind === 'mask')) {
          const values = [...new Set(Array.from(reads[0].data).filter((v) => v === v))].slice(0, 64);
          classes = classColors(values, labelsFromText(ds.bandDescriptions[0]) ?? {}, layer.kind);
        }
        rgba = colorize(reads[0].data, layer.kind, layer.range ?? [s.p2, s.p98], classes);
      }
      const url = `data:image/png;base64,${encodePng(new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.byteLength), w, h).toString('base64')}`;
      if (url.length <= MAX_PREVIEW) return url;
    }
    return undefined;
  } finally {
    await ds.close();
  }
}

