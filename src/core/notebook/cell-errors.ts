/** Run errors as a notebook cell shows them: what to add to the cell, in cell syntax (`nir: 4`), not
 *  the command line's `--arg nir=4`. */
import * as path from 'path';
import type { BandRoleError } from '../raster/bands';
import { SENSOR_PRESETS as SENSORS } from './vocabulary';
import type { SummaryLanguage } from '../results/summary-language';
import { kindWord } from './language-words';
import { guessLabel, whyZh } from './diagnostic-words';

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
    `推测：该文件看起来像 ${guessLabel(e.guess, 'zh')}（${whyZh(e.guess.why)}），其中 ${which}；${sensors}。`;
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

/** A tool parameter's description in Chinese (its manifest's `description_zh`), when the catalog
 *  has one: the engine describes a missing argument in English from the tool's code. */
export type ParamDescriptionZh = (tool: string, param: string) => string | undefined;

/** The message a failed cell shows for `e`. In Chinese the fixed parts are Chinese, and a missing
 *  argument is described by `paramZh` when it knows it; what a tool says about its own arguments
 *  beyond them stays as the tool wrote it. */
export function cellErrorMessage(e: unknown, lang: SummaryLanguage = 'en', paramZh?: ParamDescriptionZh): string {
  if (isBandRoleError(e)) return lang === 'zh' ? bandRoleMessageZh(e) : bandRoleMessage(e);
  const message = e instanceof Error ? e.message : String(e);
  // Any other hint in command-line syntax: "pass --arg k=v" → "add a line `k: v`".
  const en = message
    .replace(/--arg ([\w.]+)=(<[^>]*>|[^\s),;]+)/g, (_m, k: string, v: string) => line(k, v))
    .replace(/\bpass (a line `)/g, 'add $1');
  return lang === 'zh' ? errorZh(en, paramZh) : en;
}

/** What the engine's argument parsing says about a value (raster/engine.ts coerceArg): the
 *  sentence after `argument "name"`, up to ", got <value>". Lists, roles, extensions and the
 *  examples in it are copied. */
const ARG_WHAT: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^must be (an integer|a number) between (\S+) and (\S+)$/, (m) => `必须是介于 ${m[2]} 与 ${m[3]} 之间的${m[1] === 'an integer' ? '整数' : '数值'}`],
  [/^must be (an integer|a number) at least (\S+)$/, (m) => `必须是不小于 ${m[2]} 的${m[1] === 'an integer' ? '整数' : '数值'}`],
  [/^must be (an integer|a number) at most (\S+)$/, (m) => `必须是不大于 ${m[2]} 的${m[1] === 'an integer' ? '整数' : '数值'}`],
  [/^must be a number$/, () => '必须是数值'],
  [/^must be an integer$/, () => '必须是整数'],
  [/^must be true or false$/, () => '必须是 true 或 false'],
  [/^must be a string$/, () => '必须是字符串'],
  [/^must be one of (.+)$/, (m) => `必须是以下之一：${m[1]}`],
  [/^must be a path or URL$/, () => '必须是路径或 URL'],
  [/^must be a 1-based band index or a role name$/, () => '必须是从 1 开始的波段序号或波段角色名'],
  [/^must be a 1-based band index \((.+)\)$/, (m) => `必须是从 1 开始的波段序号（${m[1]}）`],
  [/^is not valid JSON \((.+)\)$/, (m) => `不是有效的 JSON（${m[1]}）`],
  [/^must be a raster path or URL$/, () => '必须是栅格文件路径或 URL'],
  [/^must be one raster file or URL \((\S+) does not take a \{role: path\} mapping\)$/, (m) => `必须是单个栅格文件或 URL（${m[1]} 不接受 {角色: 路径} 映射）`],
  [/^maps the unknown band role (".*?"); roles are (.+)$/, (m) => `映射了未知的波段角色 ${m[1]}；可用的角色：${m[2]}`],
  [/^maps role "(.+)" to something that is not a path$/, (m) => `将角色 "${m[1]}" 映射到的不是路径`],
  [/^is an empty mapping$/, () => '是空映射'],
  [/^must be a raster path, URL or \{role: path\} mapping$/, () => '必须是栅格路径、URL 或 {角色: 路径} 映射'],
  [/^must be a list of rasters$/, () => '必须是栅格列表'],
  [/^is an empty list$/, () => '是空列表'],
  [/^must contain paths$/, () => '必须由路径组成'],
  [/^must be a GeoJSON, Shapefile \(\.shp\), GeoPackage \(\.gpkg\) or KML \(\.kml\) path$/, () => '必须是 GeoJSON、Shapefile（.shp）、GeoPackage（.gpkg）或 KML（.kml）路径'],
  [/^must be a GeoJSON \(\.geojson\), Shapefile \(\.shp\), GeoPackage \(\.gpkg, or "(.+)"\) or KML \(\.kml\) path$/, (m) => `必须是 GeoJSON（.geojson）、Shapefile（.shp）、GeoPackage（.gpkg，或 "${m[1]}"）或 KML（.kml）路径`],
  [/^is a (.+) file, which GeoWeave does not read; convert it with (.+?) \(or (.+)\) and give (\S+)$/, (m) => `是 ${m[1]} 文件，GeoWeave 无法读取；请用 ${m[2]}（或 ${m[3]}）转换，然后使用 ${m[4]}`],
  [/^must be a class raster or a polygon file \((.+)\)$/, (m) => `必须是分类栅格或多边形文件（${m[1]}）`],
  [/^must be an EPSG code \((.+)\), a proj4 string or WKT$/, (m) => `必须是 EPSG 代码（${m[1]}）、proj4 字符串或 WKT`],
  [/^must be a list of numbers like (.+)$/, (m) => `必须是数值列表，如 ${m[1]}`],
  [/^must be a list like (.+)$/, (m) => `必须是列表，如 ${m[1]}`],
  [/^must be minx,miny,maxx,maxy$/, () => '必须是 minx,miny,maxx,maxy'],
  [/^must have 4 numbers: (.+)$/, (m) => `必须是 4 个数：${m[1]}`],
  [/^must satisfy minx < maxx and miny < maxy$/, () => '必须满足 minx < maxx 且 miny < maxy'],
];

function argWhatZh(what: string): string | undefined {
  for (const [re, zh] of ARG_WHAT) {
    const m = re.exec(what);
    if (m) return zh(m);
  }
  return undefined;
}

/** Input errors of the raster reader and band resolution (io/dataset.ts, bands.ts), after the file. */
const INPUT: [RegExp, string | ((...m: string[]) => string)][] = [
  [/: file not found\b/g, '：文件不存在'],
  [/: not a file\b/g, '：不是文件'],
  [/: not a TIFF \(only (\d+) bytes\)/g, (_m, n) => `：不是 TIFF 文件（只有 ${n} 字节）`],
  [/: not a TIFF file \((.+?)\)(?=$|;)/g, (_m, w) => `：不是 TIFF 文件（${w}）`],
  [/: not a readable TIFF \((.+?)\)(?=$|;)/g, (_m, w) => `：无法读取的 TIFF（${w}）`],
  [/: not a readable JPEG 2000 file \((.+?)\)(?=$|;)/g, (_m, w) => `：无法读取的 JPEG 2000 文件（${w}）`],
  [/: it has (\d+) bands, and GeoWeave reads JPEG 2000 files of one band or three; convert it with (.+)$/g, (_m, n, c) => `：它有 ${n} 个波段，GeoWeave 只读取单波段或三波段的 JPEG 2000 文件；请先转换：${c}`],
  [/: cannot open \((.+?)\)(?=$|;)/g, (_m, w) => `：无法打开（${w}）`],
  [/\bband (\d+) is out of range for (.+?) \((\d+) bands?: (.+)\)$/g, (_m, b, f, n, d) => `第 ${b} 波段超出 ${f} 的范围（共 ${n} 个波段：${d}）`],
  [/\bno band named "(.+?)" in (.+?) \((\d+) bands?: (.+?)\); (?:add|pass) /g, (_m, b, f, n, d) => `${f} 中没有名为 "${b}" 的波段（共 ${n} 个波段：${d}）；请用从 1 开始的序号，`],
  [/\bunknown sensor "(.+?)"; use one of (.+)$/g, (_m, v, l) => `未知的传感器 "${v}"；可用：${l}`],
  // bands.ts assertOneGrid: a product folder whose band files for a tool sit at different resolutions.
  [/\bthe band files of (.+?) are not on one grid \((.+?)\) and no one resolution holds (.+?): put the product's (\S+) m files of (.+?) beside them \(a SAFE's (R\d+m) folder holds them\), or align onto the (\S+) m grid \((.+?), resampling=bilinear\) and give the bands as files instead of image: /g,
    (_m, f, parts, roles, n, which, r, fine, aligns) => `${f} 的波段文件不在同一网格上（${parts.replace(/ at (\S+) m\b/g, '，$1 m')}），也没有哪一种分辨率同时具备 ${roles}：请把该产品 ${n} m 的 ${which} 文件放在旁边（SAFE 的 ${r} 文件夹里就有），或者先对齐到 ${fine} m 网格（${aligns}，resampling=bilinear），再去掉 image，把各波段作为文件给出：`],
  // bands.ts assertOneUnit: band files of which one is scaled to reflectance by its name and another is not.
  [/\bthe bands are not in one unit: (\S+) \((.+?)\) is read as (.+?) reflectance by its file name, (.+?) as the raw values (?:it holds|they hold), which are not reflectance \(above 2\), and an index of the two would be wrong; (?:add|pass) a line `sensor: (\S+)` to read every band as (.+?) DNs, or give bands that are all reflectance/g,
    (_m, r, f, s, others, sensor, s2) => `各波段的单位不一致：${r}（${f}）按文件名读作 ${s} 反射率，${others} 则按原始数值读取（大于 2，不是反射率），二者算出的指数是错的；请在单元格中加一行 \`sensor: ${sensor}\`，把所有波段都按 ${s2} 的 DN 读取，或者给出全部为反射率的波段`],
  [/\bthe mapping has no file for band role "(.+?)" \(it has (.+?)\); add "(.+?)": "<file\.tif>"/g, (_m, r, h, r2) => `映射中没有波段角色 "${r}" 的文件（只有 ${h === 'nothing' ? '空' : h}）；请加上 "${r2}": "<file.tif>"`],
];

