/**
 * `geoweave extract ARCHIVE… [--into DIR] [--list] [--json]`: what a downloaded archive holds (a
 * Sentinel-2 `.SAFE.zip`, a Landsat `.tar`, a zipped Shapefile) and its extraction beside it, where
 * the engine and the workspace scan read it. Ctrl-C stops and removes what was written.
 */
import * as path from 'node:path';
import type { ParsedArgs } from '../args';
import { UsageError } from '../args';
import type { CliIO } from '../main';
import { describeArchive, extractArchive, ARCHIVE_FILE } from '../../core/data/archive/archive';

const USAGE = 'usage: geoweave extract ARCHIVE... [--into DIR] [--list] [--json]\n'
  + 'says what each .zip, .tar, .tar.gz or .tgz holds and extracts it beside itself (or into DIR):\n'
  + 'a Sentinel-2 .SAFE.zip becomes its .SAFE folder, a Landsat .tar a folder of its band files.\n'
  + '--list only says what each holds.';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  if (args.flags.has('help')) { io.out(USAGE); return 0; }
  const files = args.positionals;
  if (!files.length) throw new UsageError(`give at least one archive\n${USAGE}`);
  for (const f of files) if (!ARCHIVE_FILE.test(f)) throw new UsageError(`${f}: not an archive GeoWeave extracts (.zip, .tar, .tar.gz, .tgz)`);
  const intoOpt = args.options.get('into');
  if (intoOpt && intoOpt.length > 1) throw new UsageError('--into is given more than once');
  const into = intoOpt?.[0] ? path.resolve(intoOpt[0]) : undefined;
  const list = args.flags.has('list');
  const json = args.flags.has('json');
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => { controller.abort(new Error(`interrupted (${sig})`)); process.exitCode = 130; };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const report: object[] = [];
  try {
    for (const f of files) {
      const abs = path.resolve(f);
      const s = await describeArchive(abs);
      if (list) {
        report.push({ archive: f, holds: s.holds, rasters: s.rasters, vectors: s.vectors, target: s.target, extracted: s.extracted });
        if (!json) io.out(`${f}: ${s.holds}${s.extracted ? ` (extracted in ${s.target})` : ''}`);
        continue;
      }
      let shown = -1;
      const r = await extractArchive(abs, {
        into, signal: controller.signal,
        onProgress: (done, total) => {
          const pct = total ? Math.floor((100 * done) / total) : 0;
          if (!json && pct >= shown + 10) { shown = pct; io.err(`${f}: ${pct}%`); }
        },
      });
      report.push({ archive: f, holds: s.holds, target: r.target, files: r.files, bytes: r.bytes, skipped: r.skipped });
      if (!json) {
        io.out(`${f}: ${s.holds} → ${path.relative(process.cwd(), r.target) || r.target} (${r.files} files)`);
        for (const k of r.skipped) io.out(`  skipped ${k}`);
      }
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
  if (json) io.out(JSON.stringify(report));
  return 0;
}
