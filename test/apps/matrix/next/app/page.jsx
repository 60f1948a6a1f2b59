// A server component: rendered on the server for each request (headers() makes it dynamic, which a
// per-request CSP nonce needs), importing a client component that imports kb-voice/widget and kb-voice/react.
import { headers } from 'next/headers';
import Voice from './voice.jsx';

export default async function Page({ searchParams }) {
  const nonce = (await headers()).get('x-nonce') ?? '';
  const { relay = '', ai = '' } = await searchParams;
  return (
    <main>
      <h1>kb-voice in Next.js</h1>
      <Voice relay={relay} ai={ai} nonce={nonce} />
    </main>
  );
}
