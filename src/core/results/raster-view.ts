/**
 * What the raster viewer (a GeoTIFF or JPEG 2000 file opened from the explorer) shows: raster_info's
 * summary and band table, the values' statistics (file-statistics.ts), and the file on the map, as a cell's result view (view-model.ts), so the
 * notebook renderer draws it. Nothing is written. Pure Node: no VS Code.
 */
import * as path from 'node:path';
import { rasterInfoTool } from '../raster/tools/info-tools';
import { resultView } from './view-model';
import { localizeSummary, type SummaryLanguage } from './summary-language';
import type { ResultView } from '../../shared/result-protocol';
import { fileStatistics } from './file-statistics';

export async function rasterFileView(file: string, lang: SummaryLanguage = 'en', signal: AbortSignal = new AbortController().signal): Promise<ResultView> {
  const dir = path.dirname(file);
  // raster_info reads the header only (and lists overviews); it has no outputs, so no folder is written.
  const ran = await rasterInfoTool.run({ args: { image: file }, outDir: dir, cwd: dir, signal, progress: () => undefined });
  const result = lang === 'en' ? ran : { ...ran, summary: localizeSummary(ran, lang).text };
  const view = resultView(result, { image: file }, { cwd: dir });
  if (lang !== 'en') view.lang = lang;
  // The values themselves, as gdalinfo -stats gives them (approximate from an overview on large files).
  const stats = await fileStatistics(file, lang, signal);
  view.tables.push(stats.table);
  if (stats.histogram && !view.histogram) view.histogram = stats.histogram;
  return view;
}
