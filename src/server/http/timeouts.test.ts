import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { HTTP_TIMEOUT_DEFAULTS, loadConfig } from '../config';
import { openTestDatabase, testConfig } from '../../../test/helpers';

// A real listening server with short timeouts: a client that stops sending is cut off. Every
// wait below is for an event on the socket (a condition), never for a time.

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  database = await openTestDatabase();
  app = await buildApp({
    config: testConfig({ requestTimeoutMs: 400, headersTimeoutMs: 400, idleTimeoutMs: 60_000, keepAliveTimeoutMs: 200 }),
    db: database.db,
    client: 'none',
    logger: false,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await app?.close();
  await database?.close();
});

/** Connects, writes `chunks`, then sends nothing more; resolves with what came back when the server closes the connection. */
function sendAndStall(chunks: string[]): Promise<{ received: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // a reset is the server cutting the connection too
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') resolve({ received });
      else reject(err);
    });
    socket.on('close', () => resolve({ received }));
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
    });
  });
}

describe('HTTP timeouts', () => {
  it('has documented defaults, overridable from the environment', () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({ requestTimeoutMs: 300_000, headersTimeoutMs: 10_000, idleTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000 });
    expect(HTTP_TIMEOUT_DEFAULTS).toEqual({ requestTimeoutMs: 300_000, headersTimeoutMs: 10_000, idleTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000 });
    const set = loadConfig({
      HTTP_REQUEST_TIMEOUT_MS: '1000',
      HTTP_HEADERS_TIMEOUT_MS: '500',
      HTTP_IDLE_TIMEOUT_MS: '2000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
    });
    expect(set).toMatchObject({ requestTimeoutMs: 1000, headersTimeoutMs: 500, idleTimeoutMs: 2000, keepAliveTimeoutMs: 300 });
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT_MS: '0' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
  });

  it('applies the configured values to the server', () => {
    expect(app.server.requestTimeout).toBe(400);
    expect(app.server.headersTimeout).toBe(400);
    expect(app.server.keepAliveTimeout).toBe(200);
    expect(app.server.timeout).toBe(60_000);
  });

  it('cuts off a client that sends its headers and then stops sending the body it announced', async () => {
    const { received } = await sendAndStall([
      'POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
      '{"email": "a@example.com", ',
    ]);
    // Node answers 408 when it can, else it just closes: either way the connection is gone
    if (received) expect(received).toMatch(/^HTTP\/1\.1 408/);
  });

  it('cuts off a client that never finishes its headers', async () => {
    const { received } = await sendAndStall(['GET /api/auth/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ']);
    if (received) expect(received).toMatch(/^HTTP\/1\.1 408/);
  });
});
