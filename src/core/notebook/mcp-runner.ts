/**
 * Runs a tool that an MCP server serves (an `mcp` runner: the server's name in the workspace's
 * `.vscode/mcp.json`, see mcp-config.ts). The cell's arguments are checked as a command's are and
 * sent as the call's JSON arguments (files as absolute paths: the server runs on this machine).
 *
 * A parameter where the tool writes a file ("output_path") is given a path in a private staging
 * folder, as a process runner's `{out}`: the file is moved into the cell's output folder only when
 * the call succeeded, and a GeoTIFF is finished like any output (provenance, statistics, style).
 * The answer's structured content (or a JSON text) is the run's statistics; files it links
 * (`resource_link`, or a path the answer names that the call wrote) are outputs; images are saved.
 *
 * The caller decides whether starting servers is allowed (workspace trust).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { ToolManifest } from '../manifests/types';
import type { OutputRef, RunOptions, ToolRunResult } from '../raster/types';
import { RunStaging, remapPaths } from '../raster/io/run-staging';
import { aliasOf } from '../raster/arg-aliases';
import { geoweaveVersion, startRunRecord } from '../raster/provenance';
import { writesFile } from '../manifests/foreign-fields';
import { commandArgs, freshName } from './process-runner';
import { finishRasterOutput } from './process-style';
import { scalarWords, seconds } from './answer-words';
import { McpClient, McpCallResult, McpEndpoint, McpLaunch, McpToolInfo } from './mcp-client';
import { McpInputResolver, readMcpConfig, resolveLaunch } from './mcp-config';

type McpRunner = Extract<NonNullable<ToolManifest['runner']>, { type: 'mcp' }>;

/** How long an idle session stays open between cells. */
export const IDLE_MS = 5 * 60_000;

/**
 * Sessions kept between cells: a server that loads a model or a catalog at start answers the next
 * cell at once. Keyed by the whole launch (command, arguments, environment, folder), so a changed
 * configuration starts a new server. A cancelled call closes its session (the server may still be
 * writing), and an idle one closes after IDLE_MS.
 */
export class McpPool {
  private readonly sessions = new Map<string, { client: McpClient; timer?: NodeJS.Timeout }>();

  async get(launch: McpLaunch | McpEndpoint, signal?: AbortSignal): Promise<McpClient> {
    const key = JSON.stringify(launch);
    const s = this.sessions.get(key);
    if (s?.client.alive) {
      if (s.timer) clearTimeout(s.timer);
      s.timer = undefined;
      return s.client;
    }
    const client = await McpClient.start(launch, { signal, clientVersion: geoweaveVersion() });
    this.sessions.set(key, { client });
    return client;
  }

  /** The session stays for the next cell (until IDLE_MS without one), or is closed when `keep` is false. */
  release(client: McpClient, keep: boolean): void {
    for (const [key, s] of this.sessions) {
      if (s.client !== client) continue;
      if (!keep || !client.alive) {
        client.close();
        this.sessions.delete(key);
      } else {
        s.timer = setTimeout(() => { client.close(); this.sessions.delete(key); }, IDLE_MS);
        s.timer.unref();
      }
    }
  }

  dispose(): void {
    for (const s of this.sessions.values()) {
      if (s.timer) clearTimeout(s.timer);
      s.client.close();
    }
    this.sessions.clear();
  }
}

export interface McpRunOptions {
  /** Fills `${input:ID}` of the configuration (the extension asks, and keeps it in SecretStorage). */
  input?: McpInputResolver;
  /** Sessions kept between calls; without one, each call starts and stops its server. */
  pool?: McpPool;
}

const FILE_EXT: [RegExp, string, OutputRef['type']][] = [
  [/geojson/, '.geojson', 'vector'],
  [/\bgpkg\b|geopackage/, '.gpkg', 'vector'],
  [/\bcsv\b/, '.csv', 'table'],
  [/\bpng\b/, '.png', 'raster'],
];

/** The first bytes of each image kind an answer may hold. */
const IMAGE_MAGIC: Record<string, RegExp> = { 'image/png': /^\x89PNG\r\n\x1a\n/, 'image/jpeg': /^\xff\xd8\xff/, 'image/webp': /^RIFF....WEBP/s };

/** The kind of a file a tool wrote, by its extension (undefined: not a file GeoWeave shows). */
function fileKind(file: string): OutputRef['type'] | undefined {
  if (/\.(tiff?|vrt|nc|jp2|j2k)$/i.test(file)) return 'raster';
  if (/\.(geojson|json|gpkg|shp|kml|fgb|parquet)$/i.test(file)) return 'vector';
  if (/\.(csv|xlsx)$/i.test(file)) return 'table';
  return undefined;
}

