/**
 * proj4 definitions of the EPSG codes GeoWeave knows without a CRS database: lon/lat datums, UTM
 * families, web and world Mercator, and the national and continental grids analysts meet most.
 * Datum shifts are the EPSG database's default transformation to WGS84 (towgs84), as PROJ applies
 * when no grid file is installed.
 */

const WGS84 = '+datum=WGS84';
const GRS80_ZERO = '+ellps=GRS80 +towgs84=0,0,0,0,0,0,0';

/** Single codes, by number. */
const TABLE: Record<number, { name: string; def: string }> = {
  4326: { name: 'WGS 84', def: `+proj=longlat ${WGS84} +no_defs` },
  4258: { name: 'ETRS89', def: `+proj=longlat ${GRS80_ZERO} +no_defs` },
  4269: { name: 'NAD83', def: '+proj=longlat +datum=NAD83 +no_defs' },
  4283: { name: 'GDA94', def: `+proj=longlat ${GRS80_ZERO} +no_defs` },
  4674: { name: 'SIRGAS 2000', def: `+proj=longlat ${GRS80_ZERO} +no_defs` },
  4490: { name: 'China Geodetic Coordinate System 2000', def: '+proj=longlat +ellps=GRS80 +no_defs' },
  3857: { name: 'WGS 84 / Pseudo-Mercator', def: '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs' },
  3395: { name: 'WGS 84 / World Mercator', def: `+proj=merc +lon_0=0 +k=1 +x_0=0 +y_0=0 ${WGS84} +units=m +no_defs` },
  3035: { name: 'ETRS89-extended / LAEA Europe', def: `+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 ${GRS80_ZERO} +units=m +no_defs` },
  3034: { name: 'ETRS89-extended / LCC Europe', def: `+proj=lcc +lat_0=52 +lon_0=10 +lat_1=35 +lat_2=65 +x_0=4000000 +y_0=2800000 ${GRS80_ZERO} +units=m +no_defs` },
  5070: { name: 'NAD83 / Conus Albers', def: '+proj=aea +lat_0=23 +lon_0=-96 +lat_1=29.5 +lat_2=45.5 +x_0=0 +y_0=0 +datum=NAD83 +units=m +no_defs' },
  6350: { name: 'NAD83(2011) / Conus Albers', def: `+proj=aea +lat_0=23 +lon_0=-96 +lat_1=29.5 +lat_2=45.5 +x_0=0 +y_0=0 ${GRS80_ZERO} +units=m +no_defs` },
  3577: { name: 'GDA94 / Australian Albers', def: `+proj=aea +lat_0=0 +lon_0=132 +lat_1=-18 +lat_2=-36 +x_0=0 +y_0=0 ${GRS80_ZERO} +units=m +no_defs` },
  2154: { name: 'RGF93 v1 / Lambert-93', def: `+proj=lcc +lat_0=46.5 +lon_0=3 +lat_1=49 +lat_2=44 +x_0=700000 +y_0=6600000 ${GRS80_ZERO} +units=m +no_defs` },
  2169: { name: 'LUREF / Luxembourg TM', def: '+proj=tmerc +lat_0=49.8333333333333 +lon_0=6.16666666666667 +k=1 +x_0=80000 +y_0=100000 +ellps=intl +towgs84=-189.681,18.3463,-42.7695,-0.33746,-3.09264,2.53861,0.4598 +units=m +no_defs' },
  27700: { name: 'OSGB36 / British National Grid', def: '+proj=tmerc +lat_0=49 +lon_0=-2 +k=0.9996012717 +x_0=400000 +y_0=-100000 +ellps=airy +towgs84=446.448,-125.157,542.06,0.15,0.247,0.842,-20.489 +units=m +no_defs' },
  31370: { name: 'BD72 / Belgian Lambert 72', def: '+proj=lcc +lat_0=90 +lon_0=4.36748666666667 +lat_1=51.1666672333333 +lat_2=49.8333339 +x_0=150000.013 +y_0=5400088.438 +ellps=intl +towgs84=-106.8686,52.2978,-103.7239,0.3366,-0.457,1.8422,-1.2747 +units=m +no_defs' },
  3006: { name: 'SWEREF99 TM', def: `+proj=utm +zone=33 ${GRS80_ZERO} +units=m +no_defs` },
  3031: { name: 'WGS 84 / Antarctic Polar Stereographic', def: `+proj=stere +lat_0=-90 +lat_ts=-71 +lon_0=0 +k=1 +x_0=0 +y_0=0 ${WGS84} +units=m +no_defs` },
  3413: { name: 'WGS 84 / NSIDC Sea Ice Polar Stereographic North', def: `+proj=stere +lat_0=90 +lat_ts=70 +lon_0=-45 +k=1 +x_0=0 +y_0=0 ${WGS84} +units=m +no_defs` },
  6933: { name: 'WGS 84 / NSIDC EASE-Grid 2.0 Global', def: `+proj=cea +lat_ts=30 +lon_0=0 +x_0=0 +y_0=0 ${WGS84} +units=m +no_defs` },
  8857: { name: 'WGS 84 / Equal Earth Greenwich', def: `+proj=eqearth +lon_0=0 +x_0=0 +y_0=0 ${WGS84} +units=m +no_defs` },
  4087: { name: 'WGS 84 / World Equidistant Cylindrical', def: `+proj=eqc +lat_ts=0 +lat_0=0 +lon_0=0 +x_0=0 +y_0=0 ${WGS84} +units=m +no_defs` },
};

