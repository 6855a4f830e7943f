import { type AlertNotice, factsOf, titleOf } from "./notice";

const COLOR = { firing: "Attention", resolved: "Good", test: "Accent" } as const;

/** A message for a Teams workflow webhook ("When a Teams webhook request is received"): one Adaptive Card attachment. */
export function teamsMessage(notice: AlertNotice) {
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: [
            { type: "TextBlock", text: titleOf(notice), weight: "Bolder", size: "Medium", color: COLOR[notice.status], wrap: true },
            { type: "FactSet", facts: factsOf(notice).map(([title, value]) => ({ title, value })) },
          ],
          actions: [{ type: "Action.OpenUrl", title: "Open the logs", url: notice.logsUrl }],
        },
      },
    ],
  };
}
