import { SMTPServer } from "smtp-server";

/** What a chat or paging webhook received: the path it was posted to and its JSON body. */
export interface ReceivedPost {
  path: string;
  body: Record<string, unknown>;
}

/**
 * One HTTP server in place of Slack's incoming webhooks (/slack/...), a Teams workflow
 * (/teams/...) and PagerDuty's Events API v2 (/pagerduty/v2/enqueue): each answers as the real
 * one does (Slack `ok`, Teams 202, PagerDuty 202 with `{status, dedup_key}`) and keeps the body.
 * `failNext(prefix, n)` makes the next `n` posts under `prefix` answer 500, kept in `refused`.
 */
export function startAlertReceivers() {
  const received: ReceivedPost[] = [];
  const refused: ReceivedPost[] = [];
  const failures = new Map<string, number>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const body = (await request.json()) as Record<string, unknown>;
      const failing = [...failures].find(([prefix, left]) => path.startsWith(prefix) && left > 0);
      if (failing) {
        failures.set(failing[0], failing[1] - 1);
        refused.push({ path, body });
        return new Response("internal_error", { status: 500 });
      }
      received.push({ path, body });
      if (path.startsWith("/pagerduty")) return Response.json({ status: "success", message: "Event processed", dedup_key: body.dedup_key }, { status: 202 });
      if (path.startsWith("/teams")) return new Response(null, { status: 202 });
      return new Response("ok");
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    received,
    refused,
    failNext: (prefix: string, count: number) => void failures.set(prefix, count),
    /** The posts to paths starting with `prefix`. */
    to: (prefix: string) => received.filter((post) => post.path.startsWith(prefix)),
    stop: () => server.stop(true),
  };
}

export interface ReceivedMail {
  from: string;
  to: string[];
  user?: string;
  password?: string;
  raw: string;
  /** The body, quoted-printable decoded. */
  text: string;
}

const decodeQuotedPrintable = (body: string) => body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/** A real SMTP server (smtp-server) that takes any login and keeps each message it is given. */
export async function startSmtpServer() {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: { name: auth.username, password: auth.password } });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const user = session.user as unknown as { name: string; password: string } | undefined;
        const raw = Buffer.concat(chunks).toString("utf8");
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((rcpt) => rcpt.address), user: user?.name, password: user?.password, raw, text: decodeQuotedPrintable(raw.slice(raw.indexOf("\r\n\r\n") + 4)) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return { port, mails, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
