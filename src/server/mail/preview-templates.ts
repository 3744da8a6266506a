import type { MailMessage } from './mailer';
import { escapeHtml } from '../lib/html';

function message(p: { to: string; kind: string; subject: string; lines: string[]; action: string; link: string; secret?: string }): MailMessage {
  return {
    to: p.to,
    kind: p.kind,
    subject: p.subject,
    link: p.link,
    secret: p.secret,
    text: `${p.lines.join('\n\n')}\n\n${p.action}: ${p.link}\n\n— Kindling`,
    html: `${p.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('')}<p><a href="${escapeHtml(p.link)}">${escapeHtml(p.action)}</a></p><p>— Kindling</p>`,
  };
}

/** The preview circle's messages (issue #30). A draft's title is never in an invite: the invite may be forwarded. */
export const previewMail = {
  /** An invite by email: the link carries the invite's token (the only copy the invitee gets). */
  invite: (to: string, inviterName: string, role: 'viewer' | 'commenter', link: string, token: string) =>
    message({
      to,
      kind: 'preview_invite',
      subject: `${inviterName} invited you to a private preview on Kindling`,
      lines: [
        `${inviterName} is showing a draft to a small circle before it goes public, and invited you${role === 'commenter' ? ' to look and give feedback' : ' to look'}.`,
        'You do not need an account: open the link and continue under your name, or sign in. The owner sees when you open it.',
      ],
      action: 'Open the preview',
      link,
      secret: token,
    }),
  /** An invite of someone with an account (by username): the draft's address, opened signed in. */
  inviteMember: (to: string, inviterName: string, link: string) =>
    message({
      to,
      kind: 'preview_invite',
      subject: `${inviterName} invited you to a private preview on Kindling`,
      lines: [
        `${inviterName} is showing a draft to a small circle before it goes public, and invited you.`,
        'Sign in to Kindling to open it. The owner sees when you open it.',
      ],
      action: 'Open the preview',
      link,
    }),
  /** To the circle, at release. */
  releasedToCircle: (to: string, title: string, link: string) =>
    message({
      to,
      kind: 'preview_released_circle',
      subject: `${title} is live`,
      lines: [`${title} is live: it is public now. Thanks for your feedback while it was a draft.`],
      action: 'See it live',
      link,
    }),
  /** To the people who favorited or follow it, after the owner's delay. */
  releasedToFollowers: (to: string, title: string, link: string) =>
    message({
      to,
      kind: 'preview_released_followers',
      subject: `${title} is out now on Kindling`,
      lines: [`${title}, which you follow or saved, is out now.`],
      action: 'Have a look',
      link,
    }),
};
