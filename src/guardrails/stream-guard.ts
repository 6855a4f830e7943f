import { createParser, type EventSourceMessage } from "eventsource-parser";
import { rewriteText } from "./body-text";
import type { Matcher } from "./matchers";
import { PLACEHOLDER_MAX_LENGTH } from "./pseudonyms";
import type { RequestRun } from "./request-run";
import { type DeltaSlot, deltaSlotsOf, endsText, isClosingEvent, setTextAt, textAt } from "./stream-slots";
import type { WireFormat } from "../upstream/operations";

const encoder = new TextEncoder();

function encodeEvent(message: EventSourceMessage, data: string): string {
  return `${message.event ? `event: ${message.event}\n` : ""}${message.id ? `id: ${message.id}\n` : ""}data: ${data}\n\n`;
}

/** Scanned backwards: a regex anchored at the end would retry from every position of every long word. */
function startOfLastWord(text: string): number {
  let index = text.length;
  while (index > 0 && !/\s/.test(text[index - 1]!)) index--;
  return index;
}

/**
 * Where the text a stream may let out ends: before any match a later piece could still
 * complete or extend. A pattern without whitespace can only continue the last word; one with
 * whitespace may reach back its longest length; a private key's header holds everything after it.
 */
function releasableEnd(text: string, matchers: readonly Matcher[], restoring: boolean): number {
  let end = text.length;
  const lastWord = startOfLastWord(text);
  for (const matcher of matchers) {
    const reach = matcher.spansWhitespace ? text.length - (matcher.maxLength - 1) : Math.max(lastWord, text.length - (matcher.maxLength - 1));
    end = Math.min(end, Math.max(0, reach));
    const opening = matcher.openingAt?.(text);
    if (opening !== undefined) end = Math.min(end, opening);
  }
  if (restoring) end = Math.min(end, Math.max(lastWord, text.length - PLACEHOLDER_MAX_LENGTH));
  return end;
}

interface Channel {
  pending: string;
  /** The last event that carried this channel's text: the shape a held-back remainder is sent in. */
  template: { message: EventSourceMessage; event: unknown; path: DeltaSlot["path"] };
}

/**
 * Runs a request's output checks on an SSE reply as it passes: each piece of text is rewritten
 * (redacted, placeholders restored) once nothing later can change it, and a block ends the
 * stream with `errorEvent`, the client format's own.
 */
export class StreamGuard {
  private readonly channels = new Map<string, Channel>();
  private readonly matchers: Matcher[];
  private readonly restoring: boolean;
  /** The reply's text as let out, for the checks that judge it whole. */
  private text = "";
  private ended = false;
  private judged = false;

  constructor(
    private readonly run: RequestRun,
    private readonly format: WireFormat,
    private readonly judgeWhole: (text: string) => Promise<void>,
    private readonly errorEvent: () => Uint8Array,
  ) {
    this.matchers = run.applied.matches.output.map((check) => check.matcher);
    this.restoring = run.applied.restoreRedacted && run.pseudonyms.hasRestorable;
  }

  transform(): TransformStream<Uint8Array, Uint8Array> {
    const messages: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (message) => messages.push(message) });
    const decoder = new TextDecoder();
    return new TransformStream({
      transform: async (chunk, controller) => {
        if (this.ended) return;
        parser.feed(decoder.decode(chunk, { stream: true }));
        const out: string[] = [];
        for (const message of messages.splice(0)) {
          if (await this.handle(message, out)) break;
        }
        if (out.length > 0) controller.enqueue(encoder.encode(out.join("")));
        if (this.ended) controller.terminate();
      },
      flush: async (controller) => {
        if (this.ended) return;
        const out: string[] = [];
        this.release(out);
        await this.closeWith(out);
        if (out.length > 0) controller.enqueue(encoder.encode(out.join("")));
      },
    });
  }

  /** Adds what `message` becomes to `out`; true when the stream ends here. */
  private async handle(message: EventSourceMessage, out: string[]): Promise<boolean> {
    let event: unknown;
    try {
      event = JSON.parse(message.data);
    } catch {
      event = undefined;
    }
    const slots = deltaSlotsOf(this.format, event);
    if (slots.length === 0) {
      this.release(out);
      if (isClosingEvent(message.data, event) && (await this.closeWith(out))) return true;
      const rewritten = event === undefined ? message.data : JSON.stringify(rewriteText(event, "output", (text) => this.run.rewrite(text, "output")));
      if (this.blocked(out)) return true;
      out.push(encodeEvent(message, rewritten));
      return false;
    }
    const final = endsText(event);
    for (const slot of slots) setTextAt(event, slot.path, this.take(slot, message, event, textAt(event, slot.path), final));
    if (this.blocked(out)) return true;
    out.push(encodeEvent(message, JSON.stringify(event)));
    return false;
  }

  /** The part of a channel's text that can go out now, rewritten; the rest waits for the next piece. */
  private take(slot: DeltaSlot, message: EventSourceMessage, event: unknown, piece: string, final: boolean): string {
    // The event itself is the template: it is serialized before anything else changes it, and a release clones it.
    const template = { message, event, path: slot.path };
    const channel = this.channels.get(slot.channel) ?? { pending: "", template };
    channel.template = template;
    this.channels.set(slot.channel, channel);
    const text = channel.pending + piece;
    const found = this.run.find(text, "output");
    let end = final ? text.length : releasableEnd(text, this.matchers, this.restoring);
    for (const item of found) if (!final && (item.end > end || item.end === text.length)) end = Math.min(end, item.start);
    channel.pending = text.slice(end);
    const released = this.run.rewrite(text.slice(0, end), "output", found.filter((item) => item.end <= end));
    this.text += released;
    return released;
  }

  /** Sends every channel's held text, each in the shape of its last event. */
  private release(out: string[]): void {
    for (const channel of this.channels.values()) {
      if (channel.pending === "") continue;
      const released = this.run.rewrite(channel.pending, "output");
      channel.pending = "";
      this.text += released;
      const event = structuredClone(channel.template.event);
      setTextAt(event, channel.template.path, released);
      out.push(encodeEvent(channel.template.message, JSON.stringify(event)));
    }
  }

  /** Judges the whole reply before its closing event; true (and the error event sent) when that blocks it. */
  private async closeWith(out: string[]): Promise<boolean> {
    if (this.blocked(out) || this.judged) return this.ended;
    this.judged = true;
    await this.judgeWhole(this.text);
    return this.blocked(out);
  }

  private blocked(out: string[]): boolean {
    if (this.ended) return true;
    if (!this.run.blockedBy) return false;
    this.ended = true;
    // What was still to go out is dropped: the error replaces it.
    out.length = 0;
    out.push(new TextDecoder().decode(this.errorEvent()));
    return true;
  }
}
