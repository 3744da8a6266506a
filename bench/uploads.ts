import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type postgres from 'postgres';
import sharp from 'sharp';
import { writeDocsSection } from './docs-section';
import type { Child, CpuMeter, CpuSnapshot, Options } from './run';

/**
 * The uploads part of `npm run bench` (`--only uploads`, used by bench/run.ts): the time an image
 * takes through the app's upload call (`POST /api/upload/campaign/multi?kind=gallery`, multipart,
 * signed in) with uploads on local disk (the default) and in an S3 bucket (S3_BUCKET), the bucket
 * served by s3rver (a real S3 HTTP server, the one the tests use) in a process of its own on this
 * machine. Each image is a photo-like JPEG made with sharp; the app checks it, fits it in
 * 1600x1600 and re-encodes it as WebP before storing it, as for any upload. `--images` images per
 * storage one at a time, then as many two at a time, the two storages in turn over ROUNDS rounds.
 */

const ROUNDS = 3;
const WIDTH = 1600;
const HEIGHT = 1200;
/** A few different pictures in turn, so that no two uploads in a row send the same bytes. */
const PICTURES = 4;
const BUCKET = 'kindling-bench';
const UPLOAD_PATH = '/api/upload/campaign/multi?kind=gallery';

export interface UploadsTools {
  startApp(settings: NodeJS.ProcessEnv): Promise<{ child: Child; base: string }>;
  stopChild(c: Child): Promise<void>;
  waitForQuiet(meter: CpuMeter): Promise<number>;
  otherCores(a: CpuSnapshot, b: CpuSnapshot): number;
  meterFor(pgids: number[], appNames: string[]): CpuMeter;
  ticksPerSecond: number;
  percentile(sorted: number[], p: number): number;
}

