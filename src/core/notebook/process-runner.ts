/** Runs a manifest's `process` runner (an external command such as gdalwarp) with templated
 *  arguments. The caller decides whether running external commands is allowed (workspace trust). */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { ToolManifest } from '../manifests/types';
import type { OutputRef, RunOptions, ToolRunResult } from '../raster/types';
import { aliasOf } from '../raster/arg-aliases';

const EXT: Record<OutputRef['type'], string> = { raster: '.tif', vector: '.geojson', table: '.csv' };

/** Fills `{name}` with argument values and `{out}` with the output path; unknown names are an error. */
export function expandTemplate(template: string, args: Record<string, unknown>, out: string): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    if (name === 'out') return out;
    const v = args[name];
    if (v === undefined) throw new Error(`argument "${name}" is needed by the command template "${template}"`);
    return Array.isArray(v) ? v.join(' ') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
  });
}

export async function runProcessTool(manifest: ToolManifest, args: Record<string, unknown>, opts: RunOptions): Promise<ToolRunResult> {
  const runner = manifest.runner;
  if (!runner || runner.type !== 'process') throw new Error(`${manifest.id} has no process runner`);
  const first = manifest.outputs?.[0];
  const type = (first?.type === 'vector' || first?.type === 'table' ? first.type : 'raster') as OutputRef['type'];
  fs.mkdirSync(opts.outDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14);
  const out = path.join(opts.outDir, `${manifest.id}_${stamp}${EXT[type]}`);
  const cwd = opts.cwd ?? process.cwd();
  // `image:` for a tool whose input is `dem` (and the like) is that input under another tool's name.
  const params = (manifest.inputs ?? []).map((p) => p.name);
  const named = Object.fromEntries(Object.entries(args).map(([k, v]) => [aliasOf(k, params) ?? k, v]));
  const argv = runner.args.map((a) => expandTemplate(a, { ...args, ...named }, out));
  opts.onProgress?.(0, `${runner.command} ${argv.join(' ')}`);
  const stderr = await new Promise<string>((resolve, reject) => {
    const child = spawn(runner.command, argv, { cwd, signal: opts.signal, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000); });
    child.on('error', (e) => {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') reject(new Error(`${manifest.id}: command "${runner.command}" was not found on PATH; install it (GDAL) or remove the manifest`));
      else if (e.name === 'AbortError') reject(new Error(`${manifest.id}: cancelled`));
      else reject(e);
    });
    child.on('close', (code) => {
      if (code === 0) resolve(err);
      else reject(new Error(`${manifest.id}: ${runner.command} exited with code ${code}: ${err.trim().split('\n').slice(-3).join(' ') || 'no message'}`));
    });
  });
  const produced = (runner.outputs?.length ? runner.outputs : [first?.name ?? 'output']);
  const outputs: Record<string, OutputRef> = {};
  outputs[produced[0]] = { path: out, type, ...(first?.bands ? { roles: first.bands } : {}) };
  opts.onProgress?.(1);
  const note = stderr.trim() ? ` (${stderr.trim().split('\n').pop()})` : '';
  return { tool: manifest.id, outputs, stats: {}, summary: `${runner.command} wrote ${path.basename(out)}${note}.` };
}
