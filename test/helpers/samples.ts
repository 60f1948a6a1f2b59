/** Valid example payloads for every response of the table, shared by schema and client tests. */
export const AI = '8c1f2a4e-3b5d-4f6a-9e7b-1c2d3e4f5a6b';
export const DS = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
export const MSG = '9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f';
export const FILE = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
const T = '2026-11-01T10:00:00Z';

export const message = {
  id: MSG, session_id: 'sess-1', created_at: T, question: 'How long does the battery last?', answer: 'About ten hours.',
  anonymous_username: null, user_id: null, total_tokens: 42, history_conversation_count: 0, first_response_time: 0.8,
  rating: null, feedback_content: null, reference_list: [], reference_indexes: null, is_test: false, faq_id: null,
  comes_from: 'realtime', llm_can_answer: true, title: null, url: null, model: 'kb-realtime-1', question_metadata: null,
  status: 'finished', is_correct: null, transfer_to_human: false, canvas: null, tags: [], session_message_metadata: [],
  default_dataset_id: DS, citation: [],
};

const user = { id: FILE, user_id: 'u1', email: 'a@example.com', name: 'A', salt: 's', picture: '', locale: 'en' };
export const integration = {
  id: FILE, created_at: T, updated_at: T, name: 'Docs', type: 'feishu', file_list_sync_status: 'waiting', created_by: user,
  notification_emails: null, sync_interval: 24, last_synced_at: T, file_count: 3,
  detail: { id: FILE, created_at: T, updated_at: T, app_id: 'cli_1', app_secret: '***', share_urls: [{ id: FILE, created_at: T, updated_at: T, url: 'https://example.com/wiki', recursive: true }] },
};

export const file = { id: FILE, dataset_id: DS, name: 'manual.pdf', type: 'pdf', size: 1234, status: 'learned', url: null, metadata: {}, created_at: T, updated_at: T };

export const responses = {
  E1: { success: true },
  RS: { session_id: 'sess-1', type: 'answer', sdp: 'v=0\r\n' },
  E2: { prompt: 'You are a helpful assistant.', role: 'assistant', general: 'g', change_summary: 'c' },
  E3: { prompt: 'You are a helpful assistant.', role: 'assistant', general: 'g', change_summary: 'c' },
  E4: { success: true, files: [file] },
  E5: { success: true, links: [{ id: FILE, url: 'https://example.com', type: 'website', spa: false, max_images: 10, status: 'waiting', created_at: T }] },
  E6: { ...message, rating: 1 },
  E7: { success: true, deleted: [FILE] },
  E8: { dataset_id: DS, metadata: { a: 1 } },
  E9: { positions: [{ page: 1, x: 10, y: 20, width: 100, height: 12, text: 'battery' }], success: true, message: 'ok' },
  E10: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: AI, choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
  E11: { bot_id: AI, model: 'auto', session_count: 1, total_turns: 2, total_duration_ms: 5000, cache_hit_rate: 0, items: [{ category: 'audio_in', tokens: 10, unit_price: 40, cost: 0.0004 }], total_cost: 0.0004, totals: {}, start_time: T, end_time: T },
  E12: { bot_id: AI, model: 'auto', session_count: 1, total_cost: 0.1, sessions: [{ session_id: 'sess-1', created_at: T, bot_id: AI, provider: 'emulator', bot_name: 'Bot', user_identifier: 'u1', language: 'ja', turn_count: 2 }], start_time: T, end_time: T },
  E13: { bot_id: AI, session_count: 1, totals: { turn_count: 2 }, sessions: [{ session_id: 'sess-1', created_at: T, title: 't', user_identifier: 'u1', language: 'ja', turn_count: 2 }], start_time: T, end_time: T },
  E14: { session_id: 'sess-1', segments: [{ segment_index: 0, url: 'http://127.0.0.1/a.wav?sig=1', expires_at: T, duration_ms: 1200, content_type: 'audio/wav' }] },
  E15: { session_id: 'sess-1', status: 'deleting' },
  E16: file,
  E17: message,
  E18: { message_id: MSG, references: [{ id: 'r1', title: 'Manual', url: null, dataset_id: DS, file_id: FILE, content: 'Battery: 10 h', score: 0.9 }] },
  E19: { items: [message], total: 1, page: 1, size: 50, pages: 1 },
  E20: { items: [integration], total: 1, page: 1, size: 50, pages: 1 },
} as const;
