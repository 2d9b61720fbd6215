/** Reasons ("why it fits"), readiness notes and suggestion headings in the summary language.
 *
 *  Retrieval writes its reasons in English from fixed phrases (forward.ts, backward.ts,
 *  executability.ts). As with run summaries (src/core/results/summary-language.ts), the Chinese
 *  version rewrites each phrase; what comes from the data (file names, the analyst's words, band
 *  numbers) is copied as it is. Tools are named by their manifest's `name_zh`, what they give by
 *  their output's `description_zh`, the tags a task matched by the tool's `tags_zh` and a workflow
 *  by its `name_zh` (display fields, see manifests/display.ts), when the caller passes the catalog;
 *  a catalog without them keeps the English words. A clause no phrase matches stays English. */
import type { SummaryLanguage } from '../results/summary-language';
import type { ToolManifest, WorkflowTemplate } from '../manifests/types';
import { displayName, tagDisplay, workflowDisplayName } from '../manifests/display';
import { humanName } from '../index/text';
import { productOutput } from './product';
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
/** Output nouns of backward.ts describeOutputs ("NDVI index", "dNBR raster", "slope", "table"). */
const NOUNS_ZH: Record<string, string> = {
  ...ROLES, severity: '严重程度分级', slope: '坡度', trend: '趋势', table: '表格', raster: '栅格', labels: '斑块标签', difference: '差值',
  composite: '合成影像', anomaly: '距平', classes: '分类图', aspect: '坡向', distance: '距离', lst: 'LST',
};
/** "NDVI index" → "NDVI 指数", "mask" → "掩膜", "" → "结果": the trailing noun translated, the indicator kept. */
function nounZh(text: string): string {
  if (!text) return '结果';
  if (NOUNS_ZH[text]) return NOUNS_ZH[text];
  const m = /^(.+?) ((?:[a-z]+ )?[a-z]+)$/.exec(text);
  if (m && NOUNS_ZH[m[2]]) return `${m[1]} ${NOUNS_ZH[m[2]]}`;
  const one = /^(.+) ([a-z]+)$/.exec(text);
  return one && NOUNS_ZH[one[2]] ? `${one[1]} ${NOUNS_ZH[one[2]]}` : text;
}
/** A space between Chinese and a following Latin word ("你的 NDVI 指数", "你的掩膜"). */
const sp = (t: string) => (/^[A-Za-z0-9]/.test(t) ? ` ${t}` : t);
/** A space after a name ending in Latin ("ndvi anomaly 给出", "分区统计给出", "快视图（PNG）给出"). */
const lead = (t: string) => (/[A-Za-z0-9)\]]$/.test(t) ? `${t} ` : t);
/** A name inside a Chinese sentence: spaced from it only where it is Latin at that end. */
const inline = (t: string) => lead(sp(t));
/** "NDVI result" → "NDVI 结果", "result"/"" → "结果", "NDVI index" → "NDVI 指数". */
const outZh = (o: string) => { const r = /^(.*?) ?\bresult$/.exec(o); return r ? (r[1] ? `${r[1]} 结果` : '结果') : nounZh(o); };
/** "需要" + roles, with a space before Latin ("需要 QA 波段", "需要红光"). */
const needs = (text: string) => { const r = roles(text); return /^[A-Za-z]/.test(r) ? ` ${r}` : r; };
/** "red, NIR + a mask or a class map" → "红光、NIR + 掩膜或分类图". */
const roles = (text: string) => text.split(/( \+ |, | or )/).map((x) => (x === ', ' ? '、' : x === ' or ' ? '或' : x === ' + ' ? ' + ' : role(x))).join('');
const quoted = (text: string) => text.split('", "').join('”“');

/** What a phrase needs besides its match: tools named in the reader's language. */
interface Ctx {
  /** A tool id or English tool name → its display name (the text itself when the catalog has none). */
  tool: (idOrName: string) => string;
  /** The English "what it gives" of the suggested tool → its output's `description_zh`, when known. */
  what: (english: string) => string;
  /** A matched tag (or task word) → the suggested tool's `tags_zh` for it, when it has one. */
  tag: (english: string) => string;
  /** A workflow's English name → its `name_zh`, when the workflow has one. */
  workflow: (english: string) => string;
}
const PLAIN: Ctx = { tool: (t) => t, what: (t) => t, tag: (t) => t, workflow: (t) => t };

