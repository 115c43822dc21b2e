/**
 * The mock's HTTP plumbing: reading bounded bodies, the Content-Type check,
 * the Authorization header, sending answers, the time-outs against slow
 * clients and listening on loopback. Nothing here knows an endpoint.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Reply } from './reply.js';

/**
 * The body, or `too-large` as soon as it is declared or found larger than
 * `maxBody`: the rest is not read (the answer closes the connection).
 */
export function readBody(req: IncomingMessage, maxBody: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (declared > maxBody) {
      resolve('too-large');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size <= maxBody) {
        chunks.push(c);
        return;
      }
      req.off('data', onData);
      req.off('end', onEnd);
      req.pause();
      chunks.length = 0;
      resolve('too-large');
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/**
 * The reply, marked to close the connection once it is out (a 413): node
 * discards what the client still sends, for at most two seconds.
 */
export function closingAfter(req: IncomingMessage, res: ServerResponse, reply: Reply): Reply {
  res.on('finish', () => {
    setTimeout(() => req.socket.destroy(), 2000).unref();
  });
  return { ...reply, headers: { ...reply.headers, connection: 'close' } };
}

/** Sends a reply: JSON, or a string as HTML. */
export function send(res: ServerResponse, reply: Reply): void {
  const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': typeof reply.body === 'string' ? 'text/html' : 'application/json', 'content-length': Buffer.byteLength(text), ...reply.headers });
  res.end(text);
}

/** The client's request id, when its `x-request-id` header is a plain id (letters, digits, `-`, at most 64). */
export function requestIdOf(req: IncomingMessage): string | undefined {
  const rid = req.headers['x-request-id'];
  return typeof rid === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(rid) ? rid : undefined;
}

/**
 * Why the Authorization header does not carry a good bearer token
 * (undefined when it does); `tokenProblem` judges the token itself.
 */
export function authorizationProblem(header: string | undefined, tokenProblem: (token: string) => string | undefined): string | undefined {
  if (header === undefined) return 'the Authorization header is missing: send Authorization: Bearer <token> from /api/m1/abha/token';
  const m = /^Bearer ([^\s]+)$/.exec(header);
  if (m === null || m[1] === undefined) return 'the Authorization header must be "Bearer <token>"';
  return tokenProblem(m[1]);
}

const TOKEN_CHARS = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** One `; name=value` parameter of a media type (RFC 9110 §5.6.6); an empty one (`;`) is allowed. */
const MEDIA_PARAMETER = new RegExp(`^[ \\t]*;[ \\t]*(?:(${TOKEN_CHARS})=(${TOKEN_CHARS}|"(?:[^"\\\\]|\\\\.)*")[ \\t]*)?`);

/**
 * Whether a Content-Type is exactly `application/json` (any case), with
 * parameters or none; a charset other than utf-8 is `charset`. Anything else
 * (`application/jsonx`, `application/json-patch+json`, a list) is `not-json`.
 *
 * @example
 * jsonMediaType('application/json; charset=UTF-8') //=> 'ok'
 * jsonMediaType('application/json-patch+json') //=> 'not-json'
 */
export function jsonMediaType(header: string | undefined): 'ok' | 'not-json' | 'charset' {
  if (header === undefined) return 'not-json';
  const semi = header.indexOf(';');
  if ((semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase() !== 'application/json') return 'not-json';
  let rest = semi === -1 ? '' : header.slice(semi);
  while (rest.trim() !== '') {
    const m = MEDIA_PARAMETER.exec(rest);
    if (m === null) return 'not-json';
    const [whole, name, quoted] = m;
    if (name !== undefined && quoted !== undefined && name.toLowerCase() === 'charset') {
      const value = quoted.startsWith('"') ? quoted.slice(1, -1).replace(/\\(.)/g, '$1') : quoted;
      if (value.toLowerCase() !== 'utf-8') return 'charset';
    }
    rest = rest.slice(whole.length);
  }
  return 'ok';
}

/** An HTTP server on loopback with time-outs against slow clients, and a close that ends every connection. */
export interface LoopbackServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Listens on `host:port` with the request listener: headers must arrive within
 * `headersTimeout` ms and the whole request within `requestTimeout` ms (then
 * node answers 408 and closes the connection).
 *
 * @throws the listen error when the port is taken
 */
export async function listen(listener: RequestListener, host: string, port: number, headersTimeout: number, requestTimeout: number): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const httpServer: Server = createServer(
    {
      // Shorter than the header time-out, so that an idle kept-alive connection closes quietly rather than with a 408.
      keepAliveTimeout: Math.min(5_000, headersTimeout),
      headersTimeout,
      requestTimeout,
      // How often node looks for connections past those time-outs (its default, 30 s, would let them run on).
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    listener,
  );
  httpServer.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        for (const s of sockets) s.destroy();
        httpServer.closeAllConnections();
      }),
  };
}
