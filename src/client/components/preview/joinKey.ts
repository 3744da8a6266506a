/** sessionStorage key: this browser went to sign in from a preview's continue page (its account is then tied to the invite). */
export const joinAfterSignIn = (id: string) => `kindling.preview.join.${id}`;
