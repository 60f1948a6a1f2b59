// No inline script (the CSP allows scripts from 'self' only): the attributes come from the query string.
const params = new URLSearchParams(location.search);
const el = document.createElement('kb-voice-widget');
el.setAttribute('relay-url', params.get('relay') ?? '');
el.setAttribute('ai-id', params.get('ai') ?? '');
el.setAttribute('language', 'en');
document.getElementById('app').append(el);
