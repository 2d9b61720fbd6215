/** Band roles and sensor presets offered in tool cells (docs/TOOLS.md); kept here rather than
 *  imported from the raster engine so editing features do not load geotiff. A unit test checks
 *  they match the engine's lists. */
export const BAND_ROLES = ['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2', 'thermal', 'qa'] as const;
export const SENSOR_PRESETS = ['sentinel2_l2a', 'sentinel2_l1c', 'landsat89_c2l2', 'landsat457_c2l2', 'landsat457_tm', 'naip', 'planetscope_4b'] as const;
