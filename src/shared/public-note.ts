/**
 * The longest public name and public message a donor may leave with a gift (Recent donors, #33):
 * in a file of their own so that the Donate panel reads them without loading the donations
 * schemas (which it loads lazily on the first submit).
 */
export const PUBLIC_NAME_MAX = 60;
export const PUBLIC_MESSAGE_MAX = 280;
