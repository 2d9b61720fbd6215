/** `geoweave export NOTEBOOK --to sh|ipynb [--out FILE] [--workspace DIR] [--outputs DIR]`: the
 *  notebook's tool cells as a bash script of `geoweave run` calls or as a Jupyter notebook. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ParsedArgs, UsageError, opt } from '../args';
import type { CliIO } from '../main';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const [file, ...extra] = args.positionals;
  if (!file || args.flags.has('help')) {
    io.out('usage: geoweave export NOTEBOOK.geonb --to sh|ipynb [--out FILE] [--workspace DIR] [--outputs DIR]\n\n'
      + '  --workspace  folder the cells\' relative paths are read from (default: the notebook\'s folder)\n'
      + '  --outputs    output folder the notebook runs into (default: .geoweave/outputs, as in VS Code)\n'
      + '  --out        file to write (written whole or not at all); without it the export is printed');
    return file ? 0 : 2;
  }
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const to = opt(args, 'to');
  if (to !== 'sh' && to !== 'ipynb') throw new UsageError(`--to must be sh or ipynb${to ? `, got "${to}"` : ''}`);
  const { parseNotebook, UNREADABLE_KEY } = await import('../../core/notebook/notebook-file');
  const { exportShell, exportIpynb } = await import('../../core/notebook/export');
  const { geoweaveVersion } = await import('../../core/raster/provenance');
  const { writeFileAtomic } = await import('../../core/index/fs-util');
  const notebookFile = path.resolve(file);
  const nb = parseNotebook(fs.readFileSync(notebookFile, 'utf8'), notebookFile);
  if (nb.metadata[UNREADABLE_KEY]) throw new Error(`cannot read ${file}: ${String(nb.metadata[UNREADABLE_KEY])}`);
  const opts = {
    notebookFile,
    workspace: path.resolve(opt(args, 'workspace') ?? path.dirname(notebookFile)),
    ...(opt(args, 'outputs') ? { outputFolder: opt(args, 'outputs')! } : {}),
    geoweaveVersion: geoweaveVersion(),
  };
  const text = to === 'sh' ? exportShell(nb, opts) : exportIpynb(nb, opts);
  const out = opt(args, 'out');
  if (!out) { io.out(text.replace(/\n$/, '')); return 0; }
  writeFileAtomic(path.resolve(out), text);
  if (to === 'sh') fs.chmodSync(path.resolve(out), 0o755);
  io.err(`wrote ${out}`);
  return 0;
}
