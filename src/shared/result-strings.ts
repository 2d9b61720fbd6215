/** The result renderer's labels in each display language. The notebook renderer has no access to
 *  vscode.l10n, so the host puts the language into the view (`ResultView.lang`) and the renderer
 *  takes its labels from here. Headings the core view model makes (key statistics, table titles and
 *  columns, chart titles) are English words translated through `term`. */

export type ResultLanguage = 'en' | 'zh';

export interface ResultStrings {
  /** "{0} outputs" / "1 output". */
  outputs: string;
  output: string;
  arguments: string;
  jsonResult: string;
  savedAt: string;
  newer: string;
  mapNeedsExtension: string;
  noMap: string;
  previewOf: string;
  sortColumn: string;
  showAllRows: string;
  moreRowsInFile: string;
  binPixels: string;
  layers: string;
  pixel: string;
  legend: string;
  swipe: string;
  basemap: string;
  pointAtMap: string;
  noRasterLayer: string;
  naturalColour: string;
  rangeMax: string;
  rangeMin: string;
  compareTwo: string;
  swipePosition: string;
  oneLayer: string;
  zoomIn: string;
  zoomOut: string;
  fitRaster: string;
  emptyResult: string;
  invalidJson: string;
  noAnswer: string;
  /** A layer's role beside its name in the layer list. */
  input: string;
  output_: string;
  min: string;
  max: string;
  left: string;
  right: string;
  /** Histogram marks: "below 0.2". */
  below: string;
  above: string;
  threshold: string;
  /** "provenance: {0}". */
  provenance: string;
  /** Batch runs: "Batch of {0} ({1})", ", {0} failed", " · showing ", the picker's label, a failed item, and how many can be shown. */
  batchOf: string;
  batchFailed: string;
  showing: string;
  batchPick: string;
  itemFailed: string;
  batchFirst: string;
}

export const RESULT_STRINGS: Record<ResultLanguage, ResultStrings> = {
  en: {
    outputs: '{0} outputs', output: '1 output', arguments: 'arguments: {0}', jsonResult: 'JSON result',
    savedAt: 'Saved result of the run at {0}.', newer: 'This result was saved by a newer GeoWeave; update the extension to see it whole.',
    mapNeedsExtension: 'The interactive map needs the GeoWeave extension.', noMap: 'No map: {0}', previewOf: "preview of {0}'s output",
    sortColumn: 'Sort by this column', showAllRows: 'Show all {0} rows', moreRowsInFile: '{0} more rows are in the output file (not kept in the notebook).',
    binPixels: '{0} to {1}: {2} pixels',
    layers: 'Layers', pixel: 'Pixel', legend: 'Legend', swipe: 'Swipe', basemap: 'Basemap', pointAtMap: 'Point at the map to read values.',
    noRasterLayer: 'No raster layer shown.', naturalColour: 'Natural colour: bands {0} as red, green, blue',
    rangeMax: 'Colour range maximum', rangeMin: 'Colour range minimum', compareTwo: 'Compare two layers', swipePosition: 'Swipe position',
    oneLayer: 'One raster layer: nothing to compare.', zoomIn: 'Zoom in', zoomOut: 'Zoom out', fitRaster: 'Show the whole raster',
    emptyResult: 'GeoWeave: empty result', invalidJson: 'GeoWeave: the result is not valid JSON ({0}); use "Change Presentation" to see it raw.',
    noAnswer: 'GeoWeave did not answer (is the extension running?)',
    input: 'input', output_: 'output', min: 'min', max: 'max', left: 'left', right: 'right', below: 'below {0}', above: 'above {0}', threshold: 'threshold {0}',
    provenance: 'provenance: {0}', batchOf: 'Batch of {0} ({1})', batchFailed: ', {0} failed', showing: ' · showing ', batchPick: 'Batch item shown on the map', itemFailed: ' (failed)',
    batchFirst: ' (the first {0} can be shown here; every item is in the table and in its folder)',
  },
  zh: {
    outputs: '{0} 个输出', output: '1 个输出', arguments: '参数：{0}', jsonResult: 'JSON 结果',
    savedAt: '{0} 运行时保存的结果。', newer: '此结果由更新版本的 GeoWeave 保存；请更新扩展以完整查看。',
    mapNeedsExtension: '交互式地图需要 GeoWeave 扩展。', noMap: '无法显示地图：{0}', previewOf: '{0} 输出的预览图',
    sortColumn: '按此列排序', showAllRows: '显示全部 {0} 行', moreRowsInFile: '另有 {0} 行在输出文件中（未保存在笔记本里）。',
    binPixels: '{0} 至 {1}：{2} 个像元',
    layers: '图层', pixel: '像元', legend: '图例', swipe: '卷帘对比', basemap: '底图', pointAtMap: '将指针移到地图上读取像元值。',
    noRasterLayer: '未显示栅格图层。', naturalColour: '真彩色：波段 {0} 分别作为红、绿、蓝',
    rangeMax: '色带范围最大值', rangeMin: '色带范围最小值', compareTwo: '对比两个图层', swipePosition: '卷帘位置',
    oneLayer: '只有一个栅格图层：无可对比。', zoomIn: '放大', zoomOut: '缩小', fitRaster: '显示整个栅格',
    emptyResult: 'GeoWeave: 结果为空', invalidJson: 'GeoWeave: 结果不是有效的 JSON（{0}）；请使用"更改演示文稿"查看原始内容。',
    noAnswer: 'GeoWeave 没有响应（扩展是否在运行？）',
    input: '输入', output_: '输出', min: '最小', max: '最大', left: '左侧', right: '右侧', below: '低于 {0}', above: '高于 {0}', threshold: '阈值 {0}',
    provenance: '来源：{0}', batchOf: '批处理 {0} 项（{1}）', batchFailed: '，{0} 项失败', showing: ' · 显示 ', batchPick: '地图上显示的批处理项', itemFailed: '（失败）',
    batchFirst: '（此处可显示前 {0} 项；所有项都在表中和各自的文件夹里）',
  },
};

