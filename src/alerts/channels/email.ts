import type { ChannelSettings } from "../channel-store";
import { type AlertNotice, textOf, titleOf, whereOf } from "./notice";

type Smtp = NonNullable<ChannelSettings["smtp"]>;

/** The mail of a notification: subject with the severity and where, the plain-text facts as the body. */
export function alertMail(notice: AlertNotice, smtp: Smtp) {
  return { from: smtp.from, to: smtp.to, subject: `[${notice.severity}] ${titleOf(notice)} on ${whereOf(notice)}`, text: textOf(notice) };
}

/**
 * Sends the mail over SMTP with nodemailer (loaded at the first mail: a gateway without an email
 * channel never holds it); STARTTLS when the server offers it, TLS from the start with `secure`.
 */
export async function sendMail(notice: AlertNotice, smtp: Smtp, password: string | undefined): Promise<string> {
  const { createTransport } = await import("nodemailer");
  const transport = createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure === true,
    auth: smtp.username ? { user: smtp.username, pass: password ?? "" } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 10_000,
  });
  try {
    const sent = await transport.sendMail(alertMail(notice, smtp));
    return `accepted by ${smtp.host}: ${sent.response}`;
  } finally {
    transport.close();
  }
}
