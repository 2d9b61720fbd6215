/** The language a run's summary is written in, and its Simplified Chinese version.
 *
 *  The raster tools write their summaries in English from fixed templates. `summaryIn('zh', result)`
 *  rewrites a summary template by template: the numbers, units, file names, expressions and class
 *  labels are copied character for character from the English, the words around them are Chinese.
 *  A summary no template matches stays English (`translated: false`), never half-translated.
 *  Pure (no vscode): the notebook controller and the CLI share it. */

import { AREA, CELL, DIRECTION, N, P, WHERE, classZh, crsNoteZh, whereZh, type Rule } from './summary-zh-phrases';
import { MORE_RULES } from './summary-zh-tools';

export { whereZh };

export type SummaryLanguage = 'en' | 'zh';

const HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
const KANA = /[\u3040-\u30ff]/;

/** True when the text contains Chinese characters (Han ideographs without Japanese kana). */
export function isChineseText(text: string | undefined): boolean {
  return !!text && HAN.test(text) && !KANA.test(text);
}

/** 'zh' when VS Code's display language is Chinese (zh-cn, zh-tw, …) or the task is written in
 *  Chinese; otherwise 'en'. */
export function summaryLanguage(displayLanguage: string | undefined, task: string | undefined): SummaryLanguage {
  if (displayLanguage && /^zh(\b|[-_])/i.test(displayLanguage)) return 'zh';
  return isChineseText(task) ? 'zh' : 'en';
}

/** Section headings of a result card and its statistics table in both languages. */
export const RESULT_HEADINGS: Record<SummaryLanguage, { summary: string; statistics: string; outputs: string; classes: string; statistic: string; value: string; class: string; area: string; share: string; pixels: string }> = {
  en: { summary: 'Summary', statistics: 'Statistics', outputs: 'Outputs', classes: 'Classes', statistic: 'statistic', value: 'value', class: 'Class', area: 'Area', share: 'Share', pixels: 'Pixels' },
  zh: { summary: '摘要', statistics: '统计', outputs: '输出', classes: '类别', statistic: '统计量', value: '数值', class: '类别', area: '面积', share: '占比', pixels: '像元数' },
};

/** Index names as a remote-sensing analyst reads them; the acronym stays. */
const INDEX_NAMES: Record<string, string> = {
  NDVI: '归一化植被指数 (NDVI)', EVI: '增强型植被指数 (EVI)', SAVI: '土壤调节植被指数 (SAVI)', NDWI: '归一化水体指数 (NDWI)',
  MNDWI: '改进的归一化水体指数 (MNDWI)', NDBI: '归一化建筑指数 (NDBI)', NBR: '归一化燃烧比 (NBR)', NDMI: '归一化水分指数 (NDMI)',
  NDSI: '归一化积雪指数 (NDSI)', NDCI: '归一化叶绿素指数 (NDCI)', elevation: '高程', slope: '坡度', value: '数值',
};

/** The threshold words of the spectral indices (src/core/raster/spectral.ts); the "(NDVI < 0.2)" after them is copied. */
const CLASS_WORDS: Record<string, string> = {
  'bare, built-up or water': '裸地、建成区或水体',
  'dense vegetation': '茂密植被',
  'sparse or no vegetation': '稀疏植被或无植被',
  'bare soil or water': '裸土或水体',
  'likely open water': '可能是开阔水面',
  'likely built-up or bare': '可能是建成区或裸地',
  'burned or bare': '过火区或裸地',
  'healthy vegetation': '健康植被',
  'dry, moisture-stressed': '干燥、受水分胁迫的区域',
  'high canopy moisture': '冠层含水量高的区域',
  'likely snow or ice': '可能是冰雪',
  'high chlorophyll-a': '叶绿素 a 含量高的水体',
  'cloud, cloud shadow or cirrus': '云、云影或卷云',
  // MODIS/VIIRS QA fields through cloud_mask (src/core/raster/land-qa.ts qaWhat).
  'cloud, cloud shadow, cirrus or snow/ice': '云、云影、卷云或冰雪',
  'cloud, cloud shadow, cirrus, snow/ice or next to cloud': '云、云影、卷云、冰雪或云邻近像元',
  'cloud, possible cloud, cloud shadow, cirrus or snow/ice': '云、可能有云、云影、卷云或冰雪',
  'cloud': '云',
  'cloud or possible cloud': '云或可能有云',
  'cloud shadow or cirrus': '云影或卷云',
  'cloud shadow, cirrus or snow/ice': '云影、卷云或冰雪',
  'cloudy': '云覆盖',
  'cloudy or snow/ice': '云覆盖或冰雪',
  'not good quality': '非良好质量',
  'cloud or cloud shadow': '云或云影',
  'cloud, cloud shadow or snow/ice': '云、云影或冰雪',
  'magnitude inversion, lower quality': '量级反演（质量较低）',
};

