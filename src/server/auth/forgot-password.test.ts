import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { M } from '../../shared/messages';
import { buildApp } from '../app';
import type { Mailer, MailMessage } from '../mail/mailer';
import { createAfterAnswer } from './after-answer';
import { call, freshIp, openTestDatabase, register, testConfig, uniqueEmail } from '../../../test/helpers';
import { checkContract } from '../../../test/contract';

/**
 * A mailer whose reset emails wait until the test lets them go: the answer to forgot-password
 * must not wait for them. Other emails (registration) pass straight through.
 */
function gatedMailer() {
  const started: MailMessage[] = [];
  const sent: MailMessage[] = [];
  let gate: { promise: Promise<void>; open: () => void } | null = null;
  const mailer: Mailer = {
    async send(msg) {
      started.push(msg);
      if (msg.kind === 'reset_password' && gate) await gate.promise;
      sent.push(msg);
    },
    async sendAll(msgs) {
      for (const msg of msgs) await mailer.send(msg);
    },
    async record(_tx, msg) {
      started.push(msg);
      return () => void sent.push(msg);
    },
    outboxStatus: 'outbox',
    recorded(rows) {
      for (const r of rows) sent.push(r.msg);
    },
    async drain() {},
  };
  return {
    mailer,
    started,
    sent,
    close() {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      gate = { promise, open };
    },
    open() {
      gate?.open();
      gate = null;
    },
  };
}

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let app: FastifyInstance;
const mail = gatedMailer();

beforeAll(async () => {
  database = await openTestDatabase();
  app = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'none', logger: false, mailer: mail.mailer }));
  await app.ready();
});
afterAll(async () => {
  mail.open();
  await app?.close();
  await database?.close();
});

const resetsTo = (list: MailMessage[], to: string) => list.filter((m) => m.kind === 'reset_password' && m.to === to);

describe('forgot-password answers before the per-account work', () => {
  it('answers a known account while its email is still being sent, byte for byte like an unknown one (REST)', async () => {
    const email = await register(app);
    const ghost = uniqueEmail('ghost');
    mail.close();
    const known = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/forgot-password', payload: { email } });
    const unknown = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/forgot-password', payload: { email: ghost } });
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual({ message: M.emailSentIfExists });
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.rawPayload.equals(known.rawPayload)).toBe(true);
    expect(unknown.headers['content-type']).toBe(known.headers['content-type']);
    expect(unknown.headers['content-length']).toBe(known.headers['content-length']);

    // the reset email was started after the answer and is held at the gate
    await expect.poll(() => resetsTo(mail.started, email).length).toBe(1);
    expect(resetsTo(mail.sent, email)).toHaveLength(0);
    mail.open();
    await app.services.auth.settle();
    const [sent] = resetsTo(mail.sent, email);
    expect(sent.text).toMatch(/\/reset\/[a-z0-9]+/);
    expect(mail.started.filter((m) => m.to === ghost)).toEqual([]);
  });

  it('does the same through the tRPC door', async () => {
    const email = await register(app);
    const ghost = uniqueEmail('ghost');
    mail.close();
    const ask = (to: string) => call(app, { ip: freshIp() }, { method: 'POST', url: '/trpc/auth.forgotPassword', payload: { json: { email: to } } });
    const known = await ask(email);
    const unknown = await ask(ghost);
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual({ result: { data: { json: { message: M.emailSentIfExists } } } });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.rawPayload.equals(known.rawPayload)).toBe(true);

    await expect.poll(() => resetsTo(mail.started, email).length).toBe(1);
    expect(resetsTo(mail.sent, email)).toHaveLength(0);
    mail.open();
    await app.services.auth.settle();
    expect(resetsTo(mail.sent, email)).toHaveLength(1);
    expect(mail.started.filter((m) => m.to === ghost)).toEqual([]);
  });

  it('finishes the queued work when the app closes', async () => {
    const other = checkContract(await buildApp({ config: testConfig(), db: database.db, client: 'none', logger: false, mailer: mail.mailer }));
    await other.ready();
    const email = await register(other);
    mail.close();
    expect((await call(other, { ip: freshIp() }, { method: 'POST', url: '/api/auth/forgot-password', payload: { email } })).statusCode).toBe(200);
    await expect.poll(() => resetsTo(mail.started, email).length).toBe(1);
    const closed = other.close();
    mail.open();
    await closed;
    expect(resetsTo(mail.sent, email)).toHaveLength(1);
  });
});

describe('work after the answer', () => {
  function recordingLog() {
    const errors: unknown[][] = [];
    const warnings: unknown[][] = [];
    const log = { error: (...a: unknown[]) => errors.push(a), warn: (...a: unknown[]) => warnings.push(a) } as unknown as FastifyBaseLogger;
    return { log, errors, warnings };
  }

  it('runs after the caller has moved on, logs a failure instead of throwing, and settles', async () => {
    const { log, errors } = recordingLog();
    const work = createAfterAnswer(log);
    const done: string[] = [];
    work.run('fails', async () => {
      throw new Error('smtp down');
    });
    work.run('works', async () => {
      done.push('works');
    });
    // nothing ran on the caller's path
    expect(done).toEqual([]);
    await work.settle();
    expect(done).toEqual(['works']);
    expect(errors).toHaveLength(1);
    expect((errors[0][0] as { task: string }).task).toBe('fails');
    // settling with nothing queued resolves at once
    await work.settle();
  });

  it('runs a few at a time and drops work beyond its queue, with a warning', async () => {
    const { log, warnings } = recordingLog();
    const work = createAfterAnswer(log, { concurrency: 2, maxQueued: 3 });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let running = 0;
    let most = 0;
    let finished = 0;
    const task = async () => {
      running += 1;
      most = Math.max(most, running);
      await gate;
      running -= 1;
      finished += 1;
    };
    for (let i = 0; i < 3; i++) work.run('held', task);
    work.run('one too many', task);
    expect(warnings).toHaveLength(1);
    await expect.poll(() => running).toBe(2);
    open();
    await work.settle();
    expect(finished).toBe(3);
    expect(most).toBe(2);
  });
});
