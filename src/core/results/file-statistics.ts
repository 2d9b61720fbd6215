/**
 * The value statistics the raster viewer shows beside raster_info: per band minimum, maximum, mean,
 * standard deviation and valid share, as `gdalinfo -stats` gives them, and a histogram of a one-band
 * raster. A raster of up to 16 M pixels is read in full; a larger one is read from the smallest
 * overview at least 1024 pixels across, as `gdalinfo -approx_stats` reads an overview, or, without
 * overviews, from every n-th block as GDAL samples one (n the square root of the block count), so
 * the viewer opens a 100 M-pixel GeoTIFF without reading all of it; the table says which. Values are as the tools read them: nodata left out,
 * the band's scale and offset applied.
 */
import { openRaster, type RasterDataset } from '../raster/io/dataset';
import { StatsAccumulator } from '../raster/stats';
import type { HistogramView, TableView } from '../../shared/result-protocol';
import type { SummaryLanguage } from './summary-language';

/** Pixels read in full before an overview is used instead. */
export const EXACT_PIXELS = 16 << 20;
/** Bands a table lists (a hyperspectral cube has hundreds). */
const MAX_BANDS = 32;

export interface FileStatistics {
  table: TableView;
  histogram?: HistogramView;
  /** Where the numbers come from: "all 1201×1201 pixels", "the 1373×1373 overview (approximate)". */
  source: string;
  exact: boolean;
}

export async function fileStatistics(file: string, lang: SummaryLanguage = 'en', signal?: AbortSignal): Promise<FileStatistics> {
  const ds = await openRaster(file, { signal });
  try {
    return await statisticsOf(ds, lang, signal);
  } finally {
    await ds.close();
  }
}

async function statisticsOf(ds: RasterDataset, lang: SummaryLanguage, signal?: AbortSignal): Promise<FileStatistics> {
  let src: RasterDataset = ds;
  if (ds.width * ds.height > EXACT_PIXELS && ds.overviews) {
    // The smallest overview still 1024 pixels across: GDAL's approximate statistics read one the same way.
    const ovs = (await ds.overviews(signal)).filter((o) => Math.max(o.width, o.height) >= 1024);
    if (ovs.length) src = ovs[ovs.length - 1];
  }
  // No overview to read: every n-th block, n the square root of the block count, as GDAL's
  // approximate statistics sample a band without overviews (GDALRasterBand::ComputeStatistics).
  const bw = Math.max(1, Math.min(src.blockWidth || src.width, src.width)), bh = Math.max(1, Math.min(src.blockHeight || src.height, src.height));
  const perRow = Math.ceil(src.width / bw), blocks = perRow * Math.ceil(src.height / bh);
  let rate = 1;
  if (src === ds && ds.width * ds.height > EXACT_PIXELS) {
    rate = Math.max(1, Math.floor(Math.sqrt(blocks)));
    // Not only the first column of blocks of a square raster, which may be padding (GDAL #6378).
    if (rate === perRow && perRow > 1) rate++;
  }
  const exact = src === ds && rate === 1;
  const bands = Math.min(ds.bandCount, MAX_BANDS);
  const zh = lang === 'zh';
  const scaled = ds.scales.some((s) => s !== 1) || ds.offsets.some((o) => o !== 0);
  const rows: (string | number | null)[][] = [];
  let histogram: HistogramView | undefined;
  // A window at a time, so a 16 M-pixel band is never one 64 MB array per band at once.
  const rowsAt = Math.max(1, Math.floor((1 << 22) / src.width));
  const units = ds.units?.some((u) => u);
  for (let b = 1; b <= bands; b++) {
    const acc = new StatsAccumulator(src.width, src.height, { bins: 64 });
    if (rate > 1) {
      for (let i = 0; i < blocks; i += rate) {
        signal?.throwIfAborted();
        const x = (i % perRow) * bw, y = Math.floor(i / perRow) * bh;
        const w = Math.min(bw, src.width - x), h = Math.min(bh, src.height - y);
        acc.add(await src.readWindow(b, x, y, w, h, signal), x, y, w, h);
      }
    } else {
      for (let y = 0; y < src.height; y += rowsAt) {
        signal?.throwIfAborted();
        const h = Math.min(rowsAt, src.height - y);
        acc.add(await src.readWindow(b, 0, y, src.width, h, signal), 0, y, src.width, h);
      }
    }
    const s = acc.result();
    rows.push([b, ds.bandDescriptions[b - 1] ?? '', ...(units ? [ds.units?.[b - 1] ?? ''] : []), s.min, s.max, round(s.mean), round(s.std), s.count ? Number(((100 * s.valid) / s.count).toFixed(2)) : null]);
    // A one-band raster's histogram; a palette raster's classes are in its legend instead.
    if (ds.bandCount === 1 && !ds.colorTable && s.histogram && s.valid) {
      histogram = { title: zh ? `波段 1 的数值${exact ? '' : src === ds ? '（来自抽样数据块）' : '（来自概览）'}` : `Band 1 values${exact ? '' : src === ds ? ' (from sampled blocks)' : ' (from an overview)'}`, min: s.histogram.min, max: s.histogram.max, counts: s.histogram.counts, marks: [] };
    }
  }
  const sampled = Math.ceil(blocks / rate);
  const source = exact ? `all ${ds.width}×${ds.height} pixels` : src === ds ? `${sampled} of its ${blocks} blocks (approximate)` : `the ${src.width}×${src.height} overview (approximate)`;
  const title = zh
    ? `波段统计：${exact ? `全部 ${ds.width}×${ds.height} 像元` : src === ds ? `${blocks} 个数据块中的 ${sampled} 个（近似值）` : `${src.width}×${src.height} 概览（近似值）`}${scaled ? '，已应用缩放系数和偏移量' : ''}${ds.bandCount > bands ? `；${ds.bandCount} 个波段中的前 ${bands} 个` : ''}`
    : `Band statistics: ${source}${scaled ? ', scale and offset applied' : ''}${ds.bandCount > bands ? `; the first ${bands} of ${ds.bandCount} bands` : ''}`;
  const table: TableView = {
    title,
    columns: [
      { key: 'band', label: 'Band', numeric: true },
      { key: 'description', label: 'Description', numeric: false },
      // The file's own units (HDF and NetCDF `units`: "reflectance", "K"), where it states them.
      ...(units ? [{ key: 'units', label: zh ? '单位' : 'Units', numeric: false }] : []),
      { key: 'min', label: 'Min', numeric: true },
      { key: 'max', label: 'Max', numeric: true },
      { key: 'mean', label: 'Mean', numeric: true },
      { key: 'std', label: 'Std dev', numeric: true },
      { key: 'valid', label: 'Valid', unit: '%', numeric: true },
    ],
    rows,
    visible: 12,
  };
  return { table, ...(histogram ? { histogram } : {}), source, exact };
}

function round(v: number | null): number | null {
  return v === null ? null : Number(v.toPrecision(7));
}
