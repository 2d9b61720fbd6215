/**
 * Where a workspace says how to start its MCP servers, and how a server's entry becomes a launch.
 * VS Code reads `.vscode/mcp.json` ({"servers": {...}, "inputs": [...]}); Claude Code `.mcp.json`
 * and Cursor `.cursor/mcp.json` ({"mcpServers": {...}}). A team that wired its tools to an
 * assistant has one of these: GeoWeave starts the same servers, so nothing is configured twice.
 *
 * Variables are those VS Code fills in: ${workspaceFolder}, ${workspaceFolderBasename},
 * ${userHome}, ${pathSeparator} (${/}), ${env:NAME} and ${input:ID}, the last asked of the user
 * (a key never written in the file; the caller keeps it in its secret store).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { McpEndpoint, McpLaunch } from './mcp-client';

/** The configuration files read, first found first; a server named in two keeps the first. */
export const MCP_CONFIG_FILES = ['.vscode/mcp.json', '.mcp.json', '.cursor/mcp.json'];

/** An `inputs` entry of `.vscode/mcp.json`: what to ask the user for `${input:ID}`. */
export interface McpInputSpec { id: string; description?: string; password?: boolean; default?: string }

export interface McpServerEntry { name: string; file: string; raw: Record<string, unknown> }

export interface McpConfig {
  servers: Map<string, McpServerEntry>;
  inputs: Map<string, McpInputSpec>;
  /** Files that could not be read, with why (shown beside the servers that could). */
  problems: string[];
}

/** JSON with comments and trailing commas (VS Code's mcp.json is JSONC): both removed outside strings. */
export function parseJsonc(text: string): unknown {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
}

