/** Reasons ("why it fits"), readiness notes and suggestion headings in the summary language.
 *
 *  Retrieval writes its reasons in English from fixed phrases (forward.ts, backward.ts,
 *  executability.ts). As with run summaries (src/core/results/summary-language.ts), the Chinese
 *  version rewrites each phrase; what comes from the data or the catalog (file names, the
 *  analyst's words, tool names, band numbers, manifest descriptions) is copied as it is. A clause
 *  no phrase matches stays English. */
import type { SummaryLanguage } from '../results/summary-language';
import type { Rationale } from './types';

/** The heading of each group of complementary suggestions. */
export const RATIONALE_LABELS: Record<SummaryLanguage, Record<Rationale, string>> = {
  en: { explain: 'explain', quantify: 'quantify', verify: 'verify', compare: 'compare', extend: 'extend' },
  zh: { explain: '解释', quantify: '量化', verify: '验证', compare: '比较', extend: '延伸' },
};

/** Role labels of executability.ts (roleLabel) and the nouns of backward.ts. */
const ROLES: Record<string, string> = {
  'a QA band': 'QA 波段', 'a DEM': 'DEM', 'SAR backscatter': 'SAR 后向散射', 'red edge': '红边', 'a class map': '分类图',
  'a mask': '掩膜', 'an index raster': '指数栅格', red: '红光', green: '绿光', blue: '蓝光', thermal: '热红外', pan: '全色',
  'a raster': '栅格', 'a vector': '矢量', 'a table': '表格', 'a string': '字符串', 'a number': '数值', 'an array': '数组',
  'class map': '分类图', mask: '掩膜', 'patch labels': '斑块标签', 'dNBR raster': 'dNBR 栅格', 'change mask': '变化掩膜',
  'difference raster': '差值栅格', output: '输出', result: '结果', index: '指数', 'index raster': '指数栅格',
};

const role = (r: string) => ROLES[r] ?? r;
/** "需要" + roles, with a space before Latin ("需要 QA 波段", "需要红光"). */
const needs = (text: string) => { const r = roles(text); return /^[A-Za-z]/.test(r) ? ` ${r}` : r; };
/** "red, NIR + a mask or a class map" → "红光、NIR + 掩膜或分类图". */
const roles = (text: string) => text.split(/( \+ |, | or )/).map((x) => (x === ', ' ? '、' : x === ' or ' ? '或' : x === ' + ' ? ' + ' : role(x))).join('');
const list = (text: string) => text.split(', ').join('、');
const quoted = (text: string) => text.split('", "').join('”“');

