/** `geoweave run <tool> --arg name=value ... [--out DIR] [--lang en|zh] [--json] [--manifests DIR]`: runs a
 *  builtin raster tool, or a catalog tool with a process or http runner (`--lang zh`: the summary in
 *  Simplified Chinese, same numbers). */
import * as path from 'node:path';
import { ParsedArgs, UsageError, opt, optAll } from '../args';
import type { CliIO } from '../main';
import { localizeSummary, type SummaryLanguage } from '../../core/results/summary-language';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const [tool, ...extra] = args.positionals;
  const engine = await import('../../core/raster/engine');
  if (!tool || args.flags.has('help')) {
    const lines = engine.listBuiltinTools().map((t) => `  ${t.id.padEnd(24)} ${Object.entries(t.params).map(([k, p]) => (p.required ? k : `[${k}]`)).join(' ')}`);
    io.out(['usage: geoweave run <tool> --arg name=value ... [--out DIR] [--lang en|zh] [--json] [--manifests DIR] [--workspace DIR]', '',
      'A tool of the workspace\'s .geoweave/tools or a --manifests folder runs too when its manifest has a',
      'process runner (a command) or an http runner (a REST service, as an OpenAPI document with servers gives).', '',
      'An input that takes one raster may be given a glob (--arg image=\'scenes/*.tif\') or a list',
      '(--arg image=\'[a.tif, b.tif]\'): the tool runs once per input, into DIR/<input stem>.', '', 'builtin tools:', ...lines].join('\n'));
    return tool ? 0 : 2;
  }
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"; pass tool arguments as --arg name=value`);
  // No prototype: "--arg __proto__=x" is an argument name like any other (and refused as unknown).
  const toolArgs: Record<string, unknown> = Object.create(null);
  for (const a of optAll(args, 'arg')) {
    const eq = a.indexOf('=');
    if (eq <= 0) throw new UsageError(`--arg "${a}" must look like name=value`);
    toolArgs[a.slice(0, eq).trim()] = a.slice(eq + 1);
  }
  const lang = (opt(args, 'lang') ?? 'en').toLowerCase().replace(/^zh[-_].*$/, 'zh');
  if (lang !== 'en' && lang !== 'zh') throw new UsageError(`--lang must be en or zh, got "${lang}"`);
  const cwd = process.cwd();
  const outDir = path.resolve(cwd, opt(args, 'out') ?? 'geoweave-out');
  const controller = new AbortController();
  // Ctrl-C or a kill: abort the run so its staged files are removed before the process ends.
  const onSignal = (sig: NodeJS.Signals) => {
    controller.abort(new Error(`${tool}: interrupted (${sig})`));
    process.exitCode = 130;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const verbose = args.flags.has('verbose');
    // A glob or a [list] for an input that takes one raster: one run per input, each in <out>/<item>.
    const batch = await import('../../core/notebook/batch');
    const spec = engine.getToolSpec(tool);
    if (spec) {
      const shapes = batch.shapesFromKinds(spec.params);
      const { parseValue } = await import('../../core/notebook/cell-value');
      const cellArgs: Record<string, import('../../core/notebook/types').ArgValue> = Object.create(null);
      for (const [k, v] of Object.entries(toolArgs)) {
        const s = String(v).trim();
        const shape = shapes[k] ?? shapes[(await import('../../core/raster/arg-aliases')).aliasOf(k, Object.keys(shapes)) ?? ''];
        let value: import('../../core/notebook/types').ArgValue = v as string;
        if (shape === 'single' && s.startsWith('[')) {
          try { value = parseValue(s); } catch (e) { throw new UsageError(`--arg ${k}: ${(e as Error).message}; a list of files looks like ${k}='[a.tif, b.tif]'`); }
        }
        cellArgs[k] = value;
      }
      const plan = batch.planBatch({ tool, args: cellArgs }, shapes, [], { roots: [cwd] }, cwd);
      if (plan) return await runBatchCli(tool, plan, outDir, cwd, controller.signal, args.flags.has('json'), verbose, io, engine.runTool, batch, lang as SummaryLanguage);
    }
    const t0 = Date.now();
    const onProgress = verbose ? (f: number, m?: string) => io.err(`${Math.round(f * 100)}%${m ? ` ${m}` : ''}`) : undefined;
    // Not builtin: a tool of the workspace's .geoweave/tools or a --manifests folder with a process
    // http or mcp runner runs as a notebook cell would run it (a GDAL command, a team's REST service, an MCP server).
    const ran = spec ? await engine.runTool(tool, toolArgs, { outDir, cwd, signal: controller.signal, onProgress }) : await runManifestTool(tool, toolArgs, args, { outDir, cwd, signal: controller.signal, onProgress });
    const prof = await import('../../core/raster/io/stage-times');
    if (prof.profiling) io.err(prof.profileLine(Date.now() - t0));
    const result = { ...ran, summary: localizeSummary(ran, lang as SummaryLanguage).text };
    if (args.flags.has('json')) {
      const outputs = Object.fromEntries(Object.entries(result.outputs).map(([k, o]) => [k, o.path]));
      io.out(JSON.stringify({ tool: result.tool, outputs, stats: result.stats, summary: result.summary, quicklook: result.quicklook ?? null, provenance: result.provenance ?? null }));
    } else {
      io.out(result.summary);
      for (const [k, o] of Object.entries(result.outputs)) io.out(`  ${k}: ${path.relative(cwd, o.path) || o.path} (${o.type})`);
      if (result.quicklook) io.out(`  quicklook: ${path.relative(cwd, result.quicklook)}`);
    }
    return 0;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** A catalog tool with a runner, run from the command line (`--manifests DIR`, `--workspace DIR`). */
async function runManifestTool(tool: string, toolArgs: Record<string, unknown>, args: ParsedArgs, opts: import('../../core/raster/types').RunOptions): Promise<import('../../core/raster/types').ToolRunResult> {
  const { loadCatalog } = await import('../../core/manifests/load');
  const catalog = loadCatalog({ extraDirs: optAll(args, 'manifests').map((d) => path.resolve(d)), workspaceDir: opt(args, 'workspace') ?? opts.cwd });
  const m = catalog.tools.find((t) => t.manifest.id === tool)?.manifest;
  if (!m) throw new UsageError(`unknown tool "${tool}": not builtin (geoweave run --help lists those) and in no manifest of .geoweave/tools or --manifests DIR`);
  if (m.runner?.type === 'process') return (await import('../../core/notebook/process-runner')).runProcessTool(m, toolArgs, opts);
  if (m.runner?.type === 'http') return (await import('../../core/notebook/http-runner')).runHttpTool(m, toolArgs, opts);
  // The server is started as the workspace's MCP configuration says (${input:ID} from GEOWEAVE_MCP_INPUT_<ID>).
  if (m.runner?.type === 'mcp') return (await import('../../core/notebook/mcp-runner')).runMcpTool(m, toolArgs, { ...opts, cwd: path.resolve(opt(args, 'workspace') ?? opts.cwd ?? '.') });
  throw new UsageError(`${tool} is catalog-only: its manifest has no runner (an OpenAPI operation gets one from its document's servers url)`);
}

/** Status words of a batch's lines; an item's error stays as the engine wrote it (command-line syntax). */
const BATCH_WORDS: Record<SummaryLanguage, { ok: string; failed: string; total: (ok: number, n: number, failed: number) => string }> = {
  en: { ok: 'ok', failed: 'failed', total: (ok, n, failed) => `${ok} of ${n} succeeded${failed ? `, ${failed} failed` : ''}` },
  zh: { ok: '完成', failed: '失败', total: (ok, n, failed) => `${n} 项中 ${ok} 项成功${failed ? `，${failed} 项失败` : ''}` },
};

/** One line per item (`--json`: an array); exit code 1 when any item failed (the others still ran).
 *  Each item's summary is in `lang`, as a single run's is. */
async function runBatchCli(tool: string, plan: import('../../core/notebook/batch').BatchPlan, outDir: string, cwd: string, signal: AbortSignal, json: boolean, verbose: boolean, io: CliIO,
  runTool: typeof import('../../core/raster/engine').runTool, batch: typeof import('../../core/notebook/batch'), lang: SummaryLanguage = 'en'): Promise<number> {
  const items = await batch.runBatch(plan, outDir, (a, o) => runTool(tool, a, { ...o, cwd }), {
    signal, onProgress: verbose ? (f, stage) => io.err(`${Math.round(f * 100)}% ${stage}`) : undefined,
  });
  const summary = (r: { tool: string; summary: string }) => localizeSummary(r, lang).text;
  const words = BATCH_WORDS[lang];
  if (json) {
    io.out(JSON.stringify(items.map((r) => (r.result
      ? { item: r.name, input: r.input, ok: true, tool: r.result.tool, outputs: Object.fromEntries(Object.entries(r.result.outputs).map(([k, o]) => [k, o.path])), stats: r.result.stats, summary: summary(r.result), quicklook: r.result.quicklook ?? null, provenance: r.result.provenance ?? null }
      : { item: r.name, input: r.input, ok: false, error: r.error ?? 'failed' }))));
  } else {
    for (const r of items) {
      io.out(r.result ? `${r.name} (${r.input}): ${words.ok}: ${summary(r.result).replace(/\s+/g, ' ')} [${path.relative(cwd, r.outDir) || r.outDir}]` : `${r.name} (${r.input}): ${words.failed}: ${(r.error ?? '').replace(/\s+/g, ' ')}`);
    }
    const failed = items.filter((r) => !r.result).length;
    io.out(words.total(items.length - failed, items.length, failed));
  }
  return items.some((r) => !r.result) ? 1 : 0;
}
