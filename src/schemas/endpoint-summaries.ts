/**
 * One line per endpoint of the tables in endpoints.ts, for documents about them (the emulator's
 * OpenAPI). Kept apart from the tables so browser bundles of the API client do not carry them.
 */
export const endpointSummaries: Readonly<Record<string, string>> = {
  E1: 'Warm up the robot agent',
  RS: 'Realtime signaling: offer in, answer out',
  RT: 'Realtime session resource: trickled ICE candidates, end-of-candidates, ICE restart (WHIP-style sdpfrag); 204, or 200 with the answer fragment of a restart',
  E2: 'Update robot prompt information',
  E3: 'Generate a robot prompt from a meta prompt',
  E4: 'Refresh dataset files',
  E5: 'Add links to a dataset',
  E6: 'Rate a message',
  E7: 'Delete dataset files',
  E8: 'Update dataset configuration',
  E9: 'PDF highlight positions of a text',
  E10: 'Chat completions (digital human runtime)',
  E11: 'Realtime cost summary',
  E12: 'Realtime cost per session',
  E13: 'Realtime usage',
  E14: 'Presigned URLs of recorded audio segments',
  E15: 'Delete a session (background hard delete)',
  E16: 'Dataset file metadata',
  E17: 'One session message',
  E18: 'References of an answer',
  E19: 'Messages of a session (paginated)',
  E20: 'Dataset integration rules (paginated)',
  OAI_CLIENT_SECRETS: 'Mint an ephemeral client secret (ek_) for one robot',
  OAI_CALLS: 'Unified interface: SDP offer in, SDP answer out (Location names the call)',
  OAI_SECRET: 'Mint an OpenAI-dialect client secret (ek_) for the caller',
  OAI_CALL: 'OpenAI-dialect call, unified interface: SDP offer in, SDP answer out',
};
