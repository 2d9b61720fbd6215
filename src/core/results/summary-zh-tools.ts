/** Chinese templates for the summaries of the builtin tools not covered in summary-language.ts
 *  (clipping, resampling, classification, distances, LST, trends, composites, STAC search, …).
 *  Same contract: numbers, units, file names and labels are copied from the English; a summary
 *  that does not fit a template as a whole gives undefined and stays English. */
import { AREA, CELL, N, P, WHERE, classZh, crsNoteZh, placeZh, whereZh, type Rule } from './summary-zh-phrases';
import { TWO_DATES, TWO_DATES_ZH } from './trend-notes';

const DIST = String.raw`(\d[\d.]* (?:m|km))`;
const RESAMPLING: Record<string, string> = {
  nearest: '最近邻', near: '最近邻', average: '平均值', bilinear: '双线性', cubic: '三次卷积', cubicspline: '三次样条',
  lanczos: 'Lanczos', mode: '众数', min: '最小值', max: '最大值', med: '中值',
};
const COLORMAP: Record<string, string> = {
  index: '指数', diverging: '发散', class: '分类', mask: '掩膜', continuous: '连续', hillshade: '山体阴影',
};
const MORPH: Record<string, string> = { Opening: '开运算', Closing: '闭运算', Dilation: '膨胀', Erosion: '腐蚀' };

const resampling = (m: string) => RESAMPLING[m] ?? m;

/** An optional trailing sentence made from a CRS note ("X declares no CRS …"). */
function withNote(note: string | undefined): string | undefined {
  if (!note) return '';
  return crsNoteZh(note.replace(/\.$/, ''));
}

/** "band 1 mean 183, range 63.3 to 593" → "第 1 波段均值 183，范围 63.3 至 593". */
const BAND1 = String.raw`band 1 mean ${N}, range ${N} to ${N}`;
const band1 = (mean: string, lo: string, hi: string) => `第 1 波段均值 ${mean}，范围 ${lo} 至 ${hi}`;

/** align's grid text: "EPSG:32650 (…), 20 m pixels, 300×300 from (500000, 4430000)". */
const GRID = String.raw`(.+?), (\S+)( m|°) pixels, (\d+)×(\d+) from \(([^)]*)\)`;
const gridZh = (m: string[], i: number) => `${m[i]}，像元 ${m[i + 1]}${m[i + 2]}，${m[i + 3]}×${m[i + 4]}，起点 (${m[i + 5]})`;

