/** Options every retrieval command shares: catalogs, state folder, embedder; and opening the core with them. */
import * as os from 'os';
import * as fs from 'fs';
import * as path from 'path';
import type { EmbedderConfig } from '../core/embed/types';
import type { LlmConfig } from '../core/llm';
import { GeoWeave, GeoWeaveOptions } from '../core/geoweave';
import { ParsedArgs, UsageError, opt, optAll } from './args';
import { summaryLanguage, type SummaryLanguage } from '../core/results/summary-language';
import type { CliIO } from './main';
import type { EvalTask } from '../core/eval/tasks';
import { readFlowNames } from '../core/eval/flow-ids';

export const DEFAULT_STATE_DIR = '.geoweave-state';

export function stateDirFrom(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(opt(args, 'state') ?? env.GEOWEAVE_STATE ?? DEFAULT_STATE_DIR);
}

/** `--embedder builtin|transformers|openai`, with settings from the environment. */
export function embedderFrom(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): EmbedderConfig {
  const kind = opt(args, 'embedder') ?? env.GEOWEAVE_EMBEDDER ?? 'builtin';
  switch (kind) {
    case 'builtin':
      return { kind: 'builtin' };
    case 'transformers': {
      const model = env.GEOWEAVE_TRANSFORMERS_MODEL;
      if (!model) throw new UsageError('--embedder transformers needs GEOWEAVE_TRANSFORMERS_MODEL (a model id or a local model folder)');
      const cacheDir = env.GEOWEAVE_MODEL_CACHE ?? path.join(os.homedir(), '.cache', 'geoweave', 'models');
      return { kind: 'transformers', model, cacheDir, allowDownload: args.flags.has('allow-download') || env.GEOWEAVE_ALLOW_DOWNLOAD === '1' };
    }
    case 'openai': {
      const baseURL = env.OPENAI_BASE_URL;
      const model = env.GEOWEAVE_OPENAI_MODEL;
      if (!baseURL || !model) throw new UsageError('--embedder openai needs OPENAI_BASE_URL and GEOWEAVE_OPENAI_MODEL (and OPENAI_API_KEY if the server wants one)');
      return { kind: 'openai', baseURL, model, apiKey: env.OPENAI_API_KEY };
    }
    default:
      throw new UsageError(`--embedder must be builtin, transformers or openai, got "${kind}"`);
  }
}

/** `--llm-base-url URL --llm-model M` (both or neither); the key comes from OPENAI_API_KEY. */
export function llmFrom(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): LlmConfig | undefined {
  const baseURL = opt(args, 'llm-base-url');
  const model = opt(args, 'llm-model');
  if (!baseURL && !model) return undefined;
  if (!baseURL || !model) throw new UsageError('the LLM layer needs both --llm-base-url URL (e.g. http://127.0.0.1:8080/v1) and --llm-model NAME; the key is read from OPENAI_API_KEY');
  if (!/^https?:\/\//i.test(baseURL)) throw new UsageError(`--llm-base-url must be an http(s) URL, got "${baseURL}"`);
  return { baseURL, model, apiKey: env.OPENAI_API_KEY };
}

/** GeoWeave options from the common CLI options; warnings go to stderr, info only with --verbose. */
export function optionsFrom(args: ParsedArgs, io: CliIO, extra: Partial<GeoWeaveOptions> = {}): GeoWeaveOptions {
  const noBuiltin = args.flags.has('no-builtin');
  const extraManifestDirs = optAll(args, 'manifests').map((d) => path.resolve(d));
  if (noBuiltin && !extraManifestDirs.length) throw new UsageError('--no-builtin needs at least one --manifests DIR');
  const verbose = args.flags.has('verbose');
  const practiceFile = opt(args, 'practice');
  if (practiceFile && !fs.existsSync(practiceFile)) throw new UsageError(`--practice ${practiceFile}: no such file (a JSONL task file, or --no-practice for none)`);
  return {
    noBuiltin,
    // The analyst flows the learned graph starts from: the shipped ones unless --practice FILE or --no-practice.
    practice: args.flags.has('no-practice') ? false : practiceFile ? path.resolve(practiceFile) : undefined,
    extraManifestDirs,
    workspaceDir: opt(args, 'workspace') ?? process.cwd(),
    stateDir: stateDirFrom(args),
    embedder: embedderFrom(args),
    llm: llmFrom(args),
    log: (level, msg) => {
      if (level !== 'info' || verbose) io.err(`${level}: ${msg}`);
    },
    ...extra,
  };
}

export async function openFrom(args: ParsedArgs, io: CliIO, extra: Partial<GeoWeaveOptions> = {}): Promise<GeoWeave> {
  return GeoWeave.open(optionsFrom(args, io, extra));
}

/** Fixed-width table for human output. */
export function table(rows: string[][], header: string[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => displayWidth(r[i] ?? ''))));
  // Padded by what a terminal shows: a Chinese character takes two columns.
  const pad = (c: string, w: number) => c + ' '.repeat(Math.max(0, w - displayWidth(c)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : pad(c ?? '', widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Columns a terminal gives `text`: two for East Asian wide characters (CJK, full-width forms). */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{20000}-\u{3fffd}]/u.test(ch) ? 2 : 1;
  return w;
}

/** `--lang en|zh` (zh-CN and the like count as zh); by default the language the task is written
 *  in, as a notebook decides it (summaryLanguage without a display language). */
export function langFrom(args: ParsedArgs, task: string): SummaryLanguage {
  const given = opt(args, 'lang');
  if (given === undefined) return summaryLanguage(undefined, task);
  const lang = given.toLowerCase().replace(/^zh[-_].*$/, 'zh');
  if (lang !== 'en' && lang !== 'zh') throw new UsageError(`--lang must be en or zh, got "${given}"`);
  return lang;
}

export function fmt(x: number, digits = 3): string {
  return x.toFixed(digits);
}

/**
 * A task or flow file's tool names read against the catalog (`mcp__server__ndvi` or `NDVI` for the
 * catalog's `ndvi`, see `eval/flow-ids.ts`), with a warning per name read differently.
 */
export function flowsOnCatalog(gw: GeoWeave | readonly string[], tasks: EvalTask[], file: string, io: CliIO): EvalTask[] {
  const ids = Array.isArray(gw) ? gw : (gw as GeoWeave).tools.map((t) => t.manifest.id);
  const { tasks: out, read, dropped } = readFlowNames(tasks, ids);
  const shown = [...read].slice(0, 10).map(([from, to]) => `"${from}" as "${to}"`);
  if (read.size) io.err(`warning: ${file}: ${read.size} tool name${read.size > 1 ? 's' : ''} read as the catalog names ${read.size > 1 ? 'them' : 'it'}: ${shown.join(', ')}${read.size > 10 ? `, and ${read.size - 10} more` : ''}`);
  const calls = [...dropped].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (calls.length) io.err(`warning: ${file}: calls in the chat logs to ${calls.length} tool${calls.length > 1 ? 's' : ''} the catalog does not have, left out of the flows: ${calls.slice(0, 10).map(([n, k]) => `${n} (${k})`).join(', ')}${calls.length > 10 ? `, and ${calls.length - 10} more` : ''} (add their manifests with --manifests DIR if they are the team's tools)`);
  // A log whose every call was left out has nothing to learn or evaluate.
  return out.filter((t) => t.flow.length || t.gold.length);
}