function utm(zone: number, south: boolean, datum: string): string {
  return `+proj=utm +zone=${zone}${south ? ' +south' : ''} ${datum} +units=m +no_defs`;
}

/** The CRS's name and proj4 definition, or undefined for a code GeoWeave does not know. */
export function epsgDefinition(code: number): { name: string; def: string } | undefined {
  if (!Number.isInteger(code)) return undefined;
  const hit = TABLE[code];
  if (hit) return hit;
  // WGS 84 / UTM zone 1N..60N and 1S..60S.
  if (code >= 32601 && code <= 32660) return { name: `WGS 84 / UTM zone ${code - 32600}N`, def: utm(code - 32600, false, WGS84) };
  if (code >= 32701 && code <= 32760) return { name: `WGS 84 / UTM zone ${code - 32700}S`, def: utm(code - 32700, true, WGS84) };
  // ETRS89 / UTM zone 28N..38N.
  if (code >= 25828 && code <= 25838) return { name: `ETRS89 / UTM zone ${code - 25800}N`, def: utm(code - 25800, false, GRS80_ZERO) };
  // NAD83 / UTM zone 1N..23N.
  if (code >= 26901 && code <= 26923) return { name: `NAD83 / UTM zone ${code - 26900}N`, def: utm(code - 26900, false, '+datum=NAD83') };
  // GDA94 / MGA zone 48..58.
  if (code >= 28348 && code <= 28358) return { name: `GDA94 / MGA zone ${code - 28300}`, def: utm(code - 28300, true, GRS80_ZERO) };
  // SIRGAS 2000 / UTM zone 17S..25S.
  if (code >= 31977 && code <= 31985) return { name: `SIRGAS 2000 / UTM zone ${code - 31960}S`, def: utm(code - 31960, true, GRS80_ZERO) };
  return undefined;
}

/** EPSG codes of GeoTIFF `ProjectionGeoKey` conversions (UTM north 16001–16060, south 16101–16160) as proj4 parameters. */
export function epsgConversion(code: number): string | undefined {
  if (code >= 16001 && code <= 16060) return `+proj=utm +zone=${code - 16000}`;
  if (code >= 16101 && code <= 16160) return `+proj=utm +zone=${code - 16100} +south`;
  return undefined;
}

/** proj4 ellipsoid parameters of EPSG ellipsoid codes GeoTIFF files name. */
export const ELLIPSOIDS: Record<number, string> = {
  7030: '+ellps=WGS84', 7019: '+ellps=GRS80', 7022: '+ellps=intl', 7001: '+ellps=airy', 7004: '+ellps=bessel',
  7008: '+ellps=clrk66', 7012: '+ellps=clrk80', 7043: '+ellps=WGS72', 7024: '+ellps=krass', 7035: '+a=6371007 +b=6371007',
  7059: '+a=6378137 +b=6378137',
};

/** proj4 datum parameters of EPSG datum codes GeoTIFF files name. */
export const DATUMS: Record<number, string> = {
  6326: '+datum=WGS84', 6258: '+ellps=GRS80 +towgs84=0,0,0,0,0,0,0', 6269: '+datum=NAD83', 6283: '+ellps=GRS80 +towgs84=0,0,0,0,0,0,0',
  6267: '+datum=NAD27', 6277: '+datum=OSGB36', 6674: '+ellps=GRS80 +towgs84=0,0,0,0,0,0,0',
};

/** Geographic CRS codes whose datum GeoTIFF keys may name instead of a datum code. */
export const GEOGRAPHIC_DATUM: Record<number, number> = { 4326: 6326, 4258: 6258, 4269: 6269, 4283: 6283, 4674: 6674, 4267: 6267, 4277: 6277 };
