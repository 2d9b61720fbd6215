/** `geoweave run <tool> --arg name=value ... [--out DIR] [--lang en|zh] [--json]`: runs a builtin raster tool
 *  (`--lang zh`: the summary in Simplified Chinese, same numbers). */
import * as path from 'node:path';
import { ParsedArgs, UsageError, opt, optAll } from '../args';
import type { CliIO } from '../main';
import { localizeSummary, type SummaryLanguage } from '../../core/results/summary-language';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const [tool, ...extra] = args.positionals;
  const engine = await import('../../core/raster/engine');
  if (!tool || args.flags.has('help')) {
    const lines = engine.listBuiltinTools().map((t) => `  ${t.id.padEnd(24)} ${Object.entries(t.params).map(([k, p]) => (p.required ? k : `[${k}]`)).join(' ')}`);
    io.out(['usage: geoweave run <tool> --arg name=value ... [--out DIR] [--lang en|zh] [--json]', '', 'builtin tools:', ...lines].join('\n'));
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
    const ran = await engine.runTool(tool, toolArgs, {
      outDir, cwd, signal: controller.signal,
      onProgress: verbose ? (f, m) => io.err(`${Math.round(f * 100)}%${m ? ` ${m}` : ''}`) : undefined,
    });
    const result = { ...ran, summary: localizeSummary(ran, lang as SummaryLanguage).text };
    if (args.flags.has('json')) {
      const outputs = Object.fromEntries(Object.entries(result.outputs).map(([k, o]) => [k, o.path]));
      io.out(JSON.stringify({ tool: result.tool, outputs, stats: result.stats, summary: result.summary, quicklook: result.quicklook ?? null }));
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
