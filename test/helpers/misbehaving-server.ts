/**
 * A local HTTP server on 127.0.0.1 whose paths misbehave on purpose: `/ok/<name>` serves a file
 * with range requests; `/stall` accepts and never answers; `/drip` sends headers then a byte every
 * `dripMs`; `/loop` redirects to itself; `/status/<code>` answers that code; `/flaky/<n>/<name>`
 * answers 500 n times, then serves; `/reset` drops the connection; `/garbage` sends bytes that are
 * not HTTP; `/full/<name>` ignores Range; `/long/<name>` sends more than the range asked for;
 * `/badrange/<name>` answers with a wrong Content-Range; `/moved/<name>` redirects permanently to
 * `/ok/<name>`; `/echo` quotes the Authorization header back in a 400; `/huge` streams an endless
 * 200; `/json/<name>` answers canned malformed API bodies; `/tofile` redirects to file:///etc/passwd.
 * Every request is counted by path.
 */
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';

export interface MisbehavingServer {
  base: string;
  /** Requests seen per first path segment ("ok", "flaky", ...). */
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startMisbehavingServer(dir: string, opts: { dripMs?: number } = {}): Promise<MisbehavingServer> {
  const hits = new Map<string, number>();
  const flaky = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  // A raw TCP server: garbage and half answers need full control of the bytes on the wire.
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = '';
    let skip = 0;
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      for (;;) {
        // A request body (the SDKs POST JSON) is skipped, not taken for the next request.
        if (skip) {
          const n = Math.min(skip, buf.length);
          buf = buf.slice(n);
          skip -= n;
          if (skip) return;
        }
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.slice(0, end);
        buf = buf.slice(end + 4);
        skip = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        handle(socket, head);
      }
    });
  });

  const send = (s: net.Socket, status: string, headers: Record<string, string | number>, body: Buffer = Buffer.alloc(0)) => {
    const lines = [`HTTP/1.1 ${status}`, ...Object.entries({ 'Content-Length': body.length, ...headers }).map(([k, v]) => `${k}: ${v}`)];
    s.write(lines.join('\r\n') + '\r\n\r\n');
    if (body.length) s.write(body);
  };

  const serveFile = (s: net.Socket, file: string, range: [number, number | undefined] | undefined, mode: 'ok' | 'full' | 'long' | 'badrange') => {
    let data: Buffer;
    try {
      data = fs.readFileSync(path.join(dir, path.basename(file)));
    } catch {
      return send(s, '404 Not Found', {});
    }
    if (!range || mode === 'full') return send(s, '200 OK', { 'Accept-Ranges': 'bytes' }, data);
    const start = range[0];
    const end = Math.min(data.length - 1, range[1] ?? data.length - 1);
    if (start >= data.length) return send(s, '416 Range Not Satisfiable', { 'Content-Range': `bytes */${data.length}` });
    if (mode === 'long') return send(s, '206 Partial Content', { 'Content-Range': `bytes ${start}-${end}/${data.length}` }, Buffer.concat([data.subarray(start, end + 1), Buffer.alloc(4096, 7)]));
    if (mode === 'badrange') return send(s, '206 Partial Content', { 'Content-Range': `bytes ${start + 1}-${end}/${data.length}` }, data.subarray(start + 1, end + 1));
    send(s, '206 Partial Content', { 'Content-Range': `bytes ${start}-${end}/${data.length}`, 'Accept-Ranges': 'bytes' }, data.subarray(start, end + 1));
  };

  const handle = (s: net.Socket, head: string): void => {
    const [requestLine, ...headerLines] = head.split('\r\n');
    const url = requestLine.split(' ')[1] ?? '/';
    const parts = url.split('/').filter(Boolean);
    const kind = parts[0] ?? '';
    hits.set(kind, (hits.get(kind) ?? 0) + 1);
    const rangeHeader = headerLines.find((l) => /^range:/i.test(l));
    const m = rangeHeader ? /bytes=(\d+)-(\d*)/.exec(rangeHeader) : null;
    const range: [number, number | undefined] | undefined = m ? [Number(m[1]), m[2] ? Number(m[2]) : undefined] : undefined;
    switch (kind) {
      case 'ok': case 'full': case 'long': case 'badrange':
        return serveFile(s, parts.slice(1).join('/'), range, kind);
      case 'moved':
        return send(s, '301 Moved Permanently', { Location: `/ok/${parts.slice(1).join('/')}` });
      case 'stall':
        return; // never answer
      case 'drip': {
        s.write('HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-1023/1024\r\nContent-Length: 1024\r\n\r\n');
        const t = setInterval(() => { if (!s.destroyed) s.write('x'); }, opts.dripMs ?? 2000);
        timers.add(t);
        s.on('close', () => { clearInterval(t); timers.delete(t); });
        return;
      }
      case 'loop':
        return send(s, '302 Found', { Location: url });
      case 'status':
        return send(s, `${Number(parts[1]) || 500} Status`, {}, Buffer.from('{"error":"as requested"}'));
      case 'flaky': {
        const key = parts.slice(1).join('/');
        const left = flaky.has(key) ? flaky.get(key)! : Number(parts[1]);
        if (left > 0) {
          flaky.set(key, left - 1);
          return send(s, '500 Internal Server Error', {});
        }
        return serveFile(s, parts.slice(2).join('/'), range, 'ok');
      }
      case 'reset':
        s.resetAndDestroy();
        return;
      case 'echo': {
        // A careless server quoting the request's credentials back in its error.
        const auth = headerLines.find((l) => /^authorization:/i.test(l)) ?? 'none';
        return send(s, '400 Bad Request', { 'Content-Type': 'application/json' }, Buffer.from(JSON.stringify({ error: { message: `rejected ${auth} for ${url}` } })));
      }
      case 'huge': {
        s.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
        // One whole chunk frame per write, so back-pressure never splits a frame.
        const frame = Buffer.concat([Buffer.from(`${(1 << 20).toString(16)}\r\n`), Buffer.alloc(1 << 20, 32), Buffer.from('\r\n')]);
        let sent = 0;
        const pump = () => {
          let more = true;
          while (!s.destroyed && sent < 200 && more) { more = s.write(frame); sent++; }
          if (!s.destroyed && sent < 200) s.once('drain', pump);
          else if (!s.destroyed) s.end('0\r\n\r\n');
        };
        return pump();
      }
      case 'json': {
        const bodies: Record<string, unknown> = {
          nanvec: { object: 'list', data: [{ index: 0, embedding: [1, 'x', 3] }] },
          wrongcount: { object: 'list', data: [] },
          noindex: { object: 'list', data: [{ embedding: [1, 2, 3] }, { embedding: [1, 2, 3] }] },
          nochoices: { id: 'x', choices: [] },
          notjson: 'this is not { json',
        };
        const body = bodies[parts[1]] ?? {};
        return send(s, '200 OK', { 'Content-Type': 'application/json' }, Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)));
      }
      case 'tofile':
        return send(s, '302 Found', { Location: 'file:///etc/passwd' });
      case 'garbage':
        s.write(Buffer.from('\x00\xff\x13GARBAGE not http at all\r\n\r\n\x01\x02'));
        s.end();
        return;
      default:
        return send(s, '404 Not Found', {});
    }
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise((resolve) => {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
