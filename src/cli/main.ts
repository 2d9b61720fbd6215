/** `geoweave` command line: one table of commands, each in its own module under commands/. */
import { parseArgs, UsageError, ParsedArgs } from './args';
import { applyHttpOptions } from './http-options';
import { redactText } from '../core/net/redact';

export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
}

type Command = { summary: string; load: () => Promise<{ run(args: ParsedArgs, io: CliIO): Promise<number> }> };

const COMMANDS: Record<string, Command> = {
  suggest: { summary: 'suggest "<task>" [--k 10] [--lang en|zh] [--json]: forward candidates for a task', load: () => import('./commands/suggest') },
  next: { summary: 'next --task "<task>" --done id1,id2 [--result "<summary>"] [--lang en|zh]: complementary suggestions', load: () => import('./commands/next') },
  learn: { summary: 'learn --trajectories FILE.jsonl: learn tool transitions from executed flows', load: () => import('./commands/learn') },
  index: { summary: 'index build|stats: build the tool index or show its state', load: () => import('./commands/index') },
  eval: { summary: 'eval --tasks FILE.jsonl [--train FILE.jsonl] [--k 1,3,5,10,20] [--json]', load: () => import('./commands/eval') },
  run: { summary: 'run <tool> --arg name=value ... [--out DIR] [--json] [--manifests DIR]: run a builtin raster tool, or a catalog tool with a process, http or mcp runner', load: () => import('./commands/run') },
  mcp: { summary: 'mcp list | mcp add SERVER... [--workspace DIR]: the MCP servers of .vscode/mcp.json, and their tools written into the catalog', load: () => import('./commands/mcp') },
  export: { summary: 'export NOTEBOOK.geonb --to sh|ipynb [--out FILE]: the notebook as a bash script or a Jupyter notebook', load: () => import('./commands/export') },
  extract: { summary: 'extract ARCHIVE... [--into DIR] [--list]: what a .SAFE.zip, Landsat .tar or zipped Shapefile holds, extracted beside it', load: () => import('./commands/extract') },
  sample: { summary: 'sample [DIR]: write the synthetic sample workspace', load: () => import('./commands/sample') },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`);
  return [
    'usage: geoweave <command> [options]',
    '',
    ...lines,
    '',
    'common options: --manifests DIR (repeatable) --no-builtin --state DIR --embedder builtin|transformers|openai --practice FILE.jsonl | --no-practice',
    'remote rasters: --http-connect-timeout S --http-idle-timeout S --http-timeout S --http-retries N (or GEOWEAVE_HTTP_CONNECT_TIMEOUT, _IDLE_TIMEOUT, _TIMEOUT, _RETRIES)',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === 'help') {
    io.out(usage());
    return name ? 0 : 2;
  }
  const command = Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    io.err(`geoweave: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  // Nothing secret reaches the terminal: URLs lose their credentials, keys are masked.
  const secrets = [process.env.OPENAI_API_KEY, ...Object.entries(process.env).filter(([k]) => k.startsWith('GEOWEAVE_SERVICE_KEY_') || k.startsWith('GEOWEAVE_MCP_INPUT_')).map(([, v]) => v)];
  const safe: CliIO = { out: io.out, err: (t) => io.err(redactText(t, secrets)) };
  try {
    const mod = await command.load();
    const args = parseArgs(rest);
    applyHttpOptions(args);
    return await mod.run(args, safe);
  } catch (e) {
    if (e instanceof UsageError) {
      safe.err(`geoweave ${name}: ${e.message}`);
      return 2;
    }
    safe.err(`geoweave ${name}: ${e instanceof Error ? e.message : String(e)}`);
    if (process.env.GEOWEAVE_DEBUG && e instanceof Error) safe.err(e.stack ?? '');
    return 1;
  }
}

/** A closed pipe (`geoweave suggest ... | head`) is a normal way for a reader to stop. */
export function exitQuietlyOnEpipe(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

if (require.main === module) {
  exitQuietlyOnEpipe();
  main(process.argv.slice(2), { out: (t) => process.stdout.write(t + '\n'), err: (t) => process.stderr.write(t + '\n') }).then(
    (code) => { process.exitCode = code; },
  );
}