/** The fixed phrases of run errors (tool prefixes, argument names, cell-syntax hints) in Chinese. */
function errorZh(text: string, paramZh?: ParamDescriptionZh): string {
  // The engine's argument checks, whole: "ndvi: argument "red" must be …, got 0".
  let out = text.replace(/\bargument "([^"]+)" (.+?), got (.+)$/, (all, a: string, what: string, got: string) => {
    const zh = argWhatZh(what);
    return zh ? `参数 "${a}" ${zh}，实际为 ${got}` : all;
  });
  // "ndvi: unknown argument "rde"; ndvi takes image, sensor, nir, red; did you mean "red"?"
  out = out.replace(/\bunknown argument ("[^"]*"|\S+); (\S+) takes ([^;]+)/, (_m, a: string, t: string, list: string) => `未知参数 ${a.startsWith('"') ? a : `"${a}"`}；${t} 可用的参数：${list}`);
  // "zonal_stats: missing required argument "zones" (zones: <the tool's own description>); add a line `zones: ...`":
  // the description from the tool's manifest in Chinese when it has one, else as the tool wrote it.
  out = out.replace(/\b(?:([\w.-]+): )?missing required argument "([^"]+)" \((\w+)(?:: (.*))?\); ?/, (_m, tool: string | undefined, a: string, kind: string, desc?: string) => {
    const zh = tool ? paramZh?.(tool, a) : undefined;
    const text = zh ?? desc;
    return `${tool ? `${tool}: ` : ''}缺少必需的参数 "${a}"（${kindWord(kind, 'zh')}${text ? `：${text}` : ''}）；`;
  });
  out = out.replace(/^unknown tool "([^"]+)"(?: \(did you mean (.+?)\?\))?; builtin tools: /, (_m, t: string, near?: string) => `未知工具 "${t}"${near ? `（是否想写 ${near}？）` : ''}；内置工具：`);
  for (const [re, zh] of INPUT) out = out.replace(re, zh as (substring: string, ...args: string[]) => string);
  return out
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
