/** The messages and quick-fix titles of tool-cell diagnostics, in the editor's language. Tool,
 *  argument, cell and file names and values are kept as written (they are what the cell says);
 *  the Chinese follows the wording of run errors (cell-errors.ts: 未知工具, 是否想写 …？). */
import type { SummaryLanguage } from '../results/summary-language';
import { kindWord } from './language-words';

export interface DiagnosticWords {
  unknownTool: (tool: string, near?: string) => string;
  changeTo: (name: string) => string;
  catalogOnly: (tool: string) => string;
  noArgument: (tool: string, arg: string, near: string | undefined, names: string[]) => string;
  /** `red: "purple" is not a band role …` and `; did you mean "x"?` after a value's problem. */
  valueProblem: (arg: string, problem: string, near?: string) => string;
  notOneOf: (value: string, options: readonly string[]) => string;
  bandIndex: string;
  notBandRole: (value: string, roles: string[]) => string;
  expectedNumber: (got: string) => string;
  expectedBoolean: string;
  expectedList: string;
  noCell: (arg: string, cell: string) => string;
  noOutput: (arg: string, cell: string, tool: string, output: string, outputs: string[]) => string;
  missing: (args: { name: string; kind: string }[]) => string;
  /** A scene without band descriptions: what it lacks, the lines to add and the guess behind them. */
  noBandDescriptions: string;
  notSayingWhich: (roles: string[]) => string;
  addGuessed: (file: string, what: string, lines: string[], label: string, why: string) => string;
  addGuessedTitle: (lines: string[], label: string) => string;
  addLines: (file: string, what: string, roles: string[]) => string;
}

const code = (l: string) => `\`${l}\``;

/** What a sensor guess rests on (raster/sensor-guess.ts: "6 bands of UInt8, values 18–148"). */
export function whyZh(why: string): string {
  return why.replace(/^(\d+) bands? of (\S+), values (.+)$/, '$1 个 $2 波段，数值 $3');
}

/** A guessed sensor's label in Chinese, by its id (sensor-guess.ts labels them in English). */
const GUESS_ZH: Record<string, string> = {
  rgb: 'RGB 照片（红、绿、蓝）',
  naip: 'NAIP（红、绿、蓝、近红外）',
  planetscope_4b: 'PlanetScope 四波段（蓝、绿、红、近红外）',
  landsat7_etm: 'Landsat 7 ETM+ 或 Landsat 4-5 TM',
  landsat89_oli: 'Landsat 8-9 OLI（SR_B1-SR_B7）',
  sentinel2_10_20m: 'Sentinel-2 的 10 m 和 20 m 波段（B2-B8A、B11、B12）',
  sentinel2_l2a: 'Sentinel-2 L2A（B1-B12）',
};

/** The label of a sensor guess in the language of the message. */
export function guessLabel(g: { sensor: string; label: string }, lang: SummaryLanguage | undefined): string {
  return lang === 'zh' ? GUESS_ZH[g.sensor] ?? g.label : g.label;
}

export const DIAGNOSTIC_WORDS: Record<SummaryLanguage, DiagnosticWords> = {
  en: {
    unknownTool: (t, near) => `unknown tool "${t}"${near ? `; did you mean "${near}"?` : ''}`,
    changeTo: (n) => `Change to "${n}"`,
    catalogOnly: (t) => `${t} is catalog-only: it has no runner, so this cell cannot run`,
    noArgument: (t, a, near, names) => `${t} has no argument "${a}"; ${near ? `did you mean "${near}"? Its arguments are` : 'its arguments are'} ${names.join(', ')}`,
    valueProblem: (a, p, near) => `${a}: ${p}${near ? `; did you mean "${near}"?` : ''}`,
    notOneOf: (v, o) => `"${v}" is not one of ${o.join(', ')}`,
    bandIndex: 'a band is a 1-based index or a role name',
    notBandRole: (v, roles) => `"${v}" is not a band role (${roles.join(', ')}) nor an index`,
    expectedNumber: (got) => `expected a number, got ${got}`,
    expectedBoolean: 'expected true or false',
    expectedList: 'expected a list, e.g. [a, b]',
    noCell: (a, c) => `${a}: no earlier cell is named "${c}"`,
    noOutput: (a, c, t, o, outs) => `${a}: cell "${c}" (${t}) has no output "${o}"; it has ${outs.join(', ')}`,
    missing: (args) => `missing required argument${args.length > 1 ? 's' : ''}: ${args.map((m) => `${m.name} (${m.kind})`).join(', ')}`,
    noBandDescriptions: 'has no band descriptions',
    notSayingWhich: (roles) => `does not say which band is ${roles.join(', ')}`,
    addGuessed: (f, what, lines, label, why) => `${f} ${what}: add ${lines.map((l) => `a line ${code(l)}`).join(' and ')} (a guess: it looks like ${label}, ${why}), or a line \`sensor: …\``,
    addGuessedTitle: (lines, label) => `Add ${lines.map(code).join(' and ')} (guessed ${label} bands)`,
    addLines: (f, what, roles) => `${f} ${what}: add ${roles.map((r) => `a line \`${r}: <band number>\``).join(' and ')}, or a line \`sensor: …\``,
  },
  zh: {
    unknownTool: (t, near) => `未知工具 "${t}"${near ? `；是否想写 "${near}"？` : ''}`,
    changeTo: (n) => `改为 "${n}"`,
    catalogOnly: (t) => `${t} 仅在目录中：没有运行器，此单元格无法运行`,
    noArgument: (t, a, near, names) => `${t} 没有参数 "${a}"；${near ? `是否想写 "${near}"？` : ''}${t} 可用的参数：${names.join(', ')}`,
    valueProblem: (a, p, near) => `${a}：${p}${near ? `；是否想写 "${near}"？` : ''}`,
    notOneOf: (v, o) => `"${v}" 不是 ${o.join(', ')} 之一`,
    bandIndex: '波段应为从 1 开始的序号或角色名',
    notBandRole: (v, roles) => `"${v}" 既不是波段角色（${roles.join(', ')}）也不是序号`,
    expectedNumber: (got) => `应为数值，实际为 ${got}`,
    expectedBoolean: '应为 true 或 false',
    expectedList: '应为列表，例如 [a, b]',
    noCell: (a, c) => `${a}：上方没有名为 "${c}" 的单元格`,
    noOutput: (a, c, t, o, outs) => `${a}：单元格 "${c}"（${t}）没有输出 "${o}"；它的输出有 ${outs.join(', ')}`,
    missing: (args) => `缺少必需的参数：${args.map((m) => `${m.name}（${kindWord(m.kind, 'zh')}）`).join('、')}`,
    noBandDescriptions: '没有波段描述',
    notSayingWhich: (roles) => `没有说明哪个波段是 ${roles.join(', ')}`,
    addGuessed: (f, what, lines, label, why) => `${f} ${what}：在单元格中加上 ${lines.map(code).join('、')}（推测：看起来像 ${label}，${whyZh(why)}），或加上一行 \`sensor: …\``,
    addGuessedTitle: (lines, label) => `加上 ${lines.map(code).join('、')}（按 ${label} 推测的波段）`,
    addLines: (f, what, roles) => `${f} ${what}：在单元格中加上 ${roles.map((r) => `\`${r}: <波段序号>\``).join('、')}，或加上一行 \`sensor: …\``,
  },
};
