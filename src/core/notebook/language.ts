/** Completion, hover and diagnostics for tool cells, computed from the manifests and the engine's
 *  argument specs. Pure: the VS Code layer only converts positions and kinds. */
import type { ToolManifest } from '../manifests/types';
import type { SummaryLanguage } from '../results/summary-language';
import { displayName, toolDescription } from '../manifests/display';
import { argDetail, EDITOR_WORDS, kindWord } from './language-words';
import { DIAGNOSTIC_WORDS, guessLabel, type DiagnosticWords } from './diagnostic-words';
import type { ToolParamSpec } from '../raster/tools/types';
import type { ArgValue, CellProblem, TextRange } from './types';
import type { DataItem } from '../retrieval/types';
import { aliasOf, closestName } from '../raster/arg-aliases';
import { RASTER_FILE } from '../raster/raster-files';
import { isReference, referencesIn } from './cell-value';
import { parseToolCell } from './tool-cell';
import { VECTOR_FILE } from '../raster/vector/formats';
import { chosenByRunner } from '../manifests/foreign-fields';

/** Everything the language features know about: tools, data and earlier cells. */
export interface LanguageCatalog {
  tools: ToolManifest[];
  /** The raster engine's argument spec for builtin tools. */
  spec?: (toolId: string) => Record<string, ToolParamSpec> | undefined;
  bandRoles: string[];
  sensors: string[];
  /** Data files in the workspace, workspace-relative. */
  files: string[];
  /** Tool cells above the current one with the outputs they have (or will have). */
  earlier: { name: string; tool: string; outputs: { name: string; type?: string; description?: string }[] }[];
  /** Workspace files as described for readiness (band roles, a guessed sensor), when known. */
  data?: DataItem[];
  /** The editor's language: with 'zh', hovers, completions and diagnostics use Chinese words and
   *  kinds, and the tool names and descriptions the manifests give (`name_zh`, `description_zh`,
   *  inputs' `description_zh`). */
  lang?: SummaryLanguage;
}

/** Band roles of a scene (what `nir: 4` lines name). */
const SPECTRAL_ROLES = new Set(['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2', 'thermal', 'qa', 'coastal']);

/** One argument of a tool as the editor presents it. */
export interface ArgInfo {
  name: string;
  /** The engine's kind (band, raster, number, ...) when known, else the manifest type. */
  kind: string;
  /** The manifest's parameter type (raster, vector, ...). */
  type?: string;
  required: boolean;
  default?: unknown;
  description?: string;
  enum?: readonly string[];
}

export type CompletionKind = 'tool' | 'argument' | 'value' | 'file' | 'reference' | 'role' | 'sensor';

export interface CompletionEntry {
  label: string;
  kind: CompletionKind;
  detail?: string;
  documentation?: string;
  insertText: string;
  /** The text the entry replaces on the cursor's line. */
  range: TextRange;
}

// Only what the engine reads (GeoTIFF, JPEG 2000, VRT): an .img offered here would fail when the cell runs.
const RASTER_EXT = RASTER_FILE;
const VECTOR_EXT = VECTOR_FILE;

export function argInfos(tool: string, catalog: LanguageCatalog): ArgInfo[] | undefined {
  const manifest = catalog.tools.find((t) => t.id === tool);
  const spec = catalog.spec?.(tool);
  if (!manifest && !spec) return undefined;
  const out: ArgInfo[] = [];
  for (const p of manifest?.inputs ?? []) {
    const s = spec?.[p.name];
    const described = (catalog.lang === 'zh' ? p.description_zh : undefined) ?? p.description ?? s?.description;
    // Where an MCP tool writes its file is chosen by the runner: optional to the analyst.
    out.push({ name: p.name, kind: s?.kind ?? p.type, type: p.type, required: s ? !!s.required : !!p.required && !(manifest && chosenByRunner(manifest, p)),
      default: s?.default ?? p.default, description: described, enum: s?.enum ?? p.enum });
  }
  for (const [name, s] of Object.entries(spec ?? {})) {
    if (!out.some((a) => a.name === name)) out.push({ name, kind: s.kind, required: !!s.required, default: s.default, description: s.description, enum: s.enum });
  }
  return out;
}

function wordRange(text: string, line: number, character: number, pattern = /[A-Za-z0-9_.\-$\/]/): TextRange {
  let start = character;
  let end = character;
  while (start > 0 && pattern.test(text[start - 1])) start--;
  while (end < text.length && pattern.test(text[end])) end++;
  return { line, start, end };
}

