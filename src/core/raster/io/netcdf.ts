/**
 * NetCDF files of either kind, by their first bytes: classic (CDF-1/2/5, read byte by byte) or
 * NetCDF-4 and other HDF5 (read through h5wasm, loaded on the first such file). Both give their
 * variables to cf-grid.ts, which reads one as a raster and lists those that can be.
 */
import * as fs from 'node:fs';
import { CfGridDataset, readableVariables, type CfFile } from './cf-grid';
import { ClassicFile, isNetcdfClassic } from './netcdf-classic';
import { Hdf5File, isHdf5 } from './netcdf4';
import { He5GridDataset, he5Layout, he5SwathAdvice } from './hdfeos5';
import { FieldStack, sceneFields } from './reflectance-scene';

/** Whether a file's first bytes are NetCDF classic or HDF5 (NetCDF-4 is HDF5). */
export function isNetcdf(head: Buffer): boolean {
  return isNetcdfClassic(head) || isHdf5(head);
}

async function openFile(source: string, fail: (m: string) => Error, head?: Buffer): Promise<CfFile | undefined> {
  if (!head) {
    head = Buffer.alloc(8);
    const fh = await fs.promises.open(source, 'r');
    try { await fh.read(head, 0, 8, 0); } finally { await fh.close(); }
  }
  if (isNetcdfClassic(head)) return ClassicFile.open(source, fail);
  if (isHdf5(head)) return Hdf5File.open(source, fail);
  return undefined;
}

/**
 * One gridded variable of a NetCDF file (`variable`, or the file's only one) as a raster, or one
 * field of an HDF-EOS5 grid (hdfeos5.ts); call init(). An HDF-EOS5 file of swaths only is refused.
 */
export async function openNetcdf(source: string, fail: (m: string) => Error, variable?: string): Promise<CfGridDataset | He5GridDataset | FieldStack> {
  const file = await openFile(source, fail);
  if (!file) throw fail(`${source}: not a NetCDF or HDF5 file`);
  if (file instanceof Hdf5File) {
    const layout = he5Layout(file);
    if (layout?.eos.grids.length) {
      // A VIIRS surface-reflectance file given whole, or a grid by name: its reflectance scene.
      const isField = variable !== undefined && layout.fields.some((c) => c.id === variable || c.field === variable || `${c.grid.name}/${c.field}` === variable);
      const scene = isField || (variable === undefined && layout.fields.length < 2) ? undefined
        : sceneFields(layout.fields.map((c) => ({ id: c.id, field: c.field, grid: c.grid.name, xdim: c.grid.xdim, ydim: c.grid.ydim })), variable);
      // The fields share the file, closed with the scene (each field's close closes it; later ones find it closed).
      if (scene) return new FieldStack(source, scene, async (id) => { const ds = new He5GridDataset(file, layout, fail, id); await ds.init(); return ds; }, fail, variable);
      return new He5GridDataset(file, layout, fail, variable);
    }
    if (layout?.eos.swaths.length) { await file.close(); throw fail(he5SwathAdvice(source, layout.eos)); }
  }
  return new CfGridDataset(file, fail, variable);
}

/**
 * The variables of a NetCDF (classic or NetCDF-4) file that read as rasters, or the fields of an
 * HDF-EOS5 file's grids (none for swaths), each as `file#name`; [] for any other file.
 */
export async function netcdfGridVariables(file: string): Promise<string[]> {
  const f = await openFile(file, (m) => new Error(m));
  if (!f) return [];
  try {
    const layout = f instanceof Hdf5File ? he5Layout(f) : undefined;
    if (layout) return layout.fields.map((c) => c.id);
    return readableVariables(f).map((v) => v.name);
  } finally {
    await f.close();
  }
}
