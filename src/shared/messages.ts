/**
 * Every text of the product that a person reads and that the spec names, written once.
 * The server answers with these; the client shows the server's message, else these defaults.
 */
export const M = {
  // Home
  tagline: 'Make cool things, show a small group of people before releasing it to the public.',

  // Generic
  requestFailed: 'Request failed',
  notFound: 'Not found',
  accessDenied: 'You don’t have permission to view this page.',
  unexpectedError: 'Unexpected Application Error!',
  signInRequired: 'Please sign in to continue.',
  internalError: 'Something went wrong on our side. Please try again.',
  crossSiteRefused: 'Cross-site request refused.',
  tooManyRequests: 'Too many attempts. Please wait a minute and try again.',
  invalidInput: 'Invalid input',

  // Registration and login
  registered: 'Account created. Please check your email to verify your address.',
  invalidCredentials: 'Invalid email or password',
  emailRequired: 'Email is required',
  emailInvalid: 'Enter a valid email address',
  passwordRequired: 'Password is required',
  passwordTooShort: 'Password must be at least 8 characters',
  passwordTooLong: 'Password must be at most 256 characters',
  usernameInvalid: 'Username must be 3-32 characters: lowercase letters, digits, _ . or -',
  usernameTaken: 'That username is already taken',
  phoneInvalid: 'Enter a valid phone number',
  loggedOut: 'Logged out',

  // Email verification and password reset
  emailSentIfExists: 'Email sent if account exists.',
  passwordReset: 'Password reset',
  emailVerified: 'Email verified!',
  verifying: 'Verifying',
  verificationFailed: 'Verification failed',
  invalidOrExpiredToken: 'Invalid or expired token',
  missingToken: 'Missing token',
  verificationSent: 'Verification email sent.',
  alreadyVerified: 'Your email is already verified.',

  // Account
  passwordChanged: 'Password changed.',
  passwordChangeFailed: 'Failed to change password',
  currentPasswordWrong: 'Current password is incorrect',
  newPasswordSame: 'The new password must differ from the current one',
  profileUpdated: 'Profile updated.',
  profileUpdateFailed: 'Failed to update profile',
  profileLoadFailed: 'Failed to load profile',

  // Uploads
  uploadFailed: 'Upload failed',
  saveImageFailed: 'Failed to save image',
  uploading: 'Uploading...',
  saved: 'Saved!',

  // Client screens (spec sections 1 and 2)
  brand: 'Kindling',
  navCampaigns: 'Campaigns',
  navProjects: 'Projects',
  navFavorites: 'Favorites',
  navMy: 'My',
  navAccount: 'Account',
  navAdmin: 'Admin',
  navLogout: 'Logout',
  navLogin: 'Login',
  highlightSecure: 'Secure',
  highlightCoordinated: 'Coordinated',
  highlightCoordinatedText: 'Timelines and alerts',
  highlightFunded: 'Funded',
  highlightFundedText: 'Donations and payouts',
  sendResetLink: 'Send reset link',
  updatePassword: 'Update password',
  accessDeniedTitle: 'Access denied',
  loading: 'Loading',
  myProjectsPlaceholder: 'Your projects will appear here.',
} as const;

export type MessageKey = keyof typeof M;
