/**
 * kb-voice QA page. It loads the library through its public entry, exactly as a user's app would
 * (`kb-voice` resolves by package self-reference to the built dist/).
 */
import { startApp } from './app.js';
import { readConfig } from './config.js';
import { byId } from './ui/dom.js';

const result = readConfig(window.location);
if ('problem' in result) {
  const box = byId('call-error');
  box.textContent = result.problem;
  box.hidden = false;
  byId<HTMLButtonElement>('call-start').disabled = true;
} else {
  byId('ai-id').textContent = result.config.aiId;
  byId('language').textContent = result.config.language;
  startApp(result.config);
}
// The widget page, for the same robot and language.
byId<HTMLAnchorElement>('widget-link').search = window.location.search;
// Lets automation wait until the page's script is running.
document.body.dataset.ready = 'true';