/** Completion entries at a position of a tool cell. */
export function completionsAt(source: string, line: number, character: number, catalog: LanguageCatalog): CompletionEntry[] {
  const lines = source.split(/\r?\n/);
  const text = lines[line] ?? '';
  if (text.trim().startsWith('#')) return [];
  const { layout } = parseToolCell(source);
  const headerLine = layout.header?.toolRange.line;
  if (headerLine === undefined || headerLine === line) {
    const range = wordRange(text, line, character, /[A-Za-z0-9_.\-]/);
    if (text.slice(0, range.start).trim() !== '') return [];
    const zh = catalog.lang === 'zh';
    return catalog.tools.map((t) => ({
      label: t.id, kind: 'tool' as const, detail: zh ? displayName(t, 'zh') : t.name ?? t.category, documentation: toolDescription(t, catalog.lang ?? 'en'),
      insertText: t.id, range,
    }));
  }
  const tool = layout.header?.tool ?? '';
  const infos = argInfos(tool, catalog) ?? [];
  const colon = text.indexOf(':');
  if (colon >= 0 && character > colon) {
    const written = text.slice(0, colon).trim();
    const name = aliasOf(written, infos.map((a) => a.name)) ?? written;
    const info = infos.find((a) => a.name === name);
    const start = colon + 1 + (text.slice(colon + 1).length - text.slice(colon + 1).trimStart().length);
    const range = { line, start: Math.min(start, character), end: text.trimEnd().length < character ? character : text.trimEnd().length };
    return valueCompletions(name, info, catalog, range);
  }
  const names = infos.map((a) => a.name);
  const used = new Set(layout.args.filter((a) => a.nameRange.line !== line).map((a) => aliasOf(a.name, names) ?? a.name));
  const range = wordRange(text, line, character, /[A-Za-z0-9_]/);
  return infos.filter((a) => !used.has(a.name)).map((a) => ({
    label: a.name, kind: 'argument' as const,
    detail: argDetail(a, catalog.lang ?? 'en'),
    documentation: a.description, insertText: `${a.name}: `, range,
  }));
}

function valueCompletions(name: string, info: ArgInfo | undefined, catalog: LanguageCatalog, range: TextRange): CompletionEntry[] {
  const out: CompletionEntry[] = [];
  const add = (label: string, kind: CompletionKind, detail?: string) => out.push({ label, kind, detail, insertText: label, range });
  const kind = info?.kind ?? '';
  const w = EDITOR_WORDS[catalog.lang ?? 'en'];
  if (name === 'sensor') catalog.sensors.forEach((s) => add(s, 'sensor', w.sensorPreset));
  else if (info?.enum) info.enum.forEach((e) => add(e, 'value'));
  if (kind === 'band' || (kind === 'number_list' && name === 'bands')) catalog.bandRoles.forEach((r) => add(r, 'role', w.bandRole));
  if (kind === 'boolean') ['true', 'false'].forEach((b) => add(b, 'value'));
  const wantsRaster = kind === 'raster' || kind === 'raster_list' || info?.type === 'raster';
  const wantsVector = kind === 'vector' || info?.type === 'vector';
  if (wantsRaster || wantsVector || !info) {
    for (const f of catalog.files) {
      if ((wantsRaster && RASTER_EXT.test(f)) || (wantsVector && VECTOR_EXT.test(f)) || (!info && (RASTER_EXT.test(f) || VECTOR_EXT.test(f)))) add(f, 'file', w.workspaceFile);
    }
    // Zones and similar arguments take rasters or polygons alike.
    if (wantsVector || name === 'zones') for (const f of catalog.files) if (RASTER_EXT.test(f) && !out.some((o) => o.label === f)) add(f, 'file', w.workspaceRaster);
    // Only outputs of the kind the argument takes: a table is no raster, and no number either.
    const fits = (type?: string) => !type || (type === 'raster' ? wantsRaster || name === 'zones' || !info : type === 'vector' ? wantsVector || !info : false);
    for (const c of catalog.earlier) {
      for (const o of c.outputs) if (fits(o.type)) add(`$${c.name}.${o.name}`, 'reference', `${w.outputOf(c.tool)}${o.description ? `${w.outputSep}${o.description}` : ''}`);
    }
  }
  if (info?.default !== undefined && !out.some((o) => o.label === String(info.default))) add(typeof info.default === 'string' ? info.default : JSON.stringify(info.default), 'value', w.defaultValue);
  return out;
}

