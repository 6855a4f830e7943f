const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const page = (title: string, body: string, head = "") =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${head}<title>${escapeHtml(title)}</title>` +
  `<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}</style></head><body>${body}</body></html>`;

/** A sign-in the gateway refused: what happened, and what the person can do about it. */
export const refusalPage = (title: string, message: string) =>
  page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="/">Back to the sign-in page</a></p>`);

/**
 * After the provider sent the browser back: the session cookie is SameSite=Strict, which a
 * browser withholds for the rest of a redirect chain that began at another site, so the page
 * moves on by itself (a navigation from the gateway's own page) instead of answering a redirect.
 */
export const signedInPage = (returnTo: string) =>
  page("Signed in", `<p>Signed in. <a href="${escapeHtml(returnTo)}">Continue</a></p>`, `<meta http-equiv="refresh" content="0;url=${escapeHtml(returnTo)}">`);
