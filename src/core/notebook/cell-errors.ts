/** Run errors as a notebook cell shows them: what to add to the cell, in cell syntax (`nir: 4`), not
 *  the command line's `--arg nir=4`. */
import * as path from 'path';
import type { BandRoleError } from '../raster/bands';
import { SENSOR_PRESETS as SENSORS } from './vocabulary';
import type { SummaryLanguage } from '../results/summary-language';

/** By name rather than `instanceof`: this module stays free of the raster engine (geotiff), which
 *  the extension loads only when a cell runs. */
function isBandRoleError(e: unknown): e is BandRoleError {
  return e instanceof Error && e.name === 'BandRoleError' && typeof (e as BandRoleError).role === 'string';
}

const ROLE_NAME: Record<string, string> = { nir: 'NIR', swir1: 'SWIR1', swir2: 'SWIR2', qa: 'QA', rededge: 'red edge' };

function roleName(r: string): string {
  return ROLE_NAME[r] ?? r;
}

function line(name: string, value: string | number): string {
  return `a line \`${name}: ${value}\``;
}

function bandRoleMessageZh(e: BandRoleError): string {
  const file = path.basename(e.file);
  const what = e.undescribed ? `${e.bandCount} 个波段，均无描述` : `${e.bandCount} 个波段，没有一个描述为 ${roleName(e.role)}`;
  const guessed = Object.entries(e.guessed);
  const sensors = `如果它是 ${SENSORS.join(', ')} 之一，也可以加一行 \`sensor: …\``;
  if (!guessed.length || !e.guess) {
    return `${file} 缺少波段角色 "${e.role}"（${what}）：请在单元格中加一行 \`${e.role}: <波段序号>\`；${sensors}`;
  }
  const lines = guessed.map(([r, b]) => `\`${r}: ${b}\``).join('、');
  const which = guessed.map(([r, b]) => `${roleName(r)} 是第 ${b} 波段`).join('，');
  return `${file} 缺少波段角色 "${e.role}"（${what}）：请在单元格中加上 ${lines} 这几行。` +
    `推测：该文件看起来像 ${e.guess.label}（${e.guess.why}），其中 ${which}；${sensors}。`;
}

function bandRoleMessage(e: BandRoleError): string {
  const file = path.basename(e.file);
  const what = e.undescribed ? `${e.bandCount} bands, none described` : `${e.bandCount} bands, none described as ${roleName(e.role)}`;
  const guessed = Object.entries(e.guessed);
  const sensors = `or a line \`sensor: …\` if it is one of ${SENSORS.join(', ')}`;
  if (!guessed.length || !e.guess) {
    return `missing band role "${e.role}" in ${file} (${what}): add ${line(e.role, '<band number>')} to the cell, ${sensors}`;
  }
  const lines = guessed.map(([r, b]) => line(r, b)).join(' and ');
  const which = guessed.map(([r, b]) => `${roleName(r)} is band ${b}`).join(', ');
  return `missing band role "${e.role}" in ${file} (${what}): add ${lines} to the cell. ` +
    `A guess: the file looks like ${e.guess.label} (${e.guess.why}), where ${which}; ${sensors}.`;
}

/** The message a failed cell shows for `e`. In Chinese the fixed parts are Chinese; what a tool
 *  says about its own arguments beyond them stays as the tool wrote it. */
export function cellErrorMessage(e: unknown, lang: SummaryLanguage = 'en'): string {
  if (isBandRoleError(e)) return lang === 'zh' ? bandRoleMessageZh(e) : bandRoleMessage(e);
  const message = e instanceof Error ? e.message : String(e);
  // Any other hint in command-line syntax: "pass --arg k=v" → "add a line `k: v`".
  const en = message
    .replace(/--arg ([\w.]+)=(<[^>]*>|[^\s),;]+)/g, (_m, k: string, v: string) => line(k, v))
    .replace(/\bpass (a line `)/g, 'add $1');
  return lang === 'zh' ? errorZh(en) : en;
}

/** The fixed phrases of run errors (tool prefixes, argument names, cell-syntax hints) in Chinese. */
function errorZh(text: string): string {
  return text
    .replace(/\b(?:add|pass) ((?:a line `[^`]*`(?:,? and |, )?)+)(?: to the cell)?/g, (_m, lines: string) =>
      `在单元格中加上 ${[...lines.matchAll(/`[^`]*`/g)].map((x) => x[0]).join('、')}`)
    .replace(/\ba line (`[^`]*`)/g, '一行 $1')
    .replace(/\bargument "([^"]+)" is required\b/g, '缺少必需的参数 "$1"')
    .replace(/\bunknown argument "([^"]+)"/g, '未知参数 "$1"')
    .replace(/; did you mean "([^"]+)"\?/g, '；是否想写 "$1"？')
    .replace(/\bargument "([^"]+)"(: ?| must| has| does)/g, (_m, a: string, rest: string) => `参数 "${a}"${rest.startsWith(':') ? '：' : rest}`)
    .replace(/\bgrids do not match: /g, '网格不一致：')
    .replace(/\bdoes not exist\b/g, '不存在')
    .replace(/\bmatches no file\b/g, '没有匹配的文件')
    .replace(/^all (\d+) inputs failed:/, '全部 $1 个输入都失败了：');
}

/** Lines to add to a cell for a band-role error: `nir: 4` for every guessed role (empty without a guess). */
export function bandLines(e: unknown): string[] {
  return isBandRoleError(e) ? Object.entries(e.guessed).map(([r, b]) => `${r}: ${b}`) : [];
}
