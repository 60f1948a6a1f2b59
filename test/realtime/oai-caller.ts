import * as z from 'zod/mini';
import { OAI_DATA_CHANNEL_LABEL, OaiServerEvent } from '../../src/schemas/openai-realtime.js';
import { WrtcCaller } from './wrtc-caller.js';

/**
 * The caller side of an OpenAI-protocol call in Node, shaped like a browser running OpenAI's SDK:
 * the `oai-events` data channel, every event received validated against the protocol's schema.
 */
export class OaiCaller extends WrtcCaller<OaiServerEvent> {
  callId = '';

  private constructor() {
    super(OAI_DATA_CHANNEL_LABEL, (message) => z.parse(OaiServerEvent, message));
  }

  /** Posts the offer with `post` (which answers the SDP and the `Location` header) and connects. */
  static async connect(post: (offerSdp: string) => Promise<Response>): Promise<OaiCaller> {
    const caller = new OaiCaller();
    const res = await post(await caller.offer());
    if (res.status !== 201) {
      caller.close();
      throw new Error(`call refused: ${res.status} ${await res.text()}`);
    }
    caller.callId = res.headers.get('location')?.split('/').pop() ?? '';
    await caller.answer(await res.text());
    return caller;
  }

  types(): string[] {
    return this.events.map((e) => e.type);
  }
}
