// Entry of dist/vendor/simple-peer.js: simple-peer 9 (CommonJS, written for browserify) turned into
// one self-contained ES module with its Node-isms (buffer, events, process, global) inlined, so that
// kb-voice's browser entry needs no polyfill or bundler setting in the consuming app.
import SimplePeer from 'simple-peer';

export default SimplePeer;