export async function runMcpTool(manifest: ToolManifest, args: Record<string, unknown>, opts: RunOptions, mcp: McpRunOptions = {}): Promise<ToolRunResult> {
  const runner = manifest.runner;
  if (!runner || runner.type !== 'mcp') throw new Error(`${manifest.id} has no mcp runner`);
  const cwd = path.resolve(opts.cwd ?? process.cwd());
  const outDir = path.resolve(cwd, opts.outDir);
  const params = (manifest.inputs ?? []).map((p) => p.name);
  const named = Object.fromEntries(Object.entries(args).map(([k, v]) => [aliasOf(k, params) ?? k, v]));
  // Every argument is checked (and the server's entry resolved) before anything is started or created.
  const values = commandArgs(manifest, named, cwd);
  const failed = (e: unknown) => new Error(`${manifest.id}: ${(e as Error).message}`);
  const launch = await resolveLaunch(readMcpConfig(cwd), runner.server, cwd, mcp.input).catch((e) => { throw failed(e); });
  const toolName = runner.tool ?? manifest.id;
  const where = `${runner.server}/${toolName}`;
  const record = startRunRecord(manifest, args, values);
  const t0 = record.t0;
  const staging = await RunStaging.create(outDir);
  let client: McpClient | undefined;
  let keep = true;
  try {
    // Where the tool writes: a staged path GeoWeave chose (a relative one the cell gave lands in the output folder too).
    const written = new Map<string, { staged: string; type: OutputRef['type'] }>();
    const chosen = new Map<string, string>();
    for (const p of manifest.inputs ?? []) {
      if (!writesFile(p)) continue;
      const given = values[p.name];
      const text = `${p.name} ${p.description ?? ''}`.toLowerCase();
      const [, ext, type] = FILE_EXT.find(([re]) => re.test(text)) ?? [/./, '.tif', 'raster' as const];
      const name = typeof given === 'string' && given && !path.isAbsolute(given) ? path.basename(given) : typeof given === 'string' && given ? undefined : freshName(outDir, `${manifest.id}_${p.name}`, ext);
      if (!name) { chosen.set(p.name, given as string); continue; } // An absolute path the cell chose: written where it says.
      const staged = path.join(staging.dir, name);
      values[p.name] = staged;
      written.set(p.name, { staged, type: fileKind(name) ?? type });
    }
    opts.onProgress?.(0, `starting the MCP server "${runner.server}"`);
    try {
      client = mcp.pool ? await mcp.pool.get(launch, opts.signal) : await McpClient.start(launch, { signal: opts.signal, clientVersion: geoweaveVersion() });
    } catch (e) {
      throw opts.signal?.aborted ? e : failed(e);
    }
    opts.onProgress?.(0, `calling ${where}`);
    let res: McpCallResult;
    try {
      res = await client.callTool(toolName, values, { signal: opts.signal, onProgress: (p, message) => opts.onProgress?.(p ?? 0, message ?? `calling ${where}`) });
    } catch (e) {
      keep = false;
      if (opts.signal?.aborted || (e as Error).name === 'AbortError') throw new Error(`${manifest.id}: cancelled`);
      throw failed(e);
    }
    const texts = res.content.filter((c): c is Extract<typeof c, { type: 'text' }> => c.type === 'text').map((c) => c.text);
    if (res.isError) throw new Error(`${manifest.id}: ${where} reported an error: ${texts.join(' ').trim().slice(0, 800) || 'no message'}`);
    const stats = answerStats(res, texts);
    const prov = await record.provenance();
    const outputs: Record<string, OutputRef> = {};
    let quicklook: string | undefined;
    let finished: Record<string, unknown> | undefined;
    const moved = (f: string) => path.join(outDir, path.basename(f));
    for (const [name, w] of written) {
      if (!fs.existsSync(w.staged)) continue;
      const styled = w.type === 'raster' && /\.tiff?$/i.test(w.staged) ? await finishRasterOutput(w.staged, prov, opts) : undefined;
      if (styled && !quicklook) { quicklook = moved(styled.quicklook); finished = styled.stats; }
      const out = manifest.outputs?.find((o) => o.type === w.type);
      outputs[name] = { path: moved(w.staged), type: w.type, ...(out?.bands ? { roles: out.bands } : {}), ...(styled ? { style: moved(styled.style) } : {}) };
    }
    // Images in the answer (a chart, a quicklook) are saved beside the outputs.
    const images: string[] = [];
    for (const c of res.content) {
      if (c.type !== 'image' || typeof c.data !== 'string' || !/^image\/(png|jpeg|webp)$/.test(c.mimeType)) continue;
      // Saved only when the bytes are the image they say they are (base64 decoding never fails: garbage decodes to garbage).
      const bytes = Buffer.from(c.data, 'base64');
      if (!IMAGE_MAGIC[c.mimeType]?.test(bytes.subarray(0, 12).toString('latin1'))) continue;
      const file = path.join(staging.dir, freshName(outDir, `${manifest.id}_image${images.length + 1}`, c.mimeType === 'image/png' ? '.png' : c.mimeType === 'image/jpeg' ? '.jpg' : '.webp'));
      await fs.promises.writeFile(file, bytes);
      images.push(path.basename(file));
      if (!quicklook && c.mimeType === 'image/png') quicklook = moved(file);
    }
    // Files the cell said where to write, and those the answer links or names, that the call wrote (not a path merely mentioned).
    for (const [key, file] of [...chosen, ...linkedFiles(res, stats, cwd)]) {
      if (Object.values(outputs).some((o) => o.path === file) || [...written.values()].some((w) => w.staged === file)) continue;
      let st: fs.Stats;
      try { st = fs.statSync(file); } catch { continue; }
      const kind = fileKind(file);
      if (!st.isFile() || !kind || st.mtimeMs < t0 - 1000) continue;
      outputs[outputs[key] ? `${key}_${Object.keys(outputs).length}` : key] = { path: file, type: kind };
    }
    await staging.commit();
    opts.onProgress?.(1);
    const files = [...Object.values(outputs).map((o) => path.basename(o.path)), ...images];
    // The answer names the staged paths it was given: read as where the files are now.
    const said = texts.join(' ').replace(/\s+/g, ' ').trim().split(staging.dir).join(outDir);
    const answer = remapPaths(stats, staging.dir, outDir);
    const words = scalarWords(answer) || (said && !said.startsWith('{') ? `: ${said.slice(0, 200)}${said.length > 200 ? '…' : ''}` : '');
    return {
      tool: manifest.id, outputs, stats: finished ? { ...finished, ...answer } : answer, provenance: prov,
      summary: `${where} answered in ${seconds(Date.now() - t0)}${words}${files.length ? `; wrote ${files.join(', ')}` : ''}.`,
      ...(quicklook ? { quicklook } : {}),
    };
  } catch (e) {
    record.stop();
    await staging.discard();
    if (opts.signal?.aborted) throw new Error(`${manifest.id}: cancelled`);
    throw e;
  } finally {
    if (client) {
      if (mcp.pool) mcp.pool.release(client, keep);
      else client.close();
    }
  }
}