/** Hover text (markdown) at a position, if there is something to say. */
export function hoverAt(source: string, line: number, character: number, catalog: LanguageCatalog): { markdown: string; range: TextRange } | undefined {
  const { layout } = parseToolCell(source);
  const h = layout.header;
  if (!h) return undefined;
  const inRange = (r: TextRange) => r.line === line && character >= r.start && character <= r.end;
  const lang = catalog.lang ?? 'en';
  const w = EDITOR_WORDS[lang];
  if (inRange(h.toolRange)) {
    const t = catalog.tools.find((x) => x.id === h.tool);
    if (!t) return undefined;
    const args = argInfos(t.id, catalog) ?? [];
    const md = [
      `**${lang === 'zh' ? displayName(t, 'zh') : t.name ?? t.id}** \`${t.id}\`${t.runner ? '' : w.catalogOnly}`,
      '',
      toolDescription(t, lang),
      '',
      ...(args.length ? [w.args + args.map((a) => `\`${a.name}\`${a.required ? '*' : ''}`).join(', ')] : []),
      ...(t.outputs?.length ? [w.outputs + t.outputs.map((o) => `\`${o.name}\`${o.unit ? ` (${o.unit})` : ''}`).join(', ')] : []),
    ].join('\n');
    return { markdown: md, range: h.toolRange };
  }
  for (const a of layout.args) {
    if (inRange(a.nameRange)) {
      const infos = argInfos(h.tool, catalog) ?? [];
      const info = infos.find((x) => x.name === (aliasOf(a.name, infos.map((i) => i.name)) ?? a.name));
      if (!info) return undefined;
      const md = `${info.name !== a.name ? `\`${a.name}\`${w.standsFor}` : ''}\`${info.name}\`: ${kindWord(info.kind, lang)}${info.required ? w.required : ''}${info.default !== undefined ? `${w.default}\`${JSON.stringify(info.default)}\`` : ''}${info.description ? `\n\n${info.description}` : ''}`;
      return { markdown: md, range: a.nameRange };
    }
  }
  return undefined;
}

/** Problems in a tool cell that can be seen before running it. */
export function diagnose(source: string, catalog: LanguageCatalog): CellProblem[] {
  const { layout, problems } = parseToolCell(source);
  const out = [...problems];
  const h = layout.header;
  if (!h || !h.tool) return out;
  const d = DIAGNOSTIC_WORDS[catalog.lang ?? 'en'];
  const manifest = catalog.tools.find((t) => t.id === h.tool);
  const infos = argInfos(h.tool, catalog);
  if (!infos) {
    const near = closest(h.tool, catalog.tools.map((t) => t.id));
    out.push({
      ...h.toolRange, severity: 'error', message: d.unknownTool(h.tool, near),
      ...(near ? { fix: { title: d.changeTo(near), edits: [{ ...h.toolRange, text: near }] } } : {}),
    });
    return out;
  }
  if (manifest && !manifest.runner && !catalog.spec?.(h.tool)) {
    out.push({ ...h.toolRange, severity: 'warning', message: d.catalogOnly(h.tool) });
  }
  const names = infos.map((x) => x.name);
  const given = new Set<string>();
  for (const a of layout.args) {
    // The same input under another tool's name (`image` for slope's `dem`) is that input.
    const alias = aliasOf(a.name, names);
    const info = infos.find((x) => x.name === (alias && !layout.args.some((b) => b.name === alias) ? alias : a.name));
    if (!info) {
      const near = closestName(a.name, names);
      out.push({
        ...a.nameRange, severity: 'error',
        message: d.noArgument(h.tool, a.name, near, names),
        ...(near ? { fix: { title: d.changeTo(near), edits: [{ ...a.nameRange, text: near }] } } : {}),
      });
      continue;
    }
    given.add(info.name);
    if (a.value === undefined) continue;
    const p = checkValue(info, a.value, catalog);
    if (p) {
      const near = info.enum && typeof a.value === 'string' ? closestName(a.value, info.enum) : undefined;
      out.push({ ...a.valueRange, severity: 'warning', message: d.valueProblem(a.name, p, near), ...(near ? { fix: { title: d.changeTo(near), edits: [{ ...a.valueRange, text: near }] } } : {}) });
    }
    for (const r of referencesIn(a.value)) {
      const cell = [...catalog.earlier].reverse().find((c) => c.name === r.$ref.cell);
      if (!cell) out.push({ ...a.valueRange, severity: 'error', message: d.noCell(a.name, r.$ref.cell) });
      else if (cell.outputs.length && !cell.outputs.some((o) => o.name === r.$ref.output)) {
        out.push({ ...a.valueRange, severity: 'warning', message: d.noOutput(a.name, r.$ref.cell, cell.tool, r.$ref.output, cell.outputs.map((o) => o.name)) });
      }
    }
  }
  const missing = infos.filter((a) => a.required && a.default === undefined && !given.has(a.name));
  if (missing.length) {
    out.push({ ...h.toolRange, severity: 'warning', message: d.missing(missing) });
  }
  if (manifest && catalog.data?.length) out.push(...undescribedBands(source, manifest, layout, names, catalog.data, d, catalog.lang));
  return out;
}

/**
 * A scene whose bands carry no descriptions cannot tell the tool where NIR is: say which lines to add
 * (`nir: 4`), from the sensor its band count, data type and values suggest, and offer to add them.
 */
function undescribedBands(source: string, manifest: ToolManifest, layout: ReturnType<typeof parseToolCell>['layout'], names: string[], data: DataItem[], d: DiagnosticWords, lang: SummaryLanguage | undefined): CellProblem[] {
  const out: CellProblem[] = [];
  const lines = source.split(/\r?\n/);
  const written = new Set(layout.args.map((a) => aliasOf(a.name, names) ?? a.name));
  if (written.has('sensor')) return out;
  for (const p of manifest.inputs ?? []) {
    const roles = (p.bands ?? []).filter((r) => SPECTRAL_ROLES.has(r) && names.includes(r) && !written.has(r));
    const arg = layout.args.find((a) => (aliasOf(a.name, names) ?? a.name) === p.name);
    if (!roles.length || !arg || typeof arg.value !== 'string') continue;
    const file = arg.value.trim();
    const item = data.find((d) => samePath(d.path, file));
    if (!item || item.type !== 'raster' || !item.bands?.length) continue;
    const absent = roles.filter((r) => !item.bands!.some((b) => b.role === r));
    if (!absent.length) continue;
    const base = file.split(/[\\/]/).pop();
    const g = item.guess;
    const guessed = g ? absent.filter((r) => g.bands[r] !== undefined) : [];
    const what = item.bands.every((b) => !b.description) ? d.noBandDescriptions : d.notSayingWhich(absent);
    if (g && guessed.length === absent.length) {
      const add = guessed.map((r) => `${r}: ${g.bands[r]}`);
      const indent = /^\s*/.exec(lines[arg.nameRange.line] ?? '')?.[0] ?? '';
      const at = { line: arg.nameRange.line, start: (lines[arg.nameRange.line] ?? '').length, end: (lines[arg.nameRange.line] ?? '').length };
      out.push({
        ...arg.valueRange, severity: 'warning',
        message: d.addGuessed(base ?? file, what, add, guessLabel(g, lang), g.why),
        fix: { title: d.addGuessedTitle(add, guessLabel(g, lang)), edits: [{ ...at, text: add.map((l) => `\n${indent}${l}`).join('') }] },
      });
    } else {
      out.push({ ...arg.valueRange, severity: 'warning', message: d.addLines(base ?? file, what, absent) });
    }
  }
  return out;
}

function samePath(a: string, b: string): boolean {
  const norm = (x: string) => x.replace(/\\/g, '/').replace(/^\.\//, '');
  return norm(a) === norm(b) || norm(a).endsWith('/' + norm(b)) || norm(b).endsWith('/' + norm(a));
}

function checkValue(info: ArgInfo, v: ArgValue, catalog: LanguageCatalog): string | undefined {
  if (isReference(v)) return undefined;
  const d = DIAGNOSTIC_WORDS[catalog.lang ?? 'en'];
  if (info.enum && typeof v === 'string' && !info.enum.includes(v)) return d.notOneOf(v, info.enum);
  switch (info.kind) {
    case 'band':
      if (typeof v === 'number') return Number.isInteger(v) && v >= 1 ? undefined : d.bandIndex;
      if (typeof v === 'string' && !catalog.bandRoles.includes(v)) return d.notBandRole(v, catalog.bandRoles);
      return typeof v === 'string' ? undefined : d.bandIndex;
    case 'number':
    case 'integer':
      return typeof v === 'number' ? undefined : d.expectedNumber(JSON.stringify(v));
    case 'boolean':
      return typeof v === 'boolean' ? undefined : d.expectedBoolean;
    case 'raster_list':
    case 'number_list':
    case 'string_list':
    case 'array':
    case 'bbox':
      return Array.isArray(v) ? undefined : d.expectedList;
    default:
      return undefined;
  }
}

/** The closest id by edit distance, if it is close enough to be a likely typo. */
export function closest(word: string, options: string[]): string | undefined {
  return closestName(word, options);
}
