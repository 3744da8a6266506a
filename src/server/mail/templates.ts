import type { MailMessage } from './mailer';
import { escapeHtml } from '../lib/html';

function linkMessage(p: { to: string; kind: string; subject: string; intro: string; action: string; link: string; outro: string }): MailMessage {
  return {
    to: p.to,
    kind: p.kind,
    subject: p.subject,
    link: p.link,
    text: `${p.intro}\n\n${p.action}: ${p.link}\n\n${p.outro}\n\n— Kindling`,
    html: `<p>${escapeHtml(p.intro)}</p><p><a href="${escapeHtml(p.link)}">${escapeHtml(p.action)}</a></p><p>${escapeHtml(p.outro)}</p><p>— Kindling</p>`,
  };
}

export const mailTemplates = {
  verifyEmail: (to: string, link: string) =>
    linkMessage({
      to,
      kind: 'verify_email',
      subject: 'Verify your email for Kindling',
      intro: 'Welcome to Kindling! Please confirm that this is your email address.',
      action: 'Verify your email',
      link,
      outro: 'The link works once and expires in 48 hours. If you did not create an account, ignore this message.',
    }),
  resetPassword: (to: string, link: string) =>
    linkMessage({
      to,
      kind: 'reset_password',
      subject: 'Reset your Kindling password',
      intro: 'Someone (hopefully you) asked to reset the password of your Kindling account.',
      action: 'Choose a new password',
      link,
      outro: 'The link works once and expires in 1 hour. If you did not ask for this, ignore this message: your password stays as it is.',
    }),
  alreadyRegistered: (to: string, loginLink: string, forgotLink: string) => ({
    to,
    kind: 'already_registered',
    subject: 'You already have a Kindling account',
    link: forgotLink,
    text: `Someone tried to create a Kindling account with this email address, but you already have one.\n\nSign in: ${loginLink}\nForgot your password? ${forgotLink}\n\nIf this was not you, ignore this message.\n\n— Kindling`,
  }),
  passwordChanged: (to: string, forgotLink: string) => ({
    to,
    kind: 'password_changed',
    subject: 'Your Kindling password was changed',
    text: `The password of your Kindling account was just changed and every other session was signed out.\n\nIf this was not you, reset your password now: ${forgotLink}\n\n— Kindling`,
  }),
  /** The email of a team invite (accept or decline on the team's page) or of being added directly. */
  teamMember: (to: string, inviter: string, teamName: string, status: 'invited' | 'active', link: string): MailMessage => {
    const invited = status === 'invited';
    return {
      to,
      kind: invited ? 'team_invite' : 'team_added',
      subject: invited ? `${inviter} invited you to the team ${teamName}` : `${inviter} added you to the team ${teamName}`,
      link,
      text: invited
        ? `${inviter} invited you to join the team “${teamName}” on Kindling.\n\nAccept or decline on the team's page: ${link}\n\n— Kindling`
        : `${inviter} added you to the team “${teamName}” on Kindling.\n\nThe team's page (you can leave it there): ${link}\n\n— Kindling`,
    };
  },
};
