/**
 * The rasters a file of several holds, by its first bytes: the gridded variables of a NetCDF file
 * (classic or NetCDF-4), the grid fields of an HDF-EOS5 file (VIIRS) or of an HDF4 file (MODIS), the
 * messages of a GRIB file. The scan, the workspace and the raster view list one item per layer
 * (`era5.nc#t2m`, `VNP13A1.h5#500 m 16 days NDVI`, `MOD13Q1.hdf#250m 16 days NDVI`, `era5.grib#2T`,
 * `gfs.grib2#TMP:85000-ISBL`).
 */
import * as fs from 'node:fs';
import { hdf4GridFields, isHdf4 } from './hdf4';
import { netcdfGridVariables } from './netcdf';
import { isGrib } from './grib';
import { gribLayers } from './grib-layers';

/** Bytes read to tell the kind: GRIB may follow a WMO bulletin header (grib.ts searches its first 1024). */
const HEAD = 1024;

/**
 * The layers of `file` that read as rasters ([] for a file of another kind). `warn` is told of layers
 * left out of a long list (a GRIB file of thousands of messages lists its first MAX_LISTED).
 */
export async function gridLayers(file: string, warn?: (message: string) => void): Promise<string[]> {
  const head = Buffer.alloc(HEAD);
  let n = 0;
  const fh = await fs.promises.open(file, 'r');
  try { ({ bytesRead: n } = await fh.read(head, 0, HEAD, 0)); } finally { await fh.close(); }
  if (isHdf4(head)) return hdf4GridFields(file);
  if (isGrib(head.subarray(0, n))) return gribLayers(file, warn);
  return netcdfGridVariables(file);
}
