/**
 * The raster files the engine reads, by extension: GeoTIFF, JPEG 2000 as Sentinel-2 SAFE products
 * deliver their bands (.jp2) or as a bare codestream (.j2k), and GDAL virtual rasters (.vrt: the
 * mosaics and band stacks gdalbuildvrt writes), SRTM height files (.hgt), and ENVI and ESRI (EHdr)
 * rasters by their header (.hdr beside the raw data), ESRI ASCII grids (.asc), DTED tiles (.dt0–.dt2)
 * and NetCDF files, classic and NetCDF-4 (.nc, .nc4), with HDF5 files laid out as NetCDF-4 or as
 * HDF-EOS5 grids (.h5, .hdf5, .he5), HDF4 files as MODIS land products come (.hdf), ERDAS
 * Imagine files (.img: NLCD; an ENVI .img is read through the .hdr beside it), and GRIB files
 * (.grib, .grib2, .grb, .grb2: ERA5, GFS, ECMWF open data; one band per field, or one message as
 * `gfs.grib2#5`). Arguments that pass paths to a
 * team's own tools accept what those tools may read.
 */
export const RASTER_FILE = /\.(tiff?|jp2|j2k|vrt|hgt|hdr|asc|dt[0-2]|nc|nc4|h5|hdf5|he5|hdf|img|grib2?|grb2?)$|\.nc#[A-Za-z_][\w.-]*(\/[A-Za-z_][\w.-]*)*$|\.(nc4|h5|hdf5|he5|hdf)#[^#\\]+$|\.(grib2?|grb2?)#[^#\\]+$/i;

/** Files that may hold several rasters, each listed and read as `file#layer`: NetCDF variables, HDF4 and HDF-EOS5 fields, GRIB messages. */
export const LAYERED_FILE = /\.(nc|nc4|h5|hdf5|he5|hdf|grib2?|grb2?)$/i;

/** GRIB files by extension (the readers tell GRIB by its bytes; this picks files to list). */
export const GRIB_FILE = /\.(grib2?|grb2?)$/i;

/**
 * Whether the scan and the workspace list the layers of `file` besides (or instead of) the file,
 * given the bands it opened with whole (undefined: it did not open). A NetCDF or HDF file that opens
 * whole as one band is that layer; a MODIS/VIIRS file that opens as a scene of several lists its
 * fields too. A GRIB file opens whole on its first grid only, so its messages on other grids are
 * listed even when that grid holds one band.
 */
export function listsLayers(file: string, wholeBands: number | undefined): boolean {
  if (!LAYERED_FILE.test(file)) return false;
  return wholeBands === undefined || wholeBands > 1 || GRIB_FILE.test(file);
}

/**
 * `era5.nc#t2m`: one variable of a NetCDF file holding several; the file's path and the variable
 * (`s5p.nc#PRODUCT/methane_mixing_ratio` for one in a group). After an HDF5 extension (.h5, .he5,
 * .hdf5, .nc4) any name follows the first `#`: HDF-EOS5 fields have spaces
 * (`VNP13A1.A2024161.h18v04.002.h5#500 m 16 days NDVI`, `#GRID/FIELD` where two grids share one).
 */
export function netcdfVariable(p: string): { file: string; variable: string } | undefined {
  const m = /^(.*?\.(?:nc4|h5|hdf5|he5))#([^#\\]+)$/i.exec(p) ?? /^(.*\.nc)#([A-Za-z_][\w.-]*(?:\/[A-Za-z_][\w.-]*)*)$/i.exec(p);
  return m ? { file: m[1], variable: m[2] } : undefined;
}

/**
 * `MOD13Q1.A2024161.h18v04.061.hdf#250m 16 days NDVI`: one field of an HDF4 file (MODIS names its
 * fields with spaces; `#GRID/FIELD` where two grids share a field name).
 */
export function hdf4Field(p: string): { file: string; variable: string } | undefined {
  const m = /^(.*\.hdf)#([^#\\]+)$/i.exec(p);
  return m ? { file: m[1], variable: m[2] } : undefined;
}

/**
 * `gfs.grib2#5`, `era5.grib#2T`, `gfs.grib2#TMP:2-HTGL`: one message of a GRIB file, by its band
 * number as GDAL numbers them, its element, or element and level (io/grib-select.ts says which match).
 */
export function gribMessage(p: string): { file: string; variable: string } | undefined {
  const m = /^(.*\.(?:grib2?|grb2?))#([^#\\]+)$/i.exec(p);
  return m ? { file: m[1], variable: m[2] } : undefined;
}

/** The layer a path names in a file of several (a NetCDF variable, an HDF4 field, a GRIB message), and its file. */
export function fileLayer(p: string): { file: string; variable: string } | undefined {
  return netcdfVariable(p) ?? hdf4Field(p) ?? gribMessage(p);
}

/** JPEG 2000 by extension (the reader decodes on threads of its own; see io/jp2/decode-pool.ts). */
export const JP2_FILE = /\.(jp2|j2k)$/i;

/** Extensions for VS Code globs (`**\/*.{…}`), both cases where file systems care. */
export const RASTER_GLOB_EXTENSIONS = ['tif', 'tiff', 'TIF', 'TIFF', 'jp2', 'JP2', 'j2k', 'J2K', 'vrt', 'VRT', 'hgt', 'HGT', 'hdr', 'HDR', 'asc', 'ASC', 'dt0', 'DT0', 'dt1', 'DT1', 'dt2', 'DT2', 'nc', 'NC', 'nc4', 'NC4', 'h5', 'H5', 'hdf5', 'HDF5', 'he5', 'HE5', 'hdf', 'HDF', 'img', 'IMG', 'grib', 'GRIB', 'grib2', 'GRIB2', 'grb', 'GRB', 'grb2', 'GRB2'];
