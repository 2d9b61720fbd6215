/**
 * A `fetch` whose answers are bounded in size: a server (or a proxy in front of it) that sends an
 * endless or gigantic body fails the request instead of filling memory.
 */

/** More than any embeddings or chat answer GeoWeave asks for (64 texts of 3072 floats is about 4 MB of JSON). */
export const MAX_ANSWER_BYTES = 64 << 20;

export function boundedFetch(maxBytes = MAX_ANSWER_BYTES, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw new Error(`the server announced a ${declared}-byte answer, more than the ${maxBytes} bytes accepted`);
    }
    if (!res.body) return res;
    let seen = 0;
    const counted = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctrl) {
        seen += chunk.byteLength;
        if (seen > maxBytes) ctrl.error(new Error(`the server sent more than the ${maxBytes} bytes accepted`));
        else ctrl.enqueue(chunk);
      },
    }));
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
