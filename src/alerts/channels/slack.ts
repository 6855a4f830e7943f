import { type AlertNotice, factsOf, textOf, titleOf } from "./notice";

const EMOJI = { firing: ":rotating_light:", resolved: ":white_check_mark:", test: ":wave:" } as const;

/** A Slack incoming-webhook message: `text` as the notification's fallback, Block Kit blocks for the message itself. */
export function slackMessage(notice: AlertNotice) {
  return {
    text: textOf(notice),
    blocks: [
      { type: "header", text: { type: "plain_text", text: `${titleOf(notice)}`.slice(0, 150), emoji: true } },
      { type: "section", text: { type: "mrkdwn", text: `${EMOJI[notice.status]} *${titleOf(notice)}*` } },
      { type: "section", fields: factsOf(notice).map(([label, text]) => ({ type: "mrkdwn", text: `*${label}*\n${text}`.slice(0, 2000) })) },
      { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open the logs" }, url: notice.logsUrl }] },
    ],
  };
}
