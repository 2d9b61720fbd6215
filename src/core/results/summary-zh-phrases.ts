/** Chinese phrases shared by the summary templates: number, share and area patterns and the
 *  "where in the scene" wording of `whereText` (src/core/raster/stats.ts). */

export const N = String.raw`(-?\d[\d.]*(?:e[-+]?\d+)?|n/a)`;
export const P = String.raw`(\d[\d.]*%)`;
export const AREA = String.raw`(\d[\d.]*(?:e[-+]?\d+)? (?:ha|km²))`;
export const WHERE = String.raw`((?:mostly in|concentrated (?:in|around)|spread across|nowhere in) [^;]*?)`;

export const CELL: Record<string, string> = {
  'north-west': '西北部', north: '北部', 'north-east': '东北部', west: '西部', centre: '中部', east: '东部',
  'south-west': '西南部', south: '南部', 'south-east': '东南部',
};
export const THIRD: Record<string, string> = {
  northern: '北部三分之一', middle: '中间三分之一', southern: '南部三分之一',
  western: '西部三分之一', central: '中间三分之一', eastern: '东部三分之一',
};
export const DIRECTION: Record<string, string> = {
  north: '北', 'north-east': '东北', east: '东', 'south-east': '东南', south: '南', 'south-west': '西南', west: '西', 'north-west': '西北',
};

/** "mostly in the south-west and the north-east" → "主要位于西南部和东北部". */
export function whereZh(text: string): string | undefined {
  let m: RegExpExecArray | null;
  if (text === 'nowhere in the scene') return '场景中没有分布';
  if (text === 'spread across the scene') return '分布于整个场景';
  if (text === 'concentrated around the centre') return '集中在中心附近';
  if ((m = /^(mostly|concentrated) in the ([a-z]+) third$/.exec(text)) && THIRD[m[2]]) return `${m[1] === 'mostly' ? '主要位于' : '集中于'}${THIRD[m[2]]}`;
  if ((m = /^(mostly|concentrated) in the ([a-z-]+) and the ([a-z-]+)$/.exec(text)) && CELL[m[2]] && CELL[m[3]]) return `${m[1] === 'mostly' ? '主要位于' : '集中于'}${CELL[m[2]]}和${CELL[m[3]]}`;
  if ((m = /^(mostly|concentrated) in the ([a-z-]+)$/.exec(text)) && CELL[m[2]]) return `${m[1] === 'mostly' ? '主要位于' : '集中于'}${CELL[m[2]]}`;
  return undefined;
}

/** One summary template: the Chinese text, or undefined when the English does not fit it. */
export type Rule = (s: string) => string | undefined;

/** "class 3" → "类别 3"; "zone 2 (fallow)" → "区域 2 (fallow)"; labels are data and stay. */
export function classZh(name: string): string {
  return name.replace(/^[Cc]lass (\d+)/, '类别 $1').replace(/^[Zz]one (\S+)/, '区域 $1');
}

/** "in the south-east" / "the northern third" / "mostly in the west" → the place alone ("东南部"). */
export function placeZh(text: string): string | undefined {
  const t = text.replace(/^(?:in )?the /, '');
  if (CELL[t]) return CELL[t];
  const m = /^([a-z]+) third$/.exec(t);
  if (m && THIRD[m[1]]) return THIRD[m[1]];
  return whereZh(/^in the /.test(text) ? `mostly ${text}` : text);
}

/** The CRS notes of src/core/raster/vector/to-raster.ts. */
export function crsNoteZh(note: string): string | undefined {
  let m = /^(.+?) declares no CRS \(no \.prj\), and its coordinates \((.+?)\) are longitude and latitude, far from the raster in (.+?): they were read as (.+?); give the file a \.prj if they are not \((.+?)\)\.?$/i.exec(note);
  if (m) return `${m[1]} 没有声明坐标系（无 .prj），其坐标（${m[2].replace(' to ', ' 至 ')}）是经纬度，与 ${m[3]} 下的栅格相距甚远：已按 ${m[4]} 读取；如果不是经纬度，请为文件加上 .prj（${m[5]}）。`;
  m = /^(.+?) declares no CRS \(no \.prj\): its coordinates were taken to be in the raster's CRS(?: \((.+)\))?\.?$/i.exec(note);
  if (m) return `${m[1]} 没有声明坐标系（无 .prj）：其坐标按栅格的坐标系${m[2] ? `（${m[2]}）` : ''}处理。`;
  m = /^(GeoJSON|Shapefile|GeoPackage) (.+) reprojected to the raster's (.+?)\.?$/i.exec(note);
  if (m) return `${m[1]} 的 ${m[2]} 已重投影到栅格的 ${m[3]}。`;
  return undefined;
}
