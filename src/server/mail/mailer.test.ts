import { eq } from 'drizzle-orm';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { emailOutbox } from '../db/schema';
import { call, freshIp, lastEmail, openTestDatabase, PASSWORD, signUp, testConfig, uniqueEmail } from '../../../test/helpers';
import { checkContract } from '../../../test/contract';

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** A real SMTP server on loopback, which accepts or refuses every message. */
function startSmtp(accept: boolean): Promise<{ server: SMTPServer; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (!accept) return callback(new Error('mailbox unavailable'));
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.server.address() as AddressInfo).port, received }));
  });
}

let database: Awaited<ReturnType<typeof openTestDatabase>>;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe('email through SMTP', () => {
  it('sends the verification email through the SMTP server and records it as sent', async () => {
    const smtp = await startSmtp(true);
    const app = checkContract(
      await buildApp({
        config: testConfig({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailFrom: 'Kindling <hello@kindling.test>' }),
        db: database.db,
        client: 'none',
        logger: false,
      }),
    );
    try {
      const email = uniqueEmail('smtp');
      const res = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/register', payload: { email, password: PASSWORD } });
      expect(res.statusCode).toBe(201);
      await app.deps.mailer.drain();
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0].to).toEqual([email]);
      expect(smtp.received[0].from).toBe('hello@kindling.test');
      expect(smtp.received[0].data).toContain('Subject: Verify your email for Kindling');
      // quoted-printable: undo soft line breaks and =3D before looking for the link
      const body = smtp.received[0].data.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      expect(body).toMatch(/http:\/\/localhost:3000\/verify-email\?token=[a-z0-9]{32}/);
      const row = await lastEmail(database, email);
      expect(row.status).toBe('sent');
      expect(row.sentAt).toBeInstanceOf(Date);
    } finally {
      await app.close();
      await new Promise<void>((r) => smtp.server.close(() => r()));
    }
  });

  it('delivers a donation’s receipt and the owner’s news, written with the booking, through the SMTP server', async () => {
    const smtp = await startSmtp(true);
    const app = checkContract(
      await buildApp({ config: testConfig({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` }), db: database.db, client: 'none', logger: false }),
    );
    try {
      await app.ready();
      const owner = await signUp(app, { username: 'smtp_owner' });
      const campaign = await call(app, owner, { method: 'POST', url: '/api/campaigns', payload: { title: 'Tool library', actionMode: 'donation' } });
      const guest = uniqueEmail('smtpgift');
      const gift = await call(app, null, {
        method: 'POST',
        url: `/api/campaigns/${campaign.json()._id}/donations`,
        headers: { 'idempotency-key': `smtp-gift-${Date.now()}` },
        payload: { amount: 7, email: guest, card: '4242 4242 4242 4242' },
      });
      expect([gift.statusCode, gift.json().status]).toEqual([201, 'succeeded']);
      await app.deps.mailer.drain();
      const subjects = (to: string) => smtp.received.filter((m) => m.to.includes(to)).map((m) => m.data.match(/^Subject: (.*)$/m)?.[1]);
      expect(subjects(guest)).toEqual(['Your receipt: $7.00 to Tool library']);
      expect(subjects(owner.email)).toContain('New donation: $7.00 to Tool library');
      expect((await lastEmail(database, guest, 'donation_receipt'))?.status).toBe('sent');
      expect((await lastEmail(database, owner.email, 'donation_received'))?.status).toBe('sent');
    } finally {
      await app.close();
      await new Promise<void>((r) => smtp.server.close(() => r()));
    }
  });

  it('records a refused message as failed without failing the request', async () => {
    const smtp = await startSmtp(false);
    const app = checkContract(
      await buildApp({
        config: testConfig({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` }),
        db: database.db,
        client: 'none',
        logger: false,
      }),
    );
    try {
      const email = uniqueEmail('smtpfail');
      const res = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/forgot-password', payload: { email } });
      expect(res.statusCode).toBe(200);
      const reg = await call(app, { ip: freshIp() }, { method: 'POST', url: '/api/auth/register', payload: { email, password: PASSWORD } });
      expect(reg.statusCode).toBe(201);
      await app.deps.mailer.drain();
      const [row] = await database.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
      expect(row.status).toBe('failed');
      expect(row.error).toMatch(/mailbox unavailable/);
    } finally {
      await app.close();
      await new Promise<void>((r) => smtp.server.close(() => r()));
    }
  });
});
