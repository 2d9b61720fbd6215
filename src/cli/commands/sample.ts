/** `geoweave sample [DIR]`: writes the synthetic sample workspace (default ./sample). */
import * as path from 'node:path';
import type { ParsedArgs } from '../args';
import { UsageError } from '../args';
import type { CliIO } from '../main';
import { writeSampleWorkspace } from '../../core/raster/sample/generate';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  if (args.flags.has('help')) {
    io.out('usage: geoweave sample [DIR] [--json]\nwrites s2_scene.tif, fire_pre.tif, fire_post.tif, urban_2018.tif, urban_2024.tif, dem.tif, thermal_landsat.tif, fields.geojson and README.md to DIR (default ./sample)');
    return 0;
  }
  if (args.positionals.length > 1) throw new UsageError(`expected at most one directory, got ${args.positionals.length}: ${args.positionals.join(' ')}`);
  const dir = path.resolve(args.positionals[0] ?? 'sample');
  const res = await writeSampleWorkspace(dir);
  if (args.flags.has('json')) io.out(JSON.stringify({ dir: res.dir, files: res.files.map((f) => path.basename(f)) }));
  else io.out(`wrote ${res.files.length} files to ${res.dir} in ${(res.ms / 1000).toFixed(1)} s:\n${res.files.map((f) => '  ' + path.basename(f)).join('\n')}`);
  return 0;
}
