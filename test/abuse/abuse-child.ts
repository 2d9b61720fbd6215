/** Child process of the abuse harness: runs one operation per message and answers with the result or the error. */
import { runTool } from '../../src/core/raster/engine';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runProcessTool } from '../../src/core/notebook/process-runner';
import type { ToolManifest } from '../../src/core/manifests/types';
import type { Op } from './harness';
import { extractArchive } from '../../src/core/data/archive/archive';
import { scanDataFolder } from '../../src/core/data/scan';
import * as fs from 'node:fs';
import * as path from 'node:path';

const rssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function perform(op: Op): Promise<unknown> {
  switch (op.kind) {
    case 'runTool': {
      const r = await runTool(op.tool, op.args, { outDir: op.outDir, cwd: op.cwd });
      return { outputs: r.outputs, quicklook: r.quicklook, summary: r.summary, stats: r.stats };
    }
    case 'read': {
      const ds = await openRaster(op.file);
      try {
        const sums: number[] = [];
        for (let b = 1; b <= Math.min(ds.bandCount, 4); b++) {
          const a = await ds.readWindow(b, 0, 0, ds.width, ds.height);
          let s = 0; for (let i = 0; i < a.length; i++) if (a[i] === a[i]) s += a[i];
          sums.push(s);
        }
        return { summary: `${ds.width}x${ds.height}x${ds.bandCount} ${ds.dtype}`, stats: { sums } };
      } finally { await ds.close(); }
    }
    case 'probe': {
      const keys = (o: object) => Object.getOwnPropertyNames(o).sort();
      return { stats: { object: keys(Object.prototype), array: keys(Array.prototype), func: keys(Function.prototype), string: keys(String.prototype) } };
    }
    case 'extract': {
      const r = await extractArchive(op.file, { into: op.into });
      const outputs: Record<string, { path: string }> = {};
      const walk = (d: string) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          const p = path.join(d, e.name);
          if (e.isDirectory()) walk(p); else outputs[path.relative(op.into, p)] = { path: p };
        }
      };
      walk(op.into);
      return { outputs, summary: `${r.files} files into ${r.target}; skipped ${r.skipped.length}`, stats: { target: r.target } };
    }
    case 'scan': {
      const warnings: string[] = [];
      const r = await scanDataFolder(op.dir, (m) => warnings.push(m));
      return { summary: `${r.items.length} items, ${r.unreadable?.length ?? 0} unreadable`, stats: { items: r.items.map((it) => it.path), unreadable: r.unreadable ?? [], warnings } };
    }
    case 'process': {
      const r = await runProcessTool(op.manifest as ToolManifest, op.args, { outDir: op.outDir, cwd: op.cwd });
      return { outputs: r.outputs, summary: r.summary };
    }
  }
}

process.on('message', (m: { id: number; op: Op }) => {
  perform(m.op).then(
    (result) => process.send!({ id: m.id, ok: true, result, rssMB: rssMB() }),
    (e: unknown) => {
      const err = e instanceof Error ? e : new Error(String(e));
      process.send!({ id: m.id, ok: false, message: err.message, name: err.name, rssMB: rssMB() });
    },
  );
});
