/** `geoweave run <tool> --arg name=value ... [--out DIR] [--json]`: runs a builtin raster tool. */
import * as path from 'node:path';
import { ParsedArgs, UsageError, opt, optAll } from '../args';
import type { CliIO } from '../main';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const [tool, ...extra] = args.positionals;
  const engine = await import('../../core/raster/engine');
  if (!tool || args.flags.has('help')) {
    const lines = engine.listBuiltinTools().map((t) => `  ${t.id.padEnd(24)} ${Object.entries(t.params).map(([k, p]) => (p.required ? k : `[${k}]`)).join(' ')}`);
    io.out(['usage: geoweave run <tool> --arg name=value ... [--out DIR] [--json]', '', 'builtin tools:', ...lines].join('\n'));
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
    const t0 = Date.now();
    const result = await engine.runTool(tool, toolArgs, {
      outDir, cwd, signal: controller.signal,
      onProgress: verbose ? (f, m) => io.err(`${Math.round(f * 100)}%${m ? ` ${m}` : ''}`) : undefined,
    });
    const prof = await import('../../core/raster/io/stage-times');
    if (prof.profiling) io.err(prof.profileLine(Date.now() - t0));
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