/** "dense vegetation (NDVI > 0.6)" → "植被茂密 (NDVI > 0.6)"; anything else (an expression, a band
 *  name and a comparison) is kept as written. */
function wordsZh(words: string): string {
  const m = /^(.*?)( \(.*\))?$/.exec(words)!;
  const zh = CLASS_WORDS[m[1]];
  return zh ? `${zh}${m[2] ?? ''}` : words;
}

/** "为茂密植被", but "可能是开阔水面" (the likely classes carry their verb). */
function isZh(words: string): string {
  const zh = wordsZh(words);
  if (zh !== words) return zh.startsWith('可能') ? zh : `为${zh}`;
  // An expression or comparison the user wrote ("ndvi > 0.6", "true for b5 > 2500") stays as written.
  return `满足 ${words.replace(/^true for /, '')}`;
}

function nameZh(label: string): string {
  return INDEX_NAMES[label] ?? label;
}

// ---------------------------------------------------------------------------------------------
// Templates (one per summary shape in src/core/raster/tools/)

/** Splits "a; b; c" into clauses and translates each with `clause`; undefined when one fails. */
function clauses(text: string, clause: (c: string, i: number) => string | undefined): string | undefined {
  const out: string[] = [];
  const parts = text.split('; ');
  for (let i = 0; i < parts.length; i++) {
    const t = clause(parts[i], i);
    if (t === undefined) return undefined;
    out.push(t);
  }
  return out.join('；');
}

/** "9.7% of valid pixels are bare, built-up or water (NDVI < 0.2), mostly in the south-west" */
function shareClause(c: string): string | undefined {
  let m: RegExpExecArray | null;
  if ((m = /^none are (.+)$/.exec(c))) return `没有像元${isZh(m[1])}`;
  if ((m = new RegExp(String.raw`^highest in the ([a-z-]+) \(mean ${N}(.*?)\), lowest in the ([a-z-]+) \(mean ${N}(.*?)\)$`).exec(c)) && CELL[m[1]] && CELL[m[4]]) {
    return `${CELL[m[1]]}最高（均值 ${m[2]}${m[3]}），${CELL[m[4]]}最低（均值 ${m[5]}${m[6]}）`;
  }
  m = new RegExp(String.raw`^${P} (?:of valid pixels )?are (.+?)(?:, ${WHERE})?$`).exec(c);
  if (!m) return undefined;
  const where = m[3] ? whereZh(m[3]) : '';
  if (where === undefined) return undefined;
  return `${m[1]} 的有效像元${isZh(m[2])}${where ? `，${where}` : ''}`;
}

const NODATA_CONT = new RegExp(String.raw` ${P} of pixels are nodata \(masked, fill or zero denominator\)\.$`);
const COMMON_RANGE = new RegExp(String.raw` The most common range is ${N} to ${N} \(${P} of valid pixels\)\.$`);

/** describeContinuous (spectral indices, raster_stats, band_math, apply_mask). */
const continuous: Rule = (s) => {
  let tail = '';
  let m: RegExpExecArray | null;
  if ((m = COMMON_RANGE.exec(s))) { tail = `最常见的取值区间为 ${m[1]} 至 ${m[2]}（占有效像元的 ${m[3]}）。` + tail; s = s.slice(0, m.index); }
  if ((m = NODATA_CONT.exec(s))) { tail = `${m[1]} 的像元为 nodata（掩膜、填充值或分母为零）。` + tail; s = s.slice(0, m.index); }
  m = new RegExp(String.raw`^Mean (.+?) ${N}((?: [^\s(]+)?) \(median ${N}, 5–95% range ${N} to ${N}\)(?:; (.*))?\.$`).exec(s);
  if (!m) return undefined;
  const rest = m[7] ? clauses(m[7], shareClause) : '';
  if (rest === undefined) return undefined;
  return `${nameZh(m[1])}${/[A-Za-z)]$/.test(nameZh(m[1])) ? ' ' : ''}均值 ${m[2]}${m[3]}（中位数 ${m[4]}，5–95% 区间 ${m[5]} 至 ${m[6]}）${rest ? `；${rest}` : ''}。${tail}`;
};

