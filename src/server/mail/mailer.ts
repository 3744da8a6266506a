import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../db/client';
import { emailOutbox } from '../db/schema';
import type { Metrics } from '../http/metrics';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** What the message is for (verify_email, reset_password, ...). */
  kind: string;
  /** The link the message carries, printed to the log when there is no SMTP server. */
  link?: string;
  /**
   * A secret the message carries (a preview invite's token): never logged, and left out of the
   * outbox's copy when an SMTP server delivers the message. Without one, the outbox is the only
   * mailbox there is (development and tests), so its copy keeps the text whole.
   */
  secret?: string;
}

/** The mailer port. Every message is recorded in the outbox table first. */
export interface Mailer {
  send(msg: MailMessage): Promise<void>;
  /** Several messages recorded at once (one statement), then delivered as `send` does. */
  sendAll(msgs: readonly MailMessage[]): Promise<void>;
  /**
   * Records a message in the caller's transaction (so it exists exactly when the change it
   * reports does); call the returned function after the commit to deliver it.
   */
  record(tx: DbOrTx, msg: MailMessage): Promise<() => void>;
  /**
   * The status of an outbox row that a caller's own statement writes (a transactional outbox: a
   * message inserted by the statement that makes the change it reports): `pending` when an SMTP
   * server delivers messages, else `outbox`.
   */
  readonly outboxStatus: 'outbox' | 'pending';
  /** After the commit of such a statement: delivers its messages, each with its row's id, as `send` does. */
  recorded(rows: readonly { id: string; msg: MailMessage }[]): void;
  /** Resolves when every delivery in flight has finished (graceful shutdown, tests). */
  drain(): Promise<void>;
}

interface Transport {
  sendMail(m: { from: string; to: string; subject: string; text: string; html?: string }): Promise<unknown>;
}

export async function createMailer(opts: {
  db: Db;
  smtpUrl?: string;
  from: string;
  log: FastifyBaseLogger;
  /** For tests of the SMTP path: a transport in place of nodemailer's. */
  transport?: Transport;
  /** Counts the messages sent, failed and kept in the outbox (the app's metrics). */
  metrics?: Pick<Metrics, 'email'>;
}): Promise<Mailer> {
  const { db, log, from, metrics } = opts;
  let transport: Transport | undefined = opts.transport;
  if (!transport && opts.smtpUrl) {
    const nodemailer = await import('nodemailer');
    transport = nodemailer.createTransport(opts.smtpUrl);
  }
  const inFlight = new Set<Promise<void>>();

  async function deliver(id: string, msg: MailMessage) {
    let sent = false;
    try {
      await transport!.sendMail({ from, to: msg.to, subject: msg.subject, text: msg.text, html: msg.html });
      sent = true;
      metrics?.email(msg.kind, 'sent');
      await db.update(emailOutbox).set({ status: 'sent', sentAt: new Date() }).where(eq(emailOutbox.id, id));
    } catch (err) {
      if (!sent) metrics?.email(msg.kind, 'failed');
      log.error({ err, to: msg.to, kind: msg.kind }, 'email delivery failed');
      await db
        .update(emailOutbox)
        .set({ status: 'failed', error: err instanceof Error ? err.message.slice(0, 500) : String(err) })
        .where(eq(emailOutbox.id, id))
        .catch(() => {});
    }
  }

  const kept = (text: string | undefined, secret: string | undefined) => (text && secret && transport ? text.split(secret).join('[removed]') : text);
  const row = (msg: MailMessage) => ({
    to: msg.to,
    subject: msg.subject,
    text: kept(msg.text, msg.secret) ?? '',
    html: kept(msg.html, msg.secret),
    kind: msg.kind,
    status: transport ? ('pending' as const) : ('outbox' as const),
  });

  async function insert(via: DbOrTx, msg: MailMessage): Promise<string> {
    const [r] = await via.insert(emailOutbox).values(row(msg)).returning({ id: emailOutbox.id });
    return r.id;
  }

  function dispatch(id: string, msg: MailMessage) {
    if (!transport) {
      metrics?.email(msg.kind, 'outbox');
      const link = msg.secret ? undefined : msg.link;
      log.info({ to: msg.to, kind: msg.kind, link }, `email kept in the outbox (no SMTP_URL): ${msg.subject}${link ? ` -> ${link}` : ''}`);
      return;
    }
    // Delivered in the background: the answer's timing must not depend on the SMTP server.
    const p = deliver(id, msg).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }

  return {
    async send(msg) {
      dispatch(await insert(db, msg), msg);
    },
    async sendAll(msgs) {
      if (!msgs.length) return;
      const rows = await db.insert(emailOutbox).values(msgs.map(row)).returning({ id: emailOutbox.id, to: emailOutbox.to, kind: emailOutbox.kind });
      // each message with its own row (SQL promises no order of RETURNING)
      for (const m of msgs) {
        const i = rows.findIndex((r) => r.to === m.to && r.kind === m.kind);
        dispatch(rows.splice(i, 1)[0].id, m);
      }
    },
    async record(tx, msg) {
      const id = await insert(tx, msg);
      return () => dispatch(id, msg);
    },
    outboxStatus: transport ? 'pending' : 'outbox',
    recorded(rows) {
      for (const r of rows) dispatch(r.id, r.msg);
    },
    async drain() {
      await Promise.all([...inFlight]);
    },
  };
}