/** "s2_scene.tif (the task's "城市")", "(named in the task)", "(from ndvi)". */
function itemZh(text: string, c: Ctx = PLAIN): string {
  return text
    .replace(/ \(the task's "(.+)"\)/, (_m, w: string) => `（任务中的“${quoted(w)}”）`)
    .replace(/ \(named in the task\)/, '（任务中点名的文件）')
    .replace(/ \(from ([\w.-]+)\)/, (_m, id: string) => `（来自${inline(c.tool(id))}）`.replace(' ）', '）'));
}

/** "your NDVI result" / "the class map from reclassify" / "a mask made from your NDVI result". */
function sourceZh(src: string, c: Ctx = PLAIN): string {
  let m: RegExpExecArray | null;
  if ((m = /^your (.*)$/.exec(src))) return `你的${inline(outZh(m[1]))}`;
  if ((m = /^the (.+?) from ([\w.-]+)$/.exec(src))) return `${lead(c.tool(m[2]))}生成的${inline(role(m[1]))}`;
  if ((m = /^an? (.+?) made from your (.*)$/.exec(src))) return `由你的${inline(outZh(m[2]))}制作的${inline(roles(m[1]))}`;
  if ((m = /^an? (.+?) made first$/.exec(src))) return `需先制作的${inline(roles(m[1]))}`;
  return src;
}

/** "a, b" of tool ids → "甲、乙" in display names. */
const toolList = (text: string, c: Ctx) => text.split(', ').map((t) => c.tool(t)).join('、');

type Phrase = [RegExp, (m: RegExpExecArray, c: Ctx) => string];

/** One clause of a forward reason or a readiness note. */
const CLAUSES: Phrase[] = [
  [/^matches (.+)$/, (m, c) => `匹配 ${m[1].split(', ').map(c.tag).join('、')}`],
  [/^similar in meaning to the task$/, () => '与任务语义相近'],
  [/^proposed by the LLM for this task$/, () => '由 LLM 针对此任务提出'],
  [/^step of the (.+) workflow$/, (m, c) => `属于“${c.workflow(m[1])}”工作流的一步`],
  [/^chosen before for "(.+)"$/, (m) => `之前曾为“${quoted(m[1])}”选用`],
  [/^chosen for "(.+)" in the practice flows$/, (m) => `练习流程中曾为“${quoted(m[1])}”选用`],
  [/^used in the flows of similar past tasks$/, () => '在相似的历史任务流程中用过'],
  [/^often followed by (.+)$/, (m, c) => `之后常接${sp(toolList(m[1], c))}`],
  [/^often follows (.+)$/, (m, c) => `常在${inline(c.tool(m[1]))}之后运行`],
  [/^often runs before (.+)$/, (m, c) => `常在${inline(c.tool(m[1]))}之前运行`],
  [/^catalog only — no runner here$/, () => '仅在目录中，此处没有运行器'],
  [/^needs the MCP server "(.+?)", which this workspace does not configure \(\.vscode\/mcp\.json\)$/, (m) => `需要 MCP 服务器“${m[1]}”，但此工作区没有配置它（.vscode/mcp.json）`],
  [/^(.+?) is deprecated by its service: it is kept for old flows and has a replacement$/, (m) => `${m[1]} 已被其服务弃用：仅为旧流程保留，另有替代工具`],
  [/^the service at (.+?) is sent the path of (.+?), not the file: only a service on this machine can read it$/, (m) => `发送给 ${m[1]} 服务的是 ${m[2]} 的路径而不是文件本身：只有本机上的服务能读取它`],
  [/^set (\S+) \((\w+)\) — no default$/, (m) => `请设置 ${m[1]}（${m[2]}）：没有默认值`],
  [/^needs (.+?) for (\S+) — none found$/, (m) => `${m[2]} 需要${needs(m[1])}：未找到`],
  [/^needs (.+?) for (\S+) — none found; (.+?) holds (.+): extract it first$/, (m) => `${m[2]} 需要${needs(m[1])}：未找到；压缩包 ${m[3]} 中有${m[4]}，请先解压`],
  [/^needs (.+?) for (\S+) — (.+?), which the task names, holds (.+): extract it first$/, (m) => `${m[2]} 需要${needs(m[1])}：任务点名的压缩包 ${m[3]} 中有${m[4]}，请先解压`],
  [/^needs (.+?) for (\S+) — (\S+), which the task names, is read over HTTP when a cell runs; readiness checks files in the workspace only: give it in the cell \((.+)\)$/, (m) => `${m[2]} 需要${needs(m[1])}：任务点名的 ${m[3]} 在单元格运行时通过 HTTP 读取；就绪检查只看工作区中的文件：请在单元格中给出（${m[4]}）`],
  [/^needs (.+?) for (\S+) — (.+?), which the task names, cannot be read: (.+)$/, (m) => `${m[2]} 需要${needs(m[1])}：任务点名的 ${m[3]} 无法读取：${m[4]}`],
  [/^needs (.+?) for (\S+) — (.+?), which the task names, is (.+?), which GeoWeave does not read yet: convert it first \((.+)\)$/, (m) => `${m[2]} 需要${needs(m[1])}：任务点名的 ${m[3]} 是 ${m[4]} 格式，GeoWeave 暂不能读取，请先转换（${m[5]}）`],
  [/^needs (.+?) for (\S+) — (.+?), which the task names, is not among the data found here(?:; did you mean (.+)\?)?$/, (m) => `${m[2]} 需要${needs(m[1])}：任务点名的 ${m[3]} 不在已找到的数据中${m[4] ? `；是否指 ${m[4]}？` : ''}`],
  [/^needs (.+?) for (\S+) — not in (.+), which the task names$/, (m) => `${m[2]} 需要${needs(m[1])}：任务点名的 ${m[3]} 中没有`],
  [/^needs the task's (.+?) for (\S+) — (.+?) holds sensor bands, not (.+): compute it first$/, (m) => `${m[2]} 需要任务中的 ${m[1]}：${m[3]} 是传感器波段，不是 ${m[4]}，请先计算`],
  [/^needs the task's (.+?) for (\S+) — (.+?) holds elevation, not (.+): compute it first$/, (m) => `${m[2]} 需要任务中的 ${m[1]}：${m[3]} 是高程，不是 ${m[4]}，请先计算`],
  // A product delivered a file per band (a .SAFE, a folder of band files): its files, named.
  [/^needs (.+?) — (found|guessed) in (.+?) files (.+)$/, (m, c) => `需要${needs(m[1])}：${m[2] === 'found' ? '在' : '推测在'} ${itemZh(m[3], c)} 的文件 ${m[4].split(', ').join('、')} 中${m[2] === 'found' ? '找到' : ''}`],
  [/^needs (.+?) — (found|guessed) in (.+?)(?: (bands?) ([\d, ]+))?$/, (m, c) => `需要${needs(m[1])}：${m[2] === 'found' ? '在' : '推测在'} ${itemZh(m[3], c)}${m[5] ? ` 的第 ${m[5]} 波段` : ''}${m[2] === 'found' ? '找到' : ''}`],
  [/^needs (.+?) — found (.+)$/, (m, c) => `需要${needs(m[1])}：已找到 ${itemZh(m[2], c)}`],
  [/^needs (.+?) — taken as such from (.+)$/, (m, c) => `需要${needs(m[1])}：按任务所述采用 ${itemZh(m[2], c)}`],
  [/^(\S+) holds (.+?): (\S+) is taken; name (\S+)#<variable> for another$/, (m) => `${m[1]} 含有变量 ${m[2]}：已采用 ${m[3]}；如需其他变量请写 ${m[4]}#<变量名>`],
  [/^(.+?) does not say what it holds: taken as (.+?) because the task names it; check that it is$/, (m) => `${m[1]} 未说明其内容：因任务点名而视作${needs(m[2])}，请确认`],
  // Conflicts between inputs (executability.ts conflicts()).
  [/^(.+?) and (.+?) do not overlap \(both (.+)\)$/, (m) => `${m[1]} 与 ${m[2]} 不重叠（均为 ${m[3]}）`],
  [/^(.+?) \((.+?), near (.+?)\) and (.+?) \((.+?), near (.+?)\) do not overlap$/, (m) => `${m[1]}（${m[2]}，位于 ${m[3]} 附近）与 ${m[4]}（${m[5]}，位于 ${m[6]} 附近）不重叠`],
  [/^(.+?) and (.+?) are not on the same grid \((.+)\): align (.+?) onto (.+?) first \((.+)\)$/, (m) => `${m[1]} 与 ${m[2]} 不在同一网格（${m[3]}）：请先将 ${m[4]} 对齐到 ${m[5]}（${m[6]}）`],
  [/^(.+?) has no band descriptions: (.+?) in (bands?) ([\d, ]+) is a guess \(looks like (.+?): (.+)\)$/, (m) => `${m[1]} 没有波段描述：${roles(m[2])}位于第 ${m[4]} 波段是推测（看起来像 ${m[5]}：${m[6]}）`],
  [/^([\w.]+): (.+)$/, (m, c) => `${m[1]}：${itemZh(m[2], c)}`],
];

/** The verbs of backward.ts reasonFor, after "<rationale>: <tool name> ". m[1] is the tool's name
 *  (already in the reader's language when the catalog was given), the last "what" its product. */
const BACKWARD: Phrase[] = [
  [/^(.+?) once more, on the next input — (\d+) % of the past flows with it ran it more than once$/, (m) => `${lead(m[1])}再运行一次，用于下一份输入——过去用过它的流程中有 ${m[2]}% 运行了不止一次`],
  [/^(.+?) once more, on the next input — past flows ran it again at this point$/, (m) => `${lead(m[1])}再运行一次，用于下一份输入——过去的流程在这一步再次运行了它`],
  [/^(.+?) reads a stack of dates of your (.+), one raster per date — (.+)$/, (m, c) => `${lead(m[1])}读取你的${inline(outZh(m[2]))}的多期影像（每期一个栅格）——${c.what(m[3])}`],
  [/^(.+?) gives (.+) — it starts from other data than your (.*)$/, (m, c) => `${lead(m[1])}给出${sp(c.what(m[2]))}——它基于其他数据，而不是你的${sp(outZh(m[3]))}`],
  [/^(.+?) turns (.+?) into (.+), the input (.+) needs$/, (m, c) => `${lead(m[1])}将${sourceZh(m[2], c)}转为${sp(c.what(m[3]))}，即${inline(c.tool(m[4]))}所需的输入`],
  [/^(.+?) turns (.+?) into (.+)$/, (m, c) => `${lead(m[1])}将${sourceZh(m[2], c)}转为${sp(c.what(m[3]))}`],
  [/^(.+?) breaks (.+?) down by field or zone — (.+)$/, (m, c) => `${lead(m[1])}按地块或区域分解${sourceZh(m[2], c)}——${c.what(m[3])}`],
  [/^(.+?) puts (.+?) in context — (.+)$/, (m, c) => `${lead(m[1])}为${sourceZh(m[2], c)}提供背景——${c.what(m[3])}`],
  [/^(.+?) lets you look at (.+?) — (.+)$/, (m, c) => `${lead(m[1])}让你查看${sourceZh(m[2], c)}——${c.what(m[3])}`],
  [/^(.+?) checks (.+?) against reference data — (.+)$/, (m, c) => `${lead(m[1])}用参考数据检验${sourceZh(m[2], c)}——${c.what(m[3])}`],
  [/^(.+?) cleans up (.+?) — (.+)$/, (m, c) => `${lead(m[1])}清理${sourceZh(m[2], c)}——${c.what(m[3])}`],
  [/^(.+?) checks (.+?) — (.+)$/, (m, c) => `${lead(m[1])}检查${sourceZh(m[2], c)}——${c.what(m[3])}`],
  [/^(.+?) sets (.+?) against its multi-year baseline — (.+)$/, (m, c) => `${lead(m[1])}将${sourceZh(m[2], c)}与其多年基准比较——${c.what(m[3])}`],
  [/^(.+?) follows (.+?) across dates — (.+)$/, (m, c) => `${lead(m[1])}跟踪${sourceZh(m[2], c)}的多期变化——${c.what(m[3])}`],
  [/^(.+?) sets (.+?) against another date — (.+)$/, (m, c) => `${lead(m[1])}将${sourceZh(m[2], c)}与另一日期比较——${c.what(m[3])}`],
  [/^(.+?) takes (.+?) on to (.+?)(?: \(what came after (\S+) in most similar tasks\)| \(usually follows (\S+)\))?$/, (m, c) =>
    `${lead(m[1])}将${sourceZh(m[2], c)}继续加工为${sp(c.what(m[3]))}${m[4] ? `（多数相似任务在${inline(c.tool(m[4]))}之后用它）` : m[5] ? `（通常接在${inline(c.tool(m[5]))}之后）` : ''}`],
];

function phrase(text: string, phrases: Phrase[], c: Ctx = PLAIN): string | undefined {
  for (const [re, zh] of phrases) {
    const m = re.exec(text);
    if (m) return zh(m, c);
  }
  return undefined;
}

/** The catalog as reasons name it: by id and by the lower-case English name backward.ts writes. */
interface Names { byId: Map<string, ToolManifest>; byName: Map<string, ToolManifest> }
const namesCache = new WeakMap<readonly ToolManifest[], Names>();
function namesOf(tools: readonly ToolManifest[]): Names {
  let n = namesCache.get(tools);
  if (!n) {
    n = { byId: new Map(), byName: new Map() };
    for (const m of tools) { n.byId.set(m.id, m); n.byName.set(humanName(m).toLowerCase(), m); }
    namesCache.set(tools, n);
  }
  return n;
}

/** The Chinese for what a tool gives (the output productOutput picks, as the English reason does); undefined when that output has no `description_zh` (the English phrase then stays). */
export function productZh(m: ToolManifest, rationale: Rationale): string | undefined {
  const o = productOutput(m, rationale);
  return typeof o?.description_zh === 'string' && o.description_zh.trim() ? o.description_zh.trim() : undefined;
}

/** A readiness note or conflict ("needs red, NIR — found in s2_scene.tif bands 3, 5") in `lang`;
 *  `tools` (the catalog) names the tools it mentions in `lang`. */
export function localizeNote(note: string, lang: SummaryLanguage, tools?: readonly ToolManifest[]): string {
  return lang === 'en' ? note : phrase(note, CLAUSES, ctxFor(tools)) ?? note;
}

/** The catalog's Chinese name of a tool, when it has one. */
const zhName = (m: ToolManifest) => { const n = displayName(m, 'zh'); return n !== humanName(m) ? n : undefined; };

/** Workflows as a reason names them (forward.ts: its name, else its id with spaces). */
type WorkflowNames = readonly Pick<WorkflowTemplate, 'id' | 'name' | 'name_zh'>[];

function ctxFor(tools: readonly ToolManifest[] | undefined, subject?: ToolManifest, rationale?: Rationale, workflows?: WorkflowNames): Ctx {
  const flow = (t: string) => { const w = workflows?.find((x) => workflowDisplayName(x, 'en') === t); return w ? workflowDisplayName(w, 'zh') : t; };
  if (!tools) return { ...PLAIN, workflow: flow };
  const n = namesOf(tools);
  const what = subject && rationale ? productZh(subject, rationale) : undefined;
  return {
    // A tool without a Chinese name stays as the reason wrote it (its id or lower-case English name).
    tool: (t) => { const m = n.byId.get(t) ?? n.byName.get(t.toLowerCase()); return m && zhName(m) ? zhName(m)! : t; },
    what: (t) => what ?? t,
    // Matched tags are the suggested tool's own; a task word that is no tag stays as the analyst wrote it.
    tag: (t) => (subject ? tagDisplay(subject, t, 'zh') : undefined) ?? t,
    workflow: flow,
  };
}

/**
 * A reason line (forward "matches …; needs …" or backward "verify: … checks … — …") in `lang`.
 * With the catalog (`tools`) and the suggested tool's id (`toolId`), the tools it names, what the
 * suggested tool gives and the tags it matched are in `lang` too, from the manifests' display
 * fields; with `workflows`, the workflow it is a step of.
 */
export function localizeReason(reason: string, lang: SummaryLanguage, tools?: readonly ToolManifest[], toolId?: string, workflows?: WorkflowNames): string {
  if (lang === 'en' || !reason) return reason;
  const back = /^(explain|quantify|verify|compare|extend): (.+)$/.exec(reason);
  if (back) {
    const rationale = back[1] as Rationale;
    let text = back[2];
    // The reason starts with the tool's English name (backward.ts humanName, lower case): put its
    // display name there before the verbs are matched, so a name holding a verb cannot mislead them.
    const subject = tools && toolId ? namesOf(tools).byId.get(toolId) : undefined;
    const english = subject ? humanName(subject).toLowerCase() : '';
    const c = ctxFor(tools, subject, rationale);
    let body: string | undefined;
    if (subject && zhName(subject) && text.startsWith(`${english} `)) {
      text = `\u0000 ${text.slice(english.length + 1)}`;
      body = phrase(text, BACKWARD, c)?.replace('\u0000', () => lead(zhName(subject)!));
    } else body = phrase(text, BACKWARD, c);
    if (body) return `${RATIONALE_LABELS.zh[rationale]}：${body}`;
  }
  const c = ctxFor(tools, tools && toolId ? namesOf(tools).byId.get(toolId) : undefined, undefined, workflows);
  return reason.split('; ').map((x) => phrase(x, CLAUSES, c) ?? x).join('；');
}
