/**
 * Redaction for everything that may reach a message, a log line or a file: credentials in URLs
 * (`user:password@`), signed query parameters, bearer tokens and key-shaped strings.
 */

const REDACTED = '[redacted]';
/** Query parameters whose values are secrets (API keys, SAS and S3 signatures, tokens). */
const SECRET_PARAM = /(?:key|token|sig|signature|secret|password|passwd|credential|auth|session)/i;

/** A URL fit for messages: no `user:password@`, secret-looking query values replaced. Unparseable text goes through `redactText`. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return redactText(url);
  }
  if (u.username || u.password) {
    u.username = '';
    u.password = '';
  }
  for (const [k] of [...u.searchParams]) if (SECRET_PARAM.test(k)) u.searchParams.set(k, REDACTED);
  // URLSearchParams encodes the brackets; keep the marker readable.
  return u.toString().replace(/%5Bredacted%5D/g, REDACTED);
}

/**
 * `text` with every URL credential, secret query value, bearer token and API-key-shaped string
 * replaced, and each of `secrets` (known keys) removed verbatim.
 */
export function redactText(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join(REDACTED);
  return out
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"<>]+@/gi, `$1${REDACTED}@`)
    .replace(/([?&;][^=&\s#'"<>]*=)([^&\s#'"<>]+)/g, (m, name: string, value: string) => (SECRET_PARAM.test(name) && value !== REDACTED ? `${name}${REDACTED}` : m))
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/g, `$1 ${REDACTED}`)
    .replace(/\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, REDACTED)
    .replace(/\b(api[-_]?key|apikey|access[-_]?token|secret)(["']?\s*[:=]\s*["']?)[^\s"',;&]{6,}/gi, `$1$2${REDACTED}`);
}
