/**
 * numpy + GDAL (python) translations of a few builtin tools, for the Jupyter export: only where the
 * translation computes what the engine computes (same formula, same nodata handling, same output
 * type, nodata value and file name). Kept small on purpose: ndvi, threshold and dnbr with their
 * bands given as numbers. Anything else (bands found from descriptions, sensor presets with an
 * offset, other tools) is exported as a `geoweave run` call instead.
 */
import type { ExportStep } from './export';

/** Python helpers the translated cells use; defined once in the export's first code cell. */
export const PYTHON_HELPERS = `
def _path(p):
    """A cell argument: a workspace path as written, or an output of an earlier cell under OUT."""
    return os.path.join(OUT, p['out']) if isinstance(p, dict) else p

def _read(ds, i):
    """Band i as float64 with nodata as NaN and the band's scale/offset applied, as GeoWeave reads it."""
    b = ds.GetRasterBand(i)
    a = b.ReadAsArray().astype(np.float64)
    nd = b.GetNoDataValue()
    if nd is not None:
        a[a == (np.float32(nd) if b.DataType == gdal.GDT_Float32 else nd)] = np.nan
    return a * (b.GetScale() or 1.0) + (b.GetOffset() or 0.0)

def _write(path, like, arr, dtype, nodata, description):
    """One-band GeoTIFF on the grid of \`like\` (NaN written as nodata)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    ds = gdal.GetDriverByName('GTiff').Create(path, like.RasterXSize, like.RasterYSize, 1, dtype, ['COMPRESS=DEFLATE', 'TILED=YES'])
    ds.SetGeoTransform(like.GetGeoTransform())
    ds.SetProjection(like.GetProjection())
    b = ds.GetRasterBand(1)
    b.SetNoDataValue(nodata)
    b.SetDescription(description)
    b.WriteArray(np.where(np.isnan(arr), nodata, arr))
    ds = None
`.trim();

type Step = Pick<ExportStep, 'tool' | 'values' | 'outputs'>;

const OPS: Record<string, string> = { gt: '>', ge: '>=', lt: '<', le: '<=', eq: '==', ne: '!=' };

function isBand(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1;
}

/** A path argument the translation can read: a local file or an earlier cell's output. */
function isPath(v: unknown): v is string | { out: string } {
  if (typeof v === 'string') return v !== '' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(v) && !v.trim().startsWith('{') && !v.trim().startsWith('[');
  return !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { out?: unknown }).out === 'string' && Object.keys(v).length === 1;
}

function pyPath(v: string | { out: string }): string {
  return typeof v === 'string' ? JSON.stringify(v) : `_path({'out': ${JSON.stringify(v.out)}})`;
}

function only(values: Record<string, unknown>, allowed: string[]): boolean {
  return Object.keys(values).every((k) => allowed.includes(k) && values[k] !== null && values[k] !== '');
}

/** Sensor presets whose scaling keeps a normalized difference unchanged (a factor, no offset). */
const RATIO_SAFE_SENSORS = new Set([undefined, 'sentinel2_l2a']);

/** The python of a step, or undefined when there is no exact translation. */
export function translateCell(step: Step): string | undefined {
  const v = step.values;
  const outPath = (name: string) => (step.outputs[name] ? `os.path.join(OUT, ${JSON.stringify(step.outputs[name])})` : undefined);
  switch (step.tool) {
    case 'ndvi': {
      const out = outPath('index');
      if (!out || !only(v, ['image', 'red', 'nir', 'sensor']) || !isPath(v.image) || !isBand(v.red) || !isBand(v.nir) || !RATIO_SAFE_SENSORS.has(v.sensor as string | undefined)) return undefined;
      return [
        `# ndvi: (NIR - red) / (NIR + red); nodata or a zero sum gives nodata (-9999), float32${v.sensor ? ` (the ${v.sensor} scaling cancels out)` : ''}`,
        `src = gdal.Open(${pyPath(v.image)})`,
        `nir, red = _read(src, ${v.nir}), _read(src, ${v.red})`,
        `with np.errstate(divide='ignore', invalid='ignore'):`,
        `    ndvi = np.where(nir + red == 0, np.nan, (nir - red) / (nir + red))`,
        `_write(${out}, src, ndvi, gdal.GDT_Float32, -9999, 'ndvi')`,
        `print('ndvi mean', float(np.nanmean(ndvi)))`,
      ].join('\n');
    }
    case 'threshold': {
      const out = outPath('mask');
      const band = v.band ?? 1;
      if (!out || !only(v, ['image', 'band', 'op', 'value']) || !isPath(v.image) || !isBand(band) || typeof v.value !== 'number' || typeof v.op !== 'string' || !OPS[v.op.toLowerCase()]) return undefined;
      const op = v.op.toLowerCase();
      return [
        `# threshold: 1 where band ${band} ${OPS[op]} ${v.value}, else 0; nodata stays nodata (255), uint8`,
        `src = gdal.Open(${pyPath(v.image)})`,
        `a = _read(src, ${band})`,
        `with np.errstate(invalid='ignore'):`,
        `    mask = np.where(np.isnan(a), np.nan, (a ${OPS[op]} ${JSON.stringify(v.value)}).astype(np.float64))`,
        `_write(${out}, src, mask, gdal.GDT_Byte, 255, ${JSON.stringify(`band ${band} ${op} ${v.value}`)})`,
        `print('share set', float(np.nanmean(mask)))`,
      ].join('\n');
    }
    case 'dnbr': {
      const out = outPath('dnbr');
      if (!out || !only(v, ['pre', 'post', 'nir', 'swir2', 'sensor']) || !isPath(v.pre) || !isPath(v.post) || !isBand(v.nir) || !isBand(v.swir2) || !RATIO_SAFE_SENSORS.has(v.sensor as string | undefined)) return undefined;
      return [
        `# dnbr: NBR(pre) - NBR(post), NBR = (NIR - SWIR2) / (NIR + SWIR2); a zero sum or nodata gives nodata (-9999), float32`,
        `pre, post = gdal.Open(${pyPath(v.pre)}), gdal.Open(${pyPath(v.post)})`,
        `def nbr(ds):`,
        `    n, s = _read(ds, ${v.nir}), _read(ds, ${v.swir2})`,
        `    with np.errstate(divide='ignore', invalid='ignore'):`,
        `        return np.where(n + s == 0, np.nan, (n - s) / (n + s))`,
        `dnbr = nbr(pre) - nbr(post)`,
        `_write(${out}, pre, dnbr, gdal.GDT_Float32, -9999, 'dnbr')`,
        `print('dnbr mean', float(np.nanmean(dnbr)))`,
      ].join('\n');
    }
    default:
      return undefined;
  }
}
