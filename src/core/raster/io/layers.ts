/**
 * The rasters a file of several holds, by its first bytes: the gridded variables of a NetCDF file
 * (classic or NetCDF-4), the grid fields of an HDF-EOS5 file (VIIRS) or of an HDF4 file (MODIS). The
 * scan and the workspace list one item per layer (`era5.nc#t2m`, `VNP13A1.h5#500 m 16 days NDVI`,
 * `MOD13Q1.hdf#250m 16 days NDVI`).
 */
import * as fs from 'node:fs';
import { hdf4GridFields, isHdf4 } from './hdf4';
import { netcdfGridVariables } from './netcdf';

/** The layers of `file` that read as rasters ([] for a file of another kind). */
export async function gridLayers(file: string): Promise<string[]> {
  const head = Buffer.alloc(8);
  const fh = await fs.promises.open(file, 'r');
  try { await fh.read(head, 0, 8, 0); } finally { await fh.close(); }
  if (isHdf4(head)) return hdf4GridFields(file);
  return netcdfGridVariables(file);
}
