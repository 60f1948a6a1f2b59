// Strict CSP with a nonce per request (Next.js 16's `proxy`, formerly `middleware`): Next reads the
// nonce from the request's Content-Security-Policy header and puts it on its own scripts (its inline
// bootstrap and RSC payload included), so no 'unsafe-inline' is needed. The page must render per
// request (app/page.jsx reads headers()): a static page would carry no nonce. KB_VOICE_RELAY_ORIGIN is
// the relay the page may connect to (set by the test).
import { NextResponse } from 'next/server';
import { strictCsp } from '../csp.mjs';

export function proxy(request) {
  const nonce = btoa(crypto.randomUUID());
  // The nonce also in style-src: a browser without constructable stylesheets gets the widget's nonce'd <style>.
  const csp = strictCsp(process.env.KB_VOICE_RELAY_ORIGIN ?? '', `'nonce-${nonce}'`, `'nonce-${nonce}'`);
  const headers = new Headers(request.headers);
  headers.set('x-nonce', nonce);
  headers.set('content-security-policy', csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('content-security-policy', csp);
  return response;
}

export const config = { matcher: [{ source: '/((?!_next/static|_next/image|favicon.ico).*)' }] };
