/**
 * The GDAL PAM sidecar of a remote raster, `<url>.aux.xml`, read as GDAL's /vsicurl/ reads it: one
 * GET when the raster is opened, so a COG's category names reach legends and tables as a local
 * file's do. No sidecar (404), any other refusal or a network error means none, silently: most
 * COGs have no sidecar, and the raster itself opened fine. A sidecar too large to read is ignored
 * with the same warning as a local one (the text itself goes through color-table's parser).
 */
import { redactUrl } from '../../net/redact';
import { MAX_PAM_BYTES, pamTooLarge } from './color-table';
import { HttpRangeClient, HttpTooLargeError, httpOptions } from './http-client';

/** `<url>.aux.xml`: the suffix goes on the path, a query (a signed URL's) stays after it. */
export function sidecarUrl(url: string): string {
  const u = new URL(url);
  u.pathname += '.aux.xml';
  return u.href;
}

/**
 * The text of the sidecar of `url` and its name for messages (credentials redacted), or undefined
 * when there is none. Not retried: a missing sidecar is the common case and must not cost backoffs.
 * A cancellation is rethrown (the open is being abandoned, not the sidecar).
 */
export async function fetchSidecar(url: string, warn: (message: string) => void, signal?: AbortSignal): Promise<{ name: string; text: string } | undefined> {
  let aux: string;
  try { aux = sidecarUrl(url); } catch { return undefined; }
  const name = redactUrl(aux);
  try {
    const client = new HttpRangeClient(aux, { ...httpOptions(), retries: 0 });
    const res = await client.request({ signal, maxBytes: MAX_PAM_BYTES });
    return { name, text: new TextDecoder('utf-8').decode(await res.getData()) };
  } catch (e) {
    if (signal?.aborted) throw e;
    if (e instanceof HttpTooLargeError) warn(pamTooLarge(name));
    return undefined;
  }
}