/** The MCP servers a workspace configures (every file of MCP_CONFIG_FILES that exists). */
export function readMcpConfig(workspace: string): McpConfig {
  const servers = new Map<string, McpServerEntry>();
  const inputs = new Map<string, McpInputSpec>();
  const problems: string[] = [];
  for (const rel of MCP_CONFIG_FILES) {
    const file = path.join(workspace, rel);
    if (!fs.existsSync(file)) continue;
    let doc: unknown;
    try {
      const size = fs.statSync(file).size;
      if (size > 1 << 20) throw new Error(`${size} bytes, more than a configuration may have (1 MB)`);
      doc = parseJsonc(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
    } catch (e) {
      problems.push(`${file}: cannot read it (${(e as Error).message}); fix the file to use its servers`);
      continue;
    }
    const o = doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {};
    const list = o.servers ?? o.mcpServers;
    if (!list || typeof list !== 'object' || Array.isArray(list)) {
      problems.push(`${file}: has no "servers" (or "mcpServers") object`);
      continue;
    }
    for (const [name, raw] of Object.entries(list as Record<string, unknown>)) {
      if (servers.has(name) || !raw || typeof raw !== 'object' || Array.isArray(raw)) continue;
      servers.set(name, { name, file, raw: raw as Record<string, unknown> });
    }
    if (Array.isArray(o.inputs)) {
      for (const inp of o.inputs) {
        const it = inp as Record<string, unknown> | null;
        if (it && typeof it.id === 'string' && !inputs.has(it.id)) {
          inputs.set(it.id, { id: it.id, ...(typeof it.description === 'string' ? { description: it.description } : {}), ...(it.password === true ? { password: true } : {}), ...(typeof it.default === 'string' ? { default: it.default } : {}) });
        }
      }
    }
  }
  return { servers, inputs, problems };
}

/** The names configurations give Streamable HTTP (VS Code "http"; other clients the transport's name). */
const HTTP_TYPES = new Set(['http', 'streamable-http', 'streamableHttp']);

/** Whether a server entry is one GeoWeave can start (a command on stdio) or reach (Streamable HTTP, or the older HTTP+SSE transport). */
export function isUsableServer(raw: Record<string, unknown>): boolean {
  if (typeof raw.command === 'string') return raw.type === undefined || raw.type === 'stdio';
  return typeof raw.url === 'string' && (raw.type === undefined || HTTP_TYPES.has(String(raw.type)) || raw.type === 'sse');
}

/** The servers a workspace configures that GeoWeave can start or reach (a tool of any other server is not ready there). */
export function usableMcpServers(workspace: string): string[] {
  return [...readMcpConfig(workspace).servers.values()].filter((s) => isUsableServer(s.raw)).map((s) => s.name);
}

/** The environment variable that gives `${input:ID}` ("eo-token" → GEOWEAVE_MCP_INPUT_EO_TOKEN). */
export function mcpInputEnv(id: string): string {
  return `GEOWEAVE_MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** Asks the user for `${input:ID}` (the extension: a SecretStorage value, else an input box); undefined when refused. */
export type McpInputResolver = (spec: McpInputSpec, server: string) => Promise<string | undefined>;

/**
 * The launch of server `name`: command, arguments, environment (the process's, the envFile's, then
 * the entry's) and working folder, every variable filled in. Fails naming the file, the server and
 * the field when the entry cannot be started.
 */
export async function resolveLaunch(config: McpConfig, name: string, workspace: string, input?: McpInputResolver): Promise<McpLaunch | McpEndpoint> {
  const entry = config.servers.get(name);
  if (!entry) {
    const known = [...config.servers.keys()];
    throw new Error(`no MCP server "${name}" is configured in this workspace (${MCP_CONFIG_FILES.join(', ')})${known.length ? `; it configures ${known.join(', ')}` : ''}${config.problems.length ? `; ${config.problems[0]}` : ''}`);
  }
  const { raw, file } = entry;
  const where = `${file}: server "${name}"`;
  if (!isUsableServer(raw)) {
    throw new Error(`${where} is ${typeof raw.url === 'string' ? `of "type": "${String(raw.type).slice(0, 60)}", which GeoWeave does not speak` : typeof raw.command === 'string' ? `a command of "type": "${String(raw.type).slice(0, 60)}"` : 'neither a command nor an address'}; GeoWeave starts servers that run as a command on stdio ("command", "args") and reaches those at an address ("url") that speak Streamable HTTP ("type": "http") or the older HTTP+SSE transport ("type": "sse")`);
  }
  const fill = async (value: string, field: string): Promise<string> => {
    let out = '';
    let last = 0;
    for (const m of value.matchAll(/\$\{([^}]*)\}/g)) {
      out += value.slice(last, m.index);
      last = m.index! + m[0].length;
      const v = m[1];
      if (v === 'workspaceFolder') out += workspace;
      else if (v === 'workspaceFolderBasename') out += path.basename(workspace);
      else if (v === 'userHome') out += os.homedir();
      else if (v === 'pathSeparator' || v === '/') out += path.sep;
      else if (v.startsWith('env:')) out += process.env[v.slice(4)] ?? '';
      else if (v.startsWith('input:')) {
        const id = v.slice(6);
        const spec = config.inputs.get(id) ?? { id };
        // The environment first (the command line, CI), then the user (the extension asks once and keeps it).
        const got = process.env[mcpInputEnv(id)] ?? (input ? await input(spec, name) : undefined);
        if (got === undefined) throw new Error(`${where}: ${field} needs \${input:${id}}${spec.description ? ` (${spec.description})` : ''}, which was not given; ${input ? 'run the cell again and enter it, or set' : 'set'} the environment variable ${mcpInputEnv(id)}`);
        out += got;
      } else throw new Error(`${where}: ${field} uses \${${v}}, which GeoWeave does not fill in (it fills workspaceFolder, userHome, env:NAME and input:ID)`);
    }
    return out + value.slice(last);
  };
  const strings = (v: unknown, field: string): string[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new Error(`${where}: "${field}" must be a list of strings`);
    return v as string[];
  };
  if (typeof raw.url === 'string') return endpoint(raw, name, where, fill);
  const command = await fill(raw.command as string, '"command"');
  const args: string[] = [];
  for (const [i, a] of strings(raw.args, 'args').entries()) args.push(await fill(a, `"args"[${i}]`));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  if (raw.envFile !== undefined) {
    if (typeof raw.envFile !== 'string') throw new Error(`${where}: "envFile" must be a path`);
    const envFile = path.resolve(workspace, await fill(raw.envFile, '"envFile"'));
    let text: string;
    try { text = fs.readFileSync(envFile, 'utf8'); } catch (e) {
      throw new Error(`${where}: cannot read its envFile ${envFile} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    for (const line of text.split(/\r?\n/)) {
      const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
      if (m) env[m[1]] = m[2].replace(/^(['"])(.*)\1$/, '$2');
    }
  }
  if (raw.env !== undefined) {
    if (!raw.env || typeof raw.env !== 'object' || Array.isArray(raw.env)) throw new Error(`${where}: "env" must be an object of names and values`);
    for (const [k, v] of Object.entries(raw.env as Record<string, unknown>)) {
      if (v === null) { delete env[k]; continue; }
      if (typeof v !== 'string' && typeof v !== 'number') throw new Error(`${where}: "env"."${k}" must be a string`);
      env[k] = await fill(String(v), `"env"."${k}"`);
    }
  }
  const cwd = typeof raw.cwd === 'string' ? path.resolve(workspace, await fill(raw.cwd, '"cwd"')) : workspace;
  if (!fs.existsSync(cwd)) throw new Error(`${where}: its "cwd" ${cwd} does not exist`);
  if (!command.trim()) throw new Error(`${where}: "command" is empty`);
  return { name, command, args, env, cwd };
}

/** An HTTP server's entry: its address (http or https, no user name or password) and the headers each request carries (a key from `${input:ID}`). */
async function endpoint(raw: Record<string, unknown>, name: string, where: string, fill: (v: string, field: string) => Promise<string>): Promise<McpEndpoint> {
  const url = await fill(raw.url as string, '"url"');
  let u: URL;
  try { u = new URL(url); } catch { throw new Error(`${where}: "url" is not an address: ${url.slice(0, 200)}`); }
  if (!/^https?:$/.test(u.protocol)) throw new Error(`${where}: "url" must be an http or https address, not ${u.protocol}`);
  if (u.username || u.password) throw new Error(`${where}: "url" holds a user name or password; put the key in "headers" (with \${input:ID}) instead`);
  const headers: Record<string, string> = {};
  if (raw.headers !== undefined) {
    if (!raw.headers || typeof raw.headers !== 'object' || Array.isArray(raw.headers)) throw new Error(`${where}: "headers" must be an object of names and values`);
    for (const [k, v] of Object.entries(raw.headers as Record<string, unknown>)) {
      if (typeof v !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)) throw new Error(`${where}: "headers"."${k.slice(0, 60)}" must be a header name with a string value`);
      const value = await fill(v, `"headers"."${k}"`);
      if (/[\r\n\0]/.test(value)) throw new Error(`${where}: "headers"."${k}" holds a line break`);
      headers[k.toLowerCase()] = value;
    }
  }
  return { name, url: u.href, headers, ...(raw.type === 'sse' ? { sse: true } : {}) };
}