/** describeMask (threshold, cloud_mask, band_math masks). */
const mask: Rule = (s) => {
  const m = new RegExp(String.raw`^${P} of valid pixels are (.+?)(?: \(${AREA}\))?(?:, ${WHERE})?; (\d+) of (\d+) pixels\.(?: ${P} are nodata\.)?$`).exec(s);
  if (!m) return undefined;
  const where = m[4] ? whereZh(m[4]) : '';
  if (where === undefined) return undefined;
  return `${m[1]} 的有效像元${isZh(m[2])}${m[3] ? `（${m[3]}）` : ''}${where ? `，${where}` : ''}；${m[6]} 个有效像元中有 ${m[5]} 个。${m[7] ? `${m[7]} 的像元为 nodata。` : ''}`;
};

const noValid: Rule = (s) => {
  const m = /^No valid pixels: every pixel of the (\d+) is nodata\.$/.exec(s);
  return m ? `没有有效像元：全部 ${m[1]} 个像元均为 nodata。` : undefined;
};

const RULES: Record<string, Rule[]> = {
  slope: [(s) => {
    let m = new RegExp(String.raw`^Slope averages ${N}° \(max ${N}°\); ${P} of the area is steeper than 25°, ${WHERE}\.$`).exec(s);
    if (m) { const w = whereZh(m[4]); return w && `平均坡度 ${m[1]}°（最大 ${m[2]}°）；${m[3]} 的面积坡度大于 25°，${w}。`; }
    m = new RegExp(String.raw`^Slope averages ${N}° \(max ${N}°, none steeper than 25°\); the steepest 10% \(> ${N}°\) lie ${WHERE}, and ${P} is nearly flat \(< 2°\)\.$`).exec(s);
    if (m) { const w = whereZh(m[4]); return w && `平均坡度 ${m[1]}°（最大 ${m[2]}°，没有大于 25° 的坡度）；最陡的 10%（> ${m[3]}°）${w}，${m[5]} 的面积近乎平坦（< 2°）。`; }
    return undefined;
  }],
  aspect: [(s) => {
    const m = new RegExp(String.raw`^Slopes face mostly ([a-z-]+) \(${P} of sloping pixels, ${WHERE}\) and ([a-z-]+) \(${P}\); ${P} of the area is flat or nodata\.$`).exec(s);
    const w = m && whereZh(m[3]);
    return m && w && DIRECTION[m[1]] && DIRECTION[m[4]]
      ? `坡向以${DIRECTION[m[1]]}向为主（占有坡度像元的 ${m[2]}，${w}），其次为${DIRECTION[m[4]]}向（${m[5]}）；${m[6]} 的面积平坦或为 nodata。` : undefined;
  }],
  hillshade: [(s) => {
    let m = new RegExp(String.raw`^With the sun at ${N}°/${N}°, ${P} of the terrain is in shade \(grey < 100\), ${WHERE}, on slopes facing away from the sun; mean brightness (\d+) of 255\.$`).exec(s);
    if (m) { const w = whereZh(m[4]); return w && `太阳方位角/高度角为 ${m[1]}°/${m[2]}° 时，${m[3]} 的地形处于阴影中（灰度 < 100），${w}，位于背向太阳的坡面；平均亮度 ${m[5]}（满值 255）。`; }
    m = new RegExp(String.raw`^With the sun at ${N}°/${N}° the relief is gentle: no pixel falls below grey 100; mean brightness (\d+) of 255\.$`).exec(s);
    return m ? `太阳方位角/高度角为 ${m[1]}°/${m[2]}° 时地形起伏平缓：没有像元灰度低于 100；平均亮度 ${m[3]}（满值 255）。` : undefined;
  }],
  reclassify: [(s) => {
    const m = new RegExp(String.raw`^"(.+?)" is the largest class with ${P} of valid pixels \(${AREA}\), ${WHERE}(?:; "(.+?)" follows with ${P} \(${AREA}\), ${WHERE})?\.(?: ${P} of valid pixels fall outside the breaks and are nodata\.)?$`).exec(s);
    if (!m) return undefined;
    const w1 = whereZh(m[4]), w2 = m[5] ? whereZh(m[8]) : '';
    if (!w1 || w2 === undefined) return undefined;
    return `重分类后面积最大的类别是“${m[1]}”，占有效像元的 ${m[2]}（${m[3]}），${w1}`
      + (m[5] ? `；其次是“${m[5]}”，占 ${m[6]}（${m[7]}），${w2}` : '') + '。'
      + (m[9] ? `${m[9]} 的有效像元落在分级断点之外，设为 nodata。` : '');
  }],
  area_by_class: [(s) => {
    let m = /^No valid pixels in (.+) band (\d+)\.$/.exec(s);
    if (m) return `${m[1]} 的第 ${m[2]} 波段没有有效像元。`;
    m = new RegExp(String.raw`^(\d+) classes over ${AREA}: (.+?)(?: and (\d+) smaller)?\. (.+) lies ${WHERE}\.$`).exec(s);
    if (!m) return undefined;
    const w = whereZh(m[6]);
    if (!w) return undefined;
    const items = m[3].split(/, (?=(?:[^,]*?) \d[\d.]*(?:e[-+]?\d+)? (?:ha|km²) \()/).map((it) => {
      const x = new RegExp(String.raw`^(.+) ${AREA} \((\d[\d.]*%)\)$`).exec(it);
      return x ? `${classZh(x[1])} ${x[2]}（${x[3]}）` : undefined;
    });
    if (items.some((x) => x === undefined)) return undefined;
    return `分类面积统计：共 ${m[1]} 个类别，总面积 ${m[2]}：${items.join('，')}${m[4] ? `，另有 ${m[4]} 个较小类别` : ''}。“${classZh(m[5])}”${w}。`;
  }],
  zonal_stats: [(s) => {
    let m = /^None of the (\d+) zones covers a valid pixel of (.+)\.$/.exec(s);
    if (m) return `${m[1]} 个区域都没有覆盖 ${m[2]} 的有效像元。`;
    m = new RegExp(String.raw`^Across (\d+) (polygons|zones) \(${AREA}\), the zone mean ranges from ${N} in (.+?) to ${N} in (.+?); the pixel-weighted mean is ${N}\.(?: (\d+) zones? (?:have|has) no valid pixels\.)?(?: (.+))?$`).exec(s);
    const one = new RegExp(String.raw`^Across (\d+) (polygons|zones) \(${AREA}\), only (.+?) covers valid pixels: its mean is ${N}\.(?: (\d+) zones? (?:have|has) no valid pixels\.)?(?: (.+))?$`).exec(s);
    if (one) {
      const oneNote = one[7] ? crsNoteZh(one[7].replace(/\.$/, '')) : '';
      if (oneNote === undefined || oneNote === null) return undefined;
      return `分区统计：${one[1]} 个${one[2] === 'polygons' ? '多边形' : '区域'}（${one[3]}）中只有${classZh(one[4])}覆盖有效像元，其均值为 ${one[5]}。` + (one[6] ? `${one[6]} 个区域没有有效像元。` : '') + oneNote;
    }
    const note = m && (m[10] ? crsNoteZh(m[10].replace(/\.$/, '')) : '');
    if (!m || note === undefined || note === null) return undefined;
    return `分区统计：${m[1]} 个${m[2] === 'polygons' ? '多边形' : '区域'}（${m[3]}）的区域均值从${classZh(m[5])}的 ${m[4]} 到${classZh(m[7])}的 ${m[6]}；按像元加权的均值为 ${m[8]}。`
      + (m[9] ? `${m[9]} 个区域没有有效像元。` : '') + note;
  }],
  dnbr: [(s) => {
    let m = new RegExp(String.raw`^dNBR reaches ${N} \(mean ${N}\); ${P} of the valid area \(${AREA}\) exceeds 0\.27, moderate or worse burn, ${WHERE}, and ${P} exceeds 0\.66 \(high severity\)\.$`).exec(s);
    if (m) { const w = whereZh(m[5]); return w && `差分归一化燃烧比 (dNBR) 最高 ${m[1]}（均值 ${m[2]}）；${m[3]} 的有效面积（${m[4]}）超过 0.27，即中度及以上燃烧，${w}；${m[6]} 超过 0.66（高燃烧严重程度）。`; }
    m = new RegExp(String.raw`^No pixel reaches a moderate burn \(dNBR ≥ 0\.27\); dNBR averages ${N} with maximum ${N}\.$`).exec(s);
    return m ? `没有像元达到中度燃烧（dNBR ≥ 0.27）；dNBR 均值 ${m[1]}，最大值 ${m[2]}。` : undefined;
  }],
  burn_severity: [(s) => {
    if (s === 'No burned pixels: all valid dNBR values are below 0.1 (unburned or regrowth).') return '没有过火像元：所有有效 dNBR 值都低于 0.1（未燃烧或植被再生）。';
    const m = new RegExp(String.raw`^Burned area ${AREA} \(${P} of the valid area\), ${P} of it moderate-high or high severity, ${WHERE}\.(?: Enhanced regrowth on ${AREA}\.)?$`).exec(s);
    const w = m && whereZh(m[4]);
    return m && w ? `燃烧严重程度：过火面积 ${m[1]}（占有效面积的 ${m[2]}），其中 ${m[3]} 为中高或高燃烧严重程度，${w}。${m[5] ? `植被增强再生面积 ${m[5]}。` : ''}` : undefined;
  }],
  otsu_threshold: [(s) => {
    const m = new RegExp(String.raw`^The Otsu threshold ${N} splits the valid pixels into a lower class \(mean ${N}\) and an upper class \(mean ${N}\); ${P} of them \(${AREA}\) are above it and set in the mask, ${WHERE}\.$`).exec(s);
    const w = m && whereZh(m[6]);
    return m && w ? `Otsu 阈值 ${m[1]} 将有效像元分为低值类（均值 ${m[2]}）和高值类（均值 ${m[3]}）；其中 ${m[4]}（${m[5]}）高于阈值并计入掩膜，${w}。` : undefined;
  }],
  change_difference: [(s) => {
    const m = new RegExp(String.raw`^Values (changed|increased|decreased) by more than ${N}(?: \((.+?); ${P} of it increases\))? over ${P} of the valid area \(${AREA}\), ${WHERE}; the mean difference is ([+-]?${N.slice(1, -1)})\.$`).exec(s);
    const w = m && whereZh(m[7]);
    if (!m || !w) return undefined;
    const verb = { changed: '变化', increased: '增加', decreased: '减少' }[m[1]];
    const method = m[3] ? `（${m[3].replace(/^Otsu on \|difference\|$/, '对 |差值| 做 Otsu')}；其中 ${m[4]} 为增加）` : '';
    return `变化检测：${m[5]} 的有效面积（${m[6]}）的值${verb}超过 ${m[2]}${method}，${w}；平均差值为 ${m[8]}。`;
  }],
  raster_info: [(s) => {
    const m = /^(\d+)×(\d+) pixels, (\d+) (\S+) bands? at (\S+?)( m|°)(?: \(grid rotated (\S+)°\))? in (.+?)(?: covering (\S+) km²)?; nodata (.+?)\.(?: Band roles from (descriptions|the product's band table): (.+?)\.| (Bands have no role descriptions: pass --arg red=3 etc\. or sensor=\.))?(?: Units: (.+?)\.)?(?: Overviews: ([\d×, ]+)\.)?$/.exec(s);
    if (!m) return undefined;
    const [, w, h, nb, type, size, unit, rot, crs, km2, nodata, from, roles, noRoles, units, overviews] = m;
    return `${w}×${h} 像元，${nb} 个 ${type} 波段，分辨率 ${size}${unit}${rot ? `（网格旋转 ${rot}°）` : ''}，坐标系 ${crs}${km2 ? `，覆盖 ${km2} km²` : ''}；nodata ${nodata === 'not set' ? '未设置' : nodata}。`
      + (roles ? `根据${from === 'descriptions' ? '波段描述' : '产品波段表'}识别的波段角色：${roles}。` : noRoles ? '波段没有角色描述：请传入 --arg red=3 等参数或 sensor=。' : '')
      + (units ? `单位：${units}。` : '')
      + (overviews ? `概视图：${overviews}。` : '');
  }],
};

/** Rules for any tool, tried after the tool's own. */
const GENERIC: Rule[] = [noValid, continuous, mask, (s) => {
  const m = /^Kept (\d[\d.]*)% of pixels \(where the mask is ([01])\); (.*)$/.exec(s);
  const rest = m && (continuous(m[3]) ?? mask(m[3]));
  return m && rest ? `保留了 ${m[1]}% 的像元（掩膜为 ${m[2]} 处）；${rest}` : undefined;
}];

/** The summary of a run in `lang`: for 'zh' the Chinese version of the English template, with the
 *  same numbers; the English text when no template matches. */
export function localizeSummary(result: { tool: string; summary: string }, lang: SummaryLanguage): { text: string; translated: boolean } {
  if (lang === 'en' || !result.summary) return { text: result.summary, translated: lang === 'en' };
  for (const rule of [...(RULES[result.tool] ?? []), ...(MORE_RULES[result.tool] ?? []), ...GENERIC]) {
    const zh = rule(result.summary);
    if (zh) return { text: zh, translated: true };
  }
  return { text: result.summary, translated: false };
}

/** The numbers of a summary, in order (for checking that a translation kept them). */
export function summaryNumbers(text: string): string[] {
  return [...text.matchAll(/-?\d[\d.]*(?:e[-+]?\d+)?/g)].map((m) => m[0].replace(/\.$/, ''));
}
