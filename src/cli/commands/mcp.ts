/**
 * `geoweave mcp list|add`: the MCP servers a workspace configures (`.vscode/mcp.json`, `.mcp.json`,
 * `.cursor/mcp.json`), and their tools written into its catalog, as "GeoWeave: Add Tools from MCP
 * Servers" writes them. `${input:ID}` values come from GEOWEAVE_MCP_INPUT_<ID>.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ParsedArgs } from '../args';
import { UsageError, opt } from '../args';
import type { CliIO } from '../main';
import { isUsableServer, readMcpConfig, MCP_CONFIG_FILES } from '../../core/notebook/mcp-config';
import { serverCatalog, serverCatalogFile } from '../../core/notebook/mcp-runner';
import { writeFileAtomic } from '../../core/index/fs-util';
import { stableStringify } from '../../core/notebook/notebook-file';

/** A server entry as `list` shows it: its command, its address, or why GeoWeave does not use it. */
function serverWords(raw: Record<string, unknown>): string {
  const shown = typeof raw.command === 'string' ? [raw.command, ...(Array.isArray(raw.args) ? raw.args : [])].join(' ') : String(raw.url ?? '');
  return isUsableServer(raw) ? shown : `(${String(raw.type ?? '?')} ${shown}: a transport GeoWeave does not speak)`;
}

const USAGE = 'usage: geoweave mcp list [--workspace DIR] | geoweave mcp add SERVER... [--workspace DIR] [--json]';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  if (args.flags.has('help')) {
    io.out(`${USAGE}\nlist: the MCP servers (commands on stdio, Streamable HTTP addresses) of the workspace's ${MCP_CONFIG_FILES.join(', ')}\nadd: starts each server, asks for its tools and writes them to .geoweave/tools/mcp-<server>.json; cells and "geoweave run" then run them through the server`);
    return 0;
  }
  const [sub, ...names] = args.positionals;
  const ws = path.resolve(opt(args, 'workspace') ?? process.cwd());
  const cfg = readMcpConfig(ws);
  for (const p of cfg.problems) io.err(`warning: ${p}`);
  if (sub === 'list') {
    if (!cfg.servers.size) io.out(`no MCP server is configured in ${ws} (${MCP_CONFIG_FILES.join(', ')})`);
    for (const s of cfg.servers.values()) io.out(`${s.name}\t${serverWords(s.raw)}\t${path.relative(ws, s.file)}`);
    return 0;
  }
  if (sub !== 'add' || !names.length) throw new UsageError(USAGE);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    const added: { server: string; tools: number; file: string }[] = [];
    for (const name of names) {
      const { tools } = await serverCatalog(ws, name, { signal: controller.signal });
      const file = serverCatalogFile(ws, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      writeFileAtomic(file, stableStringify({ server: name, tools }) + '\n');
      added.push({ server: name, tools: tools.length, file });
      if (!args.flags.has('json')) io.out(`${name}: ${tools.length} tools written to ${path.relative(ws, file)}`);
    }
    if (args.flags.has('json')) io.out(JSON.stringify(added));
    return 0;
  } finally {
    process.removeListener('SIGINT', stop);
  }
}