/** Headings of the view model (src/core/results/view-model.ts) in Chinese: key statistics, table
 *  titles and columns, chart titles. */
const TERMS_ZH: Record<string, string> = {
  'In the mask': '掩膜内', 'Mask area': '掩膜面积', Threshold: '阈值', Mean: '均值', Median: '中位数', Min: '最小值', Max: '最大值',
  Valid: '有效像元', Classes: '类别', Table: '表', Histogram: '直方图',
  'Scene mean over time': '场景均值随时间变化', mean: '均值', Class: '类别', Label: '标签', Code: '代码', Pixels: '像元数', Area: '面积',
  Share: '占比', Percent: '百分比', Lower: '下限', Upper: '上限', Count: '像元数', Zone: '区域', Zones: '分区统计', Id: 'ID', Name: '名称',
  Sum: '总和', Std: '标准差', Stddev: '标准差', Crop: '作物', Date: '日期', Year: '年份', Value: '数值', Band: '波段',
  Burned: '过火面积', 'Moderate high or high': '中高或高燃烧严重程度', 'Moderate or worse': '中度及以上', 'High severity': '高燃烧严重程度',
  Changed: '变化', 'Steeper than 25': '坡度大于 25°', 'Flatter than 2': '坡度小于 2°', Shadow: '阴影', Total: '总计', Patches: '斑块',
  Rows: '行', Severity: '燃烧严重程度', Slope: '坡度', Aspect: '坡向', Elevation: '高程', Polygons: '多边形',
  Bands: '波段', Index: '序号', Description: '描述', Role: '角色', Scale: '缩放系数', Offset: '偏移量', 'Flat or nodata': '平坦或 nodata',
  'Nodata pixels': 'nodata 像元数', Item: '项', Input: '输入', Status: '状态', 'Std dev': '标准差',
};

/** A view-model heading in `lang` ("Mean" → "均值"); unknown words stay as they are. */
export function term(text: string, lang: ResultLanguage | undefined): string {
  if (lang !== 'zh' || /^P\d+$/.test(text)) return text;
  return TERMS_ZH[text] ?? text;
}

/** The labels for a view's language (English when it has none). */
export function resultStrings(lang: ResultLanguage | undefined): ResultStrings {
  return RESULT_STRINGS[lang === 'zh' ? 'zh' : 'en'];
}

/** "{0} outputs" with its arguments. */
export function fill(text: string, ...args: unknown[]): string {
  return text.replace(/\{(\d+)\}/g, (m, i: string) => (args[Number(i)] !== undefined ? String(args[Number(i)]) : m));
}
