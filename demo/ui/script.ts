/**
 * The QA script field: the emulator has no speech recognizer, so QA types what they are about to
 * say (or what the recording they play says) and the next spoken turn answers those words, marked
 * "scripted". The page sends it to its own origin (`/_emulator/script`), which the demo stack
 * proxies to the emulator's loopback-only control route; the API key is never involved.
 */
export interface ScriptField {
  form: HTMLFormElement;
  input: HTMLInputElement;
  status: HTMLElement;
  /** The live session, if any: its own queue; otherwise the next utterance of any session. */
  sessionId(): string | null;
}

export function wireScript(field: ScriptField, onEvent: (text: string) => void): { used(question: string): void } {
  const show = (state: 'queued' | 'used' | 'failed' | '', text: string) => {
    field.status.dataset.state = state;
    field.status.textContent = text;
  };
  field.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = field.input.value.trim();
    if (!text) return;
    const sessionId = field.sessionId();
    void fetch('/_emulator/script', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...(sessionId ? { session_id: sessionId } : {}), utterances: [text] }),
    })
      .then(async (res) => {
        if (!res.ok) throw new Error(`the emulator answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
        show('queued', `Next spoken question: "${text}"`);
        onEvent(`scripted the next spoken question: "${text}"`);
      })
      .catch((error: unknown) => show('failed', `Could not set the script: ${error instanceof Error ? error.message : String(error)}`));
  });
  return {
    used(question) {
      show('used', `Used for the last spoken turn: "${question}"`);
    },
  };
}