/** "s2_scene.tif (the task's "城市")", "(named in the task)", "(from ndvi)". */
function itemZh(text: string): string {
  return text
    .replace(/ \(the task's "(.+)"\)/, (_m, w: string) => `（任务中的“${quoted(w)}”）`)
    .replace(/ \(named in the task\)/, '（任务中点名的文件）')
    .replace(/ \(from ([\w.-]+)\)/, '（来自 $1）');
}

/** "your NDVI result" / "the class map from reclassify" / "a mask made from your NDVI result". */
function sourceZh(src: string): string {
  let m: RegExpExecArray | null;
  const out = (o: string) => o.replace(/\bresult$/, '结果').replace(/^result$/, '结果');
  if ((m = /^your (.+)$/.exec(src))) return `你的 ${out(m[1])}`;
  if ((m = /^the (.+?) from ([\w.-]+)$/.exec(src))) return `${m[2]} 生成的${role(m[1])}`;
  if ((m = /^an? (.+?) made from your (.+)$/.exec(src))) return `由你的 ${out(m[2])} 制作的${roles(m[1])}`;
  if ((m = /^an? (.+?) made first$/.exec(src))) return `需先制作的${roles(m[1])}`;
  return src;
}

type Phrase = [RegExp, (m: RegExpExecArray) => string];

/** One clause of a forward reason or a readiness note. */
const CLAUSES: Phrase[] = [
  [/^matches (.+)$/, (m) => `匹配 ${list(m[1])}`],
  [/^similar in meaning to the task$/, () => '与任务语义相近'],
  [/^proposed by the LLM for this task$/, () => '由 LLM 针对此任务提出'],
  [/^step of the (.+) workflow$/, (m) => `属于“${m[1]}”工作流的一步`],
  [/^chosen before for "(.+)"$/, (m) => `之前曾为“${quoted(m[1])}”选用`],
  [/^used in the flows of similar past tasks$/, () => '在相似的历史任务流程中用过'],
  [/^often followed by (.+)$/, (m) => `之后常接 ${list(m[1])}`],
  [/^often follows (.+)$/, (m) => `常在 ${m[1]} 之后运行`],
  [/^often runs before (.+)$/, (m) => `常在 ${m[1]} 之前运行`],
  [/^catalog only — no runner here$/, () => '仅在目录中，此处没有运行器'],
  [/^set (\S+) \((\w+)\) — no default$/, (m) => `请设置 ${m[1]}（${m[2]}）：没有默认值`],
  [/^needs (.+?) for (\S+) — none found$/, (m) => `${m[2]} 需要${needs(m[1])}：未找到`],
  [/^needs (.+?) for (\S+) — not in (.+), which the task names$/, (m) => `${m[2]} 需要${needs(m[1])}：任务点名的 ${m[3]} 中没有`],
  [/^needs the task's (.+?) for (\S+) — (.+?) holds sensor bands, not (.+): compute it first$/, (m) => `${m[2]} 需要任务中的 ${m[1]}：${m[3]} 是传感器波段，不是 ${m[4]}，请先计算`],
  [/^needs (.+?) — (found|guessed) in (.+?)(?: (bands?) ([\d, ]+))?$/, (m) => `需要${needs(m[1])}：${m[2] === 'found' ? '在' : '推测在'} ${itemZh(m[3])}${m[5] ? ` 的第 ${m[5]} 波段` : ''}${m[2] === 'found' ? '找到' : ''}`],
  [/^needs (.+?) — found (.+)$/, (m) => `需要${needs(m[1])}：已找到 ${itemZh(m[2])}`],
  // Conflicts between inputs (executability.ts conflicts()).
  [/^(.+?) and (.+?) do not overlap \(both (.+)\)$/, (m) => `${m[1]} 与 ${m[2]} 不重叠（均为 ${m[3]}）`],
  [/^(.+?) \((.+?), near (.+?)\) and (.+?) \((.+?), near (.+?)\) do not overlap$/, (m) => `${m[1]}（${m[2]}，位于 ${m[3]} 附近）与 ${m[4]}（${m[5]}，位于 ${m[6]} 附近）不重叠`],
  [/^(.+?) and (.+?) are not on the same grid \((.+)\): align (.+?) onto (.+?) first \((.+)\)$/, (m) => `${m[1]} 与 ${m[2]} 不在同一网格（${m[3]}）：请先将 ${m[4]} 对齐到 ${m[5]}（${m[6]}）`],
  [/^(.+?) has no band descriptions: (.+?) in (bands?) ([\d, ]+) is a guess \(looks like (.+?): (.+)\)$/, (m) => `${m[1]} 没有波段描述：${roles(m[2])}位于第 ${m[4]} 波段是推测（看起来像 ${m[5]}：${m[6]}）`],
  [/^([\w.]+): (.+)$/, (m) => `${m[1]}：${itemZh(m[2])}`],
];

/** The verbs of backward.ts reasonFor, after "<rationale>: <tool name> ". */
const BACKWARD: Phrase[] = [
  [/^(.+?) reads a stack of dates of your (.+), one raster per date — (.+)$/, (m) => `${m[1]} 读取你的 ${m[2]} 的多期影像（每期一个栅格）——${m[3]}`],
  [/^(.+?) gives (.+) — it starts from other data than your (.+)$/, (m) => `${m[1]} 给出 ${m[2]}——它基于其他数据，而不是你的 ${m[3].replace(/ ?result$/, ' 结果')}`],
  [/^(.+?) turns (.+?) into (.+), the input (.+) needs$/, (m) => `${m[1]} 将${sourceZh(m[2])}转为 ${m[3]}，即 ${m[4]} 所需的输入`],
  [/^(.+?) turns (.+?) into (.+)$/, (m) => `${m[1]} 将${sourceZh(m[2])}转为 ${m[3]}`],
  [/^(.+?) breaks (.+?) down by field or zone — (.+)$/, (m) => `${m[1]} 按地块或区域分解${sourceZh(m[2])}——${m[3]}`],
  [/^(.+?) puts (.+?) in context — (.+)$/, (m) => `${m[1]} 为${sourceZh(m[2])}提供背景——${m[3]}`],
  [/^(.+?) lets you look at (.+?) — (.+)$/, (m) => `${m[1]} 让你查看${sourceZh(m[2])}——${m[3]}`],
  [/^(.+?) checks (.+?) against reference data — (.+)$/, (m) => `${m[1]} 用参考数据检验${sourceZh(m[2])}——${m[3]}`],
  [/^(.+?) cleans up (.+?) — (.+)$/, (m) => `${m[1]} 清理${sourceZh(m[2])}——${m[3]}`],
  [/^(.+?) checks (.+?) — (.+)$/, (m) => `${m[1]} 检查${sourceZh(m[2])}——${m[3]}`],
  [/^(.+?) sets (.+?) against its multi-year baseline — (.+)$/, (m) => `${m[1]} 将${sourceZh(m[2])}与其多年基准比较——${m[3]}`],
  [/^(.+?) follows (.+?) across dates — (.+)$/, (m) => `${m[1]} 跟踪${sourceZh(m[2])}的多期变化——${m[3]}`],
  [/^(.+?) sets (.+?) against another date — (.+)$/, (m) => `${m[1]} 将${sourceZh(m[2])}与另一日期比较——${m[3]}`],
  [/^(.+?) takes (.+?) on to (.+?)(?: \(what came after (\S+) in most similar tasks\)| \(usually follows (\S+)\))?$/, (m) =>
    `${m[1]} 将${sourceZh(m[2])}继续加工为 ${m[3]}${m[4] ? `（多数相似任务在 ${m[4]} 之后用它）` : m[5] ? `（通常接在 ${m[5]} 之后）` : ''}`],
];

function phrase(text: string, phrases: Phrase[]): string | undefined {
  for (const [re, zh] of phrases) {
    const m = re.exec(text);
    if (m) return zh(m);
  }
  return undefined;
}

/** A readiness note or conflict ("needs red, NIR — found in s2_scene.tif bands 3, 5") in `lang`. */
export function localizeNote(note: string, lang: SummaryLanguage): string {
  return lang === 'en' ? note : phrase(note, CLAUSES) ?? note;
}

/** A reason line (forward "matches …; needs …" or backward "verify: … checks … — …") in `lang`. */
export function localizeReason(reason: string, lang: SummaryLanguage): string {
  if (lang === 'en' || !reason) return reason;
  const back = /^(explain|quantify|verify|compare|extend): (.+)$/.exec(reason);
  if (back) {
    const body = phrase(back[2], BACKWARD);
    if (body) return `${RATIONALE_LABELS.zh[back[1] as Rationale]}：${body}`;
  }
  return reason.split('; ').map((c) => phrase(c, CLAUSES) ?? c).join('；');
}