/** The answer's numbers and words: its structured content, else its one text when that is a JSON object. */
function answerStats(res: McpCallResult, texts: string[]): Record<string, unknown> {
  const sc = res.structuredContent;
  if (sc && typeof sc === 'object' && !Array.isArray(sc)) return sc;
  if (texts.length === 1 && texts[0].trim().startsWith('{') && texts[0].length <= 64 << 20) {
    try {
      const v = JSON.parse(texts[0]);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch { /* plain text */ }
  }
  return {};
}

/** Local files the answer points at: `resource_link`/`resource` file: URIs, and absolute paths among its statistics' values. */
function linkedFiles(res: McpCallResult, stats: Record<string, unknown>, cwd: string): [string, string][] {
  const out: [string, string][] = [];
  const fromUri = (uri: string): string | undefined => {
    if (!/^file:/i.test(uri)) return undefined;
    try { return decodeURIComponent(new URL(uri).pathname); } catch { return undefined; }
  };
  for (const c of res.content) {
    const uri = c.type === 'resource_link' ? c.uri : c.type === 'resource' ? c.resource?.uri : undefined;
    const file = typeof uri === 'string' ? fromUri(uri) : undefined;
    if (file) out.push([(c.type === 'resource_link' && c.name ? c.name : path.basename(file, path.extname(file))).replace(/[^A-Za-z0-9_.-]/g, '_'), file]);
  }
  for (const [k, v] of Object.entries(stats)) {
    if (typeof v !== 'string' || v.length > 4096) continue;
    const file = fromUri(v) ?? (path.isAbsolute(v) ? v : /[\\/]/.test(v) && fileKind(v) ? path.resolve(cwd, v) : undefined);
    if (file && fileKind(file)) out.push([k, file]);
  }
  return out;
}



/** Most tools a server may bring into a catalog. */
export const MAX_SERVER_TOOLS = 2000;

/**
 * The tools of a configured server, as a catalog file: `{"server": name, "tools": [...]}` (the
 * `tools/list` entries as the server gave them). The catalog reads each as a manifest with an
 * `mcp` runner naming the server; the server's command stays in the configuration.
 */
export async function serverCatalog(workspace: string, server: string, opts: { signal?: AbortSignal; input?: McpInputResolver } = {}): Promise<{ server: string; tools: McpToolInfo[]; info: { name?: string; version?: string } }> {
  const launch = await resolveLaunch(readMcpConfig(workspace), server, workspace, opts.input);
  const client = await McpClient.start(launch, { signal: opts.signal, clientVersion: geoweaveVersion() });
  try {
    const tools = await client.listTools({ signal: opts.signal, max: MAX_SERVER_TOOLS });
    return { server, tools, info: client.serverInfo };
  } finally {
    client.close();
  }
}

/** The catalog file of a server's tools in the workspace's `.geoweave/tools` (written whole: temp file, then rename). */
export function serverCatalogFile(workspace: string, server: string): string {
  return path.join(workspace, '.geoweave', 'tools', `mcp-${server.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`);
}
