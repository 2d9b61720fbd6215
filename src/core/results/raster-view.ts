/**
 * What the raster viewer (a GeoTIFF, JPEG 2000, NetCDF, HDF or GRIB file opened from the explorer) shows: raster_info's
 * summary and band table, the values' statistics (file-statistics.ts), and the file on the map, as a cell's result view (view-model.ts), so the
 * notebook renderer draws it. Nothing is written. Pure Node: no VS Code.
 */
import * as path from 'node:path';
import { rasterInfoTool } from '../raster/tools/info-tools';
import { resultView } from './view-model';
import { localizeSummary, type SummaryLanguage } from './summary-language';
import type { ResultView } from '../../shared/result-protocol';
import { fileStatistics } from './file-statistics';
import { gridLayers } from '../raster/io/layers';
import { GRIB_FILE, LAYERED_FILE } from '../raster/raster-files';
import { openRaster } from '../raster/io/dataset';

export async function rasterFileView(file: string, lang: SummaryLanguage = 'en', signal: AbortSignal = new AbortController().signal, oneLayer = false): Promise<ResultView> {
  // A NetCDF or HDF4 file of several layers opens on its first, the others listed: refusing the
  // file ("name one as era5.nc#t2m") would leave the analyst with nothing to look at. A MODIS or
  // VIIRS reflectance file opens on its scene (io/reflectance-scene.ts), what NDVI reads; a GRIB
  // file whole, its first grid's messages as bands, its messages listed (those on other grids too).
  const capped: string[] = [];
  const layers = !oneLayer && LAYERED_FILE.test(file) ? await gridLayers(file, (m) => capped.push(m)).catch(() => []) : [];
  if (layers.length > 1) {
    const grib = GRIB_FILE.test(file);
    const scene = await openRaster(file, { signal }).then((d) => d.close().then(() => d.bandCount > 1), () => false);
    const view = await rasterFileView(scene ? file : `${file}#${layers[0]}`, lang, signal, true);
    const name = path.basename(file);
    const whole = grib
      ? (lang === 'zh' ? '整个文件（第一个网格上的各条消息，每条一个波段）' : 'the whole file (the messages on its first grid, one band each)')
      : (lang === 'zh' ? '其反射率场景（各反射率图层合为一个多波段影像）' : 'its reflectance scene (the reflectance layers as one multi-band image)');
    const shown = scene ? whole : layers[0];
    const more = capped.length ? ' ' + capped.join(' ') : '';
    view.summary = (lang === 'zh'
      ? `${name} 含 ${layers.length} 个图层，显示的是 ${shown}；在单元格中写 ${name}#<图层> 使用其他图层。`
      : `${name} holds ${layers.length} layers; shown: ${shown}. Name another as ${name}#<layer> in a cell.`) + more + ' ' + view.summary;
    const wholeRow = grib ? (lang === 'zh' ? '整个文件' : 'whole file') : (lang === 'zh' ? '反射率场景' : 'reflectance scene');
    view.tables.unshift({
      title: lang === 'zh' ? '文件中的图层' : 'Layers in this file',
      columns: [{ key: 'layer', label: lang === 'zh' ? '图层' : 'layer', numeric: false }, { key: 'as', label: lang === 'zh' ? '在单元格中写作' : 'in a cell', numeric: false }],
      rows: [...(scene ? [[wholeRow, name]] : []), ...layers.map((l) => [l, `${name}#${l}`])],
      visible: 20,
    });
    return view;
  }
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
