/**
 * SRTM height files (`N37W122.hgt`): how NASA's SRTMGL1/SRTMGL3 (`N37W122.SRTMGL1.hgt.zip`),
 * viewfinderpanoramas and many DEM downloads deliver elevation. A square grid of big-endian 16-bit
 * signed heights in metres, nothing else: the size says the spacing (3601² is 1″, 1201² is 3″) and
 * the name says the tile's south-west corner. Read as GDAL's SRTMHGT driver reads it: EPSG:4326,
 * samples are points on whole degrees, so the grid's origin is half a sample outside the tile,
 * and −32768 is nodata (voids).
 */
import * as fs from 'fs';
import * as path from 'path';
import { RawDataset } from './raw-dataset';

/** The tile's south-west corner from its name (N37W122, s05e120, as the SRTMGL1 zips name it too). */
const NAME = /^([NS])(\d{1,2})([EW])(\d{1,3})(?=[._]|$)/i;

/** Grid sizes GDAL's driver accepts: 1″, 3″ and 0.5″ tiles, and 1″ tiles halved in longitude at high latitudes. */
const SIZES: [number, number][] = [[3601, 3601], [1201, 1201], [7201, 7201], [1801, 3601]];

export class HgtDataset extends RawDataset {
  async init(): Promise<void> {
    const m = NAME.exec(path.basename(this.source));
    const st = await fs.promises.stat(this.source);
    const size = SIZES.find(([w, h]) => w * h * 2 === st.size);
    if (!size) throw this.fail(`${this.source}: not an SRTM height file (${st.size} bytes, where a 1201², 3601², 7201² or 1801×3601 grid of 16-bit heights takes 2 bytes a sample)`);
    if (!m) throw this.fail(`${this.source}: an SRTM height file says where it lies only by its name, which must start with its south-west corner (N37W122.hgt); rename it so`);
    const lat = Number(m[2]) * (m[1].toUpperCase() === 'S' ? -1 : 1);
    const lon = Number(m[4]) * (m[3].toUpperCase() === 'W' ? -1 : 1);
    if (Math.abs(lat) > 89 || Math.abs(lon) > 180) throw this.fail(`${this.source}: its name puts the tile at ${lat}°, ${lon}°, which is not a tile corner`);
    [this.width, this.height] = size;
    this.bandCount = 1;
    this.dtype = 'int16';
    this.littleEndian = false;
    this.nodata = -32768;
    const dx = 1 / (this.width - 1), dy = 1 / (this.height - 1);
    this.geo = { epsg: 4326, geographic: true, geoTransform: [lon - dx / 2, dx, 0, lat + 1 + dy / 2, 0, -dy] };
    await this.openData();
  }
}
