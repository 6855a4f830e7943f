/**
 * Dashboard passwords: argon2id through Bun's native implementation. Each hash or check takes
 * 64 MiB for a few dozen milliseconds, so at most a few run at once and the rest wait their
 * turn: a burst of login attempts slows down instead of exhausting memory.
 */
const MAX_CONCURRENT = 4;
let running = 0;
const waiting: Array<() => void> = [];

async function withSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running < MAX_CONCURRENT) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve)); // the finishing call hands its slot over
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

export const hashPassword = (password: string) => withSlot(() => Bun.password.hash(password, { algorithm: "argon2id" }));

let decoyHash: Promise<string> | undefined;

/**
 * Checks a password against a stored hash; with no hash (unknown user) it verifies against a
 * decoy, so a wrong username takes as long as a wrong password.
 */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (hash) return withSlot(() => Bun.password.verify(password, hash));
  decoyHash ??= hashPassword(crypto.randomUUID());
  const decoy = await decoyHash;
  await withSlot(() => Bun.password.verify(password, decoy));
  return false;
}
