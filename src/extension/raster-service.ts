/** The raster engine, imported on first use (geotiff and the tools are not needed at activation). */
import type * as Engine from '../core/raster/engine';

let engine: Promise<typeof Engine> | undefined;

export function rasterEngine(): Promise<typeof Engine> {
  engine ??= import('../core/raster/engine');
  return engine;
}
