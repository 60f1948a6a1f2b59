/** Something the client did, as the scripted service saw it. */
export interface Interaction {
  kind: 'offer' | 'event' | 'warmup';
  data: object;
}

/** One declared step: the next interaction of this kind with these fields; `then` runs when it is met. */
export interface Expectation {
  kind: Interaction['kind'];
  fields: object;
  then?: (data: never) => void;
}

const describe = (e: { kind: string; fields?: object; data?: object }) => `${e.kind} ${JSON.stringify(e.fields ?? e.data)}`;

/** Whether `data` has every field of `fields` (an undefined field must be absent or undefined). */
function matches(data: object, fields: object): boolean {
  return Object.entries(fields).every(([key, value]) => {
    const actual = (data as Record<string, unknown>)[key];
    return value !== null && typeof value === 'object' ? actual !== null && typeof actual === 'object' && matches(actual, value) : Object.is(actual, value);
  });
}

/**
 * Ordered expectations of a scripted service (the scripted transport of `@openai/agents-realtime`
 * is the model): each interaction is checked against the first unmet expectation; a mismatch is
 * remembered and reported by {@link assertComplete}, never thrown into the client's own code.
 */
export class Expectations {
  private readonly queue: Expectation[] = [];
  private readonly problems: string[] = [];
  private checked = 0;
  /** Kinds some expectation named: interactions of other kinds (e.g. the warmup, when no step expects one) are not checked. */
  private readonly kinds = new Set<Interaction['kind']>();

  add(expectation: Expectation): void {
    this.queue.push(expectation);
    this.kinds.add(expectation.kind);
  }

  observe(interaction: Interaction): void {
    const next = this.queue[0];
    if (!next || !this.kinds.has(interaction.kind)) return; // nothing (more) declared, or a kind nobody expects
    this.checked++;
    if (next.kind !== interaction.kind || !matches(interaction.data, next.fields)) {
      this.problems.push(`interaction ${this.checked}: expected ${describe(next)}, got ${describe(interaction)}`);
      return;
    }
    this.queue.shift();
    (next.then as ((data: object) => void) | undefined)?.(interaction.data);
  }

  assertComplete(): void {
    const unmet = this.queue.map((e) => `never happened: ${describe(e)}`);
    const all = [...this.problems, ...unmet];
    if (all.length > 0) throw new Error(`ScriptedService expectations not met:\n- ${all.join('\n- ')}`);
  }
}
