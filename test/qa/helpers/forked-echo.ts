// A child for forked.test.ts: answers through serveParent; `echo` returns its value, `fail` throws
// a coded error, `event` sends an event first, `hang` never answers, `die` exits with code 3.
import { serveParent, toParent } from '../../../qa/src/load/forked-child.js';

type Request = { id: number; op: 'echo' | 'fail' | 'event' | 'hang' | 'die'; value?: unknown };

serveParent<Request>(async (request) => {
  switch (request.op) {
    case 'echo':
      return request.value;
    case 'fail':
      throw Object.assign(new Error('refused'), { code: 'refused_here' });
    case 'event':
      toParent({ event: 'note', value: request.value });
      return 'after the event';
    case 'hang':
      return new Promise(() => undefined);
    case 'die':
      setImmediate(() => process.exit(3));
      return new Promise(() => undefined);
  }
}, () => process.exit(0));