export const MORE_RULES: Record<string, Rule[]> = {
  quicklook: [(s) => {
    const m = new RegExp(String.raw`^Rendered (\S+) with the ([a-z]+) colormap \((\d+)×(\d+) preview\); values ${N} to ${N} \(2–98%\), highest on average (.+)\.$`).exec(s);
    if (!m) return undefined;
    const where = m[7] === 'nowhere' ? '无' : placeZh(m[7]);
    return where && `已用${COLORMAP[m[2]] ?? m[2]}色带渲染 ${m[1]}（${m[3]}×${m[4]} 预览）；取值 ${m[5]} 至 ${m[6]}（2–98%），平均值最高处位于${where.replace(/^主要位于|^集中于/, '')}。`;
  }],
  clip_bbox: [(s) => {
    const m = new RegExp(String.raw`^Clipped to (\d+)×(\d+) pixels(?: \(${N} km²\))?, ${P} of the input, columns (\d+)–(\d+) and rows (\d+)–(\d+); band 1 mean ${N} with ${P} nodata\.$`).exec(s);
    return m ? `裁剪为 ${m[1]}×${m[2]} 像元${m[3] ? `（${m[3]} km²）` : ''}，占输入的 ${m[4]}，第 ${m[5]}–${m[6]} 列、第 ${m[7]}–${m[8]} 行；第 1 波段均值 ${m[9]}，nodata 占 ${m[10]}。` : undefined;
  }],
  resample: [(s) => {
    const m = new RegExp(String.raw`^Resampled (\d+)×(\d+) to (\d+)×(\d+) pixels \((\S+)(°| m) pixels, ([a-z]+)\); ${BAND1}\.$`).exec(s);
    return m ? `已将 ${m[1]}×${m[2]} 重采样为 ${m[3]}×${m[4]} 像元（像元 ${m[5]}${m[6]}，${resampling(m[7])}）；${band1(m[8], m[9], m[10])}。` : undefined;
  }],
  reproject: [(s) => {
    const m = new RegExp(String.raw`^Reprojected (\d+)×(\d+) pixels of (\S+) (\S+) in (.+?) to (\d+)×(\d+) pixels of (\S+) (\S+) in (.+) \(([a-z]+)\); ${BAND1}(?:; (\d+%) of the new grid is nodata \(outside the input or nodata there\))?\.$`).exec(s);
    if (!m) return undefined;
    return `已将 ${m[1]}×${m[2]} 像元（${m[3]} ${m[4]}，${m[5]}）重投影为 ${m[6]}×${m[7]} 像元（${m[8]} ${m[9]}，${m[10]}，${resampling(m[11])}）；${band1(m[12], m[13], m[14])}`
      + (m[15] ? `；新网格中 ${m[15]} 为 nodata（位于输入范围之外或输入处为 nodata）` : '') + '。';
  }],
  align: [(s) => {
    const m = new RegExp(String.raw`^Put (.+?) \(${GRID}\) onto the grid of (.+?) \(${GRID}\) with ([a-z]+); ${BAND1}(?:; (\d+%) of the grid is nodata \(outside the input or nodata there\))?\.$`).exec(s);
    if (!m) return undefined;
    return `已用${resampling(m[15])}法将 ${m[1]}（${gridZh(m, 2)}）对齐到 ${m[8]} 的网格（${gridZh(m, 9)}）；${band1(m[16], m[17], m[18])}`
      + (m[19] ? `；网格中 ${m[19]} 为 nodata（位于输入范围之外或输入处为 nodata）` : '') + '。';
  }],
  clip_to_vector: [(s) => {
    const m = new RegExp(String.raw`^Clipped (.+) to (\d+) polygon features? of (.+): (\d+)×(\d+) pixels, (\d+) inside the polygons(?: \(${N} ha inside\))?; band 1 mean ${N} inside\.(?: (.+))?$`).exec(s);
    const note = m && withNote(m[9]);
    if (!m || note === undefined) return undefined;
    return `已将 ${m[1]} 按 ${m[3]} 的 ${m[2]} 个多边形要素裁剪：${m[4]}×${m[5]} 像元，其中 ${m[6]} 个位于多边形内${m[7] ? `（${m[7]} ha）` : ''}；多边形内第 1 波段均值 ${m[8]}。${note}`;
  }],
  change_vector_analysis: [(s) => {
    const m = new RegExp(String.raw`^Change magnitude averages ${N} over (\d+) bands; ${P} of the valid area \(${AREA}\) changes strongly \(magnitude > ${N}, Otsu\), ${WHERE}, with directions mostly (\d[\d.]*)–(\d[\d.]*)°( from the all-increase diagonal \(bands mostly (brighter|darker)\))?\.$`).exec(s);
    const w = m && whereZh(m[6]);
    if (!m || !w) return undefined;
    const dir = m[9] ? `与全波段增加对角线的夹角主要为 ${m[7]}–${m[8]}°（各波段大多${m[10] === 'brighter' ? '变亮' : '变暗'}）` : `变化方向主要为 ${m[7]}–${m[8]}°`;
    return `变化向量分析：${m[2]} 个波段上的变化强度均值为 ${m[1]}；${m[3]} 的有效面积（${m[4]}）变化强烈（强度 > ${m[5]}，Otsu 阈值），${w}，${dir}。`;
  }],
  connected_patches: [(s) => {
    if (s === 'No patches: the mask is empty.') return '没有斑块：掩膜为空。';
    let m = /^No patches of at least (\d+) pixels \((\d+) smaller ones dropped\)\.$/.exec(s);
    if (m) return `没有至少 ${m[1]} 个像元的斑块（已舍弃 ${m[2]} 个较小斑块）。`;
    m = new RegExp(String.raw`^(\d+) patch(?:es)? \(${AREA} in all(?:; (\d+) smaller than (\d+) px dropped)?\); the largest covers ${AREA} \((\d+%) of the patch area\) in the ([a-z-]+), and the median patch is ${AREA}\.$`).exec(s);
    if (!m || !CELL[m[7]]) return undefined;
    return `共 ${m[1]} 个斑块（总面积 ${m[2]}${m[3] ? `；已舍弃 ${m[3]} 个小于 ${m[4]} 像元的斑块` : ''}）；最大的斑块面积 ${m[5]}（占斑块总面积的 ${m[6]}），位于${CELL[m[7]]}；斑块面积中位数为 ${m[8]}。`;
  }],
  distance_to: [(s) => {
    const m = new RegExp(String.raw`^The mean distance to the nearest mask pixel is ${DIST} \(median ${DIST}, max ${DIST}\); ${P} of the area lies within ${DIST}, and the most remote 10% \(> ${DIST}\) is ${WHERE}\.$`).exec(s);
    const w = m && whereZh(m[7]);
    return m && w ? `到最近掩膜像元的平均距离为 ${m[1]}（中位数 ${m[2]}，最大 ${m[3]}）；${m[4]} 的面积位于 ${m[5]} 以内，最偏远的 10%（> ${m[6]}）${w}。` : undefined;
  }],
  kmeans_classify: [(s) => {
    const m = new RegExp(String.raw`^(\d+) spectral clusters over (\d+) bands: the largest, class (\d+), covers ${P} of valid pixels \(${AREA}\), ${WHERE}; the smallest, class (\d+), covers ${P}, ${WHERE}\. Classes are ordered from darkest \(1\) to brightest \((\d+)\)\.$`).exec(s);
    const w1 = m && whereZh(m[6]), w2 = m && whereZh(m[9]);
    return m && w1 && w2
      ? `K 均值聚类：${m[2]} 个波段上的 ${m[1]} 个光谱聚类；最大的是类别 ${m[3]}，占有效像元的 ${m[4]}（${m[5]}），${w1}；最小的是类别 ${m[7]}，占 ${m[8]}，${w2}。类别按亮度从最暗 (1) 到最亮 (${m[10]}) 排序。`
      : undefined;
  }],
  land_surface_temperature: [(s) => {
    const m = new RegExp(String.raw`^Land surface temperature averages ${N} °C(?: over the ${P} of the scene that QA_PIXEL marks clear)? \(${N} to ${N} °C\); the hottest 10% \(≥ ${N} °C\) (?:are )?${WHERE}, the coolest 10% \(≤ ${N} °C\) ${WHERE}\. (.+?) (is Landsat C2 L2 surface temperature, already emissivity-corrected by USGS: converted from kelvin to °C only, not corrected again|was taken as brightness temperature and corrected with NDVI-based emissivity \(single channel, λ = 10\.895 µm\))\.(?: The ${P} flagged cloud, cloud shadow or cirrus in QA_PIXEL \(band (\d+)\) keep their values in the raster but are left out of these figures; mask them with cloud_mask and apply_mask\.)?$`).exec(s);
    const hot = m && whereZh(m[6]), cool = m && whereZh(m[8]);
    if (!m || !hot || !cool) return undefined;
    const name = m[9].replace(/^band (\d+)$/, '第 $1 波段 ').replace(/ \(band (\d+)\)$/, '（第 $1 波段）');
    const method = m[10].startsWith('is Landsat')
      ? `${name}是 Landsat C2 L2 地表温度，已由 USGS 做过发射率校正：仅从开尔文换算为 °C，未再次校正。`
      : `${name}按亮温处理，并用基于 NDVI 的发射率做了校正（单通道法，λ = 10.895 µm）。`;
    return `地表温度均值 ${m[1]} °C（${m[3]} 至 ${m[4]} °C${m[2] ? `；按 QA_PIXEL 标为晴空的 ${m[2]} 场景统计` : ''}）；最热的 10%（≥ ${m[5]} °C）${hot}，最冷的 10%（≤ ${m[7]} °C）${cool}。${method}`
      + (m[11] ? `QA_PIXEL（第 ${m[12]} 波段）标为云、云影或卷云的 ${m[11]} 像元在栅格中保留原值，但不计入上述统计；可用 cloud_mask 和 apply_mask 将其掩去。` : '');
  }],
  morphology: [(s) => {
    const m = new RegExp(String.raw`^(Opening|Closing|Dilation|Erosion) with a (\d+)-pixel disc (added|removed) (\d+) pixels \((${P.slice(1, -1)}|n/a) of the original mask\), (${WHERE.slice(1, -1)}|nowhere); the mask now has (\d+) pixels \(${AREA}\)\.$`).exec(s);
    if (!m) return undefined;
    const w = m[6] === 'nowhere' ? '没有变化的位置' : whereZh(m[6]);
    return w && `以半径 ${m[2]} 像元的圆盘做${MORPH[m[1]]}，${m[3] === 'added' ? '增加' : '去除'}了 ${m[4]} 个像元（占原掩膜的 ${m[5]}），${w}；掩膜现有 ${m[7]} 个像元（${m[8]}）。`;
  }],
  vectorize_mask: [(s) => {
    if (s === 'The mask is empty: no polygons.') return '掩膜为空：没有多边形。';
    const m = new RegExp(String.raw`^(\d+) polygons? \((\d+) holes?\) cover ${AREA}; the largest, ${AREA} \((\d+%) of the total\), lies in the ([a-z-]+)\.$`).exec(s);
    return m && CELL[m[6]] ? `共 ${m[1]} 个多边形（${m[2]} 个内洞），覆盖 ${m[3]}；最大的多边形 ${m[4]}（占总面积的 ${m[5]}），位于${CELL[m[6]]}。` : undefined;
  }],
  sar_flood_threshold: [(s) => {
    const m = new RegExp(String.raw`^With (Otsu's threshold|the threshold) ${N} dB on (linear backscatter converted to dB|backscatter in dB), ${P} of the valid pixels \(${AREA}\) are open water(?:, ${WHERE})?; water averages ${N} dB against ${N} dB elsewhere\.$`).exec(s);
    const w = m && (m[6] ? whereZh(m[6]) : '');
    if (!m || w === undefined || w === null) return undefined;
    const on = m[3].startsWith('linear') ? '由线性后向散射换算的 dB 值' : 'dB 后向散射';
    return `对${on}采用${m[1] === 'the threshold' ? '阈值' : ' Otsu 阈值'} ${m[2]} dB，${m[4]} 的有效像元（${m[5]}）为开阔水面${w ? `，${w}` : ''}；水体均值 ${m[7]} dB，其他区域 ${m[8]} dB。`;
  }],
  time_series_trend: [(s) => {
    const two = s.endsWith(` ${TWO_DATES}`);
    const m = new RegExp(String.raw`^The scene mean went from ${N} \((.+?)\) to ${N} \((.+?)\); the per-pixel trend averages ([+-]?${N.slice(1, -1)}) per year, with ${P} of pixels declining and the steepest declines \(< ([+-]?${N.slice(1, -1)})/yr\) ${WHERE}\.$`).exec(two ? s.slice(0, -TWO_DATES.length - 1) : s);
    const w = m && whereZh(m[8]);
    return m && w ? `场景均值从 ${m[1]}（${m[2]}）变为 ${m[3]}（${m[4]}）；逐像元趋势均值为每年 ${m[5]}，${m[6]} 的像元呈下降趋势，下降最快的像元（< ${m[7]}/年）${w}。`
      + (two ? TWO_DATES_ZH : '') : undefined;
  }],
  ndvi_anomaly: [(s) => {
    const m = new RegExp(String.raw`^Against a (\d+)-raster baseline the (standardized )?anomaly averages ${N} (σ|NDVI); ${P} of the pixels \(${AREA}\) are at or below (\S+?)(?:, ${WHERE})?, and ${P} are at or above (\S+?)\.$`).exec(s);
    const w = m && (m[8] ? whereZh(m[8]) : '');
    if (!m || w === undefined || w === null) return undefined;
    return `相对 ${m[1]} 景基准影像，${m[2] ? '标准化' : ''}距平均值为 ${m[3]} ${m[4]}；${m[5]} 的像元（${m[6]}）不高于 ${m[7]}${w ? `，${w}` : ''}；${m[9]} 的像元不低于 ${m[10]}。`;
  }],
  mosaic_vrt: [(s) => {
    const m = /^(?:Mosaic of (\d+) rasters?|Stacked (\d+) rasters? as (\d+) bands?): (\d+)×(\d+) pixels at (\S+) (m|°) in (.+?)\. The VRT points at the source files: keep them where they are, or convert it \(cog_convert\) to share it\.$/.exec(s);
    if (!m) return undefined;
    const what = m[1] ? `${m[1]} 幅栅格的镶嵌` : `${m[2]} 幅栅格叠加为 ${m[3]} 个波段`;
    return `${what}：${m[4]}×${m[5]} 像元，像元大小 ${m[6]} ${m[7] === 'm' ? '米' : '°'}，坐标系 ${m[8]}。VRT 只引用源文件：请保持源文件位置不变，或用 cog_convert 转换后再分享。`;
  }],
  median_composite: [(s) => {
    const m = new RegExp(String.raw`^Median of (\d+) scenes over (\d+) bands?: each pixel has on average ${N} clear observations(?: after skipping (\d+) flagged ones)?; (?:(every pixel has at least one)|${P} of the pixels have none and are nodata, ${WHERE})\.$`).exec(s);
    if (!m) return undefined;
    const w = m[5] ? '' : whereZh(m[7]);
    if (w === undefined) return undefined;
    return `中值合成：${m[1]} 景影像、${m[2]} 个波段；每个像元平均有 ${m[3]} 次晴空观测${m[4] ? `（已跳过 ${m[4]} 次被标记的观测）` : ''}；`
      + (m[5] ? '每个像元至少有一次观测。' : `${m[6]} 的像元没有观测，设为 nodata，${w}。`);
  }],
  random_forest_classify: [(s) => {
    const m = new RegExp(String.raw`^A random forest of (\d+) trees over (\d+) bands?, trained on (\d+) pixels of (\d+) classes \(out-of-bag accuracy (${P.slice(1, -1)}|n/a)\), maps (.+?) as the largest class with ${P} of the valid pixels \(${AREA}\), ${WHERE}\.(?: (.+))?$`).exec(s);
    const w = m && whereZh(m[9]);
    const note = m && withNote(m[10]);
    if (!m || !w || note === undefined || note === null) return undefined;
    return `随机森林（${m[1]} 棵树，${m[2]} 个波段，用 ${m[4]} 个类别的 ${m[3]} 个像元训练，袋外精度 ${m[5]}）：面积最大的类别是 ${classZh(m[6])}，占有效像元的 ${m[7]}（${m[8]}），${w}。${note}`;
  }],
  accuracy_assessment: [(s) => {
    const m = new RegExp(String.raw`^Against (\d+) reference (points|pixels) the map is ${P} correct \(kappa ${N}\)(?:; the weakest class is (.+?), of which ${P} is mapped right \(user's accuracy (${P.slice(1, -1)}|n/a)\))?\.(?: (\d+) samples fall on unclassified \(nodata\) pixels and are left out\.)?(?: (\d+) reference (points|polygons) lie off the map\.)?$`).exec(s);
    if (!m) return undefined;
    const unit = (k: string) => (k === 'points' ? '个参考点' : k === 'pixels' ? '个参考像元' : '个参考多边形');
    return `精度评价：对照 ${m[1]} ${unit(m[2])}，分类图总体精度 ${m[3]}（kappa ${m[4]}）`
      + (m[5] ? `；最弱的类别是 ${classZh(m[5])}，其生产者精度 ${m[6]}（用户精度 ${m[7]}）` : '') + '。'
      + (m[8] ? `${m[8]} 个样本落在未分类（nodata）像元上，未计入。` : '')
      + (m[9] ? `${m[9]} ${unit(m[10])}位于分类图范围之外。` : '');
  }],
  stac_search: [(s) => {
    let m = new RegExp(String.raw`^(\d+) items? of (\d+) (in|returned by) (.+?) match(?:es)?(?: \(the first (\d+) kept\))?, from (\S+) to (\S+?)(?:, cloud cover ${N}–${N}%)?(?:; the clearest is (\S+) \((\S+), ${N}%\))?\.(.*)$`).exec(s);
    let head: string, rest: string;
    if (m) {
      head = `${m[4]} ${m[3] === 'in' ? '中' : '返回'}的 ${m[2]} 个条目中有 ${m[1]} 个符合条件${m[5] ? `（保留前 ${m[5]} 个）` : ''}，时间从 ${m[6]} 到 ${m[7]}`
        + (m[8] ? `，云量 ${m[8]}–${m[9]}%` : '') + (m[10] ? `；云量最少的是 ${m[10]}（${m[11]}，${m[12]}%）` : '') + '。';
      rest = m[13];
    } else {
      m = /^No item of the (\d+) (in|returned by) (.+?) matches the search; widen the dates, the area or max_cloud\.(.*)$/.exec(s);
      if (!m) return undefined;
      head = `${m[3]} ${m[2] === 'in' ? '中' : '返回'}的 ${m[1]} 个条目都不符合检索条件；请放宽日期、范围或 max_cloud。`;
      rest = m[4];
    }
    const tails: [RegExp, (x: RegExpExecArray) => string][] = [
      [/^ (\d+) assets? (?:are|is) local files?(?: \((\d+) missing on disk\))?\./, (x) => `其中 ${x[1]} 个资产是本地文件${x[2] ? `（${x[2]} 个在磁盘上缺失）` : ''}。`],
      [/^ (\d+) links? to (?:a )?remote catalog files? (?:were|was) not followed\./, (x) => `未跟随 ${x[1]} 个指向远程目录文件的链接。`],
      [/^ The API's next page is on another server \((\S+)\) and was not fetched; later items may be missing\./, (x) => `API 的下一页位于另一台服务器（${x[1]}），未获取；后续条目可能缺失。`],
      [/^ (\d+) linked files? (?:were|was) unreadable \(first: (.+?)\)\./, (x) => `${x[1]} 个链接文件无法读取（第一个：${x[2]}）。`],
    ];
    let out = head;
    for (const [re, zh] of tails) {
      const t = re.exec(rest);
      if (t) { out += zh(t); rest = rest.slice(t[0].length); }
    }
    return rest ? undefined : out;
  }],
};
