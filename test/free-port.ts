import net from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now (the kernel's pick), for a server a
 * test or the bench starts: an app, PgBouncer, a PostgreSQL cluster, Chromium's target.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