/** A photo-like picture: smooth colour gradients and waves under fine noise, so that JPEG has real work and a realistic size. */
async function picture(seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(WIDTH * HEIGHT * 3);
  let r = seed * 2654435761;
  const noise = () => {
    r = (r * 1103515245 + 12345) >>> 0;
    return (r >>> 24) - 128;
  };
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const i = (y * WIDTH + x) * 3;
      const wave = Math.sin((x + seed * 97) / 37) * Math.cos(y / 53) * 60;
      raw[i] = Math.max(0, Math.min(255, (x / WIDTH) * 200 + wave + noise() / 6));
      raw[i + 1] = Math.max(0, Math.min(255, (y / HEIGHT) * 180 + 40 - wave / 2 + noise() / 6));
      raw[i + 2] = Math.max(0, Math.min(255, 120 + Math.sin((x * y) / 40000 + seed) * 90 + noise() / 6));
    }
  }
  return sharp(raw, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

function multipartBody(file: Buffer, filename: string) {
  const boundary = `----kindlingbench${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\nContent-Type: image/jpeg\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

/** One request: its status, its answer and the milliseconds from sending to the end of the answer. */
function request(agent: http.Agent, url: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string }) {
  return new Promise<{ status: number; body: string; ms: number }>((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(url, { agent, method: opts.method ?? 'GET', headers: opts.headers, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), ms: performance.now() - t0 }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within 60 s: ${url}`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** s3rver in a node process of its own (its work is not the bench's, nor the app's), on a free port; resolves with its address. */
async function startS3rver(directory: string): Promise<{ proc: ChildProcess; endpoint: string }> {
  const script = `
    const S3rver = require('s3rver');
    const s = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.S3RVER_DIR, configureBuckets: [{ name: process.env.S3RVER_BUCKET }] });
    s.run().then(({ port }) => console.log('listening ' + port), (err) => { console.error(err); process.exit(1); });`;
  const proc = spawn(process.execPath, ['-e', script], {
    cwd: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
    env: { ...process.env, S3RVER_DIR: directory, S3RVER_BUCKET: BUCKET },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
      const m = output.match(/listening (\d+)/);
      if (m) resolve(Number(m[1]));
    });
    proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    proc.on('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening:\n${output.slice(-2000)}`)));
  });
  return { proc, endpoint: `http://127.0.0.1:${port}` };
}

interface Acc {
  samples: number[];
  seconds: number;
  appTicks: number;
  other: number[];
}

export async function benchUploads(
  o: Options,
  ctx: {
    tools: UploadsTools;
    probe: postgres.Sql;
    tmpDir: string;
    env: { pgVersion: string; sharedBuffers: string };
    docs: string;
    docsHeader: string;
  },
): Promise<void> {
  const { tools, probe } = ctx;
  process.stdout.write(`\nUploads: making ${PICTURES} ${WIDTH}x${HEIGHT} JPEG pictures...`);
  const pictures: Buffer[] = [];
  for (let i = 0; i < PICTURES; i++) pictures.push(await picture(i + 1));
  const sizes = pictures.map((p) => p.length);
  console.log(` ${sizes.map((n) => `${(n / 1024).toFixed(0)} KiB`).join(', ')}`);

  const s3Dir = path.join(ctx.tmpDir, 's3rver');
  mkdirSync(s3Dir, { recursive: true });
  const s3 = await startS3rver(s3Dir);
  // stopped below; and if the bench is stopped meanwhile (run.ts exits on SIGINT and SIGTERM), with it
  const stopS3 = () => s3.proc.kill('SIGTERM');
  process.once('exit', stopS3);
  // every limit off but the sizes: one account uploads them all (RATE_LIMIT_PER_MINUTE=0 from
  // startApp turns the hourly budget off), its space large enough; JOBS=off, so that the app's
  // CPU is the uploads' alone
  const common: NodeJS.ProcessEnv = { CLIENT_CONCURRENCY: '0', CLIENT_RATE: '0', JOBS: 'off', UPLOAD_QUOTA_MB: '1000000' };
  const names = { local: 'kindling-bench-app', s3: 'kindling-bench-app-s3' };
  const apps: { child: Child; base: string }[] = [];
  const email = `uploads-${randomBytes(4).toString('hex')}@bench.example.com`;
  try {
    const local = await tools.startApp({ ...common, PGAPPNAME: names.local, DATA_DIR: path.join(ctx.tmpDir, 'uploads-local') });
    apps.push(local);
    const inBucket = await tools.startApp({
      ...common,
      PGAPPNAME: names.s3,
      DATA_DIR: path.join(ctx.tmpDir, 'uploads-s3'),
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      S3_REGION: 'us-east-1',
      // s3rver checks signatures made with these
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    });
    apps.push(inBucket);

    // one account, signed in once: the session lives in the database, so both processes take its token
    const agent = new http.Agent({ keepAlive: true });
    const password = randomBytes(12).toString('hex');
    const json = { 'content-type': 'application/json' };
    const reg = await request(agent, `${local.base}/api/auth/register`, { method: 'POST', headers: json, body: JSON.stringify({ email, password }) });
    if (reg.status !== 201) throw new Error(`uploads: registering answered ${reg.status}: ${reg.body.slice(0, 300)}`);
    const login = await request(agent, `${local.base}/api/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email, password }) });
    if (login.status !== 200) throw new Error(`uploads: signing in answered ${login.status}: ${login.body.slice(0, 300)}`);
    const token = (JSON.parse(login.body) as { token: string }).token;

    let sent = 0;
    const upload = async (base: string) => {
      const k = sent++;
      const { body, type } = multipartBody(pictures[k % PICTURES], `photo-${k}.jpg`);
      const r = await request(agent, `${base}${UPLOAD_PATH}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body });
      if (r.status !== 201) throw new Error(`uploads: ${base}${UPLOAD_PATH} answered ${r.status}: ${r.body.slice(0, 300)}`);
      return { ms: r.ms, url: (JSON.parse(r.body) as { images: { url: string }[] }).images[0].url };
    };

    const setups = [
      { key: 'local', label: 'local disk', app: local, meter: tools.meterFor([local.child.proc.pid!], [names.local]) },
      { key: 's3', label: 'S3 bucket (s3rver)', app: inBucket, meter: tools.meterFor([inBucket.child.proc.pid!], [names.s3]) },
    ] as const;
    // one upload through each first, and the app answers it back as the WebP it stored: the path works end to end
    for (const s of setups) {
      const { url } = await upload(s.app.base);
      const back = await request(agent, `${s.app.base}${url}`, {});
      if (back.status !== 200) throw new Error(`uploads, ${s.label}: ${url} answered ${back.status} after its upload`);
    }
    const warmups = Math.max(2, Math.round(o.warmup * 2));
    process.stdout.write(`Uploads: warming both apps up (${warmups} uploads each)...`);
    for (const s of setups) for (let i = 0; i < warmups; i++) await upload(s.app.base);
    console.log(' done');

    const perRound = Math.max(2, Math.ceil(o.images / ROUNDS));
    const modes = [
      { key: 'one', label: 'one at a time', parallel: 1 },
      { key: 'two', label: 'two at a time', parallel: 2 },
    ] as const;
    const acc = new Map<string, Acc>();
    console.log(`Uploads: ${ROUNDS} rounds of ${perRound} images per storage, one at a time and two at a time, the storages in turn:`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of modes) {
        for (const s of setups) {
          const k = `${s.key}/${mode.key}`;
          if (!acc.has(k)) acc.set(k, { samples: [], seconds: 0, appTicks: 0, other: [] });
          const x = acc.get(k)!;
          if (round === 0 && s === setups[0]) await tools.waitForQuiet(s.meter);
          const before = await s.meter.snapshot();
          let left = perRound;
          await Promise.all(
            Array.from({ length: mode.parallel }, async () => {
              while (left > 0) {
                left--;
                x.samples.push((await upload(s.app.base)).ms);
              }
            }),
          );
          const after = await s.meter.snapshot();
          x.seconds += (after.at - before.at) / 1000;
          x.appTicks += after.app - before.app;
          x.other.push(tools.otherCores(before, after));
          process.stdout.write(
            `  round ${round + 1}, ${mode.label}, ${s.label.padEnd(20)} ${perRound} images in ${((after.at - before.at) / 1000).toFixed(1)} s\n`,
          );
        }
      }
    }
    agent.destroy();

    // --- report
    const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
    const stats = (k: string) => {
      const x = acc.get(k)!;
      x.samples.sort((p, q) => p - q);
      const n = x.samples.length;
      return {
        n,
        p50: tools.percentile(x.samples, 0.5),
        p95: tools.percentile(x.samples, 0.95),
        perSecond: n / x.seconds,
        cpu: ((x.appTicks / tools.ticksPerSecond) * 1000) / Math.max(1, n),
        other: x.other,
      };
    };
    const rows: string[] = [];
    const ratios: string[] = [];
    for (const mode of modes) {
      const l = stats(`local/${mode.key}`);
      const b = stats(`s3/${mode.key}`);
      for (const [label, m] of [
        ['local disk', l],
        ['S3 bucket (s3rver)', b],
      ] as const)
        rows.push(`| ${mode.label} | ${label} | ${m.n} | ${f(m.p50)} | ${f(m.p95)} | ${f(m.perSecond, 2)} | ${f(m.cpu)} |`);
      ratios.push(`${mode.label}: median ${f(b.p50 / l.p50, 2)}, p95 ${f(b.p95 / l.p95, 2)}, images a second ${f(b.perSecond / l.perSecond, 2)}`);
    }
    const others = [...acc.values()].flatMap((x) => x.other);
    const stored = await probe<{ bytes: string }[]>`
      select coalesce(avg(i.bytes), 0)::bigint as bytes from images i join users u on u.id = i.owner_id where u.email = ${email}`;
    const body = [
      `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), ` +
        `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory; Node ${process.version}; PostgreSQL ${ctx.env.pgVersion}, same machine.`,
      '',
      `\`POST ${UPLOAD_PATH}\`, one file a request, signed in (bearer token): ${WIDTH}x${HEIGHT} photo-like JPEGs (quality 85, ` +
        `${sizes.map((n) => `${(n / 1024).toFixed(0)}`).join(', ')} KiB, ${PICTURES} in turn), which the app re-encodes as WebP ` +
        `(${(Number(stored[0]?.bytes ?? 0) / 1024).toFixed(0)} KiB on average) and stores on local disk (DATA_DIR) or in an S3 bucket (S3_BUCKET; s3rver, ` +
        'a real S3 HTTP server, in a process of its own on the same machine: no network between them, so a real bucket adds its round trips). ' +
        `${ROUNDS} rounds, the storages in turn; time per image from sending the request to the end of the answer; app CPU: milliseconds per image of the app process (utime + stime from /proc). ` +
        `\`UPLOAD_CONCURRENCY\` is the default (2). Other processes on the machine used ${f(Math.min(...others))}-${f(Math.max(...others))} cores.`,
      '',
      '| uploads | storage | images | median ms | p95 ms | images/s | app CPU ms/image |',
      '|---|---|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `S3 bucket / local disk: ${ratios.join('; ')}.`,
    ].join('\n');
    console.log(`\n${body}\n`);
    writeDocsSection(ctx.docs, ctx.docsHeader, { heading: '## Uploads: local disk against an S3 bucket', name: 'uploads' }, body);
    console.log('Wrote the uploads results to docs/benchmarks.md.');
  } finally {
    for (const app of apps) await tools.stopChild(app.child);
    stopS3();
    process.off('exit', stopS3);
    // the bench account and its image rows go: the files were in the temporary directories, gone with them
    await probe
      .begin(async (tx) => {
        await tx`delete from images where owner_id in (select id from users where email = ${email})`;
        await tx`delete from users where email = ${email}`;
      })
      .catch((err: Error) => console.error(`could not remove the bench account ${email} and its images: ${err.message}`));
  }
}
